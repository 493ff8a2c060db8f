"""Cost per result (issue 36): what each job gave for its money, and how well it used the GPUs.

For a training job, tokens are the integral of the logged tokens/s over time (the
trapezoid rule between consecutive samples of one attempt); an epoch is the largest
``epoch`` figure the log printed. For a service, requests are the connections its
forwarded port served. Cost is the job's own (:func:`xyclaw.jobs.cost.job_cost`: its
attempts' node time at the cluster's price).

    cost per M tokens   = cost / tokens x 1e6
    cost per epoch      = cost / epochs
    cost per 1k requests = cost / requests x 1e3
    MFU                 = k N tokens / (measured seconds x GPUs x bf16 peak per GPU)

with ``k`` = 6 FLOPs per parameter and token for full training (forward 2N, backward 4N)
and 4 for LoRA (the frozen base computes no weight gradients, about 2N + 2N). N, the
model's parameters, and the method are what the job's spec says in its environment:
``XYCLAW_MODEL_PARAMS`` (``7B``, ``1.3e9``) and ``XYCLAW_TRAINING`` (``full`` or
``lora``); without them the MFU is not counted (the cost per token still is).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from itertools import pairwise
from typing import Any

from xyclaw.catalog.models import GpuModel

#: FLOPs per parameter and token, by training method.
FLOPS_PER_PARAM_TOKEN = {"full": 6.0, "lora": 4.0}
PARAMS_ENV = "XYCLAW_MODEL_PARAMS"
METHOD_ENV = "XYCLAW_TRAINING"


@dataclass(frozen=True, slots=True)
class JobResult:
    """One job's result figures; None where the history does not hold what they need."""

    job_id: int
    name: str
    kind: str  # train, service
    method: str | None  # full, lora (training), None when the spec does not say
    state: str
    provider: str | None
    gpu: str | None
    gpus: int
    currency: str | None
    cost_micros: int
    started_at: float | None
    params: float | None
    tokens: float | None
    measured_s: float | None  # the time the tokens were measured over
    epochs: float | None
    requests: int | None
    peak_flops_per_gpu: float | None

    @property
    def cost_per_m_tokens_micros(self) -> int | None:
        if not self.tokens or self.tokens <= 0:
            return None
        return round(self.cost_micros * 1e6 / self.tokens)

    @property
    def cost_per_epoch_micros(self) -> int | None:
        if not self.epochs or self.epochs <= 0:
            return None
        return round(self.cost_micros / self.epochs)

    @property
    def cost_per_1k_requests_micros(self) -> int | None:
        if not self.requests or self.requests <= 0:
            return None
        return round(self.cost_micros * 1e3 / self.requests)

    @property
    def mfu(self) -> float | None:
        k = FLOPS_PER_PARAM_TOKEN.get(self.method or "")
        if (
            k is None
            or not self.params
            or not self.tokens
            or not self.measured_s
            or not self.peak_flops_per_gpu
            or self.gpus <= 0
        ):
            return None
        return (
            k * self.params * self.tokens / (self.measured_s * self.gpus * self.peak_flops_per_gpu)
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "job_id": self.job_id,
            "name": self.name,
            "kind": self.kind,
            "method": self.method,
            "state": self.state,
            "provider": self.provider,
            "gpu": self.gpu,
            "gpus": self.gpus,
            "currency": self.currency,
            "cost_micros": self.cost_micros,
            "started_at": self.started_at,
            "params": self.params,
            "tokens": self.tokens,
            "measured_s": self.measured_s,
            "epochs": self.epochs,
            "requests": self.requests,
            "cost_per_m_tokens_micros": self.cost_per_m_tokens_micros,
            "cost_per_epoch_micros": self.cost_per_epoch_micros,
            "cost_per_1k_requests_micros": self.cost_per_1k_requests_micros,
            "mfu": self.mfu,
        }


@dataclass(frozen=True, slots=True)
class ResultTrend:
    """Cost per result of one provider and GPU model in one month, over its jobs."""

    provider: str
    gpu: str
    month: str  # 2026-05 (UTC)
    currency: str
    jobs: int
    cost_micros: int
    tokens: float
    token_cost_micros: int  # what the jobs that counted tokens cost
    requests: int
    request_cost_micros: int  # what the services that counted requests cost
    mfu: float | None  # the jobs' MFU weighted by their tokens

    @property
    def cost_per_m_tokens_micros(self) -> int | None:
        return round(self.token_cost_micros * 1e6 / self.tokens) if self.tokens > 0 else None

    @property
    def cost_per_1k_requests_micros(self) -> int | None:
        return round(self.request_cost_micros * 1e3 / self.requests) if self.requests > 0 else None

    def to_json(self) -> dict[str, Any]:
        return {
            "provider": self.provider,
            "gpu": self.gpu,
            "month": self.month,
            "currency": self.currency,
            "jobs": self.jobs,
            "cost_micros": self.cost_micros,
            "tokens": self.tokens,
            "requests": self.requests,
            "cost_per_m_tokens_micros": self.cost_per_m_tokens_micros,
            "cost_per_1k_requests_micros": self.cost_per_1k_requests_micros,
            "mfu": self.mfu,
        }


