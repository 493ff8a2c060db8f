"""A command line imports only its own command module: the map of commands to modules is true."""

from __future__ import annotations

import argparse
import importlib
import pkgutil

from xyclaw.cli import commands
from xyclaw.cli.main import COMMAND_MODULES, build_parser


def test_the_map_names_exactly_the_commands_each_module_registers() -> None:
    registered: dict[str, str] = {}
    for info in pkgutil.iter_modules(commands.__path__):
        module = importlib.import_module(f"{commands.__name__}.{info.name}")
        register = getattr(module, "register", None)
        if not callable(register):
            continue
        sub = argparse.ArgumentParser().add_subparsers(dest="command")
        register(sub)
        registered.update(dict.fromkeys(sub.choices, info.name))
    assert registered == COMMAND_MODULES


def test_a_command_line_parses_with_only_its_module_and_help_lists_them_all() -> None:
    args = build_parser(["up", "--plan", "3", "--option", "2", "--yes"]).parse_args(
        ["up", "--plan", "3", "--option", "2", "--yes"]
    )
    assert (args.command, args.plan, args.option, args.yes) == ("up", 3, 2, True)
    only = build_parser(["ask", "hello"])
    assert "up" not in only._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    every = build_parser()
    assert set(COMMAND_MODULES) <= set(every._subparsers._group_actions[0].choices)  # type: ignore[union-attr]
