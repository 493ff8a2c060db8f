"""A service job on a simulated node: `vllm serve` launched by the Engine, ready once its
readiness check answers through the port forwarded to this machine, then a chat completion
through that port; cancel stops it and closes the port."""

from __future__ import annotations

from pathlib import Path

import openai
import pytest

from tests.jobs_runtime.conftest import MakeCluster
from tests.jobs_runtime.helpers import wait_for, write_spec
from xyclaw.engine import Engine
from xyclaw.errors import UsageError
from xyclaw.records.jobs import JobState

SPEC = """name: chat
kind: service
run: vllm serve meta-llama/Llama-2-7b-chat-hf --port 8000 --served-model-name llama
service:
  port: 8000
  readiness_path: /health
  readiness_timeout: 120
"""


def test_a_service_answers_a_chat_completion_through_the_forwarded_port(
    engine: Engine, make_cluster: MakeCluster, tmp_path: Path
) -> None:
    cluster = make_cluster(nodes=1, gpus_per_node=8, time_scale=0.05)
    spec = write_spec(tmp_path, SPEC)

    job = engine.serve(spec, cluster=cluster.name).result(60)

    assert job.state is JobState.RUNNING and job.service_url is not None
    assert job.service_url.startswith("http://127.0.0.1:")
    client = openai.OpenAI(base_url=f"{job.service_url}/v1", api_key="none", max_retries=0)
    reply = client.chat.completions.create(
        model="llama", messages=[{"role": "user", "content": "Is the cluster up?"}]
    )
    assert reply.choices[0].message.content and reply.choices[0].finish_reason == "stop"
    sampled = wait_for("a latency sample", lambda: engine.job(str(job.id)).progress.latency_ms)
    assert 0 < sampled < 5000
    assert any("Uvicorn running" in ln.text for ln in engine.job_logs(str(job.id)))

    cancelled = engine.cancel_job(str(job.id))
    assert cancelled.state is JobState.CANCELLED
    with pytest.raises(openai.APIConnectionError):
        client.models.list()


def test_serve_refuses_a_train_spec(
    engine: Engine, make_cluster: MakeCluster, tmp_path: Path
) -> None:
    cluster = make_cluster(nodes=1)
    spec = write_spec(tmp_path, "name: t\nrun: echo hi\n")
    with pytest.raises(UsageError, match="not a service"):
        engine.serve(spec, cluster=cluster.name)
