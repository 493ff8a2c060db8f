"""Events the user should see later: stored in the history and published on the bus."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

import sqlite_utils

from xyclaw.events import EventBus, Notice
from xyclaw.store import Store


class EventLog:
    def __init__(self, store: Store, bus: EventBus, clock: Callable[[], float] = time.time) -> None:
        self.store = store
        self.bus = bus
        self.clock = clock

    def record(
        self,
        kind: str,
        severity: str,
        message: str,
        *,
        cluster_id: int | None = None,
        node_id: int | None = None,
        job_id: int | None = None,
        rule: str | None = None,
        data: dict[str, Any] | None = None,
        action: str | None = None,
    ) -> int:
        """Store the event, then publish it as a Notice; returns its id."""
        ts = self.clock()
        row = (
            ts,
            kind,
            severity,
            cluster_id,
            node_id,
            job_id,
            rule,
            message,
            json.dumps({**(data or {}), **({"action": action} if action else {})}, default=str),
        )

        def write(db: sqlite_utils.Database) -> int | None:
            return db.conn.execute(
                "INSERT INTO events (ts, kind, severity, cluster_id, node_id, job_id, rule,"
                " message, data_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                row,
            ).lastrowid

        event_id = self.store.writer.call(write)
        assert event_id is not None
        self.bus.publish(
            Notice(
                ts=ts,
                severity=severity,
                message=message,
                kind=kind,
                cluster_id=cluster_id,
                action=action,
            )
        )
        return event_id

    def recent(self, limit: int = 100, cluster_id: int | None = None) -> list[dict[str, Any]]:
        if cluster_id is None:
            return self.store.query(
                "SELECT * FROM events ORDER BY ts DESC, id DESC LIMIT ?", [limit]
            )
        return self.store.query(
            "SELECT * FROM events WHERE cluster_id = ? ORDER BY ts DESC, id DESC LIMIT ?",
            [cluster_id, limit],
        )
