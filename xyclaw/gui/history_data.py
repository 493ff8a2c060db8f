"""What the History page shows, worked out from the history database alone (no Qt here).

Every past cluster and job with the figures the list filters and sorts on; a job's or a
cluster's *replay* (its GPUs' samples as a :class:`~xyclaw.gui.charts.source.ClusterFrame`
the live charts can draw, its metrics series, its log, a timeline of what happened to it
and its cost broken down); comparisons of jobs (curves on a chosen x axis, smoothing, a
table of settings and results with the rows that differ); and exports to JSON and CSV
that read back equal.

Nothing here is in a language: timeline items carry a ``kind`` and parameters, table rows
a stable ``key``; the page words them (and translates them). A stored message (an alert's
text, an attempt's end, an error) comes with its :class:`~xyclaw.wording.Said` where the
core stored one, so the page words it too; older rows have their English text only.
"""

from __future__ import annotations

import csv
import dataclasses
import json
import math
import re
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from xyclaw.catalog.money import format_amount
from xyclaw.engine.history_db import METRIC_COLUMNS, JobTable, ReadOnlyStore
from xyclaw.engine.history_db import queries as q
from xyclaw.engine.values import said_of
from xyclaw.errors import UsageError, XyclawError
from xyclaw.gui.charts.source import ClusterFrame, NodeSeries
from xyclaw.store.samples import (
    DCGM_FIELDS,
    DCGM_MISSING,
    GPU_SAMPLE_DTYPE,
    MISSING,
    SampleBlock,
    empty_dcgm_records,
    empty_gpu_records,
)
from xyclaw.wording import Said, said_from_text

F64 = npt.NDArray[np.float64]
I64 = npt.NDArray[np.int64]

#: Columns a replay's heatmap gets at most; longer runs are averaged into wider columns.
MAX_COLUMNS = 3600
EXPORT_FORMAT = "xyclaw.history"
EXPORT_VERSION = 1
FINISHED_JOB_STATES = ("succeeded", "failed", "cancelled")
X_AXES = ("step", "time", "tokens", "money")


# -- the lists -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class HistoryFilter:
    """What the lists show: created in [since, until), of a provider, GPU model and state,
    costing between ``min_cost`` and ``max_cost`` (major units), matching ``text``."""

    since: float | None = None
    until: float | None = None
    provider: str | None = None
    gpu: str | None = None
    state: str | None = None
    min_cost: float | None = None
    max_cost: float | None = None
    text: str = ""

    def matches(self, row: Mapping[str, Any]) -> bool:
        created = float(row.get("created_at") or 0.0)
        if self.since is not None and created < self.since:
            return False
        if self.until is not None and created >= self.until:
            return False
        if self.provider and row.get("provider") != self.provider:
            return False
        if self.gpu and row.get("gpu") != self.gpu:
            return False
        if self.state and row.get("state") != self.state:
            return False
        cost = (row.get("cost_micros") or 0) / 1e6
        if self.min_cost is not None and cost < self.min_cost:
            return False
        if self.max_cost is not None and cost > self.max_cost:
            return False
        if self.text:
            needle = self.text.lower()
            hay = " ".join(
                str(row.get(k) or "") for k in ("name", "cluster", "provider", "gpu", "state")
            )
            if needle not in hay.lower() and needle != str(row.get("id")):
                return False
        return True


def filter_rows(rows: Iterable[Mapping[str, Any]], flt: HistoryFilter) -> list[dict[str, Any]]:
    return [dict(r) for r in rows if flt.matches(r)]


def choices(rows: Iterable[Mapping[str, Any]], key: str) -> list[str]:
    """The distinct values of a column, sorted (for the filter menus)."""
    return sorted({str(r[key]) for r in rows if r.get(key)})


# -- replays ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TimelineItem:
    """One thing that happened: ``kind`` says what (rented, ready, tuned, alert, ...),
    ``params`` its figures, ``message`` a stored text in English and ``said`` its key and
    figures when the core stored them (the page words it in its language)."""

    ts: float
    kind: str
    severity: str = "info"
    params: dict[str, Any] = field(default_factory=dict)
    message: str | None = None
    said: Said | None = None

    @property
    def worded(self) -> Said | str | None:
        """The message as a view words it: its :class:`Said`, else the stored text."""
        return self.said or self.message

    def to_json(self) -> dict[str, Any]:
        out = {
            "ts": self.ts,
            "kind": self.kind,
            "severity": self.severity,
            "params": self.params,
            "message": self.message,
        }
        if self.said is not None:
            out["said"] = self.said.to_json()
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> TimelineItem:
        return cls(
            float(data["ts"]),
            str(data["kind"]),
            str(data.get("severity") or "info"),
            dict(data.get("params") or {}),
            data.get("message"),
            Said.from_json(data.get("said")),
        )


@dataclass(frozen=True)
class NodeHours:
    node: str
    hours: float
    gpus: int
    cost_micros: int


@dataclass(frozen=True)
class ModelUsage:
    currency: str
    tokens_in: int
    tokens_out: int
    cost_micros: int
    conversations: int


