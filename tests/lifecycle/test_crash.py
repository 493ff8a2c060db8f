"""kill -9 the app at random points of provisioning and release, then restart it.

The simulated cloud runs in its own process (as for a user), so it keeps going
while the app dies. After every restart and reconciliation: nothing bills that
the store does not know, no cluster is live in the store that the provider does
not have, and no cluster was created twice.
"""

from __future__ import annotations

import json
import os
import random
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from xyclaw.providers.sim import SimProvider
from xyclaw.sim.cloud.launcher import ensure_running, stop

LIVE_IN_STORE = ("requested", "provisioning", "bootstrapping", "ready", "releasing")


def xyclaw(env: dict[str, str], *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "xyclaw.cli.main", *args],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def check_invariants(provider: SimProvider, db: Path) -> None:
    listed = provider.clusters()
    conn = sqlite3.connect(db)
    rows = conn.execute("SELECT id, state, external_id, idempotency_key FROM clusters").fetchall()
    conn.close()
    keys = [c.idempotency_key for c in listed]
    assert len(keys) == len(set(keys)), "a cluster was created twice for one request"
    row_keys = [r[3] for r in rows]
    assert len(row_keys) == len(set(row_keys))
    by_ext = {r[2]: r for r in rows if r[2]}
    by_key = {r[3]: r for r in rows}
    for info in listed:
        if info.state in ("terminating", "terminated"):
            continue
        row = by_ext.get(info.external_id) or by_key.get(info.idempotency_key)
        assert row is not None, f"{info.external_id} bills but the store does not know it"
        assert row[1] in LIVE_IN_STORE, f"{info.external_id} bills but the store says {row[1]}"
    live_at_provider = {i.external_id for i in listed if i.state not in ("terminated",)}
    for _, state, ext, _ in rows:
        if state in ("ready", "provisioning", "bootstrapping"):
            assert ext in live_at_provider, f"store says {ext} is {state}; the provider has not"


@pytest.mark.slow
def test_kill_9_during_provisioning_and_release(xyclaw_home: Path) -> None:
    state = xyclaw_home / "data" / "sim"
    endpoint = ensure_running(state, provision_delay_s=0.4)
    env = {
        **os.environ,
        "XYCLAW_HOME": str(xyclaw_home),
        "XYCLAW_SECRETS_BACKEND": "file",
    }
    provider = SimProvider(endpoint.url, endpoint.token)
    rng = random.Random(20261129)
    kills = 0
    try:
        round_ = 0
        while kills < 20 and round_ < 40:
            round_ += 1
            if round_ % 3 == 2:
                rows = (
                    sqlite3.connect(xyclaw_home / "data" / "xyclaw.db")
                    .execute("SELECT id FROM clusters WHERE state = 'ready'")
                    .fetchall()
                )
                if rows:
                    proc = xyclaw(env, "down", str(rng.choice(rows)[0]), "--yes")
                else:
                    proc = xyclaw(env, "up", "--gpu", "A800", "--gpus", "8", "--yes")
            else:
                count = rng.choice(["8", "16"])
                proc = xyclaw(env, "up", "--gpu", "A800", "--gpus", count, "--yes")
            time.sleep(rng.uniform(0.2, 2.2))
            if proc.poll() is None:
                proc.kill()
                kills += 1
            proc.communicate(timeout=30)
            # Restart: the next command reconciles before it answers.
            restart = xyclaw(env, "clusters", "--json")
            out, err = restart.communicate(timeout=120)
            assert restart.returncode == 0, err
            json.loads(out)
            check_invariants(provider, xyclaw_home / "data" / "xyclaw.db")
        assert kills >= 20, f"only {kills} kills landed in {round_} rounds"
    finally:
        provider.close()
        stop(state)
