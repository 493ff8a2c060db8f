"""The rules brain as a :class:`~xyclaw.agent.brain.Brain`: no model, no tokens, same graph.

:mod:`xyclaw.agent.rules` understands the user's text (``understand``) and words the
results (``summarize``); this adapter turns its :class:`RulesTurn` into the tool calls a
model would have made, so the calls go through the same checks and approvals.
"""

from __future__ import annotations

import json
import threading
import uuid
from typing import Any, Literal

from xyclaw.agent.brain import (
    AgentProfile,
    BrainReply,
    OnDelta,
    Price,
    Route,
    ToolCallRequest,
    ToolDef,
    last_user_index,
)


class RulesBrain:
    kind: Literal["rules", "llm"] = "rules"
    name = "rules"
    price = Price(0, 0, "USD")

    def __init__(self) -> None:
        from xyclaw.agent import rules

        self._rules = rules
        self._cache: dict[tuple[str, str], Any] = {}
        self._lock = threading.Lock()

    def _understand(self, text: str, context: dict[str, Any]) -> Any:
        key = (text, json.dumps(context, sort_keys=True, default=str))
        with self._lock:
            found = self._cache.get(key)
        if found is None:
            found = self._rules.understand(text, _rules_context(self._rules, context))
            with self._lock:
                if len(self._cache) > 256:
                    self._cache.clear()
                self._cache[key] = found
        return found

    def route(
        self,
        messages: list[dict[str, Any]],
        agents: list[AgentProfile],
        supervisor: AgentProfile,
        context: dict[str, Any],
    ) -> Route:
        index = last_user_index(messages)
        if index < 0:
            return Route(None, None)
        turn = self._understand(str(messages[index].get("content") or ""), context)
        turn = _in_conversation_language(self._rules, turn, messages, context)
        names = {a.name: a for a in agents}
        if not turn.tool_calls:
            if turn.agent in names and turn.agent != "supervisor":
                return Route(turn.agent)
            return Route(None, turn.reply)
        wanted = turn.tool_calls[0].name
        if turn.agent in names and wanted in names[turn.agent].tools:
            return Route(turn.agent)
        for agent in agents:  # the agent that owns the tool, whatever the rules guessed
            if wanted in agent.tools:
                return Route(agent.name)
        return Route(None, turn.reply)

    def step(
        self,
        agent: AgentProfile,
        messages: list[dict[str, Any]],
        tools: list[ToolDef],
        context: dict[str, Any],
        on_delta: OnDelta,
        cancel: threading.Event | None = None,
    ) -> BrainReply:
        index = last_user_index(messages)
        user_text = str(messages[index].get("content") or "") if index >= 0 else ""
        after = messages[index + 1 :] if index >= 0 else messages
        language = _language(self._rules, user_text)
        if not any(m.get("role") == "assistant" for m in after):
            turn = _in_conversation_language(
                self._rules, self._understand(user_text, context), messages, context
            )
            allowed = {t.name for t in tools}
            calls = [c for c in turn.tool_calls if c.name in allowed]
            if calls:
                return BrainReply(
                    text="",
                    tool_calls=[
                        ToolCallRequest(
                            f"rules_{uuid.uuid4().hex[:12]}",
                            c.name,
                            json.dumps(c.args, ensure_ascii=False),
                            dict(c.args),
                        )
                        for c in calls
                    ],
                )
            text = turn.reply or self._rules.help_text(turn.language)
            on_delta("text", text)
            return BrainReply(text=text)
        # What an earlier step of this turn already said (before an approval card) is not
        # said again: only the results since then are worded.
        said = max(
            (i for i, m in enumerate(after) if m.get("role") == "assistant" and m.get("content")),
            default=-1,
        )
        fresh = [m for m in after[said + 1 :] if m.get("role") == "tool"]
        parts = [self._word(m, language) for m in fresh]
        proposed = _proposal(after, {t.name for t in tools})
        if proposed is not None:
            from xyclaw.agent.rules.texts import say

            parts.append(say(language, "proposal", label=str(proposed.get("label") or "")))
        text = "\n\n".join(p for p in parts if p)
        on_delta("text", text)
        if proposed is None:
            return BrainReply(text=text)
        args = dict(proposed.get("args") or {})
        return BrainReply(
            text=text,
            tool_calls=[
                ToolCallRequest(
                    f"rules_{uuid.uuid4().hex[:12]}",
                    str(proposed["tool"]),
                    json.dumps(args, ensure_ascii=False),
                    args,
                )
            ],
        )

    def _word(self, message: dict[str, Any], language: str) -> str:
        tool = str(message.get("name") or "")
        try:
            body = json.loads(message.get("content") or "{}")
        except ValueError:
            body = {}
        status = body.get("status")
        from xyclaw.agent.rules.texts import failure_text, say, say_or

        if status == "done":
            try:
                return str(self._rules.summarize(tool, body.get("result"), language))
            except Exception:  # a wording bug must not lose the result
                return say(language, "tool_done", tool=tool)
        if status == "rejected":
            # what the user said no to, in words: never the tool's internal name
            doing = say_or(language, f"doing.{tool}", "") or say(language, "doing.other")
            if body.get("by") == "policy":
                if language == "zh":  # the English quotes the policy's own reason instead
                    return say(language, "policy_refused", doing=doing)
                return f"I did not go on with {doing}: {body.get('reason')}."
            return say(language, "said_no", doing=doing)

        error = str(body.get("error") or say(language, "unknown_error"))
        return failure_text(language, tool, error, body.get("hint"), body.get("kind") or ())

    def close(self) -> None:
        pass