def basis(spec_json: str) -> tuple[float | None, str | None]:
    """(parameters, method) the job's spec names in its environment (None where it does not)."""
    from xyclaw.planner.parse import parse_size

    try:
        spec = json.loads(spec_json or "{}")
    except ValueError:
        return None, None
    env = spec.get("env") if isinstance(spec, dict) else None
    if not isinstance(env, dict):
        return None, None
    params: float | None = None
    raw = env.get(PARAMS_ENV)
    if isinstance(raw, str) and raw.strip():
        try:
            params = float(parse_size(raw.strip()))
        except ValueError:
            params = None
    method = str(env.get(METHOD_ENV) or "").strip().lower() or None
    if method in ("qlora", "peft"):
        method = "lora"
    if method in ("pretrain", "finetune-full", "full-finetune", "sft"):
        method = "full"
    return params, method if method in FLOPS_PER_PARAM_TOKEN else None


def measured_tokens(
    metrics: Iterable[Mapping[str, Any]], spans: Mapping[int, float] | None = None
) -> tuple[float, float, float | None]:
    """(tokens, seconds measured, largest epoch) from a job's metric rows: tokens/s integrated
    by the trapezoid rule between consecutive samples of the same attempt.

    A row's time is when XyClaw read the line, not when the job printed it: lines read
    together (a fast job, a follower catching up after a reconnect or a restart) share one
    time, and the trapezoid would see no time pass. Where most of an attempt's samples share
    their time, the attempt's own running time (``spans``, seconds by attempt) at the mean
    logged rate is counted instead."""
    by_attempt: dict[int, list[tuple[float, float]]] = {}
    epoch: float | None = None
    for row in metrics:
        if row.get("epoch") is not None:
            epoch = max(epoch or 0.0, float(row["epoch"]))
        rate = row.get("tokens_per_s")
        if rate is None or row.get("ts") is None:
            continue
        by_attempt.setdefault(int(row.get("attempt") or 1), []).append(
            (float(row["ts"]), float(rate))
        )
    tokens = seconds = 0.0
    for attempt, samples in by_attempt.items():
        samples.sort()
        steps = list(pairwise(samples))
        span = (spans or {}).get(attempt)
        if span and span > 0 and sum(1 for a, b in steps if b[0] - a[0] <= 0) * 2 >= len(steps):
            tokens += span * sum(r for _, r in samples) / len(samples)
            seconds += span
            continue
        for (t0, r0), (t1, r1) in steps:
            dt = t1 - t0
            if dt > 0:
                tokens += dt * (r0 + r1) / 2
                seconds += dt
    return tokens, seconds, epoch


def job_result(
    job: Any,
    metrics: Sequence[Mapping[str, Any]],
    *,
    provider: str | None,
    gpu: GpuModel | None,
    gpu_name: str | None,
    gpus: int,
) -> JobResult:
    """The result figures of one job (a :class:`~xyclaw.records.jobs.JobRecord`)."""
    params, method = basis(job.spec_json)
    kind = str(job.kind)
    spans = {
        a.attempt: a.ended_at - a.started_at
        for a in job.attempts
        if a.started_at is not None and a.ended_at is not None
    }
    tokens, seconds, epochs = measured_tokens(metrics, spans)
    requests = job.progress.requests_served if kind == "service" else None
    return JobResult(
        job_id=int(job.id),
        name=str(job.name),
        kind=kind,
        method=None if kind == "service" else method,
        state=str(job.state),
        provider=provider,
        gpu=gpu.name if gpu is not None else gpu_name,
        gpus=gpus,
        currency=job.currency,
        cost_micros=int(job.cost_micros or 0),
        started_at=job.started_at,
        params=params,
        tokens=tokens if tokens > 0 else None,
        measured_s=seconds if seconds > 0 else None,
        epochs=epochs,
        requests=requests,
        peak_flops_per_gpu=gpu.bf16_tflops * 1e12 if gpu is not None else None,
    )


def trends(results: Iterable[JobResult]) -> list[ResultTrend]:
    """Cost per result per provider, GPU model and month (UTC), newest month first."""
    groups: dict[tuple[str, str, str, str], list[JobResult]] = {}
    for r in results:
        if r.provider is None or r.gpu is None or r.currency is None or r.started_at is None:
            continue
        month = datetime.fromtimestamp(r.started_at, UTC).strftime("%Y-%m")
        groups.setdefault((r.provider, r.gpu, month, r.currency), []).append(r)
    out = []
    for (provider, gpu, month, currency), rs in groups.items():
        weighted = [(r.mfu, r.tokens) for r in rs if r.mfu is not None and r.tokens]
        mfu = sum(m * t for m, t in weighted) / sum(t for _, t in weighted) if weighted else None
        out.append(
            ResultTrend(
                provider=provider,
                gpu=gpu,
                month=month,
                currency=currency,
                jobs=len(rs),
                cost_micros=sum(r.cost_micros for r in rs),
                tokens=sum(r.tokens or 0.0 for r in rs),
                token_cost_micros=sum(r.cost_micros for r in rs if r.tokens),
                requests=sum(r.requests or 0 for r in rs),
                request_cost_micros=sum(r.cost_micros for r in rs if r.requests),
                mfu=mfu,
            )
        )
    out.sort(key=lambda t: (t.month, t.provider, t.gpu), reverse=True)
    return out


__all__ = ["JobResult", "ResultTrend", "basis", "job_result", "measured_tokens", "trends"]
