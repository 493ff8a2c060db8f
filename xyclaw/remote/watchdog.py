"""One thread that fires deadline actions, so no call waits forever on a silent server.

paramiko waits without a timeout for some replies (an ``exec`` request, an
exit status); closing the channel at the deadline is what unblocks them.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import threading
import time
from collections.abc import Callable

log = logging.getLogger(__name__)


class Watchdog:
    """Runs ``action`` at ``deadline`` (``time.monotonic()`` seconds) unless cancelled."""

    def __init__(self) -> None:
        self._heap: list[tuple[float, int, Callable[[], None]]] = []
        self._pending: set[int] = set()
        self._seq = itertools.count()
        self._cond = threading.Condition()
        self._thread: threading.Thread | None = None
        self._stopped = False

    def schedule(self, deadline: float, action: Callable[[], None]) -> Callable[[], None]:
        """Arm ``action``; returns the function that disarms it."""
        ident = next(self._seq)
        with self._cond:
            heapq.heappush(self._heap, (deadline, ident, action))
            self._pending.add(ident)
            if self._thread is None or not self._thread.is_alive():
                self._stopped = False
                self._thread = threading.Thread(
                    target=self._loop, name="xyclaw-ssh-watchdog", daemon=True
                )
                self._thread.start()
            elif self._heap[0][1] == ident:
                self._cond.notify()

        def cancel() -> None:
            with self._cond:
                self._pending.discard(ident)

        return cancel

    def stop(self) -> None:
        with self._cond:
            self._stopped = True
            self._cond.notify()
            thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=2)

    def _loop(self) -> None:
        while True:
            with self._cond:
                due: list[Callable[[], None]] = []
                while not self._stopped:
                    now = time.monotonic()
                    while self._heap and (
                        self._heap[0][1] not in self._pending or self._heap[0][0] <= now
                    ):
                        _, ident, action = heapq.heappop(self._heap)
                        if ident in self._pending:
                            self._pending.discard(ident)
                            due.append(action)
                    if due:
                        break
                    wait = self._heap[0][0] - now if self._heap else None
                    self._cond.wait(wait)
                if self._stopped:
                    self._heap.clear()
                    self._pending.clear()
                    return
            for action in due:
                try:
                    action()
                except Exception:
                    log.exception("deadline action failed")
