"""Cost per result and MFU of three jobs run on the simulated cloud match a hand calculation
(issue 36): a full training run, a LoRA run and a service, each launched through the Engine.

The hand calculation reads only what the history recorded for each job (its attempts' times,
its logged tokens/s, the cluster's price and GPU count) and the catalog's bf16 TFLOP/s, and
works the figures out on its own (numpy's trapezoid, 6N or 4N FLOPs per token).
"""

from __future__ import annotations

import urllib.request
from pathlib import Path

import numpy as np
import pytest

from tests.jobs_runtime.conftest import MakeCluster
from tests.jobs_runtime.helpers import finished, train_spec, wait_for, write_spec
from xyclaw.catalog import Catalog
from xyclaw.engine import Engine
from xyclaw.records.jobs import JobRecord, JobState

SERVICE = """name: served
kind: service
run: vllm serve meta-llama/Llama-2-7b-chat-hf --port 8000 --served-model-name llama
service:
  port: 8000
  readiness_path: /health
  readiness_timeout: 120
"""


def _hand_cost(engine: Engine, job: JobRecord) -> float:
    """The job's node time at its cluster's price, in micro-units."""
    cluster = engine.cluster(str(job.cluster_id))
    per_s = cluster.price_per_gpu_hour_micros * cluster.gpu_count / 3600.0
    return sum(per_s * (a.ended_at - a.started_at) for a in job.attempts if a.started_at)


def _hand_tokens(engine: Engine, job: JobRecord) -> tuple[float, float]:
    """(tokens, seconds) from the job's recorded tokens/s samples, attempt by attempt: the
    area under the rate over the samples' times, or, where the lines were read in one burst
    and share their time, the mean rate over the attempt's running time."""
    rows = engine.job_metrics(str(job.id))
    tokens = seconds = 0.0
    for attempt in job.attempts:
        samples = sorted(
            (float(r["ts"]), float(r["tokens_per_s"]))
            for r in rows
            if int(r.get("attempt") or 1) == attempt.attempt and r.get("tokens_per_s") is not None
        )
        ts = np.array([s[0] for s in samples])
        rate = np.array([s[1] for s in samples])
        if np.count_nonzero(np.diff(ts) > 0) * 2 > len(ts) - 1:
            tokens += float(np.sum((rate[1:] + rate[:-1]) / 2 * np.diff(ts)))
            seconds += float(ts[-1] - ts[0])
        else:
            assert attempt.started_at is not None and attempt.ended_at is not None
            span = attempt.ended_at - attempt.started_at
            tokens += float(rate.mean()) * span
            seconds += span
    return tokens, seconds


def test_cost_per_result_and_mfu_of_three_simulated_jobs_match_a_hand_calculation(
    engine: Engine, make_cluster: MakeCluster, tmp_path: Path
) -> None:
    cluster = make_cluster(nodes=1, gpus_per_node=8, time_scale=0.02)
    peak = Catalog.builtin().gpu(cluster.record.gpu).bf16_tflops * 1e12
    params = 0.5e9
    done: dict[str, JobRecord] = {}
    for method in ("full", "lora"):
        spec = train_spec(
            tmp_path / method,
            f"train-{method}",
            steps=25,
            save_every=25,
            model="llama-0.5b",
            extra=f'env:\n  XYCLAW_MODEL_PARAMS: "0.5B"\n  XYCLAW_TRAINING: "{method}"\n',
        )
        job = engine.launch(spec, cluster=cluster.name).result(60)
        done[method] = finished(engine, job.id)
        assert done[method].state is JobState.SUCCEEDED

    service = engine.serve(write_spec(tmp_path / "svc", SERVICE), cluster=cluster.name).result(60)
    assert service.state is JobState.RUNNING and service.service_url is not None
    for _ in range(5):
        with urllib.request.urlopen(f"{service.service_url}/health", timeout=10) as reply:
            assert reply.status == 200
    wait_for(
        "the requests counted",
        lambda: (engine.job(str(service.id)).progress.requests_served or 0) >= 5,
    )
    engine.cancel_job(str(service.id))
    done["service"] = finished(engine, service.id)

    for method, k in (("full", 6.0), ("lora", 4.0)):
        job = done[method]
        (result,) = engine.job_results(str(job.id))
        cost = _hand_cost(engine, job)
        tokens, seconds = _hand_tokens(engine, job)
        assert result.method == method and result.gpus == 8
        assert tokens > 0 and cost > 0
        assert result.cost_per_m_tokens_micros == pytest.approx(cost / tokens * 1e6, rel=0.01)
        mfu = k * params * tokens / (seconds * 8 * peak)
        assert result.mfu == pytest.approx(mfu, rel=0.01), method
    full, lora = (engine.job_results(str(done[m].id))[0] for m in ("full", "lora"))
    assert full.mfu is not None and lora.mfu is not None
    assert lora.mfu / full.mfu == pytest.approx(4 / 6, rel=0.05)  # same run, 4N against 6N

    svc = done["service"]
    (result,) = engine.job_results(str(svc.id))
    assert result.kind == "service" and result.requests == 5 and result.mfu is None
    assert result.cost_per_1k_requests_micros == pytest.approx(
        _hand_cost(engine, svc) / 5 * 1e3, rel=0.01
    )
