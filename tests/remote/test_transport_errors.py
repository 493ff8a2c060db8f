"""Transport failures reach callers as XyclawErrors, a timeout still told apart from a refusal."""

from __future__ import annotations

import re
from pathlib import Path

import paramiko
import pytest

from xyclaw.errors import AuthenticationError, ConnectError, RemoteTimeoutError
from xyclaw.remote.errors import TRANSPORT_ERRORS, transport_error, transport_errors


def test_a_timeout_stays_a_timeout_and_the_rest_is_a_connection_error() -> None:
    slow = transport_error(
        TimeoutError("timed out"), "no shell", host="gpu-1", hint="h", timeout_s=5
    )
    assert isinstance(slow, RemoteTimeoutError) and "within 5 s" in slow.message
    refused = transport_error(
        ConnectionRefusedError(111, "refused"), "no shell", host="gpu-1", hint="h"
    )
    assert isinstance(refused, ConnectError) and not isinstance(refused, RemoteTimeoutError)
    assert refused.host == "gpu-1" and "refused" in refused.message


def test_every_paramiko_failure_is_caught_by_the_one_tuple() -> None:
    for exc in (
        paramiko.SSHException("x"),
        paramiko.ChannelException(2, "no"),
        EOFError(),
        OSError(),
    ):
        assert isinstance(exc, TRANSPORT_ERRORS)


def test_the_context_manager_maps_in_transit_errors_and_keeps_the_cause() -> None:
    lost = EOFError()
    with (
        pytest.raises(ConnectError) as caught,
        transport_errors("lost gpu-1", host="gpu-1", hint="reconnect"),
    ):
        raise lost
    assert caught.value.__cause__ is lost and caught.value.message == "lost gpu-1: EOFError"
    assert caught.value.hint == "reconnect" and caught.value.host == "gpu-1"

    with (
        pytest.raises(RemoteTimeoutError) as slow,
        transport_errors(
            "handshake failed", host="gpu-1", hint="h", timed_out=("no handshake in 5 s", "wait")
        ),
    ):
        raise paramiko.SSHException("Timeout opening channel.")
    assert slow.value.message == "no handshake in 5 s" and slow.value.hint == "wait"


def test_the_context_manager_lets_xyclaw_errors_and_other_errors_through() -> None:
    own = AuthenticationError("refused", host="gpu-1")
    with (
        pytest.raises(AuthenticationError) as caught,
        transport_errors("x", host="gpu-1", hint="h"),
    ):
        raise own
    assert caught.value is own
    with pytest.raises(KeyError), transport_errors("x", host="gpu-1", hint="h"):
        raise KeyError("a bug is not a network failure")


def test_paramiko_is_imported_only_by_the_remote_package() -> None:
    """So the remote package is the one place where its errors can enter (and be mapped);
    the simulated cloud's in-process SSH server stands apart."""
    root = Path(__file__).resolve().parents[2] / "xyclaw"
    outside = [
        str(path.relative_to(root))
        for path in root.rglob("*.py")
        if path.parts[len(root.parts)] not in ("remote", "sim")
        and re.search(r"^\s*(import|from) paramiko\b", path.read_text(), re.M)
    ]
    assert outside == []
