"""``xyclaw demo``: the rules brain drives the whole flow on the simulated cloud.

plan -> approve -> rent -> tune -> launch -> follow -> release -> history, each step a
chat message the rules brain understands, each spend/exec/destroy approved on the
user's behalf *by this script* (printed as such) through the same approval cards the
app shows. Launch and follow are the Engine's jobs methods (launch, job, job_logs) behind
the launch_job, job_status and job_logs tools, on a job that really runs on the simulated
nodes.

The demo speaks the ``[gui] language`` setting's language (issue 35): in Chinese it asks the
rules brain in Chinese, so the brain answers in Chinese as it does for a person, and its own
lines come from the catalogue (``agent.demo.*``, :mod:`xyclaw.wording.demo`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from xyclaw.agent.types import Decision, TurnResult
from xyclaw.wording import Said, text_in, worded

Print = Callable[..., None]


@dataclass
class Step:
    title: str
    text: str
    tool: str | None  # the tool the step must call (None: any reply is fine)


#: The bundled sample that runs the fine-tune the demo plans (a 7B LoRA fine-tune on one
#: node of 8 GPUs, 100 steps; no HF_TOKEN needed).
PLANNED_SAMPLE = "lora7b-1node"


class DemoFailed(Exception):
    pass


@dataclass(frozen=True)
class _Words:
    """The demo's catalogue entries in one language."""

    language: str

    def __call__(self, key: str, /, **values: object) -> str:
        return text_in(self.language, f"agent.demo.{key}", **values)

    def step(self, title: str, key: str, /, tool: str | None, **values: object) -> Step:
        return Step(self(f"step_{title}"), self(f"ask_{key}", **values), tool)

    def status(self, status: str) -> str:
        return status_word(self.language, status)

    def effect(self, effect: object) -> str:
        return effect_word(self.language, effect)

    def said(self, said: Said | None, english: str | None) -> str:
        """A card's or a call's text: its English as it was; in Chinese its keyed form."""
        if self.language == "en" or said is None:
            return english or ""
        return worded(said, self.language)


def status_word(language: str, status: str) -> str:
    """A tool call's status (``done``) in ``language``: the demo's and ``xyclaw ask``'s word."""
    return _word(language, "status", status)


def effect_word(language: str, effect: object) -> str:
    """A card's effect (``spend``) in ``language``: the demo's and ``xyclaw ask``'s word."""
    return _word(language, "effect", str(effect))


def _word(language: str, kind: str, value: str) -> str:
    from xyclaw.wording.catalogue import CATALOGUE

    key = f"agent.demo.{kind}_{value}"
    return text_in(language, key) if key in CATALOGUE else value


def run_demo(
    make_runtime: Callable[..., Any], say: Print, *, fast: bool = False, language: str = "en"
) -> int:
    words = _Words(language)
    started = time.monotonic()
    runtime = make_runtime()
    if runtime.brain.kind != "rules":
        say(words("rules_only", preset=runtime.brain_name))
        from xyclaw.agent.rules_brain import RulesBrain

        runtime.close()
        runtime = make_runtime(brain=RulesBrain())
    cid = runtime.new_conversation(words("conversation"))
    say(words("start", cid=cid))
    # the fine-tune it plans is the one it launches (the lora7b-1node sample), as the
    # window's tour does
    model = "7B"
    try:
        plan = _turn(runtime, cid, say, words.step("plan", "plan", "plan", model=model), words)
        plan_call = _call(plan, "plan")
        if not (plan_call.result or {}).get("options"):
            raise DemoFailed(words("no_option"))
        rented = _turn(runtime, cid, say, words.step("rent", "rent", "create_cluster"), words)
        cluster = (_call(rented, "create_cluster").result or {}).get("cluster", {}).get("name")
        if not cluster:
            raise DemoFailed(words("no_cluster"))
        say(words("cluster_up", cluster=cluster))
        _turn(runtime, cid, say, words.step("tune", "tune", "tune", cluster=cluster), words)
        launched = _turn(
            runtime,
            cid,
            say,
            words.step("launch", "launch", "launch_job", cluster=cluster, sample=PLANNED_SAMPLE),
            words,
        )
        job = (_call(launched, "launch_job").result or {}).get("job", {})
        _follow(runtime, cid, say, str(job.get("name") or job.get("id")), fast, words)
        release = words.step("release", "release", "release_cluster", cluster=cluster)
        _turn(runtime, cid, say, release, words)
        _turn(runtime, cid, say, words.step("history", "cost", "cost"), words)
        _turn(runtime, cid, say, words.step("history", "history", "history"), words)
    except DemoFailed as exc:
        say(words("failed", why=exc))
        return 1
    finally:
        runtime.close()
    say(words("finished", seconds=time.monotonic() - started))
    return 0


