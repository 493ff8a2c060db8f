"""The one place where the engine's threads meet the Qt main thread.

Two directions:

* **Events up.** :class:`EngineBridge` subscribes to every engine event and
  re-emits it as a Qt signal queued to the main thread. Operation progress is
  coalesced: per operation and per subject (a node) only the latest update is
  kept, and at most ten updates a second per key reach the widgets, so a
  chatty bootstrap never floods the event loop. A final state (succeeded,
  failed, cancelled) is never dropped.
* **Calls down.** :class:`Worker` runs every call that can block (network,
  SSH, SQLite, a model) on a thread pool and hands the result or the error
  back on the main thread. An error arrives as :class:`ErrorInfo` (a message
  and a hint), never as a traceback.

Telemetry is not here on purpose: charts pull the ring buffers at their own
frame rate.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar

import shiboken6
from PySide6.QtCore import QObject, Qt, QTimer, Signal, Slot

from xyclaw.errors import XyclawError
from xyclaw.events import Event, OperationProgress
from xyclaw.wording import Said, said

log = logging.getLogger(__name__)
T = TypeVar("T")

#: Seconds between two deliveries of progress for one (operation, subject).
PROGRESS_INTERVAL_S = 0.1
FINAL_STATES = frozenset({"succeeded", "failed", "cancelled"})


@dataclass(frozen=True)
class ErrorInfo:
    """What the user is shown when a background call fails: the English ``message`` and
    ``hint`` (for the log), and their :class:`Said` forms where the error gave them, so
    :meth:`text` words it in the window's language (again after a language change)."""

    message: str
    hint: str | None = None
    said: Said | None = None
    hint_said: Said | None = None

    @classmethod
    def from_exception(cls, exc: BaseException) -> ErrorInfo:
        if isinstance(exc, XyclawError):
            return cls(exc.message, exc.hint, exc.said, exc.hint_said)
        # Not ours: the log keeps the traceback; the user gets one line and where to look.
        log.error("unexpected error in a background call", exc_info=exc)
        text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        kind = type(exc).__name__
        message = (
            said("error.unexpected_with_text", kind=kind, text=text)
            if text
            else said("error.unexpected", kind=kind)
        )
        hint = said("error.unexpected_hint")
        return cls(str(message), str(hint), message, hint)

    def worded(self) -> tuple[str, str | None]:
        """(message, hint) in the window's language now."""
        from xyclaw.gui.formatting import message_language

        language = message_language()
        message = self.said.in_language(language) if self.said else self.message
        hint = self.hint_said.in_language(language) if self.hint_said else self.hint
        return message, hint

    def worded_message(self) -> str:
        """The message alone, in the window's language now."""
        return self.worded()[0]

    def text(self, separator: str = "\n") -> str:
        """The message and its hint, in the window's language, joined by ``separator``."""
        message, hint = self.worded()
        return message + (f"{separator}{hint}" if hint else "")

    def __str__(self) -> str:
        return self.message + (f"\n{self.hint}" if self.hint else "")


class _Dispatcher(QObject):
    """Lives on the main thread; anything emitted to it from a worker runs there."""

    deliver = Signal(object, object)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.deliver.connect(self._run, Qt.ConnectionType.QueuedConnection)

    @Slot(object, object)
    def _run(self, callback: Callable[[Any], None], value: Any) -> None:
        # A page the user closed while its call ran: its result has nowhere to go.
        owner = getattr(callback, "__self__", None)
        if isinstance(owner, QObject) and not shiboken6.isValid(owner):
            log.debug("dropped a result for a closed %s", type(owner).__name__)
            return
        try:
            callback(value)
        except RuntimeError as exc:
            if "already deleted" not in str(exc):  # not a widget closed meanwhile
                log.exception("a GUI callback failed")
            else:
                log.debug("dropped a result for a closed widget: %s", exc)
        except Exception:
            log.exception("a GUI callback failed")


