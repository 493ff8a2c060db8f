"""The maintenance loop that the desktop app, ``xyclaw guard`` and the background guard run.

Reconcile and telemetry come every ``reconcile.interval_s``. The guard's pass
comes when the money says so: at :meth:`Guard.next_check` (a budget's warning
level or the budget itself at the current rate, an idle limit), at the latest
every ``guard.interval_s``, and at once when the history changes (a new
cluster, a budget moved, a node started; looked at every ``guard.poll_s``).
Only the process that holds the data folder's guard lock runs the pass, so two
processes never enforce at once. Every look starts by adopting the running jobs that
no process follows (each job's own follower lock keeps it to one follower). The
background guard also ends the loop once nothing has been live for
``exit_when_idle_s``.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from xyclaw.billing.guard_process import GuardLock, Holder
from xyclaw.config import GuardSettings
from xyclaw.engine.guard import Guard, GuardReport
from xyclaw.errors import XyclawError
from xyclaw.wording import Said

log = logging.getLogger(__name__)


def _safely(name: str, step: Callable[[], Any]) -> Any:
    try:
        return step()
    except XyclawError as exc:
        log.warning("maintenance step %s failed: %s", name, exc)
    except Exception:
        log.exception("maintenance step %s crashed", name)
    return None


class Maintenance:
    """One loop on one thread; ``start`` once, ``stop`` (or let it end by itself)."""

    def __init__(
        self,
        *,
        guard: Guard,
        reconcile: Callable[[], Any],
        tick: Callable[[], GuardReport],
        sync_telemetry: Callable[[], Any],
        live_count: Callable[[], int],
        lock: GuardLock | None,
        holder: Holder = Holder.DESKTOP,
        reconcile_interval_s: float,
        settings: GuardSettings,
        exit_when_idle_s: float | None = None,
        on_report: Callable[[GuardReport], None] | None = None,
        clock: Callable[[], float] = time.time,
        adopt_jobs: Callable[[], Any] | None = None,
    ) -> None:
        self._adopt_jobs = adopt_jobs
        self._guard = guard
        self._reconcile = reconcile
        self._tick = tick
        self._sync_telemetry = sync_telemetry
        self._live_count = live_count
        self._lock = lock
        self._holder = holder
        self._reconcile_interval_s = reconcile_interval_s
        self._settings = settings
        self._exit_when_idle_s = exit_when_idle_s
        self._on_report = on_report
        self._clock = clock
        self._stop = threading.Event()
        self._done = threading.Event()
        self._thread: threading.Thread | None = None
        self.passes = 0

    @property
    def enforcing(self) -> bool:
        """True when this loop runs the guard's pass (it holds the lock; a loop whose lock
        another process holds tries again at every look, and takes over once it is free)."""
        return self._lock is not None and self._lock.held

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="maintenance", daemon=True)
            self._thread.start()

    def stop(self, timeout: float = 30.0) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=timeout)

    def wait(self, timeout: float | None = None) -> bool:
        """True once the loop has ended (stopped, or nothing live for long enough)."""
        return self._done.wait(timeout)

    def _run(self) -> None:
        try:
            self._loop()
        finally:
            self._guard.begin_watching(None)
            self._done.set()

    def _loop(self) -> None:
        now = self._clock()
        next_reconcile = now
        next_pass = now
        seen: object = None
        quiet_since: float | None = None
        if self.enforcing:
            lock = self._lock
            self._guard.begin_watching(lock.started_at if lock is not None else None)
        while not self._stop.is_set():
            if self._adopt_jobs is not None:  # before anything else: a job nobody follows
                _safely("jobs", self._adopt_jobs)
            now = self._clock()
            if now >= next_reconcile:
                _safely("reconcile", self._reconcile)
                _safely("telemetry", self._sync_telemetry)
                next_reconcile = self._clock() + self._reconcile_interval_s
            if not self.enforcing and self._take_lock():
                log.info("this process runs the guard now")
                self._guard.begin_watching(self._clock())
                seen = None
            if self.enforcing:
                now = self._clock()
                changed = _safely("history", self._guard.fingerprint) != seen
                if changed or now >= next_pass:
                    next_pass = self._pass(now)
                    seen = _safely("history", self._guard.fingerprint)
            if self._exit_when_idle_s is not None:
                live = _safely("history", self._live_count)
                now = self._clock()
                if live == 0:
                    quiet_since = now if quiet_since is None else quiet_since
                    if now - quiet_since >= self._exit_when_idle_s:
                        log.info("nothing live for %.0f s: the guard stops", now - quiet_since)
                        return
                elif live is not None:
                    quiet_since = None
            wake = min(next_reconcile, self._clock() + self._settings.poll_s)
            if self.enforcing:
                wake = min(wake, next_pass)
            if self._stop.wait(max(0.0, wake - self._clock())):
                return

    def _take_lock(self) -> bool:
        """Try once: the guard that held the lock may have ended; then this process is it."""
        lock = self._lock
        if lock is None:
            return False
        return bool(_safely("lock", lambda: lock.acquire(self._holder, wait_s=0.0)))

    def _pass(self, now: float) -> float:
        """The guard's pass; returns when the next one is due."""
        report: GuardReport | None = _safely("guard", self._tick)
        self.passes += 1
        due = now + self._settings.interval_s
        reason: Said | None = None
        if report is not None:
            for line in report.lines():
                log.info("guard: %s", line)
            if report.next_check_at is not None:
                due, reason = report.next_check_at, report.next_reason_said
            if report.errors:  # a provider that failed is asked again, but not at once
                due = max(due, now + min(self._settings.interval_s, 10.0))
            on_report = self._on_report
            if on_report is not None:
                _safely("report", lambda: on_report(report))
        due = max(due, self._clock() + 0.05)  # never a busy loop
        lock = self._lock
        if lock is not None:
            live = _safely("history", self._live_count)
            _safely(
                "heartbeat",
                lambda: lock.heartbeat(
                    next_check_at=due,
                    next_reason=None if reason is None else str(reason),
                    next_reason_said=reason,
                    live_clusters=int(live or 0),
                ),
            )
        return due
