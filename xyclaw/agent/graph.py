"""The LangGraph graph: supervisor -> specialist -> tools -> (approve -> execute) -> specialist.

Nodes and what they may do:

- ``supervisor`` routes the user's turn to one specialist (or answers a greeting);
- one node per specialist asks the brain for a step: text, or tool calls;
- ``tools`` handles the next queued call, one per step: a read tool runs; a gated one
  (spend, destroy, exec) gets its card prepared (for spend: the exact quote) and goes to
- ``approve``, whose first statement is ``interrupt()``: nothing before it, so the node can
  re-run from its top on resume (LangGraph does that) without doing anything twice;
- ``execute`` applies the decision. It writes "running" into the audit before the side
  effect and checks it on entry, so a step re-run after a crash never rents twice.

Parallel tool calls are queued and handled one at a time: one approval at a time.
Tool results from remote machines set the turn's ``remote_seen``; an approval asked
after that is flagged on its card. Nothing here trusts a model: the effect of a tool
comes from the catalogue, never from what the model says.
"""

from __future__ import annotations

import json
import logging
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Annotated, Any, TypedDict

from langchain_core.runnables import RunnableConfig
from langgraph.config import get_stream_writer
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, interrupt

from xyclaw.agent.arguments import screen_reply, too_many_calls, with_ranges
from xyclaw.agent.brain import AgentProfile, Brain, ToolDef, last_user_index
from xyclaw.agent.profiles import AgentSet
from xyclaw.agent.taint import Taint, mcp_taint, remote_outputs, taint_of, user_texts
from xyclaw.agent.tools import Catalogue, Gate, ToolContext, ToolOutput, ToolSpec, check_args
from xyclaw.agent.types import Effect
from xyclaw.engine.approvals import allowance_covers, check_prefix
from xyclaw.errors import XyclawError
from xyclaw.wording import Said, said

if TYPE_CHECKING:
    from xyclaw.engine.conversations import Conversations

log = logging.getLogger(__name__)

RESERVED_NODES = ("supervisor", "tools", "approve", "execute")
_HISTORY_MESSAGES = 40


def _append(left: list[Any] | None, right: list[Any] | None) -> list[Any]:
    return [*(left or []), *(right or [])]


class AgentState(TypedDict, total=False):
    messages: Annotated[list[dict[str, Any]], _append]  # OpenAI-format, what brains read
    agent: str
    turn: dict[str, Any]
    queue: list[dict[str, Any]]
    gate: dict[str, Any] | None
    decision: dict[str, Any] | None
    context: dict[str, Any]
    final: dict[str, Any] | None


def new_turn(turn_id: int) -> dict[str, Any]:
    return {
        "id": turn_id,
        "remote_seen": False,
        "rounds": 0,
        "malformed": 0,
        "calls": [],
        "tokens_in": 0,
        "tokens_out": 0,
        "cost_micros": 0,
        "reasoning": "",
    }


@dataclass
class Hooks:
    """What the nodes need that is not state: the Engine, the store, the brain, the rules."""

    engine: Any
    store: Any
    brain: Brain
    agents: AgentSet
    catalogue: Catalogue
    max_rounds: int = 8
    remote_chars: int = 4000
    spend_allowance_micros: int = 0
    unattended: bool = False
    cancels: dict[int, threading.Event] = field(default_factory=dict)
    context_of: Callable[[int, dict[str, Any]], dict[str, Any]] | None = None

    @property
    def conv(self) -> Conversations:
        """The conversations of the history database (through the Engine)."""
        from xyclaw.engine import Engine

        return Engine.conversations(self.store)

    def tool_defs(self, agent: AgentProfile) -> list[ToolDef]:
        defs = []
        for name in agent.tools:
            spec = self.catalogue.get(name)
            if spec is not None:
                parameters = with_ranges(spec.parameters)
                defs.append(ToolDef(spec.name, spec.description, parameters, spec.effect))
        return defs


def _cid(config: RunnableConfig) -> int:
    return int(config["configurable"]["conversation_id"])