class Task:
    """A call running on the worker pool; ``cancel`` only prevents one not started yet."""

    def __init__(self, future: Future[Any], name: str) -> None:
        self.future = future
        self.name = name

    def done(self) -> bool:
        return self.future.done()

    def cancel(self) -> bool:
        return self.future.cancel()


class Worker(QObject):
    """Runs blocking calls off the main thread and delivers their outcome back to it.

    ``submit(fn, on_done=..., on_error=...)``: ``on_done(result)`` and
    ``on_error(ErrorInfo)`` are called on the main thread. Agent turns get their
    own pool (``lane="agent"``) so a long turn never delays a status refresh.
    """

    def __init__(self, parent: QObject | None = None, *, io_threads: int = 4) -> None:
        super().__init__(parent)
        self._dispatcher = _Dispatcher(self)
        self._pools = {
            "io": ThreadPoolExecutor(max_workers=io_threads, thread_name_prefix="gui-io"),
            "agent": ThreadPoolExecutor(max_workers=2, thread_name_prefix="gui-agent"),
        }
        self._lock = threading.Lock()
        self._running = 0
        self._released: list[list[Any]] = []  # what finished calls held, freed on the main thread
        self._closing = threading.RLock()
        self._closed = False
        self.last_error: ErrorInfo | None = None

    @property
    def busy(self) -> int:
        """How many submitted calls have not finished yet (tests wait for 0)."""
        with self._lock:
            return self._running

    def post(self, callback: Callable[[Any], None], value: Any = None) -> None:
        """From any thread: run ``callback(value)`` on the main thread."""
        with self._closing:  # never an emit into a dispatcher that close() let go
            if not self._closed:
                self._dispatcher.deliver.emit(callback, value)

    def submit(
        self,
        fn: Callable[[], T],
        *,
        on_done: Callable[[T], None] | None = None,
        on_error: Callable[[ErrorInfo], None] | None = None,
        lane: str = "io",
        name: str = "",
    ) -> Task:
        if self._closed:
            future: Future[Any] = Future()
            future.cancel()
            return Task(future, name)
        with self._lock:
            self._running += 1
        # The call and its callbacks often hold a page (a bound method, a lambda over self).
        # Their last reference must be dropped on the main thread: a QWidget whose wrapper
        # dies on a worker thread is destroyed there, which corrupts Qt's heap. So ``run``
        # does not close over them: it takes them out of the box, and gives what it held to
        # ``_released`` under the lock that the main thread empties it under.
        box: list[Any] = [fn, on_done, on_error]

        def run() -> None:
            held = box[:]
            box.clear()
            try:
                held.append(held[0]())
            except BaseException as exc:
                info = ErrorInfo.from_exception(exc)
                del exc  # its traceback holds the frames of the call
                self.last_error = info
                if held[2] is not None:
                    self.post(held[2], info)
                else:
                    what = name or str(held[0])  # a string: a log record must not hold the page
                    log.warning("background call %s failed: %s", what, info.message)
            else:
                if held[1] is not None:
                    self.post(held[1], held[3])
            with self._lock:
                self._released.append(held)
                del held
            self.post(self._finished)

        return Task(self._pools[lane].submit(run), name)

    def _finished(self, _: object = None) -> None:
        with self._lock:
            self._running -= 1
            released, self._released = self._released, []
        released.clear()  # here, on the main thread, the worker no longer holds any of it

    def close(self, wait: bool = True) -> None:
        """After this returns no worker thread emits to the main thread any more, so the
        window may be deleted while a call still runs (its outcome is dropped)."""
        with self._closing:
            self._closed = True
        for pool in self._pools.values():
            pool.shutdown(wait=wait, cancel_futures=True)


def _signal_key(event: Event) -> str:
    for cls in type(event).__mro__:
        if cls.__name__ in _SIGNAL_NAMES:
            return _SIGNAL_NAMES[cls.__name__]
    return ""


