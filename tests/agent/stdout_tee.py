"""Runs a command with this process's stdin, and copies every byte its stdout writes both to
this process's stdout and to a file: what an MCP client received, kept for the test to read.

``python -m tests.agent.stdout_tee RECORD -- COMMAND...``
"""

from __future__ import annotations

import os
import subprocess
import sys


def main() -> int:
    record, command = sys.argv[1], sys.argv[sys.argv.index("--") + 1 :]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE)
    assert proc.stdout is not None
    with open(record, "ab") as kept:
        while chunk := os.read(proc.stdout.fileno(), 65536):
            kept.write(chunk)
            kept.flush()
            os.write(1, chunk)
    return proc.wait()


if __name__ == "__main__":
    sys.exit(main())
