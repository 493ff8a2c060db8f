"""Typed events and the bus that carries them up from the parts to the GUI, agents and store.

Events are frozen dataclasses. Subscribers are called on the publisher's
thread; the GUI's bridge re-posts them to the Qt main thread. A subscriber that
raises is logged and never breaks the publisher or the other subscribers.
"""

from __future__ import annotations

import itertools
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from xyclaw.wording import Said

log = logging.getLogger(__name__)


@dataclass(frozen=True, kw_only=True)
class Event:
    """Base of every event; ``ts`` is UTC epoch seconds."""

    ts: float = field(default_factory=time.time)


@dataclass(frozen=True, kw_only=True)
class OperationProgress(Event):
    operation_id: int
    title: str
    state: str  # running, succeeded, failed, cancelled
    fraction: float | None = None
    message: str = ""
    step: str | None = None
    subject: str | None = None  # e.g. a node's name when progress is per node
    title_said: Said | None = None  # the title's key and figures, for a view in another language
    said: Said | None = None  # the message's


@dataclass(frozen=True, kw_only=True)
class Notice(Event):
    """Something the user should read: a warning, an alert, a completed action."""

    severity: str  # info, warning, error, critical
    message: str
    kind: str = "notice"
    cluster_id: int | None = None
    action: str | None = None
    said: Said | None = None  # the message's key and figures, for a view in another language


@dataclass(frozen=True, kw_only=True)
class ClusterChanged(Event):
    """A cluster's state changed; ``previous`` is None when it was just created."""

    cluster_id: int
    name: str
    state: str
    previous: str | None


@dataclass(frozen=True, kw_only=True)
class NodeChanged(Event):
    """A node's state changed; ``previous`` is None when the node first appeared."""

    cluster_id: int
    node_id: int
    rank: int
    state: str
    previous: str | None


@dataclass(frozen=True, kw_only=True)
class AlertRaised(Event):
    """A new alert; ``event_id`` is its row in the store's events table. ``escalated``: not
    new, but a graver finding joined its cause (the row now has this severity and message)."""

    event_id: int
    rule: str
    severity: str
    message: str
    action: str
    cluster_id: int
    node_id: int | None = None
    node: str | None = None
    gpu: int | None = None
    data: dict[str, Any] = field(default_factory=dict)
    escalated: bool = False
    said: Said | None = None  # ``message`` as a key and figures, for a view in another language
    action_said: Said | None = None  # ``action`` likewise


@dataclass(frozen=True, kw_only=True)
class AlertCleared(Event):
    """The cause of an alert went away; ``rules`` lists every finding it had folded in."""

    event_id: int
    rule: str
    severity: str
    message: str
    cluster_id: int
    node_id: int | None = None
    node: str | None = None
    gpu: int | None = None
    open_s: float = 0.0
    rules: tuple[str, ...] = ()
    said: Said | None = None  # ``message`` as a key and figures, for a view in another language


@dataclass(frozen=True, kw_only=True)
class BudgetWarning(Event):
    """A cluster reached its budget's warning level (``released``: it reached the budget)."""

    cluster_id: int
    name: str
    spent_micros: int
    budget_micros: int
    currency: str
    released: bool = False
    message: str = ""  # what the history says of it, for a notification
    said: Said | None = None  # ``message`` as a key and figures, for a view in another language
    action_said: Said | None = None  # what to do about it, likewise


@dataclass(frozen=True, kw_only=True)
class JobChanged(Event):
    """A job's state changed; ``previous`` is None when it was just created."""

    job_id: int
    cluster_id: int | None
    name: str
    state: str
    previous: str | None
    attempt: int = 1


@dataclass(frozen=True, kw_only=True)
class ReplacementAsked(Event):
    """A job's recovery needs a new node that costs money and waits for the user's yes:
    ``Engine.approve_replacement(job, digest)`` or ``decline_replacement(job)``."""

    job_id: int
    name: str
    cluster_id: int | None
    nodes: tuple[str, ...]
    message: str  # what it rents, where, at what price
    digest: str  # of the quote a yes approves
    expires_at: float


#: Every event class, so a bridge can map them from one list.
ALL_EVENTS: tuple[type[Event], ...] = (
    OperationProgress,
    Notice,
    ClusterChanged,
    NodeChanged,
    AlertRaised,
    AlertCleared,
    BudgetWarning,
    JobChanged,
    ReplacementAsked,
)

E = TypeVar("E", bound=Event)


class Subscription:
    def __init__(self, bus: EventBus, key: int) -> None:
        self._bus = bus
        self._key = key

    def unsubscribe(self) -> None:
        self._bus._remove(self._key)


class EventBus:
    """Thread-safe publish/subscribe keyed by event class (subclasses are delivered too)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._subscribers: dict[int, tuple[type[Event], Callable[[Any], None]]] = {}
        self._ids = itertools.count(1)
        self.delivery_errors = 0

    def subscribe(self, event_type: type[E], callback: Callable[[E], None]) -> Subscription:
        with self._lock:
            key = next(self._ids)
            self._subscribers[key] = (event_type, callback)
        return Subscription(self, key)

    def _remove(self, key: int) -> None:
        with self._lock:
            self._subscribers.pop(key, None)

    def publish(self, event: Event) -> None:
        with self._lock:
            targets = [cb for typ, cb in self._subscribers.values() if isinstance(event, typ)]
        for callback in targets:
            try:
                callback(event)
            except Exception:
                self.delivery_errors += 1
                log.exception("an event subscriber failed on %s", type(event).__name__)
