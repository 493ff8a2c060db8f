"""Spot in plans (issue 32): an option whose offer can also be rented as spot says what the
run would cost as spot and the risk, without changing how options rank."""

from __future__ import annotations

import dataclasses

from xyclaw.catalog import Catalog
from xyclaw.planner import PlanRequest, plan
from xyclaw.planner.costing import bill
from xyclaw.planner.report import options_table, spot_line


def test_an_offer_with_spot_shows_its_saving_and_risk_and_ranks_as_before() -> None:
    builtin = Catalog.builtin()
    spotted = Catalog(
        builtin.gpus,
        [
            dataclasses.replace(
                o, spot_price_micro=round(o.price_micro * 0.35), spot_preemptions_per_day=2.0
            )
            if o.gpu == "A800"
            else o
            for o in builtin.offers
        ],
    )
    request = PlanRequest.parse(task="finetune-lora", model_size="7B", tokens="1B", gpus="8")
    before = plan(request, builtin)
    after = plan(request, spotted)

    assert [o.key for o in after.options] == [o.key for o in before.options]  # same ranking
    a800 = next(o for o in after.options if o.gpu == "A800")
    offer = next(o for o in spotted.offers if o.offer_id == a800.offer_id)
    assert offer.spot_price_micro is not None
    assert (
        a800.spot_cost_micro
        == bill(a800.gpus, a800.seconds, offer.spot_price_micro, None).cost_micro
    )
    assert a800.spot_cost_micro < a800.cost_micro
    line = spot_line(a800)
    assert line is not None and "-65%" in line and "about 2 preemption(s) a day" in line
    assert f"~{2.0 * a800.seconds / 86400:.1f} over this run" in line
    assert any("spot: true" in row for row in options_table(after.options))
    assert "竞价" in (spot_line(a800, "zh") or "")
    other = next(o for o in after.options if o.gpu != "A800")
    assert other.spot_cost_micro is None and spot_line(other) is None
    assert "spot_cost_micro" in a800.to_json() and "spot_cost_micro" not in other.to_json()
