"""The tuning tables of the store: fabric reports, NCCL settings (with reasons), test runs."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from xyclaw.parsers.nccltests import NcclTestRun, rows_table
from xyclaw.store import Store
from xyclaw.store.tuning import TuningTables
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
        self._tables = TuningTables(store)
        self.clock = clock

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
        return self._tables.insert_report(row)

    def latest_report(self, cluster_id: int) -> FabricReport | None:
        row = self._tables.latest_report(cluster_id)
        if row is None:
            return None
        return FabricReport.from_json(json.loads(row["report_json"]), id=int(row["id"]))

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

        return self._tables.insert_settings(head, variables)

    def _settings(self, which: str, key: int) -> StoredSettings | None:
        found = self._tables.settings(which, key)
        if found is None:
            return None
        head, variables = found
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
        return self._settings("by_id", settings_id)

    def applied_settings(self, cluster_id: int) -> StoredSettings | None:
        return self._settings("applied", cluster_id)

    def latest_settings(self, cluster_id: int) -> StoredSettings | None:
        return self._settings("latest", cluster_id)

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
        return self._tables.insert_run(row)

    def runs(self, cluster_id: int, limit: int = 50) -> list[dict[str, Any]]:
        rows = self._tables.runs(cluster_id, limit)
        for r in rows:
            r["env"] = json.loads(r.pop("env_json"))
            r["rows"] = json.loads(r.pop("rows_json"))
        return rows
