"""Training jobs on a cluster of simulated nodes, through the Engine: launch, follow, recover,
cancel, and a setup that fails."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.jobs_runtime.conftest import MakeCluster
from tests.jobs_runtime.helpers import finished, train_spec, wait_for, write_spec
from xyclaw.engine import Engine
from xyclaw.errors import JobError
from xyclaw.events import JobChanged
from xyclaw.records.jobs import JobState


def test_a_two_node_eight_gpu_job_runs_to_completion_and_every_rank_sees_its_environment(
    engine: Engine, make_cluster: MakeCluster, tmp_path: Path
) -> None:
    cluster = make_cluster(nodes=2, gpus_per_node=8, fabric="roce-100", time_scale=0.02)
    engine.tune(cluster.name).result(120)
    nccl = engine.nccl_environment(cluster.name)
    assert nccl.get("NCCL_IB_GID_INDEX") == "3"  # the tuning changed something on RoCE
    spec = train_spec(
        tmp_path,
        "ddp",
        steps=30,
        save_every=10,
        model="llama-0.5b",
        extra='env:\n  XYCLAW_SIM_PRINT_ENV: "1"\n',
    )
    changes: list[JobChanged] = []
    engine.subscribe(JobChanged, changes.append)

    job = engine.launch(spec, cluster=cluster.name).result(60)
    assert job.state is JobState.RUNNING and job.cluster == cluster.name
    done = finished(engine, job.id)

    assert done.state is JobState.SUCCEEDED and done.exit_code == 0
    assert [(c.previous, c.state) for c in changes if c.job_id == job.id] == [
        (None, "queued"),
        ("queued", "setting-up"),
        ("setting-up", "running"),
        ("running", "succeeded"),
    ]
    lines = engine.job_logs(str(job.id))
    envs = {line.rank: line.text for line in lines if "env rank=" in line.text}
    assert sorted(envs) == list(range(16))
    head_ip = done.attempts[0].nodes[0].ip
    for rank, text in envs.items():
        assert f"RANK={rank} " in text and f"MASTER_ADDR={head_ip}" in text
        assert "NNODES=2" in text and "NPROC_PER_NODE=8" in text
        assert f"XYCLAW_NODE_RANK={rank // 8}" in text and "XYCLAW_NUM_NODES=2" in text
        for name, value in nccl.items():
            assert f"{name}={value}" in text or f"{name}='{value}'" in text, (rank, name)
    assert done.progress.step == 30 and done.progress.total_steps == 30
    assert done.progress.checkpoint_step == 30 and done.progress.loss is not None
    series = engine.job_metrics(str(job.id))
    assert [row["step"] for row in series] == list(range(1, 31))
    assert done.cost_micros is not None and done.cost_micros > 0 and done.currency == "CNY"
    # every node's stored lines are exactly its log file, in order, none twice
    for node_rank, node in enumerate(cluster.nodes):
        log = node.machine.root / "root" / ".xyclaw" / "jobs" / f"ddp-{job.id}" / "1"
        stored = [ln.text for ln in lines if ln.node_rank == node_rank and ln.stream == "run"]
        assert stored == (log / f"rank{node_rank}.log").read_text().splitlines()


def test_a_node_killed_mid_job_gives_attempt_two_which_resumes_at_the_newest_checkpoint(
    engine: Engine, make_cluster: MakeCluster, tmp_path: Path
) -> None:
    cluster = make_cluster(nodes=2, gpus_per_node=8, time_scale=0.02)
    spec = train_spec(tmp_path, "resume", steps=300, save_every=20)
    job = engine.launch(spec, cluster=cluster.name).result(60)
    wait_for(
        "a second checkpoint", lambda: (engine.job(str(job.id)).progress.checkpoint_step or 0) >= 40
    )

    cluster.nodes[1].faults.node_down()  # the machine dies: connections drop, processes die
    wait_for("lost contact", lambda: engine.job(str(job.id)).state is JobState.LOST_CONTACT)
    cluster.nodes[1].faults.node_up()  # it boots again, without the job's processes
    wait_for("attempt 2", lambda: engine.job(str(job.id)).attempt == 2, timeout=30)
    done = finished(engine, job.id, timeout=90)

    assert done.state is JobState.SUCCEEDED, done.error
    first, second = done.attempts
    assert first.cause == "node_lost" and cluster.nodes[1].spec.hostname in (first.message or "")
    assert second.resume_step is not None and second.resume_step >= 40
    assert second.resumed_from == f"/shared/ckpt/resume/checkpoint-{second.resume_step}"
    lines = [ln.text for ln in engine.job_logs(str(job.id), attempt=2)]
    assert any(
        f"resumed from {second.resumed_from} (step {second.resume_step})" in t for t in lines
    )
    steps = [int(m.group(1)) for t in lines if (m := re.search(r"step (\d+)/300", t))]
    assert steps and steps[0] == second.resume_step + 1 and steps[-1] == 300
    assert done.progress.step == 300


def test_cancel_stops_every_rank_and_leaves_no_process_on_any_node(
    engine: Engine, make_cluster: MakeCluster, tmp_path: Path
) -> None:
    cluster = make_cluster(nodes=2, gpus_per_node=8, time_scale=0.05)
    spec = train_spec(tmp_path, "long", steps=100_000, save_every=100_000)
    job = engine.launch(spec, cluster=cluster.name).result(60)
    wait_for("progress", lambda: engine.job(str(job.id)).progress.step)
    before = engine.exec(cluster.name, "ps -e -o pid=,pgid=,args=")
    assert all("train.py" in r.stdout for r in before.values())  # type: ignore[union-attr]

    cancelled = engine.cancel_job(str(job.id))

    assert cancelled.state is JobState.CANCELLED and cancelled.cause == "cancelled"
    assert "no process left" in (cancelled.attempts[0].message or "")
    for node in cluster.nodes:
        ps = engine.exec(cluster.name, "ps -e -o pid=,pgid=,args=")[node.spec.hostname]
        assert "train.py" not in ps.stdout and "torchrun" not in ps.stdout  # type: ignore[union-attr]


def test_a_setup_that_fails_on_one_node_names_it_and_shows_its_last_lines(
    engine: Engine, make_cluster: MakeCluster, tmp_path: Path
) -> None:
    cluster = make_cluster(nodes=2, gpus_per_node=8)
    setup = (
        'echo "collecting torch==9.9"\n'
        'if [ "$XYCLAW_NODE_RANK" = 1 ]; then\n'
        '  echo "ERROR: No matching distribution found for torch==9.9" >&2\n'
        "  exit 3\n"
        "fi\n"
        "sleep 30\n"
    )
    spec = write_spec(
        tmp_path,
        "name: broken\nsetup: |\n"
        + "".join(f"  {line}\n" for line in setup.splitlines())
        + "run: echo never\n",
    )

    with pytest.raises(JobError) as caught:
        engine.launch(spec, cluster=cluster.name).result(60)

    node1 = cluster.nodes[1].spec.hostname
    assert f"setup failed on {node1}" in caught.value.message
    assert "exited with code 3" in caught.value.message
    assert "No matching distribution found for torch==9.9" in caught.value.message
    job = engine.jobs(include_finished=True)[-1]
    assert job.state is JobState.FAILED and job.cause == "setup_failed"
    assert engine.job_logs(str(job.id), stream="run") == []  # the run never started
