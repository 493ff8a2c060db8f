"""Scoring a brain on scenarios: the request, the expected tool and arguments.

``bench/agent_eval.py`` runs its scenario files through :func:`run_scenario` with the rules
brain and, when ``XYCLAW_EVAL_BASE_URL``, ``XYCLAW_EVAL_MODEL`` and ``XYCLAW_EVAL_API_KEY``
are set, with :func:`llm_brain_from_env`'s model. A scenario is scored on the first tool
call the routed specialist makes; nothing is executed (no Engine needed).
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from typing import Any

from xyclaw.agent.brain import Brain, Price, ToolCallRequest, ToolDef
from xyclaw.agent.profiles import AgentSet, load_agents
from xyclaw.agent.tools import TOOL_NAMES, all_tools

ENV_URL = "XYCLAW_EVAL_BASE_URL"
ENV_MODEL = "XYCLAW_EVAL_MODEL"
ENV_KEY = "XYCLAW_EVAL_API_KEY"


@dataclass
class Outcome:
    request: str
    expected_tool: str | None
    tool: str | None
    args: dict[str, Any]
    agent: str | None
    ok: bool
    problems: list[str] = field(default_factory=list)
    tokens_in: int = 0
    tokens_out: int = 0
    seconds: float = 0.0


def llm_brain_from_env(environ: dict[str, str] | None = None) -> Brain | None:
    """The model under evaluation, or None when the three variables are not all set."""
    env = os.environ if environ is None else environ
    url, model, key = env.get(ENV_URL), env.get(ENV_MODEL), env.get(ENV_KEY)
    if not (url and model and key):
        return None
    from xyclaw.agent.llm import LlmBrain
    from xyclaw.agent.presets import Endpoint

    return LlmBrain(Endpoint("custom", url.rstrip("/"), model, key, 120.0, 3, Price()))


def _tool_defs() -> dict[str, ToolDef]:
    return {
        t.name: ToolDef(t.name, t.description, t.parameters, t.effect) for t in all_tools().values()
    }


def _matches(expected: Any, got: Any) -> bool:
    if isinstance(expected, int | float) and isinstance(got, int | float):
        return abs(float(expected) - float(got)) <= 1e-6 * max(1.0, abs(float(expected)))
    if isinstance(expected, str) and isinstance(got, str):
        return expected.strip().lower() == got.strip().lower()
    return bool(expected == got)


@dataclass
class Step:
    """The supervisor's route and the routed specialist's first answer, nothing executed."""

    agent: str | None
    calls: list[ToolCallRequest]
    reply: str
    tokens_in: int
    tokens_out: int
    seconds: float


def first_step(
    brain: Brain,
    request: str,
    *,
    agents: AgentSet | None = None,
    context: dict[str, Any] | None = None,
) -> Step:
    """Route ``request`` as the supervisor does and take the specialist's first step with the
    tools its profile allows (the catalogue's schemas): the tool calls it makes, not run."""
    agents = agents or load_agents(TOOL_NAMES)
    defs = _tool_defs()
    messages = [{"role": "user", "content": request}]
    ctx = dict(context or {})
    started = time.perf_counter()
    route = brain.route(messages, agents.specialists, agents.supervisor, ctx)
    tokens_in, tokens_out = route.tokens_in, route.tokens_out
    calls: list[ToolCallRequest] = []
    text = ""
    if route.agent is not None and route.agent in agents.agents:
        profile = agents.agents[route.agent]
        tools = [defs[name] for name in profile.tools if name in defs]
        reply = brain.step(profile, messages, tools, ctx, lambda kind, text: None)
        tokens_in += reply.tokens_in
        tokens_out += reply.tokens_out
        calls = list(reply.tool_calls)
        text = reply.text or ""
    return Step(route.agent, calls, text, tokens_in, tokens_out, time.perf_counter() - started)


def run_scenario(
    brain: Brain,
    request: str,
    expected_tool: str | None,
    expected_args: dict[str, Any] | None = None,
    *,
    agents: AgentSet | None = None,
    context: dict[str, Any] | None = None,
) -> Outcome:
    """Route ``request``, take the specialist's first step, compare its first tool call.

    ``expected_tool`` None means "no tool" (help, advice, unknown text); every expected
    argument must be present and equal (numbers within 1e-6, strings case-insensitively);
    extra arguments are allowed.
    """
    step = first_step(brain, request, agents=agents, context=context)
    tool, args = (step.calls[0].name, dict(step.calls[0].args or {})) if step.calls else (None, {})
    seconds = step.seconds
    problems: list[str] = []
    if tool != expected_tool:
        problems.append(f"called {tool or 'no tool'}, expected {expected_tool or 'no tool'}")
    for key, value in (expected_args or {}).items():
        if key not in args:
            problems.append(f"{key} missing (expected {value!r})")
        elif not _matches(value, args[key]):
            problems.append(f"{key} = {args[key]!r}, expected {value!r}")
    return Outcome(
        request=request,
        expected_tool=expected_tool,
        tool=tool,
        args=args,
        agent=step.agent,
        ok=not problems,
        problems=problems,
        tokens_in=step.tokens_in,
        tokens_out=step.tokens_out,
        seconds=seconds,
    )
