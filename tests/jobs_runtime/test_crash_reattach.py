"""The app killed with kill -9 in the middle of a job, then started again: it reattaches,
and the stored log has no gap and no line twice."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from tests.jobs_runtime.conftest import MakeCluster
from tests.jobs_runtime.helpers import finished, train_spec, wait_for
from xyclaw.engine import Engine
from xyclaw.records.jobs import JobState

ROOT = Path(__file__).resolve().parents[2]


def test_kill_9_of_the_app_mid_job_then_a_restart_reattaches_without_gap_or_duplicate(
    engine: Engine, make_cluster: MakeCluster, tmp_path: Path
) -> None:
    cluster = make_cluster(nodes=2, gpus_per_node=8, time_scale=0.02)
    train_spec(tmp_path, "crashy", steps=400, save_every=100)
    child = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tests.jobs_runtime.app_child",
            str(tmp_path / "job.yaml"),
            cluster.name,
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout is not None
        job_id = int(child.stdout.readline().strip() or 0)
        assert job_id, child.stderr.read() if child.stderr else ""
        wait_for("lines stored by the first app", lambda: len(engine.job_logs(str(job_id))) > 40)
        os.kill(child.pid, signal.SIGKILL)
        child.wait(10)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait(10)
    at_crash = engine.job(str(job_id))
    assert at_crash.state is JobState.RUNNING and at_crash.progress.step  # left as it was

    attached = engine.attach_job(str(job_id))  # the app started again

    assert [j.id for j in attached] == [job_id]
    done = finished(engine, job_id, timeout=90)
    assert done.state is JobState.SUCCEEDED and done.attempt == 1
    lines = engine.job_logs(str(job_id))
    for node_rank, node in enumerate(cluster.nodes):
        folder = node.machine.root / "root" / ".xyclaw" / "jobs" / f"crashy-{job_id}" / "1"
        on_node = (folder / f"rank{node_rank}.log").read_bytes()
        stored = [ln for ln in lines if ln.node_rank == node_rank]
        assert [ln.text for ln in stored] == on_node.decode().splitlines()
        offsets = [ln.offset for ln in stored]
        assert offsets == sorted(set(offsets))  # each byte range stored once, in order
    assert any("training finished: 400 steps" in ln.text for ln in lines)
    # the metrics series too: every step once, whichever process read it
    assert [m["step"] for m in engine.job_metrics(str(job_id))] == list(range(1, 401))
