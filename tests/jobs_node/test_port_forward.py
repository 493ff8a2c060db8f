"""PortForward: a local port tunnelled to a remote port over an SSH transport.

Against the real OpenSSH server the tests start (to an echo server on this
machine, which is the server's own 127.0.0.1), and against a simulated node
(to a port nothing listens on: the node refuses, the local side is closed;
tests/jobs_node/test_sim_service.py forwards to a service a job started).
"""

from __future__ import annotations

import getpass
import socket
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import paramiko
import pytest

from tests.remote.helpers import Keys
from tests.remote.sshd import Sshd
from xyclaw.remote.forward import ForwardError, PortForward


class EchoServer:
    """Echoes every byte back; on the client's EOF it finishes and closes (half-close)."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = int(self.sock.getsockname()[1])
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._echo, args=(conn,), daemon=True).start()

    @staticmethod
    def _echo(conn: socket.socket) -> None:
        with conn:
            while data := conn.recv(65536):
                conn.sendall(data)

    def close(self) -> None:
        self.sock.close()


def roundtrip(address: tuple[str, int], payload: bytes) -> bytes:
    with socket.create_connection(address, timeout=10) as conn:
        conn.sendall(payload)
        conn.shutdown(socket.SHUT_WR)
        received = bytearray()
        try:
            while data := conn.recv(65536):
                received += data
        except ConnectionResetError:  # closed before our bytes were read: refused
            pass
    return bytes(received)


@pytest.fixture
def echo() -> Iterator[EchoServer]:
    server = EchoServer()
    yield server
    server.close()


@pytest.fixture
def sshd_transport(sshd: Sshd, keys: Keys) -> Iterator[paramiko.Transport]:
    client = paramiko.SSHClient()
    client.set_missing_host_key_policy(paramiko.AutoAddPolicy())
    client.connect(
        "127.0.0.1",
        port=sshd.port,
        username=getpass.getuser(),
        key_filename=str(keys.client_path),
        allow_agent=False,
        look_for_keys=False,
        timeout=10,
    )
    transport = client.get_transport()
    assert transport is not None
    yield transport
    client.close()


@pytest.mark.sshd
def test_forward_through_openssh_copies_bytes_exactly_both_ways(
    sshd_transport: paramiko.Transport, echo: EchoServer
) -> None:
    payloads = [bytes(range(256)) * 4096, b"hello\n", b"", "ünïcödé".encode() * 1000]
    with PortForward(sshd_transport, echo.port, host_label="sshd") as forward:
        with ThreadPoolExecutor(4) as pool:
            results = list(pool.map(lambda p: roundtrip(forward.local_address, p), payloads * 2))
        assert results == payloads * 2
        assert forward.stats.accepted == 8 and forward.stats.failed_opens == 0
        assert forward.stats.bytes_to_remote == 2 * sum(len(p) for p in payloads)
        assert forward.stats.bytes_from_remote == forward.stats.bytes_to_remote
        address = forward.local_address
        assert forward.url == f"http://127.0.0.1:{address[1]}"
    # closed: nothing listens there any more, the SSH connection itself is untouched
    with pytest.raises(OSError):
        socket.create_connection(address, timeout=2).close()
    assert sshd_transport.is_active()


@pytest.mark.sshd
def test_close_ends_connections_in_flight(
    sshd_transport: paramiko.Transport, echo: EchoServer
) -> None:
    forward = PortForward(sshd_transport, echo.port).start()
    conn = socket.create_connection(forward.local_address, timeout=10)
    conn.sendall(b"ping")
    assert conn.recv(4) == b"ping"
    deadline = time.monotonic() + 5
    while forward.stats.active != 1 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert forward.stats.active == 1
    started = time.monotonic()
    forward.close()
    assert time.monotonic() - started < 3
    conn.settimeout(5)
    assert conn.recv(10) == b""  # the tunnel was closed under it
    conn.close()
    assert forward.stats.active == 0 and not forward.alive


@pytest.mark.sshd
def test_a_remote_port_nobody_listens_on_closes_the_local_connection(
    sshd_transport: paramiko.Transport,
) -> None:
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        dead_port = int(unused.getsockname()[1])  # bound, not listening: connect refused
        with PortForward(sshd_transport, dead_port, host_label="sshd") as forward:
            assert roundtrip(forward.local_address, b"anyone?") == b""
            assert forward.stats.failed_opens == 1
            assert forward.stats.last_error is not None
            assert "sshd refused to open" in forward.stats.last_error


def test_a_port_nothing_listens_on_in_the_simulated_node(
    sim_transport: paramiko.Transport,
) -> None:
    with PortForward(sim_transport, 8000, host_label="node-0") as forward:
        assert roundtrip(forward.local_address, b"GET / HTTP/1.0\r\n\r\n") == b""
        assert forward.stats.failed_opens == 1


def test_local_port_in_use_is_a_forward_error(sim_transport: paramiko.Transport) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = int(taken.getsockname()[1])
        with pytest.raises(ForwardError) as caught:
            PortForward(sim_transport, 8000, local_port=port).start()
    assert caught.value.hint is not None and "another local port" in caught.value.hint
