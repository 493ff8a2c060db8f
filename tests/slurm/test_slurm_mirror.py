"""A Slurm job as any cluster, against the real loopback Slurm through the Engine (issue 33,
b33): the site's tuned NCCL environment and the SKYPILOT_* variables on every rank, the
samples of the sampler the batch script starts on each node in the live window and the
History, the per-rank logs in the History, the end and GPU-hours from the exit record."""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.slurm.approve import submit
from tests.slurm.conftest import LoginNode
from tests.slurm.test_slurm_cli import configure
from xyclaw.engine import Engine
from xyclaw.errors import UsageError
from xyclaw.records import ClusterRecord, ClusterState

ENV_TASK = """\
name: envs
num_nodes: 2
resources:
  accelerators: A800:8
run: |
  env | grep -E '^(NCCL_|SKYPILOT_)' | sort
  sleep {sleep}
"""
TUNED = {"NCCL_SOCKET_IFNAME": "lo", "NCCL_IB_DISABLE": "1", "NCCL_DEBUG": "WARN"}


@pytest.fixture
def engine(login_node: tuple[LoginNode, Path], make_jobs: object) -> Iterator[Engine]:
    """The Engine as the window builds it, with hosts.toml naming the loopback login node."""
    from xyclaw.config import load_config
    from xyclaw.engine.compose import build_engine
    from xyclaw.paths import AppPaths

    configure(login_node[0])
    paths = AppPaths.from_environment()
    built = build_engine(paths, load_config(paths.config_file), start_guard=False)
    yield built
    built.close()


def spec(sleep: int) -> str:
    path = Path(os.environ["XYCLAW_HOME"]) / f"envs-{sleep}.yaml"
    path.write_text(ENV_TASK.format(sleep=sleep))
    return str(path)


def follow_until(
    engine: Engine, job_id: str, done: Callable[[ClusterRecord], bool], timeout: float = 60
) -> ClusterRecord:
    deadline = time.monotonic() + timeout
    while True:
        engine.slurm_follow("lab", fresh=True)
        (found,) = [a for a in engine.slurm_allocations() if a.job_id == job_id]
        cluster = engine.cluster(str(found.cluster_id))
        if done(cluster):
            return cluster
        assert time.monotonic() < deadline, f"allocation of job {job_id} is {cluster.state}"
        time.sleep(0.5)


