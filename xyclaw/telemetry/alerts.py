"""Open alerts: raised once per cause, stored as events, published, cleared when the cause goes.

Rules report *findings* (a condition that holds now) for a *scope* (the
per-instant GPU checks of one node, the XIDs of one node, the job log of
one cluster...). A finding becomes an alert once it has held for its rule's
``for_s``; the alert clears once the scope has reported ``clear_s`` without
it. A scope that reports nothing (a node that stopped answering) clears
nothing, so an alert never clears for want of evidence.

Findings that share a *cause* (XID 79 and a GPU missing from the count, XID
48 and the uncorrectable-ECC counter) make one alert, which stays open
until every one of them has cleared: one alert per cause, never a storm.
"""

from __future__ import annotations

import itertools
import json
import logging
import queue
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from xyclaw.events import AlertCleared, AlertRaised, EventBus
from xyclaw.store.event_log import EventLog
from xyclaw.wording import Said

log = logging.getLogger(__name__)

SEVERITY_RANK = {"info": 0, "warning": 1, "error": 2, "critical": 3}

#: ("gpu", cluster, node), ("cluster", cluster), ("xid", cluster, node), ("job", cluster)...
Scope = tuple[Any, ...]


class AlertKey(NamedTuple):
    rule: str
    cluster_id: int
    node_id: int | None = None
    gpu: int | None = None
    detail: str | None = None


@dataclass(frozen=True)
class Finding:
    """A rule's condition holding now, with what to tell the user."""

    key: AlertKey
    severity: str
    message: str
    action: str
    node: str | None = None
    cause: tuple[Any, ...] | None = None
    data: dict[str, Any] = field(default_factory=dict)
    said: Said | None = None  # ``message`` as a key and figures (a view words it)
    action_said: Said | None = None  # ``action`` likewise


@dataclass
class Alert:
    """One open alert as the book keeps it."""

    seq: int
    key: AlertKey
    cause: tuple[Any, ...]
    scope: Scope
    severity: str
    message: str
    action: str
    node: str | None
    raised_at: float
    data: dict[str, Any]
    members: set[AlertKey] = field(default_factory=set)
    rules: list[str] = field(default_factory=list)
    event_id: int | None = None
    said: Said | None = None  # ``message`` as a key and figures (None: an older stored alert)
    action_said: Said | None = None

    @property
    def rule(self) -> str:
        return self.key.rule

    @property
    def cluster_id(self) -> int:
        return self.key.cluster_id

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.event_id,
            "rule": self.rule,
            "severity": self.severity,
            "message": self.message,
            "action": self.action,
            "cluster_id": self.cluster_id,
            "node_id": self.key.node_id,
            "node": self.node,
            "gpu": self.key.gpu,
            "since": self.raised_at,
            "also": [r for r in self.rules if r != self.rule],
            "said": self.said.to_json() if self.said else None,
            "action_said": self.action_said.to_json() if self.action_said else None,
        }


@dataclass
class _Track:
    finding: Finding
    scope: Scope
    first: float
    last: float
    alert: Alert | None = None


Timing = Callable[[str], tuple[float, float]]


