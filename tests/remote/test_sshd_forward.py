"""A port of this machine tunnelled to a port on the host over the pool's own SSH connection."""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable

from tests.remote.helpers import Keys, spec_for, trust
from tests.remote.sshd import Sshd
from xyclaw.remote import KnownHosts, SshPool


def test_pool_forward_reaches_a_service_on_the_host_and_closes_cleanly(
    sshd: Sshd, keys: Keys, known: KnownHosts, make_pool: Callable[..., SshPool]
) -> None:
    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]

    def answer() -> None:
        conn, _ = server.accept()
        with conn:
            conn.sendall(b"pong:" + conn.recv(100))

    threading.Thread(target=answer, daemon=True).start()
    trust(known, sshd)
    pool = make_pool()
    host = spec_for(sshd, keys.client_path)
    forward = pool.forward(host, port)
    try:
        with socket.create_connection(forward.local_address, timeout=10) as client:
            client.sendall(b"ping")
            assert client.recv(100) == b"pong:ping"
    finally:
        forward.close()
        server.close()
    assert pool.is_connected(host)  # the tunnel closed, the SSH connection stays for others
