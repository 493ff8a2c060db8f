"""Fixtures for the SSH layer: real sshd instances, keys, a pool factory."""

from __future__ import annotations

import shutil
import socket
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.remote.helpers import TEST_SETTINGS, Keys
from tests.remote.sshd import MISSING, SSHD, Sshd, keygen
from xyclaw.remote import KnownHosts, SshPool


@pytest.fixture(scope="session")
def keys(tmp_path_factory: pytest.TempPathFactory) -> Keys:
    """A client key the test servers accept, and one they do not know."""
    if not SSHD.exists() or shutil.which("ssh-keygen") is None:
        pytest.skip(MISSING)
    root = tmp_path_factory.mktemp("client-keys")
    return Keys(
        client_path=root / "id_ed25519",
        client=keygen(root / "id_ed25519"),
        stranger_path=root / "id_stranger",
        stranger=keygen(root / "id_stranger"),
    )


@pytest.fixture
def sshd_factory(tmp_path: Path, keys: Keys) -> Iterator[Callable[..., Sshd]]:
    """Start as many real sshd servers as a test needs; all are stopped afterwards."""
    started: list[Sshd] = []

    def make(**kwargs: Any) -> Sshd:
        server = Sshd(tmp_path / f"sshd-{len(started)}", [keys.client], **kwargs)
        started.append(server)
        return server.start()

    yield make
    for server in started:
        server.stop()


@pytest.fixture
def sshd(sshd_factory: Callable[..., Sshd]) -> Sshd:
    return sshd_factory()


@pytest.fixture
def dead_port() -> Iterator[int]:
    """A loopback port where connections are refused and nobody else can start listening."""
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))  # bound but not listening: connect() is refused
        yield int(held.getsockname()[1])


@pytest.fixture
def known(tmp_path: Path) -> KnownHosts:
    return KnownHosts(
        app_path=tmp_path / "app_known_hosts", user_path=tmp_path / "user_known_hosts"
    )


@pytest.fixture
def make_pool(tmp_path: Path, known: KnownHosts) -> Iterator[Callable[..., SshPool]]:
    """SshPool with test settings, no agent and no default keys, closed afterwards."""
    pools: list[SshPool] = []

    def make(**kwargs: Any) -> SshPool:
        options: dict[str, Any] = {
            "use_agent": False,
            "default_identities": (),
            "ssh_config_path": tmp_path / "ssh_config",
            "connect_attempts": 2,
            "backoff_base_s": 0.05,
        }
        options.update(kwargs)
        settings = options.pop("settings", TEST_SETTINGS)
        known_hosts = options.pop("known_hosts", known)
        pool = SshPool(settings, known_hosts, **options)
        pools.append(pool)
        return pool

    yield make
    for pool in pools:
        pool.close()
