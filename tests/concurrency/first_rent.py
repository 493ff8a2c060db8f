"""The first rental in a new data folder with the background guard starting beside it
(issue 23): ``xyclaw up`` and ``xyclaw guard run --background`` start in the same moment,
as they did when a new user's first rent failed with "refused every credential" (two
processes each made the app's SSH key; the node was given one, the file kept the other).

Used by tests/concurrency/test_first_rent.py (3 rentals) and bench/first_rent_bench.py (20)."""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from tests.concurrency.torture import environment


@dataclass(frozen=True)
class Rental:
    ready: bool
    seconds: float
    detail: str


def first_rental(home: Path, *, provision_delay_s: float | None = None) -> Rental:
    """Rent 8 A800 on the simulated cloud from a new data folder at ``home`` while the guard
    starts; release everything afterwards (the cluster, the guard, the cloud)."""
    env = environment(home)
    env["XYCLAW_GUARD_AUTOSTART"] = "1"  # as for a user: `up` would start it too
    if provision_delay_s is not None:
        env["XYCLAW_SIM_PROVISION_DELAY_S"] = str(provision_delay_s)
    xyclaw = [sys.executable, "-m", "xyclaw.cli.main"]
    started = time.monotonic()
    logs = home.parent / f"{home.name}-logs"
    logs.mkdir(parents=True, exist_ok=True)
    with (logs / "guard.txt").open("w") as guard_out:
        guard = subprocess.Popen(
            [*xyclaw, "guard", "run", "--background"],
            env=env, cwd=logs, stdin=subprocess.DEVNULL, stdout=guard_out,
            stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
        try:
            up = subprocess.run(
                [*xyclaw, "up", "--gpu", "A800", "--gpus", "8", "--yes", "--json"],
                env=env, cwd=logs, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                timeout=300,
            )  # fmt: skip
            seconds = round(time.monotonic() - started, 1)
            try:
                cluster = json.loads(up.stdout) if up.returncode == 0 else None
            except ValueError:
                cluster = None
            ready = cluster is not None and cluster.get("state") == "ready"
            detail = "ready" if ready else f"exit {up.returncode}: {up.stderr.strip()[-600:]}"
            if cluster is not None:
                subprocess.run(
                    [*xyclaw, "down", str(cluster["id"]), "--yes"],
                    env=env, cwd=logs, stdin=subprocess.DEVNULL, capture_output=True,
                    timeout=120,
                )  # fmt: skip
        finally:
            for args in (["guard", "stop"], ["sim", "stop"]):
                with contextlib.suppress(subprocess.TimeoutExpired):
                    subprocess.run(
                        [*xyclaw, *args], env=env, cwd=logs, stdin=subprocess.DEVNULL,
                        capture_output=True, timeout=60,
                    )  # fmt: skip
            if guard.poll() is None:
                guard.kill()
            guard.wait()
    return Rental(ready, seconds, detail)
