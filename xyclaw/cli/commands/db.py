"""``xyclaw db info`` and ``xyclaw db backup``."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from xyclaw.cli.context import CliContext


def register(sub: Any) -> None:
    parser = sub.add_parser("db", help="the local history database")
    actions = parser.add_subparsers(dest="db_action", metavar="ACTION", required=True)
    info = actions.add_parser("info", help="path, schema version and row counts")
    info.add_argument("--json", action="store_true", help="print JSON")
    info.set_defaults(handler=_info)
    backup = actions.add_parser("backup", help="an online copy of the database")
    backup.add_argument("path", type=Path, help="file (or folder) to write the copy to")
    backup.add_argument("--force", action="store_true", help="overwrite an existing file")
    backup.set_defaults(handler=_backup)


def _info(args: argparse.Namespace, ctx: CliContext) -> int:
    info = ctx.engine().store_info()
    if args.json:
        ctx.print_json(info.to_json())
        return 0
    ctx.print(ctx.text("db_path", path=info.path))
    ctx.print(ctx.text("db_version", version=info.schema_version, latest=info.latest_version))
    ctx.print(ctx.text("db_size", size=f"{info.size_bytes / 1e6:.1f}"))
    for table, count in info.row_counts.items():
        ctx.print(f"  {table:<16} {count:>10,}")
    return 0


def _backup(args: argparse.Namespace, ctx: CliContext) -> int:
    target = ctx.engine().backup(args.path, overwrite=args.force)
    ctx.print(ctx.text("db_backed_up", path=ctx.paths.database, target=target))
    return 0
