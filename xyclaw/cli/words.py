"""The command line's help and argparse's own words in the ``[gui] language`` (issue 35).

argparse words its frame ("usage:", "options", "show this help message and exit", "error:")
through gettext; :func:`argparse_words` answers those from ``cli.argparse.*`` entries of
:mod:`xyclaw.wording` while a command line is built and parsed. :func:`translate_parser`
replaces each description and option help by its ``cli.help.*`` entry, found by its English,
so the command modules keep their English texts where they are.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from typing import Any


@cache
def _by_english(prefix: str) -> dict[str, str]:
    from xyclaw.wording.catalogue import CATALOGUE

    return {en: zh for key, (en, zh) in CATALOGUE.items() if key.startswith(prefix)}


def _zh(text: str) -> str:
    return _by_english("cli.argparse.").get(text, text)


def _zh_plural(singular: str, plural: str, n: int) -> str:
    return _zh(singular if n == 1 else plural)


def argument_problem(template: str, /, **values: object) -> str:
    """A ``type=`` function's complaint (``'x' is not a whole number``) through argparse's own
    gettext, so it is in the language :func:`argparse_words` set, as argparse's frame is."""
    words: str = argparse._(template)  # type: ignore[attr-defined]
    return words % values


@contextmanager
def argparse_words(language: str) -> Iterator[None]:
    """argparse's own words in ``language`` ("zh" or "en") for the time of the block."""
    if language != "zh":
        yield
        return
    saved: dict[str, Any] = {"_": argparse._, "ngettext": argparse.ngettext}  # type: ignore[attr-defined]
    argparse._ = _zh  # type: ignore[attr-defined]
    argparse.ngettext = _zh_plural  # type: ignore[attr-defined]
    try:
        yield
    finally:
        for name, value in saved.items():
            setattr(argparse, name, value)


def translate_parser(parser: argparse.ArgumentParser, language: str) -> None:
    """Every parser's description and every option's and command's help in ``language``."""
    if language != "zh":
        return
    helps = _by_english("cli.help.")
    stack = [parser]
    while stack:
        each = stack.pop()
        if each.description:
            each.description = helps.get(each.description, each.description)
        for action in each._actions:
            if isinstance(action.help, str):
                action.help = helps.get(action.help, _zh(action.help))
            if isinstance(action, argparse._SubParsersAction):
                for choice in action._choices_actions:
                    if isinstance(choice.help, str):
                        choice.help = helps.get(choice.help, choice.help)
                stack.extend(dict.fromkeys(action.choices.values()))
