"""How a collector reaches one node: long-running streams and one-off commands.

Rented and own hosts go through the engine's SSH pool (one transport per
host, shared with everything else); the local provider's node is this
machine, read with a subprocess.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import subprocess
import threading
from collections.abc import Callable
from typing import Protocol

from xyclaw.errors import ConnectError, RemoteError
from xyclaw.records import ClusterRecord, NodeRecord
from xyclaw.records.provider_view import LOCAL_HOST
from xyclaw.remote import CommandResult, HostSpec
from xyclaw.remote.node_access import NodeAccess, run_locally

log = logging.getLogger(__name__)


class Stream(Protocol):
    @property
    def done(self) -> bool: ...

    @property
    def exit_code(self) -> int | None: ...

    def cancel(self, grace_s: float | None = None) -> None: ...


class NodeLink:
    """Streams and commands on one node of one cluster."""

    def __init__(self, access: NodeAccess, cluster: ClusterRecord, node: NodeRecord) -> None:
        self._access = access
        self._cluster = cluster
        self._node = node
        self._target: HostSpec | str | None = None
        self.name = node.name

    @property
    def local(self) -> bool:
        return self._node.ssh_host == LOCAL_HOST

    def _host(self) -> HostSpec | str:
        """The node's SSH target, its host key trusted once (not on every command: the
        collector runs one every few seconds for as long as it watches)."""
        if self._target is None:
            target = self._access.target(self._cluster, self._node)
            self._access.trust(self._node)
            self._target = target
        return self._target

    def stream(self, command: str, on_line: Callable[[str], None]) -> Stream:
        """Start ``command``; its stdout lines go to ``on_line`` on the stream's own thread."""
        if self.local:
            return LocalStream(command, on_line).start()
        return self._access.pool.stream(self._host(), command, on_line)

    def run(self, command: str, timeout: float) -> CommandResult:
        if self.local:
            return run_locally(command, timeout)
        return self._access.pool.run(self._host(), command, timeout=timeout)

    def drop(self) -> None:
        """Close the connection (a hung node): the next stream or command connects afresh."""
        if self.local:
            return
        try:
            self._access.pool.disconnect(self._host())
        except RemoteError as exc:
            log.debug("dropping the connection to %s: %s", self.name, exc.message)


class LocalStream:
    """A command on this machine with the same face as a remote stream."""

    def __init__(self, command: str, on_line: Callable[[str], None]) -> None:
        self._command = command
        self._on_line = on_line
        self._proc: subprocess.Popen[str] | None = None
        self._done = threading.Event()
        self._exit_code: int | None = None
        self._thread = threading.Thread(target=self._run, name="telemetry-local", daemon=True)

    def start(self) -> LocalStream:
        try:
            self._proc = subprocess.Popen(
                ["bash", "-c", self._command],
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                stdin=subprocess.DEVNULL,
                text=True,
                start_new_session=True,
            )
        except OSError as exc:
            raise ConnectError(
                f"cannot start `{self._command[:60]}` on this machine: {exc}",
                host=LOCAL_HOST,
                hint="check that bash is installed",
            ) from exc
        self._thread.start()
        return self

    @property
    def done(self) -> bool:
        return self._done.is_set()

    @property
    def exit_code(self) -> int | None:
        return self._exit_code

    def cancel(self, grace_s: float | None = None) -> None:
        proc = self._proc
        if proc is not None and proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=2.0 if grace_s is None else grace_s)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
        self._thread.join(timeout=5)

    def _run(self) -> None:
        proc = self._proc
        assert proc is not None and proc.stdout is not None
        try:
            for line in proc.stdout:
                self._on_line(line.rstrip("\n"))
        except Exception:
            log.exception("local telemetry stream stopped")
        finally:
            self._exit_code = proc.wait()
            self._done.set()
