"""``xyclaw demo``: the rules brain drives the whole flow on the simulated cloud.

plan -> approve -> rent -> tune -> launch -> follow -> release -> history, each step a
chat message the rules brain understands, each spend/exec/destroy approved on the
user's behalf *by this script* (printed as such) through the same approval cards the
app shows. Launch and follow are the Engine's jobs methods (launch, job, job_logs) behind
the launch_job, job_status and job_logs tools, on a job that really runs on the simulated
nodes.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from xyclaw.agent.types import Decision, TurnResult

Print = Callable[..., None]

#: The bundled sample that runs the fine-tune the demo plans (a 7B LoRA fine-tune on one
#: node of 8 GPUs, 100 steps; no HF_TOKEN needed).
PLANNED_SAMPLE = "lora7b-1node"


@dataclass
class Step:
    title: str
    text: str
    tool: str | None  # the tool the step must call (None: any reply is fine)


class DemoFailed(Exception):
    pass


def run_demo(make_runtime: Callable[..., Any], say: Print, *, fast: bool = False) -> int:
    started = time.monotonic()
    runtime = make_runtime()
    if runtime.brain.kind != "rules":
        say(f"(the demo uses the rules brain; [llm] preset is {runtime.brain_name})")
        from xyclaw.agent.rules_brain import RulesBrain

        runtime.close()
        runtime = make_runtime(brain=RulesBrain())
    cid = runtime.new_conversation("Demo")
    say(f"XyClaw demo: conversation {cid}, rules brain, simulated cloud")
    try:
        # the fine-tune it plans is the one it launches (the lora7b-1node sample), as the
        # window's tour does
        plan = _turn(
            runtime,
            cid,
            say,
            Step("plan", "LoRA fine-tune a 7B model on 8 GPUs, budget 2000 CNY", "plan"),
        )
        plan_call = _call(plan, "plan")
        if not (plan_call.result or {}).get("options"):
            raise DemoFailed("the plan found no option")
        rented = _turn(runtime, cid, say, Step("rent", "rent option 1", "create_cluster"))
        cluster = (_call(rented, "create_cluster").result or {}).get("cluster", {}).get("name")
        if not cluster:
            raise DemoFailed("no cluster came up")
        say(f"   cluster {cluster} is up")
        _turn(runtime, cid, say, Step("tune", f"tune {cluster}", "tune"))
        launched = _turn(
            runtime, cid, say, Step("launch", f"launch {PLANNED_SAMPLE} on {cluster}", "launch_job")
        )
        job = (_call(launched, "launch_job").result or {}).get("job", {})
        _follow(runtime, cid, say, str(job.get("name") or job.get("id")), fast)
        _turn(runtime, cid, say, Step("release", f"release {cluster}", "release_cluster"))
        _turn(runtime, cid, say, Step("history", "how much did I spend today?", "cost"))
        _turn(runtime, cid, say, Step("history", "show the last 5 clusters", "history"))
    except DemoFailed as exc:
        say(f"demo failed: {exc}")
        return 1
    finally:
        runtime.close()
    say(f"demo finished in {time.monotonic() - started:.1f} s")
    return 0


def _turn(runtime: Any, cid: int, say: Print, step: Step) -> TurnResult:
    say(f"-- {step.title}: you> {step.text}")
    result: TurnResult = runtime.send(cid, step.text, lambda event: None)
    calls = list(result.tool_calls)
    while result.pending_approval is not None:
        card = result.pending_approval
        say(f"   approval ({card.effect}): {card.title}")
        say("   approving on your behalf (demo)")
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
        say(
            f"   {call.tool}: {call.status}"
            + (f" ({call.summary or call.error})" if (call.summary or call.error) else "")
        )
    if result.reply:
        say(f"   [{result.agent}] {result.reply}")
    if step.tool is not None:
        found = [c for c in _unique(calls) if c.tool == step.tool]
        if not found:
            raise DemoFailed(f"step {step.title}: the rules brain did not call {step.tool}")
        if found[-1].status != "done":
            raise DemoFailed(
                f"step {step.title}: {step.tool} {found[-1].status}: {found[-1].error}"
            )
    return merged


def _unique(calls: list[Any]) -> list[Any]:
    latest: dict[str, Any] = {}
    for call in calls:
        latest[call.call_id] = call
    return list(latest.values())


def _call(result: TurnResult, tool: str) -> Any:
    return [c for c in _unique(result.tool_calls) if c.tool == tool][-1]


def _follow(runtime: Any, cid: int, say: Print, job: str, fast: bool) -> None:
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
            Step("follow", f"status of job {job}", "job_status"),
        )
        asked += 1
        if lines[1:] != shown[1:]:
            for line in lines:
                say(line)
            shown = lines
        state = str((_call(result, "job_status").result or {}).get("job", {}).get("state", ""))
        if state in ("succeeded", "failed", "cancelled"):
            say(f"   (asked for the status {asked} times while the job ran)")
            _turn(runtime, cid, say, Step("follow", f"logs of job {job}", "job_logs"))
            if state != "succeeded":
                raise DemoFailed(f"job {job} {state}")
            return
        if time.monotonic() > deadline:
            raise DemoFailed(f"job {job} still {state or 'unknown'} at the deadline")
        time.sleep(1 if fast else 3)
