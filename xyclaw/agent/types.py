"""What the agent runtime hands the GUI and the CLI: plain frozen dataclasses, no LangGraph.

These names are the contract in notes/agent-api.md; the chat window codes against them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from xyclaw.engine.surface import Effect  # the Engine's effect tags (a light module)
from xyclaw.wording import Said

ToolStatus = Literal["running", "done", "pending_approval", "approved", "rejected", "failed"]
DecisionKind = Literal["approve", "reject", "edit"]


@dataclass(frozen=True)
class ConversationInfo:
    id: int
    title: str
    created_at: float
    updated_at: float
    tokens_in: int
    tokens_out: int
    cost_micros: int
    currency: str
    pending_approval: bool
    kind: str = "chat"  # "chat", or "monitor" for the heartbeat's conversation


@dataclass(frozen=True)
class ToolCallRecord:
    call_id: str
    tool: str
    effect: Effect
    args: dict[str, Any]
    status: ToolStatus
    duration_s: float | None = None
    summary: str | None = None
    error: str | None = None
    from_remote: bool = False  # the result is data from a remote machine
    agent: str | None = None
    result: Any = None
    # summary and error as a key and figures (a window words them in its language)
    summary_said: Said | None = None
    error_said: Said | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "call_id": self.call_id,
            "tool": self.tool,
            "effect": str(self.effect),
            "args": self.args,
            "status": self.status,
            "duration_s": self.duration_s,
            "summary": self.summary,
            "error": self.error,
            "from_remote": self.from_remote,
            "agent": self.agent,
            "result": self.result,
            "summary_said": _said_json(self.summary_said),
            "error_said": _said_json(self.error_said),
        }


@dataclass(frozen=True)
class SuggestedAction:
    """A button under a monitor message: a tool call that still goes through the approvals."""

    label: str
    tool: str
    args: dict[str, Any]
    effect: Effect

    def to_json(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "tool": self.tool,
            "args": self.args,
            "effect": str(self.effect),
        }


@dataclass(frozen=True)
class ChatMessage:
    id: int
    conversation_id: int
    role: Literal["user", "assistant", "tool"]
    agent: str | None
    text: str
    reasoning: str | None
    tool_call: ToolCallRecord | None
    ts: float
    tokens_in: int = 0
    tokens_out: int = 0
    cost_micros: int = 0
    actions: tuple[SuggestedAction, ...] = ()


@dataclass(frozen=True)
class ApprovalRequest:
    approval_id: str
    conversation_id: int
    agent: str
    tool: str
    effect: Effect
    args: dict[str, Any]
    title: str
    details: dict[str, Any]
    flagged_after_remote_output: bool
    created_at: float
    language: str = "en"  # of the request that asked: "en" or "zh"; title and details are in it
    # title and rows as keys and figures (a window words them in its language); a row's
    # value is a Said, or a list of Saids and plain values
    title_said: Said | None = None
    details_said: dict[str, Any] = field(default_factory=dict)
    # The bound Action (xyclaw.engine.approvals.Action.to_json): what a yes agrees to, by id;
    # a yes must name its digest (or the card id, a prefix of it).
    digest: str = ""
    action: dict[str, Any] = field(default_factory=dict)

    @property
    def card_id(self) -> str:
        return self.digest[:8]

    def rows(self) -> list[tuple[str, Any]]:
        """The bound Action's fields as (field, value) rows, for a face to draw (untrusted
        text: draw it as plain text); empty for a card from before bound approvals."""
        if not self.action:
            return []
        from xyclaw.engine.approvals import Action

        return Action.from_json(self.action).rows()

    def to_json(self) -> dict[str, Any]:
        return {
            "approval_id": self.approval_id,
            "digest": self.digest,
            "card": self.card_id,
            "action": self.action,
            "conversation_id": self.conversation_id,
            "agent": self.agent,
            "tool": self.tool,
            "effect": str(self.effect),
            "args": self.args,
            "title": self.title,
            "details": self.details,
            "flagged_after_remote_output": self.flagged_after_remote_output,
            "created_at": self.created_at,
            "language": self.language,
            "title_said": _said_json(self.title_said),
            "details_said": {k: _said_json(v) for k, v in self.details_said.items()},
        }

    @classmethod
    def from_payload(cls, conversation_id: int, payload: dict[str, Any]) -> ApprovalRequest:
        return cls(
            approval_id=str(payload["approval_id"]),
            conversation_id=conversation_id,
            agent=str(payload["agent"]),
            tool=str(payload["tool"]),
            effect=Effect(payload["effect"]),
            args=dict(payload["args"]),
            title=str(payload["title"]),
            details=dict(payload["details"]),
            flagged_after_remote_output=bool(payload["flagged_after_remote_output"]),
            created_at=float(payload["created_at"]),
            language=str(payload.get("language") or "en"),
            title_said=Said.from_json(payload.get("title_said")),
            details_said={
                str(k): _said_of(v) for k, v in dict(payload.get("details_said") or {}).items()
            },
            digest=str(payload.get("digest") or ""),
            action=dict(payload.get("action") or {}),
        )


def _said_json(value: Any) -> Any:
    """A Said (or a list holding some) in its stored form; anything else as it is."""
    if isinstance(value, Said):
        return value.to_json()
    if isinstance(value, list):
        return [_said_json(v) for v in value]
    return value


def _said_of(value: Any) -> Any:
    """The stored form back: a Said, a list of Saids and plain values, or the value itself."""
    if isinstance(value, list):
        return [_said_of(v) for v in value]
    return Said.from_json(value) or value


@dataclass(frozen=True)
class Decision:
    kind: DecisionKind
    args: dict[str, Any] | None = None  # for "edit": the changed arguments
    remember: bool = False  # exec/tune on this cluster for this conversation only
    by: str = "user"  # who decided: "user", "cli", ...
    # the card a yes is for: its digest, or a prefix of it (the card id) that names it
    digest: str | None = None
    # with remember on a command: remember its first words (an argv prefix) instead of the
    # exact command; refused when it is not how the command begins or holds ; | & $ ` > <
    remember_prefix: str | None = None
    # where the answer was given: "window", "terminal" (``xyclaw chat`` with a terminal on
    # stdin), "ask" (``xyclaw ask``), "no terminal", "mcp". A card an MCP client asked for is
    # answered only from the window or a terminal (issue 37); None: not said, so not there.
    face: str | None = None

    @classmethod
    def approve(cls, request: ApprovalRequest, **extra: Any) -> Decision:
        """A yes to exactly ``request``: it carries the card's digest."""
        return cls("approve", digest=request.digest, **extra)

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "args": self.args,
            "remember": self.remember,
            "by": self.by,
            "digest": self.digest,
            "remember_prefix": self.remember_prefix,
            "face": self.face,
        }


