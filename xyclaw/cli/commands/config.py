"""``xyclaw config``: show the effective configuration, where it comes from, and check it."""

from __future__ import annotations

import argparse
from typing import Any

from xyclaw.cli.context import CliContext
from xyclaw.config import config_as_dict, describe_settings


def register(sub: Any) -> None:
    parser = sub.add_parser("config", help="show or check the configuration")
    actions = parser.add_subparsers(dest="config_action", metavar="ACTION", required=True)
    show = actions.add_parser("show", help="the effective settings (file, environment, defaults)")
    show.add_argument("--json", action="store_true", help="print JSON")
    show.set_defaults(handler=_show)
    path = actions.add_parser("path", help="where config.toml and the data live")
    path.set_defaults(handler=_path)
    check = actions.add_parser(
        "check", help="read config.toml and hosts.toml and say what is wrong (exit 2)"
    )
    check.set_defaults(handler=_check)


def _show(args: argparse.Namespace, ctx: CliContext) -> int:
    values = config_as_dict(ctx.config)
    if args.json:
        ctx.print_json(values)
        return 0
    section = None
    for info in describe_settings():
        if info.section != section:
            section = info.section
            ctx.print(f"[{section}]")
        value = values[info.section][info.key]
        marker = "" if value == info.default else ctx.text("config_changed_mark")
        ctx.print(f"{info.key} = {value!r}{marker}")
    return 0


def _path(args: argparse.Namespace, ctx: CliContext) -> int:
    p = ctx.paths
    ctx.print(ctx.text("config_file", path=p.config_file))
    ctx.print(ctx.text("config_data", path=p.data_dir))
    ctx.print(ctx.text("config_database", path=p.database))
    ctx.print(ctx.text("config_log", path=p.log_file))
    return 0


def _check(args: argparse.Namespace, ctx: CliContext) -> int:
    """Both files read as every command reads them: a problem stops here with its message."""
    from xyclaw.engine import Engine

    values = config_as_dict(ctx.config)  # a bad config.toml has already stopped the command
    changed = sum(
        1 for info in describe_settings() if values[info.section][info.key] != info.default
    )
    config_file = ctx.paths.config_file
    if config_file.exists():
        ctx.print(ctx.text("config_ok", path=config_file, changed=changed))
    else:
        ctx.print(ctx.text("config_none", path=config_file))
    hosts_file = Engine.hosts_file(ctx.paths)
    hosts = Engine.own_hosts(ctx.paths)
    if hosts_file.exists():
        ctx.print(ctx.text("hosts_ok", path=hosts_file, count=len(hosts)))
    else:
        ctx.print(ctx.text("hosts_none", path=hosts_file))
    return 0
