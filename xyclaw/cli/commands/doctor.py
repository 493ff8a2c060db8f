"""``xyclaw doctor``: what is wrong, and how to fix it."""

from __future__ import annotations

import argparse
from typing import Any

from xyclaw.cli.context import CliContext


def register(sub: Any) -> None:
    parser = sub.add_parser("doctor", help="check the installation and say how to fix problems")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.set_defaults(handler=_run)


def _run(args: argparse.Namespace, ctx: CliContext) -> int:
    from xyclaw.engine import Engine
    from xyclaw.wording import worded

    results, steps = Engine.doctor_checks(ctx.paths, ctx.config)
    failed_required = [r for r in results if r.required and not r.ok]
    if args.json:
        ctx.print_json(Engine.doctor_json(results, steps))
    else:
        for r in results:
            mark = "ok  " if r.ok else ("FAIL" if r.required else "warn")
            ctx.print(f"[{mark}] {r.name:<12} {worded(r.said, ctx.language)}")
            if not r.ok and r.fix:
                ctx.print(ctx.text("doctor_fix", fix=worded(r.fix_said, ctx.language)))
        ctx.print(ctx.text("doctor_passed" if not failed_required else "doctor_failed"))
        if steps:
            ctx.print(ctx.text("doctor_next"))
            for step in steps:
                ctx.print(f"  - {step.in_language(ctx.language)}")
    return 1 if failed_required else 0
