"""Tuning's tables: fabric reports, NCCL settings with a reason per variable, nccl-tests runs.

Rows in and rows out; :mod:`xyclaw.tuning.records` turns them into tuning's types.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from xyclaw.store.connection import Database
from xyclaw.store.store import Store

#: The settings rows a caller can ask for, by name (no SQL text crosses the store's edge).
_SETTINGS_WHERE = {
    "by_id": "id = ?",
    "applied": "cluster_id = ? AND applied = 1",
    "latest": "cluster_id = ?",
}


class TuningTables:
    def __init__(self, store: Store) -> None:
        self._store = store

    def _write(self, fn: Any) -> int:
        new_id = self._store.writer.call(fn)
        assert new_id is not None
        return int(new_id)

    def insert_report(self, row: Sequence[Any]) -> int:
        """(cluster_id, probed_at, fabric, transport, nodes, gpus_per_node, nic_count,
        active_nic_count, nic_rate_gbps, roce_gid_index, findings_json, report_json)."""
        return self._write(
            lambda db: (
                db.conn.execute(
                    "INSERT INTO fabric_reports (cluster_id, probed_at, fabric, transport, nodes,"
                    " gpus_per_node, nic_count, active_nic_count, nic_rate_gbps, roce_gid_index,"
                    " findings_json, report_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    row,
                ).lastrowid
            )
        )

    def latest_report(self, cluster_id: int) -> dict[str, Any] | None:
        rows = self._store.query(
            "SELECT id, report_json FROM fabric_reports WHERE cluster_id = ?"
            " ORDER BY probed_at DESC, id DESC LIMIT 1",
            [cluster_id],
        )
        return rows[0] if rows else None

    def insert_settings(
        self, head: Sequence[Any], variables: Sequence[tuple[str, str, str]]
    ) -> int:
        """One settings version (cluster_id, report_id, created_at, source, applied, summary,
        notes_json, verdict_json) with its (name, value, reason) variables, in one transaction."""

        def write(db: Database) -> int | None:
            new_id = db.conn.execute(
                "INSERT INTO nccl_settings (cluster_id, report_id, created_at, source, applied,"
                " summary, notes_json, verdict_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                head,
            ).lastrowid
            db.conn.executemany(
                "INSERT INTO nccl_setting_vars (settings_id, name, value, reason)"
                " VALUES (?, ?, ?, ?)",
                [(new_id, *v) for v in variables],
            )
            return new_id

        return self._write(write)

    def settings(self, which: str, key: int) -> tuple[dict[str, Any], list[dict[str, Any]]] | None:
        """The newest settings row ``by_id``, ``applied`` or ``latest`` (of a cluster), with its
        variables sorted by name."""
        where = _SETTINGS_WHERE[which]
        rows = self._store.query(
            f"SELECT * FROM nccl_settings WHERE {where} ORDER BY id DESC LIMIT 1", [key]
        )
        if not rows:
            return None
        variables = self._store.query(
            "SELECT name, value, reason FROM nccl_setting_vars WHERE settings_id = ? ORDER BY name",
            [rows[0]["id"]],
        )
        return rows[0], variables

    def insert_run(self, row: Sequence[Any]) -> int:
        return self._write(
            lambda db: (
                db.conn.execute(
                    "INSERT INTO nccl_test_runs (cluster_id, report_id, ts, phase, command,"
                    " env_json, exit_code, error, collective, n_ranks, n_nodes, min_bytes,"
                    " max_bytes,"
                    " peak_busbw, avg_busbw, avg_busbw_recomputed, transport, socket_fallback,"
                    " truncated, duration_s, rows_json)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    row,
                ).lastrowid
            )
        )

    def runs(self, cluster_id: int, limit: int = 50) -> list[dict[str, Any]]:
        return self._store.query(
            "SELECT * FROM nccl_test_runs WHERE cluster_id = ? ORDER BY ts DESC, id DESC LIMIT ?",
            [cluster_id, limit],
        )

    def fabric_baseline(self, cluster_id: int) -> tuple[float, list[tuple[str, str]]] | None:
        """The peak bus bandwidth (GB/s) nccl-tests proved for the settings jobs on the
        cluster get (the applied ones, else the newest) and their variables (issue 34)."""
        found = self.settings("applied", cluster_id) or self.settings("latest", cluster_id)
        if found is None or not found[0]["verdict_json"]:
            return None
        try:
            peak = json.loads(found[0]["verdict_json"]).get("peak_busbw_gbs")
        except (ValueError, AttributeError):
            return None
        if not isinstance(peak, int | float) or peak <= 0:
            return None
        return float(peak), [(v["name"], v["value"]) for v in found[1]]
