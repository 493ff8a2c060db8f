"""Opening one authenticated SSH transport: socket, handshake, host key, login.

Failures become the shared error tree here, each saying which host and what
to check; the pool decides what to retry.
"""

from __future__ import annotations

import contextlib
import logging
import socket
from dataclasses import dataclass, field

import paramiko

from xyclaw.errors import ConnectError, RemoteTimeoutError
from xyclaw.remote.auth import Authenticator
from xyclaw.remote.errors import transport_errors
from xyclaw.remote.hostspec import HostSpec, ProcessControl
from xyclaw.remote.known_hosts import KnownHosts, TrustNewHost
from xyclaw.remote.procgroup import wants_wrapper
from xyclaw.remote.rekey import RekeySafeTransport
from xyclaw.wording import said

log = logging.getLogger(__name__)

_Sock = socket.socket | paramiko.Channel | paramiko.ProxyCommand


IDLE_WAKE_S = 1.0


@dataclass
class Connection:
    """One live transport to one host, and how commands are run on it."""

    spec: HostSpec
    transport: paramiko.Transport
    wrap_commands: bool
    sock: _Sock = field(repr=False)

    @property
    def alive(self) -> bool:
        return bool(self.transport.is_active())

    def close(self) -> None:
        try:
            self.transport.close()
        finally:
            with contextlib.suppress(OSError):
                self.sock.close()


class Connector:
    """Builds :class:`Connection` objects; holds no connections itself."""

    def __init__(
        self,
        *,
        known_hosts: KnownHosts,
        authenticator: Authenticator,
        connect_timeout_s: float,
        keepalive_s: float,
        trust_new_host: TrustNewHost | None = None,
        process_control: ProcessControl = "auto",
    ) -> None:
        self._known_hosts = known_hosts
        self._authenticator = authenticator
        self._timeout = connect_timeout_s
        self._keepalive = keepalive_s
        self._trust = trust_new_host
        self._process_control = process_control

    def open(self, spec: HostSpec, via: paramiko.Transport | None = None) -> Connection:
        """Connect to ``spec`` (through the ``via`` transport of its jump host, if any)."""
        sock = self._socket(spec, via)
        transport: paramiko.Transport | None = None
        try:
            transport = RekeySafeTransport(sock)
            # paramiko's reader thread wakes every 0.1 s on an idle socket to see if it
            # should stop; a close wakes it anyway, so once a second is plenty. With 64
            # streamed nodes this is ~3 points of a core.
            transport.sock.settimeout(IDLE_WAKE_S)
            transport.banner_timeout = self._timeout
            transport.handshake_timeout = self._timeout
            transport.auth_timeout = self._timeout
            self._prefer_known_key_types(transport, spec)
            with transport_errors(
                f"SSH handshake with {spec.describe()} failed",
                host=spec.alias,
                hint="check that the port is an SSH server and that the server is not "
                "overloaded (MaxStartups)",
                timed_out=(
                    f"{spec.describe()} accepted the connection but did not complete the SSH "
                    f"handshake within {self._timeout:g} s",
                    "the machine may be overloaded or hung; check it in the provider's "
                    "console, or raise ssh.connect_timeout_s",
                ),
            ):
                transport.start_client(timeout=self._timeout)
            key = transport.get_remote_server_key()
            self._known_hosts.verify(
                spec.key_name, spec.port, key, alias=spec.alias, trust_new_host=self._trust
            )
            self._authenticator.authenticate(transport, spec)
            if self._keepalive > 0:
                transport.set_keepalive(max(1, round(self._keepalive)))
            mode = spec.process_control
            if mode == "auto":
                mode = self._process_control
            wrap = mode == "wrap" or (mode == "auto" and wants_wrapper(transport.remote_version))
            log.debug("connected to %s (%s)", spec.describe(), transport.remote_version)
            return Connection(spec, transport, wrap, sock)
        except BaseException:
            if transport is not None:
                transport.close()
            sock.close()
            raise

    def _socket(self, spec: HostSpec, via: paramiko.Transport | None) -> _Sock:
        if via is not None:
            return self._tunnel(spec, via)
        if spec.proxy_command:
            try:
                proxy = paramiko.ProxyCommand(spec.proxy_command)
            except paramiko.SSHException as exc:
                raise ConnectError(
                    f"ProxyCommand for {spec.alias} could not start: {exc}",
                    host=spec.alias,
                    hint="check the ProxyCommand line for this host in your ssh config",
                ) from exc
            proxy.settimeout(self._timeout)
            return proxy
        try:
            sock = socket.create_connection((spec.hostname, spec.port), timeout=self._timeout)
        except socket.gaierror as exc:
            raise ConnectError(
                said("error.ssh.no_name", name=repr(spec.hostname), alias=spec.alias),
                host=spec.alias,
                hint=said("error.ssh.no_name_hint"),
            ) from exc
        except ConnectionRefusedError as exc:
            raise ConnectError(
                said("error.ssh.refused", host=spec.describe()),
                host=spec.alias,
                hint=said("error.ssh.refused.hint"),
            ) from exc
        except TimeoutError as exc:
            raise RemoteTimeoutError(
                said("error.ssh.no_answer", host=spec.describe(), seconds=f"{self._timeout:g}"),
                host=spec.alias,
                hint=said("error.ssh.no_answer.hint"),
            ) from exc
        except OSError as exc:
            raise ConnectError(
                said(
                    "error.ssh.unreachable", host=spec.describe(), reason=str(exc.strerror or exc)
                ),
                host=spec.alias,
                hint=said("error.ssh.unreachable_hint"),
            ) from exc
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
        return sock

    def _tunnel(self, spec: HostSpec, via: paramiko.Transport) -> paramiko.Channel:
        jump = spec.jump.alias if spec.jump is not None else "the jump host"
        with transport_errors(
            f"lost jump host {jump} while opening a tunnel to {spec.alias}",
            host=spec.alias,
            hint=f"check that {jump} is up; XyClaw reconnects on the next call",
            timeout_s=self._timeout,
        ):
            try:
                return via.open_channel(
                    "direct-tcpip",
                    (spec.hostname, spec.port),
                    ("127.0.0.1", 0),
                    timeout=self._timeout,
                )
            except paramiko.ChannelException as exc:
                raise ConnectError(
                    f"jump host {jump} could not open a tunnel to {spec.hostname}:{spec.port} "
                    f"for {spec.alias} ({exc.text})",
                    host=spec.alias,
                    hint=f"check that {spec.hostname}:{spec.port} is reachable from {jump} "
                    "and that it allows TCP forwarding (AllowTcpForwarding)",
                ) from exc

    def _prefer_known_key_types(self, transport: paramiko.Transport, spec: HostSpec) -> None:
        known = self._known_hosts.preferred_key_types(spec.key_name, spec.port)
        if not known:
            return
        options = transport.get_security_options()
        offered = list(options.key_types)
        first = [t for t in known if t in offered]
        options.key_types = first + [t for t in offered if t not in first]
