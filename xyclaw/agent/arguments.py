"""Range checks on a tool call's numbers, where a brain's calls enter the graph's state.

A model (or the rules brain reading "the last 99999999999999999999 jobs") can hand a tool an
integer of 2^64 or more, ``1e999`` (JSON's infinity), ``NaN`` or a negative count. Kept in the
state, such a number crashes LangGraph's checkpoint writer (a TypeError for an integer msgpack
cannot hold) or the tool itself (an OverflowError). So every call is screened before the
graph keeps it: a number out of its range turns the call into a refused one whose error
(the allowed range) is what the model reads back as the tool's result, and the number is
never stored as a number.

The ranges come from the tools' JSON schemas: every property whose type is ``number`` or
``integer`` (or a number written as a string, as ``plan``'s ``budget`` may be) gets the range
:data:`RANGES` names for it, and a number nobody named gets :data:`ANY_NUMBER`. The same
ranges go into the schemas a model is shown (``minimum``/``maximum``), so a model that reads
them need never be refused. A reply with more tool calls than :data:`MAX_CALLS_PER_REPLY` is
refused whole (:func:`too_many_calls`): 300 calls in one reply is a model looping, not a plan.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from xyclaw.agent.brain import ToolCallRequest, ToolDef
from xyclaw.wording import Said, said

#: At most this many tool calls in one reply of a model (each is one step of the graph).
MAX_CALLS_PER_REPLY = 16
#: The largest integer a float (and so every JSON reader) holds exactly: 2^53.
_EXACT = 2**53
#: UTC epoch seconds up to the year 2100.
_YEAR_2100 = 4_102_444_800


@dataclass(frozen=True)
class Range:
    low: float
    high: float
    #: False: ``low`` itself is not allowed (a deadline of 0 hours means nothing).
    low_inclusive: bool = True

    def holds(self, value: float) -> bool:
        above = value >= self.low if self.low_inclusive else value > self.low
        return above and value <= self.high


#: Every number a tool takes, by its argument's name: what makes sense, with room to spare.
RANGES: dict[str, Range] = {
    "model_params": Range(1e6, 1e14),  # 1M .. 100T parameters
    "tokens": Range(1, 1e16),
    "gpus": Range(1, 100_000),
    "gpus_per_node": Range(1, 64),
    "budget": Range(0, 1e9),  # in the currency: a billion is no one's budget for one job
    "deadline_hours": Range(0, 87_600, low_inclusive=False),  # up to ten years
    "qps": Range(0, 1e7, low_inclusive=False),
    "plan_id": Range(1, _EXACT),
    "option": Range(1, 1_000),
    "timeout_s": Range(1, 86_400),
    "lines": Range(1, 100_000),
    "limit": Range(1, 100_000),
    "start": Range(0, _YEAR_2100),
    "end": Range(0, _YEAR_2100),
    "since": Range(0, _YEAR_2100),
    "until": Range(0, _YEAR_2100),
}
#: A number no tool names (nested, or an argument the schema does not know): finite and exact.
ANY_NUMBER = Range(-_EXACT, _EXACT)


def numeric_properties(parameters: Mapping[str, Any]) -> dict[str, Range]:
    """The properties of a tool's schema that take numbers, each with its range."""
    out: dict[str, Range] = {}
    for name, spec in (parameters.get("properties") or {}).items():
        kinds = spec.get("type", [])
        kinds = [kinds] if isinstance(kinds, str) else list(kinds)
        if "number" in kinds or "integer" in kinds:
            out[name] = RANGES.get(name, ANY_NUMBER)
    return out


def with_ranges(parameters: dict[str, Any]) -> dict[str, Any]:
    """A tool's schema with each numeric property's range as ``minimum``/``maximum`` (what a
    model is shown); the schema itself is left as it is."""
    ranges = numeric_properties(parameters)
    if not ranges:
        return parameters
    properties = dict(parameters.get("properties") or {})
    for name, bounds in ranges.items():
        extra: dict[str, Any] = {"maximum": _figure(bounds.high)}
        extra["minimum" if bounds.low_inclusive else "exclusiveMinimum"] = _figure(bounds.low)
        properties[name] = {**properties[name], **extra}
    return {**parameters, "properties": properties}


def problems(parameters: Mapping[str, Any], args: Mapping[str, Any]) -> list[Said]:
    """What is out of range in ``args`` for a tool with these ``parameters`` (none: empty)."""
    ranges = numeric_properties(parameters)
    found: list[Said] = []
    for name, value in args.items():
        bounds = ranges.get(name, ANY_NUMBER)
        _check(str(name), value, bounds, name in ranges, found)
    return found


def screen(call: ToolCallRequest, tools: Iterable[ToolDef]) -> ToolCallRequest:
    """``call`` as it is, or refused (``args`` None, ``error`` the allowed ranges) when one of
    its numbers is out of range; the refusal is what the model reads as the tool's result."""
    if call.args is None:
        return call
    schema = next((t.parameters for t in tools if t.name == call.name), {})
    found = problems(schema, call.args)
    if not found:
        return call
    error = "; ".join(p.english for p in found)
    return replace(call, args=None, error=f"{error}; call the tool again with numbers in range")


def screen_reply(calls: list[ToolCallRequest], tools: Iterable[ToolDef]) -> list[ToolCallRequest]:
    """Every call of one reply, screened (see :func:`screen`)."""
    defs = list(tools)
    return [screen(c, defs) for c in calls]


def too_many_calls(calls: list[ToolCallRequest], language: str) -> str | None:
    """What the user is told when one reply holds more calls than allowed (else None)."""
    if len(calls) <= MAX_CALLS_PER_REPLY:
        return None
    return said(
        "agent.turn.too_many_calls", count=len(calls), limit=MAX_CALLS_PER_REPLY
    ).in_language(language)


def _check(name: str, value: Any, bounds: Range, named: bool, found: list[Said]) -> None:
    if isinstance(value, bool) or value is None:
        return
    if isinstance(value, str):
        number = _number_in(value) if named else None
        if number is not None:
            _check(name, number, bounds, named, found)
        return
    if isinstance(value, Mapping):
        for key, inner in value.items():
            _check(f"{name}.{key}", inner, ANY_NUMBER, False, found)
        return
    if isinstance(value, list | tuple):
        for index, inner in enumerate(value):
            _check(f"{name}[{index}]", inner, ANY_NUMBER, False, found)
        return
    if not isinstance(value, int | float):
        return
    low, high = _figure(bounds.low), _figure(bounds.high)
    if isinstance(value, float) and not math.isfinite(value):
        found.append(
            said("agent.turn.arg.not_finite", name=name, low=low, high=high, value=str(value))
        )
    elif bounds.holds(value):
        return
    elif isinstance(value, int) and abs(value) > 10**15:
        digits = len(str(abs(value)))
        found.append(said("agent.turn.arg.too_large", name=name, digits=digits, low=low, high=high))
    else:
        found.append(
            said("agent.turn.arg.range", name=name, low=low, high=high, value=_figure(value))
        )


def _number_in(text: str) -> float | None:
    """A string that is a number as a whole ("1e999", "-3", "nan"), else None ("500CNY")."""
    try:
        return float(text.strip().replace("_", "x"))
    except ValueError:
        return None


def _figure(value: float) -> int | float:
    if isinstance(value, float) and value.is_integer() and abs(value) < _EXACT:
        return int(value)
    return value
