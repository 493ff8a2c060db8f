"""The one interface both brains implement: route a turn, take a step, say what it costs.

A brain never runs a tool. It reads the conversation (OpenAI-format message
dicts) and answers with text and/or tool calls; the graph checks, gates and runs
the calls. So the LLM brain and the rules brain share the same graph and the
same approvals.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from xyclaw.agent.types import Effect

DeltaKind = Literal["text", "reasoning"]
OnDelta = Callable[[DeltaKind, str], None]


@dataclass(frozen=True)
class ToolDef:
    """What a brain is told about one tool: its name, what it does, its JSON schema, its effect."""

    name: str
    description: str
    parameters: dict[str, Any]
    effect: Effect

    def openai_schema(self) -> dict[str, Any]:
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": f"[{self.effect}] {self.description}",
                "parameters": self.parameters,
            },
        }


@dataclass(frozen=True)
class AgentProfile:
    """One agent from an ``agents/*.md`` file: front matter plus the system prompt (body)."""

    name: str
    description: str
    tools: tuple[str, ...]
    prompt: str
    model: str | None = None
    source: str = ""


@dataclass(frozen=True)
class ToolCallRequest:
    """A tool call as the brain made it; ``args`` is None when ``arguments`` is not valid JSON."""

    id: str
    name: str
    arguments: str
    args: dict[str, Any] | None
    error: str | None = None

    @classmethod
    def parse(cls, call_id: str, name: str, arguments: str) -> ToolCallRequest:
        text = arguments.strip() or "{}"
        try:
            value = json.loads(text)
        except ValueError as exc:
            return cls(call_id, name, arguments, None, f"arguments are not valid JSON ({exc})")
        if not isinstance(value, dict):
            return cls(call_id, name, arguments, None, "arguments must be a JSON object")
        return cls(call_id, name, arguments, value)

    def to_state(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "arguments": self.arguments,
            "args": self.args,
            "error": self.error,
        }


@dataclass(frozen=True)
class BrainReply:
    text: str
    reasoning: str | None = None
    tool_calls: list[ToolCallRequest] = field(default_factory=list)
    tokens_in: int = 0
    tokens_out: int = 0
    usage_reported: bool = True  # False: the brain counted the tokens itself


@dataclass(frozen=True)
class Route:
    """The supervisor's choice: a specialist, or (``agent`` None) a direct short reply."""

    agent: str | None
    reply: str | None = None
    tokens_in: int = 0
    tokens_out: int = 0


@dataclass(frozen=True)
class Price:
    """Model price in micro-units of ``currency`` per million tokens."""

    in_per_million_micros: int = 0
    out_per_million_micros: int = 0
    currency: str = "USD"

    def cost_micros(self, tokens_in: int, tokens_out: int) -> int:
        total = tokens_in * self.in_per_million_micros + tokens_out * self.out_per_million_micros
        return (total + 500_000) // 1_000_000


class Brain(Protocol):
    name: str  # "rules" or "deepseek-chat @ api.deepseek.com"
    kind: Literal["rules", "llm"]
    price: Price

    def route(
        self,
        messages: list[dict[str, Any]],
        agents: list[AgentProfile],
        supervisor: AgentProfile,
        context: dict[str, Any],
    ) -> Route: ...

    def step(
        self,
        agent: AgentProfile,
        messages: list[dict[str, Any]],
        tools: list[ToolDef],
        context: dict[str, Any],
        on_delta: OnDelta,
        cancel: threading.Event | None = None,
    ) -> BrainReply: ...

    def close(self) -> None: ...


def estimate_tokens(text: str) -> int:
    """A server-free token count: one per CJK character, one per four other characters.

    Used only when a server streams no usage; it errs high for Chinese, which is the safe
    side for a cost shown to the user.
    """
    cjk = sum(1 for ch in text if "\u2e80" <= ch <= "\u9fff" or "\uf900" <= ch <= "\ufaff")
    other = len(text) - cjk
    return cjk + (other + 3) // 4


def estimate_prompt_tokens(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> int:
    total = 0
    for message in messages:
        total += 4 + estimate_tokens(str(message.get("content") or ""))
        for call in message.get("tool_calls") or []:
            function = call.get("function", {})
            total += estimate_tokens(function.get("name", "") + function.get("arguments", ""))
    if tools:
        total += estimate_tokens(json.dumps(tools, ensure_ascii=False))
    return total


def last_user_index(messages: list[dict[str, Any]]) -> int:
    for index in range(len(messages) - 1, -1, -1):
        if messages[index].get("role") == "user":
            return index
    return -1
