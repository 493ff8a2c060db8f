"""The rows the memory of hosts and providers is built from (issue 36).

Nothing new is written for it: every fact is already in the history (clusters and their
nodes, alerts, nccl-tests verdicts, the meter's and the provider's charges). These named
queries read them back for :mod:`xyclaw.planner.track_record`, which turns them into marks.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from xyclaw.store.store import Store

#: The alert rules the memory keeps: a node's hardware and the fabric it sat on.
REMEMBERED_RULES = (
    "gpu.xid",
    "gpu.ecc_uncorrectable",
    "gpu.missing",
    "gpu.straggler",
    "node.straggler",
    "net.traffic_collapse",
    "job.nccl_timeout",
)


@dataclass(frozen=True)
class TrackRecordRows:
    """Rows of the history since a time, as the store keeps them."""

    clusters: list[dict[str, Any]] = field(default_factory=list)
    nodes: list[dict[str, Any]] = field(default_factory=list)
    alerts: list[dict[str, Any]] = field(default_factory=list)
    leaks: list[dict[str, Any]] = field(default_factory=list)
    verdicts: list[dict[str, Any]] = field(default_factory=list)
    charges: list[dict[str, Any]] = field(default_factory=list)


def track_record_rows(store: Store, since: float) -> TrackRecordRows:
    """Every cluster created since ``since`` with what its history says about it."""
    clusters = store.query(
        "SELECT id, provider_id AS provider, external_id, name, state, gpu, gpu_count,"
        " gpus_per_node, fabric, region, currency, price_per_gpu_hour_micros, error,"
        " created_at, ready_at, released_at FROM clusters WHERE created_at >= ?"
        " ORDER BY created_at, id",
        [since],
    )
    nodes = store.query(
        "SELECT n.id, n.cluster_id, n.external_id, n.hostname, n.rank, n.state, n.error"
        " FROM nodes n JOIN clusters c ON c.id = n.cluster_id WHERE c.created_at >= ?"
        " ORDER BY n.cluster_id, n.rank",
        [since],
    )
    marks = ", ".join("?" * len(REMEMBERED_RULES))
    alerts = store.query(
        "SELECT id, ts, cluster_id, node_id, rule, severity, message, data_json FROM events"
        f" WHERE kind = 'alert' AND rule IN ({marks}) AND ts >= ? AND cluster_id IS NOT NULL"
        " ORDER BY ts, id",
        [*REMEMBERED_RULES, since],
    )
    leaks = store.query(
        "SELECT id, ts, cluster_id, message FROM events WHERE kind = 'orphan' AND ts >= ?"
        " AND cluster_id IS NOT NULL ORDER BY ts, id",
        [since],
    )
    verdicts = store.query(
        "SELECT id, cluster_id, created_at AS ts, verdict_json FROM nccl_settings"
        " WHERE verdict_json IS NOT NULL AND created_at >= ? ORDER BY created_at, id",
        [since],
    )
    charges = store.query(
        "SELECT cluster_id, source, sum(amount_micros) AS amount_micros, currency"
        " FROM charges WHERE cluster_id IN (SELECT id FROM clusters WHERE created_at >= ?)"
        " GROUP BY cluster_id, source, currency",
        [since],
    )
    return TrackRecordRows(clusters, nodes, alerts, leaks, verdicts, charges)
