"""A simulated GPU node: an SSH server (paramiko server mode) on loopback that acts as a GPU box.

Public-key auth against the keys given (any user name), exec requests
run through the node's shell, an optional interactive `shell`, SFTP
rooted in the node's folder, and `direct-tcpip` forwarding to peers (so a
node can be a ProxyJump host). Everything runs on threads: 64 nodes in
one process are fine.
"""

from __future__ import annotations

import contextlib
import logging
import select
import socket
import struct
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import paramiko
from paramiko.common import (
    AUTH_FAILED,
    AUTH_SUCCESSFUL,
    OPEN_FAILED_ADMINISTRATIVELY_PROHIBITED,
    OPEN_FAILED_CONNECT_FAILED,
    OPEN_SUCCEEDED,
    cMSG_CHANNEL_FAILURE,
    cMSG_CHANNEL_SUCCESS,
)

from xyclaw.errors import ProviderError
from xyclaw.remote.rekey import RekeySafeTransport
from xyclaw.sim.commands import new_machine
from xyclaw.sim.context import Stdio
from xyclaw.sim.faults import SimFaults
from xyclaw.sim.gpu import Gpu
from xyclaw.sim.link import ConditionedSocket, LinkConditions
from xyclaw.sim.nodespec import SimClusterInfo, SimNodeSpec
from xyclaw.sim.procs import HANGUPS, SIGPIPE
from xyclaw.sim.sftp import SimSFTPServer
from xyclaw.sim.shell import Shell
from xyclaw.sim.streams import ChannelIn, ChannelOut, TerminalOut
from xyclaw.sim.workers import SESSIONS

__all__ = ["SimClusterInfo", "SimNode", "SimNodeError", "SimNodeSpec"]

log = logging.getLogger(__name__)
_REPLY_WAIT_S = 2.0
# AES-GCM only: paramiko checks a separate MAC byte by byte in Python, which costs more
# than the rest of a trivial command. Every OpenSSH and paramiko >= 3.3 client has it.
_CIPHERS = ("aes128-gcm@openssh.com", "aes256-gcm@openssh.com")


class SimNodeError(ProviderError, RuntimeError):
    """The simulated node could not start (address in use, already started)."""


class _SimTransport(RekeySafeTransport):
    """A server transport that starts a command only once its exec request has been answered.

    paramiko sends the reply to a channel request after the server
    interface returns; output, exit status or close sent before that
    reply would reach the client first and make it fail the request.
    """

    def __init__(self, sock: Any) -> None:
        super().__init__(sock)
        self.replied: dict[int, threading.Event] = {}
        # paramiko keeps channels in a weak map; a session channel lives as long as we hold it.
        self.channels: dict[int, paramiko.Channel] = {}
        self.forwards: dict[int, tuple[str, int]] = {}
        self.forward_handler: Callable[[paramiko.Channel, tuple[str, int]], None] | None = None

    def _send_user_message(self, data: Any) -> None:
        super()._send_user_message(data)
        if not self.replied:
            return
        raw = data.asbytes() if isinstance(data, paramiko.Message) else bytes(data)
        if raw[:1] in (cMSG_CHANNEL_SUCCESS, cMSG_CHANNEL_FAILURE) and len(raw) >= 5:
            (remote_id,) = struct.unpack(">I", raw[1:5])
            event = self.replied.pop(remote_id, None)
            if event is not None:
                event.set()

    def _queue_incoming_channel(self, channel: paramiko.Channel) -> None:
        # Sessions are driven from their requests; nobody calls accept(), so nothing is queued.
        target = self.forwards.pop(channel.get_id(), None)
        if target is not None and self.forward_handler is not None:
            self.forward_handler(channel, target)
        else:
            self.channels[channel.get_id()] = channel


