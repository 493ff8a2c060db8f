"""One price from plan to yes: for every option of 20 plans across GPU models and fabrics, on
the simulated cloud over HTTP, the quote (what the approval card shows) asks for the plan's
price per GPU-hour and total, or the card says how much and why it differs. The plan's
figures are inside the quote's digest, and a run longer than the horizon says so on the plan
and on the card."""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace

import pytest

from tests.lifecycle.conftest import MakeWorld
from xyclaw.catalog import format_amount
from xyclaw.engine.quotes import QuoteError, RentQuote
from xyclaw.planner import PlanRequest
from xyclaw.planner.request import Task

B = 1_000_000_000
REQUESTS = [
    # (task, params, tokens, gpu, fabric, gpus_min, gpus_max)
    (Task.FINETUNE_LORA, 7 * B, 200_000_000, "A800", None, 1, 8),
    (Task.FINETUNE_LORA, 7 * B, 200_000_000, "RTX4090", None, 1, 8),
    (Task.FINETUNE_LORA, 13 * B, 500_000_000, "L40S", None, 1, 8),
    (Task.FINETUNE_LORA, 7 * B, 100_000_000, "A10", None, 1, 4),
    (Task.FINETUNE_FULL, 7 * B, 2 * B, "A800", "ib-hdr-200", 16, 32),
    (Task.FINETUNE_FULL, 7 * B, 2 * B, "A800", "roce-200", 16, 64),
    (Task.FINETUNE_FULL, 13 * B, 5 * B, "A100-80G", None, 8, 32),
    (Task.FINETUNE_FULL, 13 * B, 5 * B, "H800", "ib-hdr-200", 16, 32),
    (Task.PRETRAIN, 1 * B, 50 * B, "RTX4090", "roce-100", 8, 32),
    (Task.PRETRAIN, 1 * B, 50 * B, "RTX4090", "eth-25", 8, 16),
    (Task.PRETRAIN, 7 * B, 300 * B, "A800", None, 16, 64),
    (Task.PRETRAIN, 70 * B, 1400 * B, "H100", "ib-ndr-400", 64, 64),  # months: 30-day tier
    (Task.PRETRAIN, 70 * B, 1400 * B, "H800", None, 64, 128),
    (Task.PRETRAIN, 13 * B, 260 * B, "A100-80G", "roce-200", 16, 32),
    (Task.PRETRAIN, 13 * B, 260 * B, "A100-80G", "ib-hdr-200", 16, 32),
    (Task.PRETRAIN, 7 * B, 140 * B, "H100", None, 8, 64),
    (Task.FINETUNE_FULL, 70 * B, 10 * B, "H100", "ib-ndr-400", 32, 64),
    (Task.FINETUNE_LORA, 70 * B, 1 * B, "A800", None, 8, 16),
    (Task.PRETRAIN, 3 * B, 60 * B, "A10", "roce-100", 8, 16),
    (Task.FINETUNE_FULL, 7 * B, 1 * B, "H20", None, 8, 8),
]


def _card_rows(quote: RentQuote) -> list[tuple[str, str]]:
    """The approval card's rows for this quote, as the window shows them."""
    from xyclaw.gui.chat.approval import approval_facts

    request = SimpleNamespace(details={"quote": quote.to_json()}, effect="spend", args={})
    return approval_facts(request)


def test_every_option_of_20_plans_is_quoted_at_the_plans_own_price(
    make_world: MakeWorld,
) -> None:
    """The plan prices each option at what the provider rents it at (on demand: the sim
    cloud rents no 30-day tier), so the card asks for exactly the plan's figures and says
    nothing about a difference; a listed tier that would be cheaper is a reason, not a price."""
    world = make_world()
    engine = world.engine
    listed = {o.offer_id: o for o in world.provider.offers()}
    options = over_horizon = tier_reasons = 0
    gpus = set()
    fabrics = set()
    for task, params, tokens, gpu, fabric, low, high in REQUESTS:
        request = PlanRequest(
            task=task, params=params, tokens=tokens, gpu=gpu, fabric=fabric,
            gpus_min=low, gpus_max=high,
        )  # fmt: skip
        outcome = engine.plan(request)
        assert outcome.result.options, f"no option for {gpu} {fabric}"
        for number, option in enumerate(outcome.result.options, start=1):
            options += 1
            gpus.add(option.gpu)
            fabrics.add(option.fabric)
            offer = listed[option.offer_id]
            assert option.tier == "on-demand" and option.price_micro == offer.price_micro
            quote = engine.quote(outcome.plan_id, number)
            assert quote.offer_id == option.offer_id and quote.gpu_count == option.gpus
            assert quote.price_per_gpu_hour_micros == option.price_micro
            assert quote.estimated_total_micros == option.cost_micro
            assert not quote.differs_from_plan
            card = quote.describe("en")
            rows = dict(_card_rows(quote))
            assert "What changes" not in rows
            assert "tier" not in card and "moved" not in card, card
            assert format_amount(option.price_micro, option.currency) in card
            assert format_amount(option.cost_micro, option.currency) in card
            reasons = dict(option.reasons)
            if "tier-30d-not-rented" in reasons:  # said as what a commitment would cost
                tier_reasons += 1
                assert offer.price_30d_micro is not None
                tier_price = format_amount(offer.price_30d_micro, option.currency)
                assert tier_price in reasons["tier-30d-not-rented"]
                assert "rents only on demand" in reasons["tier-30d-not-rented"]
            if option.seconds > 30 * 86400:
                over_horizon += 1
                assert "tier-30d-not-rented" in reasons  # months on demand: the tier is cheaper
                assert "longer than the 30-day horizon" in card
                assert "longer than the 30-day horizon" in rows["Means"]
            else:
                assert "horizon" not in card and "Means" not in rows
        if any(o.seconds > 30 * 86400 for o in outcome.result.options):
            assert any("30-day horizon" in note for note in outcome.notes)
    assert options >= 40 and len(gpus) >= 7 and len(fabrics) >= 5
    assert over_horizon > 0 and tier_reasons > 0  # the long runs were seen, not only short ones


