"""Failover across a plan's options: another region at the approved price, or stop and ask."""

from __future__ import annotations

import dataclasses

import pytest

from tests.lifecycle.conftest import MakeWorld, World
from xyclaw.engine.quotes import QuoteError, RentQuote
from xyclaw.planner import PlanRequest


def _plan_a800(world: World) -> RentQuote:
    request = PlanRequest.parse(task="finetune-lora", model_size="13B", gpus="8", gpu="A800")
    outcome = world.engine.plan(request)
    regions = [o.region for o in outcome.result.options]
    assert len(set(regions)) >= 2, regions  # the same shape in more than one region
    return world.engine.quote(outcome.plan_id, 1)


def _sell_out(world: World, region: str) -> None:
    code, body = world.server.cloud.set_faults({"capacity": {region: {"A800": 0}}})
    assert code == 200, body


def test_a_sold_out_region_fails_over_to_the_next_at_the_same_price(
    make_world: MakeWorld,
) -> None:
    world = make_world()
    quote = _plan_a800(world)
    _sell_out(world, quote.region)
    cluster = world.engine.up(quote).result(120)
    assert cluster.state == "ready" and cluster.region != quote.region
    assert cluster.price_per_gpu_hour_micros == quote.price_per_gpu_hour_micros
    told = [e for e in world.engine.recent_events() if e["kind"] == "failover"]
    assert told and f"{quote.region} out of A800 -> {cluster.region}" in told[0]["message"]
    assert "same price" in told[0]["message"]
    world.engine.down(cluster.name).result(60)


def test_a_price_above_the_approved_one_stops_and_asks_with_nothing_rented(
    make_world: MakeWorld,
) -> None:
    world = make_world()
    quote = _plan_a800(world)
    _sell_out(world, quote.region)
    cloud = world.server.cloud
    cloud.offers = tuple(
        dataclasses.replace(o, price_micro=o.price_micro + 500_000)
        if o.gpu == "A800" and o.region != quote.region
        else o
        for o in cloud.offers
    )
    with pytest.raises(QuoteError, match=r"above the approved .*; asking"):
        world.engine.up(quote).result(120)
    assert not [c for c in world.engine.clusters(include_released=True) if c.state == "ready"]
    assert world.provider.clusters() == [] or all(not c.live for c in world.provider.clusters())
