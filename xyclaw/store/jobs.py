"""The jobs and job_attempts tables (the jobs part adds its writes here)."""

from __future__ import annotations

from typing import Any

from xyclaw.store.store import Store

#: Job states in which a job holds its cluster's GPUs.
ACTIVE_JOB_STATES = ("queued", "setting-up", "starting", "running", "recovering", "lost-contact")


class JobTable:
    def __init__(self, store: Store) -> None:
        self._store = store

    def active_count(self, cluster_id: int) -> int:
        """Jobs on a cluster that are running or about to: the one answer to "is a job running"."""
        marks = ",".join("?" * len(ACTIVE_JOB_STATES))
        rows = self._store.query(
            f"SELECT count(*) AS n FROM jobs WHERE cluster_id = ? AND state IN ({marks})",
            [cluster_id, *ACTIVE_JOB_STATES],
        )
        return int(rows[0]["n"])

    def window(self, job_id: int) -> dict[str, Any] | None:
        """When a job ran and on which cluster: what a metrics export of the job needs."""
        rows = self._store.query(
            "SELECT id, cluster_id, created_at, started_at, ended_at FROM jobs WHERE id = ?",
            [job_id],
        )
        return rows[0] if rows else None
