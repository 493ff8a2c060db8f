"""bench/run_benches.py, what `make bench-smoke` (and so CI) runs: it finds every benchmark by
its name, runs it with --smoke, and fails when one fails or does not end with its JSON line."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RUNNER = ROOT / "bench" / "run_benches.py"

# Each fake bench refuses to run without --smoke, so a runner that forgot to pass it fails too.
NEEDS_SMOKE = "import json, sys\nif '--smoke' not in sys.argv[1:]:\n    sys.exit('no --smoke')\n"
GOOD = NEEDS_SMOKE + "print('warming up')\nprint(json.dumps({'figure': 1}))\n"
BROKEN = (
    NEEDS_SMOKE + "class Engine:\n    def clusters(self): return []\n"
    "Engine().clusters.ensure_provider('bench', 'sim')\n"  # the telemetry bench's old fault
)
NO_JSON_LAST = NEEDS_SMOKE + "print(json.dumps({'figure': 1}))\nprint('done')\n"
JSON_NOT_AN_OBJECT = NEEDS_SMOKE + "print(json.dumps([1, 2]))\n"


def _run(folder: Path) -> tuple[subprocess.CompletedProcess[str], dict[str, object]]:
    done = subprocess.run(
        [sys.executable, str(RUNNER), "--smoke", "--folder", str(folder), "--timeout", "60"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    summary = json.loads(done.stdout.strip().splitlines()[-1])
    return done, summary


def test_benches_that_run_to_their_json_line_pass(tmp_path: Path) -> None:
    (tmp_path / "good_bench.py").write_text(GOOD)
    (tmp_path / "scores_eval.py").write_text(GOOD)
    (tmp_path / "helper.py").write_text("raise SystemExit('not a bench: never run')\n")
    done, summary = _run(tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert summary["benches"] == 2
    assert summary["failed"] == []
    assert set(summary["seconds"]) == {"good_bench.py", "scores_eval.py"}  # type: ignore[arg-type]


def test_a_bench_broken_on_purpose_fails_the_run(tmp_path: Path) -> None:
    (tmp_path / "good_bench.py").write_text(GOOD)
    (tmp_path / "broken_bench.py").write_text(BROKEN)
    (tmp_path / "quiet_bench.py").write_text(NO_JSON_LAST)
    (tmp_path / "list_bench.py").write_text(JSON_NOT_AN_OBJECT)
    done, summary = _run(tmp_path)
    assert done.returncode == 1
    assert summary["failed"] == ["broken_bench.py", "list_bench.py", "quiet_bench.py"]
    assert "== broken_bench.py: FAILED after" in done.stdout
    assert "== good_bench.py: passed in" in done.stdout
    # The bench's own output is passed through, so CI's log says what broke.
    assert "AttributeError: 'function' object has no attribute 'ensure_provider'" in done.stderr
    assert "== quiet_bench.py: FAILED after" in done.stdout
    assert "its last line on stdout is not a JSON object" in done.stdout
    assert '{"figure": 1}' in done.stdout  # the figures of the ones that ran


def test_a_bench_that_hangs_fails_the_run(tmp_path: Path) -> None:
    # It started a child of its own, as the simulated nodes are: both are stopped.
    (tmp_path / "slow_bench.py").write_text(
        NEEDS_SMOKE + "import subprocess, time\n"
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
        "print(child.pid, flush=True)\ntime.sleep(60)\n"
    )
    done = subprocess.run(
        [sys.executable, str(RUNNER), "--smoke", "--folder", str(tmp_path), "--timeout", "2"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1
    assert "still running after 2 s" in done.stdout
    child = int(done.stdout.split("\n")[1])
    deadline = time.monotonic() + 10
    while Path(f"/proc/{child}").exists() and _state(child) != "Z":
        assert time.monotonic() < deadline, "the bench's child is still running"
        time.sleep(0.1)


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return "gone"


def test_an_empty_folder_is_an_error_not_a_pass(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(RUNNER), "--smoke", "--folder", str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1
    assert "no benchmarks" in done.stderr


def test_every_bench_in_the_repository_takes_smoke() -> None:
    """The runner would find out too, but only when CI gets that far: a bench added
    without --smoke fails here, in `make test`, at once."""
    benches = sorted([*ROOT.glob("bench/*_bench.py"), *ROOT.glob("bench/*_eval.py")])
    assert len(benches) >= 9
    missing = [b.name for b in benches if '"--smoke"' not in b.read_text(encoding="utf-8")]
    assert not missing, f"add --smoke to: {missing} (see bench/README.md)"
