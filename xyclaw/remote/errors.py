"""Errors of the SSH layer that need more than the shared tree in :mod:`xyclaw.errors`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from xyclaw.errors import RemoteError, RemoteTimeoutError

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
