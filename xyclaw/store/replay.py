"""Reading the history for reviewing past work: every cluster and job, a job's samples,
rollups, events, tuning, charges and model usage, as named queries.

Nothing here writes or asks a provider: the History page works on a train with no
network. :class:`ReadOnlyStore` opens the database file for reading only (no writer
thread, no migration), so a review can never change what it reviews.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from itertools import pairwise
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from xyclaw.errors import StoreError, StoreVersionError
from xyclaw.store.database import inspect_version
from xyclaw.store.migrations import LATEST_VERSION
from xyclaw.store.samples import (
    DCGM_SAMPLE_DTYPE,
    GPU_SAMPLE_DTYPE,
    MAX_SPAN_MS,
    NIC_SAMPLE_DTYPE,
    SampleBlock,
    unpack_chunks,
)
from xyclaw.store.store import Store, stored_columns
from xyclaw.store.writer import StoreWriter
from xyclaw.wording import said


class ReadOnlyStore(Store):
    """The history database opened for reading only: queries and sample readers work as on
    a :class:`Store`; anything that would write raises :class:`StoreError`."""

    def __init__(self, path: Path) -> None:  # no super().__init__: that opens the writer
        path = Path(path)
        if not path.exists():
            raise StoreError(
                said("error.replay.no_database", path=str(path)),
                hint=said("error.replay.no_database_hint"),
            )
        version = inspect_version(path)
        if version > LATEST_VERSION:
            raise StoreVersionError(
                said("error.replay.newer", path=str(path), version=version, latest=LATEST_VERSION),
                hint=said("error.replay.newer_hint"),
            )
        self.path = path
        self.schema_version = version
        self._local = threading.local()
        self._readers = []
        self._readers_lock = threading.Lock()
        self._closed = False

    @property
    def writer(self) -> StoreWriter:
        raise StoreError(said("error.replay.read_only"), hint=said("error.replay.nothing_changed"))

    @writer.setter
    def writer(self, value: StoreWriter) -> None:
        raise StoreError(said("error.replay.read_only"))

    def close(self) -> None:
        self._close_readers()


# -- lists ------------------------------------------------------------------------------------

_CLUSTERS = (
    "SELECT c.id, c.name, c.provider_id AS provider, c.state, c.gpu, c.gpu_count,"
    " c.gpus_per_node, c.fabric, c.region, c.currency, c.price_per_gpu_hour_micros,"
    " c.budget_micros, c.image, c.created_at, c.ready_at, c.release_requested_at,"
    " c.released_at, c.last_seen_at, c.error,"
    " (SELECT coalesce(sum(amount_micros), 0) FROM charges"
    "  WHERE cluster_id = c.id AND source = 'meter') AS cost_micros,"
    " (SELECT count(*) FROM nodes WHERE cluster_id = c.id) AS node_count,"
    " (SELECT count(*) FROM jobs WHERE cluster_id = c.id) AS job_count"
    " FROM clusters c"
)

# A job's cost: each attempt's run time on each of its nodes at that node's cluster's price,
# as the Jobs page counts it (xyclaw/jobs/cost.py), so both pages show the same figure
# (issue 28: 0.17 on Jobs, 0.16 here when this was the share of the meter's charges).
_JOBS = (
    "SELECT j.id, j.name, j.kind, j.state, j.cluster_id, c.name AS cluster,"
    " c.provider_id AS provider, c.gpu, c.gpu_count, c.gpus_per_node, c.fabric, c.region,"
    " c.currency, c.price_per_gpu_hour_micros, j.created_at, j.started_at, j.ended_at,"
    " j.exit_code, j.attempt, j.cause, j.error, j.error_said_json, j.progress_json,"
    " j.log_lines, j.log_cut_lines,"
    " j.spec_json, j.service_url,"
    " (SELECT coalesce(sum(round(nc.price_per_gpu_hour_micros * nc.gpus_per_node"
    "   * max(0.0, coalesce(a.ended_at, (julianday('now') - 2440587.5) * 86400.0)"
    "   - a.started_at) / 3600.0)), 0)"
    "   FROM job_attempts a, json_each(a.nodes_json) n"
    "   JOIN clusters nc ON nc.id = json_extract(n.value, '$.cluster_id')"
    "   WHERE a.job_id = j.id AND a.started_at IS NOT NULL) AS cost_micros,"
    " (SELECT count(*) FROM job_metrics m WHERE m.job_id = j.id) AS metric_points,"
    " (SELECT m.loss FROM job_metrics m WHERE m.job_id = j.id AND m.loss IS NOT NULL"
    "   ORDER BY m.ts DESC LIMIT 1) AS final_loss,"
    " (SELECT max(m.step) FROM job_metrics m WHERE m.job_id = j.id) AS last_step,"
    " (SELECT max(m.total_steps) FROM job_metrics m WHERE m.job_id = j.id) AS total_steps,"
    " (SELECT avg(m.tokens_per_s) FROM job_metrics m WHERE m.job_id = j.id) AS tokens_per_s"
    " FROM jobs j LEFT JOIN clusters c ON c.id = j.cluster_id"
)


def past_clusters(store: Store, limit: int = 10_000) -> list[dict[str, Any]]:
    """Every cluster, newest first, with what the meter charged it and its node and job
    counts."""
    return store.query(_CLUSTERS + " ORDER BY c.created_at DESC, c.id DESC LIMIT ?", [limit])


def past_cluster(store: Store, cluster_id: int) -> dict[str, Any] | None:
    rows = store.query(_CLUSTERS + " WHERE c.id = ?", [cluster_id])
    return rows[0] if rows else None


def past_jobs(store: Store, limit: int = 10_000) -> list[dict[str, Any]]:
    """Every job, newest first, with its cluster's shape, its share of the cluster's cost and
    a summary of its metrics (final loss, last step, mean tokens/s)."""
    return store.query(_JOBS + " ORDER BY j.created_at DESC, j.id DESC LIMIT ?", [limit])


def past_job(store: Store, job_id: int) -> dict[str, Any] | None:
    rows = store.query(_JOBS + " WHERE j.id = ?", [job_id])
    return rows[0] if rows else None


# -- what happened ------------------------------------------------------------------------------


def cluster_nodes(store: Store, cluster_id: int) -> list[dict[str, Any]]:
    """The nodes of a cluster in rank order (without their host keys)."""
    return store.query(
        "SELECT id, rank, hostname, external_id, ssh_host, ssh_port, state, error, created_at,"
        " running_at, terminated_at FROM nodes WHERE cluster_id = ? ORDER BY rank",
        [cluster_id],
    )


def cluster_events(
    store: Store, cluster_id: int, start: float = 0.0, end: float = 1e18
) -> list[dict[str, Any]]:
    """Events of a cluster (alerts, budget, lifecycle, failover, ...) in time order."""
    return store.query(
        "SELECT id, ts, kind, severity, cluster_id, node_id, job_id, rule, message, data_json,"
        " cleared_at FROM events WHERE cluster_id = ? AND ts >= ? AND ts <= ? ORDER BY ts, id",
        [cluster_id, start, end],
    )


def job_events(store: Store, job_id: int) -> list[dict[str, Any]]:
    """Events that name the job, in time order."""
    return store.query(
        "SELECT id, ts, kind, severity, cluster_id, node_id, job_id, rule, message, data_json,"
        " cleared_at FROM events WHERE job_id = ? ORDER BY ts, id",
        [job_id],
    )


def fabric_reports(store: Store, cluster_id: int) -> list[dict[str, Any]]:
    return store.query(
        "SELECT id, probed_at, fabric, transport, nodes, gpus_per_node, nic_count,"
        " active_nic_count, nic_rate_gbps, roce_gid_index, findings_json FROM fabric_reports"
        " WHERE cluster_id = ? ORDER BY probed_at, id",
        [cluster_id],
    )


def nccl_settings_history(store: Store, cluster_id: int) -> list[dict[str, Any]]:
    """Every NCCL settings version of a cluster, oldest first, each with ``vars``: its
    (name, value, reason) rows."""
    heads = store.query(
        "SELECT id, created_at, source, applied, summary, notes_json, verdict_json"
        " FROM nccl_settings WHERE cluster_id = ? ORDER BY created_at, id",
        [cluster_id],
    )
    if not heads:
        return heads
    marks = ",".join("?" * len(heads))
    variables = store.query(
        "SELECT settings_id, name, value, reason FROM nccl_setting_vars"
        f" WHERE settings_id IN ({marks}) ORDER BY settings_id, name",
        [h["id"] for h in heads],
    )
    by_id: dict[int, list[dict[str, Any]]] = {}
    for v in variables:
        by_id.setdefault(int(v["settings_id"]), []).append(
            {"name": v["name"], "value": v["value"], "reason": v["reason"]}
        )
    return [{**h, "vars": by_id.get(int(h["id"]), [])} for h in heads]


def nccl_test_runs(store: Store, cluster_id: int) -> list[dict[str, Any]]:
    """nccl-tests runs of a cluster, oldest first (figures only, not every message size)."""
    return store.query(
        "SELECT id, ts, phase, collective, n_ranks, n_nodes, min_bytes, max_bytes, peak_busbw,"
        " avg_busbw, transport, socket_fallback, exit_code, error, duration_s, env_json"
        " FROM nccl_test_runs WHERE cluster_id = ? ORDER BY ts, id",
        [cluster_id],
    )


def meter_charges(
    store: Store, cluster_id: int, start: float = 0.0, end: float = 1e18
) -> list[dict[str, Any]]:
    """The meter's charges of a cluster that overlap [start, end], oldest first."""
    return store.query(
        "SELECT start_ts, end_ts, amount_micros, currency FROM charges"
        " WHERE cluster_id = ? AND source = 'meter' AND end_ts >= ? AND start_ts <= ?"
        " ORDER BY end_ts, id",
        [cluster_id, start, end],
    )


