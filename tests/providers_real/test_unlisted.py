"""Ask before forgetting: a cluster a readable listing no longer shows is never dropped.

SkyPilot #10517 (Vast's listing hid clusters that went on billing) and dstack #1551 (a
RunPod pod marked terminated while it billed). Here the fake Vast and the fake RunPod on
loopback leave a billing instance out of a listing that otherwise reads well; the real
engine (real SQLite history, reconciler and meter) must warn and ask ("forget it?"), keep
metering the cluster until the answer, withdraw the question when the instance is listed
again, and forget it only on the user's bound yes.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from tests.providers_real.conftest import FAST
from tests.providers_real.fake_runpod import KEY as RUNPOD_KEY
from tests.providers_real.fake_runpod import FakeRunPod
from tests.providers_real.fake_vast import KEY, FakeVast
from tests.providers_real.fakehttp import FakeServer
from tests.providers_real.test_state_unknown import ready_cluster
from tests.simcloud.helpers import FakeClock
from xyclaw.config import load_config
from xyclaw.engine import Engine
from xyclaw.engine.approvals import ApprovalMismatch
from xyclaw.engine.compose import build_engine
from xyclaw.errors import UsageError
from xyclaw.paths import AppPaths
from xyclaw.providers import ProviderRegistry
from xyclaw.providers.runpod import RunPodProvider
from xyclaw.providers.vastai import VastProvider
from xyclaw.records import ClusterState
from xyclaw.store.event_log import said_of

H100_MICROS = 1_950_000  # ready_cluster's price: 1 x H100 at 1.95 USD/h


@pytest.fixture
def vast() -> Iterator[tuple[FakeVast, str]]:
    fake = FakeVast()
    server = FakeServer(fake).start()
    yield fake, server.url
    server.stop()


def vast_engine(url: str, clock: FakeClock) -> Engine:
    paths = AppPaths.from_environment()
    registry = ProviderRegistry()
    registry.add(VastProvider(KEY, base_url=url, retry=FAST, timeout_s=5.0))
    return build_engine(paths, load_config(paths.config_file), providers=registry, clock=clock)


def events_with(engine: Engine, key: str) -> list[dict[str, object]]:
    out = []
    for event in engine.recent_events(200):
        said = said_of(event)
        if said is not None and said.key == key:
            out.append(event)
    return out


def test_a_vast_instance_left_out_of_the_listing_is_asked_about_and_metered_until_the_yes(
    vast: tuple[FakeVast, str],
) -> None:
    fake, url = vast
    with fake.lock:
        instance_id = fake._rent(fake.offers[0], "xyclaw-c1-key", "img", [])
    cluster_id = ready_cluster(AppPaths.from_environment(), str(instance_id), "xyclaw-c1-key")
    clock = FakeClock(start=time.time())
    engine = vast_engine(url, clock)
    try:
        assert engine.reconcile().unlisted == []  # listed: the nodes are recorded
        engine.charge_meters()
        before = engine.meter_charges(cluster_id)

        fake.hidden.add(instance_id)  # Vast forgets it in its listing; it goes on billing
        for _ in range(6):  # an hour, reconciled every 10 minutes
            clock.advance(600)
            report = engine.reconcile()
            assert report.gone == [] and report.unlisted == ["c1"] and not report.state_unknown
            engine.charge_meters()
        assert engine.cluster("c1").state == ClusterState.READY
        charged = engine.meter_charges(cluster_id) - before
        assert abs(charged - H100_MICROS) <= H100_MICROS * 0.01, charged  # still counting
        asked = events_with(engine, "op.unlisted")
        assert len(asked) == 1  # asked once, not every pass
        assert f"no longer lists {instance_id} (cluster c1)" in str(asked[0]["message"])
        assert "forget it? check vastai's console first" in str(asked[0]["message"]).lower()
        assert '"action": "xyclaw forget c1"' in str(asked[0]["data_json"])
        assert [c.name for c in engine.unlisted_clusters()] == ["c1"]

        card = engine.action("forget", "c1", asked_by="user")
        assert card.ids("cluster") == [cluster_id]
        assert card.price["per_hour_micros"] == H100_MICROS
        forgotten = engine.forget(card)
        assert forgotten.state == ClusterState.GONE
        assert all(n.terminated_at is not None for n in forgotten.nodes)
        after_yes = engine.meter_charges(cluster_id)
        clock.advance(3600)
        engine.charge_meters()
        assert engine.meter_charges(cluster_id) == after_yes  # the meter stopped at the yes
        assert engine.unlisted_clusters() == []
        assert len(fake.billing()) == 1  # forgetting destroys nothing at the provider
        assert len(events_with(engine, "op.forgotten")) == 1
    finally:
        engine.close()


def test_the_question_is_withdrawn_when_the_instance_is_listed_again(
    vast: tuple[FakeVast, str],
) -> None:
    fake, url = vast
    with fake.lock:
        instance_id = fake._rent(fake.offers[0], "xyclaw-c1-key", "img", [])
    ready_cluster(AppPaths.from_environment(), str(instance_id), "xyclaw-c1-key")
    clock = FakeClock(start=time.time())
    engine = vast_engine(url, clock)
    try:
        fake.hidden.add(instance_id)
        assert engine.reconcile().unlisted == ["c1"]
        stale = engine.action("forget", "c1", asked_by="user")
        fake.hidden.clear()  # back in the listing
        report = engine.reconcile()
        assert report.relisted == ["c1"] and report.unlisted == []
        assert engine.unlisted_clusters() == []
        assert len(events_with(engine, "op.unlisted.back")) == 1
        with pytest.raises(UsageError):
            engine.action("forget", "c1", asked_by="user")  # no question, no card
        with pytest.raises(ApprovalMismatch):
            engine.forget(stale)  # the withdrawn card forgets nothing
        assert engine.cluster("c1").state == ClusterState.READY

        # Unlisted again: a new question; the old card is not a yes to it.
        clock.advance(60)
        fake.hidden.add(instance_id)
        assert engine.reconcile().unlisted == ["c1"]
        with pytest.raises(ApprovalMismatch):
            engine.forget(stale)
        # A card made now, but the instance is listed again by the time of the yes: the
        # engine asks the provider once more and forgets nothing.
        card = engine.action("forget", "c1", asked_by="user")
        fake.hidden.clear()
        with pytest.raises(UsageError):
            engine.forget(card)
        assert engine.cluster("c1").state == ClusterState.READY
        assert engine.unlisted_clusters() == []
    finally:
        engine.close()


def test_an_untrusted_listing_at_the_yes_forgets_nothing(vast: tuple[FakeVast, str]) -> None:
    fake, url = vast
    with fake.lock:
        instance_id = fake._rent(fake.offers[0], "xyclaw-c1-key", "img", [])
    ready_cluster(AppPaths.from_environment(), str(instance_id), "xyclaw-c1-key")
    engine = vast_engine(url, FakeClock(start=time.time()))
    try:
        fake.hidden.add(instance_id)
        engine.reconcile()
        card = engine.action("forget", "c1", asked_by="user")
        fake.listing_mode = "410"
        with pytest.raises(Exception) as caught:
            engine.forget(card)
        assert "state of its instances is unknown" in str(caught.value)
        assert engine.cluster("c1").state == ClusterState.READY
    finally:
        engine.close()


def test_a_runpod_pod_left_out_of_the_listing_is_asked_about_not_marked_gone() -> None:
    """dstack #1551: a pod marked terminated while it billed."""
    fake = FakeRunPod()
    server = FakeServer(fake).start()
    pod = fake.add_pod("xyclaw-c1-key")
    cluster_id = ready_cluster(AppPaths.from_environment(), pod, "xyclaw-c1-key", "runpod")
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
    clock = FakeClock(start=time.time())
    engine = build_engine(paths, load_config(paths.config_file), providers=registry, clock=clock)
    try:
        engine.reconcile()
        engine.charge_meters()
        before = engine.meter_charges(cluster_id)
        fake.hidden.add(pod)
        clock.advance(1800)
        report = engine.reconcile()
        assert report.gone == [] and report.unlisted == ["c1"]
        engine.charge_meters()
        assert engine.meter_charges(cluster_id) > before  # metered while the question stands
        asked = events_with(engine, "op.unlisted")
        assert len(asked) == 1 and f"runpod no longer lists {pod}" in str(asked[0]["message"])
        fake.hidden.clear()
        assert engine.reconcile().relisted == ["c1"]
        assert engine.cluster("c1").state == ClusterState.READY
    finally:
        engine.close()
        server.stop()


