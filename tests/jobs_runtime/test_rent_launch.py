"""A spec that asks for GPUs and names no cluster: plan -> quote -> approval -> up, then the
job, then the cluster released when the job is done (it was rented for the job)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from tests.jobs_runtime.helpers import finished, wait_for, write_spec
from tests.lifecycle.conftest import MakeWorld
from xyclaw.engine.quotes import QuoteError
from xyclaw.jobs.errors import LaunchNeedsApproval
from xyclaw.records import ClusterState
from xyclaw.records.jobs import JobState

SPEC = """name: rented
resources: {gpu: A800, nodes: 1, gpus_per_node: 8, provider: sim}
run: echo "hello from $XYCLAW_NODE_RANK with $XYCLAW_GPUS_PER_NODE GPUs"
"""


def test_launching_a_spec_that_rents_needs_its_quote_then_rents_runs_and_releases(
    make_world: MakeWorld, tmp_path: Path
) -> None:
    world = make_world()
    engine = world.engine
    spec = write_spec(tmp_path, SPEC)

    with pytest.raises(LaunchNeedsApproval) as asked:
        engine.launch(spec)
    quote = asked.value.quote
    assert quote.gpu == "A800" and quote.gpu_count == 8 and quote.provider == "sim"
    assert world.provider.clusters() == []  # nothing rented without the approval
    assert engine.jobs(include_finished=True) == []
    other = dataclasses.replace(quote, gpu_count=16, nodes=2, digest="")
    with pytest.raises(QuoteError, match="asks for 8 x A800"):
        engine.launch(spec, quote=other)

    job = engine.launch(spec, quote=quote).result(120)

    assert job.rented_cluster and job.cluster is not None
    done = finished(engine, job.id)
    assert done.state is JobState.SUCCEEDED
    assert [ln.text for ln in engine.job_logs(str(job.id))] == ["hello from 0 with 8 GPUs"]
    released = wait_for(
        "the cluster released",
        lambda: engine.cluster(str(done.cluster_id)).state is ClusterState.RELEASED,
    )
    assert released
    assert any("release_when_done" in e["message"] for e in engine.recent_events(50))