def model_usage_for_cluster(
    store: Store, cluster_name: str, start: float, end: float
) -> list[dict[str, Any]]:
    """Model tokens and cost of the conversations whose tool calls named the cluster, counted
    over [start, end]: what the agents spent on it. One row per currency."""
    needle = f'%"{cluster_name}"%'
    return store.query(
        "SELECT c.currency AS currency, coalesce(sum(m.tokens_in), 0) AS tokens_in,"
        " coalesce(sum(m.tokens_out), 0) AS tokens_out,"
        " coalesce(sum(m.cost_micros), 0) AS cost_micros,"
        " count(DISTINCT c.id) AS conversations FROM messages m"
        " JOIN conversations c ON c.id = m.conversation_id"
        " WHERE m.ts >= ? AND m.ts <= ? AND m.conversation_id IN"
        " (SELECT DISTINCT conversation_id FROM tool_calls WHERE args_json LIKE ?)"
        " GROUP BY c.currency ORDER BY c.currency",
        [start, end, needle],
    )


# -- samples ------------------------------------------------------------------------------------


def _by_node(
    store: Store,
    table: str,
    dtype: np.dtype[Any],
    cluster_id: int,
    start_ms: int,
    end_ms: int,
) -> dict[int, SampleBlock]:
    with store.reading() as db:
        rows = db.conn.execute(
            f"SELECT {stored_columns(table)} FROM {table}"
            " WHERE cluster_id = ? AND start_ms > ? AND start_ms < ?"
            " ORDER BY start_ms, node_id",  # each node's rows in time order
            [cluster_id, start_ms - MAX_SPAN_MS, end_ms],
        ).fetchall()
    block = unpack_chunks(rows, start_ms, end_ms, dtype, by_node=True)
    return {node: _in_time_order(part) for node, part in _node_parts(block).items()}


