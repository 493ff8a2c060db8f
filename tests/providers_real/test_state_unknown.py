"""Never billing unseen: a Vast.ai listing XyClaw cannot trust keeps the cluster live.

SkyPilot #10517: Vast's deprecated listing hid clusters that went on billing. Here the
real engine (real SQLite history, real reconciler and meter) reconciles against the fake
Vast on loopback while its listing answers 410, ``success: false``, a renamed field or a
missing page: the cluster stays ready and metered, one warning says why, and only a
readable answer that the instance is gone, and then the user's yes, marks it gone.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.providers_real.conftest import FAST
from tests.providers_real.fake_runpod import KEY as RUNPOD_KEY
from tests.providers_real.fake_runpod import FakeRunPod
from tests.providers_real.fake_vast import KEY, FakeVast
from tests.providers_real.fakehttp import FakeServer
from xyclaw.config import load_config
from xyclaw.engine import Engine
from xyclaw.engine.compose import build_engine
from xyclaw.events import EventBus
from xyclaw.paths import AppPaths
from xyclaw.providers import ProviderRegistry
from xyclaw.providers.runpod import RunPodProvider
from xyclaw.providers.vastai import VastProvider
from xyclaw.records import ClusterState, ClusterStore
from xyclaw.store import Store
from xyclaw.store.event_log import said_of


@pytest.fixture
def vast() -> Iterator[tuple[FakeVast, str]]:
    fake = FakeVast()
    server = FakeServer(fake).start()
    yield fake, server.url
    server.stop()


def ready_cluster(paths: AppPaths, external_id: str, label: str, provider: str = "vastai") -> int:
    """What an earlier process left in the history: a ready cluster at ``provider``."""
    paths.ensure()
    with Store(paths.database) as store:
        clusters = ClusterStore(store, EventBus())
        clusters.ensure_provider(provider, provider)
        cluster_id = clusters.add_intent(
            {"provider_id": provider, "name": "c1", "gpu": "H100", "gpu_count": 1,
             "gpus_per_node": 1, "fabric": "none", "region": "US", "currency": "USD",
             "price_per_gpu_hour_micros": 1_950_000, "idempotency_key": label}
        )  # fmt: skip
        clusters.update(
            cluster_id, state=ClusterState.READY, external_id=external_id, last_seen_at=time.time()
        )
    return cluster_id


def engine_over(url: str, tmp_path: Path) -> Engine:
    paths = AppPaths.from_environment()
    registry = ProviderRegistry()
    registry.add(VastProvider(KEY, base_url=url, retry=FAST, timeout_s=5.0))
    config = load_config(
        paths.config_file, environ={"XYCLAW_RECONCILE_ORPHAN_POLICY": "alert-only"}
    )
    return build_engine(paths, config, providers=registry)


@pytest.mark.parametrize("mode", ["410", "success-false", "renamed", "page-missing"])
def test_an_untrusted_listing_keeps_the_cluster_live_and_warns_once(
    vast: tuple[FakeVast, str], tmp_path: Path, mode: str
) -> None:
    fake, url = vast
    with fake.lock:
        instance_id = fake._rent(fake.offers[0], "xyclaw-c1-key", "img", [])
        for n in range(30):  # a second page, so a missing one can be noticed
            fake._rent(fake.offers[2], f"xyclaw-other{n}-k", "img", [])
    ready_cluster(AppPaths.from_environment(), str(instance_id), "xyclaw-c1-key")
    fake.listing_mode = mode
    engine = engine_over(url, tmp_path)
    try:
        first = engine.reconcile()
        second = engine.reconcile()
        cluster = engine.cluster("c1")
        warnings = [
            e for e in engine.recent_events() if "state is unknown" in str(e.get("message"))
        ]
        assert first.state_unknown == ["vastai"] and second.state_unknown == ["vastai"]
        assert first.gone == [] and second.gone == [] and not first.orphans_reported
        assert cluster.state == ClusterState.READY
        assert len(warnings) == 1  # once, not every minute
        assert "1 cluster(s) stay live and metered" in warnings[0]["message"]
        said = said_of(warnings[0])
        assert said is not None and said.key == "op.state_unknown"
        assert len(fake.billing()) == 31  # nothing released on a guess
        # The listing reads again and lacks the destroyed instance: still not gone on that
        # alone, the user is asked (tests/providers_real/test_unlisted.py), and only a yes
        # forgets it.
        fake.listing_mode = ""
        with fake.lock:
            fake.instances[instance_id].destroyed = time.time()
        third = engine.reconcile()
        assert third.state_unknown == [] and third.gone == [] and third.unlisted == ["c1"]
        engine.forget(engine.action("forget", "c1", asked_by="user"))
        assert engine.cluster("c1").state == ClusterState.GONE
    finally:
        engine.close()


@pytest.mark.parametrize("mode", ["410", "success-false", "renamed", "shape"])
def test_an_untrusted_pod_listing_never_reads_as_terminated(tmp_path: Path, mode: str) -> None:
    """dstack #1551: a RunPod pod marked terminated while it went on billing."""
    fake = FakeRunPod()
    server = FakeServer(fake).start()
    pod = fake.add_pod("xyclaw-c1-key")
    ready_cluster(AppPaths.from_environment(), pod, "xyclaw-c1-key", provider="runpod")
    fake.listing_mode = mode
    paths = AppPaths.from_environment()
    registry = ProviderRegistry()
    registry.add(
        RunPodProvider(
            RUNPOD_KEY,
            rest_url=f"{server.url}/v1",
            graphql_url=f"{server.url}/graphql",
            retry=FAST,
            timeout_s=5.0,
        )
    )
    engine = build_engine(paths, load_config(paths.config_file), providers=registry)
    try:
        report = engine.reconcile()
        assert report.state_unknown == ["runpod"] and report.gone == []
        assert engine.cluster("c1").state == ClusterState.READY
        assert [p.name for p in fake.billing()] == ["xyclaw-c1-key"]
        fake.listing_mode = ""
        assert engine.reconcile().state_unknown == []
        assert engine.cluster("c1").state == ClusterState.READY  # seen again, still live
    finally:
        engine.close()
        server.stop()


def test_the_meter_goes_on_counting_while_the_state_is_unknown(
    vast: tuple[FakeVast, str],
) -> None:
    from tests.simcloud.helpers import FakeClock

    fake, url = vast
    with fake.lock:
        instance_id = fake._rent(fake.offers[0], "xyclaw-c1-key", "img", [])
    cluster_id = ready_cluster(AppPaths.from_environment(), str(instance_id), "xyclaw-c1-key")
    clock = FakeClock(start=time.time())
    paths = AppPaths.from_environment()
    registry = ProviderRegistry()
    registry.add(VastProvider(KEY, base_url=url, retry=FAST, timeout_s=5.0))
    engine = build_engine(paths, load_config(paths.config_file), providers=registry, clock=clock)
    try:
        assert engine.reconcile().gone == []  # a readable listing: the nodes are recorded
        engine.charge_meters()
        before = engine.meter_charges(cluster_id)
        fake.listing_mode = "410"
        for _ in range(6):  # an hour of the listing answering 410, reconciled every 10 min
            clock.advance(600)
            assert engine.reconcile().state_unknown == ["vastai"]
            engine.charge_meters()
        charged = engine.meter_charges(cluster_id) - before
        assert abs(charged - 1_950_000) <= 1_950_000 * 0.01, charged  # 1 x H100 for an hour
        assert engine.cluster("c1").state == ClusterState.READY
    finally:
        engine.close()
