"""Taint: what a model writes after remote output entered its context is not the user's.

Once remote output (job logs, command output, file contents, node reports) has entered the
model's context in a conversation, every argument a model writes into a destroy or exec call
is tainted unless it is byte-identical to text the user typed there (a whole word or run of
words of one of their messages). A tainted call always asks, whatever the allowances, and its
card says why. Finding the argument in the remote output may explain the taint ("appears in
the output of job_logs, line 1234"); nothing clears it but the user's own text.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from xyclaw.wording import Said, said

#: Arguments that choose how, not what: a model may pick them after reading anything.
UNTAINTED_ARGS = frozenset({"timeout_s", "lines"})


@dataclass(frozen=True)
class Taint:
    reasons: tuple[Said, ...]

    def __bool__(self) -> bool:
        return bool(self.reasons)


def remote_outputs(tool_calls: Iterable[dict[str, Any]]) -> list[tuple[str, str]]:
    """(tool, text) of every piece of remote output that entered the conversation, from its
    stored tool calls (the caller reads them: this module stays off the store)."""
    out: list[tuple[str, str]] = []
    for row in tool_calls:
        if row.get("from_remote") and row.get("status") == "done":
            out += [(str(row["tool"]), text) for text in _strings(row.get("result"))]
    return out


def user_texts(messages: Iterable[dict[str, Any]]) -> list[str]:
    """What the user typed, from the conversation's stored messages."""
    return [str(m.get("content") or "") for m in messages if m.get("role") == "user"]


def typed_by_user(value: str, texts: Iterable[str]) -> bool:
    """Whether ``value`` is, byte for byte, words the user typed: it occurs in one of their
    messages with no letter or digit glued to either end."""
    if not value:
        return False
    for text in texts:
        start = text.find(value)
        while start >= 0:
            end = start + len(value)
            before = text[start - 1] if start > 0 else " "
            after = text[end] if end < len(text) else " "
            if not _wordy(before) and not _wordy(after):
                return True
            start = text.find(value, start + 1)
    return False


def taint_of(args: dict[str, Any], texts: list[str], outputs: list[tuple[str, str]]) -> Taint:
    """Why the model-written ``args`` of a destroy or exec call are tainted (empty: they are
    not): only once ``outputs`` (remote output in the conversation) is not empty."""
    if not outputs:
        return Taint(())
    reasons: list[Said] = []
    for name, value in args.items():
        if name in UNTAINTED_ARGS or value is None or isinstance(value, bool):
            continue
        text = value if isinstance(value, str) else str(value)
        if typed_by_user(text, texts):
            continue
        reasons.append(said("agent.taint.not_typed", arg=name))
        for tool, output in outputs:
            at = output.find(text)
            if at >= 0:
                line = output.count("\n", 0, at) + 1
                reasons.append(said("agent.taint.appears", arg=name, tool=tool, line=line))
                break
    return Taint(tuple(reasons))


def mcp_taint(args: dict[str, Any]) -> Taint:
    """Why a call an MCP client sent is tainted: all of it is another program's text, never
    the user's (issue 37); a call with no arguments is tainted as a whole. Never empty, so
    its card always asks, whatever the allowances."""
    reasons = [
        said("agent.taint.mcp", arg=name)
        for name, value in args.items()
        if name not in UNTAINTED_ARGS and value is not None
    ]
    return Taint(tuple(reasons) or (said("agent.taint.mcp", arg="the call"),))


def _wordy(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []
