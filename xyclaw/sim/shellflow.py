"""What the shell, its builtins and the commands that run scripts share: the folders a
command's path is looked up in, the two ways out of a script (``exit``, ``break`` and
``continue``) and a background job.

Its own module (issue 35) so that the builtins and ``coreutils`` need not import the shell
that dispatches to them: they and the shell import this.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from xyclaw.sim.procs import Proc

BIN_DIRS = frozenset(
    {
        "/bin",
        "/sbin",
        "/usr/bin",
        "/usr/sbin",
        "/usr/local/bin",
        "/usr/local/sbin",
        "/usr/local/cuda/bin",
        "/opt/nccl-tests/build",
        "/usr/mpi/gcc/openmpi/bin",
    }
)


class ShellExit(Exception):
    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


class LoopControl(Exception):
    def __init__(self, kind: str, levels: int) -> None:
        super().__init__(kind)
        self.kind = kind
        self.levels = levels


@dataclass
class Job:
    thread: threading.Thread
    proc: Proc
    holds_output: bool
