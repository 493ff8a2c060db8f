"""Checks scheduled by money, the provider's deadline kept with the budget, what renting says
about enforcement, and idle checks that read telemetry instead of running commands."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.lifecycle.conftest import MakeWorld, make_world
from tests.lifecycle.test_lifecycle import a800
from tests.support.simcluster import sim_cluster
from xyclaw.catalog import Catalog
from xyclaw.config import load_config
from xyclaw.engine import Engine
from xyclaw.engine.compose import build_engine
from xyclaw.engine.lifecycle import Timeouts, UpRequest
from xyclaw.errors import XyclawError
from xyclaw.events import OperationProgress
from xyclaw.paths import AppPaths
from xyclaw.providers import ProviderRegistry
from xyclaw.providers.memory import MemoryCloud, MemoryProvider

__all__ = ["make_world"]

QUIET = {"XYCLAW_BILLING_IDLE_RELEASE_MINUTES": "0", "XYCLAW_GUARD_INTERVAL_S": "3600"}


def test_checks_come_when_the_money_says_and_the_clouds_deadline_follows_the_budget(
    make_world: MakeWorld,
) -> None:
    world = make_world(**QUIET)
    engine = world.engine
    # 8 cards x 3.5 CNY = 28 CNY an hour: 7 CNY last 900 s, its 80% (5.6 CNY) 720 s.
    cluster = engine.up(engine.quote_request(a800(8, budget_micros=7_000_000))).result(60)
    ext = cluster.external_id or ""
    start = cluster.nodes[0].running_at
    assert start is not None
    # Given on create, then made exact once the node ran: the budget's moment plus 5 s.
    assert world.provider.get(ext).extra["terminate_at"] == pytest.approx(start + 905, abs=0.01)

    report = engine.tick()
    assert report.next_check_at == pytest.approx(start + 720, abs=0.01)  # not in an hour
    assert report.next_reason == f"{cluster.name} reaches 80% of its budget"
    world.clock.advance(report.next_check_at - world.clock())
    report = engine.tick()
    assert report.warned == [cluster.name]
    assert report.next_check_at == pytest.approx(start + 900, abs=0.01)
    assert report.next_reason == f"{cluster.name} reaches its budget"

    # A bigger budget: the cloud's deadline moves, the warning can come again.
    engine.set_budget(cluster.name, 14_000_000)
    assert world.provider.get(ext).extra["terminate_at"] == pytest.approx(start + 1805, abs=0.01)
    report = engine.tick()
    assert report.next_check_at == pytest.approx(start + 1440, abs=0.01)
    # No budget: no deadline at the cloud, and checks only at the interval.
    engine.set_budget(cluster.name, None)
    assert world.provider.get(ext).extra["terminate_at"] is None
    report = engine.tick()
    assert report.next_reason is None
    assert report.next_check_at == pytest.approx(world.clock() + 3600)

    # At the budget's moment the guard releases it, and says what it cost.
    engine.set_budget(cluster.name, 14_000_000)
    world.clock.advance(start + 1800 - world.clock())
    report = engine.tick()
    assert report.lines() == [f"released {cluster.name}: budget 14.00 CNY spent, 14.00 CNY charged"]
    assert world.provider.get(ext).extra["ended_by"] == "request"


def test_a_budget_policy_of_warn_sets_no_deadline_at_the_cloud(make_world: MakeWorld) -> None:
    world = make_world(XYCLAW_BILLING_ON_BUDGET_EXHAUSTED="warn", **QUIET)
    engine = world.engine
    cluster = engine.up(engine.quote_request(a800(8, budget_micros=7_000_000))).result(60)
    assert world.provider.get(cluster.external_id or "").extra["terminate_at"] is None
    world.clock.advance(1000)
    report = engine.tick()
    assert [a.kind for a in report.actions] == ["budget-spent"]
    assert engine.cluster(cluster.name).live  # the user asked to be told, not to release


def test_renting_from_a_provider_without_deadlines_says_the_guard_must_run_and_that_it_does(
    xyclaw_home: Path,
) -> None:
    offers = [o for o in Catalog.builtin().offers if o.gpu == "A800" and o.region == "Xiamen"]
    registry = ProviderRegistry()
    registry.add(MemoryProvider(MemoryCloud(offers)))  # it keeps no deadline of its own
    paths = AppPaths.from_environment()
    engine = build_engine(
        paths,
        load_config(paths.config_file, environ=QUIET),
        providers=registry,
        timeouts=Timeouts(ssh_s=1, poll_s=0.05),
    )
    try:
        assert engine.start_maintenance() is True  # as the desktop app does
        seen: list[str] = []
        engine.subscribe(OperationProgress, lambda e: seen.append(e.message))
        request = UpRequest("memory", "A800", 8, budget_micros=1_000_000)
        handle = engine.up(engine.quote_request(request))
        note = "budget enforcement needs XyClaw's guard running: it is (in this process)"
        deadline = time.monotonic() + 10
        while note not in seen:
            assert time.monotonic() < deadline, seen
            time.sleep(0.01)
        assert seen[: seen.index(note)] == ["started"]  # said first, before anything is rented
        handle.cancel()
        with pytest.raises(XyclawError):  # cancelled, or no SSH on these nodes: not rented
            handle.result(30)
    finally:
        engine.close()


@pytest.fixture
def engine(xyclaw_home: Path) -> Iterator[Engine]:
    paths = AppPaths.from_environment()
    config = load_config(
        paths.config_file,
        environ={
            "XYCLAW_TELEMETRY_SAMPLE_INTERVAL_S": "0.2",
            "XYCLAW_SSH_CONNECT_TIMEOUT_S": "5",
            "XYCLAW_BILLING_IDLE_RELEASE_MINUTES": "10",
        },
    )
    eng = build_engine(paths, config, providers=ProviderRegistry())
    yield eng
    eng.close()


def test_the_idle_check_reads_telemetry_where_it_watches_and_runs_nvidia_smi_only_elsewhere(
    engine: Engine, tmp_path: Path
) -> None:
    with sim_cluster(engine, tmp_path, nodes=1, gpus_per_node=2, name="idlewatch") as sc:
        telemetry = engine.live_metrics(sc.name)  # watching it, as the desktop's charts do
        assert telemetry.wait_for_data(sc.cluster_id, timeout=20, instants=2)
        sc.nodes[0].faults.slow_link(2.0)  # every reply from the node now takes 2 s more
        began = time.monotonic()
        report = engine.tick()
        took = time.monotonic() - began
        assert report.next_reason == "idlewatch: still idle?"  # idle GPUs were seen ...
        # ... without a command on the slow node: one would take at least the link's 2 s (the
        # bound is that, not a guess at how fast a loaded machine is)
        assert took < 2.0
        telemetry.unwatch(sc.cluster_id)
        began = time.monotonic()
        report = engine.tick()
        assert time.monotonic() - began >= 2.0  # now nvidia-smi over SSH, through the slow link
        assert report.next_reason == "idlewatch: still idle?"


def test_a_second_window_leaves_budgets_to_the_first_and_takes_over_when_it_closes(
    xyclaw_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XYCLAW_GUARD_POLL_S", "0.2")
    offers = [o for o in Catalog.builtin().offers if o.gpu == "A800" and o.region == "Xiamen"]
    paths = AppPaths.from_environment()

    def window() -> Engine:
        registry = ProviderRegistry()
        registry.add(MemoryProvider(MemoryCloud(offers)))
        return build_engine(paths, load_config(paths.config_file), providers=registry)

    first, second = window(), window()
    open_windows = [first, second]
    try:
        assert first.start_maintenance() is True
        assert second.start_maintenance() is False  # one guard: the first window's
        began = first.guard_status().info
        assert began is not None and began.holder == "desktop"
        open_windows.remove(first)
        first.close()
        deadline = time.monotonic() + 10
        while True:  # the second window's loop finds the lock free and takes it
            info = second.guard_status().info
            if info is not None and info.started_at > began.started_at and info.last_check_at:
                break
            assert time.monotonic() < deadline, info
            time.sleep(0.05)
    finally:
        for engine in open_windows:
            engine.close()
    assert not second.guard_status().running
