"""Telemetry's tables besides the sample chunks: minute rollups, gaps, retention."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from xyclaw.store.connection import Database
from xyclaw.store.store import Store


class TelemetryTables:
    def __init__(self, store: Store) -> None:
        self._store = store

    # -- rollups -------------------------------------------------------------------------
    def last_rollup_minute(self, cluster_id: int) -> int | None:
        row = self._store.query(
            "SELECT max(minute_ts) AS m FROM metric_rollups WHERE cluster_id = ?", [cluster_id]
        )[0]
        return None if row["m"] is None else int(row["m"])

    def first_sample_ms(self, cluster_id: int) -> int | None:
        row = self._store.query(
            "SELECT min(start_ms) AS s FROM gpu_samples WHERE cluster_id = ?", [cluster_id]
        )[0]
        return None if row["s"] is None else int(row["s"])

    def write_rollups(self, rows: Sequence[Sequence[Any]]) -> None:
        """(cluster_id, node_id, gpu, metric, minute_ts, mean, max, samples) rows; waits."""
        self._store.writer.call(
            lambda db: db.conn.executemany(
                "INSERT OR REPLACE INTO metric_rollups (cluster_id, node_id, gpu, metric,"
                " minute_ts, mean, max, samples) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                rows,
            )
        )

    def rollups_of_metric(
        self, cluster_id: int, metric: str, start_s: float, end_s: float
    ) -> list[dict[str, Any]]:
        """Rollup rows of one metric, oldest first."""
        return self._store.query(
            "SELECT node_id, gpu, minute_ts, mean, max, samples FROM metric_rollups"
            " WHERE cluster_id = ? AND metric = ? AND minute_ts >= ? AND minute_ts < ?"
            " ORDER BY minute_ts, node_id, gpu",
            [cluster_id, metric, int(start_s), int(end_s)],
        )

    def rollups(self, cluster_id: int, start_s: float, end_s: float) -> list[dict[str, Any]]:
        """Every metric's rollup rows of whole minutes in the window, oldest first."""
        return self._store.query(
            "SELECT node_id, gpu, metric, minute_ts, mean, max, samples FROM metric_rollups"
            " WHERE cluster_id = ? AND minute_ts >= ? AND minute_ts < ?"
            " ORDER BY minute_ts, node_id, gpu, metric",
            [cluster_id, int(start_s // 60 * 60), int(end_s)],
        )

    def trim(self, raw_cut_ms: int, rollup_cut_s: float) -> None:
        """Delete raw samples older than ``raw_cut_ms`` and rollups and closed gaps older than
        ``rollup_cut_s`` (waits until done)."""

        def run(db: Database) -> None:
            db.conn.execute("DELETE FROM gpu_samples WHERE end_ms < ?", (raw_cut_ms,))
            db.conn.execute("DELETE FROM nic_samples WHERE end_ms < ?", (raw_cut_ms,))
            db.conn.execute("DELETE FROM dcgm_samples WHERE end_ms < ?", (raw_cut_ms,))
            db.conn.execute("DELETE FROM metric_rollups WHERE minute_ts < ?", (int(rollup_cut_s),))
            db.conn.execute(
                "DELETE FROM telemetry_gaps WHERE end_ts IS NOT NULL AND end_ts < ?",
                (rollup_cut_s,),
            )

        self._store.writer.call(run)

    # -- gaps ----------------------------------------------------------------------------
    def open_gap(self, cluster_id: int, node_id: int, start_ts: float, reason: str) -> None:
        """A node stopped sending (posted, not waited for: the collector must not block)."""
        row = (cluster_id, node_id, start_ts, reason)
        self._store.writer.post(
            lambda db: db.conn.execute(
                "INSERT INTO telemetry_gaps (cluster_id, node_id, start_ts, end_ts, reason)"
                " VALUES (?, ?, ?, NULL, ?)",
                row,
            )
        )

    def close_gap(self, cluster_id: int, node_id: int, end_ts: float) -> None:
        key = (end_ts, cluster_id, node_id)
        self._store.writer.post(
            lambda db: db.conn.execute(
                "UPDATE telemetry_gaps SET end_ts = ? WHERE cluster_id = ? AND node_id = ?"
                " AND end_ts IS NULL",
                key,
            )
        )

    def gaps(self, cluster_id: int) -> list[dict[str, Any]]:
        return self._store.query(
            "SELECT node_id, start_ts, end_ts, reason FROM telemetry_gaps WHERE cluster_id = ?"
            " ORDER BY start_ts",
            [cluster_id],
        )

    # -- nodes -----------------------------------------------------------------------------
    def node_names(self, cluster_id: int) -> dict[int, str]:
        rows = self._store.query(
            "SELECT id, rank, hostname FROM nodes WHERE cluster_id = ?", [cluster_id]
        )
        return {int(r["id"]): r["hostname"] or f"node-{r['rank']}" for r in rows}
