"""Long-running remote commands: lines to callbacks as they come, and a cancel that
stops the remote process, not just our end of the channel."""

from __future__ import annotations

import collections
import logging
import threading
import time
from collections.abc import Callable

import paramiko

from xyclaw.errors import ConnectError, RemoteTimeoutError
from xyclaw.remote.chanio import ChannelReader
from xyclaw.remote.connect import Connection
from xyclaw.remote.execute import stop_group
from xyclaw.remote.procgroup import PgidSniffer
from xyclaw.remote.result import _short
from xyclaw.remote.watchdog import Watchdog

log = logging.getLogger(__name__)

LineCallback = Callable[[str], None]

MAX_LINE_BYTES = 1024 * 1024
_STATUS_WAIT_S = 5.0
_PGID_WAIT_S = 5.0


class _LineSplitter:
    """Bytes in, whole lines (without their newline) out; over-long lines come in pieces."""

    def __init__(self, emit: LineCallback, limit: int = MAX_LINE_BYTES) -> None:
        self._emit = emit
        self._limit = limit
        self._buf = bytearray()

    def feed(self, data: bytes) -> None:
        if not data:
            return
        self._buf += data
        start = 0
        while True:
            newline = self._buf.find(b"\n", start)
            if newline < 0:
                break
            for piece in range(start, newline, self._limit):
                self._emit_bytes(self._buf[piece : min(piece + self._limit, newline)])
            if newline == start:
                self._emit_bytes(b"")
            start = newline + 1
        del self._buf[:start]
        while len(self._buf) >= self._limit:
            self._emit_bytes(self._buf[: self._limit])
            del self._buf[: self._limit]

    def flush(self) -> None:
        if self._buf:
            self._emit_bytes(self._buf)
            self._buf.clear()

    def _emit_bytes(self, raw: bytes | bytearray) -> None:
        text = bytes(raw).decode("utf-8", errors="replace")
        self._emit(text[:-1] if text.endswith("\r") else text)


class StreamHandle:
    """A running remote command. Callbacks run on the handle's own reader thread."""

    def __init__(
        self,
        *,
        host: str,
        command: str,
        conn: Connection,
        chan: paramiko.Channel,
        on_line: LineCallback,
        on_stderr_line: LineCallback | None,
        timeout: float | None,
        watchdog: Watchdog,
        kill_grace_s: float,
    ) -> None:
        self.host = host
        self.command = command
        self._conn = conn
        self._chan = chan
        self._reader = ChannelReader(chan)
        self._sniffer = PgidSniffer(conn.wrap_commands)
        self._pgid_known = threading.Event()
        if self._sniffer.done:
            self._pgid_known.set()
        self._stdout = _LineSplitter(on_line)
        self._stderr_tail: collections.deque[str] = collections.deque(maxlen=20)
        self._on_stderr_line = on_stderr_line
        self._stderr = _LineSplitter(self._stderr_line)
        self._started = time.monotonic()
        self._deadline = None if timeout is None else self._started + timeout
        self._timeout = timeout
        self._watchdog = watchdog
        self._grace = kill_grace_s
        self._done = threading.Event()
        self._stop_lock = threading.Lock()
        self._stopped = False
        self._exit_code: int | None = None
        self._error: BaseException | None = None
        self.cancelled = False
        self.timed_out = False
        self._thread = threading.Thread(target=self._run, name=f"xyclaw-stream-{host}", daemon=True)

    def start(self) -> StreamHandle:
        self._thread.start()
        return self

    @property
    def done(self) -> bool:
        return self._done.is_set()

    @property
    def exit_code(self) -> int | None:
        """The remote exit code once done (-1 when the remote said none, e.g. cancelled)."""
        return self._exit_code

    @property
    def stderr_tail(self) -> list[str]:
        """The last stderr lines, for error messages."""
        return list(self._stderr_tail)

    def cancel(self, grace_s: float | None = None) -> None:
        """Stop the remote command (TERM, then KILL after ``grace_s``) and wait for the end."""
        self.cancelled = True
        self._stop_remote(self._grace if grace_s is None else grace_s)
        if threading.current_thread() is not self._thread:
            self._thread.join(timeout=_STATUS_WAIT_S + 1)

    def wait(self, timeout: float | None = None) -> int:
        """The exit code; raises if the stream failed, or if it is still running after
        ``timeout`` seconds (it keeps running then)."""
        if not self._done.wait(timeout):
            raise RemoteTimeoutError(
                f"`{_short(self.command)}` on {self.host} is still running after {timeout:g} s",
                host=self.host,
                hint="wait longer, or cancel() the stream",
            )
        if self._error is not None:
            raise self._error
        if self.timed_out:
            raise RemoteTimeoutError(
                f"`{_short(self.command)}` on {self.host} ran past its {self._timeout:g} s "
                "limit and was stopped",
                host=self.host,
                hint="pass a longer timeout to stream(), or none for open-ended commands",
            )
        assert self._exit_code is not None
        return self._exit_code

    def _stderr_line(self, line: str) -> None:
        self._stderr_tail.append(line)
        if self._on_stderr_line is not None:
            self._on_stderr_line(line)

    def _stop_remote(self, grace_s: float) -> None:
        with self._stop_lock:
            if self._stopped:
                return
            self._stopped = True
        on_reader = threading.current_thread() is self._thread
        if self._conn.wrap_commands and not self._done.is_set() and not on_reader:
            self._pgid_known.wait(_PGID_WAIT_S)
        pgid = self._sniffer.pgid
        if pgid is not None and not self._done.is_set() and self._conn.alive:
            stop_group(self._conn, pgid, host=self.host, grace_s=grace_s, watchdog=self._watchdog)
        self._chan.close()

    def _run(self) -> None:
        try:
            self._pump()
        except Exception as exc:  # a callback failed: stop the command, report it in wait()
            log.warning("stream on %s stopped: its line handler raised %r", self.host, exc)
            self._error = exc
            self._stop_remote(self._grace)
        finally:
            if self._exit_code is None:
                self._exit_code = self._chan.exit_status if self._chan.exit_status >= 0 else -1
            self._chan.close()
            self._pgid_known.set()
            self._done.set()

    def _pump(self) -> None:
        while True:
            wait = None if self._deadline is None else self._deadline - time.monotonic()
            if wait is not None and wait <= 0:
                self.timed_out = True
                self._stop_remote(self._grace)
                wait = _STATUS_WAIT_S
            out, err, ended = self._reader.read(wait)
            if err:
                err = self._sniffer.feed(err)
                if self._sniffer.done:
                    self._pgid_known.set()
            self._stdout.feed(out)
            self._stderr.feed(err)
            if ended:
                break
            if self.timed_out and not out and not err:
                break
        self._stderr.feed(self._sniffer.finish())
        self._stdout.flush()
        self._stderr.flush()
        if not self._chan.status_event.wait(_STATUS_WAIT_S):
            self._chan.close()
        if self._chan.exit_status < 0 and not self._stopped and not self._conn.alive:
            self._error = ConnectError(
                f"lost the connection to {self.host} while streaming `{_short(self.command)}`",
                host=self.host,
                hint="check that the machine is up; start the stream again to resume",
            )
        self._exit_code = self._chan.exit_status if self._chan.exit_status >= 0 else -1