def _emit(kind: str, **data: Any) -> None:
    try:
        writer = get_stream_writer()
    except Exception:  # outside a streamed run (tests calling a node directly)
        return
    writer({"type": kind, **data})


def _turn(state: AgentState, **changes: Any) -> dict[str, Any]:
    return {**state.get("turn", new_turn(0)), **changes}


def history_for_brain(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The recent messages, cut at a user message so no tool result loses its call, and
    every tool call answered (a turn that failed half-way left some without a result)."""
    start = 0
    if len(messages) > _HISTORY_MESSAGES:
        start = len(messages) - _HISTORY_MESSAGES
        while start < len(messages) - 1 and messages[start].get("role") != "user":
            start += 1
    picked = messages[start:]
    answered = {m.get("tool_call_id") for m in picked if m.get("role") == "tool"}
    out: list[dict[str, Any]] = []
    open_calls: list[dict[str, Any]] = []
    for message in picked:
        if message.get("role") != "tool" and open_calls:
            out += [_stopped(c) for c in open_calls]
            open_calls = []
        out.append(message)
        if message.get("role") == "assistant":
            open_calls = [c for c in message.get("tool_calls") or [] if c["id"] not in answered]
    return out


def _stopped(call: dict[str, Any]) -> dict[str, Any]:
    return {
        "role": "tool",
        "tool_call_id": call["id"],
        "name": call["function"]["name"],
        "content": '{"status": "failed", "error": "the turn stopped before this call ran"}',
    }


def build_graph(hooks: Hooks) -> StateGraph:
    graph = StateGraph(AgentState)
    specialists = {a.name: a for a in hooks.agents.specialists}

    def agent_node_name(state: AgentState) -> str:
        name = state.get("agent") or "supervisor"
        return name if name in specialists else "supervisor"

    def context(state: AgentState, cid: int) -> dict[str, Any]:
        base = dict(state.get("context") or {})
        if hooks.context_of is not None:
            base = hooks.context_of(cid, base)
        return base

    def usage(state: AgentState, tokens_in: int, tokens_out: int) -> dict[str, Any]:
        turn = state.get("turn", new_turn(0))
        cost = hooks.brain.price.cost_micros(tokens_in, tokens_out)
        return {
            "tokens_in": turn["tokens_in"] + tokens_in,
            "tokens_out": turn["tokens_out"] + tokens_out,
            "cost_micros": turn["cost_micros"] + cost,
        }

    def finish(state: AgentState, agent: str, text: str, extra: dict[str, Any]) -> Command[Any]:
        turn = {**state.get("turn", new_turn(0)), **extra}
        final = {
            "agent": agent,
            "text": text,
            "reasoning": turn.get("reasoning") or None,
            "tokens_in": turn["tokens_in"],
            "tokens_out": turn["tokens_out"],
            "cost_micros": turn["cost_micros"],
        }
        message = {"role": "assistant", "content": text, "name": agent}
        return Command(
            goto=END,
            update={
                "messages": [message],
                "final": final,
                "turn": turn,
                "queue": [],
                "gate": None,
                "decision": None,
            },
        )

    # -- supervisor ---------------------------------------------------------------------------
    def supervisor(state: AgentState, config: RunnableConfig) -> Command[Any]:
        cid = _cid(config)
        route = hooks.brain.route(
            history_for_brain(state.get("messages", [])),
            hooks.agents.specialists,
            hooks.agents.supervisor,
            context(state, cid),
        )
        spent = usage(state, route.tokens_in, route.tokens_out)
        if route.agent is None or route.agent not in specialists:
            text = route.reply or _help_text()
            _emit("token", agent="supervisor", text=text)
            return finish(state, "supervisor", text, spent)
        return Command(
            goto=route.agent, update={"agent": route.agent, "turn": _turn(state, **spent)}
        )

    graph.add_node("supervisor", supervisor, destinations=(*specialists, END))

    # -- specialists --------------------------------------------------------------------------
    def make_specialist(
        profile: AgentProfile,
    ) -> Callable[[AgentState, RunnableConfig], Command[Any]]:
        def node(state: AgentState, config: RunnableConfig) -> Command[Any]:
            cid = _cid(config)
            turn = state.get("turn", new_turn(0))
            if turn["rounds"] >= hooks.max_rounds:
                text = (
                    f"I stopped after {hooks.max_rounds} rounds of tool calls in one turn."
                    " Ask again with a narrower request."
                )
                _emit("token", agent=profile.name, text=text)
                return finish(state, profile.name, text, {})
            reply = hooks.brain.step(
                profile,
                history_for_brain(state.get("messages", [])),
                hooks.tool_defs(profile),
                context(state, cid),
                lambda kind, text: _emit(
                    "token" if kind == "text" else "reasoning", agent=profile.name, text=text
                ),
                hooks.cancels.get(cid),
            )
            spent = usage(state, reply.tokens_in, reply.tokens_out)
            if reply.reasoning:
                spent["reasoning"] = (turn.get("reasoning") or "") + reply.reasoning
            if not reply.tool_calls:
                return finish(state, profile.name, reply.text, spent)
            # Before the state keeps them: too many calls, or a number out of range (issue 26).
            refused = too_many_calls(reply.tool_calls, request_language(state.get("messages", [])))
            if refused is not None:
                _emit("token", agent=profile.name, text=refused)
                return finish(state, profile.name, refused, spent)
            calls = screen_reply(reply.tool_calls, hooks.tool_defs(profile))
            message = {
                "role": "assistant",
                "content": reply.text or None,
                "name": profile.name,
                "tool_calls": [
                    {
                        "id": c.id,
                        "type": "function",
                        "function": {"name": c.name, "arguments": c.arguments},
                    }
                    for c in calls
                ],
            }
            # The audit key is ours: a model's tool-call ids need not be unique across turns
            # (some servers count from call_0 in every reply), and a reused id would read as
            # "already carried out" and skip a later call.
            queue = [
                {**c.to_state(), "audit_id": new_call_id(), "agent": profile.name} for c in calls
            ]
            return Command(
                goto="tools",
                update={
                    "messages": [message],
                    "queue": queue,
                    "turn": _turn(state, **spent, rounds=turn["rounds"] + 1),
                },
            )

        return node

    for profile in specialists.values():
        graph.add_node(profile.name, make_specialist(profile), destinations=("tools", END))

    # -- tools --------------------------------------------------------------------------------
    def tool_message(call: dict[str, Any], body: dict[str, Any]) -> dict[str, Any]:
        return {
            "role": "tool",
            "tool_call_id": call["id"],
            "name": call["name"],
            "content": json.dumps(body, ensure_ascii=False, default=str),
        }

    def next_step(state: AgentState, rest: list[dict[str, Any]]) -> str:
        return "tools" if rest else agent_node_name(state)

    def audit(cid: int, call: dict[str, Any], **fields: Any) -> int:
        first = hooks.conv.get_tool_call(cid, call["audit_id"]) is None
        row_id = hooks.conv.upsert_tool_call(cid, call["audit_id"], **fields)
        if first:
            hooks.conv.add_message(
                cid, "tool", call["name"], agent=call.get("agent"), tool_call_id=row_id
            )
        return row_id

    def record(call: dict[str, Any], spec: ToolSpec | None, status: str, **extra: Any) -> dict:
        return {
            "call_id": call["audit_id"],
            "tool": call["name"],
            "effect": str(spec.effect if spec else Effect.READ),
            "args": call.get("args") or {},
            "status": status,
            "agent": call.get("agent"),
            **extra,
        }

    def not_run(call: dict[str, Any], spec: ToolSpec, status: str, why: Said) -> None:
        """A call that did not run: its card says why (the English, and as said)."""
        _emit(
            "tool_finished",
            call=record(call, spec, status, error=why.english, error_said=why.to_json()),
        )

    def run_tool(
        state: AgentState,
        cid: int,
        call: dict[str, Any],
        spec: ToolSpec,
        gate: Gate | None,
        **audit_fields: Any,
    ) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
        """Run ``spec``; returns (tool message, turn changes, context changes)."""
        args = call["args"]
        started = time.monotonic()
        audit(
            cid,
            call,
            agent=call.get("agent"),
            tool=spec.name,
            effect=str(spec.effect),
            args=args,
            status="running",
            **audit_fields,
        )
        _emit("tool_started", call=record(call, spec, "running"))
        ctx = ToolContext(
            engine=hooks.engine,
            conversation_id=cid,
            progress=lambda message: _emit("progress", tool=spec.name, message=message),
            cancel=hooks.cancels.get(cid),
            remote_chars=hooks.remote_chars,
            language=request_language(state.get("messages", [])),
        )
        context_changes: dict[str, Any] = {}
        turn_changes: dict[str, Any] = {}
        try:
            out: ToolOutput = spec.run(ctx, args, gate)
        except XyclawError as exc:
            duration = time.monotonic() - started
            error = exc.message + (f" ({exc.hint})" if exc.hint else "")
            worded = _said_json(_error_said(exc))
            audit(cid, call, status="failed", error=error, error_said=worded, duration_s=duration)
            _emit(
                "tool_finished",
                call=record(
                    call, spec, "failed", error=error, error_said=worded, duration_s=duration
                ),
            )
            body = {"status": "failed", "error": exc.message, "hint": exc.hint, "kind": _kind(exc)}
            return tool_message(call, body), turn_changes, context_changes
        duration = time.monotonic() - started
        audit(
            cid,
            call,
            status="done",
            summary=out.summary,
            summary_said=_said_json(out.said),
            result=out.result,
            duration_s=duration,
            from_remote=out.from_remote,
        )
        _emit(
            "tool_finished",
            call=record(
                call,
                spec,
                "done",
                summary=out.summary,
                summary_said=_said_json(out.said),
                duration_s=duration,
                from_remote=out.from_remote,
                result=out.result,
            ),
        )
        if out.plan is not None:
            _emit("plan", plan_id=out.plan["plan_id"], options=out.plan["options"])
            context_changes["last_plan_id"] = out.plan["plan_id"]
            context_changes["last_plan_options"] = len(out.plan["options"])
        context_changes.update(_context_from(spec.name, args, out.result))
        if out.from_remote:
            turn_changes["remote_seen"] = True
        body = {"status": "done", "result": out.result}
        return tool_message(call, body), turn_changes, context_changes

    def tools(state: AgentState, config: RunnableConfig) -> Command[Any]:
        cid = _cid(config)
        queue = list(state.get("queue") or [])
        if not queue:
            return Command(goto=agent_node_name(state))
        call, rest = queue[0], queue[1:]
        turn = state.get("turn", new_turn(0))
        calls = [*turn.get("calls", []), call["audit_id"]]
        spec = hooks.catalogue.get(call["name"])
        agent = hooks.agents.agents.get(call.get("agent") or "")
        problem: str | None = None
        if spec is None:
            problem = f"there is no tool {call['name']!r}"
        elif agent is None or spec.name not in agent.tools:
            problem = f"the {call.get('agent')} agent may not call {spec.name}"
        elif call.get("args") is None:
            problem = call.get("error") or "the arguments are not a JSON object"
        else:
            issues = check_args(spec.parameters, call["args"])
            if issues:
                problem = "; ".join(issues)
        if problem is not None:
            malformed = turn["malformed"] + 1
            audit(
                cid,
                call,
                agent=call.get("agent"),
                tool=call["name"],
                effect=str(spec.effect if spec else Effect.READ),
                args=call.get("args") or {},
                status="failed",
                error=problem,
                decided_by="xyclaw (invalid call)",
            )
            _emit("tool_finished", call=record(call, spec, "failed", error=problem))
            message = tool_message(
                call,
                {
                    "status": "error",
                    "error": problem,
                    "hint": "fix the arguments and call the tool again",
                },
            )
            turn_update = _turn(state, malformed=malformed, calls=calls)
            if malformed >= 2:
                text = (
                    f"The model sent an invalid call of {call['name']} twice ({problem}), so I"
                    " stopped. Rephrase the request, or pick another model in Settings."
                )
                _emit("token", agent=call.get("agent") or "supervisor", text=text)
                updated = {**state, "turn": turn_update}
                cmd = finish(updated, call.get("agent") or "supervisor", text, {})
                cmd.update["messages"] = [message, *cmd.update["messages"]]
                # Any other queued call of that message gets an answer too (the protocol).
                cmd.update["messages"][1:1] = [
                    tool_message(c, {"status": "skipped", "error": "the turn stopped"})
                    for c in rest
                ]
                return cmd
            return Command(
                goto=next_step(state, rest),
                update={"messages": [message], "queue": rest, "turn": turn_update},
            )
        assert spec is not None
        if not spec.gated:
            message, turn_changes, ctx_changes = run_tool(state, cid, call, spec, None)
            return Command(
                goto=next_step(state, rest),
                update={
                    "messages": [message],
                    "queue": rest,
                    "turn": _turn(state, calls=calls, **turn_changes),
                    "context": {**(state.get("context") or {}), **ctx_changes},
                },
            )
        # A gated tool: prepare the card (reads only), then decide who answers. The card's
        # Action and its digest are made here, before the interrupt; the Engine checks them
        # where the effect runs.
        ctx = ToolContext(
            engine=hooks.engine,
            conversation_id=cid,
            remote_chars=hooks.remote_chars,
            language=request_language(state.get("messages", [])),
            asked_by=str(call.get("asked_by") or "agent"),
            asker_name=call.get("asker_name"),
        )
        try:
            gate = spec.gate(ctx, call["args"]) if spec.gate else Gate(spec.name, {})
        except XyclawError as exc:
            audit(
                cid,
                call,
                agent=call.get("agent"),
                tool=spec.name,
                effect=str(spec.effect),
                args=call["args"],
                status="failed",
                error=exc.message,
                error_said=_said_json(exc.said),
            )
            _emit(
                "tool_finished",
                call=record(
                    call, spec, "failed", error=exc.message, error_said=_said_json(exc.said)
                ),
            )
            message = tool_message(
                call,
                {"status": "failed", "error": exc.message, "hint": exc.hint, "kind": _kind(exc)},
            )
            return Command(
                goto=next_step(state, rest),
                update={"messages": [message], "queue": rest, "turn": _turn(state, calls=calls)},
            )
        # Taint first: a tainted call asks whatever the allowances say.
        taint = tainted(cid, spec, call)
        allowed_by = None if taint else allowance(cid, spec, gate)
        if allowed_by is not None:
            message, turn_changes, ctx_changes = run_tool(
                state,
                cid,
                call,
                spec,
                gate,
                decision="approve",
                decided_by=allowed_by,
                digest=str((gate.action or {}).get("digest") or ""),
            )
            return Command(
                goto=next_step(state, rest),
                update={
                    "messages": [message],
                    "queue": rest,
                    "turn": _turn(state, calls=calls, **turn_changes),
                    "context": {**(state.get("context") or {}), **ctx_changes},
                },
            )
        # (an MCP client's call is tainted as a whole: its card says so, without the flag)
        from_mcp = str(call.get("asked_by") or "") == "mcp client"
        flagged = bool(turn.get("remote_seen")) or (bool(taint) and not from_mcp)
        if taint:
            gate = _with_taint(gate, taint, ctx.language)
        digest = str((gate.action or {}).get("digest") or "")
        if hooks.unattended:
            nobody = said("agent.not_run.nobody")
            reason = nobody.english
            audit(
                cid,
                call,
                agent=call.get("agent"),
                tool=spec.name,
                effect=str(spec.effect),
                args=call["args"],
                status="rejected",
                decision="reject",
                decided_by="policy: nobody to ask",
                flagged=flagged,
                digest=digest,
            )
            not_run(call, spec, "rejected", nobody)
            message = tool_message(call, {"status": "rejected", "by": "policy", "reason": reason})
            return Command(
                goto=next_step(state, rest),
                update={"messages": [message], "queue": rest, "turn": _turn(state, calls=calls)},
            )
        payload = {
            "approval_id": f"{call['audit_id']}",
            "agent": call.get("agent") or state.get("agent") or "supervisor",
            "tool": spec.name,
            "effect": gate.effect or str(spec.effect),  # a launch that rents asks as spend
            "args": call["args"],
            "title": gate.title,
            "details": gate.details,
            "flagged_after_remote_output": flagged,
            "created_at": time.time(),
            "language": ctx.language,
            "title_said": gate.title_said,
            "details_said": gate.details_said,
            "digest": digest,
            "action": gate.action or {},
        }
        audit(
            cid,
            call,
            agent=call.get("agent"),
            tool=spec.name,
            effect=str(spec.effect),
            args=call["args"],
            status="pending_approval",
            flagged=flagged,
            digest=digest,
        )
        return Command(
            goto="approve",
            update={
                "gate": {"call": call, "payload": payload, "gate": asdict(gate)},
                "decision": None,
                "turn": _turn(state, calls=calls),
            },
        )

    def tainted(cid: int, spec: ToolSpec, call: dict[str, Any]) -> Taint:
        """Why a model's destroy or exec call is tainted (see :mod:`xyclaw.agent.taint`);
        calls XyClaw makes itself (a suggestion, a recovery, "Rent this") are not. Every
        call of an MCP client is, whatever its effect (issue 37): its card always asks."""
        if str(call.get("asked_by") or "") == "mcp client":
            return mcp_taint(call.get("args") or {})
        if spec.effect not in (Effect.DESTROY, Effect.EXEC):
            return Taint(())
        if str(call.get("asked_by") or "agent") != "agent":
            return Taint(())
        outputs = remote_outputs(hooks.conv.list_tool_calls(cid))
        typed = user_texts(hooks.conv.list_messages(cid))
        return taint_of(call.get("args") or {}, typed, outputs)

    def allowance(cid: int, spec: ToolSpec, gate: Gate) -> str | None:
        action = gate.action or {}
        clusters = [t["id"] for t in action.get("targets") or [] if t["kind"] == "cluster"]
        if spec.effect is Effect.EXEC and gate.cluster and len(clusters) == 1:
            command = action.get("command")
            for row in hooks.conv.allowances_for(cid, int(clusters[0]), spec.name):
                if command is None and row["command"] is None and row["prefix"] is None:
                    # a tool whose command is XyClaw's own (tune), on that cluster by id
                    return f"allowance: {spec.name} on {gate.cluster} in this conversation"
                if command is not None and allowance_covers(
                    row["command"], row["prefix"], str(command)
                ):
                    what = row["command"] or " ".join(row["prefix"] or [])
                    return f"allowance: {spec.name} `{what}` on {gate.cluster}"
        if (
            spec.effect is Effect.SPEND
            and hooks.spend_allowance_micros > 0
            and gate.estimated_total_micros is not None
            and gate.estimated_total_micros <= hooks.spend_allowance_micros
        ):
            return "config: [agents] spend_allowance"
        return None

    graph.add_node("tools", tools, destinations=("tools", "approve", *specialists, END))

    # -- approve: the interrupt is the first statement ----------------------------------------
    def approve(state: AgentState) -> Command[Any]:
        answer = interrupt(state["gate"]["payload"])
        return Command(goto="execute", update={"decision": answer})

    graph.add_node("approve", approve, destinations=("execute",))

    # -- execute ------------------------------------------------------------------------------
    def execute(state: AgentState, config: RunnableConfig) -> Command[Any]:
        cid = _cid(config)
        held = state["gate"]
        call = held["call"]
        spec = hooks.catalogue.get(call["name"])
        assert spec is not None
        decision = _decision(state.get("decision"))
        rest = list(state.get("queue") or [])[1:]
        by = decision.get("by") or "user"
        digest = str(held["payload"].get("digest") or "")
        if decision["kind"] == "approve" and decision.get("digest") != digest:
            # A yes for another card (the one waiting changed under it): this card asks again.
            log.warning("a yes for card %s reached card %s", decision.get("digest"), digest)
            return Command(goto="approve", update={"decision": None})
        answered = "running" if decision["kind"] == "approve" else "rejected"
        how = "edit" if decision["kind"] == "edit" and decision.get("args") else decision["kind"]
        if decision["kind"] not in ("approve", "edit", "reject"):
            how = "reject"
        if not hooks.conv.claim_tool_call(
            cid, call["audit_id"], status=answered, decision=how, decided_by=by
        ):
            # Another window or process answered this card first (or this step re-runs after
            # a restart): never act on one yes twice.
            return elsewhere(state, cid, call, spec, rest)
        if decision["kind"] == "edit" and decision.get("args"):
            edits = int(call.get("edits", 0)) + 1
            audit(cid, call, status="rejected", decision="edit", decided_by=by)
            not_run(call, spec, "rejected", said("agent.not_run.edited"))
            args = {**(call.get("args") or {}), **decision["args"]}
            edited = {
                **call,
                "args": args,
                "arguments": json.dumps(args),
                "edits": edits,
                "audit_id": f"{str(call['audit_id']).split('~')[0]}~{edits}",
                "error": None,
            }
            return Command(
                goto="tools", update={"queue": [edited, *rest], "gate": None, "decision": None}
            )
        if decision["kind"] != "approve":
            audit(cid, call, status="rejected", decision="reject", decided_by=by)
            if spec.reject is not None:
                # The no is an answer too (a replacement node: nothing is rented).
                try:
                    spec.reject(ToolContext(engine=hooks.engine, conversation_id=cid), call["args"])
                except XyclawError as exc:
                    log.info("%s: the no was not passed on: %s", spec.name, exc.message)
            no = (
                said("agent.not_run.rejected_by_user")
                if by == "user"
                else said("agent.not_run.rejected_by", by=by)
            )
            not_run(call, spec, "rejected", no)
            message = tool_message(
                call,
                {"status": "rejected", "by": by, "reason": "the user said no; do not try again"},
            )
            return Command(
                goto=next_step(state, rest),
                update={"messages": [message], "queue": rest, "gate": None, "decision": None},
            )
        gate = Gate(**held["gate"])
        if decision.get("remember") and spec.effect is Effect.EXEC and gate.cluster:
            remember(cid, spec, gate, decision.get("remember_prefix"))
        message, turn_changes, ctx_changes = run_tool(
            state,
            cid,
            call,
            spec,
            gate,
            decision="approve",
            decided_by=by,
            flagged=held["payload"]["flagged_after_remote_output"],
        )
        return Command(
            goto=next_step(state, rest),
            update={
                "messages": [message],
                "queue": rest,
                "gate": None,
                "decision": None,
                "turn": _turn(state, **turn_changes),
                "context": {**(state.get("context") or {}), **ctx_changes},
            },
        )

    def remember(cid: int, spec: ToolSpec, gate: Gate, prefix: str | None) -> None:
        """The user's "approve and remember": this exact command (or the argv prefix they
        chose) on this cluster, by id, for the rest of the conversation."""
        action = gate.action or {}
        clusters = [t["id"] for t in action.get("targets") or [] if t["kind"] == "cluster"]
        if len(clusters) != 1 or gate.cluster is None:
            return
        command = action.get("command")
        words: list[str] | None = None
        if prefix and command is not None:
            try:
                words = check_prefix(prefix, str(command))
            except XyclawError as exc:  # checked before the yes was passed on; never wider
                log.warning("not remembered: %s", exc.message)
                return
        hooks.conv.add_allowance(
            cid,
            gate.cluster,
            spec.name,
            cluster_id=int(clusters[0]),
            command=None if words is not None else command,
            prefix=words,
        )

    def elsewhere(
        state: AgentState,
        cid: int,
        call: dict[str, Any],
        spec: ToolSpec,
        rest: list[dict[str, Any]],
    ) -> Command[Any]:
        row = hooks.conv.get_tool_call(cid, call["audit_id"]) or {}
        status = str(row.get("status") or "unknown")
        why = said("agent.not_run.answered_elsewhere", status=status)
        shown = status if status in ("running", "done", "failed", "rejected") else "rejected"
        not_run(call, spec, shown, why)
        language = request_language(state.get("messages", []))
        agent = call.get("agent") or "supervisor"
        text = why.in_language(language)
        _emit("token", agent=agent, text=text)
        body = {"status": status, "note": why.english, "result": row.get("result")}
        cmd = finish(state, agent, text, {})
        cmd.update["messages"] = [
            tool_message(call, body),
            *[tool_message(c, {"status": "skipped", "error": "the turn stopped"}) for c in rest],
            *cmd.update["messages"],
        ]
        return cmd

    graph.add_node("execute", execute, destinations=("tools", "approve", *specialists, END))

    def entry(state: AgentState) -> str:
        # "Rent this" and monitor actions arrive with their tool call already queued.
        return "tools" if state.get("queue") else "supervisor"

    graph.add_conditional_edges(START, entry, ["tools", "supervisor"])
    return graph


def _said_json(value: Said | None) -> dict[str, Any] | None:
    return None if value is None else value.to_json()


def _error_said(exc: XyclawError) -> Said | None:
    """A failed call's line ("message (hint)") as said, when the error was said at all."""
    if exc.said is None and exc.hint_said is None:
        return None
    message: Said | str = exc.said or exc.message
    if exc.hint is None:
        return exc.said
    return said("agent.not_run.failed", message=message, hint=exc.hint_said or exc.hint)


