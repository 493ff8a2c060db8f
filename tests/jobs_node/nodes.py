"""Where the node command strings run in these tests: real bash in a temp home, a simulated node."""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

from xyclaw.remote import HostSpec, SshPool
from xyclaw.sim.node import SimNode


@dataclass(frozen=True)
class Ran:
    status: int
    out: str
    err: str


class Node:
    """Somewhere a command line runs as XyClaw would send it; ``home`` is the login home."""

    name: str
    home: Path  # the folder on this machine that stands for the node's home

    def run(self, command: str, timeout: float = 30.0) -> Ran:
        raise NotImplementedError

    def write(self, relative: str, text: str) -> None:
        path = self.home / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)

    def mkdir(self, relative: str) -> None:
        (self.home / relative).mkdir(parents=True, exist_ok=True)

    def read(self, relative: str) -> str:
        return (self.home / relative).read_text()


class BashNode(Node):
    """``bash -c`` on this machine with HOME pointing at a temp folder (the node's home)."""

    name = "bash"

    def __init__(self, home: Path) -> None:
        self.home = home
        self.env = {
            "HOME": str(home),
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "LANG": "C.UTF-8",
        }

    def run(self, command: str, timeout: float = 30.0) -> Ran:
        done = subprocess.run(
            ["bash", "-c", command],
            cwd=self.home,
            env=self.env,
            capture_output=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
        )
        return Ran(done.returncode, done.stdout.decode(), done.stderr.decode())


class SimShellNode(Node):
    """A simulated GPU node reached over SSH through the app's own pool."""

    name = "sim"

    def __init__(self, node: SimNode, pool: SshPool, spec: HostSpec) -> None:
        self.node = node
        self.pool = pool
        self.spec = spec
        self.home = node.machine.root / "root"

    def run(self, command: str, timeout: float = 30.0) -> Ran:
        result = self.pool.run(self.spec, command, timeout=timeout)
        return Ran(result.exit_code, result.stdout, result.stderr)
