"""The live window: the last N minutes of every node at full rate, in ring buffers.

Views read these at their own pace (a chart at its frame rate, ``xyclaw top``
once a second, the alert rules on each tick); nothing is pushed per sample.
Each node has a ring of instant times and a ring of GPU records shaped
``(instants, gpus)``, so one field of one node (``records["util"]``) is a
zero-copy 2-D series; NIC rates have their own pair of rings.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from xyclaw.store.samples import (
    DCGM_SAMPLE_DTYPE,
    GPU_SAMPLE_DTYPE,
    DcgmRecords,
    GpuRecords,
    empty_dcgm_records,
)
from xyclaw.telemetry.pack import empty_slots
from xyclaw.telemetry.ring import Ring

I64 = npt.NDArray[np.int64]


@dataclass(frozen=True)
class GpuWindow:
    """``records[i, g]`` is GPU slot ``g`` at ``ts_ms[i]``; views, not copies."""

    ts_ms: I64
    records: GpuRecords

    def __len__(self) -> int:
        return int(self.ts_ms.shape[0])


@dataclass(frozen=True)
class NicWindow:
    """``rates[i, n, 0]`` is receive and ``rates[i, n, 1]`` transmit of ``names[n]``, bytes/s."""

    ts_ms: I64
    rates: npt.NDArray[np.float32]
    names: tuple[str, ...]

    def __len__(self) -> int:
        return int(self.ts_ms.shape[0])

    def totals(self) -> npt.NDArray[np.float64]:
        """Bytes per second in and out over every interface, per instant (NaN counts as 0)."""
        if not len(self):
            return np.zeros(0)
        return np.asarray(np.nansum(self.rates, axis=(1, 2)), dtype=np.float64)


class NodeLive:
    """One node's live window; all methods are thread-safe."""

    MAX_NICS = 32

    def __init__(self, node_id: int, name: str, gpus: int, capacity: int) -> None:
        self.node_id = node_id
        self.name = name
        self.capacity = capacity
        self._lock = threading.Lock()
        self._gpu_ts = Ring(capacity, np.int64)
        self._gpu = Ring(capacity, GPU_SAMPLE_DTYPE, (gpus,))
        self._nic_ts = Ring(capacity, np.int64)
        self._nic = Ring(capacity, np.float32, (1, 2))  # sized by the first reading
        self._nic_names: tuple[str, ...] = ()
        # DCGM's profiling ratios (issue 34), read every few seconds where the node has DCGM
        self._dcgm_ts = Ring(capacity, np.int64)
        self._dcgm = Ring(capacity, DCGM_SAMPLE_DTYPE, (gpus,))

    @property
    def gpus(self) -> int:
        return int(self._gpu.view(0).shape[1])

    # -- writing -----------------------------------------------------------------------
    def add_gpu(self, ts_ms: int, records: GpuRecords) -> None:
        with self._lock:
            width = self.gpus
            if records.shape[0] > width:
                self._widen(records.shape[0])
                width = records.shape[0]
            if records.shape[0] < width:
                padded = empty_slots(width)
                padded[: records.shape[0]] = records
                records = padded
            self._gpu_ts.append(ts_ms)
            self._gpu.append(records)

    def _widen(self, width: int) -> None:
        old_ts, old = self._gpu_ts.view(), self._gpu.view()
        ts = Ring(self.capacity, np.int64)
        ring = Ring(self.capacity, GPU_SAMPLE_DTYPE, (width,))
        for i in range(len(old_ts)):
            row = empty_slots(width)
            row[: old.shape[1]] = old[i]
            ts.append(old_ts[i])
            ring.append(row)
        self._gpu_ts, self._gpu = ts, ring

    def add_nic(self, ts_ms: int, names: Sequence[str], rx: Any, tx: Any) -> None:
        n = min(len(names), self.MAX_NICS)
        with self._lock:
            width = int(self._nic.view(0).shape[1])
            if n > width or not len(self._nic_ts):
                self._widen_nic(max(n, width if len(self._nic_ts) else 1))
                width = int(self._nic.view(0).shape[1])
            row = np.full((width, 2), np.nan, dtype=np.float32)
            row[:n, 0] = np.asarray(rx, dtype=np.float32)[:n]
            row[:n, 1] = np.asarray(tx, dtype=np.float32)[:n]
            self._nic_names = tuple(names[:n])
            self._nic_ts.append(ts_ms)
            self._nic.append(row)

    def _widen_nic(self, width: int) -> None:
        old = self._nic.view()
        ring = Ring(self.capacity, np.float32, (width, 2))
        for i in range(old.shape[0]):
            row = np.full((width, 2), np.nan, dtype=np.float32)
            row[: old.shape[1]] = old[i]
            ring.append(row)
        self._nic = ring

    def add_dcgm(self, ts_ms: int, records: DcgmRecords) -> None:
        """One DCGM reading, one record per GPU slot (slots past the node's width dropped)."""
        with self._lock:
            width = int(self._dcgm.view(0).shape[1])
            row = empty_dcgm_records(width)
            n = min(width, int(records.shape[0]))
            row[:n] = records[:n]
            self._dcgm_ts.append(ts_ms)
            self._dcgm.append(row)

    # -- reading -----------------------------------------------------------------------
    def dcgm_window(
        self, last: int | None = None, since_ms: int | None = None
    ) -> tuple[I64, DcgmRecords]:
        """DCGM readings: ``(ts_ms, records[reading, gpu])``, views; empty without DCGM."""
        with self._lock:
            ts = self._dcgm_ts.view(last)
            records = self._dcgm.view(last)
        if since_ms is not None and len(ts):
            cut = int(np.searchsorted(ts, since_ms, side="left"))
            ts, records = ts[cut:], records[cut:]
        return ts, records

    def gpu_window(self, last: int | None = None, since_ms: int | None = None) -> GpuWindow:
        """The newest ``last`` instants, or those at or after ``since_ms``."""
        with self._lock:
            ts = self._gpu_ts.view(last)
            records = self._gpu.view(last)
        if since_ms is not None and len(ts):
            cut = int(np.searchsorted(ts, since_ms, side="left"))
            ts, records = ts[cut:], records[cut:]
        return GpuWindow(ts, records)

    def nic_window(self, last: int | None = None, since_ms: int | None = None) -> NicWindow:
        with self._lock:
            ts = self._nic_ts.view(last)
            rates = self._nic.view(last)
            names = self._nic_names
        if since_ms is not None and len(ts):
            cut = int(np.searchsorted(ts, since_ms, side="left"))
            ts, rates = ts[cut:], rates[cut:]
        return NicWindow(ts, rates[:, : len(names)], names)

    def views(
        self, last: int | None = None
    ) -> tuple[I64, GpuRecords, I64, npt.NDArray[np.float32], int]:
        """What a chart pulls at each frame, under one lock: the newest ``last`` instants'
        times and GPU records, the newest ``last`` NIC readings' times and rates (of the
        named interfaces), and the instants ever added."""
        with self._lock:
            ts = self._gpu_ts.view(last)
            records = self._gpu.view(last)
            nic_ts = self._nic_ts.view(last)
            rates = self._nic.view(last)
            named = len(self._nic_names)
            instants = self._gpu_ts.appended
        return ts, records, nic_ts, rates[:, :named], instants

    def series(self, field: str, last: int | None = None) -> tuple[I64, npt.NDArray[Any]]:
        """One record field of every GPU: ``(ts_ms, values[instant, gpu])``, both views."""
        window = self.gpu_window(last)
        return window.ts_ms, window.records[field]

    def latest(self) -> tuple[int, GpuRecords] | None:
        with self._lock:
            if not len(self._gpu_ts):
                return None
            ts = self._gpu_ts.latest()
            rec = self._gpu.latest()
            assert ts is not None and rec is not None
            return int(ts), rec.copy()

    @property
    def instants(self) -> int:
        """Instants ever added (new data since a reader's last look: compare with this)."""
        return self._gpu_ts.appended


class LiveBuffers:
    """Every watched node's live window, by (cluster id, node id)."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self._lock = threading.Lock()
        self._nodes: dict[tuple[int, int], NodeLive] = {}

    def node(self, cluster_id: int, node_id: int, name: str = "", gpus: int = 8) -> NodeLive:
        """The node's window, made on first use."""
        key = (cluster_id, node_id)
        with self._lock:
            live = self._nodes.get(key)
            if live is None:
                live = NodeLive(node_id, name or f"node-{node_id}", gpus, self.capacity)
                self._nodes[key] = live
            return live

    def get(self, cluster_id: int, node_id: int) -> NodeLive | None:
        with self._lock:
            return self._nodes.get((cluster_id, node_id))

    def nodes(self, cluster_id: int) -> list[NodeLive]:
        with self._lock:
            return [live for (cid, _), live in self._nodes.items() if cid == cluster_id]

    def drop_node(self, cluster_id: int, node_id: int) -> None:
        with self._lock:
            self._nodes.pop((cluster_id, node_id), None)

    def drop(self, cluster_id: int) -> None:
        with self._lock:
            for key in [k for k in self._nodes if k[0] == cluster_id]:
                del self._nodes[key]
