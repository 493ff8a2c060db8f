"""Agent scenarios: does a brain call the right tool with the right arguments, and how fast?

Runs ``bench/agent_scenarios/*.yaml`` (English and Chinese: a request, its conversation,
the expected tool and arguments) against the rules brain, and against an LLM when an
endpoint is configured (``XYCLAW_EVAL_BASE_URL``, ``XYCLAW_EVAL_MODEL``,
``XYCLAW_EVAL_API_KEY``; skipped otherwise). Prints one line per scenario (ok or what was
wrong, tool calls, time), the success rate per language, tool calls and tokens per
scenario, the rules brain's time per turn with no tool run (median and p95 over repeats;
target <= 50 ms median), a whole turn's time through the real runtime with the tools' run
time taken off (LangGraph, checkpoints, history writes: ``--graph-rounds``) and, with
``--ask``, ``xyclaw ask`` for a plan from a fresh shell (target <= 2 s;
``bench/agent_latency_bench.py`` measures that one in detail). The last
line is one JSON object.

Against a model, each scenario is routed by the supervisor and answered by the routed
specialist's first step (its own tools; nothing is run), as the runtime would. A scenario
passes when the calls match in order: each expected argument present with the same value
(numbers within 1%, strings without regard to case), extra arguments allowed (a model may
add a region or a limit); ``tool: null`` passes when no tool is called.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import yaml  # noqa: E402

from xyclaw.agent.rules import RulesContext, ToolCall, understand  # noqa: E402

SCENARIOS = Path(__file__).with_name("agent_scenarios")
TARGET_MEDIAN_MS = 50.0
TARGET_ASK_S = 2.0


@dataclass(frozen=True)
class Scenario:
    file: str
    language: str
    request: str
    context: RulesContext
    expected: tuple[ToolCall, ...]  # empty: no tool call


@dataclass
class Outcome:
    scenario: Scenario
    calls: tuple[ToolCall, ...]
    seconds: float
    tokens: dict[str, int] = field(default_factory=lambda: {"in": 0, "out": 0})
    error: str | None = None

    @property
    def problem(self) -> str | None:
        if self.error:
            return self.error
        return mismatch(self.scenario.expected, self.calls)


def _context(data: dict[str, Any] | None) -> RulesContext:
    data = data or {}
    today = data.get("today")
    return RulesContext(
        last_plan_id=data.get("last_plan_id"),
        last_plan_options=int(data.get("last_plan_options") or 0),
        last_cluster=data.get("last_cluster"),
        last_job=None if data.get("last_job") is None else str(data["last_job"]),
        clusters=tuple(str(c) for c in data.get("clusters") or ()),
        jobs=tuple(str(j) for j in data.get("jobs") or ()),
        today=today if isinstance(today, date) else date.today(),
    )


def load_scenarios(folder: Path = SCENARIOS) -> list[Scenario]:
    found: list[Scenario] = []
    for path in sorted(folder.glob("*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        default = _context(data.get("context"))
        for item in data["scenarios"]:
            raw = item.get("context", "default")
            if raw == "empty":
                context = RulesContext(today=default.today)
            elif isinstance(raw, dict):
                context = _context({"today": default.today, **raw})
            else:
                context = default
            if "calls" in item:
                expected = tuple(
                    ToolCall(c["tool"], dict(c.get("args") or {})) for c in item["calls"]
                )
            elif item.get("tool") is None:
                expected = ()
            else:
                expected = (ToolCall(item["tool"], dict(item.get("args") or {})),)
            found.append(Scenario(path.name, data["language"], item["request"], context, expected))
    return found


def _same(want: Any, got: Any) -> bool:
    if isinstance(want, bool) or isinstance(got, bool):
        return want is got
    if isinstance(want, (int, float)) and isinstance(got, (int, float)):
        return abs(want - got) <= 0.01 * max(abs(want), 1e-9)
    if isinstance(want, str) and isinstance(got, str):
        return want.strip().casefold() == got.strip().casefold()
    return bool(want == got)


def mismatch(expected: tuple[ToolCall, ...], calls: tuple[ToolCall, ...]) -> str | None:
    """None when the calls are what the scenario expects, else what differs."""
    if [c.name for c in expected] != [c.name for c in calls]:
        want = [c.name for c in expected] or "no tool"
        got = [c.name for c in calls] or "no tool"
        return f"wanted {want}, got {got}"
    for want, got in zip(expected, calls, strict=True):
        for key, value in want.args.items():
            if key not in got.args:
                return f"{got.name}: missing {key}={value!r}"
            if not _same(value, got.args[key]):
                return f"{got.name}: {key}={got.args[key]!r}, wanted {value!r}"
    return None


# ---- the rules brain -------------------------------------------------------------------------


def rules_turn(scenario: Scenario) -> Outcome:
    started = time.perf_counter()
    turn = understand(scenario.request, scenario.context)
    return Outcome(scenario, turn.tool_calls, time.perf_counter() - started)


def time_rules(scenarios: list[Scenario], repeats: int) -> dict[str, float]:
    """Per-turn times of the rules brain (no tool runs), warm, over ``repeats`` rounds."""
    times: list[float] = []
    for _ in range(repeats):
        for scenario in scenarios:
            started = time.perf_counter()
            understand(scenario.request, scenario.context)
            times.append(time.perf_counter() - started)
    times.sort()
    return {
        "median_ms": round(statistics.median(times) * 1000, 3),
        "p95_ms": round(times[int(0.95 * (len(times) - 1))] * 1000, 3),
        "max_ms": round(times[-1] * 1000, 3),
        "turns": len(times),
    }


# ---- the LLM path ----------------------------------------------------------------------------


def context_dict(context: RulesContext) -> dict[str, Any]:
    """What the runtime tells a brain besides the messages, for a scenario's conversation."""
    return {
        "last_plan_id": context.last_plan_id,
        "last_plan_options": context.last_plan_options or None,
        "last_cluster": context.last_cluster,
        "last_job": context.last_job,
        "clusters": list(context.clusters),
        "jobs": list(context.jobs),
        "today": context.today.isoformat(),
    }