def _with_taint(gate: Gate, taint: Taint, language: str) -> Gate:
    """The card of a tainted call, with why it asks."""
    from dataclasses import replace

    return replace(
        gate,
        details={**gate.details, "tainted": [r.in_language(language) for r in taint.reasons]},
        details_said={**gate.details_said, "tainted": [r.to_json() for r in taint.reasons]},
    )


def _decision(raw: Any) -> dict[str, Any]:
    if isinstance(raw, dict) and raw.get("kind") in ("approve", "reject", "edit"):
        return raw
    # Anything else (a bare string, garbage) is a no.
    return {"kind": "reject", "by": "xyclaw (unreadable answer)"}


#: A plan call's arguments that the rules brain remembers for the rest of a conversation.
_PLAN_FIGURES = frozenset(
    {
        "task",
        "model_params",
        "tokens",
        "gpus",
        "gpu",
        "fabric",
        "budget",
        "region",
        "qps",
        "deadline_hours",
    }
)


def _context_from(tool: str, args: dict[str, Any], result: Any) -> dict[str, Any]:
    changes: dict[str, Any] = {}
    if not isinstance(result, dict):
        return changes
    if tool == "plan":
        # the figures said for this plan, remembered for the conversation's later requests
        changes["last_plan_args"] = {k: v for k, v in args.items() if k in _PLAN_FIGURES}
    elif tool == "create_cluster" and isinstance(result.get("cluster"), dict):
        changes["last_cluster"] = result["cluster"].get("name")
    elif tool in ("tune", "cluster_health", "run_command") and args.get("cluster"):
        changes["last_cluster"] = args["cluster"]
    elif tool == "launch_job" and isinstance(result.get("job"), dict):
        job = result["job"]
        changes["last_job"] = str(job.get("name") or job.get("id"))
    elif tool in ("job_status", "job_logs", "cancel_job") and args.get("job"):
        changes["last_job"] = args["job"]
    return changes


def _help_text() -> str:
    return (
        "I can plan a GPU rental, rent an option, tune NCCL, launch and watch jobs, release"
        ' clusters and answer questions about costs. Try: "LoRA fine-tune a 13B model on 8'
        ' GPUs under 500 CNY", "rent option 1", "status", "what did I spend this month?"'
    )


def _kind(exc: XyclawError) -> list[str]:
    """The error's classes, most specific first (the brains word the failure by them)."""
    return [k.__name__ for k in type(exc).__mro__ if issubclass(k, XyclawError)]


def new_call_id() -> str:
    return f"call_{uuid.uuid4().hex[:12]}"


def user_message(text: str) -> dict[str, Any]:
    return {"role": "user", "content": text}


def request_language(messages: list[dict[str, Any]]) -> str:
    """The language of the turn's request ("zh" or "en"): cards and errors are worded in it."""
    from xyclaw.agent.rules import detect_language

    index = last_user_index(messages)
    return detect_language(str(messages[index].get("content") or "")) if index >= 0 else "en"


def tool_results_after_user(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    start = last_user_index(messages)
    return [m for m in messages[start + 1 :] if m.get("role") == "tool"]
