"""What the rules brain hands the runtime: one turn's language, agent, tool calls and reply.

These three dataclasses are the whole contract between the rules brain and the
graph: the runtime turns a :class:`RulesTurn` into an assistant message (with
tool calls when there are any), runs the tools through the same approvals as an
LLM's calls, and asks :func:`xyclaw.agent.rules.summarize` for the reply.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from typing import Any

# The tool catalogue the brain may name, with each tool's effect (as the Engine tags it).
TOOL_EFFECTS: dict[str, str] = {
    "plan": "read",
    "offers": "read",
    "create_cluster": "spend",
    "release_cluster": "destroy",
    "list_clusters": "read",
    "cluster_health": "read",
    "run_command": "exec",
    "tune": "exec",
    "launch_job": "exec",
    "job_status": "read",
    "job_logs": "read",
    "cancel_job": "destroy",
    "approve_replacement": "spend",  # proposed by XyClaw when a job asks, never understood
    "set_budget": "spend",  # proposed by XyClaw on a budget warning, never understood
    "cost": "read",
    "history": "read",
    "alerts": "read",
    "track_record": "read",  # issue 36
    "slurm_launch": "exec",  # issue 33 (a33)
    "slurm_queue": "read",  # issue 33 (a33)
    "why_stuck": "read",  # issue 34 (b34): asks the ranks for their dumps; the job runs on
}
# Tools XyClaw proposes itself (a job's recovery asks, a budget warning, an open alert's
# suggested action): no request's text ever calls them.
PROPOSED_TOOLS = frozenset({"approve_replacement", "set_budget"})
# Tools that spend money, destroy something or run code on a machine: never for unclear text.
UNSAFE_TOOLS = frozenset(name for name, effect in TOOL_EFFECTS.items() if effect != "read")
AGENTS = ("planner", "provisioner", "tuner", "operator", "monitor", "historian", "supervisor")
LANGUAGES = ("en", "zh")


@dataclass(frozen=True)
class ToolCall:
    """One call of a catalogue tool with JSON-serialisable arguments."""

    name: str
    args: dict[str, Any]

    @property
    def effect(self) -> str:
        return TOOL_EFFECTS[self.name]


@dataclass(frozen=True)
class RulesTurn:
    """The brain's answer to one user message.

    ``reply`` is the text to show when no tool is called (help, a clarifying
    question, the RoCE-vs-InfiniBand advice); with a tool call it is None and
    the reply comes from :func:`summarize` once the tool ran.
    """

    language: str  # "en" | "zh": the language of the request
    agent: str  # planner | provisioner | tuner | operator | monitor | historian | supervisor
    tool_calls: tuple[ToolCall, ...]
    reply: str | None
    intent: str  # a documented intent name (see phrases.yaml / docs/agents.md) or "unknown"

    @property
    def unsafe(self) -> bool:
        """Whether any call spends, destroys or executes (the runtime asks the user first)."""
        return any(call.name in UNSAFE_TOOLS for call in self.tool_calls)


def _today() -> date:
    return datetime.now(UTC).date()


@dataclass(frozen=True)
class RulesContext:
    """What the conversation already knows, so "rent option 2" and "release it" resolve.

    ``clusters`` and ``jobs`` are the live clusters' names and the running jobs'
    names or ids; ``last_cluster`` and ``last_job`` the ones the conversation
    talked about last; ``last_plan_options`` how many options the last plan had
    (0 when unknown). ``today`` (UTC) turns "in March" or "yesterday" into dates.
    ``plan_figures`` are the last plan's arguments (task, model size, tokens, GPUs...), as
    ``(name, value)`` pairs: a later request that leaves one out means the same figure
    ("start the LoRA fine-tune", "plan it on 16 GPUs" after "plan a LoRA fine-tune of 7B").
    ``cluster_nodes`` are ``(name, nodes)`` of the live clusters: "start the LoRA fine-tune
    on my cluster" runs the one-node sample on one node, the two-node one on more.
    """

    last_plan_id: int | None = None
    last_plan_options: int = 0
    last_cluster: str | None = None
    last_job: str | None = None
    clusters: tuple[str, ...] = ()
    jobs: tuple[str, ...] = ()
    today: date = field(default_factory=_today)
    plan_figures: tuple[tuple[str, Any], ...] = ()
    cluster_nodes: tuple[tuple[str, int], ...] = ()

    def plan_figure(self, name: str) -> Any:
        """The last plan's figure ``name``, or None when the conversation said none."""
        return dict(self.plan_figures).get(name)
