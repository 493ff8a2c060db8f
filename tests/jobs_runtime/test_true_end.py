"""A job that ends while no XyClaw process follows it: reopened, it is recorded with the end
its nodes wrote (their exit records, placed on this machine's clock with the offset measured
from the node), billed to that end, and its history says how long nobody watched it."""

from __future__ import annotations

import time
from pathlib import Path

from tests.jobs_runtime.conftest import MakeCluster, make_engine
from tests.jobs_runtime.helpers import finished, wait_for, write_spec
from xyclaw.engine import Engine
from xyclaw.engine.bootstrap import measure_clock_offset
from xyclaw.records.jobs import JobState
from xyclaw.remote import CommandResult

SKEW_S = 40.0  # the nodes' clocks run 40 s ahead of this machine's


def _exit_record(cluster_root: Path, job: str, rank: int) -> tuple[int, float]:
    text = (cluster_root / "root" / ".xyclaw" / "jobs" / job / "1" / f"rank{rank}.exit").read_text()
    code, ended = text.split()
    return int(code), float(ended)


def _pid_record(cluster_root: Path, job: str, rank: int) -> float:
    text = (cluster_root / "root" / ".xyclaw" / "jobs" / job / "1" / f"rank{rank}.pid").read_text()
    return float(text.split()[1])


def test_a_job_that_ended_while_nothing_watched_is_recorded_and_billed_to_its_nodes_end(
    engine: Engine, make_cluster: MakeCluster, tmp_path: Path
) -> None:
    cluster = make_cluster(nodes=2, gpus_per_node=8, time_scale=1.0, clock_skew_s=SKEW_S)
    for node in cluster.record.nodes:  # what bootstrap measures and keeps for each node

        def run(command: str, node_name: str = node.name) -> CommandResult:
            result = engine.exec(cluster.name, command)[node_name]
            assert isinstance(result, CommandResult)
            return result

        offset = measure_clock_offset(run, time.time)
        assert offset is not None and abs(offset - SKEW_S) < 1.0
        engine._clusters.set_node_clock_offset(node.id, offset)
    # rank 1 runs 2 s longer: the job's end is its last rank's
    write_spec(
        tmp_path,
        "name: quiet\nnum_nodes: 2\n"
        'run: sleep $((3 + 2 * SKYPILOT_NODE_RANK)); echo "done $SKYPILOT_NODE_RANK"\n',
    )
    window = make_engine()  # the window that launches it, then closes
    job = window.launch(str(tmp_path / "job.yaml"), cluster=cluster.name).result(60)
    engine.attach_job(str(job.id))  # another process asks to follow it while the window does
    time.sleep(0.5)
    assert not engine._job_service().followed_here(job.id)  # one follower at a time
    window.close()
    folder = f"quiet-{job.id}"
    roots = [node.machine.root for node in cluster.nodes]
    wait_for(
        "both ranks' exit records",
        lambda: all(
            (r / "root/.xyclaw/jobs" / folder / "1" / f"rank{k}.exit").exists()
            for k, r in enumerate(roots)
        ),
        timeout=30,
    )
    time.sleep(6)  # nothing follows it meanwhile: a late look would see a longer job
    assert engine.job(str(job.id)).state is JobState.RUNNING

    engine.attach_job()  # the window opened again

    done = finished(engine, job.id, timeout=30)
    assert done.state is JobState.SUCCEEDED
    ends = [_exit_record(r, folder, k) for k, r in enumerate(roots)]
    assert [code for code, _ in ends] == [0, 0]
    true_end = max(ended for _, ended in ends) - SKEW_S
    true_start = min(_pid_record(r, folder, k) for k, r in enumerate(roots)) - SKEW_S
    assert done.ended_at is not None and done.started_at is not None
    assert abs(done.ended_at - true_end) < 2.0
    assert abs((done.ended_at - done.started_at) - (true_end - true_start)) < 2.0
    # billed to the nodes' end: 16 cards at 3.50 CNY per card-hour for that long
    per_second = 16 * 3_500_000 / 3600
    assert done.cost_micros is not None
    assert abs(done.cost_micros - per_second * (true_end - done.started_at)) <= 2 * per_second
    assert sorted(ln.text for ln in engine.job_logs(str(job.id))) == ["done 0", "done 1"]
    unwatched = [
        e for e in engine.recent_events(50) if e.get("job_id") == job.id
        and "was not watched for" in e["message"]
    ]  # fmt: skip
    assert len(unwatched) == 1


def test_the_replay_places_the_span_nobody_watched_where_it_began(
    engine: Engine, make_cluster: MakeCluster, tmp_path: Path
) -> None:
    from xyclaw.gui.history_data import HistorySource
    from xyclaw.paths import AppPaths

    cluster = make_cluster(nodes=1, gpus_per_node=1, time_scale=1.0)
    write_spec(tmp_path, "name: gap\nrun: sleep 2; echo over\n")
    window = make_engine()
    job = window.launch(str(tmp_path / "job.yaml"), cluster=cluster.name).result(60)
    window.close()
    closed_at = time.time()
    time.sleep(7)  # longer than a follower's heartbeat: a span nobody watched
    engine.attach_job()
    done = finished(engine, job.id, timeout=30)

    source = HistorySource(AppPaths.from_environment().database)
    try:
        replay = source.replay_job(job.id, samples=False)
    finally:
        source.close()
    (gap,) = [i for i in replay.timeline if "not_watched_from" in i.params]
    assert abs(gap.ts - closed_at) < 2.0
    assert gap.params["not_watched_until"] > closed_at + 6
    assert gap.said is not None and gap.said.key == "job.not_watched"
    assert "无人跟踪" in gap.said.in_language("zh")
    # the job's end in the replay is the node's, inside the span nobody watched
    assert done.ended_at is not None and done.ended_at < gap.params["not_watched_until"] - 3


def test_the_window_opened_again_adopts_a_job_nobody_follows_before_anything_else(
    engine: Engine, make_cluster: MakeCluster, tmp_path: Path
) -> None:
    from xyclaw.billing.guard_process import Holder

    cluster = make_cluster(nodes=2, gpus_per_node=8, time_scale=1.0)
    write_spec(
        tmp_path, 'name: later\nnum_nodes: 2\nrun: sleep 2; echo "done $SKYPILOT_NODE_RANK"\n'
    )
    window = make_engine()
    job = window.launch(str(tmp_path / "job.yaml"), cluster=cluster.name).result(60)
    window.close()
    assert engine.job(str(job.id)).state is JobState.RUNNING

    engine.start_maintenance(Holder.DESKTOP)  # what the desktop does when it opens

    done = finished(engine, job.id, timeout=30)
    assert done.state is JobState.SUCCEEDED
    assert sorted(ln.text for ln in engine.job_logs(str(job.id))) == ["done 0", "done 1"]
