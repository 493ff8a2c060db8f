"""One process of the first-start race (tests/concurrency/test_first_start.py).

``python -m tests.concurrency.first_start READY GO OUT INDEX``: import what a first start
needs, say so (READY), wait for GO, then do what the first start of XyClaw in a new data
folder does, all at once with the other processes: make the app's SSH key, open (create
and migrate) the history, trust host keys, save a setting, add a host to hosts.toml, make
the simulated cloud's token, try the guard's lock. What it saw goes to OUT as JSON."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import paramiko

from xyclaw.billing.guard_process import GuardLock, Holder, read_info
from xyclaw.cli.main import main as xyclaw
from xyclaw.config import write_setting
from xyclaw.paths import AppPaths
from xyclaw.remote.known_hosts import KnownHosts, fingerprint_sha256
from xyclaw.remote.node_access import load_or_create_app_key
from xyclaw.sim.cloud.files import load_or_create_token
from xyclaw.store import Store
from xyclaw.store.plans import PlanTable

#: One setting per process (the value each writes is checked afterwards).
SETTINGS = (
    ("billing.idle_release_minutes", 31.0),
    ("billing.warn_fraction", 0.7),
    ("guard.interval_s", 61.0),
    ("ssh.connect_timeout_s", 11.0),
    ("telemetry.live_window_minutes", 16),
    ("jobs.log_head_lines", 100_001),
    ("reconcile.interval_s", 62.0),
    ("billing.quote_valid_minutes", 11.0),
)


def run(index: int) -> dict[str, object]:
    paths = AppPaths.from_environment().ensure()
    _key, public = load_or_create_app_key(paths.data_dir / "ssh" / "id_ecdsa")
    store = Store(paths.database)
    try:
        PlanTable(store).add({"process": index}, {"options": []})
    finally:
        store.close()
    known = KnownHosts(paths.known_hosts)
    known.add(f"10.0.0.{index + 1}", 22, paramiko.ECDSAKey.generate(bits=256))
    # a host every process trusts (the parent made its key): recorded once
    shared = paramiko.ECDSAKey.from_private_key_file(str(Path(sys.argv[1]).with_name("shared")))
    known.add("shared.example", 22, shared)
    dotted, value = SETTINGS[index]
    write_setting(paths.config_file, dotted, value)
    code = xyclaw(
        ["hosts", "add", f"h{index}", "--gpu", "A100-80G", "--gpus", "8", "--host",
         "127.0.0.1", "--user", "root", "--port", str(2200 + index)]
    )  # fmt: skip
    token = load_or_create_token(paths.data_dir / "sim")
    guard = GuardLock(paths)
    held: list[float] = []
    if guard.acquire(Holder.BACKGROUND, wait_s=0.0):
        held.append(time.time())
        for _ in range(20):  # heartbeats while others read guard.json
            guard.heartbeat(next_check_at=None, next_reason=None, live_clusters=index)
            time.sleep(0.01)
        held.append(time.time())
        guard.release()
    for _ in range(20):  # guard.json is whole whenever it is there (or absent)
        info = read_info(paths)
        assert info is None or info.pid > 0
    return {
        "public": public,
        "fingerprint": fingerprint_sha256(_key),
        "hosts_add": code,
        "token": token,
        "guard_held": held,
        "shared_fingerprint": fingerprint_sha256(shared),
    }


if __name__ == "__main__":
    ready, go, out, number = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3]), sys.argv[4]
    ready.write_text("ready")
    while not go.exists():
        time.sleep(0.002)
    result = run(int(number))
    out.write_text(json.dumps(result))
