"""Issue 29: SkyPilot tasks launched unchanged on two simulated nodes, through the Engine:
its task script, its variables, num_nodes 1 by default, a failing task's exit code."""

from __future__ import annotations

import json
from pathlib import Path

from tests.jobs_runtime.conftest import MakeCluster
from tests.jobs_runtime.helpers import finished
from xyclaw.engine import Engine
from xyclaw.records.jobs import JobState


def _launch(engine: Engine, folder: Path, cluster: str, text: str) -> tuple[int, JobState]:
    folder.mkdir(parents=True, exist_ok=True)
    spec = folder / "task.yaml"
    spec.write_text(text)
    job = engine.launch(str(spec), cluster=cluster).result(60)
    done = finished(engine, job.id)
    return job.id, done.state


def _log(engine: Engine, job_id: int, node: int) -> list[str]:
    return [ln.text for ln in engine.job_logs(str(job_id), node=node)]


def test_skypilot_tasks_run_unchanged_on_two_simulated_nodes(
    engine: Engine, make_cluster: MakeCluster, tmp_path: Path
) -> None:
    cluster = make_cluster(nodes=2)

    # a two-node task reading SkyPilot's variables in setup and run
    ddp, state = _launch(
        engine,
        tmp_path / "ddp",
        cluster.name,
        "num_nodes: 2\n"
        "envs:\n  MODEL: tiny\n"
        'setup: echo "setup $SKYPILOT_SETUP_NODE_RANK of $SKYPILOT_NUM_NODES"\n'
        "run: |\n"
        '  echo "rank $SKYPILOT_NODE_RANK of $SKYPILOT_NUM_NODES model $MODEL"\n'
        '  echo "task ${SKYPILOT_TASK_ID:+set}"\n'
        '  echo "$SKYPILOT_CLUSTER_INFO"\n',
    )
    assert state is JobState.SUCCEEDED, engine.job(str(ddp)).error
    for rank in (0, 1):
        lines = _log(engine, ddp, rank)
        assert f"rank {rank} of 2 model tiny" in lines, lines
        assert "task set" in lines
        info = json.loads(next(ln for ln in lines if ln.startswith("{")))
        assert info["cluster_name"] == cluster.name
        assert not any("no job control" in ln for ln in lines)

    # a CPU-only task without num_nodes runs once, on the head node only
    once, state = _launch(
        engine,
        tmp_path / "once",
        cluster.name,
        "envs:\n  A: b\nrun: echo only $SKYPILOT_NUM_NODES\n",
    )
    assert state is JobState.SUCCEEDED
    assert "only 1" in _log(engine, once, 0)
    assert _log(engine, once, 1) == []

    # a task that fails keeps its exit code through the task script
    failing, state = _launch(
        engine, tmp_path / "fail", cluster.name, "num_nodes: 1\nrun: |\n  echo bye\n  exit 3\n"
    )
    job = engine.job(str(failing))
    assert state is JobState.FAILED and job.exit_code == 3


def test_a_pipeline_runs_its_tasks_in_order_and_stops_at_a_failure(
    engine: Engine, make_cluster: MakeCluster, tmp_path: Path
) -> None:
    """examples/chain_dag's shape, through `xyclaw launch FILE --cluster C` as a user runs it:
    the second task reads what the first wrote; a failing task stops the ones after it."""
    import subprocess
    import sys

    from tests.jobs_runtime.test_cli import ROOT, env

    cluster = make_cluster(nodes=2)
    good = tmp_path / "dag.yaml"
    good.write_text(
        "name: dag\n---\nname: first\nrun: echo made > ~/handoff.txt\n"
        "---\nname: second\nrun: echo second read $(cat ~/handoff.txt)\n"
    )
    ran = subprocess.run(
        [sys.executable, "-m", "xyclaw.cli.main", "launch", str(good), "--cluster", cluster.name],
        cwd=ROOT, env=env(), capture_output=True, text=True, timeout=180, check=False,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    assert "task 1 of 2: first" in ran.stderr and "task 2 of 2: second" in ran.stderr
    assert "second read made" in ran.stdout
    names = [j.name for j in engine.jobs(include_finished=True)]
    assert names == ["first", "second"]

    bad = tmp_path / "bad.yaml"
    bad.write_text("name: a\nrun: exit 5\n---\nname: b\nrun: echo never\n")
    ran = subprocess.run(
        [sys.executable, "-m", "xyclaw.cli.main", "launch", str(bad), "--cluster", cluster.name],
        cwd=ROOT, env=env(), capture_output=True, text=True, timeout=180, check=False,
    )  # fmt: skip
    assert ran.returncode != 0 and "pipeline stopped at task 1 of 2" in ran.stderr
    assert "b" not in [j.name for j in engine.jobs(include_finished=True)]
