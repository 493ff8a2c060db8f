"""Errors of the SSH layer that need more than the shared tree in :mod:`xyclaw.errors`."""

from __future__ import annotations

import socket
from typing import TYPE_CHECKING

import paramiko

from xyclaw.errors import ConnectError, RemoteError, RemoteTimeoutError

if TYPE_CHECKING:
    from xyclaw.remote.result import CommandResult


class CommandTimeoutError(RemoteTimeoutError):
    """A command ran past its timeout and was stopped; ``result`` holds what it printed."""

    def __init__(
        self,
        message: str,
        *,
        host: str | None = None,
        hint: str | None = None,
        result: CommandResult | None = None,
    ) -> None:
        super().__init__(message, host=host, hint=hint)
        self.result = result


class RemoteFileError(RemoteError):
    """An SFTP transfer failed: a missing path, no permission, a full disk."""


#: What paramiko and the socket under it raise when a connection or channel fails. Every module
#: of the SSH layer catches exactly this, and nothing above it sees a paramiko error.
TRANSPORT_ERRORS: tuple[type[BaseException], ...] = (paramiko.SSHException, EOFError, OSError)


def transport_error(
    exc: BaseException, what: str, *, host: str, hint: str, timeout_s: float | None = None
) -> RemoteError:
    """The one translation of a transport failure into the XyclawError tree: a timeout stays a
    timeout (so callers can tell "slow" from "refused"), the rest is a connection error."""
    text = str(exc) or type(exc).__name__
    if isinstance(exc, socket.timeout | TimeoutError) or "timed out" in text.lower():
        limit = f" within {timeout_s:g} s" if timeout_s else ""
        return RemoteTimeoutError(f"{what}: no answer{limit}", host=host, hint=hint)
    return ConnectError(f"{what}: {text}", host=host, hint=hint)