def _proposal(after: list[dict[str, Any]], allowed: set[str]) -> dict[str, Any] | None:
    """The action an ``alerts`` result proposes (the first open alert's), when this turn has
    only listed the alerts so far: the rules brain then calls it, and the call stops at its
    approval card. One proposal per turn; after its answer the turn just reports."""
    names = [
        c.get("function", {}).get("name")
        for m in after
        if m.get("role") == "assistant"
        for c in m.get("tool_calls") or []
    ]
    if not after or names != ["alerts"] or after[-1].get("role") != "tool":
        return None
    try:
        body = json.loads(after[-1].get("content") or "{}")
    except ValueError:
        return None
    if body.get("status") != "done" or not isinstance(body.get("result"), dict):
        return None
    for alert in body["result"].get("alerts") or []:
        chosen = alert.get("proposal") if isinstance(alert, dict) else None
        if isinstance(chosen, dict) and chosen.get("tool") in allowed:
            return chosen
    return None


def _in_conversation_language(
    rules: Any, turn: Any, messages: list[dict[str, Any]], context: dict[str, Any]
) -> Any:
    """A request the rules do not understand and that holds no Chinese ("asdf qwer") is
    answered in the conversation's language: Chinese when the window is in Chinese or the
    user wrote Chinese earlier in it, as a user who typed nonsense would expect."""
    if getattr(turn, "intent", None) != "unknown" or turn.language == "zh":
        return turn
    earlier = [str(m.get("content") or "") for m in messages if m.get("role") == "user"][:-1]
    chinese = context.get("window_language") == "zh" or any(
        _language(rules, text) == "zh" for text in earlier
    )
    if not chinese:
        return turn
    from dataclasses import replace

    from xyclaw.agent.rules.texts import unknown_text

    return replace(turn, language="zh", reply=unknown_text("zh"))


def _language(rules: Any, text: str) -> str:
    detect = getattr(rules, "detect_language", None)
    if callable(detect):
        return str(detect(text))
    return "zh" if any("\u4e00" <= ch <= "\u9fff" for ch in text) else "en"


def _rules_context(rules: Any, context: dict[str, Any]) -> Any:
    make = getattr(rules, "RulesContext", None)
    if make is None:
        return context
    fields = {
        "last_plan_id": context.get("last_plan_id"),
        "last_plan_options": int(context.get("last_plan_options") or 0),
        "last_cluster": context.get("last_cluster"),
        "last_job": context.get("last_job"),
        "clusters": tuple(context.get("clusters") or ()),
        "jobs": tuple(context.get("jobs") or ()),
        "plan_figures": tuple(sorted((context.get("last_plan_args") or {}).items())),
        "cluster_nodes": tuple(sorted((context.get("cluster_nodes") or {}).items())),
    }
    return make(**fields)
