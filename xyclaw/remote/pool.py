"""The connection pool every remote call goes through.

One transport per host, shared by all threads; a dead one is replaced on the
next call, with exponential backoff and jitter between attempts. Every call
has a timeout. Host names are ssh aliases (resolved through the ssh config)
or explicit :class:`HostSpec` objects handed over by a provider.
"""

from __future__ import annotations

import functools
import logging
import random
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Concatenate, ParamSpec, TypeVar

import paramiko

from xyclaw.config import SshSettings
from xyclaw.errors import ConnectError, RemoteError, RemoteTimeoutError
from xyclaw.remote import execute, transfer
from xyclaw.remote.auth import AnswerPrompts, Authenticator, PasswordLookup
from xyclaw.remote.connect import Connection, Connector
from xyclaw.remote.errors import TRANSPORT_ERRORS, transport_error, transport_errors
from xyclaw.remote.forward import PortForward
from xyclaw.remote.hostspec import HostSpec, ProcessControl, SshConfigResolver
from xyclaw.remote.known_hosts import KnownHosts, TrustNewHost
from xyclaw.remote.procgroup import with_env, wrap
from xyclaw.remote.result import DEFAULT_OUTPUT_CAP, CommandResult
from xyclaw.remote.stream import LineCallback, StreamHandle
from xyclaw.remote.transfer import Progress
from xyclaw.remote.watchdog import Watchdog

log = logging.getLogger(__name__)

Host = str | HostSpec
_R = TypeVar("_R")
_P = ParamSpec("_P")


