"""The sim provider's HTTP client: it reaches the simulated cloud on loopback over plain HTTP
whatever proxy the user's environment names (a proxy cannot reach this machine's loopback)."""

from __future__ import annotations

import socket

import pytest

from tests.simcloud.conftest import ServerMaker
from xyclaw.providers.sim import SimProvider


def _dead_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_the_simulated_cloud_answers_with_a_proxy_set_in_the_environment(
    make_server: ServerMaker, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = make_server()
    proxy = f"http://127.0.0.1:{_dead_port()}"  # nothing listens there
    for name in ("HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.setenv(name, proxy)
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    provider = SimProvider(server.url, server.cloud.token)
    try:
        offers = provider.offers()
        assert offers and all(o.provider == "sim" for o in offers)
        assert provider.clusters() == []
    finally:
        provider.close()
