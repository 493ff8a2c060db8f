"""What every parser of command output shares."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import ParamSpec, TypeVar

from xyclaw.errors import ParseError
from xyclaw.wording import Said

_P = ParamSpec("_P")
_R = TypeVar("_R")


def parse_guard(what: str, hint: Said) -> Callable[[Callable[_P, _R]], Callable[_P, _R]]:
    """Whatever slips past a parser's explicit checks still leaves as a ParseError, worded by
    the catalogue: ``what`` names an ``error.parse.what.*`` entry, ``hint`` is said."""

    def deco(fn: Callable[_P, _R]) -> Callable[_P, _R]:
        @functools.wraps(fn)
        def wrapper(*args: _P.args, **kwargs: _P.kwargs) -> _R:
            try:
                return fn(*args, **kwargs)
            except (
                ValueError,
                KeyError,
                IndexError,
                TypeError,
                OverflowError,
                RecursionError,
            ) as exc:
                message = Said(
                    "error.parse.unreadable",
                    {"what": Said(f"error.parse.what.{what}"), "error": str(exc)},
                )
                raise ParseError(message, hint=hint) from exc

        return wrapper

    return deco
