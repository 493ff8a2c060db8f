"""The tuning tables of the store: fabric reports, NCCL settings (with reasons), test runs."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import sqlite_utils

from xyclaw.parsers.nccltests import NcclTestRun, rows_table
from xyclaw.store import Store
from xyclaw.tuning.fabric import FabricReport
from xyclaw.tuning.settings import NcclSetting, NcclSettings

RECOMMENDED = "recommended"  # derived from a probe, not measured yet
TUNED = "tuned"  # measured better than what ran before, kept by `tune`
KEPT = "kept"  # `tune` left the cluster as it was
USER = "user"  # set by hand


@dataclass(frozen=True)
class StoredSettings:
    id: int
    cluster_id: int
    report_id: int | None
    created_at: float
    source: str
    applied: bool
    summary: str
    settings: NcclSettings
    verdict: dict[str, Any] | None

    def env(self) -> dict[str, str]:
        return self.settings.env()

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "cluster_id": self.cluster_id,
            "report_id": self.report_id,
            "created_at": self.created_at,
            "source": self.source,
            "applied": self.applied,
            "summary": self.summary,
            **self.settings.to_json(),
            "verdict": self.verdict,
        }


class TuningRecords:
    """Writes go through the store's one writer; reads use this thread's connection."""

    def __init__(self, store: Store, clock: Callable[[], float]) -> None:
        self.store = store
        self.clock = clock

    def _write(self, fn: Callable[[sqlite_utils.Database], int | None]) -> int:
        new_id = self.store.writer.call(fn)
        assert new_id is not None
        return new_id

    # -- fabric reports --------------------------------------------------------------------
    def add_report(self, report: FabricReport) -> int:
        s = report.summary
        row = (
            report.cluster_id,
            report.probed_at,
            report.fabric,
            s.transport,
            report.node_count,
            s.gpus_per_node,
            s.nic_count,
            s.active_nic_count,
            s.nic_rate_gbps,
            s.roce_gid_index,
            json.dumps(list(s.findings)),
            json.dumps(report.to_json()),
        )
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

    def latest_report(self, cluster_id: int) -> FabricReport | None:
        rows = self.store.query(
            "SELECT id, report_json FROM fabric_reports WHERE cluster_id = ?"
            " ORDER BY probed_at DESC, id DESC LIMIT 1",
            [cluster_id],
        )
        if not rows:
            return None
        return FabricReport.from_json(json.loads(rows[0]["report_json"]), id=int(rows[0]["id"]))

    # -- NCCL settings ---------------------------------------------------------------------
    def add_settings(
        self,
        cluster_id: int,
        settings: NcclSettings,
        *,
        source: str,
        applied: bool,
        report_id: int | None = None,
        summary: str = "",
        verdict: Mapping[str, Any] | None = None,
    ) -> int:
        now = self.clock()
        head = (
            cluster_id,
            report_id,
            now,
            source,
            int(applied),
            summary,
            json.dumps(list(settings.notes)),
            json.dumps(verdict) if verdict is not None else None,
        )
        variables = [(s.name, s.value, s.reason) for s in settings.settings]

        def write(db: sqlite_utils.Database) -> int | None:
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

    def _settings(self, where: str, params: list[Any]) -> StoredSettings | None:
        rows = self.store.query(
            f"SELECT * FROM nccl_settings WHERE {where} ORDER BY id DESC LIMIT 1", params
        )
        if not rows:
            return None
        head = rows[0]
        variables = self.store.query(
            "SELECT name, value, reason FROM nccl_setting_vars WHERE settings_id = ? ORDER BY name",
            [head["id"]],
        )
        return StoredSettings(
            id=int(head["id"]),
            cluster_id=int(head["cluster_id"]),
            report_id=head["report_id"],
            created_at=float(head["created_at"]),
            source=str(head["source"]),
            applied=bool(head["applied"]),
            summary=str(head["summary"]),
            settings=NcclSettings(
                tuple(NcclSetting(v["name"], v["value"], v["reason"]) for v in variables),
                tuple(json.loads(head["notes_json"] or "[]")),
            ),
            verdict=json.loads(head["verdict_json"]) if head["verdict_json"] else None,
        )

    def settings(self, settings_id: int) -> StoredSettings | None:
        return self._settings("id = ?", [settings_id])

    def applied_settings(self, cluster_id: int) -> StoredSettings | None:
        return self._settings("cluster_id = ? AND applied = 1", [cluster_id])

    def latest_settings(self, cluster_id: int) -> StoredSettings | None:
        return self._settings("cluster_id = ?", [cluster_id])

    # -- nccl-tests runs ---------------------------------------------------------------------
    def add_run(
        self,
        cluster_id: int,
        *,
        report_id: int | None,
        phase: str,
        command: str,
        env: Mapping[str, str],
        exit_code: int | None,
        error: str | None,
        run: NcclTestRun | None,
        duration_s: float | None,
    ) -> int:
        row = (
            cluster_id,
            report_id,
            self.clock(),
            phase,
            command,
            json.dumps(dict(env), sort_keys=True),
            exit_code,
            error,
            run.collective if run else None,
            run.n_ranks if run else None,
            run.n_nodes if run else None,
            run.min_bytes if run else None,
            run.max_bytes if run else None,
            run.peak_busbw if run else None,
            run.avg_busbw if run else None,
            run.recomputed_avg_busbw if run else None,
            run.net.transport if run else None,
            int(run.net.socket_fallback) if run else 0,
            int(run.truncated) if run else 0,
            duration_s,
            json.dumps(rows_table(run.rows) if run else []),
        )
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
        rows = self.store.query(
            "SELECT * FROM nccl_test_runs WHERE cluster_id = ? ORDER BY ts DESC, id DESC LIMIT ?",
            [cluster_id, limit],
        )
        for r in rows:
            r["env"] = json.loads(r.pop("env_json"))
            r["rows"] = json.loads(r.pop("rows_json"))
        return rows
