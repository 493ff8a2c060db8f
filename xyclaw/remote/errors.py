"""Errors of the SSH layer, and the one translation of paramiko's and sockets' errors.

Every call into paramiko or a socket that can fail in transit runs inside
:func:`transport_errors` (as httpx runs httpcore inside ``map_httpcore_exceptions``),
so nothing above this package ever sees a paramiko or socket error: the SSH pool's
public methods run inside it too, as the net under the specific messages.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
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


def is_timeout(exc: BaseException) -> bool:
    """A transport failure that means "no answer in time" rather than "refused" or "lost"."""
    text = (str(exc) or "").lower()
    return isinstance(exc, TimeoutError) or "timed out" in text or "timeout" in text


def transport_error(
    exc: BaseException,
    what: str,
    *,
    host: str,
    hint: str,
    timeout_s: float | None = None,
    timed_out: tuple[str, str] | None = None,
) -> RemoteError:
    """The one translation of a transport failure into the XyclawError tree: a timeout stays a
    timeout (so callers can tell "slow" from "refused"), the rest is a connection error.

    ``what`` says what failed (the error's text follows it); ``timed_out`` is the message and
    hint for a timeout where the caller can say more than "no answer within N s"."""
    if is_timeout(exc):
        if timed_out is not None:
            return RemoteTimeoutError(timed_out[0], host=host, hint=timed_out[1])
        limit = f" within {timeout_s:g} s" if timeout_s else ""
        return RemoteTimeoutError(f"{what}: no answer{limit}", host=host, hint=hint)
    return ConnectError(f"{what}: {str(exc) or type(exc).__name__}", host=host, hint=hint)


@contextmanager
def transport_errors(
    what: str,
    *,
    host: str,
    hint: str,
    timeout_s: float | None = None,
    timed_out: tuple[str, str] | None = None,
) -> Iterator[None]:
    """Run a call into paramiko or a socket: what they raise in transit (TRANSPORT_ERRORS)
    leaves as :func:`transport_error`'s RemoteTimeoutError or ConnectError, ``from`` it.
    XyClaw's own errors pass through unchanged; handlers inside for particular paramiko
    errors (a refused login, a refused channel) run first."""
    try:
        yield
    except TRANSPORT_ERRORS as exc:
        raise transport_error(
            exc, what, host=host, hint=hint, timeout_s=timeout_s, timed_out=timed_out
        ) from exc
