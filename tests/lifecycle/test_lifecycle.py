"""Renting, bootstrapping, billing and releasing against the simulated cloud."""

from __future__ import annotations

import pytest

from tests.lifecycle.conftest import MakeWorld, World
from xyclaw.engine.lifecycle import ProvisionError, UpRequest
from xyclaw.engine.quotes import QuoteError
from xyclaw.errors import ProviderError
from xyclaw.events import BudgetWarning, Notice, OperationProgress
from xyclaw.records import ClusterState
from xyclaw.remote import CommandResult
from xyclaw.sim.cloud import CloudSettings


def a800(count: int = 16, **extra: object) -> UpRequest:
    values: dict[str, object] = {
        "provider": "sim",
        "gpu": "A800",
        "gpu_count": count,
        "region": "Xiamen",
        "fabric": "ib-hdr-200" if count > 8 else "none",
        "gpus_per_node": 8,
        "price_per_gpu_hour_micros": 3_500_000,
    }
    values.update(extra)
    return UpRequest(**values)  # type: ignore[arg-type]


def live_at_provider(world: World) -> list[str]:
    return [c.external_id for c in world.provider.clusters() if c.state != "terminated"]


def test_up_bootstraps_every_node_then_down_releases(make_world: MakeWorld) -> None:
    world: World = make_world()
    engine = world.engine
    progress: list[OperationProgress] = []
    engine.subscribe(OperationProgress, progress.append)
    cluster = engine.up(engine.quote_request(a800(16))).result(60)
    assert cluster.state == ClusterState.READY and len(cluster.nodes) == 2
    steps = {(e.subject, e.step) for e in progress if e.step}
    for node in cluster.nodes:
        for step in ("ssh", "driver", "gpus", "fabric", "disk", "setup"):
            assert (node.name, step) in steps, (node.name, step)
    results = engine.exec(cluster.name, "nvidia-smi -L")
    assert len(results) == 2
    for result in results.values():
        assert isinstance(result, CommandResult) and result.stdout.count("GPU ") == 8

    released = engine.down(cluster.name).result(60)
    assert released.state == ClusterState.RELEASED and released.released_at is not None
    assert live_at_provider(world) == []
    assert all(n.terminated_at is not None for n in released.nodes)


def test_up_and_down_ride_out_429_and_5xx_storms_and_timeouts(make_world: MakeWorld) -> None:
    world: World = make_world(attempts=10, timeout_s=0.5)
    world.provider.fault(
        error_rate=0.3, error_status=503, timeout_rate=0.1, timeout_s=0.8, rate_limit_per_s=40
    )
    cluster = world.engine.up(world.engine.quote_request(a800(16))).result(120)
    assert cluster.state == ClusterState.READY
    assert world.engine.down(cluster.name).result(120).state == ClusterState.RELEASED
    world.provider.fault(error_rate=0.0, timeout_rate=0.0, rate_limit_per_s=0)
    listed = world.provider.clusters()
    assert [c.external_id for c in listed if c.state != "terminated"] == []
    billed = {e.cluster_external_id for e in world.provider.billing()}
    assert billed == {cluster.external_id}  # retried creates did not make a second cluster


def test_half_a_cluster_failing_releases_the_half_that_came_up(make_world: MakeWorld) -> None:
    world: World = make_world()
    world.provider.fault(fail_nodes=1)
    with pytest.raises(ProvisionError, match="1 of 2 nodes failed") as info:
        world.engine.up(world.engine.quote_request(a800(16))).result(60)
    assert "released" in str(info.value)
    [row] = world.engine.clusters(include_released=True)
    assert row.state == ClusterState.RELEASED and "failed" in (row.error or "")
    assert live_at_provider(world) == []


def test_keep_partial_keeps_the_nodes_that_came_up(make_world: MakeWorld) -> None:
    world: World = make_world()
    world.provider.fault(fail_nodes=1)
    notices: list[Notice] = []
    world.engine.subscribe(Notice, notices.append)
    cluster = world.engine.up(world.engine.quote_request(a800(16)), keep_partial=True).result(60)
    assert cluster.state == ClusterState.READY
    assert [n.state for n in cluster.nodes].count("running") == 1
    assert any("keeping the 1 that came up" in n.message for n in notices)
    results = world.engine.exec(cluster.name, "hostname")
    assert len(results) == 1


def test_region_out_of_capacity_rents_nothing(make_world: MakeWorld) -> None:
    world: World = make_world(CloudSettings.fast(capacity={"Xiamen": {"A800": 8}}))
    # The quote already sees that only 8 are free: nothing is asked of the provider.
    with pytest.raises(QuoteError, match="only 8 A800 are free"):
        world.engine.up(world.engine.quote_request(a800(16))).result(30)
    assert world.engine.clusters(include_released=True) == []
    assert live_at_provider(world) == []


def test_provider_down_during_release_is_pending_then_completed(make_world: MakeWorld) -> None:
    world: World = make_world()
    cluster = world.engine.up(world.engine.quote_request(a800(8))).result(60)
    world.server.stop()
    with pytest.raises(ProviderError):
        world.engine.down(cluster.name).result(60)
    pending = world.engine.cluster(cluster.name)
    assert pending.state == ClusterState.RELEASING  # the user sees it pending, not forgotten
    world.restart_cloud()
    report = world.engine.reconcile()
    assert cluster.name in report.releases_completed
    assert world.engine.cluster(cluster.name).state == ClusterState.RELEASED
    assert live_at_provider(world) == []


