"""Issue 32: a plan's option rented as spot. The quote states the saving and the risk, its
digest binds spot, the yes rents spot at the spot price, and a provider without spot
refuses with its reason."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.lifecycle.conftest import MakeWorld
from xyclaw.catalog import Catalog
from xyclaw.config import load_config
from xyclaw.engine import Engine
from xyclaw.engine.compose import build_engine
from xyclaw.engine.quotes import QuoteError, RentQuote
from xyclaw.paths import AppPaths
from xyclaw.planner import PlanRequest
from xyclaw.providers import ProviderRegistry
from xyclaw.providers.memory import MemoryCloud, MemoryProvider

LORA = {"task": "finetune-lora", "model_size": "13B", "gpus": "16", "gpu": "A800"}


def test_an_option_quoted_as_spot_says_the_saving_and_the_risk_and_rents_spot(
    make_world: MakeWorld,
) -> None:
    world = make_world()
    outcome = world.engine.plan(PlanRequest.parse(**LORA, budget="500"))
    option = outcome.result.options[0]
    assert option.spot_cost_micro is not None  # the plan's spot line for it
    on_demand = world.engine.quote(outcome.plan_id, 1)
    spot = world.engine.quote_spot(outcome.plan_id, 1)

    assert spot.spot and not on_demand.spot
    assert spot.offer_id == on_demand.offer_id and spot.gpu_count == on_demand.gpu_count
    assert spot.price_per_gpu_hour_micros == round(on_demand.price_per_gpu_hour_micros * 0.35)
    assert spot.on_demand_per_gpu_hour_micros == on_demand.price_per_gpu_hour_micros
    assert spot.estimated_total_micros == option.spot_cost_micro  # as the plan said
    saved = (on_demand.price_per_gpu_hour_micros - spot.price_per_gpu_hour_micros) * 16 / 1e6
    text = spot.describe()
    assert f"spot: {saved:.2f} CNY an hour less than on demand (-65%)" in text  # the saving
    assert "may take it back with a short notice, about 1 times a day" in text  # the risk
    assert "竞价实例" in spot.describe("zh")
    assert spot.digest != on_demand.digest
    # the digest binds spot: the same quote said to be on demand is not the one approved
    with pytest.raises(QuoteError, match="changed after it was made"):
        RentQuote.from_json({**spot.to_json(), "spot": None})

    cluster = world.engine.up(spot).result(60)
    assert cluster.price_per_gpu_hour_micros == spot.price_per_gpu_hour_micros
    assert cluster.external_id is not None
    assert world.provider.get(cluster.external_id).extra["spot"] is True  # type: ignore[union-attr]


@pytest.fixture
def no_spot_engine() -> Iterator[Engine]:
    registry = ProviderRegistry()
    a800 = [o for o in Catalog.builtin().offers if o.gpu == "A800" and o.region == "Xiamen"]
    registry.add(MemoryProvider(MemoryCloud(a800)))  # rents on demand only
    paths = AppPaths.from_environment()
    engine = build_engine(paths, load_config(paths.config_file), providers=registry)
    yield engine
    engine.close()


def test_a_provider_without_spot_refuses_the_spot_quote_with_its_reason(
    no_spot_engine: Engine,
) -> None:
    outcome = no_spot_engine.plan(PlanRequest.parse(**LORA), providers=["memory"])
    assert outcome.result.options[0].spot_cost_micro is None  # no spot line in the plan
    with pytest.raises(QuoteError) as refused:
        no_spot_engine.quote_spot(outcome.plan_id, 1)
    assert "memory rents no spot capacity" in refused.value.message
    assert f"option 1 of plan {outcome.plan_id} on demand" in str(refused.value.hint)
    assert no_spot_engine.quote(outcome.plan_id, 1).spot is None  # on demand still quotes
