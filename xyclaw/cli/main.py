"""Entry point of the ``xyclaw`` command."""

from __future__ import annotations

import argparse
import importlib
import logging
import math
import os
import pkgutil
import sqlite3
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from xyclaw import __version__
from xyclaw.errors import XyclawError

log = logging.getLogger(__name__)

SubParsers = "argparse._SubParsersAction[argparse.ArgumentParser]"


#: Which module of ``xyclaw.cli.commands`` registers each built-in command, so that a
#: command line imports only its own module (importing all of them costs about 0.2 s).
#: ``tests/foundation/test_cli_commands_map.py`` checks it against what the modules register.
COMMAND_MODULES: dict[str, str] = {
    **dict.fromkeys(("ask", "chat", "demo", "model-key"), "agent"),
    **dict.fromkeys(
        ("billing", "budget", "clusters", "down", "exec", "forget", "offers", "up"), "clusters"
    ),
    **dict.fromkeys(("cancel", "jobs", "launch", "logs", "serve", "ssh-config"), "jobs"),
    **dict.fromkeys(("metrics", "top"), "telemetry"),
    **dict.fromkeys(("nccl", "tune"), "tuning"),
    **{name: name for name in ("config", "db", "diagnose", "doctor", "guard", "hosts", "plan")},
    **{name: name for name in ("mcp", "providers", "secrets", "sim", "slurm")},
}


def _builtin_registrars(command: str | None = None) -> list[Any]:
    """The ``register`` functions of the command modules: only ``command``'s when known."""
    from xyclaw.cli import commands

    if command in COMMAND_MODULES:
        names = [COMMAND_MODULES[command]]
    else:
        names = sorted(m.name for m in pkgutil.iter_modules(commands.__path__))
    registrars: list[Any] = []
    for name in names:
        module = importlib.import_module(f"{commands.__name__}.{name}")
        register = getattr(module, "register", None)
        if callable(register):
            registrars.append(register)
    return registrars


def _plugin_registrars() -> list[Any]:
    """Commands of installed plug-ins (the ``xyclaw.commands`` entry points)."""
    from importlib.metadata import entry_points  # reading every package's metadata: slow

    registrars: list[Any] = []
    for ep in entry_points(group="xyclaw.commands"):
        try:
            registrars.append(ep.load())
        except Exception as exc:  # a broken plug-in must not break the command
            log.warning("cannot load xyclaw command plug-in %s: %s", ep.name, exc)
    return registrars


