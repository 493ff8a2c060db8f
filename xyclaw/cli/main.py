"""Entry point of the ``xyclaw`` command."""

from __future__ import annotations

import argparse
import importlib
import logging
import os
import pkgutil
import sys
from collections.abc import Sequence
from importlib.metadata import entry_points
from typing import Any

from xyclaw import __version__
from xyclaw.errors import XyclawError

log = logging.getLogger(__name__)

SubParsers = "argparse._SubParsersAction[argparse.ArgumentParser]"


def _discover_registrars() -> list[Any]:
    from xyclaw.cli import commands

    registrars: list[Any] = []
    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{commands.__name__}.{info.name}")
        register = getattr(module, "register", None)
        if callable(register):
            registrars.append(register)
    for ep in entry_points(group="xyclaw.commands"):
        try:
            registrars.append(ep.load())
        except Exception as exc:  # a broken plug-in must not break the command
            log.warning("cannot load xyclaw command plug-in %s: %s", ep.name, exc)
    return registrars


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="xyclaw",
        description=(
            "XyClaw plans, rents, tunes, runs, watches and releases GPU clusters. "
            "With no command it opens the desktop app."
        ),
    )
    parser.add_argument("-V", "--version", action="version", version=f"xyclaw {__version__}")
    parser.add_argument(
        "-v", "--verbose", action="store_true", help="also log debug messages to the log file"
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for register in _discover_registrars():
        register(sub)
    return parser


def _print_error(exc: XyclawError) -> None:
    print(f"xyclaw: error: {exc}", file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list and args_list[0] in ("-V", "--version"):
        # Answered before any discovery so it stays fast.
        print(f"xyclaw {__version__}")
        return 0

    from xyclaw.cli.context import CliContext
    from xyclaw.logsetup import configure_logging
    from xyclaw.paths import AppPaths

    parser = build_parser()
    args = parser.parse_args(args_list)
    paths = AppPaths.from_environment()
    ctx = CliContext(paths=paths)
    try:
        handler = getattr(args, "handler", None)
        if handler is None:
            from xyclaw.cli.desktop import launch_desktop

            return launch_desktop(ctx)
        paths.ensure()
        configure_logging(paths.log_file, "DEBUG" if args.verbose else ctx.config.general.log_level)
        code: int = handler(args, ctx)
        return code
    except XyclawError as exc:
        log.info("command failed: %s", exc.message)
        _print_error(exc)
        return exc.exit_code
    except KeyboardInterrupt:
        print("xyclaw: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (`xyclaw ... | head`): stop quietly, as Unix tools do.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141
    finally:
        ctx.close()


if __name__ == "__main__":
    sys.exit(main())
