"""Issue 32 in the chat: "rent option 1 as spot" and "用竞价实例租方案1" quote the plan's
option as spot; the card states the saving and the risk, and the yes rents spot."""

from __future__ import annotations

import pytest

from tests.agent.conftest import Events, MakeRuntime, World
from xyclaw.agent.types import Decision
from xyclaw.wording import Said


@pytest.mark.parametrize(
    ("plan_text", "rent_text", "risk"),
    [
        ("plan a LoRA fine-tune of a 13B model on 8 GPUs, budget 500 CNY",
         "rent option 1 as spot", "may take it back with a short notice"),
        ("用八张卡做13B模型的LoRA微调，预算五百元", "用竞价实例租方案1",
         "提供商可能在短暂通知后收回"),
    ],
)  # fmt: skip
def test_renting_a_plans_option_as_spot_from_the_chat(
    world: World, make_runtime: MakeRuntime, plan_text: str, rent_text: str, risk: str
) -> None:
    rt = make_runtime()
    cid = rt.new_conversation()
    rt.send(cid, plan_text, Events())
    rent = rt.send(cid, rent_text, Events())
    card = rent.pending_approval
    assert card is not None and card.tool == "create_cluster" and card.effect == "spend"
    assert card.args.get("spot") is True
    quote = card.details["quote"]
    assert (
        quote["spot"] is True
        and quote["on_demand_per_gpu_hour_micros"] > quote["price_per_gpu_hour_micros"]
    )
    spot_said = quote["spot_said"]
    assert spot_said is not None and spot_said["key"] == "common.quote_spot_figures"
    assert world.engine.clusters() == []

    rt.answer(cid, Decision.approve(card), Events())
    [cluster] = world.engine.clusters()
    assert cluster.price_per_gpu_hour_micros == quote["price_per_gpu_hour_micros"]
    language = "en" if rent_text.isascii() else "zh"
    assert risk in Said.from_json(spot_said).in_language(language)  # type: ignore[union-attr]
