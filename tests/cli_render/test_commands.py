"""`xyclaw offers` as a user sees it: a rich table at a terminal, the plain lines in a pipe."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import struct
import subprocess
import sys
import termios
import time
from collections.abc import Iterator

import pytest

from xyclaw.paths import AppPaths
from xyclaw.sim.cloud import launcher

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
OFFERS = [sys.executable, "-m", "xyclaw.cli.main", "offers", "--gpu", "H100"]
PLAIN_HEADER = (
    f"{'region':<10} {'gpu':<9} {'cards':<14} {'fabric':<11} {'per card-h':>11} {'free':>6}"
)


def _env() -> dict[str, str]:
    env = dict(os.environ, TERM="xterm-256color")
    env.pop("NO_COLOR", None)
    env.pop("COLUMNS", None)
    return env


@pytest.fixture(autouse=True)
def stop_the_simulated_cloud() -> Iterator[None]:
    """`offers` starts the simulated cloud in the background: stop it after each test."""
    yield
    launcher.stop(AppPaths.from_environment().data_dir / "sim")


def test_offers_in_a_pipe_are_the_plain_lines() -> None:
    proc = subprocess.run(OFFERS, capture_output=True, text=True, env=_env(), timeout=120)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == PLAIN_HEADER
    assert len(lines) > 1
    assert all(line.split()[1] == "H100" for line in lines[1:])
    assert not ANSI.search(proc.stdout)


def test_offers_at_a_terminal_are_a_rich_table() -> None:
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    proc = subprocess.Popen(OFFERS, stdout=slave, stderr=slave, env=_env())
    os.close(slave)
    chunks: list[bytes] = []
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if select.select([master], [], [], 0.5)[0]:
            try:
                data = os.read(master, 65536)
            except OSError:  # the child closed the terminal
                break
            if not data:
                break
            chunks.append(data)
        elif proc.poll() is not None:
            break
    assert proc.wait(timeout=30) == 0
    os.close(master)
    screen = b"".join(chunks).decode("utf-8", "replace")
    text = ANSI.sub("", screen)
    assert "\x1b[1m" in screen  # a bold header
    assert "─" in text  # the rule under it
    assert PLAIN_HEADER not in text
    assert "H100" in text and "per card-h" in text