def _in_transit(
    method: Callable[Concatenate[SshPool, Host, _P], _R],
) -> Callable[Concatenate[SshPool, Host, _P], _R]:
    """The pool's public calls run inside :func:`transport_errors`: a paramiko or socket error
    that no handler below turned into a message of its own still leaves as a RemoteError."""

    @functools.wraps(method)
    def call(self: SshPool, host: Host, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        label = _label(host)
        with transport_errors(
            f"the SSH connection to {label} failed",
            host=label,
            hint="check that the machine is up; XyClaw reconnects on the next call",
        ):
            return method(self, host, *args, **kwargs)

    return call


class SshPool:
    """Thread-safe SSH access to many hosts; close it when done (or use ``with``)."""

    def __init__(
        self,
        settings: SshSettings,
        known_hosts: KnownHosts,
        *,
        trust_new_host: TrustNewHost | None = None,
        password_lookup: PasswordLookup | None = None,
        ssh_config_path: Path | None = None,
        client_keys: Sequence[paramiko.PKey] = (),
        use_agent: bool = True,
        default_identities: Sequence[Path] | None = None,
        output_cap_bytes: int = DEFAULT_OUTPUT_CAP,
        connect_attempts: int = 3,
        backoff_base_s: float = 0.25,
        backoff_max_s: float = 8.0,
        kill_grace_s: float = 2.0,
        process_control: ProcessControl = "auto",
        rng: random.Random | None = None,
        answer_prompts: AnswerPrompts | None = None,
    ) -> None:
        self.settings = settings
        self.known_hosts = known_hosts
        self._resolver = SshConfigResolver(ssh_config_path if settings.use_ssh_config else None)
        self._connector = Connector(
            known_hosts=known_hosts,
            authenticator=Authenticator(
                password_lookup=password_lookup,
                client_keys=client_keys,
                use_agent=use_agent,
                default_identities=default_identities,
                answer_prompts=answer_prompts,
            ),
            connect_timeout_s=settings.connect_timeout_s,
            keepalive_s=settings.keepalive_s,
            trust_new_host=trust_new_host,
            process_control=process_control,
        )
        self._cap = output_cap_bytes
        self._attempts = max(1, connect_attempts)
        self._backoff_base = backoff_base_s
        self._backoff_max = backoff_max_s
        self._grace = kill_grace_s
        self._rng = rng or random.Random()
        self._watchdog = Watchdog()
        self._lock = threading.Lock()
        self._conns: dict[HostSpec, Connection] = {}
        self._connect_locks: dict[HostSpec, threading.Lock] = {}
        self._closed = False

    # -- public API -------------------------------------------------------------------

    def resolve(self, host: Host) -> HostSpec:
        """What ``host`` means: its ssh-config entry, or the spec itself."""
        return host if isinstance(host, HostSpec) else self._resolver.resolve(host)

    @_in_transit
    def connect(self, host: Host) -> None:
        """Make sure a live connection to ``host`` exists (connects if needed)."""
        self._connection(self.resolve(host))

    def connect_many(self, hosts: Iterable[Host]) -> dict[str, RemoteError | None]:
        """Connect to all ``hosts`` at once; ``None`` for each that worked."""

        def connect_one(host: Host) -> None:
            self.connect(host)

        return self._fan_out(hosts, connect_one)

    @_in_transit
    def run(
        self,
        host: Host,
        cmd: str,
        timeout: float | None = None,
        env: Mapping[str, str] | None = None,
    ) -> CommandResult:
        """Run ``cmd`` and return its exit code and (capped) output.

        A command still running after ``timeout`` seconds (default
        ``settings.command_timeout_s``) is stopped on the host and
        :class:`~xyclaw.remote.errors.CommandTimeoutError` is raised.
        """
        spec = self.resolve(host)
        started = time.monotonic()
        deadline = started + (self.settings.command_timeout_s if timeout is None else timeout)
        conn, chan = self._open_session(spec, deadline)
        line = with_env(cmd, env)
        if conn.wrap_commands:
            line = wrap(line)
        label = _label(host)
        execute.start_command(
            conn, chan, line, host=label, deadline=deadline, watchdog=self._watchdog
        )
        return execute.collect(
            conn,
            chan,
            host=label,
            command=cmd,
            cap=self._cap,
            started=started,
            deadline=deadline,
            watchdog=self._watchdog,
            kill_grace_s=self._grace,
        )

    def run_many(
        self,
        hosts: Iterable[Host],
        cmd: str,
        timeout: float | None = None,
        env: Mapping[str, str] | None = None,
    ) -> dict[str, CommandResult | RemoteError]:
        """Run ``cmd`` on every host, ``settings.max_parallel`` at a time; a host that
        fails gets its error in the result and never stops the others."""

        def run_one(host: Host) -> CommandResult:
            return self.run(host, cmd, timeout=timeout, env=env)

        return self._fan_out(hosts, run_one)

    @_in_transit
    def stream(
        self,
        host: Host,
        cmd: str,
        on_line: LineCallback,
        on_stderr_line: LineCallback | None = None,
        timeout: float | None = None,
        env: Mapping[str, str] | None = None,
    ) -> StreamHandle:
        """Start ``cmd`` and feed its output lines to the callbacks as they come.

        ``timeout`` bounds the command's whole life (``None``: open-ended);
        ``cancel()`` on the handle stops the remote process group.
        """
        spec = self.resolve(host)
        start_by = time.monotonic() + self.settings.command_timeout_s
        conn, chan = self._open_session(spec, start_by)
        line = with_env(cmd, env)
        if conn.wrap_commands:
            line = wrap(line)
        handle = StreamHandle(
            host=_label(host),
            command=cmd,
            conn=conn,
            chan=chan,
            on_line=on_line,
            on_stderr_line=on_stderr_line,
            timeout=timeout,
            watchdog=self._watchdog,
            kill_grace_s=self._grace,
        )
        execute.start_command(
            conn, chan, line, host=_label(host), deadline=start_by, watchdog=self._watchdog
        )
        return handle.start()

    @_in_transit
    def upload(
        self,
        host: Host,
        local: Path,
        remote: str,
        progress: Progress | None = None,
        timeout: float | None = None,
    ) -> int:
        """Copy a local file to ``host``; ``timeout`` is how long it may stall (no progress)."""
        spec = self.resolve(host)
        conn = self._connection(spec)
        return transfer.upload(
            conn,
            spec.alias,
            Path(local),
            remote,
            progress=progress,
            stall_s=self.settings.command_timeout_s if timeout is None else timeout,
            watchdog=self._watchdog,
        )

    @_in_transit
    def download(
        self,
        host: Host,
        remote: str,
        local: Path,
        progress: Progress | None = None,
        timeout: float | None = None,
    ) -> int:
        """Copy a file from ``host``; the local file appears whole or not at all."""
        spec = self.resolve(host)
        conn = self._connection(spec)
        return transfer.download(
            conn,
            spec.alias,
            remote,
            Path(local),
            progress=progress,
            stall_s=self.settings.command_timeout_s if timeout is None else timeout,
            watchdog=self._watchdog,
        )

    @_in_transit
    def forward(self, host: Host, remote_port: int, *, local_port: int = 0) -> PortForward:
        """A port of this machine (127.0.0.1) tunnelled to ``remote_port`` on ``host`` over the
        pooled SSH connection; ``close()`` it when done (the connection stays)."""
        spec = self.resolve(host)
        conn = self._connection(spec)
        return PortForward(
            conn.transport, remote_port, local_port=local_port, host_label=spec.alias
        ).start()

    def is_connected(self, host: Host) -> bool:
        spec = self.resolve(host)
        with self._lock:
            conn = self._conns.get(spec)
        return conn is not None and conn.alive

    def disconnect(self, host: Host) -> None:
        """Drop the connection to ``host`` (streams on it end)."""
        spec = self.resolve(host)
        with self._lock:
            conn = self._conns.pop(spec, None)
        if conn is not None:
            conn.close()

    def close(self) -> None:
        """Close every connection; the pool can still be used afterwards."""
        with self._lock:
            conns = list(self._conns.values())
            self._conns.clear()
        # Tunnelled connections first, then the jump hosts they went through.
        for conn in sorted(conns, key=lambda c: -_depth(c.spec)):
            conn.close()
        self._watchdog.stop()

    def __enter__(self) -> SshPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- internals --------------------------------------------------------------------

    def _fan_out(
        self, hosts: Iterable[Host], call: Callable[[Host], _R]
    ) -> dict[str, _R | RemoteError]:
        unique: dict[str, Host] = {}
        for host in hosts:
            unique.setdefault(_label(host), host)
        results: dict[str, _R | RemoteError] = {}
        if not unique:
            return results

        def one(label: str, host: Host) -> tuple[str, _R | RemoteError]:
            try:
                return label, call(host)
            except RemoteError as exc:
                return label, exc
            except Exception as exc:  # one host's surprise must not sink the others
                log.exception("unexpected failure on %s", label)
                return label, RemoteError(
                    f"unexpected failure on {label}: {type(exc).__name__}: {exc}",
                    host=label,
                    hint="this is a bug in XyClaw; the log has the details",
                )

        workers = min(self.settings.max_parallel, len(unique))
        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="xyclaw-ssh") as pool:
            for label, outcome in pool.map(lambda item: one(*item), unique.items()):
                results[label] = outcome
        return results

    def _open_session(self, spec: HostSpec, deadline: float) -> tuple[Connection, paramiko.Channel]:
        for attempt in (0, 1):
            conn = self._connection(spec)
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise RemoteTimeoutError(
                    f"connecting to {spec.describe()} used up the command's timeout",
                    host=spec.alias,
                    hint="pass a longer timeout, or check why connecting is slow",
                )
            try:
                chan = conn.transport.open_session(
                    timeout=min(remaining, self.settings.connect_timeout_s)
                )
            except paramiko.ChannelException as exc:
                raise RemoteError(
                    f"{spec.alias} refused a new session ({exc.text})",
                    host=spec.alias,
                    hint="too many commands at once on this host (sshd MaxSessions, "
                    "default 10); run fewer in parallel",
                ) from exc
            except TRANSPORT_ERRORS as exc:
                self._drop(spec, conn)
                if attempt:
                    raise transport_error(
                        exc,
                        f"lost the connection to {spec.describe()} and could not open a "
                        "session after reconnecting",
                        host=spec.alias,
                        hint="check that the machine is up and not overloaded",
                    ) from exc
                log.info("connection to %s went stale; reconnecting", spec.alias)
                continue
            return conn, chan
        raise AssertionError("unreachable")

    def _connection(self, spec: HostSpec) -> Connection:
        with self._lock:
            conn = self._conns.get(spec)
            if conn is not None and conn.alive:
                return conn
            lock = self._connect_locks.setdefault(spec, threading.Lock())
        with lock:
            with self._lock:
                conn = self._conns.get(spec)
            if conn is not None:
                if conn.alive:
                    return conn
                self._drop(spec, conn)
            conn = self._connect_with_retry(spec)
            with self._lock:
                self._conns[spec] = conn
            return conn

    def _connect_with_retry(self, spec: HostSpec) -> Connection:
        last: RemoteError | None = None
        for attempt in range(self._attempts):
            if attempt:
                time.sleep(self._backoff(attempt))
            via = None
            if spec.jump is not None:
                try:
                    via = self._connection(spec.jump).transport
                except RemoteError as exc:  # the jump host was already retried
                    raise _through_jump(spec, exc) from exc
            try:
                return self._connector.open(spec, via)
            except (ConnectError, RemoteTimeoutError) as exc:
                last = exc
                log.info(
                    "connecting to %s failed (attempt %d of %d): %s",
                    spec.alias,
                    attempt + 1,
                    self._attempts,
                    exc.message,
                )
        assert last is not None
        raise last

    def _backoff(self, attempt: int) -> float:
        delay = min(self._backoff_max, self._backoff_base * 2.0 ** (attempt - 1))
        return delay * self._rng.uniform(0.5, 1.5)

    def _drop(self, spec: HostSpec, conn: Connection) -> None:
        with self._lock:
            if self._conns.get(spec) is conn:
                del self._conns[spec]
        conn.close()


def _label(host: Host) -> str:
    return host if isinstance(host, str) else host.alias


def _depth(spec: HostSpec) -> int:
    depth = 0
    jump = spec.jump
    while jump is not None:
        depth += 1
        jump = jump.jump
    return depth


def _through_jump(spec: HostSpec, exc: RemoteError) -> RemoteError:
    assert spec.jump is not None
    return type(exc)(
        f"cannot reach {spec.alias} through jump host {spec.jump.alias}: {exc.message}",
        host=spec.alias,
        hint=exc.hint,
    )
