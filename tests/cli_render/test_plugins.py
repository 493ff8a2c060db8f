"""Command plug-ins (the ``xyclaw.commands`` entry point): found for their own command and
listed in the help, while a built-in command starts without reading every package's
metadata."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

PLUGIN = """
def register(sub):
    p = sub.add_parser("hello", help="say hello (a plug-in)")
    p.set_defaults(handler=lambda args, ctx: ctx.print("hello from a plug-in") or 0)
"""


@pytest.fixture
def plugin_path(tmp_path: Path) -> Path:
    """An installed plug-in: a module and its dist-info with the entry point."""
    site = tmp_path / "site"
    (site / "xyclaw_hello-0.1.dist-info").mkdir(parents=True)
    (site / "xyclaw_hello.py").write_text(PLUGIN)
    info = site / "xyclaw_hello-0.1.dist-info"
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: xyclaw-hello\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[xyclaw.commands]\nhello = xyclaw_hello:register\n")
    return site


def _xyclaw(site: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(site), env.get("PYTHONPATH", "")])
    return subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "xyclaw.cli.main", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


def test_a_plugin_command_runs_and_is_listed_in_the_help(plugin_path: Path) -> None:
    ran = _xyclaw(plugin_path, "hello")
    assert ran.returncode == 0, ran.stderr[-2000:]
    assert ran.stdout.strip() == "hello from a plug-in"
    helped = _xyclaw(plugin_path, "--help")
    assert helped.returncode == 0
    assert "hello" in helped.stdout and "say hello (a plug-in)" in helped.stdout


def test_a_builtin_command_does_not_look_for_plugins(plugin_path: Path) -> None:
    proc = _xyclaw(plugin_path, "config", "path")
    assert proc.returncode == 0, proc.stderr[-2000:]
    imported = {line.rsplit("|", 1)[-1].strip() for line in proc.stderr.splitlines()}
    assert "xyclaw_hello" not in imported and "importlib.metadata" not in imported
