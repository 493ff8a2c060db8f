"""The agents' cards as said: a tool result's line, why a call did not run, and an approval
card's title and rows are kept as a key and figures beside the English the model reads, so a
window (or a terminal) words them in its own language, also after a restart."""

from __future__ import annotations

import io

from tests.agent.conftest import Events, MakeRuntime, World
from xyclaw.agent.types import Decision, ToolFinished
from xyclaw.cli.commands.agent import _Printer
from xyclaw.cli.context import CliContext
from xyclaw.wording import Said

PLAN = "plan a LoRA fine-tune of a 13B model on 8 GPUs, budget 500"


def test_an_english_conversation_s_cards_read_in_chinese_after_a_restart(
    world: World, make_runtime: MakeRuntime
) -> None:
    rt = make_runtime()
    cid = rt.new_conversation()
    planned = rt.send(cid, PLAN, Events())
    [plan] = [c for c in planned.tool_calls if c.tool == "plan"]
    assert plan.summary is not None and plan.summary.startswith("plan ")  # what the model read
    assert isinstance(plan.summary_said, Said) and plan.summary_said.english == plan.summary
    assert plan.summary_said.in_language("zh").startswith("方案 ")

    card = rt.send(cid, "rent option 1", Events()).pending_approval
    assert card is not None and card.language == "en"
    assert card.title.startswith("Rent 8 x ")  # the request's language, as before
    assert card.title_said is not None and card.title_said.english == card.title
    assert card.title_said.in_language("zh").startswith("租用 8 张")
    shape = card.details_said["shape"]
    assert isinstance(shape, Said) and shape.english == card.details["shape"]
    assert shape.in_language("zh").startswith("1 台 × 每台 8 张")

    events = Events()
    rt.answer(cid, Decision("reject"), events)
    [refused] = [e.call for e in events.of(ToolFinished) if e.call.tool == "create_cluster"]
    assert refused.error == "rejected by user"
    assert refused.error_said is not None and refused.error_said.in_language("zh") == "你已拒绝"
    assert world.engine.clusters() == []

    # another runtime on the same database: the stored calls are still said
    again = make_runtime()
    stored = [m.tool_call for m in again.messages(cid) if m.tool_call is not None]
    [plan_again] = [c for c in stored if c.tool == "plan"]
    assert plan_again.summary == plan.summary and plan_again.summary_said == plan.summary_said
    [audited] = [c for c in again.tool_calls(cid) if c.tool == "plan"]
    assert audited.summary_said == plan.summary_said


def test_the_terminal_words_a_tool_s_line_in_the_setting_s_language(
    world: World, make_runtime: MakeRuntime
) -> None:
    rt = make_runtime()
    cid = rt.new_conversation()
    events = Events()
    rt.send(cid, PLAN, events)
    [done] = [e for e in events.of(ToolFinished) if e.call.tool == "plan"]
    lines = {}
    for setting in ("en", "zh_CN"):
        out = io.StringIO()
        ctx = CliContext(world.paths, overrides={"gui.language": setting}, out=out)
        _Printer(ctx, stream=True)(done)
        lines[setting] = out.getvalue().strip()
    assert lines["en"] == f"<- plan: done ({done.call.summary})"
    assert lines["zh_CN"].startswith("<- plan: 完成 (方案 ")  # the demo's word for done (b35)


def test_a_plan_where_nothing_fits_says_why_in_either_language(
    world: World, make_runtime: MakeRuntime
) -> None:
    """The planner's "which filter left no offer" is said too: the tool card's line and the
    rules brain's Chinese answer name it in Chinese, the model still reads the English."""
    rt = make_runtime()
    cid = rt.new_conversation()
    english = rt.send(cid, "plan a LoRA fine-tune of a 7B model on 3 H100", Events())
    [call] = [c for c in english.tool_calls if c.tool == "plan"]
    assert call.summary is not None  # as the planner has always put it
    assert "nothing fits (no offer has 3 GPUs with GPU H100; offered: 8" in call.summary
    assert call.summary_said is not None
    chinese = call.summary_said.in_language("zh")
    assert "没有合适的（没有报价满足 3 张 GPU（且满足 GPU H100）；现有：8" in chinese

    reply = rt.send(cid, "用3张H100做7B模型的LoRA微调", Events()).reply
    assert "没有报价满足" in reply and "no offer has" not in reply
