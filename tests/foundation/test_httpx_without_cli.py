"""httpx without its command-line client: a command that talks HTTP does not load click, rich
and pygments (httpx's __init__ imports them only for the `httpx` console command), and what
httpx's CLI module has is still there the moment something asks for it."""

from __future__ import annotations

import subprocess
import sys

CHECK = """
import sys
import xyclaw
import httpx

assert httpx.Client and httpx.HTTPError and httpx.MockTransport  # httpx itself is whole
print(sorted(m for m in ("click", "rich", "pygments") if m in sys.modules))
import httpx._main as cli
print(callable(cli.print_help), "rich" in sys.modules, type(sys.modules["httpx._main"]).__name__)
"""


def test_importing_httpx_after_xyclaw_skips_its_cli_until_asked_for() -> None:
    done = subprocess.run(
        [sys.executable, "-c", CHECK], capture_output=True, text=True, timeout=60, check=True
    )

    assert done.stdout.splitlines() == ["[]", "True True module"]


def test_httpx_already_imported_is_left_as_it_is() -> None:
    done = subprocess.run(
        [sys.executable, "-c", "import sys, httpx, xyclaw; print('rich' in sys.modules)"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )

    assert done.stdout.strip() == "True"