def test_the_plans_price_is_inside_the_digest_and_a_moved_price_is_named(
    make_world: MakeWorld,
) -> None:
    world = make_world()
    engine = world.engine
    live = next(o for o in world.provider.offers() if o.offer_id == "xm-a800-x8")
    # a plan made when the offer cost 3.00 per card-hour (the live price is 3.50)
    older = dataclasses.replace(live, price_micro=3_000_000, price_30d_micro=None)
    request = PlanRequest(task=Task.FINETUNE_LORA, params=7 * B, tokens=200_000_000, gpu="A800")
    outcome = engine.plan(request, providers=(), extra_offers=[older])
    option = outcome.result.options[0]
    assert option.offer_id == "xm-a800-x8" and option.price_micro == 3_000_000

    quote = engine.quote(outcome.plan_id, 1)

    assert quote.price_per_gpu_hour_micros == live.price_micro  # what the provider bills
    assert quote.plan_price_per_gpu_hour_micros == 3_000_000
    card = quote.describe("en")
    assert "the live price moved since the plan: 3.00 CNY -> 3.50 CNY" in card
    assert "+0.50 CNY, +16.7%" in card
    # a card cannot be approved under a plan it differs from: the plan's figures are digested
    for changed in (
        {"plan_price_per_gpu_hour_micros": live.price_micro},
        {"plan_total_micros": quote.estimated_total_micros},
        {"plan_tier": "30-day"},
    ):
        forged = dataclasses.replace(quote, **changed)  # the digest is kept as it was
        with pytest.raises(QuoteError):
            forged.verify_digest()
    again = RentQuote.from_json(quote.to_json())
    assert again == quote and again.notes() == quote.notes()


def test_up_refuses_a_quote_whose_plan_figures_are_not_the_plans(make_world: MakeWorld) -> None:
    world = make_world()
    engine = world.engine
    request = PlanRequest(task=Task.FINETUNE_LORA, params=7 * B, tokens=200_000_000, gpu="A800")
    outcome = engine.plan(request)
    quote = engine.quote(outcome.plan_id, 1)
    # a quote made again with other plan figures (a valid digest over them): not the plan's
    other = quote.with_changes(plan_price_per_gpu_hour_micros=quote.price_per_gpu_hour_micros - 1)
    other.verify_digest()

    with pytest.raises(QuoteError, match=f"plan {outcome.plan_id} option 1 showed"):
        engine.up(other)

    assert world.provider.clusters() == []  # nothing rented
    cluster = engine.up(quote).result(60)  # the plan's own quote rents
    assert cluster.price_per_gpu_hour_micros == quote.price_per_gpu_hour_micros


def test_a_plan_priced_at_a_tier_the_live_provider_does_not_rent_is_named_on_the_card(
    make_world: MakeWorld,
) -> None:
    """An offer that claimed a rentable 30-day tier (a stale catalog row, an older plan):
    the plan used it, the provider rents on demand, and the card says so with both prices."""
    world = make_world()
    engine = world.engine
    live = next(o for o in world.provider.offers() if o.offer_id == "xm-a800-x8")
    assert live.price_30d_micro is not None and not live.price_30d_rentable
    claimed = dataclasses.replace(live, price_30d_rentable=True)
    request = PlanRequest(
        task=Task.PRETRAIN, params=7 * B, tokens=300 * B, gpu="A800", gpus_min=8, gpus_max=8
    )
    outcome = engine.plan(request, providers=(), extra_offers=[claimed])
    ids = [o.offer_id for o in outcome.result.options]
    number = ids.index("xm-a800-x8") + 1
    option = outcome.result.options[number - 1]
    assert option.tier == "30-day" and option.price_micro == live.price_30d_micro

    quote = engine.quote(outcome.plan_id, number)

    assert quote.price_per_gpu_hour_micros == live.price_micro and quote.differs_from_plan
    card = quote.describe("en")
    assert "30-day tier" in card
    assert format_amount(live.price_30d_micro, live.currency) in card
    assert format_amount(live.price_micro, live.currency) in card
