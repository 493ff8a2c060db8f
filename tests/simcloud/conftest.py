"""Fixtures for the simulated cloud: a fake clock, a renter's key, servers and API clients."""

from __future__ import annotations

import io
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import paramiko
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tests.simcloud.helpers import Api, FakeClock
from xyclaw.sim.cloud import CloudSettings, SimCloudServer, build_cloud
from xyclaw.sim.cloud.keys import public_line


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture(scope="session")
def renter_key() -> paramiko.PKey:
    pem = Ed25519PrivateKey.generate().private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.OpenSSH,
        serialization.NoEncryption(),
    )
    return paramiko.Ed25519Key.from_private_key(io.StringIO(pem.decode()))


@pytest.fixture
def pubkey(renter_key: paramiko.PKey) -> str:
    return public_line(renter_key) + " renter@test"


ServerMaker = Callable[..., SimCloudServer]


@pytest.fixture
def state_dir(tmp_path: Path) -> Path:
    return tmp_path / "cloud"


@pytest.fixture
def make_server(state_dir: Path) -> Iterator[ServerMaker]:
    """Start servers over ``state_dir`` (or another folder); all are stopped at the end."""
    servers: list[SimCloudServer] = []

    def make(
        settings: CloudSettings | None = None,
        *,
        folder: Path | None = None,
        clock: Callable[[], float] | None = None,
        factory: Any = None,
    ) -> SimCloudServer:
        kwargs: dict[str, Any] = {"node_factory": factory}
        if clock is not None:
            kwargs["clock"] = clock
        cloud = build_cloud(folder or state_dir, settings or CloudSettings.fast(), **kwargs)
        server = SimCloudServer(cloud).start()
        servers.append(server)
        return server

    yield make
    for server in servers:
        server.stop()


@pytest.fixture
def api_of() -> Iterator[Callable[..., Api]]:
    clients: list[Api] = []

    def make(server: SimCloudServer, token: str | None = None) -> Api:
        client = Api(server, token)
        clients.append(client)
        return client

    yield make
    for client in clients:
        client.close()
