"""Opening the desktop app from the command line, or saying why it cannot open here."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from xyclaw.cli.context import CliContext

NO_DISPLAY_MESSAGE = """\
xyclaw: there is no display here, so the desktop app cannot open.
  - on a server, run it on a virtual screen:   xvfb-run -a {cmd}
  - or use the command-line tools, which need no display:
        {cmd} plan --task finetune-lora --model-size 13B --gpus 8
        {cmd} doctor
        {cmd} --help"""


def _command_name() -> str:
    """How the user started us, so the advice can be pasted as it is (.venv/bin/xyclaw)."""
    argv0 = Path(sys.argv[0])
    return str(argv0) if argv0.name == "xyclaw" else "xyclaw"


def display_available(environ: dict[str, str] | None = None) -> bool:
    env = os.environ if environ is None else environ
    if not sys.platform.startswith("linux"):
        return True
    if env.get("QT_QPA_PLATFORM"):
        return True
    return bool(env.get("DISPLAY") or env.get("WAYLAND_DISPLAY"))


def launch_desktop(ctx: CliContext) -> int:
    if not display_available(dict(os.environ)):
        ctx.warn(NO_DISPLAY_MESSAGE.format(cmd=_command_name()))
        return 2
    from xyclaw.logsetup import configure_logging

    ctx.paths.ensure()
    configure_logging(ctx.paths.log_file, ctx.config.general.log_level)
    # The desktop's one way into the GUI package is its entry module (import-linter allows it).
    from xyclaw.gui.app import host_key_prompter, run_app

    # Unknown hosts are asked about in the window (the Clusters page shows the prompt).
    engine = ctx.engine(trust_new_host=host_key_prompter())
    return run_app(engine, ctx.store())
