"""What `xyclaw mcp` does to its standard streams before anything else runs (issue 37): the
protocol gets private descriptors; a print, a write to fd 1, a child process's output land
on stderr, and nothing can read the protocol's input from fd 0."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CHILD = """
import os, subprocess, sys
from xyclaw.agent.mcp_server import protocol_streams

reader, writer = protocol_streams()
print("a stray print")
os.write(1, b"a write to fd 1\\n")
subprocess.run([sys.executable, "-c", "print('a child says hi')"], check=True)
leaked = subprocess.run(
    [sys.executable, "-c", "import sys; print(repr(sys.stdin.read()))"],
    capture_output=True, text=True, check=True,
).stdout.strip()
sys.stderr.write(f"child read {leaked}\\n")
line = reader.readline()
writer.write('{"jsonrpc": "2.0", "echo": ' + line.strip() + '}\\n')
writer.flush()
"""


def test_only_the_protocol_reaches_stdout_and_nothing_else_reads_stdin() -> None:
    done = subprocess.run(
        [sys.executable, "-c", CHILD],
        input='"the client\'s line"\n',
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == '{"jsonrpc": "2.0", "echo": "the client\'s line"}\n'
    for stray in ("a stray print", "a write to fd 1", "a child says hi"):
        assert stray in done.stderr
    assert "child read ''" in done.stderr  # a child reads nothing of the client's input