# Event class name -> signal attribute. By name so the bridge works with events the
# engine adds later; an unknown event still arrives through ``event``.
_SIGNAL_NAMES = {
    "ClusterChanged": "cluster_changed",
    "NodeChanged": "node_changed",
    "AlertRaised": "alert_raised",
    "AlertCleared": "alert_cleared",
    "BudgetWarning": "budget_warning",
    "JobChanged": "job_changed",
    "OperationProgress": "operation_progress",
    "Notice": "notice",
}


class EngineBridge(QObject):
    """Engine events as Qt signals on the main thread (see the module's docstring)."""

    cluster_changed = Signal(object)
    node_changed = Signal(object)
    alert_raised = Signal(object)
    alert_cleared = Signal(object)
    budget_warning = Signal(object)
    job_changed = Signal(object)
    operation_progress = Signal(object)  # coalesced; see PROGRESS_INTERVAL_S
    notice = Signal(object)
    event = Signal(object)  # every event, after the specific signal

    _posted = Signal(object)
    _wake = Signal()

    def __init__(
        self,
        subscribe: Callable[[type[Event], Callable[[Event], None]], Any],
        parent: QObject | None = None,
        *,
        progress_interval_s: float = PROGRESS_INTERVAL_S,
    ) -> None:
        super().__init__(parent)
        self._interval = progress_interval_s
        self._lock = threading.Lock()
        self._pending: dict[tuple[int, str | None], OperationProgress] = {}
        self._last_flush = 0.0
        self._closing = threading.RLock()
        self._closed = False
        self.delivered = 0  # signals emitted (tests and the bench read it)
        self.coalesced = 0  # progress updates replaced before they were shown
        self._posted.connect(self._deliver, Qt.ConnectionType.QueuedConnection)
        self._wake.connect(self._on_wake, Qt.ConnectionType.QueuedConnection)
        self._timer = QTimer(self)
        self._timer.setInterval(max(1, int(progress_interval_s * 1000)))
        self._timer.timeout.connect(self._flush)
        self._subscription = subscribe(Event, self._on_event)

    @classmethod
    def for_engine(cls, engine: Any, parent: QObject | None = None) -> EngineBridge:
        subscribe = getattr(engine, "subscribe", None) or engine.bus.subscribe
        return cls(subscribe, parent)

    # -- publisher threads --------------------------------------------------------------------
    def _on_event(self, event: Event) -> None:
        with self._closing:  # close() waits for an emit in flight; none starts after it
            if not self._closed:
                self._queue_event(event)

    def _queue_event(self, event: Event) -> None:
        if isinstance(event, OperationProgress):
            key = (event.operation_id, event.subject)
            with self._lock:
                wake = not self._pending
                if key in self._pending:
                    self.coalesced += 1
                    if event.state not in FINAL_STATES:
                        self._pending[key] = event
                        return
                    del self._pending[key]  # a final state goes last, after its nodes' steps
                self._pending[key] = event
            if wake:
                self._wake.emit()
            return
        self._posted.emit(event)

    # -- main thread ---------------------------------------------------------------------------
    @Slot()
    def _on_wake(self) -> None:
        if self._closed:
            return
        if time.monotonic() - self._last_flush >= self._interval:
            self._flush()
        if not self._timer.isActive():
            self._timer.start()

    @Slot()
    def _flush(self) -> None:
        with self._lock:
            batch = list(self._pending.values())
            self._pending.clear()
        if not batch:
            self._timer.stop()
            return
        self._last_flush = time.monotonic()
        for event in batch:
            self._deliver(event)

    @Slot(object)
    def _deliver(self, event: Event) -> None:
        if self._closed:
            return
        name = _signal_key(event)
        self.delivered += 1
        try:
            if name:
                getattr(self, name).emit(event)
            self.event.emit(event)
        except Exception:
            log.exception("a handler of %s failed", type(event).__name__)

    def close(self) -> None:
        """Stop listening (before the engine or the window goes away)."""
        with self._closing:
            if self._closed:
                return
            self._closed = True
        self._timer.stop()
        try:
            self._subscription.unsubscribe()
        except Exception:
            log.exception("unsubscribing the bridge failed")
