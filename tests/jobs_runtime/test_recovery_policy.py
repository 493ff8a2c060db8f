"""What ends an attempt and what the policy does then: a fatal XID seen by the telemetry,
a failing command (not retried unless listed), max_runtime; each cause recorded."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.jobs_runtime.conftest import MakeCluster
from tests.jobs_runtime.helpers import finished, train_spec, wait_for, write_spec
from tests.telemetry_live.conftest import fast_options
from xyclaw.engine import Engine
from xyclaw.records.jobs import JobState
from xyclaw.telemetry.service import TelemetryService


@pytest.fixture
def telemetry(engine: Engine) -> Iterator[TelemetryService]:
    """A fast telemetry service on the engine's bus (its alerts reach the job runtime)."""
    service = TelemetryService(
        engine._store,
        engine._access,
        engine._clusters,
        engine._events,
        engine._bus,
        fast_options(),
    )
    yield service
    service.close()


def test_a_fatal_xid_on_a_gpu_of_the_job_is_the_recorded_cause_and_a_broken_node_is_not_reused(
    engine: Engine, make_cluster: MakeCluster, telemetry: TelemetryService, tmp_path: Path
) -> None:
    cluster = make_cluster(nodes=2, gpus_per_node=8, time_scale=0.02)
    telemetry.watch(cluster.record)
    spec = train_spec(tmp_path, "xid", steps=100_000, save_every=20)
    job = engine.launch(spec, cluster=cluster.name).result(60)
    wait_for("a checkpoint", lambda: engine.job(str(job.id)).progress.checkpoint_step)

    cluster.nodes[1].faults.xid(79, gpu=3)  # the GPU falls off the bus; its rank fails

    done = finished(engine, job.id, timeout=60)
    first = done.attempts[0]
    node1 = cluster.nodes[1].spec.hostname
    assert first.cause == "xid"  # not "exit code 1": the GPU is why the command failed
    assert node1 in (first.message or "") and "GPU 3" in (first.message or "")
    # the policy retries an XID, but the node still lacks its GPU and nothing replaces it
    assert done.state is JobState.FAILED and done.attempt == 2
    assert "no replacement" in (done.error or "") and node1 in (done.error or "")


def test_a_failing_command_is_not_retried_unless_the_policy_lists_it(
    engine: Engine, make_cluster: MakeCluster, tmp_path: Path
) -> None:
    cluster = make_cluster(nodes=1)
    plain = write_spec(tmp_path / "a", "name: fails\nrun: echo trying; exit 7\n")
    job = engine.launch(plain, cluster=cluster.name).result(30)
    done = finished(engine, job.id)
    assert done.state is JobState.FAILED and done.exit_code == 7 and done.attempt == 1
    assert done.cause == "exit_nonzero" and "not retried" in (done.error or "")

    listed = write_spec(
        tmp_path / "b",
        "name: retried\nrun: echo trying; exit 7\n"
        "recovery: {max_restarts: 2, on: [exit_nonzero]}\n",
    )
    job = engine.launch(listed, cluster=cluster.name).result(30)
    done = finished(engine, job.id)
    assert done.state is JobState.FAILED and done.attempt == 3
    assert [a.cause for a in done.attempts] == ["exit_nonzero"] * 3
    assert "no restarts left (2 allowed)" in (done.error or "")
    assert [ln.attempt for ln in engine.job_logs(str(job.id))] == [1, 2, 3]


def test_max_runtime_stops_the_job_and_says_so(
    engine: Engine, make_cluster: MakeCluster, tmp_path: Path
) -> None:
    cluster = make_cluster(nodes=1)
    spec = write_spec(tmp_path, "name: capped\nmax_runtime: 1s\nrun: sleep 60\n")
    job = engine.launch(spec, cluster=cluster.name).result(30)
    done = finished(engine, job.id, timeout=30)
    assert done.state is JobState.CANCELLED and done.cause == "max_runtime"
    assert "max_runtime of 1 s" in (done.error or "")
    assert "no process left" in (done.attempts[0].message or "")


def test_a_cluster_being_released_stops_its_jobs_first_and_says_why(
    engine: Engine, make_cluster: MakeCluster, tmp_path: Path
) -> None:
    from xyclaw.records import ClusterState

    cluster = make_cluster(nodes=2)
    spec = write_spec(tmp_path, "name: doomed\nrun: sleep 60\n")
    job = engine.launch(spec, cluster=cluster.name).result(30)

    engine._clusters.update(cluster.cluster_id, state=ClusterState.RELEASING)  # as `down` does

    done = finished(engine, job.id, timeout=30)
    assert done.state is JobState.CANCELLED
    assert f"its cluster {cluster.name} is releasing" in (done.error or "")
    assert "no process left" in (done.attempts[0].message or "")
