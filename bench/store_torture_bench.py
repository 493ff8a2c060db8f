"""The history under kill -9, for longer than the test's minute (issue 23).

Runs cycles of the torture of tests/concurrency/torture.py (the window's store, the guard,
a stream of commands, random kill -9 of any of them), each on a new data folder, for
``--seconds`` in all (default 600, cycles of ``--cycle`` seconds, default 60); ``--smoke``
runs one cycle of 10 s. After each cycle: integrity_check of xyclaw.db and the agents'
checkpoints, every committed row present, the WAL never removed under an open store.

Bar (issue 23): 0 integrity failures and 0 lost rows in 20 cycles of 60 s.
Prints one JSON object as its last line: runs, kills, integrity failures, lost rows...
Run another checkout's code with PYTHONPATH=/path/to/that/checkout (its xyclaw is used by
every process; the torture itself comes from this one).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.concurrency.torture import Torture


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=600.0, help="in all (600)")
    parser.add_argument("--cycle", type=float, default=60.0, help="seconds per run (60)")
    parser.add_argument("--smoke", action="store_true", help="one run of 10 s")
    parser.add_argument("--seed", type=int, default=23)
    args = parser.parse_args(argv)
    total, cycle = (10.0, 10.0) if args.smoke else (args.seconds, args.cycle)
    summed = ("seconds", "kills", "commands", "committed_plans", "committed_checkpoints",
              "backups_checked", "integrity_failures", "lost_rows", "wal_violations")  # fmt: skip
    totals = dict.fromkeys(summed, 0.0)
    runs = passed = 0
    failures: list[str] = []
    started = time.monotonic()
    while time.monotonic() - started < total - 1:
        left = total - (time.monotonic() - started)
        with tempfile.TemporaryDirectory(prefix="xyclaw-torture-") as tmp:
            figures = Torture(Path(tmp) / "home", seed=args.seed + runs).run(min(cycle, left))
        runs += 1
        passed += figures.ok
        one = figures.to_json()
        shown = {k: v for k, v in one.items() if k != "failures"}
        print(json.dumps({"run": runs, **shown, "ok": figures.ok}), flush=True)
        for key in summed:
            totals[key] += float(one[key])
        failures += [f"run {runs}: {f}" for f in figures.failures[:5]]
    result = {
        "runs": runs,
        "runs_passed": passed,
        **{k: round(v, 1) if k == "seconds" else int(v) for k, v in totals.items()},
        "sixty_second_equivalents": round(totals["seconds"] / 60, 1),
        "failures": failures[:20],
    }
    print(json.dumps(result))
    return 0 if runs == passed else 1


if __name__ == "__main__":
    sys.exit(main())
