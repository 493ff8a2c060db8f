"""The cloud's own billing ledger, derived from when each node ran.

A node bills per whole second from the moment it runs until it stops
(terminated, or failed after running). A cluster the cloud ended at its
deadline (``terminate_at``) bills to that second; each entry says what ended
it. Because the ledger is computed from those two instants and the clock, it
keeps counting while nobody asks and while the cloud process itself is down.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from xyclaw.sim.cloud.records import ClusterRecord

SECONDS_PER_HOUR = 3600


def amount_micros(seconds: int, gpus: int, price_per_gpu_hour_micros: int) -> int:
    """Integers only, so that charges add up exactly."""
    return seconds * gpus * price_per_gpu_hour_micros // SECONDS_PER_HOUR


def billed_seconds(start: float, end: float | None, now: float) -> int:
    stop = now if end is None else end
    return max(0, math.floor(stop - start))


def ledger(clusters: Iterable[ClusterRecord], now: float, currency: str) -> dict[str, Any]:
    entries: list[dict[str, Any]] = []
    for cluster in clusters:
        for node in cluster.nodes:
            if node.running_at is None:
                continue
            seconds = billed_seconds(node.running_at, node.ended_at, now)
            entries.append(
                {
                    "cluster_id": cluster.id,
                    "node_id": node.id,
                    "gpus": cluster.gpus_per_node,
                    "price_per_gpu_hour_micros": cluster.price_per_gpu_hour_micros,
                    "start": node.running_at,
                    "end": node.ended_at,
                    "seconds": seconds,
                    "terminate_at": cluster.terminate_at,
                    "ended_by": cluster.ended_by if node.ended_at is not None else None,
                    "amount_micros": amount_micros(
                        seconds, cluster.gpus_per_node, cluster.price_per_gpu_hour_micros
                    ),
                }
            )
    entries.sort(key=lambda e: (e["start"], e["cluster_id"], e["node_id"]))
    return {
        "currency": currency,
        "entries": entries,
        "total_micros": sum(e["amount_micros"] for e in entries),
    }
