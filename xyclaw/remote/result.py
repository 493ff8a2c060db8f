"""What a remote command gave back."""

from __future__ import annotations

from dataclasses import dataclass

from xyclaw.errors import RemoteCommandError

DEFAULT_OUTPUT_CAP = 4 * 1024 * 1024


@dataclass(frozen=True)
class CommandResult:
    """Exit code and output of one command; output past ``cap_bytes`` was dropped and said so."""

    host: str
    command: str
    exit_code: int
    stdout: str
    stderr: str
    stdout_truncated: bool = False
    stderr_truncated: bool = False
    cap_bytes: int = DEFAULT_OUTPUT_CAP
    duration_s: float = 0.0

    @property
    def ok(self) -> bool:
        return self.exit_code == 0

    @property
    def truncation_note(self) -> str:
        """A sentence for the user when output was cut, else ``""``."""
        cut = [
            name
            for name, flag in (("stdout", self.stdout_truncated), ("stderr", self.stderr_truncated))
            if flag
        ]
        if not cut:
            return ""
        return f"{' and '.join(cut)} cut after {self.cap_bytes} bytes"

    def check(self) -> CommandResult:
        """``self`` if the command succeeded, else :class:`RemoteCommandError` with its stderr."""
        if self.ok:
            return self
        tail = self.stderr.strip().splitlines()[-5:]
        detail = ("; stderr: " + " | ".join(tail)) if tail else ""
        raise RemoteCommandError(
            f"`{_short(self.command)}` exited with {self.exit_code} on {self.host}{detail}",
            host=self.host,
            hint="read the command's output above; run it by hand over ssh to see more",
        )


def _short(command: str, limit: int = 80) -> str:
    command = " ".join(command.split())
    return command if len(command) <= limit else command[: limit - 3] + "..."
