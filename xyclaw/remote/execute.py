"""Running one command on an open connection: output capped, time bounded."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import paramiko

from xyclaw.errors import ConnectError, RemoteError
from xyclaw.remote.chanio import ChannelReader
from xyclaw.remote.connect import Connection
from xyclaw.remote.errors import TRANSPORT_ERRORS, CommandTimeoutError
from xyclaw.remote.procgroup import PgidSniffer, kill_script
from xyclaw.remote.result import CommandResult, _short
from xyclaw.remote.watchdog import Watchdog


@dataclass
class _Capture:
    cap: int
    data: bytearray = field(default_factory=bytearray)
    truncated: bool = False

    def add(self, chunk: bytes) -> None:
        if not chunk:
            return
        room = self.cap - len(self.data)
        if room > 0:
            self.data += chunk[:room]
        if len(chunk) > room:
            self.truncated = True

    def text(self) -> str:
        return self.data.decode("utf-8", errors="replace")


def start_command(
    conn: Connection,
    chan: paramiko.Channel,
    line: str,
    *,
    host: str,
    deadline: float,
    watchdog: Watchdog,
) -> None:
    """Send the exec request; a server that never answers is cut off at ``deadline``."""
    disarm = watchdog.schedule(deadline, chan.close)
    try:
        chan.exec_command(line)
    except TRANSPORT_ERRORS as exc:
        if chan.exit_status >= 0 or chan.recv_ready() or chan.recv_stderr_ready():
            return  # it ran and finished before its "started" reply reached us
        chan.close()
        if time.monotonic() >= deadline:
            raise CommandTimeoutError(
                f"{host} did not start the command before its timeout",
                host=host,
                hint="the machine may be hung; check it in the provider's console",
            ) from exc
        if not conn.alive:
            raise ConnectError(
                f"lost the connection to {host} while starting a command",
                host=host,
                hint="check that the machine is up; XyClaw reconnects on the next call",
            ) from exc
        raise RemoteError(
            f"{host} refused to run the command: {exc}",
            host=host,
            hint="the server may forbid command execution for this user (ForceCommand)",
        ) from exc
    finally:
        disarm()


def collect(
    conn: Connection,
    chan: paramiko.Channel,
    *,
    host: str,
    command: str,
    cap: int,
    started: float,
    deadline: float,
    watchdog: Watchdog,
    kill_grace_s: float,
) -> CommandResult:
    """Read the command's output and exit status; stop it remotely if it runs too long."""
    reader = ChannelReader(chan)
    sniffer = PgidSniffer(conn.wrap_commands)
    out, err = _Capture(cap), _Capture(cap)
    disarm = watchdog.schedule(deadline, chan.close)
    try:
        ended = False
        while not ended:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            o, e, ended = reader.read(remaining)
            out.add(o)
            err.add(sniffer.feed(e))
        err.add(sniffer.finish())
        got_status = ended and chan.status_event.wait(max(0.0, deadline - time.monotonic()))
    finally:
        disarm()

    def result(code: int) -> CommandResult:
        return CommandResult(
            host=host,
            command=command,
            exit_code=code,
            stdout=out.text(),
            stderr=err.text(),
            stdout_truncated=out.truncated,
            stderr_truncated=err.truncated,
            cap_bytes=cap,
            duration_s=time.monotonic() - started,
        )

    timed_out = time.monotonic() >= deadline and not (got_status and chan.exit_status >= 0)
    if timed_out:
        if sniffer.pgid is not None and conn.alive:
            stop_group(conn, sniffer.pgid, host=host, grace_s=kill_grace_s, watchdog=watchdog)
        chan.close()
        partial = result(-1)
        raise CommandTimeoutError(
            f"`{_short(command)}` on {host} did not finish within "
            f"{deadline - started:.3g} s and was stopped",
            host=host,
            hint="pass a longer timeout, or use stream() for long-running commands",
            result=partial,
        )
    chan.close()
    if chan.exit_status < 0 and not conn.alive:
        raise ConnectError(
            f"lost the connection to {host} while `{_short(command)}` was running",
            host=host,
            hint="check that the machine is up; the command may or may not have finished",
        )
    return result(chan.exit_status)


def stop_group(
    conn: Connection, pgid: int, *, host: str, grace_s: float, watchdog: Watchdog
) -> None:
    """TERM, then KILL, the remote process group ``pgid``; returns when it is gone."""
    deadline = time.monotonic() + grace_s + 10.0
    try:
        chan = conn.transport.open_session(timeout=10.0)
    except TRANSPORT_ERRORS:
        return  # the watcher in the wrapper stops the group once our channel closes
    try:
        start_command(
            conn,
            chan,
            kill_script(pgid, grace_s),
            host=host,
            deadline=deadline,
            watchdog=watchdog,
        )
        disarm = watchdog.schedule(deadline, chan.close)
        try:
            chan.status_event.wait(max(0.0, deadline - time.monotonic()))
        finally:
            disarm()
    except RemoteError:
        pass  # best effort: the channel close below still triggers the wrapper's watcher
    finally:
        chan.close()