def _node_parts(block: SampleBlock) -> dict[int, SampleBlock]:
    """A block read node by node (``unpack_chunks(..., by_node=True)``), as views of each
    node's samples."""
    node = block.node_id
    bounds = [0, *(np.flatnonzero(node[1:] != node[:-1]) + 1).tolist(), node.shape[0]]
    return {
        int(node[a]): SampleBlock(block.ts_ms[a:b], node[a:b], block.records[a:b])
        for a, b in pairwise(bounds)
        if b > a
    }


def _in_time_order(block: SampleBlock) -> SampleBlock:
    """Chunks of one node can overlap in time (a collector that reconnects writes its backlog
    beside the newer chunk), so rows in start order are not always samples in time order;
    readers (the replay's buckets, searchsorted) need them sorted."""
    ts = block.ts_ms
    if ts.shape[0] < 2 or bool((ts[1:] >= ts[:-1]).all()):
        return block
    order = np.argsort(ts, kind="stable")
    return SampleBlock(ts[order], block.node_id[order], block.records[order])


def gpu_samples_by_node(
    store: Store, cluster_id: int, start_ms: int, end_ms: int
) -> dict[int, SampleBlock]:
    """A cluster's GPU samples in [start_ms, end_ms), node by node, each in time order (one
    query and one unpack per node: no sorting of the whole cluster's samples)."""
    return _by_node(store, "gpu_samples", GPU_SAMPLE_DTYPE, cluster_id, start_ms, end_ms)


