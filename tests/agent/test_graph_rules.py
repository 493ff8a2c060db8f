"""The rules brain through the same graph: both languages, approvals, unknown text is safe."""

from __future__ import annotations

import pytest

from tests.agent.conftest import Events, MakeRuntime, World
from xyclaw.agent.types import Decision, PlanShown
from xyclaw.store.jobs import JobTable


def test_chinese_plan_then_rent_with_approval(world: World, make_runtime: MakeRuntime) -> None:
    rt = make_runtime()
    assert rt.brain_name == "rules"
    cid = rt.new_conversation()
    events = Events()
    plan = rt.send(cid, "用八张卡做13B模型的LoRA微调，预算五千元", events)
    assert plan.agent == "planner"
    assert [c.tool for c in plan.tool_calls] == ["plan"]
    assert any("\u4e00" <= ch <= "\u9fff" for ch in plan.reply)
    assert events.of(PlanShown)
    assert (plan.tokens_in, plan.tokens_out, plan.cost_micros) == (0, 0, 0)

    rent = rt.send(cid, "租第一个方案", Events())
    card = rent.pending_approval
    assert card is not None and card.tool == "create_cluster" and card.effect == "spend"
    assert world.engine.clusters() == []
    done = rt.answer(cid, Decision.approve(card), Events())
    assert done.agent == "provisioner"
    assert len(world.engine.clusters()) == 1
    history = [m.role for m in rt.messages(cid)]
    assert history.count("user") == 2 and "tool" in history


def test_english_reply_names_the_agent(world: World, make_runtime: MakeRuntime) -> None:
    rt = make_runtime()
    cid = rt.new_conversation()
    result = rt.send(cid, "how much did I spend this month?", Events())
    assert result.agent == "historian"
    assert [c.tool for c in result.tool_calls] == ["cost"]
    [message] = [m for m in rt.messages(cid) if m.role == "assistant"]
    assert message.agent == "historian" and message.text == result.reply


@pytest.mark.parametrize(
    "text",
    [
        "tell me a joke",
        "asdf qwer zxcv",
        "今天天气怎么样",
        "what is the meaning of life",
        "please do something useful",
    ],
)
def test_unknown_text_never_spends_destroys_or_executes(
    world: World, make_runtime: MakeRuntime, text: str
) -> None:
    rt = make_runtime()
    cid = rt.new_conversation()
    result = rt.send(cid, text, Events())
    assert result.pending_approval is None
    assert all(c.effect == "read" for c in result.tool_calls)
    assert result.reply
    assert world.engine.clusters() == []


def test_a_job_still_running_is_what_my_job_means_and_an_ended_one_is_not(
    world: World, make_runtime: MakeRuntime
) -> None:
    rt = make_runtime()
    jobs = JobTable(rt.store)
    for name, state in (("old-sft", "succeeded"), ("nightly-sft", "running")):
        jobs.insert(
            name=name,
            kind="training",
            spec_json="{}",
            state=state,
            cluster_id=None,
            rented_cluster=False,
        )
    for text in ("how is my job doing?", "任务进度怎么样"):
        result = rt.send(rt.new_conversation(), text, Events())
        [call] = result.tool_calls
        assert (call.tool, call.args) == ("job_status", {"job": "nightly-sft"})