class _ServerIface(paramiko.ServerInterface):
    def __init__(self, node: SimNode, transport: _SimTransport) -> None:
        self.node = node
        self.transport = transport
        self.user = "root"
        self.home = "/root"
        self.env: dict[int, dict[str, str]] = {}
        self.pty: set[int] = set()
        self.connection: str | None = None  # SSH_CONNECTION, worked out once

    def get_allowed_auths(self, username: str) -> str:
        return "publickey"

    def check_auth_none(self, username: str) -> int:
        return AUTH_FAILED

    def check_auth_password(self, username: str, password: str) -> int:
        return AUTH_FAILED

    def check_auth_publickey(self, username: str, key: paramiko.PKey) -> int:
        blob = key.asbytes()
        if any(blob == allowed.asbytes() for allowed in self.node.authorized_keys):
            self.user = username or "root"
            self.home = self.node.machine.ensure_home(self.user)
            return AUTH_SUCCESSFUL
        return AUTH_FAILED

    def check_channel_request(self, kind: str, chanid: int) -> int:
        if kind == "session":
            return OPEN_SUCCEEDED
        return OPEN_FAILED_ADMINISTRATIVELY_PROHIBITED

    def check_channel_direct_tcpip_request(
        self, chanid: int, origin: tuple[str, int], destination: tuple[str, int]
    ) -> int:
        target = self.node._forward_target(str(destination[0]), int(destination[1]))
        if target is None:
            return OPEN_FAILED_CONNECT_FAILED
        self.transport.forwards[chanid] = target
        return OPEN_SUCCEEDED

    def check_channel_env_request(
        self, channel: paramiko.Channel, name: bytes, value: bytes
    ) -> bool:
        key = name.decode() if isinstance(name, bytes) else str(name)
        val = value.decode() if isinstance(value, bytes) else str(value)
        self.env.setdefault(channel.get_id(), {})[key] = val
        return True

    def check_channel_pty_request(self, channel: paramiko.Channel, *args: Any) -> bool:
        self.pty.add(channel.get_id())
        return True

    def check_channel_window_change_request(self, channel: paramiko.Channel, *args: Any) -> bool:
        return True

    def check_channel_exec_request(self, channel: paramiko.Channel, command: bytes) -> bool:
        text = command.decode("utf-8", errors="replace")
        self._start(channel, lambda: self.node._run_exec(channel, text, self))
        return True

    def check_channel_shell_request(self, channel: paramiko.Channel) -> bool:
        self._start(channel, lambda: self.node._run_shell(channel, self))
        return True

    def _start(self, channel: paramiko.Channel, work: Callable[[], None]) -> None:
        replied = threading.Event()
        self.transport.replied[channel.remote_chanid] = replied

        def run() -> None:
            replied.wait(_REPLY_WAIT_S)
            work()

        SESSIONS.submit(run)