@dataclass(frozen=True)
class Allowance:
    id: int
    conversation_id: int
    conversation_title: str
    cluster: str
    tool: str
    effect: Effect
    created_at: float
    cluster_id: int | None = None
    command: str | None = None  # the exact command it allows
    prefix: tuple[str, ...] | None = None  # or the argv prefix it allows


@dataclass(frozen=True)
class Usage:
    tokens_in: int
    tokens_out: int
    cost_micros: dict[str, int] = field(default_factory=dict)  # per currency


@dataclass(frozen=True)
class TurnResult:
    conversation_id: int
    agent: str
    reply: str
    tool_calls: list[ToolCallRecord]
    pending_approval: ApprovalRequest | None
    tokens_in: int
    tokens_out: int
    cost_micros: int
    currency: str = "USD"
    reasoning: str | None = None
    #: A failed turn's exit status for the command line (2: what was sent or asked cannot be
    #: answered as it is; 1: XyClaw failed); 0 for a turn that did not fail.
    exit_code: int = 0


# -- events streamed to the caller during a turn (on the thread running the turn) -------------
@dataclass(frozen=True)
class TokenDelta:
    conversation_id: int
    agent: str
    text: str


@dataclass(frozen=True)
class ReasoningDelta:
    conversation_id: int
    agent: str
    text: str


@dataclass(frozen=True)
class ToolStarted:
    conversation_id: int
    call: ToolCallRecord


@dataclass(frozen=True)
class ToolFinished:
    conversation_id: int
    call: ToolCallRecord


@dataclass(frozen=True)
class ApprovalRequested:
    conversation_id: int
    request: ApprovalRequest


@dataclass(frozen=True)
class ReplyDone:
    conversation_id: int
    message: ChatMessage


@dataclass(frozen=True)
class TurnFailed:
    conversation_id: int
    message: str


@dataclass(frozen=True)
class PlanShown:
    conversation_id: int
    plan_id: int
    options: list[dict[str, Any]]


AgentEvent = (
    TokenDelta
    | ReasoningDelta
    | ToolStarted
    | ToolFinished
    | ApprovalRequested
    | ReplyDone
    | TurnFailed
    | PlanShown
)