def llm_runner(base_url: str, model: str, api_key: str) -> Callable[[Scenario], Outcome] | None:
    """Each scenario sent to the model as the runtime would: the supervisor's route, then the
    routed specialist's first step with its own tools (schemas from the catalogue); the tool
    calls it makes are compared, never run. Tokens are the model's own counts."""
    from xyclaw.agent.evaluate import ENV_KEY, ENV_MODEL, ENV_URL, first_step, llm_brain_from_env
    from xyclaw.agent.profiles import load_agents
    from xyclaw.agent.tools import TOOL_NAMES

    brain = llm_brain_from_env({ENV_URL: base_url, ENV_MODEL: model, ENV_KEY: api_key})
    if brain is None:
        return None
    agents = load_agents(TOOL_NAMES)

    def run(scenario: Scenario) -> Outcome:
        step = first_step(
            brain, scenario.request, agents=agents, context=context_dict(scenario.context)
        )
        bad = [c.name for c in step.calls if c.args is None]
        calls = tuple(ToolCall(c.name, dict(c.args or {})) for c in step.calls)
        return Outcome(
            scenario,
            calls,
            step.seconds,
            tokens={"in": step.tokens_in, "out": step.tokens_out},
            error=f"malformed arguments for {', '.join(bad)}" if bad else None,
        )

    return run


# ---- a whole turn through the graph --------------------------------------------------------


