"""Run every benchmark in a folder; fail if one fails or does not end with its JSON line.

The benchmarks are the folder's ``*_bench.py`` (figures) and ``*_eval.py`` (scores)
files, found anew each run, so a new one is run without being listed anywhere. Each runs
in its own interpreter from the repository root; it passes when it exits with 0 and the
last line it printed on stdout is one JSON object. Its figures are not judged here.

    python bench/run_benches.py            # full size (make bench)
    python bench/run_benches.py --smoke    # tiny sizes, seconds each (make bench-smoke, CI)

Each benchmark's own output is passed through as it comes, then a line says whether it
passed (or why not) and in how many seconds; last comes one JSON object: the benchmarks
run, the ones that failed and the seconds each took. See bench/README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import IO, Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
PATTERNS = ("*_bench.py", "*_eval.py")


def find_benches(folder: Path) -> list[Path]:
    return sorted({p for pattern in PATTERNS for p in folder.glob(pattern) if p.is_file()})


def last_json_line(stdout: str) -> dict[str, Any] | None:
    lines = [line for line in stdout.splitlines() if line.strip()]
    if not lines:
        return None
    try:
        found = json.loads(lines[-1])
    except ValueError:
        return None
    return found if isinstance(found, dict) else None


def _pump(stream: IO[str], kept: list[str], echo: IO[str]) -> None:
    """Pass a bench's output through as it comes (its figures are the point of a full run;
    its traceback is what CI's log should show), keeping a copy."""
    for line in stream:
        kept.append(line)
        echo.write(line)
        echo.flush()


def run_one(bench: Path, smoke: bool, timeout_s: float) -> dict[str, Any]:
    """Run one bench in its own interpreter and process group (a hung one is killed with
    whatever it started); its output is passed through. Returns its name, seconds and
    ``problem`` (None when it passed)."""
    command = [sys.executable, str(bench), *(["--smoke"] if smoke else [])]
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    started = time.monotonic()
    proc = subprocess.Popen(
        command,
        cwd=ROOT,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        errors="replace",
        start_new_session=True,
    )
    out: list[str] = []
    pumps = [
        threading.Thread(target=_pump, args=(proc.stdout, out, sys.stdout), daemon=True),
        threading.Thread(target=_pump, args=(proc.stderr, [], sys.stderr), daemon=True),
    ]
    for pump in pumps:
        pump.start()
    problem = None
    try:
        code = proc.wait(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        problem = f"still running after {timeout_s:g} s"
    for pump in pumps:
        pump.join(timeout=10)  # a process it left behind may hold the pipe: do not wait on it
    if problem is None and code != 0:
        problem = f"exit status {code} (its output is above)"
    elif problem is None and last_json_line("".join(out)) is None:
        problem = "its last line on stdout is not a JSON object"
    return {
        "bench": bench.name,
        "seconds": round(time.monotonic() - started, 1),
        "problem": problem,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--smoke", action="store_true", help="each at its smoke size")
    parser.add_argument("--folder", type=Path, default=HERE, help="where the benchmarks are")
    parser.add_argument(
        "--timeout", type=float, help="seconds one may take (default: 180 smoke, 3600 full)"
    )
    args = parser.parse_args(argv)
    timeout_s = args.timeout or (180.0 if args.smoke else 3600.0)
    benches = find_benches(args.folder)
    if not benches:
        print(f"no benchmarks ({', '.join(PATTERNS)}) in {args.folder}", file=sys.stderr)
        return 1
    results = []
    started = time.monotonic()
    for bench in benches:
        print(f"== {bench.name}{' --smoke' if args.smoke else ''}", flush=True)
        result = run_one(bench, args.smoke, timeout_s)
        results.append(result)
        if result["problem"] is None:
            print(f"== {bench.name}: passed in {result['seconds']} s", flush=True)
        else:
            print(
                f"== {bench.name}: FAILED after {result['seconds']} s: {result['problem']}",
                flush=True,
            )
    failed = [r["bench"] for r in results if r["problem"] is not None]
    summary = {
        "smoke": args.smoke,
        "benches": len(results),
        "failed": failed,
        "seconds": {r["bench"]: r["seconds"] for r in results},
        "total_seconds": round(time.monotonic() - started, 1),
        "load_average_1min": round(os.getloadavg()[0], 2),
    }
    print(json.dumps(summary))
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
