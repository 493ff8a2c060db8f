"""Seed 004's selection rules, reproduced as the planner's decisions on the built-in cloud."""

from __future__ import annotations

import dataclasses

import pytest

from xyclaw.catalog import Catalog, Offer, format_amount
from xyclaw.planner import PlanRequest, RequestError, Task, pareto_front, plan
from xyclaw.planner.costing import THIRTY_DAYS, bill
from xyclaw.wording import reason_in


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return Catalog.builtin()


def family(fabric: str) -> str:
    return fabric.split("-")[0]


def test_32_cards_on_a_70b_model_choose_infiniband(catalog: Catalog) -> None:
    # 5B tokens keep every run short enough that all prices are on demand.
    request = PlanRequest.parse(task="pretrain", model_size="70B", tokens="5B", gpus="32")
    result = plan(request, catalog)
    assert result.best is not None and family(result.best.fabric) == "ib"
    rules = dict(result.best.reasons)
    assert "mid-cluster-ib" in rules and "61% longer" in rules["mid-cluster-ib"]
    assert all(o.tier == "on-demand" for o in result.options)
    # For every GPU rented at 32 cards on several fabrics, IB is both faster and cheaper.
    for gpu in {o.gpu for o in result.options}:
        ib = [o for o in result.options if o.gpu == gpu and family(o.fabric) == "ib"]
        other = [o for o in result.options if o.gpu == gpu and family(o.fabric) != "ib"]
        for slow in other:
            assert min(o.seconds for o in ib) < slow.seconds
            assert min(o.cost_micro for o in ib) < slow.cost_micro


def test_above_32_cards_only_infiniband_holds_up(catalog: Catalog) -> None:
    request = PlanRequest.parse(task="pretrain", model_size="70B", tokens="50B", gpus="64")
    result = plan(request, catalog)
    assert result.best is not None and family(result.best.fabric) == "ib"
    roce = [o for o in result.options if family(o.fabric) == "roce"]
    assert roce, "the built-in cloud rents 64 cards on RoCE too"
    for option in roce:
        text = dict(option.reasons)["large-cluster-ib-only"]
        assert "x the IB time" in text
        same_gpu_ib = min(
            o.seconds for o in result.options if o.gpu == option.gpu and o.fabric.startswith("ib")
        )
        assert option.seconds > 2 * (same_gpu_ib - 600)


