"""`xyclaw launch task.yaml --yes --detach` of a 2-node SkyPilot task on the simulated cloud,
the launching process killed with SIGKILL at moments spread over its life: every job is
followed to its true end (the background guard adopts it), both ranks' lines are in its log,
and every cluster rented for it is released (bench/detach_bench.py runs 20 such trials)."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from xyclaw.paths import AppPaths

ROOT = Path(__file__).resolve().parents[2]


def _bench():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("detach_bench", ROOT / "bench/detach_bench.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("detach_bench", module)  # its dataclasses look themselves up
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("kill_after_s", [0.3, 1.5, 30.0])
def test_a_detached_two_node_job_is_followed_to_its_end_whoever_dies(
    kill_after_s: float, tmp_path: Path
) -> None:
    # killed that long after the launch made its job (while it rents, bootstraps or starts
    # the ranks), or not at all (it returns, and the guard follows the job)
    trial = _bench().run_trial(1, tmp_path, kill_after_s, after_job=True)

    assert trial.ok, trial.problems
    assert trial.clusters_released == trial.clusters and trial.ledger_open == 0
    if kill_after_s >= 30:  # the launch returned by itself: the guard followed the job
        assert not trial.killed and trial.job_state == "succeeded"
    if trial.job_state == "succeeded":
        assert trial.ranks_logged == [0, 1]
        assert trial.seen_end_after_s is not None and trial.seen_end_after_s <= 10.0


def test_detach_refuses_before_anything_runs_when_no_guard_can_follow_the_job(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XYCLAW_GUARD_AUTOSTART", "0")
    spec = tmp_path / "task.yaml"
    spec.write_text("name: lonely\nnum_nodes: 2\nrun: echo hi\n")
    done = subprocess.run(
        [sys.executable, "-m", "xyclaw.cli.main", "launch", str(spec), "--cluster", "nope",
         "--detach"],
        capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL, cwd=ROOT,
    )  # fmt: skip
    assert done.returncode != 0
    assert "the background guard is not running" in done.stderr
    assert "xyclaw guard start" in done.stderr and "without --detach" in done.stderr
    assert "Traceback" not in done.stderr
    jobs = subprocess.run(
        [sys.executable, "-m", "xyclaw.cli.main", "jobs", "--all", "--json"],
        capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL, cwd=ROOT,
    )  # fmt: skip
    assert json.loads(jobs.stdout) == []  # nothing was launched
    assert not (AppPaths.from_environment().data_dir / "guard.json").exists()
