"""A local port forwarded to a port on a remote host over an existing SSH connection.

What ``ssh -L 127.0.0.1:0:127.0.0.1:8000 node`` does: :class:`PortForward`
listens on this machine's loopback and, for each connection it accepts,
opens a ``direct-tcpip`` channel on the transport to ``remote_host:remote_port``
as the remote host sees it, and copies bytes both ways (half-closes
included) until either side is done. A service a job started on a node
(``vllm serve ... --port 8000``) is then ``http://127.0.0.1:<local port>``
here. Closing the forward stops listening and ends every tunnelled
connection; the SSH connection itself is left as it was.
"""

from __future__ import annotations

import contextlib
import logging
import select
import socket
import threading
from dataclasses import dataclass

import paramiko

from xyclaw.errors import RemoteError
from xyclaw.remote.errors import TRANSPORT_ERRORS

log = logging.getLogger(__name__)

_CHUNK = 65536
_IDLE_WAKE_S = 1.0


class ForwardError(RemoteError):
    """A local port could not be opened for forwarding."""


@dataclass
class ForwardStats:
    """Counters a service view samples (connections, failures, bytes each way)."""

    accepted: int = 0
    active: int = 0
    failed_opens: int = 0
    bytes_to_remote: int = 0
    bytes_from_remote: int = 0
    last_error: str | None = None


class PortForward:
    """Forward ``local_host:local_port`` (0: any free port) to ``remote_host:remote_port``."""

    def __init__(
        self,
        transport: paramiko.Transport,
        remote_port: int,
        *,
        remote_host: str = "127.0.0.1",
        local_host: str = "127.0.0.1",
        local_port: int = 0,
        host_label: str | None = None,
        open_timeout_s: float = 10.0,
    ) -> None:
        if not 1 <= remote_port <= 65535:
            raise ForwardError(
                f"remote port {remote_port} is out of range", hint="use a port from 1 to 65535"
            )
        self._transport = transport
        self.remote = (remote_host, remote_port)
        self._local = (local_host, local_port)
        self.host = host_label or remote_host
        self._open_timeout = open_timeout_s
        self._listener: socket.socket | None = None
        self._accept_thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._pairs: set[tuple[socket.socket, paramiko.Channel]] = set()
        self._threads: set[threading.Thread] = set()
        self._closed = False
        self.stats = ForwardStats()

    # -- public API -------------------------------------------------------------------

    def start(self) -> PortForward:
        """Start listening; raises :class:`ForwardError` when the local port is not free."""
        if self._listener is not None:
            return self
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            listener.bind(self._local)
            listener.listen(64)
        except OSError as exc:
            listener.close()
            raise ForwardError(
                f"cannot listen on {self._local[0]}:{self._local[1]} to forward "
                f"{self.host}:{self.remote[1]}: {exc.strerror or exc}",
                host=self.host,
                hint="pick another local port (0 takes any free one) or stop what holds it",
            ) from exc
        self._listener = listener
        self._accept_thread = threading.Thread(
            target=self._accept_loop, name=f"xyclaw-fwd-{self.host}", daemon=True
        )
        self._accept_thread.start()
        return self

    @property
    def local_address(self) -> tuple[str, int]:
        if self._listener is None:
            raise ForwardError(
                f"the forward to {self.host}:{self.remote[1]} is not started",
                host=self.host,
                hint="call start() first",
            )
        address = self._listener.getsockname()
        return str(address[0]), int(address[1])

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT`` for an HTTP service behind the forward."""
        host, port = self.local_address
        return f"http://{host}:{port}"

    @property
    def alive(self) -> bool:
        """Listening, and the SSH connection is still up."""
        return not self._closed and self._listener is not None and self._transport.is_active()

    def close(self) -> None:
        """Stop listening and end every forwarded connection; waits for their threads."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            pairs = list(self._pairs)
            listener, self._listener = self._listener, None
        if listener is not None:
            with contextlib.suppress(OSError):
                listener.shutdown(socket.SHUT_RDWR)
            listener.close()
        for sock, chan in pairs:
            _close_pair(sock, chan)
        if (
            self._accept_thread is not None
            and self._accept_thread is not threading.current_thread()
        ):
            self._accept_thread.join(5.0)
        with self._lock:
            threads = list(self._threads)
        for thread in threads:
            thread.join(5.0)

    def __enter__(self) -> PortForward:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- internals --------------------------------------------------------------------

    def _accept_loop(self) -> None:
        listener = self._listener
        assert listener is not None
        while True:
            try:
                conn, peer = listener.accept()
            except OSError:
                return  # closed
            if self._closed:
                conn.close()
                return
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            with self._lock:
                self.stats.accepted += 1
            thread = threading.Thread(
                target=self._serve, args=(conn, peer), name=f"xyclaw-fwd-{self.host}", daemon=True
            )
            with self._lock:
                self._threads.add(thread)
            thread.start()

    def _serve(self, conn: socket.socket, peer: tuple[str, int]) -> None:
        try:
            chan = self._open(peer)
            if chan is None:
                conn.close()
                return
            with self._lock:
                if self._closed:
                    _close_pair(conn, chan)
                    return
                self._pairs.add((conn, chan))
                self.stats.active += 1
            try:
                self._pump(conn, chan)
            finally:
                with self._lock:
                    self._pairs.discard((conn, chan))
                    self.stats.active -= 1
                _close_pair(conn, chan)
        finally:
            with self._lock:
                self._threads.discard(threading.current_thread())

    def _open(self, peer: tuple[str, int]) -> paramiko.Channel | None:
        try:
            return self._transport.open_channel(
                "direct-tcpip",
                self.remote,
                (str(peer[0]), int(peer[1])),
                timeout=self._open_timeout,
            )
        except paramiko.ChannelException as exc:
            reason = f"{self.host} refused to open {self.remote[0]}:{self.remote[1]} ({exc.text})"
        except TRANSPORT_ERRORS as exc:
            reason = f"the SSH connection to {self.host} is gone ({exc or type(exc).__name__})"
        with self._lock:
            self.stats.failed_opens += 1
            self.stats.last_error = reason
        log.info("port forward: %s", reason)
        return None

    def _pump(self, conn: socket.socket, chan: paramiko.Channel) -> None:
        local_open = remote_open = True
        while local_open or remote_open:
            watched: list[socket.socket | paramiko.Channel] = []
            if local_open:
                watched.append(conn)
            if remote_open:
                watched.append(chan)
            try:
                ready, _, _ = select.select(watched, [], [], _IDLE_WAKE_S)
            except (OSError, ValueError):
                return
            if self._closed or (chan.closed and not remote_open):
                return
            try:
                if conn in ready:
                    data = conn.recv(_CHUNK)
                    if data:
                        chan.sendall(data)
                        with self._lock:
                            self.stats.bytes_to_remote += len(data)
                    else:
                        local_open = False
                        chan.shutdown_write()
                if chan in ready:
                    data = chan.recv(_CHUNK)
                    if data:
                        conn.sendall(data)
                        with self._lock:
                            self.stats.bytes_from_remote += len(data)
                    else:
                        remote_open = False
                        with contextlib.suppress(OSError):
                            conn.shutdown(socket.SHUT_WR)
            except (OSError, EOFError, paramiko.SSHException):
                return


def _close_pair(sock: socket.socket, chan: paramiko.Channel) -> None:
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)
    with contextlib.suppress(OSError):
        sock.close()
    with contextlib.suppress(OSError, EOFError, paramiko.SSHException):
        chan.close()
