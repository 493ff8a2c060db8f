"""A pool of daemon threads for SSH sessions: starting a thread costs more than a trivial command.

Idle workers wait for the next session and leave after a while; a
session never waits for a free worker (a new one starts instead), so a
long-running command cannot hold up the others.
"""

from __future__ import annotations

import collections
import logging
import threading
import time
from collections.abc import Callable

log = logging.getLogger(__name__)


class WorkerPool:
    def __init__(self, *, idle_s: float = 30.0, name: str = "sim-session") -> None:
        self._cond = threading.Condition()
        self._queue: collections.deque[Callable[[], None]] = collections.deque()
        self._idle = 0
        self._idle_s = idle_s
        self._name = name

    def submit(self, work: Callable[[], None]) -> None:
        with self._cond:
            if self._idle > len(self._queue):
                self._queue.append(work)
                self._cond.notify()
                return
        threading.Thread(target=self._work, args=(work,), daemon=True, name=self._name).start()

    def _work(self, work: Callable[[], None] | None) -> None:
        while work is not None:
            try:
                work()
            except Exception:  # a failing session must not take the worker down
                log.exception("simulated session failed")
            work = self._next()

    def _next(self) -> Callable[[], None] | None:
        with self._cond:
            self._idle += 1
            try:
                deadline = time.monotonic() + self._idle_s
                while not self._queue:
                    remaining = deadline - time.monotonic()
                    if remaining <= 0:
                        return None
                    self._cond.wait(remaining)
                return self._queue.popleft()
            finally:
                self._idle -= 1


SESSIONS = WorkerPool()
