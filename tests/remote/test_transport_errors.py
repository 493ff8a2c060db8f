"""Transport failures reach callers as XyclawErrors, a timeout still told apart from a refusal."""

from __future__ import annotations

import paramiko

from xyclaw.errors import ConnectError, RemoteTimeoutError
from xyclaw.remote.errors import TRANSPORT_ERRORS, transport_error


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
