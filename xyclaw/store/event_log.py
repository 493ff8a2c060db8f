"""The history's events: what the user should see later, stored and published once each.

A plain event is published as a ``Notice``; an alert as ``AlertRaised`` /
``AlertCleared`` only, a budget warning or release as ``BudgetWarning`` only
(never also as a Notice), so every subscriber hears of each thing exactly once.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from xyclaw.events import AlertCleared, AlertRaised, BudgetWarning, EventBus, Notice
from xyclaw.secrets import mask, mask_value
from xyclaw.store.connection import Database
from xyclaw.store.store import Store
from xyclaw.wording import Said


class EventLog:
    def __init__(self, store: Store, bus: EventBus, clock: Callable[[], float] = time.time) -> None:
        self._store = store
        self._bus = bus
        self._clock = clock

    def _insert(
        self,
        ts: float,
        kind: str,
        severity: str,
        message: str,
        cluster_id: int | None,
        node_id: int | None,
        job_id: int | None,
        rule: str | None,
        data: dict[str, Any],
    ) -> int:
        row = (
            ts,
            kind,
            severity,
            cluster_id,
            node_id,
            job_id,
            rule,
            mask(message),
            mask(json.dumps(mask_value(data), default=str)),
        )

        def write(db: Database) -> int | None:
            return db.conn.execute(
                "INSERT INTO events (ts, kind, severity, cluster_id, node_id, job_id, rule,"
                " message, data_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                row,
            ).lastrowid

        event_id = self._store.writer.call(write)
        assert event_id is not None
        return event_id

    def record(
        self,
        kind: str,
        severity: str,
        message: str | Said,
        *,
        cluster_id: int | None = None,
        node_id: int | None = None,
        job_id: int | None = None,
        rule: str | None = None,
        data: dict[str, Any] | None = None,
        action: str | None = None,
    ) -> int:
        """Store the event, then publish it as a Notice; returns its id. A :class:`Said`
        message is stored as its English text with its key and figures in ``data["said"]``
        (:func:`said_of` reads it back), so a view words it in its own language."""
        ts = self._clock()
        stored = {**(data or {}), **({"action": action} if action else {})}
        if isinstance(message, Said):
            stored["said"] = message.to_json()
        event_id = self._insert(
            ts,
            kind,
            severity,
            str(message),
            cluster_id,
            node_id,
            job_id,
            rule,
            stored,
        )
        self._bus.publish(
            Notice(
                ts=ts,
                severity=severity,
                message=mask(str(message)),
                kind=kind,
                cluster_id=cluster_id,
                action=action,
                said=message if isinstance(message, Said) else None,
            )
        )
        return event_id

    def record_budget(
        self,
        warning: BudgetWarning,
        severity: str,
        message: str | Said,
        *,
        action: str | Said | None = None,
    ) -> int:
        """Store a budget warning or release (kind ``budget``) and publish it once, as itself.
        A :class:`Said` message or action is stored as English with its key and figures beside
        it (``said`` / ``action_said``) and travels on the published warning."""
        data: dict[str, Any] = {
            "spent_micros": warning.spent_micros,
            "budget_micros": warning.budget_micros,
            "currency": warning.currency,
            "released": warning.released,
        }
        if action:
            data["action"] = str(action)
        message_said = message if isinstance(message, Said) else warning.said
        action_said = action if isinstance(action, Said) else warning.action_said
        _put_said(data, message_said, action_said)
        event_id = self._insert(
            warning.ts, "budget", severity, str(message), warning.cluster_id, None, None, None, data
        )
        if (message_said, action_said) != (warning.said, warning.action_said):
            warning = replace(warning, said=message_said, action_said=action_said)
        self._bus.publish(warning)
        return event_id

    def raise_alert(self, alert: AlertRaised, stored: dict[str, Any]) -> int:
        """Store a new alert (with ``stored``, what a restart needs to restore it) and publish
        it, with its row id, once; returns the id. Its ``said`` / ``action_said`` are stored in
        ``data_json`` under those names (:func:`said_of` reads them back)."""
        data = {**stored, "action": alert.action}
        _put_said(data, alert.said, alert.action_said)
        event_id = self._insert(
            alert.ts,
            "alert",
            alert.severity,
            alert.message,
            alert.cluster_id,
            alert.node_id,
            None,
            alert.rule,
            data,
        )
        self._bus.publish(replace(alert, event_id=event_id))
        return event_id

    def escalate_alert(self, alert: AlertRaised) -> None:
        """A graver finding joined an open alert: its row takes the new severity and message
        (and the new message's and action's wording)."""
        # The old wording goes first (a merge patch would blend the old figures in), so an
        # unworded message leaves no stale wording; the rest of data_json stays.
        worded: dict[str, Any] = {"action": alert.action}
        _put_said(worded, alert.said, alert.action_said)
        row = (alert.severity, alert.message, json.dumps(worded, default=str), alert.event_id)
        self._store.writer.call(
            lambda db: db.conn.execute(
                "UPDATE events SET severity = ?, message = ?, data_json = json_patch("
                "json_remove(COALESCE(data_json, '{}'), '$.said', '$.action_said'), ?)"
                " WHERE id = ?",
                row,
            )
        )
        self._bus.publish(alert)

    def clear_alert(self, cleared: AlertCleared) -> None:
        row = (cleared.ts, cleared.event_id)
        self._store.writer.call(
            lambda db: db.conn.execute("UPDATE events SET cleared_at = ? WHERE id = ?", row)
        )
        self._bus.publish(cleared)

    def recent(self, limit: int = 100, cluster_id: int | None = None) -> list[dict[str, Any]]:
        if cluster_id is None:
            return self._store.query(
                "SELECT * FROM events ORDER BY ts DESC, id DESC LIMIT ?", [limit]
            )
        return self._store.query(
            "SELECT * FROM events WHERE cluster_id = ? ORDER BY ts DESC, id DESC LIMIT ?",
            [cluster_id, limit],
        )

    def open_alerts(self, cluster_id: int | None = None) -> list[dict[str, Any]]:
        """Alerts not cleared yet, newest first."""
        if cluster_id is None:
            return self._store.query(
                "SELECT * FROM events WHERE kind = 'alert' AND cleared_at IS NULL"
                " ORDER BY ts DESC, id DESC"
            )
        return self._store.query(
            "SELECT * FROM events WHERE kind = 'alert' AND cleared_at IS NULL"
            " AND cluster_id = ? ORDER BY ts DESC, id DESC",
            [cluster_id],
        )

    def alerts(self, cluster_id: int | None = None, limit: int = 200) -> list[dict[str, Any]]:
        """Every alert, open or cleared, newest first."""
        if cluster_id is None:
            return self._store.query(
                "SELECT * FROM events WHERE kind = 'alert' ORDER BY ts DESC, id DESC LIMIT ?",
                [limit],
            )
        return self._store.query(
            "SELECT * FROM events WHERE kind = 'alert' AND cluster_id = ?"
            " ORDER BY ts DESC, id DESC LIMIT ?",
            [cluster_id, limit],
        )


def said_of(row: dict[str, Any], name: str = "said") -> Said | None:
    """The :class:`Said` an events row was stored with (None for a plain message or an old
    row): its ``data_json``'s ``said``, as :meth:`EventLog.record` wrote it; ``name`` picks
    another one (``"action_said"``: an alert's or budget warning's action)."""
    raw = row.get("data_json")
    try:
        data = json.loads(raw) if isinstance(raw, str) else raw
    except ValueError:
        return None
    return Said.from_json(data.get(name)) if isinstance(data, dict) else None


def _put_said(data: dict[str, Any], message: Said | None, action: Said | None) -> None:
    if message is not None:
        data["said"] = message.to_json()
    if action is not None:
        data["action_said"] = action.to_json()
