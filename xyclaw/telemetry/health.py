"""A cluster's health in a few hundred bytes per node, for an agent's context or a status line.

Per node: whether samples arrive, how many GPUs are visible, mean and max
utilization over the window, memory in use, the hottest GPU, the node's
power, and the open alerts in one line each. Numbers are rounded: a model
needs the picture, not the decimals.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from xyclaw.records import ClusterRecord
from xyclaw.telemetry.alerts import Alert
from xyclaw.telemetry.pack import values
from xyclaw.wording import Said, said

if TYPE_CHECKING:
    from xyclaw.telemetry.collector import NodeCollector


class TelemetryService(Protocol):
    """What :func:`cluster_health` reads of a
    :class:`~xyclaw.telemetry.service.TelemetryService`.

    A Protocol, not an import: the service calls :func:`cluster_health`, and the type-only
    import back of its own class closed a circle (issue 35)."""

    clock: Callable[[], float]

    def open_alerts(self, cluster_id: int | None = None) -> list[Alert]: ...

    def collectors(self, cluster_id: int) -> list[NodeCollector]: ...

    def job_running(self, cluster_id: int) -> bool: ...


def _num(value: float, digits: int = 0) -> float | int | None:
    if value is None or not np.isfinite(value):
        return None
    return round(value) if digits == 0 else round(float(value), digits)


def cluster_health(
    service: TelemetryService, cluster: ClusterRecord, window_s: float = 300.0
) -> dict[str, Any]:
    now = service.clock()
    since_ms = int((now - window_s) * 1000)
    alerts = service.open_alerts(cluster.id)
    by_node: dict[int | None, list[str]] = {}
    # each line also as said (Said.to_json), for a reply in the user's language
    said_by_node: dict[int | None, list[dict[str, Any]]] = {}
    for a in alerts:
        where = f" gpu{a.key.gpu}" if a.key.gpu is not None else ""
        by_node.setdefault(a.key.node_id, []).append(f"{a.severity} {a.rule}{where}: {a.message}")
        said_by_node.setdefault(a.key.node_id, []).append(_line_said(a).to_json())
    nodes = []
    for c in service.collectors(cluster.id):
        window = c.live.gpu_window(since_ms=since_ms)
        entry: dict[str, Any] = {
            "node": c.ref.name,
            "state": c.state,
            "age_s": None if c.last_data is None else _num(now - c.last_data, 1),
        }
        if len(window):
            util = values(window.records, "util")
            latest = window.records[-1]
            used = values(latest[None, :], "mem_used_mib")[0]
            total = values(latest[None, :], "mem_total_mib")[0]
            temp = values(window.records, "temp_c")
            power = values(latest[None, :], "power_w")[0]
            visible = int(np.sum(~np.isnan(values(latest[None, :], "util")[0])))
            with warnings.catch_warnings():  # a node whose GPUs all lack a value: None
                warnings.simplefilter("ignore", RuntimeWarning)
                entry.update(
                    {
                        "gpus": f"{visible}/{c.ref.expected_gpus}",
                        "util_mean": _num(float(np.nanmean(util))),
                        "util_max": _num(float(np.nanmax(util))),
                        "mem_used_gib": _num(float(np.nansum(used)) / 1024, 1),
                        "mem_total_gib": _num(float(np.nansum(total)) / 1024, 1),
                        "temp_max_c": _num(float(np.nanmax(temp))),
                        "power_w": _num(float(np.nansum(power))),
                    }
                )
        else:
            entry["gpus"] = f"0/{c.ref.expected_gpus}"
        if c.last_error and c.state != "up":
            entry["error"] = c.last_error
            if c.last_error_said is not None:
                entry["error_said"] = c.last_error_said.to_json()
        entry["alerts"] = by_node.get(c.ref.node_id, [])
        if c.ref.node_id in said_by_node:
            entry["alerts_said"] = said_by_node[c.ref.node_id]
        nodes.append(entry)
    counts: dict[str, int] = {}
    for a in alerts:
        counts[a.severity] = counts.get(a.severity, 0) + 1
    snapshot: dict[str, Any] = {
        "cluster": cluster.name,
        "id": cluster.id,
        "state": cluster.state,
        "gpu": cluster.gpu,
        "window_s": int(window_s),
        "job_running": service.job_running(cluster.id),
        "nodes": nodes,
        "cluster_alerts": by_node.get(None, []),
        "open_alerts": counts,
    }
    if None in said_by_node:
        snapshot["cluster_alerts_said"] = said_by_node[None]
    return snapshot


def _line_said(alert: Alert) -> Said:
    """An open alert's line as said: its severity, its rule's title, the GPU, its message."""
    from xyclaw.telemetry.rules import RULES

    rule = RULES.get(alert.rule)
    severity = alert.severity
    known = severity in ("info", "warning", "error", "critical")
    return said(
        "alert.health.line",
        severity=said(f"alert.severity.{severity}") if known else severity,
        rule=rule.title_said if rule is not None else alert.rule,
        where="" if alert.key.gpu is None else said("alert.health.gpu", gpu=alert.key.gpu),
        message=alert.said or alert.message,
    )
