"""``xyclaw diagnose FILE|-``: what pasted command output is, what it shows, what to do."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from xyclaw.cli.context import CliContext
from xyclaw.errors import UsageError, XyclawError
from xyclaw.wording import Said, display, said

#: The most a file or stdin is read; diagnose itself reads the first 4 MB of it.
_READ_LIMIT = 8_000_000


def register(sub: Any) -> None:
    parser = sub.add_parser(
        "diagnose",
        help="read pasted output (nvidia-smi, ibstat, dmesg, nccl-tests, a training log...) "
        "and say what it shows",
    )
    parser.add_argument("source", metavar="FILE|-", help="a file with the output, or - for stdin")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.set_defaults(handler=_run)


def _read(source: str) -> str:
    if source == "-":
        data = sys.stdin.buffer.read(_READ_LIMIT)
    else:
        try:
            with Path(source).open("rb") as fh:
                data = fh.read(_READ_LIMIT)
        except OSError as exc:
            why: Said | str = exc.strerror or str(exc)
            if isinstance(exc, FileNotFoundError):  # the commonest, said in each language
                why = said("error.typed.no_such_file")
            raise UsageError(
                said("op.diag.cli.unreadable_file", path=source, why=why),
                hint=said("op.diag.cli.file_hint"),
            ) from exc
    return data.decode("utf-8", errors="replace")


def _run(args: argparse.Namespace, ctx: CliContext) -> int:
    text = _read(args.source)
    language = ctx.language
    try:
        found = ctx.engine().diagnose(text)
    except XyclawError as exc:  # the text is none of the known outputs: say what was expected
        message, hint = exc.in_language(language)
        if args.json:
            ctx.print_json({"recognised": False, "error": str(exc.message), "hint": exc.hint})
        else:
            ctx.warn(display.text(message))
            if hint:
                ctx.warn(display.text(hint))
        return 2
    if args.json:
        ctx.print_json({"recognised": True, **found.to_json()})
    else:
        for line in found.lines(language):
            ctx.print(display.line(line))
    return 0 if found.healthy else 1
