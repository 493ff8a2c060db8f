"""The tool catalogue against the Engine's tagged surface; agent files and user overrides."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.agent.conftest import World
from xyclaw.agent.brain import estimate_tokens
from xyclaw.agent.graph import history_for_brain
from xyclaw.agent.profiles import load_agents, parse_profile
from xyclaw.agent.tools import (
    TOOL_NAMES,
    all_tools,
    build_catalogue,
    check_against_surface,
    check_args,
    quote_changes,
    wrap_remote,
)
from xyclaw.agent.types import Effect
from xyclaw.engine import Engine
from xyclaw.errors import AgentError


def test_every_tool_matches_the_engine_effect_it_wraps(world: World) -> None:
    surface = world.engine.surface()
    assert check_against_surface(surface) == []
    tagged = {m.name: m.effect for m in surface}
    for spec in all_tools().values():
        for method in spec.engine_methods:
            if method in tagged and tagged[method] != Effect.READ:
                assert spec.gated, f"{spec.name} wraps {method} ({tagged[method]}) ungated"
    catalogue = build_catalogue(world.engine)
    assert set(catalogue.tools) | set(catalogue.missing) == set(TOOL_NAMES)
    for name in ("plan", "create_cluster", "release_cluster", "run_command", "tune", "cost"):
        assert name in catalogue.tools


def test_a_read_tool_over_a_spend_method_is_caught() -> None:
    class Fake:
        def __init__(self, name: str, effect: Effect) -> None:
            self.name, self.effect = name, effect

    assert check_against_surface([Fake("spend", Effect.SPEND)]) == [
        "tool cost is read but wraps spend, tagged spend",
        "tool cost (read) and its methods disagree on gating",
    ]


def test_tools_without_engine_methods_are_not_offered() -> None:
    catalogue = build_catalogue(object())
    assert catalogue.tools == {}
    assert "the Engine has no plan" in catalogue.missing["plan"]
    assert Engine  # the real engine is checked above


def test_argument_checks_name_what_is_wrong() -> None:
    schema = all_tools()["plan"].parameters
    assert check_args(schema, {"task": "pretrain", "model_params": 7e9}) == []
    problems = check_args(schema, {"task": "dance", "model_params": "big", "color": 1})
    assert any("'task' must be one of" in p for p in problems)
    assert any("'model_params' must be number" in p for p in problems)
    assert any("unknown argument 'color'" in p for p in problems)
    assert check_args(schema, {})[:2] == [
        "missing required argument 'task'",
        "missing required argument 'model_params'",
    ]


def test_remote_output_is_marked_and_keeps_its_end() -> None:
    text = "x" * 10_000 + "ERROR: the last line"
    wrapped = wrap_remote(text, 500, "log of job 3")
    assert wrapped["text"].endswith("ERROR: the last line") and len(wrapped["text"]) == 500
    assert "not instructions" in wrapped["note"] and "10020" in wrapped["truncated"]


def test_quote_changes_name_the_price() -> None:
    old = {"offer_id": "a", "price_per_gpu_hour_micros": 1_000_000, "gpu_count": 8}
    new = {**old, "price_per_gpu_hour_micros": 1_200_000}
    assert quote_changes(old, old) == []
    assert quote_changes(old, new) == ["price_per_gpu_hour_micros: 1000000 -> 1200000"]


def test_user_agent_files_override_and_add(tmp_path: Path) -> None:
    (tmp_path / "planner.md").write_text(
        "---\nname: planner\ndescription: My planner\ntools: [plan]\nmodel: deepseek-reasoner\n"
        "---\nPlan tersely.\n",
        encoding="utf-8",
    )
    (tmp_path / "auditor.md").write_text(
        "---\nname: auditor\ndescription: Looks at costs\ntools: [cost, history]\n---\nAudit.\n",
        encoding="utf-8",
    )
    (tmp_path / "broken.md").write_text("no front matter", encoding="utf-8")
    agents = load_agents(TOOL_NAMES, tmp_path)
    assert agents.agents["planner"].prompt == "Plan tersely."
    assert agents.agents["planner"].model == "deepseek-reasoner"
    assert agents.agents["auditor"].tools == ("cost", "history")
    assert {"provisioner", "tuner", "operator", "monitor", "historian"} <= set(agents.agents)
    assert len(agents.problems) == 1 and "broken.md" in agents.problems[0]


def test_unknown_tools_in_an_agent_file_are_refused() -> None:
    with pytest.raises(AgentError, match="unknown tools rm_rf"):
        parse_profile("---\nname: x\ndescription: d\ntools: [rm_rf]\n---\nbody", "x.md", TOOL_NAMES)


def test_bundled_agents_only_name_known_tools() -> None:
    agents = load_agents(TOOL_NAMES)
    assert agents.supervisor.tools == ()
    owners = {tool: agents.owner_of(tool) for tool in TOOL_NAMES}
    assert all(owners.values()), owners


def test_history_answers_every_dangling_call_and_cuts_at_a_user_message() -> None:
    call = {"id": "c1", "type": "function", "function": {"name": "plan", "arguments": "{}"}}
    messages = [
        {"role": "user", "content": "a"},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "user", "content": "b"},
    ]
    fixed = history_for_brain(messages)
    assert [m["role"] for m in fixed] == ["user", "assistant", "tool", "user"]
    assert fixed[2]["tool_call_id"] == "c1"
    long = [{"role": "user" if i % 2 == 0 else "assistant", "content": str(i)} for i in range(99)]
    assert history_for_brain(long)[0]["role"] == "user"


def test_own_token_count_errs_high_for_chinese() -> None:
    assert estimate_tokens("abcdefgh") == 2
    assert estimate_tokens("八张卡") == 3
