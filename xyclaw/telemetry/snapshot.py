"""The latest view of a watched cluster: what `xyclaw top`, the GUI and the agents show."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from xyclaw.records import ClusterRecord

if TYPE_CHECKING:
    from xyclaw.telemetry.service import TelemetryService


def snapshot(telemetry: TelemetryService, cluster: ClusterRecord) -> dict[str, Any]:
    """The latest sample of every GPU and the open alerts, as JSON."""
    from xyclaw.telemetry.pack import record_dict

    gpus = []
    nodes = []
    for collector, ts_ms, records in telemetry.latest(cluster.id):
        for rec in records:
            gpus.append(
                {"node": collector.ref.name, "ts_ms": ts_ms, "ts": ts_ms / 1000, **record_dict(rec)}
            )
    for c in telemetry.collectors(cluster.id):
        nodes.append(
            {
                "node": c.ref.name,
                "state": c.state,
                "last_sample_age_s": None
                if c.last_data is None
                else round(telemetry.clock() - c.last_data, 2),
                "error": c.last_error if c.state != "up" else None,
                # Metrics this node's driver does not give: shown as unavailable, not zero.
                "unavailable": list(c.unavailable),
            }
        )
    return {
        "cluster": cluster.name,
        "id": cluster.id,
        "ts": telemetry.clock(),
        "nodes": nodes,
        "gpus": gpus,
        "alerts": [a.to_json() for a in telemetry.open_alerts(cluster.id)],
    }
