"""Each public Engine method's effect, as data.

Agent tools are generated from this surface and the approval rule is checked
against it: a ``spend``, ``destroy`` or ``exec`` method never runs from a chat
without the user's yes. A test pins the whole surface (names, signatures, effects).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])

_ATTRIBUTE = "__xyclaw_effect__"


class Effect(StrEnum):
    READ = "read"  # looks, changes nothing that costs or is lost
    SPEND = "spend"  # starts billing
    DESTROY = "destroy"  # stops something: machines, a job, unsaved work
    EXEC = "exec"  # runs commands on the user's machines

    @property
    def needs_approval(self) -> bool:
        return self is not Effect.READ


def effect(kind: Effect) -> Callable[[F], F]:
    """Tag an Engine method with what it does to the user's money and machines."""

    def tag(fn: F) -> F:
        setattr(fn, _ATTRIBUTE, kind)
        return fn

    return tag


@dataclass(frozen=True)
class EngineMethod:
    name: str
    effect: Effect
    signature: str
    doc: str


def effect_of(fn: Callable[..., Any]) -> Effect | None:
    found = getattr(fn, _ATTRIBUTE, None)
    return found if isinstance(found, Effect) else None


def surface_of(cls: type) -> list[EngineMethod]:
    """Every public method of ``cls``; an untagged one is a bug the surface test names."""
    methods = []
    for name, member in sorted(vars(cls).items()):
        member = getattr(member, "__func__", member)  # a static method: its function
        if name.startswith("_") or not callable(member):
            continue
        tagged = effect_of(member)
        if tagged is None:
            raise TypeError(f"Engine.{name} declares no effect: tag it with @effect(...)")
        methods.append(
            EngineMethod(
                name=name,
                effect=tagged,
                signature=str(inspect.signature(member)),
                doc=inspect.getdoc(member) or "",
            )
        )
    return methods
