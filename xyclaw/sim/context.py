"""What a simulated command gets when it runs: its arguments, environment, streams and process."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from xyclaw.sim.procs import Proc
from xyclaw.sim.streams import InStream, OutStream

if TYPE_CHECKING:
    from xyclaw.sim.machine import Machine
    from xyclaw.sim.shell import Shell


@dataclass
class Stdio:
    stdin: InStream
    stdout: OutStream
    stderr: OutStream


@dataclass
class Ctx:
    """One command invocation."""

    machine: Machine
    shell: Shell
    argv: list[str]
    env: dict[str, str]
    io: Stdio
    proc: Proc | None = None  # None for shell builtins

    @property
    def name(self) -> str:
        return self.argv[0].rsplit("/", 1)[-1] if self.argv else ""

    @property
    def args(self) -> list[str]:
        return self.argv[1:]

    @property
    def cwd(self) -> str:
        return self.shell.cwd

    def out(self, text: str) -> None:
        self.io.stdout.write(text.encode())

    def err(self, text: str) -> None:
        self.io.stderr.write(text.encode())

    def path(self, path: str) -> str:
        """A node path made absolute against the working directory (and `~` expanded)."""
        if path == "~" or path.startswith("~/"):
            path = self.shell.home + path[1:]
        return self.machine.fs.norm(path, self.shell.cwd)

    def wait(self, seconds: float) -> bool:
        """Sleep; True when a signal interrupted (the command should then stop)."""
        if self.proc is None:
            return False
        return self.proc.wait(seconds)

    def killed_status(self) -> int:
        """The exit status of a process ended by its pending signal."""
        sig = self.proc.signalled if self.proc is not None else None
        return 128 + sig if sig else 1


Command = Callable[[Ctx], int]