def test_xyclaw_forget_asks_refuses_without_a_yes_and_forgets_with_it(
    vast: tuple[FakeVast, str],
) -> None:
    from tests.providers_real.test_cli import xyclaw

    fake, url = vast
    with fake.lock:
        instance_id = fake._rent(fake.offers[0], "xyclaw-c1-key", "img", [])
    ready_cluster(AppPaths.from_environment(), str(instance_id), "xyclaw-c1-key")
    env = {"XYCLAW_VASTAI_API_URL": url}
    assert xyclaw("secrets", "set", "vastai_api_key", stdin=KEY + "\n").returncode == 0
    listed = xyclaw("forget", "c1", "--yes", env=env)  # still listed: nothing to forget
    assert listed.returncode == 2 and "its provider lists it" in listed.stderr
    fake.hidden.add(instance_id)
    shown = xyclaw("clusters", env=env)
    assert "vastai no longer lists" in shown.stdout + shown.stderr, shown.stdout + shown.stderr
    refused = xyclaw("forget", "c1", env=env)  # not at a terminal, no --yes
    assert refused.returncode == 2 and "confirm with --yes" in refused.stderr
    assert "Traceback" not in refused.stderr
    config = AppPaths.from_environment().config_file
    config.write_text('[gui]\nlanguage = "zh_CN"\n', encoding="utf-8")
    zh = xyclaw("forget", "c1", env=env)
    assert "请先在平台控制台确认" in zh.stderr, zh.stderr
    assert "的列表中已没有 5" in zh.stderr
    config.unlink()
    done = xyclaw("forget", "c1", "--yes", env=env)
    assert done.returncode == 0, done.stderr
    assert "cluster 1 c1: gone" in done.stdout
    assert len(fake.billing()) == 1  # nothing destroyed at Vast
