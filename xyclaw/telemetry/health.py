"""A cluster's health in a few hundred bytes per node, for an agent's context or a status line.

Per node: whether samples arrive, how many GPUs are visible, mean and max
utilization over the window, memory in use, the hottest GPU, the node's
power, and the open alerts in one line each. Numbers are rounded: a model
needs the picture, not the decimals.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any

import numpy as np

from xyclaw.records import ClusterRecord
from xyclaw.telemetry.pack import values

if TYPE_CHECKING:
    from xyclaw.telemetry.service import TelemetryService


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
    for a in alerts:
        where = f" gpu{a.key.gpu}" if a.key.gpu is not None else ""
        by_node.setdefault(a.key.node_id, []).append(f"{a.severity} {a.rule}{where}: {a.message}")
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
        entry["alerts"] = by_node.get(c.ref.node_id, [])
        nodes.append(entry)
    counts: dict[str, int] = {}
    for a in alerts:
        counts[a.severity] = counts.get(a.severity, 0) + 1
    return {
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