@dataclass(frozen=True)
class CostBreakdown:
    """What a run cost: the meter's charges (the job's share of its cluster's, for a job),
    the node-hours behind them at the cluster's price, and the agents' model tokens."""

    currency: str
    total_micros: int
    cluster_total_micros: int
    price_per_gpu_hour_micros: int
    node_hours: tuple[NodeHours, ...] = ()
    model: tuple[ModelUsage, ...] = ()

    @property
    def gpu_hours(self) -> float:
        return sum(n.hours * n.gpus for n in self.node_hours)

    def to_json(self) -> dict[str, Any]:
        return {
            "currency": self.currency,
            "total_micros": self.total_micros,
            "cluster_total_micros": self.cluster_total_micros,
            "price_per_gpu_hour_micros": self.price_per_gpu_hour_micros,
            "node_hours": [n.__dict__ for n in self.node_hours],
            "model": [m.__dict__ for m in self.model],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> CostBreakdown:
        return cls(
            currency=str(data["currency"]),
            total_micros=int(data["total_micros"]),
            cluster_total_micros=int(data["cluster_total_micros"]),
            price_per_gpu_hour_micros=int(data["price_per_gpu_hour_micros"]),
            node_hours=tuple(NodeHours(**n) for n in data.get("node_hours", [])),
            model=tuple(ModelUsage(**m) for m in data.get("model", [])),
        )


@dataclass
class Replay:
    """A job or a cluster, as the history kept it."""

    kind: str  # "job" or "cluster"
    id: int
    name: str
    row: dict[str, Any]
    cluster: dict[str, Any] | None
    start_s: float
    end_s: float
    frame: ClusterFrame | None  # GPU samples over [start_s, end_s], drawn by the live charts
    resolution: str  # "samples", "rollups" or "none"
    metrics: list[dict[str, Any]]
    log: list[dict[str, Any]]
    log_total: int
    timeline: list[TimelineItem]
    cost: CostBreakdown | None
    settings: dict[str, str | None]
    results: dict[str, str | None]
    charges: list[dict[str, Any]] = field(default_factory=list)

    @property
    def label(self) -> str:
        return f"#{self.id} {self.name}"

    @property
    def span_s(self) -> float:
        return max(0.0, self.end_s - self.start_s)


def _node_series(
    node_id: int, name: str, gpu: SampleBlock | None, nic: SampleBlock | None
) -> NodeSeries:
    """One node's stored samples shaped as the live rings are: ``records[instant, gpu]``."""
    if gpu is not None and len(gpu):
        ts_all = gpu.ts_ms
        cuts = np.flatnonzero(np.diff(ts_all)) + 1
        starts = np.concatenate((np.zeros(1, np.int64), cuts))
        ts = ts_all[starts]
        slots = gpu.records["gpu"].astype(np.int64)
        width = int(slots.max()) + 1
        n = int(ts.shape[0])
        if ts_all.shape[0] == n * width and (slots.reshape(n, width) == np.arange(width)).all():
            records = np.ascontiguousarray(gpu.records).reshape(n, width)
        else:  # instants with GPUs missing or out of order: place each record in its slot
            records = empty_gpu_records(n * width).reshape(n, width)
            inst = np.repeat(np.arange(n), np.diff(np.concatenate((starts, [ts_all.shape[0]]))))
            records[inst, slots] = gpu.records
    else:
        ts = np.zeros(0, np.int64)
        records = empty_gpu_records(0).reshape(0, 0)
    if nic is not None and len(nic):
        nts_all = nic.ts_ms
        cuts = np.flatnonzero(np.diff(nts_all)) + 1
        nstarts = np.concatenate((np.zeros(1, np.int64), cuts))
        nic_ts = nts_all[nstarts]
        idx = nic.records["nic"].astype(np.int64)
        width = int(idx.max()) + 1
        rates = np.full((nic_ts.shape[0], width, 2), np.nan, dtype=np.float32)
        inst = np.repeat(
            np.arange(nic_ts.shape[0]), np.diff(np.concatenate((nstarts, [nts_all.shape[0]])))
        )
        rates[inst, idx, 0] = nic.records["rx_bytes_s"]
        rates[inst, idx, 1] = nic.records["tx_bytes_s"]
    else:
        nic_ts = np.zeros(0, np.int64)
        rates = np.zeros((0, 0, 2), dtype=np.float32)
    return NodeSeries(node_id, name, ts, records, nic_ts, rates, int(ts.shape[0]))


def _interval_ms(nodes: Sequence[NodeSeries]) -> int:
    for node in nodes:
        if node.ts_ms.shape[0] > 2:
            return max(1, int(np.median(np.diff(node.ts_ms))))
    return 1000


_AVERAGED = ("util", "mem_util", "temp_c", "power_dw", "sm_mhz", "mem_used_mib")


def coarsen(node: NodeSeries, step_ms: int) -> NodeSeries:
    """The node's samples averaged over columns of ``step_ms`` (aligned to absolute time),
    for runs too long to draw one column per sample. Missing values stay missing."""
    ts = node.ts_ms
    if ts.shape[0] == 0:
        return node
    bucket = ts // step_ms
    cuts = np.flatnonzero(np.diff(bucket)) + 1
    starts = np.concatenate((np.zeros(1, np.int64), cuts))
    counts = np.diff(np.concatenate((starts, [ts.shape[0]])))
    out = empty_gpu_records(starts.shape[0] * node.gpus).reshape(starts.shape[0], node.gpus)
    for name in GPU_SAMPLE_DTYPE.names or ():
        raw = node.records[name]
        if name in _AVERAGED:
            missing = raw == MISSING[name]
            vals = np.where(missing, 0, raw).astype(np.float64)
            sums = np.add.reduceat(vals, starts, axis=0)
            seen = np.add.reduceat((~missing).astype(np.int64), starts, axis=0)
            with np.errstate(invalid="ignore", divide="ignore"):
                mean = np.round(sums / seen)
            mean[seen == 0] = MISSING[name]
            out[name] = mean.astype(raw.dtype)
        else:  # slots, limits, flags: the newest of the column
            out[name] = raw[starts + counts - 1]
    new_ts = (bucket[starts] + 1) * step_ms - 1
    nic_ts, rates = node.nic_ts_ms, node.nic_rates
    if nic_ts.shape[0]:
        nb = nic_ts // step_ms
        ncuts = np.flatnonzero(np.diff(nb)) + 1
        nstarts = np.concatenate((np.zeros(1, np.int64), ncuts))
        with np.errstate(invalid="ignore"):
            filled = np.nan_to_num(rates, nan=0.0).astype(np.float64)
            seen = (~np.isnan(rates)).astype(np.int64)
            mean = np.add.reduceat(filled, nstarts, axis=0) / np.maximum(
                1, np.add.reduceat(seen, nstarts, axis=0)
            )
            mean[np.add.reduceat(seen, nstarts, axis=0) == 0] = np.nan
        nic_ts = (nb[nstarts] + 1) * step_ms - 1
        rates = mean.astype(np.float32)
    return NodeSeries(node.node_id, node.name, new_ts, out, nic_ts, rates, int(new_ts.shape[0]))


def _nice_step_ms(span_ms: float, interval_ms: int, columns: int = MAX_COLUMNS) -> int:
    need = max(interval_ms, span_ms / columns)
    for seconds in (1, 2, 5, 10, 15, 20, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 14400):
        if seconds * 1000 >= need:
            return seconds * 1000
    return int(math.ceil(need / 86_400_000) * 86_400_000)


def _with_dcgm_means(node: NodeSeries, block: SampleBlock | None) -> NodeSeries:
    """The node with its GPUs' mean DCGM ratios over the window (issue 34), where it had
    DCGM: what a replay shows beside the utilization nvidia-smi counted."""
    if block is None or not len(block):
        return node
    slots = block.records["gpu"].astype(np.int64)
    means = empty_dcgm_records(int(slots.max()) + 1)
    for name in DCGM_FIELDS:
        raw = np.asarray(block.records[name]).astype(np.float64)
        for slot in range(means.shape[0]):
            seen = raw[(slots == slot) & (raw != DCGM_MISSING)]
            if seen.shape[0]:
                means[name][slot] = round(float(seen.mean()))
    return dataclasses.replace(node, dcgm=means)


def frame_from_samples(
    store: ReadOnlyStore,
    cluster: Mapping[str, Any],
    nodes: Sequence[Mapping[str, Any]],
    start_s: float,
    end_s: float,
) -> tuple[ClusterFrame | None, str]:
    """The GPU samples of a cluster over a window as a frame, from the raw samples if they
    are kept, else from the one-minute rollups. Returns (frame or None, resolution)."""
    cid = int(cluster["id"])
    start_ms, end_ms = int(start_s * 1000), math.ceil(end_s * 1000) + 1
    gpu = q.gpu_samples_by_node(store, cid, start_ms, end_ms)
    names = {int(n["id"]): str(n["hostname"] or f"node-{n['rank']}") for n in nodes}
    order = [int(n["id"]) for n in nodes] or sorted(gpu)
    if gpu:
        nic = q.nic_samples_by_node(store, cid, start_ms, end_ms)
        series = [
            _node_series(nid, names.get(nid, f"node {nid}"), gpu.get(nid), nic.get(nid))
            for nid in order
        ]
        resolution = "samples"
    else:
        series = _series_from_rollups(store, cid, order, names, start_s, end_s)
        if not any(s.ts_ms.shape[0] for s in series):
            return None, "none"
        resolution = "rollups"
    interval = _interval_ms(series) if resolution == "samples" else 60_000
    span = max(1.0, (end_s - start_s) * 1000)
    if span / interval > MAX_COLUMNS:
        step = _nice_step_ms(span, interval)
        series = [coarsen(s, step) for s in series]
        interval = step
    if resolution == "samples":
        dcgm = q.dcgm_samples_by_node(store, cid, start_ms, end_ms)
        series = [_with_dcgm_means(s, dcgm.get(s.node_id)) for s in series]
    frame = ClusterFrame(
        cluster_id=cid,
        name=str(cluster["name"]),
        interval_s=interval / 1000.0,
        window_s=max(interval / 1000.0, end_s - start_s),
        nodes=tuple(series),
    )
    return frame, resolution


_ROLLED = {"util": ("util", 1.0), "temp_c": ("temp_c", 1.0), "power_w": ("power_dw", 10.0),
           "mem_used_mib": ("mem_used_mib", 1.0), "sm_mhz": ("sm_mhz", 1.0),
           "mem_util": ("mem_util", 1.0)}  # fmt: skip


def _series_from_rollups(
    store: ReadOnlyStore,
    cluster_id: int,
    order: Sequence[int],
    names: Mapping[int, str],
    start_s: float,
    end_s: float,
) -> list[NodeSeries]:
    arrays = q.rollup_arrays(store, cluster_id, list(_ROLLED), start_s, end_s)
    util = arrays["util"]
    out = []
    for nid in order:
        mine = util[util["node_id"] == nid]
        if not mine.shape[0]:
            out.append(_node_series(nid, names.get(nid, f"node {nid}"), None, None))
            continue
        minutes = np.unique(mine["minute_ts"])
        width = int(mine["gpu"].max()) + 1
        records = empty_gpu_records(minutes.shape[0] * width).reshape(minutes.shape[0], width)
        records["gpu"] = np.arange(width, dtype=np.uint8)
        for metric, (fld, scale) in _ROLLED.items():
            rows = arrays[metric]
            rows = rows[rows["node_id"] == nid]
            if not rows.shape[0]:
                continue
            row_i = np.searchsorted(minutes, rows["minute_ts"])
            limit = MISSING[fld] - 1
            vals = np.clip(np.round(rows["mean"] * scale), 0, limit)
            records[fld][row_i, rows["gpu"]] = vals.astype(records[fld].dtype)
        ts = minutes.astype(np.int64) * 1000 + 30_000
        out.append(
            NodeSeries(
                nid,
                names.get(nid, f"node {nid}"),
                ts,
                records,
                np.zeros(0, np.int64),
                np.zeros((0, 0, 2), np.float32),
                int(ts.shape[0]),
            )
        )
    return out


def at_time(frame: ClusterFrame, end_s: float, window_s: float | None = None) -> ClusterFrame:
    """The frame as the charts should draw it for a window ending at ``end_s``."""
    return frame if window_s is None else replace(frame, window_s=max(frame.interval_s, window_s))


# -- the timeline ----------------------------------------------------------------------------------


def _loads(text: str | None, default: Any) -> Any:
    try:
        return json.loads(text) if text else default
    except ValueError:
        return default


def _within(ts: float | None, start: float, end: float) -> bool:
    return ts is not None and start - 1 <= ts <= end + 1


def cluster_timeline(
    store: ReadOnlyStore,
    cluster: Mapping[str, Any],
    start: float = 0.0,
    end: float = 1e18,
    *,
    with_job_events: bool = True,
) -> list[TimelineItem]:
    """Renting, bootstrap, tuning (which NCCL settings, what bus bandwidth), alerts, budget
    and failover events, release: what happened to a cluster, in time order."""
    cid = int(cluster["id"])
    items: list[TimelineItem] = []
    shape = {
        "provider": cluster.get("provider"),
        "gpu": cluster.get("gpu"),
        "nodes": int(cluster.get("node_count") or 0)
        or int(cluster["gpu_count"]) // max(1, int(cluster["gpus_per_node"])),
        "gpus_per_node": cluster.get("gpus_per_node"),
        "fabric": cluster.get("fabric"),
        "region": cluster.get("region"),
        "price": format_amount(int(cluster.get("price_per_gpu_hour_micros") or 0),
                               cluster.get("currency")),
    }  # fmt: skip
    if _within(cluster.get("created_at"), start, end):
        items.append(TimelineItem(float(cluster["created_at"]), "rented", params=shape))
    for node in q.cluster_nodes(store, cid):
        if _within(node.get("running_at"), start, end):
            items.append(
                TimelineItem(
                    float(node["running_at"]),
                    "node_up",
                    params={"node": node["hostname"] or f"node-{node['rank']}"},
                )
            )
        if node.get("error"):
            ts = node.get("terminated_at") or node.get("running_at") or cluster["created_at"]
            if _within(ts, start, end):
                items.append(
                    TimelineItem(
                        float(ts),
                        "node_error",
                        "error",
                        {"node": node["hostname"] or f"node-{node['rank']}"},
                        str(node["error"]),
                    )
                )
    if _within(cluster.get("ready_at"), start, end):
        items.append(
            TimelineItem(float(cluster["ready_at"]), "ready", params={"nodes": shape["nodes"]})
        )
    for report in q.fabric_reports(store, cid):
        if _within(report["probed_at"], start, end):
            items.append(
                TimelineItem(
                    float(report["probed_at"]),
                    "fabric",
                    params={
                        "fabric": report["fabric"],
                        "transport": report["transport"],
                        "nics": report["active_nic_count"],
                        "nic_count": report["nic_count"],
                        "rate_gbps": report["nic_rate_gbps"],
                    },
                )
            )
    for run in q.nccl_test_runs(store, cid):
        if _within(run["ts"], start, end):
            items.append(
                TimelineItem(
                    float(run["ts"]),
                    "nccl_test",
                    "info" if not run["error"] and not run["exit_code"] else "warning",
                    {
                        "phase": run["phase"],
                        "collective": run["collective"],
                        "busbw": run["avg_busbw"],
                        "peak_busbw": run["peak_busbw"],
                        "transport": run["transport"],
                        "nodes": run["n_nodes"],
                        "env": _loads(run["env_json"], {}),
                    },
                    run["error"],
                )
            )
    for settings in q.nccl_settings_history(store, cid):
        if _within(settings["created_at"], start, end):
            items.append(
                TimelineItem(
                    float(settings["created_at"]),
                    "tuned",
                    params={
                        "source": settings["source"],
                        "applied": bool(settings["applied"]),
                        "vars": {v["name"]: v["value"] for v in settings["vars"]},
                        "summary": settings["summary"],
                    },
                )
            )
    lifecycle = [i.ts for i in items if i.kind in ("rented", "ready")]
    lifecycle += [float(cluster[k]) for k in ("released_at",) if cluster.get(k)]
    for event in q.cluster_events(store, cid, start - 1, end + 1):
        if not with_job_events and event.get("job_id") is not None:
            continue
        item = _event_item(event)
        if (
            event["kind"] == "cluster"
            and item.severity == "info"
            and any(abs(item.ts - t) < 2 for t in lifecycle)
        ):
            continue  # the lifecycle's own note of what the items above already say
        if event["kind"] == "tuning" and any(
            i.kind == "tuned" and abs(i.ts - item.ts) < 2 for i in items
        ):
            continue
        items.append(item)
    for when, kind in (("release_requested_at", "release_requested"), ("released_at", "released")):
        if _within(cluster.get(when), start, end):
            items.append(TimelineItem(float(cluster[when]), kind))
    items.sort(key=lambda i: (i.ts, _ORDER.get(i.kind, 50)))
    return items


def _inherited(items: Sequence[TimelineItem], start: float, end: float) -> list[TimelineItem]:
    """What of its cluster's story a job's timeline shows: how the cluster came up, the
    fabric and NCCL settings the job ran with (the newest before it started), what happened
    while it ran, and the release if it came within the hour after the job ended."""
    out: list[TimelineItem] = []
    newest: dict[str, TimelineItem] = {}
    for item in items:
        if item.ts < start - 1:
            if item.kind in ("rented", "node_up", "ready", "node_error"):
                out.append(item)
            elif item.kind in ("fabric", "nccl_test", "tuned"):
                newest[item.kind] = item
        elif item.ts <= end + 1 or item.kind in ("release_requested", "released"):
            out.append(item)
    return out + list(newest.values())


_ORDER = {"rented": 0, "node_up": 1, "ready": 2, "job_created": 3, "attempt_started": 4,
          "released": 99}  # fmt: skip


def _event_item(event: Mapping[str, Any]) -> TimelineItem:
    data = _loads(event.get("data_json"), {})
    kind = str(event["kind"])
    params: dict[str, Any] = {"event": kind}
    if event.get("rule"):
        params["rule"] = event["rule"]
    if kind == "alert":
        params["cleared_at"] = event.get("cleared_at")
        if isinstance(data, dict) and data.get("action"):
            params["action"] = data["action"]
    mapped = {"alert": "alert", "budget": "budget", "failover": "failover",
              "checkpoint": "checkpoint", "recovery": "recovery"}.get(kind, "event")  # fmt: skip
    ts = float(event["ts"])
    if isinstance(data, dict) and data.get("not_watched_from") is not None:
        # a span nobody watched (the job runtime noted it when a follower adopted the job):
        # placed where it began, so the replay reads "not watched" there, not idle GPUs
        ts = float(data["not_watched_from"])
        params["not_watched_from"] = ts
        params["not_watched_until"] = data.get("not_watched_until")
    return TimelineItem(
        ts,
        mapped,
        str(event["severity"]),
        params,
        str(event["message"]),
        said_of(dict(event)),
    )


def job_timeline(
    store: ReadOnlyStore,
    job: Mapping[str, Any],
    cluster: Mapping[str, Any] | None,
    attempts: Sequence[Mapping[str, Any]],
) -> list[TimelineItem]:
    """The job's own story (created, each attempt with its cause, recoveries, checkpoints,
    the end) with what its cluster went through while the job existed."""
    start = float(job["created_at"])
    end = float(job["ended_at"] or time.time())
    items: list[TimelineItem] = []
    if cluster is not None:
        items += _inherited(
            cluster_timeline(store, cluster, 0.0, end + 3600, with_job_events=False), start, end
        )
    items.append(TimelineItem(start, "job_created", params={"name": job["name"]}))
    previous: Mapping[str, Any] | None = None
    for attempt in attempts:
        if attempt.get("started_at") is not None:
            kind = "attempt_started" if previous is None else "recovery"
            params: dict[str, Any] = {"attempt": attempt["attempt"]}
            if attempt.get("resume_step") is not None:
                params["resume_step"] = attempt["resume_step"]
            if attempt.get("resumed_from"):
                params["resumed_from"] = attempt["resumed_from"]
            if previous is not None:
                params["cause"] = previous.get("cause")
            items.append(TimelineItem(float(attempt["started_at"]), kind, params=params))
        if attempt.get("ended_at") is not None:
            ok = attempt.get("state") == "succeeded"
            items.append(
                TimelineItem(
                    float(attempt["ended_at"]),
                    "attempt_ended",
                    "info" if ok else "warning",
                    {
                        "attempt": attempt["attempt"],
                        "state": attempt.get("state"),
                        "cause": attempt.get("cause"),
                        "exit_code": attempt.get("exit_code"),
                    },
                    attempt.get("message"),
                    said_from_text(attempt.get("message_said_json")),
                )
            )
        previous = attempt
    known = {(i.ts, i.message) for i in items if i.message}
    steps = ("recovery", "attempt_ended", "attempt_started")
    for event in q.job_events(store, int(job["id"])):
        item = _event_item(event)
        if "not_watched_from" in item.params:
            items.append(item)  # its own entry, whatever ended near its start
            continue
        if (item.ts, item.message) in known:
            continue
        # the runtime's own note of an attempt's end or start belongs to that item
        twin = min(
            (
                k
                for k, other in enumerate(items)
                if other.kind in steps and abs(other.ts - item.ts) < 2
            ),
            key=lambda k: abs(items[k].ts - item.ts),
            default=None,
        )
        if twin is not None:
            if items[twin].message is None:
                items[twin] = replace(items[twin], message=item.message, said=item.said)
            continue
        if (
            event["kind"] == "job"
            and job.get("ended_at")
            and abs(float(job["ended_at"]) - item.ts) < 2
        ):
            continue  # "job X succeeded": the end below says it
        items.append(item)
    if job.get("ended_at") is not None:
        items.append(
            TimelineItem(
                float(job["ended_at"]),
                "job_finished",
                "info" if job["state"] == "succeeded" else "error",
                {"state": job["state"], "exit_code": job.get("exit_code")},
                job.get("error"),
                said_from_text(job.get("error_said_json")),
            )
        )
    items.sort(key=lambda i: (i.ts, _ORDER.get(i.kind, 50)))
    return items


# -- cost ------------------------------------------------------------------------------------------


def _overlap(a0: float, a1: float, b0: float, b1: float) -> float:
    return max(0.0, min(a1, b1) - max(a0, b0))


def cost_breakdown(
    store: ReadOnlyStore,
    cluster: Mapping[str, Any],
    start: float,
    end: float,
    total_micros: int,
) -> CostBreakdown:
    """The meter's total over the window, the node-hours behind it (each node from running
    to terminated, inside the window) and the agents' model usage for the cluster."""
    price = int(cluster.get("price_per_gpu_hour_micros") or 0)
    per_node = int(cluster.get("gpus_per_node") or 0)
    cluster_end = float(cluster.get("released_at") or end)
    hours = []
    for node in q.cluster_nodes(store, int(cluster["id"])):
        up = node.get("running_at") or node.get("created_at")
        if up is None:
            continue
        down = float(node.get("terminated_at") or cluster_end)
        h = _overlap(float(up), down, start, end) / 3600.0
        hours.append(
            NodeHours(
                str(node["hostname"] or f"node-{node['rank']}"),
                h,
                per_node,
                round(h * per_node * price),
            )
        )
    model = tuple(
        ModelUsage(
            str(r["currency"]),
            int(r["tokens_in"]),
            int(r["tokens_out"]),
            int(r["cost_micros"]),
            int(r["conversations"]),
        )
        for r in q.model_usage_for_cluster(store, str(cluster["name"]), start, end)
    )
    return CostBreakdown(
        currency=str(cluster.get("currency") or "CNY"),
        total_micros=total_micros,
        cluster_total_micros=int(cluster.get("cost_micros") or 0),
        price_per_gpu_hour_micros=price,
        node_hours=tuple(hours),
        model=model,
    )


def _attempt_spend(
    store: ReadOnlyStore, attempts: Sequence[Mapping[str, Any]], cluster: Mapping[str, Any] | None
) -> list[dict[str, Any]]:
    """A job's spending as charges, one per attempt: its nodes' time at their cluster's
    price, as the job's cost counts it (so the comparison's money axis ends at that cost)."""
    prices: dict[int, int] = {}
    if cluster is not None:
        prices[int(cluster["id"])] = int(cluster["price_per_gpu_hour_micros"] or 0) * int(
            cluster["gpus_per_node"] or 0
        )
    out: list[dict[str, Any]] = []
    for attempt in attempts:
        begun = attempt.get("started_at")
        if begun is None:
            continue
        ended = float(attempt.get("ended_at") or time.time())
        amount = 0
        for node in _loads(attempt.get("nodes_json"), []):
            cid = node.get("cluster_id") if isinstance(node, dict) else None
            if cid is None:
                continue
            if int(cid) not in prices:
                other = q.past_cluster(store, int(cid))
                prices[int(cid)] = (
                    int(other["price_per_gpu_hour_micros"] or 0) * int(other["gpus_per_node"] or 0)
                    if other
                    else 0
                )
            amount += round(prices[int(cid)] * max(0.0, ended - float(begun)) / 3600.0)
        out.append({"start_ts": float(begun), "end_ts": ended, "amount_micros": amount})
    return out


def spent_at(charges: Sequence[Mapping[str, Any]], ts: F64, since: float) -> F64:
    """The meter's charges between ``since`` and each time in ``ts`` (micro-units), each
    charge spread evenly over its interval."""
    out = np.zeros(ts.shape[0], dtype=np.float64)
    for ch in charges:
        a, b, amount = float(ch["start_ts"]), float(ch["end_ts"]), float(ch["amount_micros"])
        if b <= a:
            out += np.where(ts >= b, amount if b >= since else 0.0, 0.0)
            continue
        lo = max(a, since)
        covered = np.clip(ts, lo, b) - lo
        out += np.where(covered > 0, covered, 0.0) * (amount / (b - a))
    return out


# -- settings and results --------------------------------------------------------------------------

_MODEL_SIZE = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\s*[bB](?![a-zA-Z0-9])")


def model_params_from(text: str) -> float | None:
    """A model size named in a command or a name (``--model 13b``, ``llama-70B``), in
    parameters; None when none is named."""
    found = _MODEL_SIZE.findall(text.replace("-", " ").replace("_", " "))
    return float(found[0]) * 1e9 if found else None


def estimated_mfu(
    tokens_per_s: float | None, params: float | None, gpu: str | None, gpus: int
) -> float | None:
    """Model FLOPs utilisation from 6 x parameters x tokens/s over the GPUs' dense BF16 peak
    (the catalog's figure); None when a figure is missing."""
    if not tokens_per_s or not params or not gpu or gpus <= 0:
        return None
    from xyclaw.engine.values import Catalog

    try:
        peak = Catalog.builtin().gpu(gpu).bf16_tflops * 1e12
    except (KeyError, XyclawError, ValueError):
        return None
    return 6.0 * params * tokens_per_s / (gpus * peak)


def _text(value: Any) -> str | None:
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, list | tuple):
        return ", ".join(str(v) for v in value) if value else None
    if isinstance(value, dict):
        return json.dumps(value, sort_keys=True, ensure_ascii=False) if value else None
    return str(value)