def test_8_cards_on_a_7b_lora_with_a_tight_budget_take_the_cheapest_not_infiniband(
    catalog: Catalog,
) -> None:
    open_request = PlanRequest.parse(task="finetune-lora", model_size="7B", tokens="1B", gpus="8")
    everything = plan(open_request, catalog)
    cheapest = min(o.cost_micro for o in everything.options)
    tight = open_request.replace(budget_micro=cheapest * 11 // 10)
    result = plan(tight, catalog)
    assert result.best is not None
    assert result.best.cost_micro == cheapest
    assert all(o.cost_micro <= tight.budget_micro for o in result.options)
    assert not any(family(o.fabric) == "ib" for o in result.options)
    ib_rejects = [r for r in result.rejected if family(r.fabric) == "ib"]
    assert ib_rejects and all("budget" in r.failed for r in ib_rejects)


def test_8_cards_across_nodes_roce_is_the_better_value(catalog: Catalog) -> None:
    request = PlanRequest.parse(
        task="finetune-lora", model_size="7B", tokens="1B", gpus="8", gpu="RTX4090"
    )
    options = plan(request, catalog).options
    order = [o.fabric for o in options]
    assert order.index("roce-100") < order.index("ib-hdr-200") < order.index("eth-25")
    assert family(order[0]) == "none"  # one 8-card node beats any cluster
    roce = next(o for o in options if o.fabric == "roce-100")
    ib = next(o for o in options if o.fabric == "ib-hdr-200")
    assert roce.seconds / ib.seconds == pytest.approx(3.5 / 3.2, rel=0.01)  # within 10%
    assert "small-jobs-roce" in dict(ib.reasons) and "small-jobs-roce" in dict(roce.reasons)
    assert "roce-pfc-ecn" in dict(roce.reasons)


def test_70b_inference_does_not_fit_one_24gb_card(catalog: Catalog) -> None:
    request = PlanRequest.parse(task="inference", model_size="70B", gpus="1")
    result = plan(request, catalog)
    assert not any(catalog.gpu(o.gpu).memory_gib <= 24 for o in result.options)
    small = [r for r in result.rejected if catalog.gpu(r.gpu).memory_gib <= 24]
    assert {r.gpu for r in small} == {"RTX4090", "A10"}
    assert all("memory" in r.failed and "GiB" in r.why for r in small)
    # The control: a 7B model does fit one 24 GB card.
    seven = plan(request.replace(params=7_000_000_000, gpu="RTX4090"), catalog)
    assert seven.best is not None and seven.best.gpus == 1


def test_nvlink_cards_on_100g_roce_are_warned(catalog: Catalog) -> None:
    request = PlanRequest.parse(
        task="finetune-full", model_size="13B", tokens="10B", gpu="A800", gpus="16"
    )
    result = plan(request, catalog)
    slow = next(o for o in result.options if o.fabric == "roce-100")
    assert "wants >= 200 Gb/s" in dict(slow.reasons)["gpu-fabric-match"]
    fast = next(o for o in result.options if o.fabric == "roce-200")
    assert fast.seconds < slow.seconds


def test_fastest_ranks_by_time_and_the_pareto_front_spans_both_ends(catalog: Catalog) -> None:
    request = PlanRequest.parse(task="finetune-full", model_size="13B", tokens="5B", gpus="8-64")
    cheap = plan(request, catalog)
    fast = plan(request.replace(fastest=True), catalog)
    assert cheap.best is not None and fast.best is not None
    assert [o.seconds for o in fast.options] == sorted(o.seconds for o in fast.options)
    assert [o.cost_micro for o in cheap.options] == sorted(o.cost_micro for o in cheap.options)
    assert fast.best.seconds < cheap.best.seconds and fast.best.cost_micro > cheap.best.cost_micro
    front = cheap.pareto_front()
    assert front[0].cost_micro == cheap.best.cost_micro
    assert front[-1].seconds == fast.best.seconds
    assert front == pareto_front(cheap.options)
    for option in cheap.options:  # everything off the front is beaten on both counts
        if option not in front:
            assert any(
                f.cost_micro <= option.cost_micro and f.seconds <= option.seconds for f in front
            )


def test_deadline_rejects_slow_options_with_the_reason(catalog: Catalog) -> None:
    request = PlanRequest.parse(
        task="finetune-full", model_size="13B", tokens="5B", gpus="8-64", deadline="24h"
    )
    result = plan(request, catalog)
    assert result.options and all(o.seconds <= 24 * 3600 for o in result.options)
    late = [r for r in result.rejected if r.failed == ("deadline",)]
    assert late and "past the 24 h deadline" in late[0].why


def test_nothing_fits_lists_the_closest_first(catalog: Catalog) -> None:
    request = PlanRequest.parse(
        task="finetune-full", model_size="13B", tokens="5B", gpus="8", budget="10"
    )
    result = plan(request, catalog)
    assert not result.options
    shortfalls = [r.shortfall for r in result.rejected]
    assert shortfalls == sorted(shortfalls)
    assert "budget" in result.rejected[0].failed and "10.00 CNY budget" in result.rejected[0].why


def test_filters_that_match_nothing_say_what_is_offered(catalog: Catalog) -> None:
    request = PlanRequest.parse(task="pretrain", model_size="70B", gpu="H100", region="xiamen")
    result = plan(request, catalog)
    assert not result.options and result.unmatched is not None
    assert "Ulanqab" in result.unmatched
    with pytest.raises(RequestError) as info:
        plan(request.replace(gpu="Z100", region=None), catalog)
    assert info.value.field == "gpu"
    with pytest.raises(RequestError) as info:
        plan(request.replace(region="Mars"), catalog)
    assert info.value.field == "region"


def test_offers_in_another_currency_are_not_mixed_with_cny(catalog: Catalog) -> None:
    usd = Offer(
        provider="acme",
        offer_id="h100",
        region="Oslo",
        gpu="H100",
        gpus_per_node=8,
        node_counts=(1,),
        fabric="none",
        price_micro=100_000,
        currency="USD",
    )
    request = PlanRequest(task=Task.FINETUNE_LORA, params=7_000_000_000, gpus_min=8, gpus_max=8)
    result = plan(request, catalog.merge([usd]))
    assert all(o.currency == "CNY" for o in result.options)
    assert any(r.failed == ("currency",) for r in result.rejected)
    in_usd = plan(request.replace(currency="USD"), catalog.merge([usd]))
    assert [o.provider for o in in_usd.options] == ["acme"]


def test_json_has_exactly_the_documented_shape(catalog: Catalog) -> None:
    request = PlanRequest.parse(task="finetune-lora", model_size="13B", gpus="8", budget="100")
    data = plan(request, catalog).to_json(max_options=3, max_rejected=3)
    assert set(data) == {"request", "options", "rejected"}
    option_keys = {
        "gpu",
        "gpus",
        "nodes",
        "gpus_per_node",
        "fabric",
        "provider",
        "region",
        "price_per_gpu_hour",
        "currency",
        "hours",
        "cost",
        "memory_per_gpu_gb",
        "utilization",
        "reasons",
    }
    rent_keys = {"offer_id", "tier", "seconds", "price_micro", "cost_micro"}
    option_keys |= rent_keys
    assert data["options"] and all(set(o) == option_keys for o in data["options"])
    assert all(set(r) == {"rule", "text"} for o in data["options"] for r in o["reasons"])
    assert data["rejected"] and all(
        set(r) == (option_keys - {"reasons"} - rent_keys) | {"why"} for r in data["rejected"]
    )
    assert all(o["cost"] <= 100 for o in data["options"])


def test_a_30_day_tier_prices_a_plan_only_where_the_provider_rents_it(catalog: Catalog) -> None:
    """A months-long run: priced on demand where the tier is only listed (the option says
    what committing would cost, as a reason), at the tier where the provider rents it."""
    listed = Offer(
        provider="acme",
        offer_id="a800-x8",
        region="Oslo",
        gpu="A800",
        gpus_per_node=8,
        node_counts=(1,),
        fabric="none",
        price_micro=3_000_000,
        currency="CNY",
        price_30d_micro=2_000_000,
    )
    rented = dataclasses.replace(listed, offer_id="a800-x8-tier", price_30d_rentable=True)
    request = PlanRequest(
        task=Task.PRETRAIN, params=7_000_000_000, tokens=300_000_000_000,
        gpus_min=8, gpus_max=8, provider="acme",
    )  # fmt: skip
    only_listed = plan(request, Catalog(catalog.gpus, [listed])).best
    assert only_listed is not None and only_listed.seconds > THIRTY_DAYS
    assert (only_listed.tier, only_listed.price_micro) == ("on-demand", 3_000_000)
    assert only_listed.cost_micro == bill(8, only_listed.seconds, 3_000_000, None).cost_micro
    reasons = dict(only_listed.reasons)
    committed = bill(8, only_listed.seconds, 2_000_000, 2_000_000).cost_micro
    assert "tier-30d" not in reasons
    assert reasons["tier-30d-not-rented"] == (
        f"acme lists a 30-day tier at 2.00 CNY per card-hour ({format_amount(committed, 'CNY')}"
        " for this run) but rents only on demand, the price shown"
    )
    figures = only_listed.reason_figures[list(reasons).index("tier-30d-not-rented")]
    zh = reason_in("zh", "tier-30d-not-rented", "", figures)
    assert "2.00 CNY" in zh and "只按需出租" in zh  # the Chinese window says it in Chinese

    both = plan(request, Catalog(catalog.gpus, [listed, rented]))
    best = both.best
    assert best is not None and best.offer_id == "a800-x8-tier"  # ranked at what it rents for
    assert (best.tier, best.price_micro, best.cost_micro) == ("30-day", 2_000_000, committed)
    assert "tier-30d" in dict(best.reasons) and "tier-30d-not-rented" not in dict(best.reasons)
    assert [o.offer_id for o in both.options] == ["a800-x8-tier", "a800-x8"]


def test_a_short_run_names_no_tier_it_would_not_save_on(catalog: Catalog) -> None:
    request = PlanRequest(task=Task.FINETUNE_LORA, params=7_000_000_000, gpu="A800")
    for option in plan(request, catalog).options:
        assert option.tier == "on-demand"
        assert "tier-30d-not-rented" not in dict(option.reasons)  # hours: on demand is cheaper
