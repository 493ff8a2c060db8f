"""bench/agent_eval.py: its scenarios pass on the rules brain, and its check is the right one."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from xyclaw.agent.rules import ToolCall

BENCH = Path(__file__).resolve().parents[2] / "bench" / "agent_eval.py"


@pytest.fixture(scope="module")
def agent_eval() -> ModuleType:
    spec = importlib.util.spec_from_file_location("agent_eval", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["agent_eval"] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_every_scenario_passes_on_the_rules_brain(agent_eval: ModuleType) -> None:
    scenarios = agent_eval.load_scenarios()
    assert {s.language for s in scenarios} == {"en", "zh"}
    assert len(scenarios) >= 50
    failed = [
        (o.scenario.request, o.problem)
        for o in (agent_eval.rules_turn(s) for s in scenarios)
        if o.problem is not None
    ]
    assert failed == []


def test_the_check_allows_extra_arguments_and_close_numbers_only(agent_eval: ModuleType) -> None:
    want = (ToolCall("plan", {"task": "finetune-lora", "model_params": 13e9, "gpus": 8}),)
    close = (
        ToolCall(
            "plan",
            {"task": "FineTune-LoRA", "model_params": 13.05e9, "gpus": 8, "region": "Xiamen"},
        ),
    )
    assert agent_eval.mismatch(want, close) is None
    off = (ToolCall("plan", {"task": "finetune-lora", "model_params": 14e9, "gpus": 8}),)
    assert (
        agent_eval.mismatch(want, off) == "plan: model_params=14000000000.0, wanted 13000000000.0"
    )
    missing = (ToolCall("plan", {"task": "finetune-lora", "model_params": 13e9}),)
    assert agent_eval.mismatch(want, missing) == "plan: missing gpus=8"
    assert agent_eval.mismatch((), ()) is None
    assert agent_eval.mismatch((), want) == "wanted no tool, got ['plan']"
    assert agent_eval.mismatch(want, ()) == "wanted ['plan'], got no tool"
    assert agent_eval.mismatch((ToolCall("x", {"flag": True}),), (ToolCall("x", {"flag": 1}),))


def test_the_last_line_is_one_json_object() -> None:
    done = subprocess.run(
        [sys.executable, str(BENCH), "--quiet", "--repeats", "2"],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["rules"]["success_rate"] == 1.0
    assert report["rules"]["time_per_turn"]["median_ms"] <= 50
    assert "skipped" in report["llm"]