def flatten_spec(spec: Mapping[str, Any], prefix: str = "spec") -> dict[str, str | None]:
    out: dict[str, str | None] = {}
    for key in sorted(spec):
        if key == "version":
            continue
        value = spec[key]
        name = f"{prefix}.{key}"
        if isinstance(value, dict) and value:
            out.update(flatten_spec(value, name))
        else:
            out[name] = _text(value)
    return out


def applied_nccl(store: ReadOnlyStore, cluster_id: int, at: float | None) -> dict[str, str]:
    """The NCCL environment a job on the cluster got: the newest applied settings made
    before ``at`` (else the newest applied)."""
    history = [s for s in q.nccl_settings_history(store, cluster_id) if s["applied"]]
    before = [s for s in history if at is None or float(s["created_at"]) <= at + 1]
    chosen = (before or history)[-1:] if history else []
    return {v["name"]: v["value"] for s in chosen for v in s["vars"]}


def job_settings(
    job: Mapping[str, Any], cluster: Mapping[str, Any] | None, nccl: Mapping[str, str]
) -> dict[str, str | None]:
    """What a job was asked to be and where it ran: its spec, its cluster's shape and
    fabric, the NCCL environment. Keys are stable (``spec.resources.gpu``, ``nccl.X``)."""
    spec = _loads(job.get("spec_json"), {})
    out = flatten_spec(spec if isinstance(spec, dict) else {})
    if cluster is not None:
        per = int(cluster.get("gpus_per_node") or 0)
        nodes = int(cluster.get("gpu_count") or 0) // max(1, per)
        out.update(
            {
                "cluster.provider": _text(cluster.get("provider")),
                "cluster.region": _text(cluster.get("region")),
                "cluster.gpu": _text(cluster.get("gpu")),
                "cluster.shape": f"{nodes} x {per}",
                "cluster.fabric": _text(cluster.get("fabric")),
                "cluster.price": format_amount(
                    int(cluster.get("price_per_gpu_hour_micros") or 0), cluster.get("currency")
                ),
            }
        )
    for name, value in sorted(nccl.items()):
        out[f"nccl.{name}"] = value
    return out


