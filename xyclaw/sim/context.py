"""What a simulated command gets when it runs: its arguments, environment, streams and process."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from xyclaw.sim.procs import Proc
from xyclaw.sim.streams import InStream, OutStream

if TYPE_CHECKING:
    from xyclaw.sim.machine import Machine
    from xyclaw.sim.shellflow import Job
    from xyclaw.sim.shparse import Simple


@dataclass
class Stdio:
    stdin: InStream
    stdout: OutStream
    stderr: OutStream


class ShellLike(Protocol):
    """The shell as a command and a builtin see it (:class:`~xyclaw.sim.shell.Shell` is one):
    its variables, options and jobs, and running more of a script in it or in a subshell.

    A Protocol, not an import: the shell builds each command's :class:`Ctx`, so naming its
    class here closed a circle (issue 35)."""

    machine: Machine
    vars: dict[str, str]
    exported: set[str]
    cwd: str
    session: int
    hup_check: Callable[[], bool] | None
    pid: int
    positional: list[str]
    argv0: str
    last_status: int
    errexit: bool
    nounset: bool
    pipefail: bool
    xtrace: bool
    jobs: list[Job]
    traps: dict[int, str]

    @property
    def home(self) -> str: ...

    def run_script(self, text: str, io: Stdio, *, name: str = "-c") -> int: ...

    def run_exit_trap(self, io: Stdio, status: int) -> int: ...

    def run_simple(self, node: Simple, io: Stdio, *, proc: Proc | None = None) -> int: ...

    def subshell(self, *, hup_check: Callable[[], bool] | None = None) -> ShellLike: ...

    def dispatch(
        self,
        argv: list[str],
        io: Stdio,
        *,
        assigns: list[tuple[str, str]] | None = None,
        proc: Proc | None = None,
    ) -> int: ...


@dataclass
class Ctx:
    """One command invocation."""

    machine: Machine
    shell: ShellLike
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
