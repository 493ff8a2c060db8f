"""Password login through the caller's lookup: used when asked for, never shown or logged."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator

import paramiko
import pytest

from tests.remote.pwserver import PasswordServer
from xyclaw.errors import AuthenticationError
from xyclaw.remote import HostSpec, KnownHosts, SshPool

SECRET = "pw-Zq81-never-shown"


@pytest.fixture(params=[("password",), ("keyboard-interactive",)], ids=["password", "kbd-int"])
def server(request: pytest.FixtureRequest) -> Iterator[PasswordServer]:
    host_key = paramiko.ECDSAKey.generate()
    srv = PasswordServer(host_key, "alice", SECRET, methods=request.param)
    yield srv
    srv.stop()


def spec(srv: PasswordServer) -> HostSpec:
    return HostSpec(alias="pw-host", hostname="127.0.0.1", port=srv.port, user="alice")


def test_password_from_lookup_logs_in_and_stays_out_of_logs(
    server: PasswordServer,
    known: KnownHosts,
    make_pool: Callable[..., SshPool],
    caplog: pytest.LogCaptureFixture,
) -> None:
    known.add("127.0.0.1", server.port, server.host_key, persist=False)
    asked: list[str] = []

    def lookup(host: str) -> str | None:
        asked.append(host)
        return SECRET

    caplog.set_level(logging.DEBUG)
    pool = make_pool(password_lookup=lookup)

    result = pool.run(spec(server), "hostname")

    assert result.stdout == "ran: hostname\n"
    assert asked == ["pw-host"]
    assert SECRET not in caplog.text


def test_wrong_password_is_refused_without_echoing_it(
    server: PasswordServer,
    known: KnownHosts,
    make_pool: Callable[..., SshPool],
    caplog: pytest.LogCaptureFixture,
) -> None:
    known.add("127.0.0.1", server.port, server.host_key, persist=False)
    caplog.set_level(logging.DEBUG)
    pool = make_pool(password_lookup=lambda host: SECRET + "-wrong", connect_attempts=1)

    with pytest.raises(AuthenticationError) as caught:
        pool.run(spec(server), "true")

    assert caught.value.host == "pw-host"
    assert "stored password" in str(caught.value)
    assert SECRET not in str(caught.value) and SECRET not in caplog.text


def test_no_stored_password_says_nothing_was_found(
    server: PasswordServer, known: KnownHosts, make_pool: Callable[..., SshPool]
) -> None:
    known.add("127.0.0.1", server.port, server.host_key, persist=False)
    pool = make_pool(password_lookup=lambda host: None)

    with pytest.raises(AuthenticationError) as caught:
        pool.run(spec(server), "true")

    assert "nothing" in str(caught.value)