def test_a_slurm_job_is_an_allocation_with_the_tuned_nccl_env_samples_logs_and_gpu_hours(
    engine: Engine,
) -> None:
    first = submit(engine, spec(0))
    assert engine.slurm_nccl("lab") == {}  # nothing tuned yet: no NCCL variable is made up
    cluster = follow_until(engine, first.job_id, lambda c: not c.live)
    # the fabric's tuned variables, applied to the site's allocation as to any cluster
    engine._tuning.apply(cluster.id, TUNED, "the lab's fabric, measured by its admins")
    assert engine.slurm_nccl("lab") == TUNED

    view = submit(engine, spec(5))
    script = Path(view.folder, "env.sh").read_text()
    assert "export NCCL_SOCKET_IFNAME='lo'\n" in script
    running = follow_until(engine, view.job_id, lambda c: c.state == ClusterState.READY)
    (alloc,) = [a for a in engine.slurm_allocations() if a.job_id == view.job_id]
    assert (alloc.queue_state, alloc.gpus) == ("running", 16)
    assert running.provider_id == "lab" and running.external_id == view.job_id
    assert running.region == "gpu" and running.gpu_count == 16 and running.gpus_per_node == 8
    assert [n.name for n in running.nodes] == ["n1", "n2"]
    # its job is stopped by Slurm only (scancel through its own card), never by signals
    mirrored = next(j for j in engine.jobs() if j.cluster_id == running.id)
    with pytest.raises(UsageError) as refused:
        engine.cancel_job(str(mirrored.id))
    assert refused.value.hint is not None
    assert f"xyclaw slurm cancel lab {view.job_id}" in str(refused.value.hint)
    assert str(engine.job(str(mirrored.id)).state) == "running"
    # the sampler's samples in the live window the Monitor page draws, node by node
    telemetry = engine.live_metrics(running.name)
    deadline = time.monotonic() + 20
    while sum(1 for n in telemetry.fed_nodes(running.id) if n.instants) < 2:
        assert time.monotonic() < deadline, "no samples in the live window"
        time.sleep(0.5)
        engine.slurm_follow("lab")
    assert running.id in {c.id for c in telemetry.watched()}
    live = telemetry.fed_nodes(running.id)[0]
    _ts, util = live.series("util")
    assert sorted(int(u) for u in util[-1]) == list(range(90, 98))  # the fake's 8 GPUs

    ended = follow_until(engine, view.job_id, lambda c: not c.live)
    assert ended.state == ClusterState.RELEASED
    record = next(j for j in engine.jobs(include_finished=True) if j.cluster_id == ended.id)
    assert str(record.state) == "succeeded" and record.exit_code == 0, (
        record,
        engine.jobs(include_finished=True),
    )
    exit_record = engine.slurm_jobs("lab")[-1].exit
    assert exit_record is not None
    # GPU-hours: the nodes' spans are the exit record's
    spans = [(n.running_at, n.terminated_at) for n in ended.nodes]
    assert spans == [(exit_record.started_at, exit_record.ended_at)] * 2
    hours = sum((b or 0) - (a or 0) for a, b in spans) * ended.gpus_per_node / 3600
    assert hours == pytest.approx(exit_record.gpu_hours) and hours > 0

    # each rank's log in the History, with the tuned NCCL and the SKYPILOT_* variables
    for rank in (0, 1):
        lines = [line.text for line in engine.job_logs(str(record.id), node=rank)]
        assert "NCCL_SOCKET_IFNAME=lo" in lines and "NCCL_DEBUG=WARN" in lines, lines
        assert f"SKYPILOT_NODE_RANK={rank}" in lines and "SKYPILOT_NUM_NODES=2" in lines
        assert any(re.match(r"SKYPILOT_TASK_ID=", line) for line in lines), lines
    # the samples were stored, for both nodes and all 8 GPUs
    export = engine.export_metrics("gpu", cluster=ended.name)
    rows = list(export.rows)
    assert {r["node"] for r in rows} == {"n1", "n2"}, rows[:3]
    assert {int(r["gpu"]) for r in rows} == set(range(8))
    assert {int(r["util"]) for r in rows} <= set(range(90, 98))


def test_a_job_that_ended_while_the_window_was_closed_is_mirrored_from_its_exit_record(
    engine: Engine,
) -> None:
    from xyclaw.config import load_config
    from xyclaw.engine.compose import build_engine
    from xyclaw.paths import AppPaths

    view = submit(engine, spec(2))  # mirrored as submitted
    (alloc,) = engine.slurm_allocations()
    assert alloc.queue_state in ("pending", "running") and alloc.job_id == view.job_id
    engine.close()  # XyClaw closed: nothing follows the job while it runs and ends
    deadline = time.monotonic() + 30
    while not Path(view.folder, "exit.json").exists():
        assert time.monotonic() < deadline
        time.sleep(0.3)
    paths = AppPaths.from_environment()
    reopened = build_engine(paths, load_config(paths.config_file), start_guard=False)
    try:
        (cluster,) = reopened.slurm_follow("lab", fresh=True)
        assert cluster.state == ClusterState.RELEASED
        exit_record = reopened.slurm_jobs("lab")[0].exit
        assert exit_record is not None and exit_record.node_list == "n[1-2]"
        assert [n.name for n in cluster.nodes] == ["n1", "n2"]
        assert {(n.running_at, n.terminated_at) for n in cluster.nodes} == {
            (exit_record.started_at, exit_record.ended_at)
        }
        assert cluster.released_at == exit_record.ended_at
        job = next(j for j in reopened.jobs(include_finished=True) if j.cluster_id == cluster.id)
        assert str(job.state) == "succeeded" and job.ended_at == exit_record.ended_at
        assert reopened.slurm_follow("lab") == []  # ended for good: not read again
    finally:
        reopened.close()
