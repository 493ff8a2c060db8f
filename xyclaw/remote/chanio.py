"""Reading a channel's stdout and stderr together, so neither can block the other."""

from __future__ import annotations

import threading

import paramiko

_CHUNK = 65536


class ChannelReader:
    """Waits on one event that paramiko sets whenever either stream has data or closes."""

    def __init__(self, chan: paramiko.Channel) -> None:
        self.chan = chan
        self.wakeup = threading.Event()
        chan.in_buffer.set_event(self.wakeup)
        chan.in_stderr_buffer.set_event(self.wakeup)

    def read(self, timeout: float | None) -> tuple[bytes, bytes, bool]:
        """``(stdout, stderr, ended)``: what is there now, waiting up to ``timeout`` for some."""
        out, err = self._drain()
        if out or err:
            return out, err, False
        if self.ended():
            return b"", b"", True
        self.wakeup.wait(timeout)
        out, err = self._drain()
        return out, err, not (out or err) and self.ended()

    def ended(self) -> bool:
        """No more output will come (EOF or closed) and nothing is left to read."""
        chan = self.chan
        return bool(
            (chan.eof_received or chan.closed)
            and not chan.recv_ready()
            and not chan.recv_stderr_ready()
        )

    def _drain(self) -> tuple[bytes, bytes]:
        chan = self.chan
        out = bytearray()
        err = bytearray()
        while chan.recv_ready():
            data = chan.recv(_CHUNK)
            if not data:
                break
            out += data
        while chan.recv_stderr_ready():
            data = chan.recv_stderr(_CHUNK)
            if not data:
                break
            err += data
        return bytes(out), bytes(err)
