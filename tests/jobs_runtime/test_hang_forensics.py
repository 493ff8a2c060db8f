"""A 2 x 8 training job whose rank 11 never enters an all_reduce (issue 34): after the
NCCL watchdog's timeout XyClaw reads every rank's Flight Recorder dump from both nodes
and says which rank, on which node, in which collective, with the replacement to make."""

from __future__ import annotations

import json
import time
from pathlib import Path

from tests.jobs_runtime.conftest import MakeCluster
from tests.jobs_runtime.helpers import TORCHRUN, finished, wait_for, write_spec
from tests.telemetry_live.conftest import fast_options
from xyclaw.engine import Engine
from xyclaw.records.jobs import JobState
from xyclaw.telemetry.service import TelemetryService

SCRIPT = "# sim: model=llama-0.5b seq_len=512 micro_batch=1 steps=100000 save_every=50\n"


def _spec(folder: Path, name: str, env: str = ""):  # type: ignore[no-untyped-def]
    ckpt = f"/shared/ckpt/{name}"
    text = (
        f"name: {name}\nworkdir: work\ncheckpoint_dir: {ckpt}\n"
        f"run: {TORCHRUN.format(ckpt=ckpt)} --ddp_timeout 120\n{env}"
    )
    return write_spec(folder, text, script=SCRIPT)


def _hang_rank_11(engine: Engine, cluster, job_id: int) -> int:  # type: ignore[no-untyped-def]
    """Rank 11 will not enter the all_reduce of a step a little ahead; its number."""
    step = wait_for("training steps", lambda: engine.job(str(job_id)).progress.step)
    at = (step + 10) * 4 + 3
    for node in cluster.nodes:  # the fault is the job's: every node's ranks see it
        node.faults.nccl_watchdog(hung_rank=11, at=at)
    return at


def test_rank_11_hung_is_named_with_its_node_and_collective_within_30_s(
    engine: Engine, make_cluster: MakeCluster, tmp_path: Path
) -> None:
    cluster = make_cluster(nodes=2, gpus_per_node=8, time_scale=0.02)
    job = engine.launch(_spec(tmp_path, "hang"), cluster=cluster.name).result(60)
    at = _hang_rank_11(engine, cluster, job.id)
    done = finished(engine, job.id, timeout=90)

    node1 = cluster.nodes[1].spec.hostname
    assert done.state is JobState.FAILED
    attempt, again = done.attempts  # recovery's default allows one more attempt
    assert attempt.cause == "nccl_timeout"
    assert f"rank 11 on {node1} never entered all_reduce #{at} " in (attempt.message or "")
    assert "15 other rank(s) waited in it" in (attempt.message or "")
    lines = engine.job_logs(str(job.id))
    watchdog = [ln for ln in lines if "Watchdog caught collective operation timeout" in ln.text]
    assert len(watchdog) == 15 and not any("[Rank 11]" in ln.text for ln in watchdog)
    (event,) = [e for e in engine.recent_events(500) if e.get("rule") == "job.hang_forensics"]
    data = json.loads(event["data_json"])
    assert data["culprit_ranks"] == [11] and data["nodes"] == [node1]
    assert data["op"] == "all_reduce" and data["seq"] == at and data["dumps_read"] == 16
    assert data["action"] == f"replace {node1} and resume from the last checkpoint"
    assert event["ts"] - min(ln.ts for ln in watchdog) <= 30.0
    folder = cluster.nodes[1].machine.root / "tmp" / "xyclaw-fr" / f"hang-{job.id}" / "1"
    assert {p.name for p in folder.glob("rank_*")} == {f"rank_{r}" for r in range(8, 16)}
    # the next attempt asks for a replacement of node 1 first (this cluster has none)
    assert again.cause == "launch_failed" and "no replacement" in (again.message or "")
    assert f"rank 11 on {node1}" in (again.message or "")


def test_the_spec_turns_the_flight_recorder_off_and_the_timeout_stays_as_it_was(
    engine: Engine, make_cluster: MakeCluster, tmp_path: Path
) -> None:
    cluster = make_cluster(nodes=2, gpus_per_node=8, time_scale=0.02)
    spec = _spec(tmp_path, "nofr", env='env:\n  XYCLAW_FLIGHT_RECORDER: "0"\n')
    job = engine.launch(spec, cluster=cluster.name).result(60)
    _hang_rank_11(engine, cluster, job.id)
    done = finished(engine, job.id, timeout=90)
    attempt = done.attempts[0]
    assert attempt.cause == "nccl_timeout" and "never entered" not in (attempt.message or "")
    assert not [e for e in engine.recent_events(500) if e.get("rule") == "job.hang_forensics"]
    for node in cluster.nodes:  # no dump was written anywhere
        assert not (node.machine.root / "tmp" / "xyclaw-fr").exists()


def test_an_xid_the_blamed_node_logged_first_is_tied_into_the_verdict(
    engine: Engine, make_cluster: MakeCluster, tmp_path: Path
) -> None:
    """The sim's XID 79 kills the rank outright (the job ends by its XID, named already):
    XID 63, which leaves the process running, stands in for a GPU error before a hang."""
    cluster = make_cluster(nodes=2, gpus_per_node=8, time_scale=0.02)
    telemetry = TelemetryService(
        engine._store, engine._access, engine._clusters, engine._events, engine._bus,
        fast_options(),
    )  # fmt: skip
    try:
        telemetry.watch(cluster.record)
        job = engine.launch(_spec(tmp_path, "xidhang"), cluster=cluster.name).result(60)
        wait_for("training steps", lambda: engine.job(str(job.id)).progress.step)
        logged = time.time()
        cluster.nodes[1].faults.xid(63, gpu=3)  # rank 11's GPU
        wait_for(
            "the XID alert",
            lambda: [a for a in engine._events.alerts(cluster.record.id) if a["rule"] == "gpu.xid"],
        )
        _hang_rank_11(engine, cluster, job.id)
        done = finished(engine, job.id, timeout=90)
    finally:
        telemetry.close()
    node1 = cluster.nodes[1].spec.hostname
    message = done.attempts[0].message or ""
    assert f"rank 11 on {node1} never entered all_reduce #" in message
    # named from the node's kernel log, with the XID table's meaning and the local time
    assert f"; {node1} logged XID 63 (ECC page retirement or row remap recorded) at " in message
    at = message.rsplit(" at ", 1)[1][:8]  # the user's local time of the XID, not later
    near = {time.strftime("%H:%M:%S", time.localtime(logged + d)) for d in (-1, 0, 1, 2)}
    assert at in near, (at, near)
