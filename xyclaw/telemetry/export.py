"""Saved telemetry as rows for CSV or JSON: raw GPU samples, NIC rates, one-minute rollups."""

from __future__ import annotations

import csv
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import IO, Any

import numpy as np

from xyclaw.errors import UsageError
from xyclaw.store import Store
from xyclaw.store.telemetry import TelemetryTables
from xyclaw.telemetry.pack import record_dict

GPU_COLUMNS = (
    "time",
    "ts_ms",
    "node",
    "gpu",
    "util",
    "mem_util",
    "mem_used_mib",
    "mem_total_mib",
    "temp_c",
    "power_w",
    "power_limit_w",
    "sm_mhz",
    "fan",
    "pstate",
    "throttle",
    "ecc_uncorrected",
)
NIC_COLUMNS = ("time", "ts_ms", "node", "nic", "rx_bytes_s", "tx_bytes_s")
ROLLUP_COLUMNS = ("time", "minute_ts", "node", "gpu", "metric", "mean", "max", "samples")
COLUMNS = {"gpu": GPU_COLUMNS, "nic": NIC_COLUMNS, "rollups": ROLLUP_COLUMNS}

_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhdw])\s*$", re.IGNORECASE)
_UNIT_S = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}


def parse_since(text: str, now: float) -> float:
    """``90s``, ``30m``, ``6h``, ``2d``, ``1w`` before now, or an ISO time (local if no zone)."""
    m = _DURATION.match(text)
    if m:
        return now - float(m.group(1)) * _UNIT_S[m.group(2).lower()]
    try:
        when = datetime.fromisoformat(text.strip())
    except ValueError:
        raise UsageError(
            f"--since {text!r} is neither a duration nor a time",
            hint="use e.g. 30m, 6h, 2d, or 2025-06-01T08:00",
        ) from None
    if when.tzinfo is None:
        when = when.astimezone()
    return when.timestamp()


def _iso(ts_s: float) -> str:
    return datetime.fromtimestamp(ts_s, UTC).isoformat(timespec="milliseconds")


def node_names(store: Store, cluster_id: int) -> dict[int, str]:
    return TelemetryTables(store).node_names(cluster_id)


def gpu_rows(
    store: Store, cluster_id: int, start_s: float, end_s: float
) -> Iterator[dict[str, Any]]:
    names = node_names(store, cluster_id)
    block = store.gpu_samples(cluster_id, round(start_s * 1000), round(end_s * 1000))
    order = np.lexsort((block.records["gpu"], block.node_id, block.ts_ms))
    for i in order:
        ts = int(block.ts_ms[i])
        node = int(block.node_id[i])
        row = {"time": _iso(ts / 1000), "ts_ms": ts, "node": names.get(node, str(node))}
        row.update(record_dict(block.records[i]))
        yield row


def nic_rows(
    store: Store, cluster_id: int, start_s: float, end_s: float
) -> Iterator[dict[str, Any]]:
    names = node_names(store, cluster_id)
    block = store.nic_samples(cluster_id, round(start_s * 1000), round(end_s * 1000))
    order = np.lexsort((block.records["nic"], block.node_id, block.ts_ms))
    for i in order:
        ts = int(block.ts_ms[i])
        node = int(block.node_id[i])
        rec = block.records[i]
        rx, tx = float(rec["rx_bytes_s"]), float(rec["tx_bytes_s"])
        yield {
            "time": _iso(ts / 1000),
            "ts_ms": ts,
            "node": names.get(node, str(node)),
            "nic": int(rec["nic"]),
            "rx_bytes_s": None if np.isnan(rx) else round(rx, 1),
            "tx_bytes_s": None if np.isnan(tx) else round(tx, 1),
        }


def rollup_rows(
    store: Store, cluster_id: int, start_s: float, end_s: float
) -> Iterator[dict[str, Any]]:
    names = node_names(store, cluster_id)
    rows = TelemetryTables(store).rollups(cluster_id, start_s, end_s)
    for r in rows:
        yield {
            "time": _iso(float(r["minute_ts"])),
            "minute_ts": int(r["minute_ts"]),
            "node": names.get(int(r["node_id"]), str(r["node_id"])),
            "gpu": int(r["gpu"]),
            "metric": r["metric"],
            "mean": round(float(r["mean"]), 3),
            "max": round(float(r["max"]), 3),
            "samples": int(r["samples"]),
        }


def rows_of(
    kind: str, store: Store, cluster_id: int, start_s: float, end_s: float
) -> Iterator[dict[str, Any]]:
    if kind == "gpu":
        return gpu_rows(store, cluster_id, start_s, end_s)
    if kind == "nic":
        return nic_rows(store, cluster_id, start_s, end_s)
    if kind == "rollups":
        return rollup_rows(store, cluster_id, start_s, end_s)
    raise UsageError(f"unknown kind {kind!r}", hint="use gpu, nic or rollups")


def write_csv(rows: Iterator[dict[str, Any]], columns: Sequence[str], out: IO[str]) -> int:
    writer = csv.DictWriter(
        out, fieldnames=list(columns), extrasaction="ignore", lineterminator="\n"
    )
    writer.writeheader()
    count = 0
    for row in rows:
        writer.writerow({k: "" if v is None else v for k, v in row.items()})
        count += 1
    return count


@dataclass(frozen=True)
class MetricsExport:
    """Rows of one kind of saved metrics for a cluster (or a job's time on it)."""

    cluster: str
    cluster_id: int
    job: int | None
    kind: str
    start: float
    end: float
    rows: Iterator[dict[str, Any]]

    @property
    def columns(self) -> Sequence[str]:
        return COLUMNS[self.kind]
