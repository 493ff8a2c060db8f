"""The network path between a client and a simulated node: latency, loss and hangs.

paramiko's Transport talks to a `ConditionedSocket`; with no fault active
it is a thin pass-through. With a slow link, everything the server sends
is delivered `delay_s` later (in order, as TCP would); with loss, some
segments wait a retransmission timeout first; a hung node reads nothing
and sends nothing.
"""

from __future__ import annotations

import collections
import contextlib
import random
import socket
import threading
import time

RETRANSMIT_S = 0.2
IDLE_POLL_S = 1.0


class LinkConditions:
    """Shared by every connection of one node."""

    def __init__(self, seed: str) -> None:
        self._cond = threading.Condition()
        self.delay_s = 0.0
        self.loss = 0.0
        self._hung = False
        self._rng = random.Random(seed)

    @property
    def hung(self) -> bool:
        return self._hung

    @property
    def active(self) -> bool:
        return self._hung or self.delay_s > 0 or self.loss > 0

    def set_slow(self, delay_s: float, loss: float) -> None:
        with self._cond:
            self.delay_s = max(0.0, delay_s)
            self.loss = min(1.0, max(0.0, loss))
            self._cond.notify_all()

    def set_hung(self, hung: bool) -> None:
        with self._cond:
            self._hung = hung
            self._cond.notify_all()

    def extra_delay(self) -> float:
        """Latency for one segment sent now: the delay, plus a retransmission when it is lost."""
        with self._cond:
            extra = self.delay_s
            if self.loss > 0:
                timeout = RETRANSMIT_S
                while self._rng.random() < self.loss and timeout < 3.2:
                    extra += timeout
                    timeout *= 2
            return extra

    def wait_while_hung(self, timeout: float) -> bool:
        """Block while hung (up to timeout); True when the link is usable."""
        with self._cond:
            if self._hung:
                self._cond.wait(timeout)
            return not self._hung


class ConditionedSocket:
    """The socket a server-side paramiko Transport uses."""

    def __init__(self, sock: socket.socket, link: LinkConditions) -> None:
        self._sock = sock
        self._link = link
        self._queue: collections.deque[tuple[float, bytes]] = collections.deque()
        self._qcond = threading.Condition()
        self._sender: threading.Thread | None = None
        self._broken: OSError | None = None
        self._closed_flag = False
        self._timeout: float | None = None

    # paramiko looks at these
    @property
    def _closed(self) -> bool:
        return self._closed_flag

    def settimeout(self, value: float | None) -> None:
        # paramiko polls every 0.1 s; an idle server connection need not wake that often
        # (closing it shuts the socket down, which wakes the reader at once).
        value = None if value is None else max(value, IDLE_POLL_S)
        self._timeout = value
        self._sock.settimeout(value)

    def gettimeout(self) -> float | None:
        return self._sock.gettimeout()

    def getpeername(self) -> tuple[str, int]:
        peer = self._sock.getpeername()
        return (str(peer[0]), int(peer[1]))

    def getsockname(self) -> tuple[str, int]:
        name = self._sock.getsockname()
        return (str(name[0]), int(name[1]))

    def fileno(self) -> int:
        return self._sock.fileno()

    def setsockopt(self, *args: int) -> None:
        self._sock.setsockopt(*args)

    def recv(self, size: int) -> bytes:
        if self._link.hung and not self._link.wait_while_hung(self._timeout or 0.1):
            raise TimeoutError("hung")
        return self._sock.recv(size)

    def send(self, data: bytes) -> int:
        if self._broken is not None:
            raise self._broken
        if not self._link.active:
            with self._qcond:
                if not self._queue:
                    return self._sock.send(data)
        due = time.monotonic() + self._link.extra_delay()
        with self._qcond:
            self._queue.append((due, bytes(data)))
            self._qcond.notify_all()
            if self._sender is None:
                self._sender = threading.Thread(target=self._drain, daemon=True, name="sim-link")
                self._sender.start()
        return len(data)

    def _drain(self) -> None:
        while True:
            with self._qcond:
                while not self._queue and not self._closed_flag:
                    self._qcond.wait(0.5)
                if self._closed_flag:
                    return
                due, data = self._queue[0]
            while True:
                wait = due - time.monotonic()
                if wait > 0:
                    time.sleep(min(wait, 0.1))
                    if self._closed_flag:
                        return
                    continue
                if not self._link.wait_while_hung(0.2):
                    if self._closed_flag:
                        return
                    continue
                break
            try:
                self._sock.sendall(data)
            except OSError as exc:
                self._broken = exc
                return
            with self._qcond:
                if self._queue:
                    self._queue.popleft()

    def shutdown(self, how: int) -> None:
        with contextlib.suppress(OSError):
            self._sock.shutdown(how)

    def close(self) -> None:
        with self._qcond:
            self._closed_flag = True
            self._qcond.notify_all()
        with contextlib.suppress(OSError):
            self._sock.close()
