"""A service's requests are counted where its port is forwarded, and priced per 1k (issue 36).

A `vllm serve` job on a simulated node; each request is its own connection through the
forwarded port (the readiness probe's own connections are not counted).
"""

from __future__ import annotations

import urllib.request
from pathlib import Path

from tests.jobs_runtime.conftest import MakeCluster
from tests.jobs_runtime.helpers import wait_for, write_spec
from xyclaw.engine import Engine
from xyclaw.records.jobs import JobState

SPEC = """name: counted
kind: service
run: vllm serve meta-llama/Llama-2-7b-chat-hf --port 8000 --served-model-name llama
service:
  port: 8000
  readiness_path: /health
  readiness_timeout: 120
"""


def test_requests_through_the_forward_are_counted_and_priced(
    engine: Engine, make_cluster: MakeCluster, tmp_path: Path
) -> None:
    cluster = make_cluster(nodes=1, gpus_per_node=8, time_scale=0.05)
    job = engine.serve(write_spec(tmp_path, SPEC), cluster=cluster.name).result(60)
    assert job.state is JobState.RUNNING and job.service_url is not None
    for _ in range(7):
        with urllib.request.urlopen(f"{job.service_url}/health", timeout=10) as reply:
            assert reply.status == 200
    served = wait_for(
        "the requests counted",
        lambda: (
            (engine.job(str(job.id)).progress.requests_served or 0) >= 7
            and engine.job(str(job.id)).progress.requests_served
        ),
    )
    assert served == 7  # the probes' own connections are not counted
    engine.cancel_job(str(job.id))
    (result,) = engine.job_results(str(job.id))
    assert result.kind == "service" and result.requests == 7
    assert result.cost_micros > 0 and result.gpus == 8 and result.gpu == "A800"
    assert result.cost_per_1k_requests_micros == round(result.cost_micros * 1e3 / 7)