def _command_of(argv: Sequence[str]) -> str | None:
    """The command word of a command line: the first argument that is not an option
    (the options before a command take no value)."""
    return next((a for a in argv if not a.startswith("-")), None)


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """Every command's parser. With ``argv`` whose command is a built-in one, installed
    plug-ins are not looked for (that reads every package's metadata, a tenth of a second)."""
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
    parser.add_argument(
        "--trust-new-host", action="store_true", help=TRUST_HELP, dest="trust_new_host"
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for register in _builtin_registrars(None if argv is None else _command_of(argv)):
        register(sub)
    if argv is None or _command_of(argv) not in sub.choices:
        for register in _plugin_registrars():
            register(sub)
    for each in _parsers(parser):
        _bound_numbers(each)
        if each is not parser and not _has_option(each, "--trust-new-host"):
            # Accepted after the command too (`xyclaw up ... --trust-new-host`).
            each.add_argument(
                "--trust-new-host",
                action="store_true",
                default=argparse.SUPPRESS,
                help=TRUST_HELP,
            )
    return parser


TRUST_HELP = (
    "accept the key of an SSH host XyClaw does not know yet (for scripts; each key is"
    " printed); at a terminal you are asked instead"
)


def _has_option(parser: argparse.ArgumentParser, flag: str) -> bool:
    return any(flag in action.option_strings for action in parser._actions)


#: SQLite keeps 64-bit integers: an id or count beyond that is no id and no count.
MAX_INT = 2**63 - 1


_NOT_WHOLE = "%(text)s is not a whole number"
_OUT_OF_RANGE = "%(text)s is out of range (at most %(most)s)"
_NOT_NUMBER = "%(text)s is not a number"
_NOT_FINITE = "%(text)s is not a finite number"


def _whole(text: str) -> int:
    from xyclaw.cli.words import argument_problem

    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(argument_problem(_NOT_WHOLE, text=repr(text))) from None
    if abs(value) > MAX_INT:
        problem = argument_problem(_OUT_OF_RANGE, text=repr(text[:30]), most=f"{MAX_INT:,}")
        raise argparse.ArgumentTypeError(problem)
    return value


def _finite(text: str) -> float:
    from xyclaw.cli.words import argument_problem

    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(argument_problem(_NOT_NUMBER, text=repr(text))) from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(argument_problem(_NOT_FINITE, text=repr(text)))
    return value


_whole.__name__ = "int"  # argparse names the type in its messages
_finite.__name__ = "float"


def _parsers(parser: argparse.ArgumentParser) -> Iterator[argparse.ArgumentParser]:
    yield parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in dict.fromkeys(action.choices.values()):
                yield from _parsers(child)


def _bound_numbers(parser: argparse.ArgumentParser) -> None:
    """Every ``type=int`` / ``type=float`` flag of every command takes only values the app can
    use: a 64-bit integer (what SQLite stores), a finite float. One place for all commands."""
    bounded: dict[object, Callable[[str], object]] = {int: _whole, float: _finite}
    for action in parser._actions:
        replacement = bounded.get(action.type)
        if replacement is not None:
            action.type = replacement


def _print_error(exc: XyclawError, language: str = "en") -> None:
    """``xyclaw: error: MESSAGE`` and ``  -> HINT``, in ``language`` where the error carries
    its wording (English: as ``str(exc)``)."""
    if language == "en":
        print(f"xyclaw: error: {exc}", file=sys.stderr)
        return
    from xyclaw.wording import text_in

    message, hint = exc.in_language(language)
    print(text_in(language, "cli.error", message=message), file=sys.stderr)
    if hint:
        print(text_in(language, "cli.error_hint", hint=hint), file=sys.stderr)


def _print_unexpected(exc: BaseException, log_file: object, language: str = "en") -> int:
    """Anything that is not a XyClaw error: one message and the log, never a traceback."""
    from xyclaw.wording import text_in

    log.error("unexpected error", exc_info=exc)
    if isinstance(exc, sqlite3.Error):
        what = text_in(language, "cli.unexpected.database", error=exc)
        hint = text_in(language, "cli.unexpected.database_hint")
    elif isinstance(exc, OSError) and exc.strerror:
        where = f": {exc.filename}" if exc.filename else ""
        what = f"{exc.strerror}{where}"
        hint = text_in(language, "cli.unexpected.os_hint")
    else:
        what = text_in(
            language, "cli.unexpected.internal", kind=type(exc).__name__, text=str(exc)[:200]
        )
        hint = text_in(language, "cli.unexpected.bug_hint", log=log_file)
    print(text_in(language, "cli.unexpected", what=what, hint=hint), file=sys.stderr)
    return 1


def _language() -> str:
    """The language of the help and of argparse's words, read before the command line is
    parsed: English when the folders or config.toml cannot be read (the command says why)."""
    from xyclaw.config import load_config
    from xyclaw.paths import AppPaths
    from xyclaw.wording import language_of

    try:
        paths = AppPaths.from_environment()
        return language_of(load_config(paths.config_file).gui.language)
    except XyclawError:
        return _language_alone()


def _language_alone() -> str:
    """``[gui] language`` read by itself from a config.toml that does not load (a value out
    of range elsewhere): the error that says so is then in the user's language."""
    import tomllib

    from xyclaw.paths import AppPaths
    from xyclaw.wording import language_of

    try:
        data = tomllib.loads(AppPaths.from_environment().config_file.read_text(encoding="utf-8"))
    except (XyclawError, OSError, ValueError):  # unreadable, not UTF-8, not TOML
        return "en"
    gui = data.get("gui")
    setting = gui.get("language") if isinstance(gui, dict) else None
    return language_of(setting) if isinstance(setting, str) else "en"


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list and args_list[0] in ("-V", "--version"):
        # Answered before any discovery so it stays fast.
        print(f"xyclaw {__version__}")
        return 0

    from xyclaw.cli.context import CliContext
    from xyclaw.cli.words import argparse_words, translate_parser
    from xyclaw.logsetup import configure_logging
    from xyclaw.paths import AppPaths

    language = _language()
    with argparse_words(language):
        parser = build_parser(args_list)
        translate_parser(parser, language)
        args = parser.parse_args(args_list)
    try:
        paths = AppPaths.from_environment()
    except XyclawError as exc:
        _print_error(exc)
        return exc.exit_code
    ctx = CliContext(
        paths=paths, trust_new_host=bool(getattr(args, "trust_new_host", False)), argv=args_list
    )
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
        _print_error(exc, language)
        return exc.exit_code
    except KeyboardInterrupt:
        from xyclaw.cli.trust import INTERRUPTED

        INTERRUPTED.set()  # a host-key question still open is answered "no"
        from xyclaw.wording import text_in

        print(text_in(language, "cli.interrupted"), file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (`xyclaw ... | head`): stop quietly, as Unix tools do.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141
    except Exception as exc:
        return _print_unexpected(exc, paths.log_file, language)
    finally:
        try:
            ctx.close()
        except Exception as exc:  # closing must not turn an answer into a traceback
            log.error("closing failed", exc_info=exc)


if __name__ == "__main__":
    sys.exit(main())
