"""One process of tests/concurrency/test_own_hosts_state.py: wait for GO, then take one of
your own machines (a one-GPU cluster) through the own-hosts provider, or release one."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from xyclaw.providers.base import ClusterOrder
from xyclaw.providers.own_hosts import OwnHostsProvider

if __name__ == "__main__":
    folder, go, index = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
    provider = OwnHostsProvider(folder / "hosts.toml", folder / "own-hosts-state.json")
    (folder / f"ready{index}").write_text("ready")
    while not go.exists():
        time.sleep(0.002)
    if sys.argv[4] == "release":
        info = provider.terminate(sys.argv[5])
        out = {"released": info.external_id}
    else:
        order = ClusterOrder("A100-80G", 1, None, None, f"order-{index}", "ssh-ed25519 AAAA x")
        info = provider.create(order)
        out = {"cluster": info.external_id, "hosts": [n.hostname for n in info.nodes]}
    (folder / f"out{index}.json").write_text(json.dumps(out))
