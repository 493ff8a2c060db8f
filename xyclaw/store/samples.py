"""GPU samples packed as numpy records, stored as one row per node and span of time.

Packing keeps the database near 30 bytes per GPU sample, and reading an hour
of a cluster costs a few hundred rows instead of one row per GPU and second
(one row per sample is ~28 B too but reads ~15x slower; one row per node and
second reads 230,400 samples in ~60 ms here, one row per node and 10 s in
a few ms). Missing values ([N/A] on the node) are stored as the type's
maximum; the uncorrected-ECC count saturates at 65,534. The memory clock is
not stored: it moves only with pstate.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from xyclaw.errors import StoreError

GPU_SAMPLE_DTYPE = np.dtype(
    [
        ("gpu", "u1"),
        ("util", "u1"),
        ("mem_util", "u1"),
        ("temp_c", "u1"),
        ("fan", "u1"),
        ("pstate", "u1"),
        ("power_dw", "<u2"),
        ("power_limit_w", "<u2"),
        ("sm_mhz", "<u2"),
        ("mem_used_mib", "<u4"),
        ("mem_total_mib", "<u4"),
        ("throttle", "<u4"),
        ("ecc_uncorrected", "<u2"),
    ]
)

MISSING: dict[str, int] = {
    name: int(np.iinfo(GPU_SAMPLE_DTYPE[name]).max) for name in GPU_SAMPLE_DTYPE.names or ()
}

#: The longest span one stored row may cover; readers widen their search by it.
MAX_SPAN_MS = 120_000

GpuRecords = npt.NDArray[Any]


@dataclass(frozen=True)
class SampleBlock:
    """Samples read back: ``records[i]`` was taken at ``ts_ms[i]`` on ``node_id[i]``."""

    ts_ms: npt.NDArray[np.int64]
    node_id: npt.NDArray[np.int64]
    records: npt.NDArray[Any]

    def __len__(self) -> int:
        return int(self.records.shape[0])


GpuSampleBlock = SampleBlock


@dataclass(frozen=True)
class SampleChunk:
    """One stored row: a node's samples from ``start_ms`` to ``end_ms`` inclusive."""

    node_id: int
    start_ms: int
    end_ms: int
    instants: int
    times: bytes
    counts: bytes
    data: bytes


def empty_gpu_records(count: int) -> GpuRecords:
    """Records with every field missing, to be filled from a parsed sample."""
    records = np.zeros(count, dtype=GPU_SAMPLE_DTYPE)
    for name, value in MISSING.items():
        records[name] = value
    return records


def make_chunks(
    node_id: int,
    items: Sequence[tuple[int, npt.NDArray[Any]]],
    dtype: np.dtype[Any] = GPU_SAMPLE_DTYPE,
) -> list[SampleChunk]:
    """A node's (ts_ms, records) in time order, cut into rows of at most MAX_SPAN_MS."""
    chunks: list[SampleChunk] = []
    start = 0
    while start < len(items):
        first_ts = items[start][0]
        end = start
        while end < len(items) and items[end][0] - first_ts < MAX_SPAN_MS:
            if end > start and items[end][0] < items[end - 1][0]:
                raise StoreError("samples of one node must be given in time order")
            end += 1
        part = items[start:end]
        offsets = np.fromiter((ts - first_ts for ts, _ in part), dtype="<u4", count=len(part))
        counts = np.fromiter((len(rec) for _, rec in part), dtype="u1", count=len(part))
        data = b"".join(np.ascontiguousarray(rec, dtype=dtype).tobytes() for _, rec in part)
        chunks.append(
            SampleChunk(
                node_id,
                first_ts,
                part[-1][0],
                len(part),
                offsets.tobytes(),
                counts.tobytes(),
                data,
            )
        )
        start = end
    return chunks


def unpack_chunks(
    rows: Sequence[tuple[int, int, int, bytes, bytes, bytes]],
    start_ms: int,
    end_ms: int,
    dtype: np.dtype[Any] = GPU_SAMPLE_DTYPE,
) -> SampleBlock:
    """Rows of (start_ms, node_id, instants, times, counts, data), cut to [start_ms, end_ms)."""
    if not rows:
        return SampleBlock(np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, dtype))
    starts, nodes, instants, times, counts, data = zip(*rows, strict=True)
    n_instants = np.asarray(instants, dtype=np.int64)
    offsets = np.frombuffer(b"".join(times), dtype="<u4").astype(np.int64)
    per_instant = np.frombuffer(b"".join(counts), dtype="u1").astype(np.int64)
    instant_ts = np.repeat(np.asarray(starts, dtype=np.int64), n_instants) + offsets
    instant_node = np.repeat(np.asarray(nodes, dtype=np.int64), n_instants)
    records = np.frombuffer(b"".join(data), dtype=dtype)
    ts = np.repeat(instant_ts, per_instant)
    node = np.repeat(instant_node, per_instant)
    keep = (ts >= start_ms) & (ts < end_ms)
    if not keep.all():
        ts, node, records = ts[keep], node[keep], records[keep]
    return SampleBlock(ts, node, records)


# --- NIC samples ------------------------------------------------------------------
# Same row layout as the GPU samples (one row per node and span of time), with
# one record per interface or InfiniBand port at each instant: its receive and
# transmit rates in bytes per second over the interval that ended then. Rates
# are stored rather than counters so a reader never has to know about wraps or
# resets; a rate that could not be worked out (the first reading, a counter
# reset) is NaN.

NIC_SAMPLE_DTYPE = np.dtype(
    [
        ("nic", "u1"),
        ("rx_bytes_s", "<f4"),
        ("tx_bytes_s", "<f4"),
    ]
)

NicRecords = npt.NDArray[Any]


NicSampleBlock = SampleBlock


def empty_nic_records(count: int) -> NicRecords:
    """Records with NaN rates, to be filled from measured rates."""
    records = np.zeros(count, dtype=NIC_SAMPLE_DTYPE)
    records["rx_bytes_s"] = np.nan
    records["tx_bytes_s"] = np.nan
    return records


# --- DCGM profiling samples (issue 34) ---------------------------------------------
# Same row layout again, one record per GPU at each reading: DCGM's SM active,
# tensor pipe active and DRAM active ratios in thousandths (0..1000), the
# type's maximum where the node gave no value. Read every few seconds, only on
# nodes that have dcgmi or a DCGM exporter.

DCGM_SAMPLE_DTYPE = np.dtype(
    [
        ("gpu", "u1"),
        ("sm_active", "<u2"),
        ("tensor_active", "<u2"),
        ("dram_active", "<u2"),
    ]
)
DCGM_MISSING = 0xFFFF
DCGM_FIELDS = ("sm_active", "tensor_active", "dram_active")

DcgmRecords = npt.NDArray[Any]


def empty_dcgm_records(count: int) -> DcgmRecords:
    """Records with every ratio missing."""
    records = np.zeros(count, dtype=DCGM_SAMPLE_DTYPE)
    records["gpu"] = np.arange(count, dtype=np.uint8)
    for name in DCGM_FIELDS:
        records[name] = DCGM_MISSING
    return records


def dcgm_ratios(records: DcgmRecords, field: str) -> npt.NDArray[np.float64]:
    """One field as ratios 0..1, NaN where missing."""
    raw = np.asarray(records[field])
    return np.where(raw == DCGM_MISSING, np.nan, raw / 1000.0)
