"""stream() against a real sshd: lines as they come, and no remote process left behind."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import pytest

from tests.remote.helpers import Keys, processes_matching, spec_for, trust, unique_seconds
from tests.remote.sshd import Sshd
from xyclaw.errors import RemoteTimeoutError
from xyclaw.remote import KnownHosts, SshPool

pytestmark = pytest.mark.sshd


def wait_until(predicate: Callable[[], bool], timeout: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return predicate()


def test_lines_go_to_their_callbacks_and_wait_gives_the_exit_code(
    sshd: Sshd, keys: Keys, known: KnownHosts, make_pool: Callable[..., SshPool]
) -> None:
    trust(known, sshd)
    out: list[str] = []
    err: list[str] = []

    handle = make_pool().stream(
        spec_for(sshd, keys.client_path),
        "printf 'one\\ntwo\\r\\n'; echo warn >&2; printf 'tail-without-newline'; exit 3",
        on_line=out.append,
        on_stderr_line=err.append,
    )

    assert handle.wait(10) == 3
    assert out == ["one", "two", "tail-without-newline"]
    assert err == ["warn"]


def test_first_line_arrives_while_the_command_still_runs(
    sshd: Sshd, keys: Keys, known: KnownHosts, make_pool: Callable[..., SshPool]
) -> None:
    trust(known, sshd)
    first = threading.Event()
    handle = make_pool().stream(
        spec_for(sshd, keys.client_path),
        f"echo ready; sleep {unique_seconds()}",
        on_line=lambda line: first.set(),
    )
    try:
        assert first.wait(10)
        assert not handle.done
    finally:
        handle.cancel()


@pytest.mark.parametrize("ignores_term", [False, True], ids=["plain", "ignores-TERM"])
def test_cancel_leaves_no_remote_process(
    ignores_term: bool,
    sshd: Sshd,
    keys: Keys,
    known: KnownHosts,
    make_pool: Callable[..., SshPool],
) -> None:
    trust(known, sshd)
    marker = unique_seconds()
    prefix = "trap '' TERM; " if ignores_term else ""
    started = threading.Event()
    handle = make_pool(kill_grace_s=0.5).stream(
        spec_for(sshd, keys.client_path),
        f"{prefix}echo started; while :; do sleep {marker}; done",
        on_line=lambda line: started.set(),
    )
    assert started.wait(10)
    assert wait_until(lambda: bool(processes_matching(f"sleep {marker}")))

    handle.cancel()

    assert processes_matching(f"sleep {marker}") == []
    assert handle.done and handle.cancelled
    assert handle.wait(1) != 0


def test_client_that_vanishes_leaves_no_remote_process(
    sshd: Sshd, keys: Keys, known: KnownHosts, make_pool: Callable[..., SshPool]
) -> None:
    trust(known, sshd)
    marker = unique_seconds()
    started = threading.Event()
    pool = make_pool()
    pool.stream(
        spec_for(sshd, keys.client_path),
        f"echo started; sleep {marker}",
        on_line=lambda line: started.set(),
    )
    assert started.wait(10)

    pool.close()  # the connection drops without a cancel

    assert wait_until(lambda: processes_matching(f"sleep {marker}") == [])


def test_stream_past_its_timeout_is_stopped(
    sshd: Sshd, keys: Keys, known: KnownHosts, make_pool: Callable[..., SshPool]
) -> None:
    trust(known, sshd)
    marker = unique_seconds()
    lines: list[str] = []
    handle = make_pool().stream(
        spec_for(sshd, keys.client_path, alias="ticker"),
        f"echo tick; sleep {marker}",
        on_line=lines.append,
        timeout=1.0,
    )

    with pytest.raises(RemoteTimeoutError) as caught:
        handle.wait(10)

    assert "ticker" in str(caught.value)
    assert lines == ["tick"]
    assert processes_matching(f"sleep {marker}") == []


def test_failing_line_handler_stops_the_command_and_is_reported(
    sshd: Sshd, keys: Keys, known: KnownHosts, make_pool: Callable[..., SshPool]
) -> None:
    trust(known, sshd)
    marker = unique_seconds()

    def handler(line: str) -> None:
        raise ValueError(f"cannot parse {line!r}")

    handle = make_pool().stream(
        spec_for(sshd, keys.client_path), f"echo garbage; sleep {marker}", on_line=handler
    )

    with pytest.raises(ValueError, match="garbage"):
        handle.wait(10)
    assert processes_matching(f"sleep {marker}") == []
