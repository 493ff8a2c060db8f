"""The plans table: every plan shown to the user, so an option can be rented by its number."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

from xyclaw.store.connection import Database
from xyclaw.store.store import Store


class PlanTable:
    def __init__(self, store: Store, clock: Callable[[], float] = time.time) -> None:
        self._store = store
        self._clock = clock

    def add(
        self,
        request: dict[str, Any],
        result: dict[str, Any],
        conversation_id: int | None = None,
    ) -> int:
        row = (
            conversation_id,
            self._clock(),
            json.dumps(request, default=str),
            json.dumps(result, default=str),
        )

        def write(db: Database) -> int | None:
            return db.conn.execute(
                "INSERT INTO plans (conversation_id, ts, request_json, result_json)"
                " VALUES (?, ?, ?, ?)",
                row,
            ).lastrowid

        plan_id = self._store.writer.call(write)
        assert plan_id is not None
        return plan_id

    def get(self, plan_id: int) -> dict[str, Any] | None:
        """``{"id", "ts", "request", "result", "chosen_option"}`` or None."""
        rows = self._store.query(
            "SELECT id, ts, conversation_id, request_json, result_json, chosen_option"
            " FROM plans WHERE id = ?",
            [plan_id],
        )
        if not rows:
            return None
        return _plan(rows[0])

    def choose(self, plan_id: int, option: int) -> None:
        self._store.writer.call(
            lambda db: db.conn.execute(
                "UPDATE plans SET chosen_option = ? WHERE id = ?", [option, plan_id]
            )
        )

    def recent(self, limit: int = 20) -> list[dict[str, Any]]:
        rows = self._store.query(
            "SELECT id, ts, conversation_id, request_json, result_json, chosen_option"
            " FROM plans ORDER BY id DESC LIMIT ?",
            [limit],
        )
        return [_plan(r) for r in rows]


def _plan(row: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": row["id"],
        "ts": row["ts"],
        "conversation_id": row["conversation_id"],
        "request": json.loads(row["request_json"]),
        "result": json.loads(row["result_json"]),
        "chosen_option": row["chosen_option"],
    }
