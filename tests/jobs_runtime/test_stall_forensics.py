"""A rank hung with no watchdog line yet (issue 34): the job's progress stops past its usual
step time, XyClaw asks every rank for its Flight Recorder dump through PyTorch's debug pipe
(the sim's training processes honour it) and names the rank, its node and the collective,
while the job still runs."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.jobs_runtime.conftest import FAST, MakeCluster, make_engine
from tests.jobs_runtime.helpers import TORCHRUN, wait_for, write_spec
from tests.jobs_runtime.test_cli import xyclaw
from xyclaw.engine import Engine
from xyclaw.records.jobs import JobState

SCRIPT = "# sim: model=llama-0.5b seq_len=512 micro_batch=1 steps=100000 save_every=50\n"


@pytest.fixture
def engine() -> Iterator[Engine]:
    built = make_engine(dataclasses.replace(FAST, stall_min_s=2.0, stall_factor=5.0))
    yield built
    built.close()


def _spec(folder: Path, name: str):  # type: ignore[no-untyped-def]
    ckpt = f"/shared/ckpt/{name}"
    # a watchdog timeout of ten simulated hours: no watchdog line comes during the test
    text = (
        f"name: {name}\nworkdir: work\ncheckpoint_dir: {ckpt}\n"
        f"run: {TORCHRUN.format(ckpt=ckpt)} --ddp_timeout 36000\n"
    )
    return write_spec(folder, text, script=SCRIPT)


def _forensics(engine: Engine) -> list[dict]:  # type: ignore[type-arg]
    return [e for e in engine.recent_events(500) if e.get("rule") == "job.hang_forensics"]


def test_a_rank_hung_without_a_watchdog_line_is_named_through_the_debug_pipe(
    engine: Engine, make_cluster: MakeCluster, tmp_path: Path
) -> None:
    cluster = make_cluster(nodes=2, gpus_per_node=8, time_scale=0.02)
    job = engine.launch(_spec(tmp_path, "stall"), cluster=cluster.name).result(60)
    step = wait_for("training steps", lambda: engine.job(str(job.id)).progress.step)
    at = (step + 400) * 4 + 3  # a few seconds on: the usual step time is learned first
    for node in cluster.nodes:
        node.faults.nccl_watchdog(hung_rank=11, at=at)
    (event,) = wait_for("the stall's verdict", lambda: _forensics(engine), timeout=45)
    node1 = cluster.nodes[1].spec.hostname
    data = json.loads(event["data_json"])
    assert data["trigger"] == "stall"
    assert data["culprit_ranks"] == [11] and data["nodes"] == [node1]
    assert data["op"] == "all_reduce" and data["seq"] == at and data["dumps_read"] == 16
    assert data["action"] == f"replace {node1} and resume from the last checkpoint"
    assert "no watchdog line yet" in event["message"]
    assert f"rank 11 on {node1} never entered all_reduce #{at} " in event["message"]
    lines = engine.job_logs(str(job.id))
    assert not [ln for ln in lines if "Watchdog caught collective operation timeout" in ln.text]
    assert engine.job(str(job.id)).state is JobState.RUNNING  # it is still up to the user
    folder = cluster.nodes[1].machine.root / "tmp" / "xyclaw-fr" / f"stall-{job.id}" / "1"
    assert {p.name for p in folder.glob("pipe_rank_*.pipe")} == {
        f"pipe_rank_{r}.pipe" for r in range(8, 16)
    }
    # `xyclaw jobs why` from another process (this one follows the job): the recorded verdict
    why = xyclaw("jobs", "why", str(job.id))
    assert why.returncode == 0, why.stderr
    assert "job stall, as last recorded at " in why.stdout
    assert f"rank 11 on {node1} never entered all_reduce #{at} " in why.stdout
    assert f"what to do: replace {node1} and resume from the last checkpoint" in why.stdout
    engine.cancel_job(str(job.id))


def test_why_stuck_asks_every_rank_of_a_running_job_and_a_healthy_one_is_cleared(
    engine: Engine, make_cluster: MakeCluster, tmp_path: Path
) -> None:
    cluster = make_cluster(nodes=2, gpus_per_node=8, time_scale=0.02)
    job = engine.launch(_spec(tmp_path, "healthy"), cluster=cluster.name).result(60)
    wait_for("training steps", lambda: engine.job(str(job.id)).progress.step)
    answer = engine.why_stuck(str(job.id))
    assert answer.fresh and answer.action is None and answer.nodes == ()
    assert str(answer.verdict).startswith("not stuck: its log showed step ")
    node1 = cluster.nodes[1].machine.root / "tmp" / "xyclaw-fr" / f"healthy-{job.id}" / "1"
    assert len(list(node1.glob("rank_*"))) == 8  # its ranks did dump when asked
    (event,) = _forensics(engine)
    assert json.loads(event["data_json"])["trigger"] == "asked"
    assert engine.job(str(job.id)).state is JobState.RUNNING
    engine.cancel_job(str(job.id))


def test_why_stuck_names_the_hung_rank_then_answers_from_history_once_it_ended(
    engine: Engine, make_cluster: MakeCluster, tmp_path: Path
) -> None:
    cluster = make_cluster(nodes=2, gpus_per_node=8, time_scale=0.02)
    job = engine.launch(_spec(tmp_path, "asked"), cluster=cluster.name).result(60)
    step = wait_for("training steps", lambda: engine.job(str(job.id)).progress.step)
    for node in cluster.nodes:  # the job's hang: every node's ranks reach the same collective
        node.faults.nccl_watchdog(hung_rank=11, at=(step + 50) * 4 + 3)
    node1 = cluster.nodes[1].spec.hostname

    def blamed() -> object:
        answer = engine.why_stuck(str(job.id))
        return answer if answer.nodes else None

    answer = wait_for("a verdict naming the hung rank", blamed, timeout=45)
    assert answer.fresh and answer.ranks == (11,) and answer.nodes == (node1,)
    assert answer.op == "all_reduce"
    assert str(answer.action) == f"replace {node1} and resume from the last checkpoint"
    assert f"rank 11 on {node1} never entered all_reduce #{answer.seq} " in str(answer.verdict)
    engine.cancel_job(str(job.id))
    later = engine.why_stuck(str(job.id))  # ended: the last recorded verdict, not a new look
    assert not later.fresh and later.nodes == (node1,) and later.seq == answer.seq
