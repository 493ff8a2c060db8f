"""One-minute rollups (mean and max per GPU, per NIC) and the retention of old data.

Rollups are worked out from the stored raw samples, so they come out the same
after a restart; a minute is rolled once it ended ``lag`` seconds ago (the
writer has saved it by then). Raw samples go after ``raw_retention_hours``,
rollups and gap records after ``rollup_retention_days``.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

from xyclaw.store import Store
from xyclaw.store.samples import MISSING, GpuSampleBlock, NicSampleBlock
from xyclaw.store.telemetry import TelemetryTables
from xyclaw.telemetry.pack import DISPLAY_FIELDS

log = logging.getLogger(__name__)

#: GPU metrics rolled up, by their display name (see pack.DISPLAY_FIELDS).
GPU_METRICS = ("util", "mem_util", "temp_c", "power_w", "mem_used_mib", "sm_mhz")
#: NIC metrics; their rows use the ``gpu`` column for the interface's index.
NIC_METRICS = ("nic_rx_bytes_s", "nic_tx_bytes_s")

Row = tuple[int, int, int, str, int, float, float, int]


def _reduce(
    minute: npt.NDArray[np.int64],
    node: npt.NDArray[np.int64],
    sub: npt.NDArray[np.int64],
    vals: npt.NDArray[np.float64],
) -> list[tuple[int, int, int, float, float, int]]:
    ok = ~np.isnan(vals)
    if not ok.any():
        return []
    minute, node, sub, vals = minute[ok], node[ok], sub[ok], vals[ok]
    keys = np.stack([minute, node, sub], axis=1)
    uniq, inverse = np.unique(keys, axis=0, return_inverse=True)
    inverse = inverse.reshape(-1)
    counts = np.bincount(inverse, minlength=len(uniq))
    sums = np.bincount(inverse, weights=vals, minlength=len(uniq))
    maxes = np.full(len(uniq), -np.inf)
    np.maximum.at(maxes, inverse, vals)
    return [
        (int(m), int(n), int(s), float(total / c), float(mx), int(c))
        for (m, n, s), total, mx, c in zip(uniq, sums, maxes, counts, strict=True)
    ]


def gpu_rollup_rows(cluster_id: int, block: GpuSampleBlock) -> list[Row]:
    if not len(block):
        return []
    minute = (block.ts_ms // 60_000) * 60
    gpu = block.records["gpu"].astype(np.int64)
    rows: list[Row] = []
    for metric in GPU_METRICS:
        field, scale, _ = DISPLAY_FIELDS[metric]
        raw = block.records[field]
        vals = raw.astype(np.float64) * scale
        vals[raw == MISSING[field]] = np.nan
        for m, n, g, mean, mx, c in _reduce(minute, block.node_id, gpu, vals):
            rows.append((cluster_id, n, g, metric, m, mean, mx, c))
    return rows


def nic_rollup_rows(cluster_id: int, block: NicSampleBlock) -> list[Row]:
    if not len(block):
        return []
    minute = (block.ts_ms // 60_000) * 60
    nic = block.records["nic"].astype(np.int64)
    rows: list[Row] = []
    for metric, field in zip(NIC_METRICS, ("rx_bytes_s", "tx_bytes_s"), strict=True):
        vals = block.records[field].astype(np.float64)
        for m, n, g, mean, mx, c in _reduce(minute, block.node_id, nic, vals):
            rows.append((cluster_id, n, g, metric, m, mean, mx, c))
    return rows


class Rollups:
    """Rolls finished minutes of each cluster and trims what is past retention."""

    def __init__(self, store: Store, clock: Callable[[], float] = time.time) -> None:
        self._store = store
        self._tables = TelemetryTables(store)
        self._clock = clock
        self._lock = threading.Lock()
        self._next_minute: dict[int, int] = {}

    def _start(self, cluster_id: int) -> int | None:
        known = self._next_minute.get(cluster_id)
        if known is not None:
            return known
        last = self._tables.last_rollup_minute(cluster_id)
        if last is not None:
            return last + 60
        first_ms = self._tables.first_sample_ms(cluster_id)
        if first_ms is None:
            return None
        return first_ms // 60_000 * 60

    def roll(self, cluster_id: int, lag_s: float = 30.0, now: float | None = None) -> int:
        """Roll every minute of the cluster that ended at least ``lag_s`` ago; returns how
        many rows were written (and waits until they are)."""
        now = self._clock() if now is None else now
        until = int((now - lag_s) // 60 * 60)  # minutes starting before this are finished
        with self._lock:
            start = self._start(cluster_id)
            if start is None or start >= until:
                return 0
            gpu = self._store.gpu_samples(cluster_id, start * 1000, until * 1000)
            nic = self._store.nic_samples(cluster_id, start * 1000, until * 1000)
            rows = gpu_rollup_rows(cluster_id, gpu) + nic_rollup_rows(cluster_id, nic)
            if rows:
                self._tables.write_rollups(rows)
            self._next_minute[cluster_id] = until
            return len(rows)

    def apply_retention(
        self, raw_retention_hours: float, rollup_retention_days: float, now: float | None = None
    ) -> None:
        """Delete raw samples and rollups past their time (waits until done)."""
        now = self._clock() if now is None else now
        raw_cut_ms = int((now - raw_retention_hours * 3600) * 1000)
        rollup_cut = now - rollup_retention_days * 86400

        self._tables.trim(raw_cut_ms, rollup_cut)

    def query(
        self, cluster_id: int, metric: str, start_s: float, end_s: float
    ) -> list[dict[str, Any]]:
        """Rollup rows of one metric, oldest first."""
        return self._tables.rollups_of_metric(cluster_id, metric, start_s, end_s)