def dcgm_samples_by_node(
    store: Store, cluster_id: int, start_ms: int, end_ms: int
) -> dict[int, SampleBlock]:
    """A cluster's DCGM profiling ratios in [start_ms, end_ms), node by node (issue 34);
    nodes without DCGM are absent."""
    return _by_node(store, "dcgm_samples", DCGM_SAMPLE_DTYPE, cluster_id, start_ms, end_ms)


def nic_samples_by_node(
    store: Store, cluster_id: int, start_ms: int, end_ms: int
) -> dict[int, SampleBlock]:
    """A cluster's NIC rates in [start_ms, end_ms), node by node, each in time order."""
    return _by_node(store, "nic_samples", NIC_SAMPLE_DTYPE, cluster_id, start_ms, end_ms)


def sample_span_ms(store: Store, cluster_id: int) -> tuple[int, int] | None:
    """The first and last instant of raw GPU samples kept for a cluster (None: none kept)."""
    row = store.query(
        "SELECT min(start_ms) AS first, max(end_ms) AS last FROM gpu_samples WHERE cluster_id = ?",
        [cluster_id],
    )[0]
    if row["first"] is None:
        return None
    return int(row["first"]), int(row["last"])


ROLLUP_DTYPE = np.dtype(
    [("node_id", "<i8"), ("gpu", "<i4"), ("minute_ts", "<i8"), ("mean", "<f8"), ("max", "<f8")]
)


def rollup_arrays(
    store: Store, cluster_id: int, metrics: Sequence[str], start_s: float, end_s: float
) -> dict[str, npt.NDArray[Any]]:
    """One-minute rollups of the metrics in the window, one record array per metric
    (node_id, gpu, minute_ts, mean, max), oldest first: what a replay shows once the raw
    samples are past their retention."""
    out: dict[str, npt.NDArray[Any]] = {}
    for metric in metrics:
        with store.reading() as db:
            rows = db.conn.execute(
                "SELECT node_id, gpu, minute_ts, mean, max FROM metric_rollups"
                " WHERE cluster_id = ? AND metric = ? AND minute_ts >= ? AND minute_ts < ?"
                " ORDER BY node_id, minute_ts, gpu",
                [cluster_id, metric, int(start_s // 60 * 60), int(end_s)],
            ).fetchall()
        out[metric] = np.array(rows, dtype=ROLLUP_DTYPE) if rows else np.zeros(0, ROLLUP_DTYPE)
    return out


def telemetry_gaps(store: Store, cluster_id: int) -> list[dict[str, Any]]:
    return store.query(
        "SELECT node_id, start_ts, end_ts, reason FROM telemetry_gaps WHERE cluster_id = ?"
        " ORDER BY start_ts",
        [cluster_id],
    )
