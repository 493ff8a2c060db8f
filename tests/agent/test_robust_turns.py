"""Nonsense never crashes a turn (issue 26, point 2): numbers out of range from the LLM brain
and from the rules brain come back as a tool error naming the allowed range, nothing is
stored as such a number, 300 tool calls in one reply are refused with words, a turn that
never ends stops with a worded error, and a broken stream is a failed turn with exit 2."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from tests.agent import fake_llm as f
from tests.agent.conftest import Events, MakeRuntime, World
from xyclaw.agent.arguments import MAX_CALLS_PER_REPLY, problems, with_ranges
from xyclaw.agent.tools import all_tools
from xyclaw.paths import AppPaths
from xyclaw.sim.cloud import launcher
from xyclaw.store import conversations as conv


@pytest.fixture
def sim_stopped(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """`xyclaw ask` may start the simulated cloud in the background: stopped after."""
    monkeypatch.setenv("XYCLAW_SIM_PROVISION_DELAY_S", "0")
    yield
    launcher.stop(AppPaths.from_environment().data_dir / "sim")


HUGE = "18446744073709551616"  # 2^64: LangGraph's checkpoint writer cannot hold it


def _planner(body: dict) -> str:  # type: ignore[type-arg]
    return "planner"


@pytest.mark.parametrize(
    ("tool", "raw", "said"),
    [
        (
            "plan",
            '{"task": "pretrain", "model_params": 7e9, "gpus": ' + HUGE + "}",
            "gpus is a number of 20 digits",
        ),
        (
            "plan",
            '{"task": "pretrain", "model_params": 7e9, "budget": 1e999}',
            "budget must be a finite number between 0 and 1000000000, got inf",
        ),
        (
            "plan",
            '{"task": "pretrain", "model_params": 7e9, "budget": NaN}',
            "budget must be a finite number",
        ),
        (
            "plan",
            '{"task": "pretrain", "model_params": 7e9, "deadline_hours": -5}',
            "deadline_hours must be between 0 and 87600, got -5",
        ),
        (
            "plan",
            '{"task": "pretrain", "model_params": "1e999"}',
            "model_params must be a finite number",
        ),
        ("history", '{"kind": "jobs", "limit": ' + HUGE + "}", "limit is a number of 20"),
        (
            "set_budget",
            '{"cluster": "a", "budget": 1e308}',
            "budget must be between 0 and 1000000000, got 1e+308",
        ),
        (
            "plan",
            '{"task": "pretrain", "model_params": 7e9, "extra": {"deep": [' + HUGE + "]}}",
            "extra.deep[0] is a number of 20 digits",
        ),
    ],
)
def test_a_number_out_of_range_is_a_tool_error_the_model_reads(
    world: World, make_runtime: MakeRuntime, tool: str, raw: str, said: str
) -> None:
    agent = "monitor" if tool == "set_budget" else "planner"
    agent = "historian" if tool == "history" else agent
    with f.FakeLLM(
        [f.call(tool, raw), f.text("Sorry, let me fix that.")], router=lambda body: agent
    ) as llm:
        rt = make_runtime(llm)
        cid = rt.new_conversation()
        result = rt.send(cid, "do it", Events())
        sent_back = llm.chat_requests[-1]["messages"]
    assert result.agent == agent and result.reply == "Sorry, let me fix that.", result.reply
    assert [(c.tool, c.status) for c in result.tool_calls] == [(tool, "failed")]
    answer = next(m for m in sent_back if m["role"] == "tool")
    assert said in answer["content"], answer["content"]
    rows = conv.list_tool_calls(rt.store, cid)
    assert rows[0]["args"] == {} and said in rows[0]["error"]
    assert world.engine.clusters() == []


def test_300_tool_calls_in_one_reply_are_refused_with_words(
    world: World, make_runtime: MakeRuntime
) -> None:
    many = f.calls(*[("offers", {}) for _ in range(300)])
    with f.FakeLLM([many], router=_planner) as llm:
        rt = make_runtime(llm)
        cid = rt.new_conversation()
        result = rt.send(cid, "list offers", Events())
    assert result.agent == "planner" and result.tool_calls == []
    assert f"300 tool calls in one reply; at most {MAX_CALLS_PER_REPLY}" in result.reply
    assert conv.list_tool_calls(rt.store, cid) == []


def test_a_turn_that_never_ends_stops_with_a_worded_error(
    world: World, make_runtime: MakeRuntime
) -> None:
    rounds = [f.calls(*[("offers", {}) for _ in range(MAX_CALLS_PER_REPLY)]) for _ in range(20)]
    with f.FakeLLM(rounds, router=_planner) as llm:
        rt = make_runtime(llm, XYCLAW_AGENTS_MAX_TOOL_ROUNDS="50")
        cid = rt.new_conversation()
        result = rt.send(cid, "list offers", Events())
    assert result.agent == "xyclaw" and result.exit_code == 2
    assert "stopped after 200 steps without an answer" in result.reply


def test_a_broken_endpoint_is_named_in_the_request_language(
    world: World, make_runtime: MakeRuntime
) -> None:
    page = "<html><head><title>登录</title></head></html>"
    with f.FakeLLM([f.raw(page, "text/html")], router=_planner) as llm:
        rt = make_runtime(llm)
        cid = rt.new_conversation()
        result = rt.send(cid, "帮我规划一个7B模型的微调", Events())
    assert result.agent == "xyclaw" and result.exit_code == 2
    assert "返回了一个网页（text/html：登录）" in result.reply and "/v1" in result.reply


def test_a_malformed_stream_line_fails_the_turn_with_exit_2(
    world: World, make_runtime: MakeRuntime
) -> None:
    with f.FakeLLM([f.raw("data: {not json\n\n")], router=_planner) as llm:
        rt = make_runtime(llm)
        cid = rt.new_conversation()
        result = rt.send(cid, "plan something", Events())
    assert result.agent == "xyclaw" and result.exit_code == 2
    assert "sent a stream line that is not JSON: {not json" in result.reply


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("show the last 99999999999999999999 jobs", "limit"),
        ("plan a LoRA fine-tune of 13B on 1000000000000000000000000000000 GPUs", "gpus"),
        ("how much did I spend in the last 99999999999999999999 days", None),
        ("plan a LoRA fine-tune of 13B on 8 GPUs with a budget of 1e999", None),
    ],
)
def test_the_rules_brain_never_crashes_on_huge_numbers(
    world: World, make_runtime: MakeRuntime, text: str, said: str | None
) -> None:
    rt = make_runtime()
    cid = rt.new_conversation()
    result = rt.send(cid, text, Events())
    assert result.agent != "xyclaw", result.reply
    assert "failed unexpectedly" not in result.reply
    if said is not None:
        assert said in result.reply, result.reply
    assert world.engine.clusters() == []


def test_every_numeric_argument_of_every_tool_has_a_range_shown_to_the_model() -> None:
    for spec in all_tools().values():
        shown = with_ranges(spec.parameters)
        for name, prop in shown["properties"].items():
            kinds = prop.get("type", [])
            if "number" in kinds or "integer" in kinds:
                assert "maximum" in prop, (spec.name, name)
        assert problems(spec.parameters, {}) == []
    json.dumps(with_ranges(all_tools()["plan"].parameters), allow_nan=False)


@pytest.mark.parametrize(
    "text",
    [
        "spent in the last 99999999999999999999 days",
        "show the last 99999999999999999999 jobs",
        "plan a LoRA fine-tune of 13B on 1000000000000000000000000000000 GPUs",
    ],
)
def test_ask_answers_nonsense_numbers_with_exit_0_or_2(
    sim_stopped: None, capsys: pytest.CaptureFixture[str], text: str
) -> None:
    from xyclaw.cli.main import main

    code = main(["ask", "--json", text])
    out = json.loads(capsys.readouterr().out)
    assert code in (0, 2), out
    assert out["agent"] != "xyclaw" and "failed unexpectedly" not in out["reply"]