class SimNode:
    """One simulated GPU node and its SSH server."""

    def __init__(
        self,
        spec: SimNodeSpec,
        *,
        root: Path,
        authorized_keys: Sequence[paramiko.PKey],
        host_key: paramiko.PKey | None = None,
        cluster: SimClusterInfo | None = None,
        clock: Callable[[], float] = time.time,
        time_scale: float = 1.0,
    ) -> None:
        self.spec = spec
        self.cluster = cluster
        self.authorized_keys = list(authorized_keys)
        self._host_key = host_key if host_key is not None else paramiko.ECDSAKey.generate(bits=256)
        self.machine = new_machine(
            spec, root=root, cluster=cluster, clock=clock, time_scale=time_scale
        )
        self.link = LinkConditions(spec.hostname)
        self.faults = SimFaults(self)
        self._lock = threading.Lock()
        self._listener: socket.socket | None = None
        self._accept_thread: threading.Thread | None = None
        self._address: tuple[str, int] | None = None
        self._transports: set[_SimTransport] = set()
        self._parked: list[socket.socket] = []
        self._down = False
        self._sessions = 0
        self._hangup_tokens: dict[int, int] = {}

    # -- public API ----------------------------------------------------------------------------

    @property
    def address(self) -> tuple[str, int]:
        if self._address is None:
            raise SimNodeError(
                f"simulated node {self.spec.hostname} is not started", hint="call start() first"
            )
        return self._address

    @property
    def host_key(self) -> paramiko.PKey:
        return self._host_key

    @property
    def gpus(self) -> list[Gpu]:
        """Live GPU state (advanced to now) for tests and the simulated cloud."""
        self.machine.gpus.advance()
        return self.machine.gpus.gpus

    @property
    def is_down(self) -> bool:
        return self._down

    def start(self, host: str = "127.0.0.1", port: int = 0) -> None:
        with self._lock:
            if self._listener is not None:
                raise SimNodeError(
                    f"simulated node {self.spec.hostname} is already started",
                    hint="stop() it before starting it again",
                )
            self._listen(host, port)

    def stop(self) -> None:
        with self._lock:
            self._close_server()
        self.machine.crash()

    def __enter__(self) -> SimNode:
        if self._listener is None:
            self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- server --------------------------------------------------------------------------------

    def _listen(self, host: str, port: int) -> None:
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        try:
            listener.bind((host, port))
        except OSError as exc:
            listener.close()
            raise SimNodeError(
                f"simulated node {self.spec.hostname} cannot listen on {host}:{port}: {exc}",
                hint="pick another port (0 takes a free one) or stop what holds this one",
            ) from exc
        listener.listen(128)
        self._listener = listener
        bound = listener.getsockname()
        self._address = (str(bound[0]), int(bound[1]))
        thread = threading.Thread(
            target=self._accept_loop,
            args=(listener,),
            daemon=True,
            name=f"sim-accept-{self.spec.hostname}",
        )
        self._accept_thread = thread
        thread.start()

    def _accept_loop(self, listener: socket.socket) -> None:
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            if self.link.hung:
                with self._lock:
                    self._parked.append(conn)
                continue
            self._serve(conn)

    def _serve(self, conn: socket.socket) -> None:
        try:
            transport = _SimTransport(ConditionedSocket(conn, self.link))
        except Exception:  # the client went away during setup
            conn.close()
            return
        transport.set_log_channel(f"xyclaw.sim.ssh.{self.spec.hostname}")
        transport.add_server_key(self._host_key)
        with contextlib.suppress(ValueError):  # a paramiko without AES-GCM keeps its defaults
            transport.get_security_options().ciphers = _CIPHERS
        transport.set_subsystem_handler(
            "sftp", paramiko.SFTPServer, SimSFTPServer, machine=self.machine
        )
        transport.forward_handler = self._forward
        with self._lock:
            self._transports = {t for t in self._transports if t.is_active()}
            self._transports.add(transport)
        try:
            transport.start_server(event=threading.Event(), server=_ServerIface(self, transport))
        except (paramiko.SSHException, OSError, EOFError):
            transport.close()

    def _release_parked(self) -> None:
        with self._lock:
            parked, self._parked = self._parked, []
        for conn in parked:
            self._serve(conn)

    def _close_server(self) -> None:
        listener, self._listener = self._listener, None
        if listener is not None:
            with contextlib.suppress(OSError):
                listener.shutdown(socket.SHUT_RDWR)
            listener.close()
        if self._accept_thread is not None:
            self._accept_thread.join(2.0)
            self._accept_thread = None
        transports, self._transports = self._transports, set()
        for transport in transports:
            sock = transport.sock
            if isinstance(sock, ConditionedSocket):
                sock.shutdown(socket.SHUT_RDWR)
            transport.close()
        parked, self._parked = self._parked, []
        for conn in parked:
            conn.close()

    def _go_down(self) -> None:
        with self._lock:
            if self._down:
                return
            self._down = True
            self._close_server()
        self.machine.crash()

    def _come_up(self) -> None:
        with self._lock:
            if not self._down:
                return
            self.machine.reboot()
            self.link.set_hung(False)
            self.link.set_slow(0.0, 0.0)
            host, port = self._address or ("127.0.0.1", 0)
            self._listen(host, port)
            self._down = False

    # -- sessions ------------------------------------------------------------------------------

    def _environment(self, iface: _ServerIface, channel: paramiko.Channel) -> dict[str, str]:
        env = self.machine.base_env(iface.user)
        env.update(iface.env.pop(channel.get_id(), {}))
        if iface.connection is None:
            try:
                peer = iface.transport.getpeername()
                ours = self.address
                iface.connection = f"{peer[0]} {peer[1]} {ours[0]} {ours[1]}"
            except (OSError, SimNodeError):
                iface.connection = ""
        if iface.connection:
            env["SSH_CONNECTION"] = iface.connection
        return env

    def _new_shell(self, channel: paramiko.Channel, iface: _ServerIface, argv: list[str]) -> Shell:
        machine = self.machine
        with self._lock:
            self._sessions += 1
            session = self._sessions
        session_proc = machine.procs.spawn(argv, ppid=612, session=session)
        self._hangup_tokens[session] = HANGUPS.watch(
            lambda: bool(channel.closed), lambda: machine.procs.hangup_session(session)
        )
        return Shell(
            machine,
            env=self._environment(iface, channel),
            cwd=iface.home,
            session=session,
            hup_check=lambda: bool(channel.closed),
            pid=session_proc.pid,
        )

    def _run_exec(self, channel: paramiko.Channel, command: str, iface: _ServerIface) -> None:
        shell = self._new_shell(channel, iface, ["bash", "-c", command])
        if channel.get_id() in iface.pty:
            terminal = TerminalOut(ChannelOut(channel))
            io = Stdio(ChannelIn(channel), terminal, terminal)
        else:
            io = Stdio(ChannelIn(channel), ChannelOut(channel), ChannelOut(channel, stderr=True))
        status = 255
        try:
            status = shell.run_exit_trap(io, shell.run_script(command, io))
        except BrokenPipeError:  # the client went: bash dies of SIGPIPE at its next write
            status = 128 + SIGPIPE
        except Exception:  # a bug in the simulator must not kill the server
            log.exception("simulated command failed on %s: %s", self.spec.hostname, command)
        finally:
            self._finish(channel, shell, status)

    def _run_shell(self, channel: paramiko.Channel, iface: _ServerIface) -> None:
        shell = self._new_shell(channel, iface, ["-bash"])
        io = Stdio(ChannelIn(channel), ChannelOut(channel), ChannelOut(channel, stderr=True))
        interactive = channel.get_id() in iface.pty
        status = 0
        pending = b""
        try:
            while True:
                if interactive:
                    io.stdout.write(f"{iface.user}@{self.spec.hostname}:{shell.cwd}# ".encode())
                while b"\n" not in pending:
                    chunk = io.stdin.read(4096)
                    if not chunk:
                        break
                    pending += chunk
                if not pending:
                    break
                line, _, pending = pending.partition(b"\n")
                status = shell.run_script(line.decode("utf-8", errors="replace"), io)
                if shell.exited:
                    break
        except BrokenPipeError:
            pass
        except Exception:
            log.exception("simulated shell failed on %s", self.spec.hostname)
        finally:
            self._finish(channel, shell, status)

    def _finish(self, channel: paramiko.Channel, shell: Shell, status: int) -> None:
        try:
            if not channel.closed:
                channel.send_exit_status(status)
            for job in shell.output_jobs():
                while job.is_alive() and not channel.closed:
                    job.join(0.2)
        except (OSError, EOFError, paramiko.SSHException):
            pass
        finally:
            token = self._hangup_tokens.pop(shell.session, None)
            if token is not None:
                HANGUPS.unwatch(token)
            proc = self.machine.procs.get(shell.pid)
            if proc is not None:
                self.machine.procs.reap(proc)
            with contextlib.suppress(OSError, EOFError, paramiko.SSHException):
                channel.close()
            transport = channel.get_transport()
            if isinstance(transport, _SimTransport):
                transport.channels.pop(channel.get_id(), None)

    # -- port forwarding (ProxyJump) -----------------------------------------------------------

    def _forward_target(self, host: str, port: int) -> tuple[str, int] | None:
        """A peer's sshd (ProxyJump), or a service listening on this node's own port;
        never a port of the machine the simulator runs on."""
        if self.cluster is not None and self.cluster.resolve is not None:
            target = self.cluster.resolve(host, port)
            if target is not None:
                return target
        if self.machine.resolve_host(host) == self.machine.hostname:
            return self.machine.port_target(port)
        return None

    def _forward(self, channel: paramiko.Channel, target: tuple[str, int]) -> None:
        def pump() -> None:
            try:
                upstream = socket.create_connection(target, timeout=5.0)
            except OSError:
                channel.close()
                return
            upstream.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            try:
                while True:
                    watched: list[Any] = [upstream, channel]
                    ready, _, _ = select.select(watched, [], [], 1.0)
                    if channel.closed:
                        break
                    if upstream in ready:
                        data = upstream.recv(65536)
                        if not data:
                            break
                        channel.sendall(data)
                    if channel in ready:
                        data = channel.recv(65536)
                        if not data:
                            break
                        upstream.sendall(data)
            except (OSError, EOFError, paramiko.SSHException):
                pass
            finally:
                upstream.close()
                channel.close()

        threading.Thread(target=pump, daemon=True, name=f"sim-fwd-{self.spec.hostname}").start()
