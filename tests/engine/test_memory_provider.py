"""The engine over a provider that is one function: planning, quotes and refusals, no cloud."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from dataclasses import replace

import pytest

from xyclaw.catalog import Catalog
from xyclaw.config import load_config
from xyclaw.engine import Engine
from xyclaw.engine.compose import build_engine
from xyclaw.engine.lifecycle import UpRequest
from xyclaw.engine.quotes import QuoteError
from xyclaw.errors import ProviderError
from xyclaw.events import EventBus
from xyclaw.paths import AppPaths
from xyclaw.planner import PlanRequest
from xyclaw.providers import Capabilities, ClusterOrder, ProviderRegistry
from xyclaw.providers.memory import MemoryCloud, MemoryProvider, ProviderCall
from xyclaw.records import ClusterState, ClusterStore
from xyclaw.records.jobs import JobState, JobStore
from xyclaw.store import Store

A800 = [o for o in Catalog.builtin().offers if o.gpu == "A800" and o.region == "Xiamen"]


@pytest.fixture
def cloud() -> MemoryCloud:
    return MemoryCloud(A800)


@pytest.fixture
def engine(cloud: MemoryCloud) -> Iterator[Engine]:
    registry = ProviderRegistry()
    registry.add(MemoryProvider(cloud))
    paths = AppPaths.from_environment()
    eng = build_engine(paths, load_config(paths.config_file), providers=registry)
    yield eng
    eng.close()


def lora(**extra: str) -> PlanRequest:
    return PlanRequest.parse(task="finetune-lora", model_size="13B", gpus="8", **extra)


def test_a_plan_uses_the_providers_live_offers_and_is_saved(
    engine: Engine, cloud: MemoryCloud
) -> None:
    outcome = engine.plan(lora(), providers=["memory"])
    assert outcome.offers_source == "live" and not outcome.notes
    assert {o.provider for o in outcome.result.options} == {"memory"}
    assert engine.saved_plan(outcome.plan_id)["result"]["options"][0]["provider"] == "memory"
    assert ProviderCall("offers") in cloud.calls


def test_a_provider_that_does_not_answer_is_planned_from_the_catalog_and_says_so(
    engine: Engine,
) -> None:
    def down(call: ProviderCall) -> object:
        raise ProviderError("the memory cloud is down", hint="try later")

    engine_registry_provider = MemoryProvider(down, name="sim")
    registry = ProviderRegistry()
    registry.add(engine_registry_provider)
    paths = AppPaths.from_environment()
    offline = build_engine(paths, load_config(paths.config_file), providers=registry)
    try:
        outcome = offline.plan(lora(), providers=["sim"])
    finally:
        offline.close()
    assert outcome.offers_source == "catalog"
    assert "could not be reached" in outcome.notes[0] and "built-in catalog" in outcome.notes[0]
    assert outcome.result.options  # still a plan, from the built-in offers


def test_a_quote_is_refused_once_the_offer_is_gone(engine: Engine, cloud: MemoryCloud) -> None:
    quote = engine.quote(engine.plan(lora(), providers=["memory"]).plan_id, 1)
    cloud.offers = [o for o in cloud.offers if o.offer_id != quote.offer_id]
    with pytest.raises(QuoteError, match="no longer offers"):
        engine.up(quote)
    assert not [c for c in cloud.calls if c.op == "create"]


def test_a_quote_of_a_sold_out_offer_is_refused(engine: Engine, cloud: MemoryCloud) -> None:
    quote = engine.quote(engine.plan(lora(), providers=["memory"]).plan_id, 1)
    cloud.offers = [
        replace(o, available_gpus=4) if o.offer_id == quote.offer_id else o for o in cloud.offers
    ]
    with pytest.raises(QuoteError, match="only 4 A800 are free"):
        engine.up(quote)
    assert engine.clusters(include_released=True) == []


def test_multi_node_from_a_single_node_provider_is_refused_with_the_reason(
    cloud: MemoryCloud,
) -> None:
    registry = ProviderRegistry()
    registry.add(MemoryProvider(cloud, capabilities=Capabilities(rents=True, multi_node=False)))
    paths = AppPaths.from_environment()
    eng = build_engine(paths, load_config(paths.config_file), providers=registry)
    try:
        with pytest.raises(QuoteError, match="cannot rent a multi-node cluster"):
            eng.quote_request(
                UpRequest(provider="memory", gpu="A800", gpu_count=16, region="Xiamen")
            )
    finally:
        eng.close()
    assert not [c for c in cloud.calls if c.op == "create"]


def test_a_provider_that_hangs_is_reported_unreachable_and_the_others_are_still_checked(
    cloud: MemoryCloud,
) -> None:
    """`xyclaw clusters` reconciles first: a provider that never answers must not hold it."""
    release = threading.Event()

    def hung(call: ProviderCall) -> object:
        release.wait(60)  # a cloud whose API accepts the connection and never answers
        return []

    order = ClusterOrder(
        gpu="A800", gpu_count=8, region=None, fabric=None, ssh_public_key="", idempotency_key="x"
    )
    cloud(ProviderCall("create", {"order": order}))  # not in the store: an orphan
    registry = ProviderRegistry()
    registry.add(MemoryProvider(cloud))
    registry.add(MemoryProvider(hung, name="stuck"))
    paths = AppPaths.from_environment()
    config = load_config(
        paths.config_file,
        environ={
            "XYCLAW_RECONCILE_PROVIDER_TIMEOUT_S": "0.5",
            "XYCLAW_RECONCILE_ORPHAN_POLICY": "alert-only",
        },
    )
    engine = build_engine(paths, config, providers=registry)
    try:
        started = time.monotonic()
        report = engine.reconcile()
        waited = time.monotonic() - started
    finally:
        release.set()
        engine.close()
    assert report.unreachable == ["stuck"]
    assert any(e.startswith("stuck: it did not answer within 0.5 s") for e in report.errors)
    assert report.orphans_reported == ["mem-1"]  # the provider that answered was checked
    assert waited < 30  # bounded by the timeout, not by the hung call (60 s)


def test_a_cluster_found_gone_stops_its_jobs_though_no_job_ran_in_this_process(
    cloud: MemoryCloud,
) -> None:
    """The job runtime is built on first use; `xyclaw clusters` finding a cluster gone from
    its provider (and the user's yes to forget it) must still stop the jobs recorded on it
    (as the runtime would)."""
    paths = AppPaths.from_environment()
    paths.ensure()
    with Store(paths.database) as store:  # what an earlier process left in the history
        clusters = ClusterStore(store, EventBus())
        clusters.ensure_provider("memory", "memory")
        cluster_id = clusters.add_intent(
            {"provider_id": "memory", "name": "c1", "gpu": "A800", "gpu_count": 8,
             "gpus_per_node": 8, "fabric": "none", "region": "Xiamen", "currency": "CNY",
             "price_per_gpu_hour_micros": 3_500_000}
        )  # fmt: skip
        clusters.update(cluster_id, state=ClusterState.READY, external_id="mem-gone")
        job_id = JobStore(store, EventBus()).add(
            name="train", kind="train", spec_json="{}", cluster_id=cluster_id,
            rented_cluster=False, state=JobState.RUNNING,
        )  # fmt: skip
    registry = ProviderRegistry()
    registry.add(MemoryProvider(cloud))  # it has no such cluster any more
    engine = build_engine(paths, load_config(paths.config_file), providers=registry)
    try:
        report = engine.reconcile()  # not listed: asked, never forgotten on that alone
        assert report.gone == [] and report.unlisted == ["c1"]
        assert engine.job(str(job_id)).state is JobState.RUNNING
        engine.forget(engine.action("forget", "c1", asked_by="user"))  # the user's yes
        job = engine.job(str(job_id))
    finally:
        engine.close()
    assert job.state is JobState.CANCELLED
    assert "its cluster c1 is gone" in (job.error or job.cause or "")
