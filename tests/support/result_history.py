"""Three recorded jobs for cost per result (issue 36), written through the store's own API
into the data folder's database before an engine opens it.

One cluster: 1 node of 8 x A800 from the ``memory`` provider at 3.50 CNY per card-hour.

- ``full-7b``: full training of a 7B model, one attempt of 3,600 s; the log printed 20,000
  tokens/s every 60 s from its 100th second to its 3,100th; it reached epoch 1.0.
- ``lora-13b``: LoRA of a 13B model, two attempts: 1,200 s (tokens/s rising linearly from
  10,000 to 14,000 over its 1,000 s of samples), then 2,400 s (a steady 12,000 tokens/s
  over 2,000 s of samples); it reached epoch 2.0.
- ``serve-7b``: a service that ran 7,200 s and served 90,000 requests.
"""

from __future__ import annotations

import json
from pathlib import Path

from xyclaw.events import EventBus
from xyclaw.records import ClusterInfo, ClusterState, ClusterStore, NodeInfo
from xyclaw.records.jobs import AttemptNode, JobProgress, JobState, JobStore
from xyclaw.store import Store

T0 = 1_777_000_000.0  # 2026-04-24 (UTC)
PRICE_MICRO = 3_500_000
GPUS = 8


def _spec(name: str, kind: str, env: dict[str, str]) -> str:
    return json.dumps({"name": name, "run": "torchrun train.py", "kind": kind, "env": env})


def write_jobs(database: Path) -> dict[str, int]:
    """Fill the database at ``database``; returns the jobs' ids by name."""
    clock = [T0]
    with Store(database) as store:
        bus = EventBus()
        clusters = ClusterStore(store, bus, lambda: clock[0])
        clusters.ensure_provider("memory", "memory")
        cid = clusters.add_intent(
            {
                "provider_id": "memory",
                "name": "a800-x8",
                "gpu": "A800",
                "gpu_count": GPUS,
                "gpus_per_node": GPUS,
                "fabric": "none",
                "region": "Xiamen",
                "currency": "CNY",
                "price_per_gpu_hour_micros": PRICE_MICRO,
                "idempotency_key": "key-a800-x8",
            }
        )
        clusters.apply_provider_view(
            cid,
            ClusterInfo(
                external_id="ext-a800-x8",
                name="a800-x8",
                state="running",
                gpu="A800",
                gpu_count=GPUS,
                gpus_per_node=GPUS,
                fabric="none",
                region="Xiamen",
                price_per_gpu_hour_micros=PRICE_MICRO,
                currency="CNY",
                nodes=(NodeInfo("m-1", 0, "a800-x8-node0", "running"),),
            ),
        )
        clusters.update(cid, state=ClusterState.READY, ready_at=T0 + 60)
        node = clusters.get(cid).nodes[0]
        on_node = (AttemptNode(0, node.name, cid, node.id),)
        jobs = JobStore(store, bus, lambda: clock[0])
        ids: dict[str, int] = {}

        def job(name: str, kind: str, env: dict[str, str], start: float) -> int:
            clock[0] = start
            job_id = jobs.add(
                name=name, kind=kind, spec_json=_spec(name, kind, env), cluster_id=cid,
                rented_cluster=False,
            )  # fmt: skip
            jobs.set_state(job_id, JobState.RUNNING, started_at=start, attempt=1)
            ids[name] = job_id
            return job_id

        def attempt(job_id: int, n: int, start: float, end: float, state: str) -> None:
            jobs.save_attempt(
                job_id, n, state=state, cluster_id=cid, started_at=start, ended_at=end,
                nodes=on_node,
            )  # fmt: skip

        def metrics(job_id: int, n: int, rows: list[tuple[float, float, float]]) -> None:
            jobs.add_metrics(
                [
                    (job_id, n, ts, i + 1, 1000, 2.0, 1e-4, 1.0, rate, None, epoch)
                    for i, (ts, rate, epoch) in enumerate(rows)
                ]
            )

        start = T0 + 100
        full = job("full-7b", "train", {"XYCLAW_MODEL_PARAMS": "7B", "XYCLAW_TRAINING": "full"},
                   start)  # fmt: skip
        attempt(full, 1, start, start + 3600, "succeeded")
        metrics(full, 1, [(start + 100 + 60 * i, 20_000.0, i / 50) for i in range(51)])
        jobs.set_state(full, JobState.SUCCEEDED, ended_at=start + 3600, exit_code=0)

        start = T0 + 10_000
        lora = job("lora-13b", "train",
                   {"XYCLAW_MODEL_PARAMS": "13B", "XYCLAW_TRAINING": "lora"}, start)  # fmt: skip
        attempt(lora, 1, start, start + 1200, "failed")
        metrics(lora, 1, [(start + 100 + 100 * i, 10_000.0 + 400 * i, i / 20) for i in range(11)])
        second = start + 1300
        attempt(lora, 2, second, second + 2400, "succeeded")
        metrics(lora, 2, [(second + 200 + 100 * i, 12_000.0, 0.5 + 1.5 * i / 20)
                          for i in range(21)])  # fmt: skip
        jobs.set_state(lora, JobState.SUCCEEDED, ended_at=second + 2400, exit_code=0, attempt=2)

        start = T0 + 20_000
        serve = job("serve-7b", "service", {"XYCLAW_MODEL_PARAMS": "7B"}, start)
        attempt(serve, 1, start, start + 7200, "cancelled")
        jobs.update(serve, progress=JobProgress(requests_per_s=12.5, requests_served=90_000))
        jobs.set_state(serve, JobState.CANCELLED, ended_at=start + 7200)
        store.writer.flush(60)
    return ids