class AlertSink:
    """Stores and publishes alerts on its own thread, in the order the book decided them."""

    def __init__(self, events: EventLog, bus: EventBus) -> None:
        self._events = events
        self._bus = bus
        self._queue: queue.Queue[tuple[str, Any, float] | None] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._start_lock = threading.Lock()
        self.failures = 0

    def _put(self, item: tuple[str, Any, float]) -> None:
        with self._start_lock:  # the thread starts with the first alert, not with the app
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._loop, name="telemetry-alerts", daemon=True
                )
                self._thread.start()
        self._queue.put(item)

    def raised(self, alert: Alert) -> None:
        self._put(("raised", alert, alert.raised_at))

    def cleared(self, alert: Alert, when: float) -> None:
        self._put(("cleared", alert, when))

    def escalated(self, alert: Alert, when: float) -> None:
        self._put(("escalated", alert, when))

    def flush(self, timeout: float = 10.0) -> None:
        """Wait until everything handed over so far is stored and published."""
        if self._thread is None:
            return
        done = threading.Event()
        self._queue.put(("flush", done, 0.0))
        done.wait(timeout)

    def close(self) -> None:
        if self._thread is None:
            return
        self._queue.put(None)
        self._thread.join(timeout=30)

    def _loop(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            what, subject, when = item
            if what == "flush":
                subject.set()
                continue
            try:
                if what == "raised":
                    self._raise(subject)
                elif what == "escalated":
                    self._escalate(subject, when)
                else:
                    self._clear(subject, when)
            except Exception:
                self.failures += 1
                log.exception("storing or publishing alert %s failed", subject.rule)

    def _raise(self, alert: Alert) -> None:
        if alert.event_id is not None:  # restored from the store: already recorded
            return
        stored = {
            **alert.data,
            "key": list(alert.key),
            "scope": list(alert.scope),
            "cause": list(alert.cause),
            "gpu": alert.key.gpu,
            "node": alert.node,
        }
        alert.event_id = self._events.raise_alert(
            AlertRaised(
                ts=alert.raised_at,
                event_id=0,
                rule=alert.rule,
                severity=alert.severity,
                message=alert.message,
                action=alert.action,
                cluster_id=alert.cluster_id,
                node_id=alert.key.node_id,
                node=alert.node,
                gpu=alert.key.gpu,
                data=dict(alert.data),
                said=alert.said,
                action_said=alert.action_said,
            ),
            stored,
        )

    def _escalate(self, alert: Alert, when: float) -> None:
        if alert.event_id is None:
            return
        self._events.escalate_alert(
            AlertRaised(
                ts=when,
                event_id=alert.event_id,
                rule=alert.rule,
                severity=alert.severity,
                message=alert.message,
                action=alert.action,
                cluster_id=alert.cluster_id,
                node_id=alert.key.node_id,
                node=alert.node,
                gpu=alert.key.gpu,
                data=dict(alert.data),
                escalated=True,
                said=alert.said,
                action_said=alert.action_said,
            )
        )

    def _clear(self, alert: Alert, when: float) -> None:
        if alert.event_id is None:
            return
        self._events.clear_alert(
            AlertCleared(
                ts=when,
                event_id=alert.event_id,
                rule=alert.rule,
                severity=alert.severity,
                message=alert.message,
                cluster_id=alert.cluster_id,
                node_id=alert.key.node_id,
                node=alert.node,
                gpu=alert.key.gpu,
                open_s=max(0.0, when - alert.raised_at),
                rules=tuple(alert.rules),
                said=alert.said,
            )
        )


class AlertBook:
    """Which findings are pending, which alerts are open; decides raises and clears."""

    def __init__(self, sink: AlertSink, timing: Timing, clock: Callable[[], float] = time.time):
        self._sink = sink
        self._timing = timing
        self._clock = clock
        self._lock = threading.Lock()
        self._tracks: dict[AlertKey, _Track] = {}
        self._scopes: dict[Scope, set[AlertKey]] = {}
        self._by_cause: dict[tuple[Any, ...], Alert] = {}
        self._seq = itertools.count(1)
        self.raised = 0
        self.cleared = 0

    def update(self, scope: Scope, findings: Iterable[Finding], now: float | None = None) -> None:
        """What ``scope`` finds now; anything it tracked and did not report is not holding."""
        now = self._clock() if now is None else now
        active = {f.key: f for f in findings}
        with self._lock:
            tracked = self._scopes.get(scope)
            if tracked is None:
                if not active:
                    return
                tracked = self._scopes[scope] = set()
            for key, finding in active.items():
                track = self._tracks.get(key)
                if track is None:
                    track = _Track(finding, scope, now, now)
                    self._tracks[key] = track
                    tracked.add(key)
                else:
                    track.last = now
                    track.finding = finding
                if track.alert is None and now - track.first >= self._timing(key.rule)[0]:
                    self._open(key, track, now)
            for key in [k for k in tracked if k not in active]:
                track = self._tracks[key]
                if track.alert is None:
                    self._forget(key, track)
                elif now - track.last >= self._timing(key.rule)[1]:
                    self._close(key, track, now)
            if not tracked:
                del self._scopes[scope]

    def close_scope(self, scope: Scope, now: float | None = None) -> None:
        """The scope ended (a job finished, a cluster stopped): clear all it holds at once."""
        now = self._clock() if now is None else now
        with self._lock:
            for key in list(self._scopes.get(scope, ())):
                track = self._tracks[key]
                if track.alert is None:
                    self._forget(key, track)
                else:
                    self._close(key, track, now)
            self._scopes.pop(scope, None)

    def restore(self, alert: Alert) -> None:
        """An alert left open by an earlier run; it clears like any other once its scope
        reports without it."""
        now = self._clock()
        with self._lock:
            if alert.cause in self._by_cause:
                return
            finding = Finding(
                alert.key,
                alert.severity,
                alert.message,
                alert.action,
                alert.node,
                said=alert.said,
                action_said=alert.action_said,
            )
            track = _Track(finding, alert.scope, alert.raised_at, now, alert)
            alert.members.add(alert.key)
            if alert.rule not in alert.rules:
                alert.rules.append(alert.rule)
            self._tracks[alert.key] = track
            self._scopes.setdefault(alert.scope, set()).add(alert.key)
            self._by_cause[alert.cause] = alert

    def open_alerts(self, cluster_id: int | None = None) -> list[Alert]:
        with self._lock:
            alerts = [a for a in self._by_cause.values() if cluster_id in (None, a.cluster_id)]
        return sorted(alerts, key=lambda a: (-SEVERITY_RANK.get(a.severity, 0), a.seq))

    def is_open(self, key: AlertKey) -> bool:
        with self._lock:
            track = self._tracks.get(key)
            return track is not None and track.alert is not None

    def close_cluster(self, cluster_id: int, now: float | None = None) -> None:
        """The cluster is gone: every alert it holds clears."""
        with self._lock:
            scopes = [scope for scope in self._scopes if len(scope) > 1 and scope[1] == cluster_id]
        for scope in scopes:
            self.close_scope(scope, now)

    def forget_cluster(self, cluster_id: int) -> None:
        """Drop the cluster's state without clearing (it stays open in the store)."""
        with self._lock:
            for key in [k for k in self._tracks if k.cluster_id == cluster_id]:
                del self._tracks[key]
            for scope in [s for s in self._scopes if len(s) > 1 and s[1] == cluster_id]:
                del self._scopes[scope]
            for cause in [c for c, a in self._by_cause.items() if a.cluster_id == cluster_id]:
                del self._by_cause[cause]

    # -- internals (lock held) -----------------------------------------------------------------
    def _open(self, key: AlertKey, track: _Track, now: float) -> None:
        f = track.finding
        cause = f.cause or tuple(key)
        alert = self._by_cause.get(cause)
        if alert is not None:
            alert.members.add(key)
            if key.rule not in alert.rules:
                alert.rules.append(key.rule)
            track.alert = alert
            if SEVERITY_RANK.get(f.severity, 0) > SEVERITY_RANK.get(alert.severity, 0):
                alert.severity, alert.message, alert.action = f.severity, f.message, f.action
                alert.said, alert.action_said = f.said, f.action_said
                self._sink.escalated(alert, now)
            return
        alert = Alert(
            seq=next(self._seq),
            key=key,
            cause=cause,
            scope=track.scope,
            severity=f.severity,
            message=f.message,
            action=f.action,
            node=f.node,
            raised_at=now,
            data=dict(f.data),
            members={key},
            rules=[key.rule],
            said=f.said,
            action_said=f.action_said,
        )
        self._by_cause[cause] = alert
        track.alert = alert
        self.raised += 1
        self._sink.raised(alert)

    def _close(self, key: AlertKey, track: _Track, now: float) -> None:
        alert = track.alert
        self._forget(key, track)
        if alert is None:
            return
        alert.members.discard(key)
        if alert.members:
            return
        self._by_cause.pop(alert.cause, None)
        self.cleared += 1
        self._sink.cleared(alert, now)

    def _forget(self, key: AlertKey, track: _Track) -> None:
        self._tracks.pop(key, None)
        scope = self._scopes.get(track.scope)
        if scope is not None:
            scope.discard(key)


def alert_from_row(row: dict[str, Any]) -> Alert | None:
    """An open alert as stored by an earlier run, or None if the row is not one of ours."""
    try:
        data = json.loads(row.get("data_json") or "{}")
        key = AlertKey(*data["key"])
        scope = tuple(data["scope"])
        cause = tuple(data["cause"])
    except (KeyError, TypeError, ValueError):
        return None
    extra = {
        k: v
        for k, v in data.items()
        if k not in ("key", "scope", "cause", "gpu", "node", "action", "said", "action_said")
    }
    return Alert(
        seq=0,
        key=key,
        cause=cause,
        scope=scope,
        severity=str(row["severity"]),
        message=str(row["message"]),
        action=str(data.get("action") or ""),
        node=data.get("node"),
        raised_at=float(row["ts"]),
        data=extra,
        event_id=int(row["id"]),
        said=Said.from_json(data.get("said")),
        action_said=Said.from_json(data.get("action_said")),
    )
