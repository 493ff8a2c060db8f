"""The memory of hosts and providers, read back by the planner (issue 36).

A prepared history (tests/support/track_history.py) is written into the data folder's real
SQLite file; the engine opens it, plans over a provider that is one function plus another
provider's offers, and ranks what the history says failed or over-billed down, each with
its reason. Without the memory the ranking is the plain planner's.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import pytest

from tests.support.track_history import OLD_GPU_UUID, write_history
from xyclaw.catalog import Catalog
from xyclaw.config import load_config
from xyclaw.engine import Engine
from xyclaw.engine.compose import build_engine
from xyclaw.paths import AppPaths
from xyclaw.planner import PlanRequest, plan
from xyclaw.planner.report import worded_reasons
from xyclaw.planner.track_record import RANK_DOWN_RULES
from xyclaw.providers import ProviderRegistry
from xyclaw.providers.memory import MemoryCloud, MemoryProvider

BUILTIN = Catalog.builtin()
A800 = [o for o in BUILTIN.offers if o.gpu == "A800" and o.region == "Xiamen"]
# drifty rents the same shapes 0.10 CNY cheaper per card-hour: the plain ranking puts it first
DRIFTY = [replace(o, provider="drifty", price_micro=o.price_micro - 100_000) for o in A800]


@pytest.fixture
def engine() -> Iterator[Engine]:
    paths = AppPaths.from_environment()
    paths.database.parent.mkdir(parents=True, exist_ok=True)
    write_history(paths.database)
    registry = ProviderRegistry()
    registry.add(MemoryProvider(MemoryCloud(A800)))
    eng = build_engine(paths, load_config(paths.config_file), providers=registry)
    yield eng
    eng.close()


def request() -> PlanRequest:
    return PlanRequest.parse(task="finetune-lora", model_size="13B", gpus="16")


def shapes(options: object) -> list[tuple[str, str]]:
    return [(o.provider, o.fabric) for o in options]  # type: ignore[attr-defined]


def test_a_node_class_that_failed_twice_and_a_provider_that_drifted_are_ranked_down_with_why(
    engine: Engine,
) -> None:
    plain = plan(
        request(), BUILTIN.merge(DRIFTY).merge([replace(o, provider="memory") for o in A800])
    )
    outcome = engine.plan(request(), providers=["memory"], extra_offers=DRIFTY)
    options = list(outcome.result.options)
    # the plain ranking: drifty first (cheapest), then memory's RoCE, then the IB shapes
    plain_order = [s for s in shapes(plain.options) if s[0] in ("memory", "drifty")]
    assert plain_order[0] == ("drifty", "roce-200")
    assert shapes(options) != plain_order
    # with the memory: the one clean class leads; the rest keep their plain order behind it
    assert shapes(options)[0] == ("memory", "ib-hdr-200")
    downs = [o for o in options if any(rule in RANK_DOWN_RULES for rule, _ in o.reasons)]
    assert shapes(downs) == [s for s in plain_order if s != ("memory", "ib-hdr-200")]
    roce = next(o for o in options if (o.provider, o.fabric) == ("memory", "roce-200"))
    rule, text = roce.reasons[0]
    assert rule == "memory-node-class"
    assert "failed on 2 of 2 rentals" in text and "61%" in text and "failed to come up" in text
    drifted = next(o for o in options if o.provider == "drifty")
    assert drifted.reasons[0][0] == "memory-price-drift" and "12%" in drifted.reasons[0][1]
    # the XID of sixty days ago is outside the window: memory's IB nodes carry no word
    ib = options[0]
    assert not any(rule.startswith("memory-") for rule, _ in ib.reasons)
    # the plan says what the history did, and each reason has its Chinese words
    assert any("ranked 3 option(s) down" in note for note in outcome.notes)
    zh = dict(worded_reasons(roce, "zh"))
    assert "61%" in zh["memory-node-class"] and "已排后" in zh["memory-node-class"]
    assert engine.saved_plan(outcome.plan_id)["result"]["memory"] is True


def test_with_the_memory_turned_off_the_ranking_is_todays(engine: Engine) -> None:
    outcome = engine.plan(request(), providers=["memory"], extra_offers=DRIFTY, use_memory=False)
    catalog = Catalog(BUILTIN.gpus, [*DRIFTY, *(replace(o, provider="memory") for o in A800)])
    plain = plan(request(), catalog)
    assert [o.key for o in outcome.result.options] == [o.key for o in plain.options]
    assert [o.reasons for o in outcome.result.options] == [o.reasons for o in plain.options]
    assert not outcome.notes
    assert engine.saved_plan(outcome.plan_id)["result"]["memory"] is False


def test_the_memory_says_per_provider_region_node_class_and_host_what_happened(
    engine: Engine,
) -> None:
    memory = engine.track_record()
    by_provider = {s.key: s for s in memory.standings("provider")}
    assert by_provider["memory"].rentals == 4 and by_provider["drifty"].rentals == 1
    assert by_provider["memory"].counts["failed_rentals"] == 3  # 2 RoCE + the old XID
    assert by_provider["memory"].worst_busbw_ratio == pytest.approx(0.61)
    assert by_provider["drifty"].worst_price_drift == pytest.approx(0.12)
    assert by_provider["memory"].median_ready_s == pytest.approx(300)
    classes = {s.key: s for s in memory.standings("node_class")}
    assert classes["memory / Xiamen / A800 / roce-200"].counts["failed_rentals"] == 2
    hosts = {s.key: s for s in engine.track_record(host="ib-old-node1").standings("host")}
    assert hosts["ib-old-node1"].counts == {"xid": 1, "failed_rentals": 1}
    # the provider's machine id finds the same host
    by_machine = engine.track_record(host="machine-ib-old-1")
    assert [s.key for s in by_machine.standings("host")] == ["ib-old-node1"]
    assert [m.kind for m in by_machine.marks] == ["xid"]
    assert by_machine.rentals[0].machines == ("machine-ib-old-1",)
    xid = [m for m in engine.track_record(provider="MEMORY").marks if m.kind == "xid"]
    assert [(m.host, m.figure, m.gpu_uuid) for m in xid] == [("ib-old-node1", 79.0, OLD_GPU_UUID)]
    # the GPU's UUID finds the host its fault was seen on, and that host's history alone
    by_gpu = engine.track_record(host=OLD_GPU_UUID.lower())
    assert [s.key for s in by_gpu.standings("host")] == ["ib-old-node1"]
    assert [(m.kind, m.gpu_uuid) for m in by_gpu.marks] == [("xid", OLD_GPU_UUID)]
    assert engine.track_record(host="GPU-00000000-0000-0000-0000-000000000000").rentals == ()
    assert engine.track_record(days=30).filtered(provider="memory").standings()[0].rentals == 3


def test_a_provider_billing_over_its_quote_is_remembered_and_ranked_down() -> None:
    """From the provider's ledger to the ranking: a rental released an hour ago, metered at
    its quoted price; the provider's ledger says 12% more. Reading the bill (as `xyclaw
    billing` does) keeps that, and the next plan ranks the provider down and says why."""
    import time

    from xyclaw.events import EventBus
    from xyclaw.providers import Capabilities
    from xyclaw.providers.base import LedgerEntry
    from xyclaw.providers.memory import ProviderCall
    from xyclaw.records import ClusterState, ClusterStore
    from xyclaw.store import Store
    from xyclaw.store.charges import ChargeTable

    paths = AppPaths.from_environment()
    paths.ensure()
    start = time.time() - 7200
    with Store(paths.database) as store:
        clusters = ClusterStore(store, EventBus(), lambda: start)
        clusters.ensure_provider("memory", "memory")
        cid = clusters.add_intent(
            {"provider_id": "memory", "name": "c1", "gpu": "A800", "gpu_count": 8,
             "gpus_per_node": 8, "fabric": "none", "region": "Xiamen", "currency": "CNY",
             "price_per_gpu_hour_micros": 3_500_000}
        )  # fmt: skip
        clusters.update(
            cid, state=ClusterState.RELEASED, external_id="mem-c1", ready_at=start + 60,
            released_at=start + 3660,
        )  # fmt: skip
        ChargeTable(store).charge_meter(cid, start + 60, 28_000_000, start + 3660, "CNY")

    cloud = MemoryCloud(A800)

    def handler(call: ProviderCall) -> object:
        if call.op == "billing":  # the provider's own bill: 3,600 s, 12% over the quote
            return [LedgerEntry("mem-c1", None, start + 60, start + 3660, 3600, 31_360_000, "CNY")]
        return cloud(call)

    registry = ProviderRegistry()
    capabilities = Capabilities(rents=True, multi_node=True, billing_ledger=True)
    registry.add(MemoryProvider(handler, capabilities=capabilities))
    eng = build_engine(paths, load_config(paths.config_file), providers=registry)
    try:
        before = eng.plan(request(), providers=["memory"])
        assert not any(r.startswith("memory-") for o in before.result.options for r, _ in o.reasons)
        (bill,) = eng.billing().clusters
        assert (bill.meter_micros, bill.provider_ledger_micros) == (28_000_000, 31_360_000)
        (drift,) = [m for m in eng.track_record().marks if m.kind == "price_drift"]
        assert drift.figure == pytest.approx(0.12)
        after = eng.plan(request(), providers=["memory"])
        rule, text = after.result.options[0].reasons[0]
        assert rule == "memory-price-drift" and "up to 12% over the quoted price" in text
    finally:
        eng.close()
