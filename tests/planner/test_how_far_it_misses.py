"""An impossible request says how far its closest option misses (issue 26): a 70B
pretraining on 32 cards in two days (impossible by 6ND) names the fastest and how many days
past the deadline; a budget names how much over it."""

from __future__ import annotations

import re

from xyclaw.catalog import Catalog
from xyclaw.planner import PlanRequest, plan


def test_the_fastest_says_how_many_days_past_the_deadline() -> None:
    request = PlanRequest.parse(task="pretrain", model_size="70B", gpus="32", deadline="48h")
    result = plan(request, Catalog.builtin())
    assert not result.options and result.rejected
    fastest = result.rejected[0]
    assert fastest.seconds is not None
    assert all(r.seconds is None or r.seconds >= fastest.seconds for r in result.rejected)
    found = re.search(r"takes ([\d.]+) h \(([\d,]+) days\), past the 48 h deadline by ([\d.]+) h",
                      fastest.why)  # fmt: skip
    assert found, fastest.why
    took, days, over = float(found[1]), int(found[2].replace(",", "")), float(found[3])
    assert abs(took - fastest.seconds / 3600) < 0.1 and abs(over - (took - 48)) < 0.2
    assert days == round(took / 24)


def test_the_cheapest_says_how_much_over_the_budget() -> None:
    request = PlanRequest.parse(task="pretrain", model_size="70B", gpus="32", budget="500")
    result = plan(request, Catalog.builtin())
    assert not result.options
    assert "over the 500.00 CNY budget by" in result.rejected[0].why, result.rejected[0].why
