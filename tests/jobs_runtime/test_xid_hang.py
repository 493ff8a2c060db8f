"""A GPU that falls off the bus (XID 79) under a running 2 x 8 job (issue 34, b34): its rank
hangs in a CUDA call instead of failing (the sim's xid(..., kills=False)), its peers wait in
the next all_reduce, and no watchdog line comes for hours. The XID's fatal alert ends the
attempt; before it does, every rank is asked for its dump through the debug pipe, and the
attempt's message is the verdict laid over the node's timeline: "rank 11 on node 1 never
entered all_reduce #N ...; node 1 logged XID 79 (GPU has fallen off the bus) at T", read
from node 1's kernel log, whatever title the telemetry's merged alert (XID 79 and the GPU
missing from the count: one cause) was given. The next attempt asks
for node 1's replacement (this cluster has no provider to rent one: it says so)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.jobs_runtime.conftest import MakeCluster
from tests.jobs_runtime.helpers import TORCHRUN, finished, wait_for, write_spec
from tests.telemetry_live.conftest import fast_options
from xyclaw.engine import Engine
from xyclaw.records.jobs import JobState
from xyclaw.store.event_log import said_of
from xyclaw.telemetry.service import TelemetryService

SCRIPT = "# sim: model=llama-0.5b seq_len=512 micro_batch=1 steps=100000 save_every=50\n"


def test_a_gpu_fallen_off_the_bus_is_tied_to_the_rank_the_others_wait_for(
    engine: Engine, make_cluster: MakeCluster, tmp_path: Path
) -> None:
    cluster = make_cluster(nodes=2, gpus_per_node=8, time_scale=0.02)
    ckpt = "/shared/ckpt/xidhang"
    spec = write_spec(
        tmp_path,
        f"name: xidhang\nworkdir: work\ncheckpoint_dir: {ckpt}\n"
        f"run: {TORCHRUN.format(ckpt=ckpt)} --ddp_timeout 36000\n",
        script=SCRIPT,
    )
    telemetry = TelemetryService(
        engine._store, engine._access, engine._clusters, engine._events, engine._bus,
        fast_options(),
    )  # fmt: skip
    try:
        telemetry.watch(cluster.record)
        job = engine.launch(spec, cluster=cluster.name).result(60)
        step = wait_for("training steps", lambda: engine.job(str(job.id)).progress.step)
        at = (step + 20) * 4 + 3
        for node in cluster.nodes:  # rank 11 (node 1, GPU 3) never reaches all_reduce #at
            node.faults.nccl_watchdog(hung_rank=11, at=at)
        wait_for("the hang", lambda: engine.job(str(job.id)).progress.step not in (None, step), 10)
        cluster.nodes[1].faults.xid(79, gpu=3, kills=False)
        done = finished(engine, job.id, timeout=90)
    finally:
        telemetry.close()
    node1 = cluster.nodes[1].spec.hostname
    assert done.state is JobState.FAILED
    first, again = done.attempts
    message = first.message or ""
    assert first.cause == "xid"
    assert f"rank 11 on {node1} never entered all_reduce #{at} " in message
    # XID 79 and the GPU missing from the count are one alert in XyClaw's telemetry (one
    # cause: the GPU fell off the bus), titled by its first finding ("GPU 3 is missing"):
    # the verdict names the XID itself, from the node's kernel log
    assert f"; {node1} logged XID 79 (GPU has fallen off the bus) at " in message
    alerts = [a for a in engine._events.alerts(cluster.record.id) if a["rule"] == "gpu.missing"]
    assert [json.loads(a["data_json"])["cause"][0] for a in alerts] == ["gpu-lost"]
    assert "GPU 3 is missing" in alerts[0]["message"]  # the merged alert's own title
    lines = engine.job_logs(str(job.id))
    assert not [ln for ln in lines if "Watchdog caught collective operation timeout" in ln.text]
    (event,) = [e for e in engine.recent_events(500) if e.get("rule") == "job.hang_forensics"]
    data = json.loads(event["data_json"])
    assert data["trigger"] == "xid" and data["nodes"] == [node1]
    worded = said_of(event)  # and in Chinese, from the key and figures stored with it
    assert worded is not None
    assert f"{node1} 在 " in worded.in_language("zh")
    assert "记录了 XID 79（GPU 已从总线脱落）" in worded.in_language("zh")
    assert data["action"] == f"replace {node1} and resume from the last checkpoint"
    # the next attempt asks for node 1's replacement first (this cluster has none to rent)
    assert again.cause == "launch_failed" and "no replacement" in (again.message or "")
    assert node1 in (again.message or "")
