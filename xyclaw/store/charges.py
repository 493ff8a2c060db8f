"""The charges table: the app's per-second meter (and, later, provider ledger lines)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from xyclaw.store.connection import Database
from xyclaw.store.store import Store


class ChargeTable:
    def __init__(self, store: Store) -> None:
        self._store = store

    def charge_meter(
        self, cluster_id: int, since: float, total_micros: int, now: float, currency: str
    ) -> int:
        """Bring the meter's charges of a cluster up to ``total_micros``; returns what was added.

        Read and write in one writer transaction, so two callers never charge twice.
        """

        def write(db: Database) -> int:
            row = db.conn.execute(
                "SELECT coalesce(sum(amount_micros), 0), coalesce(max(end_ts), ?) FROM charges"
                " WHERE cluster_id = ? AND source = 'meter'",
                [since, cluster_id],
            ).fetchone()
            already, last_end = int(row[0]), float(row[1])
            delta = total_micros - already
            if delta <= 0:
                return 0
            db.conn.execute(
                "INSERT INTO charges (cluster_id, source, start_ts, end_ts, amount_micros,"
                " currency) VALUES (?, 'meter', ?, ?, ?, ?)",
                [cluster_id, last_end, now, delta, currency],
            )
            return delta

        return self._store.writer.call(write)

    def charge_bandwidth(
        self, cluster_id: int, total_micros: int, now: float, currency: str
    ) -> int:
        """Bring a cluster's bandwidth charges up to what the provider's own traffic counters
        cost so far (``total_micros``); returns what was added. A counter that went back (a
        recreated instance) adds nothing."""

        def write(db: Database) -> int:
            row = db.conn.execute(
                "SELECT coalesce(sum(amount_micros), 0), coalesce(max(end_ts), ?) FROM charges"
                " WHERE cluster_id = ? AND source = 'bandwidth'",
                [now, cluster_id],
            ).fetchone()
            delta = total_micros - int(row[0])
            if delta <= 0:
                return 0
            db.conn.execute(
                "INSERT INTO charges (cluster_id, source, start_ts, end_ts, amount_micros,"
                " currency) VALUES (?, 'bandwidth', ?, ?, ?, ?)",
                [cluster_id, min(float(row[1]), now), now, delta, currency],
            )
            return delta

        return self._store.writer.call(write)

    def charge_storage(
        self, cluster_id: int, since: float, per_hour_micros: int, now: float, currency: str
    ) -> int:
        """Charge a stopped instance's storage from its last storage charge (or ``since``,
        when it stopped) up to ``now`` at ``per_hour_micros``; returns what was added."""

        def write(db: Database) -> int:
            row = db.conn.execute(
                "SELECT max(end_ts) FROM charges WHERE cluster_id = ? AND source = 'storage'"
                " AND end_ts >= ?",
                [cluster_id, since],
            ).fetchone()
            start = max(since, float(row[0])) if row[0] is not None else since
            amount = int(max(0.0, now - start)) * per_hour_micros // 3600
            if amount <= 0:
                return 0
            db.conn.execute(
                "INSERT INTO charges (cluster_id, source, start_ts, end_ts, amount_micros,"
                " currency) VALUES (?, 'storage', ?, ?, ?, ?)",
                [cluster_id, start, now, amount, currency],
            )
            return amount

        return self._store.writer.call(write)

    def bandwidth_totals(self, cluster_ids: Sequence[int]) -> dict[int, int]:
        """Each cluster's bandwidth charges (traffic billed per GB), in micro-units."""
        return self._totals("bandwidth", cluster_ids)

    def storage_totals(self, cluster_ids: Sequence[int]) -> dict[int, int]:
        """Each cluster's storage charges while stopped, in micro-units."""
        return self._totals("storage", cluster_ids)

    def _totals(self, source: str, cluster_ids: Sequence[int]) -> dict[int, int]:
        if not cluster_ids:
            return {}
        marks = ",".join("?" * len(cluster_ids))
        rows = self._store.query(
            "SELECT cluster_id, sum(amount_micros) AS total FROM charges"
            f" WHERE source = ? AND cluster_id IN ({marks}) GROUP BY cluster_id",
            [source, *cluster_ids],
        )
        return {int(r["cluster_id"]): int(r["total"]) for r in rows}

    def set_provider_total(
        self, cluster_id: int, total_micros: int, currency: str, start: float, now: float
    ) -> None:
        """Keep what the provider's own ledger says a cluster cost (one row, replaced at each
        read), so the history can compare it with the meter later (issue 36: price drift)."""

        def write(db: Database) -> None:
            db.conn.execute(
                "DELETE FROM charges WHERE cluster_id = ? AND source = 'provider'", [cluster_id]
            )
            db.conn.execute(
                "INSERT INTO charges (cluster_id, source, start_ts, end_ts, amount_micros,"
                " currency) VALUES (?, 'provider', ?, ?, ?, ?)",
                [cluster_id, start, now, total_micros, currency],
            )

        self._store.writer.call(write)

    def meter_total(self, cluster_id: int) -> int:
        rows = self._store.query(
            "SELECT coalesce(sum(amount_micros), 0) AS total FROM charges"
            " WHERE cluster_id = ? AND source = 'meter'",
            [cluster_id],
        )
        return int(rows[0]["total"])

    def meter_between(self, start: float, end: float) -> list[dict[str, Any]]:
        """Meter charges that ended in ``[start, end)``, summed per cluster and currency."""
        return self._store.query(
            "SELECT cluster_id, currency, sum(amount_micros) AS amount_micros FROM charges"
            " WHERE source = 'meter' AND end_ts >= ? AND end_ts < ?"
            " GROUP BY cluster_id, currency ORDER BY cluster_id",
            [start, end],
        )

    def meter_totals(self, cluster_ids: Sequence[int]) -> dict[int, int]:
        if not cluster_ids:
            return {}
        marks = ",".join("?" * len(cluster_ids))
        rows = self._store.query(
            "SELECT cluster_id, sum(amount_micros) AS total FROM charges"
            f" WHERE source = 'meter' AND cluster_id IN ({marks}) GROUP BY cluster_id",
            list(cluster_ids),
        )
        return {int(r["cluster_id"]): int(r["total"]) for r in rows}
