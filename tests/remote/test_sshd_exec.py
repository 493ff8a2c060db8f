"""run() and run_many() against a real sshd: caps, timeouts, dead hosts, restarts."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

from tests.remote.helpers import Keys, processes_matching, spec_for, trust, unique_seconds
from tests.remote.sshd import Sshd
from xyclaw.errors import ConnectError, RemoteTimeoutError
from xyclaw.remote import CommandResult, CommandTimeoutError, HostSpec, KnownHosts, SshPool

pytestmark = pytest.mark.sshd


def test_output_past_the_cap_is_cut_and_said(
    sshd: Sshd, keys: Keys, known: KnownHosts, make_pool: Callable[..., SshPool]
) -> None:
    trust(known, sshd)
    pool = make_pool(output_cap_bytes=1000)

    result = pool.run(
        spec_for(sshd, keys.client_path),
        "head -c 300000 /dev/zero | tr '\\0' x; head -c 5000 /dev/zero | tr '\\0' e >&2; exit 2",
    )

    assert result.exit_code == 2
    assert result.stdout == "x" * 1000 and result.stdout_truncated
    assert result.stderr == "e" * 1000 and result.stderr_truncated
    assert result.truncation_note == "stdout and stderr cut after 1000 bytes"


def test_command_past_its_timeout_is_stopped_on_the_host(
    sshd: Sshd, keys: Keys, known: KnownHosts, make_pool: Callable[..., SshPool]
) -> None:
    trust(known, sshd)
    pool = make_pool()
    marker = unique_seconds()
    started = time.monotonic()

    with pytest.raises(CommandTimeoutError) as caught:
        pool.run(
            spec_for(sshd, keys.client_path, alias="slow"),
            f"echo begun; sleep {marker}",
            timeout=1.5,
        )

    assert time.monotonic() - started < 10
    assert isinstance(caught.value, RemoteTimeoutError)
    assert caught.value.host == "slow" and "1.5 s" in str(caught.value)
    assert caught.value.result is not None and caught.value.result.stdout == "begun\n"
    assert processes_matching(f"sleep {marker}") == []
    # The connection is still good for the next command.
    assert pool.run(spec_for(sshd, keys.client_path, alias="slow"), "echo next").stdout == "next\n"


def test_dead_host_in_run_many_does_not_fail_the_live_ones(
    dead_port: int,
    sshd_factory: Callable[..., Sshd],
    keys: Keys,
    known: KnownHosts,
    make_pool: Callable[..., SshPool],
) -> None:
    live = [sshd_factory(), sshd_factory()]
    for server in live:
        trust(known, server)
    dead = HostSpec(alias="dead", hostname="127.0.0.1", port=dead_port, user="root")
    hosts = [
        spec_for(live[0], keys.client_path, "a"),
        dead,
        spec_for(live[1], keys.client_path, "b"),
    ]

    results = make_pool().run_many(hosts, "echo alive")

    assert set(results) == {"a", "b", "dead"}
    for name in ("a", "b"):
        outcome = results[name]
        assert isinstance(outcome, CommandResult) and outcome.stdout == "alive\n"
    assert isinstance(results["dead"], ConnectError)
    assert results["dead"].host == "dead"


def test_reconnects_after_the_server_restarts(
    sshd: Sshd, keys: Keys, known: KnownHosts, make_pool: Callable[..., SshPool]
) -> None:
    trust(known, sshd)
    pool = make_pool()
    spec = spec_for(sshd, keys.client_path)
    first = pool.run(spec, "echo $SSH_CONNECTION").stdout.split()

    sshd.restart()  # every session of the old server dies, as in a reboot
    second = pool.run(spec, "echo $SSH_CONNECTION").stdout.split()

    assert second[2:] == first[2:]  # same server address and port
    assert second[1] != first[1]  # from a new client port: a new connection


def test_server_down_then_back_is_reached_again(
    sshd: Sshd, keys: Keys, known: KnownHosts, make_pool: Callable[..., SshPool]
) -> None:
    trust(known, sshd)
    pool = make_pool(connect_attempts=1)
    spec = spec_for(sshd, keys.client_path)
    pool.run(spec, "true")
    sshd.stop()

    with pytest.raises(ConnectError):
        pool.run(spec, "true")

    sshd.start()
    assert pool.run(spec, "echo back").stdout == "back\n"


def test_threads_share_one_connection_per_host(
    sshd: Sshd, keys: Keys, known: KnownHosts, make_pool: Callable[..., SshPool]
) -> None:
    from concurrent.futures import ThreadPoolExecutor

    trust(known, sshd)
    pool = make_pool()
    spec = spec_for(sshd, keys.client_path)

    with ThreadPoolExecutor(max_workers=6) as workers:
        results = list(workers.map(lambda i: pool.run(spec, f"echo {i} $SSH_CONNECTION"), range(6)))

    assert [r.stdout.split()[0] for r in results] == [str(i) for i in range(6)]
    assert len({r.stdout.split()[2] for r in results}) == 1  # one client port