def job_results(
    job: Mapping[str, Any],
    cluster: Mapping[str, Any] | None,
    metrics: Sequence[Mapping[str, Any]],
    attempts: int,
    busbw: float | None,
) -> dict[str, str | None]:
    losses = [m["loss"] for m in metrics if m.get("loss") is not None]
    rates = [m["tokens_per_s"] for m in metrics if m.get("tokens_per_s") is not None]
    steps = [m["step"] for m in metrics if m.get("step") is not None]
    rate = float(np.mean(rates[len(rates) // 2 :])) if rates else None  # after warm-up
    start = job.get("started_at") or job.get("created_at")
    end = job.get("ended_at")
    spec = _loads(job.get("spec_json"), {})
    params = model_params_from(
        " ".join(str(x) for x in (job.get("name"), spec.get("run") if isinstance(spec, dict)
                                   else None) if x)
    )  # fmt: skip
    progress = _loads(job.get("progress_json"), {})
    mfu = progress.get("mfu") if isinstance(progress, dict) else None
    gpus = int(cluster.get("gpu_count") or 0) if cluster else 0
    resources = spec.get("resources") if isinstance(spec, dict) else None
    if isinstance(resources, dict) and resources.get("gpus_per_node"):
        gpus = int(resources.get("nodes") or 1) * int(resources["gpus_per_node"])
    if mfu is None:
        mfu = estimated_mfu(rate, params, cluster.get("gpu") if cluster else None, gpus)
    currency = (cluster or {}).get("currency") or "CNY"
    return {
        "result.state": _text(job.get("state")),
        "result.attempts": str(attempts),
        "result.duration_s": None if end is None or start is None else f"{end - start:.0f}",
        "result.cost": format_amount(round(job.get("cost_micros") or 0), currency),
        "result.steps": _text(max(steps) if steps else None),
        "result.final_loss": None if not losses else f"{losses[-1]:.6g}",
        "result.min_loss": None if not losses else f"{min(losses):.6g}",
        "result.tokens_per_s": None if rate is None else f"{rate:.6g}",
        "result.mfu": None if mfu is None else f"{100 * float(mfu):.3g}%",
        "result.busbw": None if busbw is None else f"{busbw:.4g} GB/s",
    }


def cluster_settings(cluster: Mapping[str, Any], nccl: Mapping[str, str]) -> dict[str, str | None]:
    return job_settings({"spec_json": "{}"}, cluster, nccl)


def cluster_results(cluster: Mapping[str, Any]) -> dict[str, str | None]:
    start = cluster.get("created_at")
    end = cluster.get("released_at")
    return {
        "result.state": _text(cluster.get("state")),
        "result.duration_s": None if end is None or start is None else f"{end - start:.0f}",
        "result.cost": format_amount(int(cluster.get("cost_micros") or 0),
                                     cluster.get("currency") or "CNY"),
        "result.jobs": _text(cluster.get("job_count")),
    }  # fmt: skip


# -- the source ------------------------------------------------------------------------------------


class HistorySource:
    """The history database, read only, for the History page (call from a worker thread:
    every method reads SQLite)."""

    def __init__(self, database: Path | Callable[[], Path]) -> None:
        self._database = database
        self._store: ReadOnlyStore | None = None

    @property
    def store(self) -> ReadOnlyStore:
        if self._store is None:
            path = self._database() if callable(self._database) else self._database
            self._store = ReadOnlyStore(path)
        return self._store

    def close(self) -> None:
        if self._store is not None:
            self._store.close()
            self._store = None

    # -- lists --------------------------------------------------------------------------------
    def clusters(self) -> list[dict[str, Any]]:
        return q.past_clusters(self.store)

    def jobs(self) -> list[dict[str, Any]]:
        rows = q.past_jobs(self.store)
        for row in rows:
            row["cost_micros"] = round(row.get("cost_micros") or 0)
        return rows

    # -- replays ------------------------------------------------------------------------------
    def replay_job(self, job_id: int, *, log_tail: int = 2000, samples: bool = True) -> Replay:
        """A job's replay; ``samples=False`` leaves out its GPU samples (a comparison needs
        the series and the settings, not every GPU's samples)."""
        store = self.store
        job = q.past_job(store, job_id)
        if job is None:
            raise UsageError(f"there is no job {job_id} in the history")
        job["cost_micros"] = round(job.get("cost_micros") or 0)
        cluster = q.past_cluster(store, int(job["cluster_id"])) if job["cluster_id"] else None
        table = JobTable(store)
        attempts = table.attempts(job_id)
        metrics = table.metrics(job_id)
        log = table.log_rows(job_id, tail=log_tail)
        start = float(job["started_at"] or job["created_at"])
        end = float(job["ended_at"] or (metrics[-1]["ts"] if metrics else time.time()))
        frame, resolution = (None, "none")
        nccl: dict[str, str] = {}
        busbw = None
        if cluster is not None:
            nodes = q.cluster_nodes(store, int(cluster["id"]))
            if samples:
                frame, resolution = frame_from_samples(store, cluster, nodes, start, end)
            nccl = applied_nccl(store, int(cluster["id"]), start)
            runs = [r for r in q.nccl_test_runs(store, int(cluster["id"])) if r["avg_busbw"]]
            busbw = float(runs[-1]["avg_busbw"]) if runs else None
        timeline = job_timeline(store, job, cluster, attempts)
        cost = (
            cost_breakdown(store, cluster, start, end, int(job["cost_micros"]))
            if cluster is not None
            else None
        )
        charges = _attempt_spend(store, attempts, cluster)
        return Replay(
            kind="job",
            id=job_id,
            name=str(job["name"]),
            row=job,
            cluster=cluster,
            start_s=start,
            end_s=end,
            frame=frame,
            resolution=resolution,
            metrics=metrics,
            log=log,
            log_total=int(job.get("log_lines") or 0) + int(job.get("log_cut_lines") or 0),
            timeline=timeline,
            cost=cost,
            settings=job_settings(job, cluster, nccl),
            results=job_results(job, cluster, metrics, max(1, len(attempts)), busbw),
            charges=charges,
        )

    def replay_cluster(self, cluster_id: int) -> Replay:
        store = self.store
        cluster = q.past_cluster(store, cluster_id)
        if cluster is None:
            raise UsageError(f"there is no cluster {cluster_id} in the history")
        nodes = q.cluster_nodes(store, cluster_id)
        start = float(cluster["ready_at"] or cluster["created_at"])
        span = q.sample_span_ms(store, cluster_id)
        end = float(cluster["released_at"] or (span[1] / 1000 if span else time.time()))
        if span is not None:
            start = min(start, span[0] / 1000)
        frame, resolution = frame_from_samples(store, cluster, nodes, start, end)
        timeline = cluster_timeline(store, cluster)
        cost = cost_breakdown(
            store, cluster, float(cluster["created_at"]), end, int(cluster["cost_micros"])
        )
        nccl = applied_nccl(store, cluster_id, None)
        return Replay(
            kind="cluster",
            id=cluster_id,
            name=str(cluster["name"]),
            row=cluster,
            cluster=cluster,
            start_s=start,
            end_s=end,
            frame=frame,
            resolution=resolution,
            metrics=[],
            log=[],
            log_total=0,
            timeline=timeline,
            cost=cost,
            settings=cluster_settings(cluster, nccl),
            results=cluster_results(cluster),
            charges=q.meter_charges(store, cluster_id),
        )

    def compare(self, job_ids: Sequence[int]) -> Comparison:
        if len(job_ids) < 2:
            raise UsageError("pick two or more jobs to compare", hint="Ctrl+click in the list")
        return Comparison([self.replay_job(j, log_tail=0, samples=False) for j in job_ids])


# -- comparing -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TableRow:
    key: str
    values: tuple[str | None, ...]

    @property
    def differs(self) -> bool:
        return len(set(self.values)) > 1


@dataclass
class Comparison:
    replays: list[Replay]

    def table(self, differences_only: bool = True) -> list[TableRow]:
        return comparison_table(self.replays, differences_only)


def comparison_table(replays: Sequence[Replay], differences_only: bool = True) -> list[TableRow]:
    """One row per setting or result (spec, cluster, NCCL, then results), one value per run;
    with ``differences_only`` just the rows whose values are not all the same."""
    keys: list[str] = []
    for r in replays:
        for k in (*r.settings, *r.results):
            if k not in keys:
                keys.append(k)
    group = {"spec": 0, "cluster": 1, "nccl": 2, "result": 3}
    keys.sort(key=lambda k: group.get(k.split(".", 1)[0], 9))
    rows = []
    for k in keys:
        values = tuple(
            (r.settings.get(k) if k in r.settings else r.results.get(k)) for r in replays
        )
        row = TableRow(k, values)
        if not differences_only or row.differs:
            rows.append(row)
    return rows


def smooth(values: F64, weight: float) -> F64:
    """TensorBoard's smoothing: an exponential moving average, debiased at the start, that
    skips gaps (NaN stays NaN)."""
    if weight <= 0 or values.shape[0] == 0:
        return values.astype(np.float64)
    weight = min(weight, 0.999)
    out = np.full(values.shape[0], np.nan)
    last = 0.0
    seen = 0
    for i, v in enumerate(values.tolist()):
        if v != v:
            continue
        last = last * weight + (1 - weight) * v
        seen += 1
        out[i] = last / (1 - weight**seen)
    return out


@dataclass(frozen=True)
class Curve:
    label: str
    x: F64
    y: F64
    currency: str | None = None


def curve(replay: Replay, x_axis: str, y_key: str = "loss", smoothing: float = 0.0) -> Curve:
    """One run's ``y_key`` against step, wall time (s since the run started), tokens seen or
    money spent (major units, from the meter's charges, else the price); NaN between two
    attempts, so a line is not drawn across a recovery."""
    if x_axis not in X_AXES:
        raise UsageError(f"no x axis {x_axis!r}", hint="one of " + ", ".join(X_AXES))
    pts = [m for m in replay.metrics if m.get(y_key) is not None]
    y = np.array([float(m[y_key]) for m in pts], dtype=np.float64)
    # a point's time is when it was stored: one read late (nothing followed the job for a
    # while) is placed no later than the run's end, which the nodes' exit records give
    ts = np.minimum(np.array([float(m["ts"]) for m in pts], dtype=np.float64), replay.end_s)
    currency = (replay.cluster or {}).get("currency")
    if x_axis == "step":
        x = np.array([np.nan if m.get("step") is None else float(m["step"]) for m in pts])
    elif x_axis == "time":
        x = ts - replay.start_s
    elif x_axis == "tokens":
        every = [m for m in replay.metrics if m.get("tokens_per_s") is not None]
        t_all = np.array([float(m["ts"]) for m in every])
        r_all = np.array([float(m["tokens_per_s"]) for m in every])
        if t_all.shape[0]:
            dt = np.diff(np.concatenate(([replay.start_s], t_all)))
            seen = np.cumsum(np.maximum(dt, 0) * r_all)
            x = np.interp(ts, t_all, seen, left=0.0)
        else:
            x = np.full(ts.shape[0], np.nan)
    else:
        if replay.charges:
            x = spent_at(replay.charges, ts, replay.start_s) / 1e6
        else:
            c = replay.cluster or {}
            hourly = int(c.get("price_per_gpu_hour_micros") or 0) * int(c.get("gpu_count") or 0)
            x = (ts - replay.start_s) / 3600.0 * hourly / 1e6
    y = smooth(y, smoothing)
    # a recovered job starts again from its checkpoint: the line breaks between attempts
    attempts = [m.get("attempt") for m in pts]
    cuts = [i for i in range(1, len(attempts)) if attempts[i] != attempts[i - 1]]
    if cuts:
        x = np.insert(x.astype(np.float64), cuts, np.nan)
        y = np.insert(y, cuts, np.nan)
    return Curve(replay.label, x, y, currency)


# -- export and import -----------------------------------------------------------------------------


@dataclass
class Export:
    """What a job or a comparison is written as: the same thing as JSON or as CSV."""

    kind: str  # "job" or "comparison"
    runs: list[dict[str, Any]]  # id, name, settings, results, cost, timeline
    metrics: list[dict[str, Any]]  # every run's series, with job_id
    table: list[dict[str, Any]]  # key, values (one per run)

    def to_json(self) -> dict[str, Any]:
        return {
            "format": EXPORT_FORMAT,
            "version": EXPORT_VERSION,
            "kind": self.kind,
            "runs": self.runs,
            "metrics": self.metrics,
            "table": self.table,
        }


def export_of(replays: Sequence[Replay]) -> Export:
    runs = [
        {
            "id": r.id,
            "name": r.name,
            "kind": r.kind,
            "start": r.start_s,
            "end": r.end_s,
            "settings": r.settings,
            "results": r.results,
            "cost": None if r.cost is None else r.cost.to_json(),
            "timeline": [i.to_json() for i in r.timeline],
        }
        for r in replays
    ]
    metrics = [{k: m.get(k) for k in METRIC_COLUMNS} for r in replays for m in r.metrics]
    table = [
        {"key": row.key, "values": list(row.values)}
        for row in comparison_table(replays, differences_only=False)
    ]
    return Export("job" if len(replays) == 1 else "comparison", runs, metrics, table)


def write_json(export: Export, path: Path) -> Path:
    path.write_text(
        json.dumps(export.to_json(), indent=1, ensure_ascii=False, allow_nan=False),
        encoding="utf-8",
    )
    return path


def read_json(path: Path) -> Export:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise UsageError(f"{path} is not a readable JSON export: {exc}") from exc
    if not isinstance(data, dict) or data.get("format") != EXPORT_FORMAT:
        raise UsageError(f"{path} is not a XyClaw history export")
    return Export(str(data["kind"]), data["runs"], data["metrics"], data["table"])


_INT_COLUMNS = {"job_id", "attempt", "step", "total_steps"}


def _table_path(path: Path) -> Path:
    return path.with_name(path.stem + "-table.csv")


def write_csv(export: Export, path: Path) -> list[Path]:
    """The metrics series to ``path`` (one row per point, every run's, with its job id) and
    the settings-and-results table next to it (``<name>-table.csv``)."""
    with path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(METRIC_COLUMNS)
        for m in export.metrics:
            writer.writerow(["" if m.get(k) is None else repr(m[k]) for k in METRIC_COLUMNS])
    table = _table_path(path)
    with table.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(["key", *(f"#{r['id']} {r['name']}" for r in export.runs)])
        for row in export.table:
            writer.writerow([row["key"], *("" if v is None else v for v in row["values"])])
    return [path, table]


def read_csv(path: Path) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(metrics, table) from what :func:`write_csv` wrote."""
    try:
        with path.open(newline="", encoding="utf-8") as fh:
            reader = csv.DictReader(fh)
            metrics = [
                {
                    k: None if not row[k] else (int(row[k]) if k in _INT_COLUMNS else float(row[k]))
                    for k in METRIC_COLUMNS
                }
                for row in reader
            ]
        table: list[dict[str, Any]] = []
        table_path = _table_path(path)
        if table_path.exists():
            with table_path.open(newline="", encoding="utf-8") as fh:
                rows = list(csv.reader(fh))
            for row in rows[1:]:
                table.append({"key": row[0], "values": [v if v else None for v in row[1:]]})
    except (OSError, ValueError, KeyError) as exc:
        raise UsageError(f"{path} is not a readable CSV export: {exc}") from exc
    return metrics, table