def time_graph(scenarios: list[Scenario], rounds: int) -> dict[str, Any]:
    """Each scenario's request as a user turn of the real runtime (LangGraph, its SQLite
    checkpoints, the history database, the rules brain) over an engine renting from the
    simulated cloud, each in a new conversation, in a new XYCLAW_HOME. The time of the
    tools' own runs (``duration_s`` of each call) is taken off; what is left is the turn's
    cost to the user besides the work asked for: routing, the brain, the graph, the writes
    (and an approval card's preparation: a quote is read, nothing is run). The first round
    warms up and is not counted."""
    saved = {k: os.environ.get(k) for k in ("XYCLAW_HOME", "XYCLAW_SECRETS_BACKEND")}
    times: list[float] = []
    with tempfile.TemporaryDirectory(prefix="xyclaw-eval-") as home:
        os.environ.update(XYCLAW_HOME=home, XYCLAW_SECRETS_BACKEND="file")
        from xyclaw.agent.runtime import AgentRuntime
        from xyclaw.cli.context import CliContext
        from xyclaw.paths import AppPaths
        from xyclaw.sim.cloud import launcher

        paths = AppPaths.from_environment()
        ctx = CliContext(paths=paths)
        try:
            runtime = AgentRuntime(ctx.engine(), store=ctx.store(), paths=paths, config=ctx.config)
            ctx.on_close(runtime.close)
            for round_ in range(rounds + 1):
                for scenario in scenarios:
                    cid = runtime.new_conversation()
                    started = time.perf_counter()
                    result = runtime.send(cid, scenario.request, lambda event: None)
                    seconds = time.perf_counter() - started
                    ran = sum(c.duration_s or 0.0 for c in result.tool_calls)
                    if round_:
                        times.append(max(seconds - ran, 0.0))
        finally:
            ctx.close()
            launcher.stop(paths.data_dir / "sim")
            for key, value in saved.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value
    times.sort()
    return {
        "median_ms": round(statistics.median(times) * 1000, 1),
        "p95_ms": round(times[int(0.95 * (len(times) - 1))] * 1000, 1),
        "turns": len(times),
        "target_median_ms": TARGET_MEDIAN_MS,
        "meets_target": statistics.median(times) * 1000 <= TARGET_MEDIAN_MS,
    }


# ---- xyclaw ask from a fresh shell -----------------------------------------------------------


def time_ask(repeats: int) -> dict[str, Any]:
    """``xyclaw ask --json`` for a plan, each run a new process in a new XYCLAW_HOME."""
    exe = Path(sys.executable).with_name("xyclaw")
    command = [str(exe)] if exe.exists() else [sys.executable, "-m", "xyclaw.cli.main"]
    text = "plan a LoRA fine-tune of a 7B model on 8 GPUs"
    seconds: list[float] = []
    tool: str | None = None
    with tempfile.TemporaryDirectory() as home:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env.update(XYCLAW_HOME=home, XYCLAW_SECRETS_BACKEND="file")  # .pyc as installed
        for _ in range(repeats):
            started = time.perf_counter()
            done = subprocess.run(
                [*command, "ask", "--json", text],
                env=env,
                capture_output=True,
                text=True,
                timeout=120,
                check=False,
            )
            seconds.append(time.perf_counter() - started)
            if done.returncode != 0:
                return {"error": (done.stderr or done.stdout).strip()[-300:]}
            calls = json.loads(done.stdout).get("tool_calls") or []
            tool = calls[0]["tool"] if calls else None
        # The first ask started a simulated cloud in this home: stop it with the home.
        subprocess.run([*command, "sim", "stop"], env=env, capture_output=True, check=False)
    return {"median_s": round(statistics.median(seconds), 3), "runs": repeats, "tool": tool}


# ---- report ----------------------------------------------------------------------------------


def _row(brain: str, outcome: Outcome) -> str:
    problem = outcome.problem
    calls = ", ".join(f"{c.name}({json.dumps(c.args, ensure_ascii=False)})" for c in outcome.calls)
    status = "ok  " if problem is None else "FAIL"
    line = (
        f"{status} {brain:5} {outcome.scenario.language} {outcome.seconds * 1000:7.2f} ms  "
        f"{outcome.scenario.request[:60]!r:64} -> {calls or 'reply'}"
    )
    return line + ("" if problem is None else f"\n       {problem}")