def _turn(runtime: Any, cid: int, say: Print, step: Step, words: _Words) -> TurnResult:
    say(words("you", step=step.title, text=step.text))
    result: TurnResult = runtime.send(cid, step.text, lambda event: None)
    calls = list(result.tool_calls)
    while result.pending_approval is not None:
        card = result.pending_approval
        title = words.said(card.title_said, card.title)
        say(words("approval", effect=words.effect(card.effect), title=title))
        say(words("approving"))
        yes = Decision.approve(card, by="xyclaw demo")
        result = runtime.answer(cid, yes, lambda event: None)
        calls += result.tool_calls
    merged = TurnResult(
        result.conversation_id,
        result.agent,
        result.reply,
        calls,
        None,
        result.tokens_in,
        result.tokens_out,
        result.cost_micros,
    )
    for call in _unique(calls):
        status = words.status(call.status)
        note = words.said(call.summary_said, call.summary) or words.said(
            call.error_said, call.error
        )
        if note:
            say(words("call_note", tool=call.tool, status=status, note=note))
        else:
            say(words("call", tool=call.tool, status=status))
    if result.reply:
        say(f"   [{result.agent}] {result.reply}")
    if step.tool is not None:
        found = [c for c in _unique(calls) if c.tool == step.tool]
        if not found:
            raise DemoFailed(words("not_called", step=step.title, tool=step.tool))
        if found[-1].status != "done":
            error = words.said(found[-1].error_said, found[-1].error)
            status = words.status(found[-1].status)
            raise DemoFailed(
                words("call_ended", step=step.title, tool=step.tool, status=status, error=error)
            )
    return merged


def _unique(calls: list[Any]) -> list[Any]:
    latest: dict[str, Any] = {}
    for call in calls:
        latest[call.call_id] = call
    return list(latest.values())


def _call(result: TurnResult, tool: str) -> Any:
    return [c for c in _unique(result.tool_calls) if c.tool == tool][-1]


def _follow(runtime: Any, cid: int, say: Print, job: str, fast: bool, words: _Words) -> None:
    """Ask for the job's status until it ends (a status that says nothing new is not printed
    again), then for its logs."""
    deadline = time.monotonic() + (120 if fast else 600)
    shown: list[str] = []
    asked = 0
    while True:
        lines: list[str] = []
        result = _turn(
            runtime,
            cid,
            lambda *parts, into=lines: into.append(" ".join(map(str, parts))),
            words.step("follow", "status", "job_status", job=job),
            words,
        )
        asked += 1
        if lines[1:] != shown[1:]:
            for line in lines:
                say(line)
            shown = lines
        state = str((_call(result, "job_status").result or {}).get("job", {}).get("state", ""))
        if state in ("succeeded", "failed", "cancelled"):
            say(words("asked", count=asked))
            _turn(runtime, cid, say, words.step("follow", "logs", "job_logs", job=job), words)
            if state != "succeeded":
                raise DemoFailed(words("job_ended", job=job, state=_state(words, state)))
            return
        if time.monotonic() > deadline:
            late = _state(words, state or "unknown")
            raise DemoFailed(words("job_late", job=job, state=late))
        time.sleep(1 if fast else 3)


def _state(words: _Words, state: str) -> str:
    """A job's state as the agents' summaries name it (``agent.state.*``)."""
    from xyclaw.wording.catalogue import CATALOGUE

    key = f"agent.state.{state}"
    return text_in(words.language, key) if key in CATALOGUE else state