def test_an_unknown_instance_is_an_orphan_released_after_notice(make_world: MakeWorld) -> None:
    world: World = make_world()
    from xyclaw.providers import ClusterOrder

    stray = world.provider.create(
        ClusterOrder("A800", 8, "Xiamen", "none", "not-ours", world.engine.ssh_public_key())
    )
    notices: list[Notice] = []
    world.engine.subscribe(Notice, notices.append)
    report = world.engine.reconcile()
    assert report.orphans_released == [stray.external_id]
    assert any(n.kind == "orphan" and n.severity == "critical" for n in notices)
    assert live_at_provider(world) == []
    events = world.engine.recent_events()
    assert any(e["kind"] == "orphan" for e in events)
    # the record says why it is there, in English and, said, in Chinese (issue 35)
    [orphan] = [
        c for c in world.engine.clusters(include_released=True) if c.name.startswith("orphan-")
    ]
    assert orphan.error == "orphan found by reconciliation"
    assert (
        orphan.error_said is not None
        and orphan.error_said.in_language("zh") == "对账时发现的孤儿集群"
    )


def test_a_cluster_the_provider_lost_is_marked_gone(make_world: MakeWorld) -> None:
    world: World = make_world()
    cluster = world.engine.up(world.engine.quote_request(a800(8))).result(60)
    world.provider.terminate(cluster.external_id or "")
    report = world.engine.reconcile()
    assert report.gone == [cluster.name]
    gone = world.engine.cluster(cluster.name)
    assert gone.state == ClusterState.GONE and gone.last_seen_at is not None


def test_meter_agrees_with_the_provider_ledger(make_world: MakeWorld) -> None:
    world: World = make_world()
    cluster = world.engine.up(world.engine.quote_request(a800(16))).result(60)
    world.clock.advance(3600)
    world.engine.tick()
    meter = world.engine.meter_charges(cluster.id)
    ledger = sum(
        e.amount_micros
        for e in world.provider.billing()
        if e.cluster_external_id == cluster.external_id
    )
    assert cluster.price_per_gpu_hour_micros > 0  # the provider's price, not the asked one
    expected = 16 * cluster.price_per_gpu_hour_micros  # one hour of 16 cards
    assert abs(ledger - expected) / expected < 0.005
    assert abs(meter - ledger) / ledger < 0.005
    world.clock.advance(600)
    world.engine.down(cluster.name).result(60)
    world.engine.tick()
    final_meter = world.engine.meter_charges(cluster.id)
    final_ledger = sum(
        e.amount_micros
        for e in world.provider.billing()
        if e.cluster_external_id == cluster.external_id
    )
    assert abs(final_meter - final_ledger) / final_ledger < 0.005


def test_budget_warns_at_80_percent_and_releases_at_100(make_world: MakeWorld) -> None:
    world: World = make_world()
    notices: list[Notice] = []
    warnings: list[BudgetWarning] = []
    world.engine.subscribe(Notice, notices.append)
    world.engine.subscribe(BudgetWarning, warnings.append)
    # 8 cards x 3.5 CNY = 28 CNY an hour; a budget of 7 CNY lasts 15 minutes.
    cluster = world.engine.up(world.engine.quote_request(a800(8, budget_micros=7_000_000))).result(
        60
    )
    world.clock.advance(12.5 * 60)
    world.engine.tick()
    assert [w.released for w in warnings] == [False] and warnings[0].budget_micros == 7_000_000
    assert world.engine.cluster(cluster.name).state == ClusterState.READY
    world.clock.advance(3 * 60)
    report = world.engine.tick()
    assert report.released_for_budget == [cluster.name]
    assert world.engine.cluster(cluster.name).state == ClusterState.RELEASED
    assert live_at_provider(world) == []
    assert [w.released for w in warnings] == [False, True]  # one event each, as itself:
    assert not any(n.kind == "budget" for n in notices)  # never also as a Notice


def test_idle_cluster_is_warned_then_released(make_world: MakeWorld) -> None:
    world: World = make_world(XYCLAW_BILLING_IDLE_RELEASE_MINUTES="15")
    notices: list[Notice] = []
    world.engine.subscribe(Notice, notices.append)
    cluster = world.engine.up(world.engine.quote_request(a800(8))).result(60)
    world.engine.tick()  # idle from now: the simulated GPUs run nothing
    world.clock.advance(11 * 60)
    report = world.engine.tick()
    assert report.idle_warned == [cluster.name]
    world.clock.advance(5 * 60)
    report = world.engine.tick()
    assert report.released_idle == [cluster.name]
    assert world.engine.cluster(cluster.name).state == ClusterState.RELEASED


def test_maintenance_watches_ready_clusters_and_stops_after_release(
    make_world: MakeWorld,
) -> None:
    world: World = make_world()
    engine = world.engine
    assert world.parts is not None
    telemetry = world.parts.telemetry()
    cluster = engine.up(engine.quote_request(a800(8))).result(60)
    engine.sync_telemetry()
    assert [c.id for c in telemetry.watched()] == [cluster.id]
    assert telemetry.wait_for_data(cluster.id, timeout=20)
    engine.down(cluster.name).result(60)
    engine.sync_telemetry()
    assert telemetry.watched() == []


def test_the_running_app_reconciles_by_itself(make_world: MakeWorld) -> None:
    """What the desktop app and `xyclaw guard` start: no command needed to catch an orphan."""
    import time

    from xyclaw.providers import ClusterOrder

    world: World = make_world()
    world.provider.create(
        ClusterOrder("A800", 8, "Xiamen", "none", "stray", world.engine.ssh_public_key())
    )
    world.engine.start_maintenance()
    deadline = time.monotonic() + 20
    while live_at_provider(world) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert live_at_provider(world) == []
    assert any(e["kind"] == "orphan" for e in world.engine.recent_events())