def _summary(outcomes: list[Outcome]) -> dict[str, Any]:
    by_language: dict[str, dict[str, Any]] = {}
    for language in sorted({o.scenario.language for o in outcomes}):
        own = [o for o in outcomes if o.scenario.language == language]
        passed = sum(o.problem is None for o in own)
        by_language[language] = {
            "scenarios": len(own),
            "passed": passed,
            "success_rate": round(passed / len(own), 4),
        }
    passed = sum(o.problem is None for o in outcomes)
    return {
        "scenarios": len(outcomes),
        "passed": passed,
        "success_rate": round(passed / len(outcomes), 4) if outcomes else None,
        "by_language": by_language,
        "tool_calls_per_scenario": round(
            sum(len(o.calls) for o in outcomes) / max(1, len(outcomes)), 3
        ),
        "tokens_per_scenario": {
            key: round(sum(o.tokens[key] for o in outcomes) / max(1, len(outcomes)), 1)
            for key in ("in", "out")
        },
        "failed": [o.scenario.request for o in outcomes if o.problem is not None],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--repeats", type=int, default=50, help="timing rounds over all scenarios")
    parser.add_argument("--ask", action="store_true", help="also time `xyclaw ask` (3 runs)")
    parser.add_argument("--quiet", action="store_true", help="only failures and the summary")
    parser.add_argument(
        "--graph-rounds",
        type=int,
        default=3,
        help="rounds of whole turns through the runtime (0: skip; starts a simulated cloud)",
    )
    parser.add_argument(
        "--smoke",
        action="store_true",
        help="2 timing rounds, 1 graph round, no LLM, only failures: that it runs",
    )
    args = parser.parse_args(argv)
    if args.smoke:
        args.repeats, args.graph_rounds, args.quiet, args.ask = 2, 1, True, False

    scenarios = load_scenarios()
    cold_started = time.perf_counter()
    understand("plan a 7B fine-tune on 8 GPUs", RulesContext())  # loads the GPU catalogue
    cold_ms = (time.perf_counter() - cold_started) * 1000
    outcomes = [rules_turn(s) for s in scenarios]
    for outcome in outcomes:
        if not args.quiet or outcome.problem is not None:
            print(_row("rules", outcome))
    report: dict[str, Any] = {"rules": _summary(outcomes)}
    timing = time_rules(scenarios, args.repeats)
    timing["first_turn_ms"] = round(cold_ms, 3)
    timing["target_median_ms"] = TARGET_MEDIAN_MS
    timing["meets_target"] = timing["median_ms"] <= TARGET_MEDIAN_MS
    report["rules"]["time_per_turn"] = timing
    if args.graph_rounds > 0:
        report["rules"]["graph_turn"] = time_graph(scenarios, args.graph_rounds)

    endpoint = [os.environ.get(f"XYCLAW_EVAL_{k}") for k in ("BASE_URL", "MODEL", "API_KEY")]
    if all(endpoint) and not args.smoke:
        runner = llm_runner(*endpoint)  # type: ignore[arg-type]
        if runner is None:
            report["llm"] = {"skipped": "the LLM brain is not available"}
        else:
            llm = []
            for scenario in scenarios:
                try:
                    outcome = runner(scenario)
                except Exception as exc:  # one bad answer must not end the run
                    outcome = Outcome(scenario, (), 0.0, error=f"{type(exc).__name__}: {exc}")
                llm.append(outcome)
                if not args.quiet or outcome.problem is not None:
                    print(_row("llm", outcome))
            report["llm"] = {"model": endpoint[1], **_summary(llm)}
    else:
        report["llm"] = {
            "skipped": "set XYCLAW_EVAL_BASE_URL, XYCLAW_EVAL_MODEL, XYCLAW_EVAL_API_KEY"
        }
    if args.ask:
        ask = time_ask(3)
        ask["target_s"] = TARGET_ASK_S
        report["ask"] = ask

    rules = report["rules"]
    print(
        f"\nrules brain: {rules['passed']}/{rules['scenarios']} scenarios "
        f"({rules['success_rate']:.1%}), "
        + ", ".join(
            f"{lang} {v['passed']}/{v['scenarios']}" for lang, v in rules["by_language"].items()
        )
        + f"; {rules['tool_calls_per_scenario']} tool calls per scenario; "
        f"time per turn median {timing['median_ms']} ms, p95 {timing['p95_ms']} ms "
        f"(first turn {timing['first_turn_ms']:.1f} ms)"
    )
    graph = rules.get("graph_turn")
    if graph:
        print(
            f"whole turn through the runtime, tool runs excluded: median {graph['median_ms']} ms,"
            f" p95 {graph['p95_ms']} ms over {graph['turns']} turns, load {os.getloadavg()[0]:.2f}"
        )
    print(json.dumps(report, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
