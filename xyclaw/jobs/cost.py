"""What a job has cost so far: for each attempt, the time it held its nodes at their price.

A job pays for the nodes it runs on while it runs (from the start of an attempt's setup
to its end); the cluster's own bill (idle time included) is the billing part's.
"""

from __future__ import annotations

from xyclaw.errors import UsageError
from xyclaw.records import ClusterRecord, ClusterStore
from xyclaw.records.jobs import JobRecord


def job_cost(job: JobRecord, clusters: ClusterStore, now: float) -> tuple[int, str | None]:
    """(micro-units, currency) of the job's attempts so far; currency None without a cluster."""
    total = 0
    currency: str | None = None
    seen: dict[int, ClusterRecord | None] = {}

    def cluster(cluster_id: int) -> ClusterRecord | None:
        if cluster_id not in seen:
            try:
                seen[cluster_id] = clusters.get(cluster_id)
            except UsageError:
                seen[cluster_id] = None
        return seen[cluster_id]

    for attempt in job.attempts:
        if attempt.started_at is None:
            continue
        seconds = max(0.0, (attempt.ended_at or now) - attempt.started_at)
        for node in attempt.nodes:
            record = cluster(node.cluster_id)
            if record is None:
                continue
            currency = currency or record.currency
            per_hour = record.price_per_gpu_hour_micros * record.gpus_per_node
            total += round(per_hour * seconds / 3600.0)
    if currency is None and job.cluster_id is not None:
        record = cluster(job.cluster_id)
        currency = record.currency if record is not None else None
    return total, currency
