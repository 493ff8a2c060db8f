"""The Engine's public surface, quotes that bind approvals, and one event per state change."""

from __future__ import annotations

import dataclasses
import inspect
import itertools

import pytest

from tests.lifecycle.conftest import MakeWorld
from xyclaw.engine import Engine
from xyclaw.engine.lifecycle import UpRequest
from xyclaw.engine.quotes import QuoteError, RentQuote
from xyclaw.engine.surface import Effect
from xyclaw.events import ALL_EVENTS, ClusterChanged, Event, NodeChanged, Notice, OperationProgress
from xyclaw.planner import PlanRequest

#: The surface, pinned: a new public method, a changed signature or effect fails here first.
EFFECTS = {
    "action": Effect.READ,
    "alerts": Effect.READ,
    "approve_replacement": Effect.SPEND,
    "attach_job": Effect.EXEC,
    "backup": Effect.READ,
    "billing": Effect.READ,
    "cancel_job": Effect.DESTROY,
    "charge_meters": Effect.READ,
    "close": Effect.READ,
    "cluster": Effect.READ,
    "cluster_health": Effect.READ,
    "cluster_snapshot": Effect.READ,
    "clusters": Effect.READ,
    "decline_replacement": Effect.DESTROY,
    "diagnose": Effect.READ,
    "down": Effect.DESTROY,
    "exec": Effect.EXEC,
    "export_metrics": Effect.READ,
    "forget": Effect.DESTROY,  # issue 31 (b31)
    "history": Effect.READ,
    "job": Effect.READ,
    "job_logs": Effect.READ,
    "job_metrics": Effect.READ,
    "job_results": Effect.READ,
    "job_tasks": Effect.READ,
    "jobs": Effect.READ,
    "launch_additions": Effect.READ,  # issue 34 (b34)
    "launch": Effect.EXEC,
    "launch_dry_run": Effect.READ,
    "launch_quote": Effect.READ,
    "live_metrics": Effect.READ,
    "meter_charges": Effect.READ,
    "missing_job_secrets": Effect.READ,
    "nccl_environment": Effect.READ,
    "offers": Effect.READ,
    "operations": Effect.READ,
    "plan": Effect.READ,
    "provider_status": Effect.READ,
    "providers": Effect.READ,
    "quote": Effect.READ,
    "quote_request": Effect.READ,
    "unlisted_clusters": Effect.READ,  # issue 31 (b31)
    "quote_spot": Effect.READ,
    "recent_events": Effect.READ,
    "reconcile": Effect.DESTROY,
    "resolve_spec": Effect.READ,
    "result_trends": Effect.READ,
    "release": Effect.DESTROY,
    "replacement_asks": Effect.READ,
    "saved_plan": Effect.READ,
    "serve": Effect.EXEC,
    "setup_facts": Effect.READ,  # issue 35 (b35): the Settings page's line, as `xyclaw doctor`
    "slurm_allocations": Effect.READ,
    "slurm_cancel": Effect.DESTROY,
    "slurm_cancel_card": Effect.READ,
    "slurm_gpu_samples": Effect.READ,
    "slurm_jobs": Effect.READ,
    "slurm_launch": Effect.EXEC,  # issue 33 (a33): the agents' submit, through its card
    "slurm_limits": Effect.READ,
    "slurm_follow": Effect.READ,
    "slurm_logs": Effect.READ,
    "slurm_nccl": Effect.READ,
    "slurm_probe": Effect.EXEC,  # issue 33 (c33): the fabric probe through Slurm, its card
    "slurm_probe_card": Effect.READ,
    "slurm_queue": Effect.READ,
    "slurm_sites": Effect.READ,
    "slurm_submit": Effect.EXEC,
    "slurm_submit_card": Effect.READ,
    "spend": Effect.READ,
    "ssh_config": Effect.EXEC,
    "ssh_public_key": Effect.READ,
    "start_maintenance": Effect.DESTROY,
    "stop_sim_cloud_on_close": Effect.READ,
    "store_info": Effect.READ,
    "store_job_secret": Effect.READ,
    "subscribe": Effect.READ,
    "surface": Effect.READ,
    "sync_telemetry": Effect.READ,
    "tick": Effect.DESTROY,
    "track_record": Effect.READ,
    "tune": Effect.EXEC,
    "up": Effect.SPEND,
    "watch_when_ready": Effect.READ,
    # issue 35 (a35): static, for faces before or without a built Engine
    "hosts_file": Effect.READ,
    "own_hosts": Effect.READ,
    "read_hosts_file": Effect.READ,
    "own_host_entry": Effect.READ,
    "own_hosts_in_use": Effect.READ,
    "own_host_name": Effect.READ,
    "host_address": Effect.READ,
    "host_keys": Effect.READ,
    "forget_host": Effect.READ,
    "app_public_key": Effect.READ,
    "guard_status_of": Effect.READ,
    "guard_lock": Effect.READ,
    "stop_guard": Effect.READ,
    "guard_unit_path": Effect.READ,
    "guard_command": Effect.READ,
    "check_history": Effect.READ,
    "open_store": Effect.READ,
    "builtin_gpus": Effect.READ,
    "load_job_spec": Effect.READ,
    "load_offers_file": Effect.READ,
    "plan_report": Effect.READ,
    "plan_reasons": Effect.READ,
    "real_providers": Effect.READ,
    "add_real_providers": Effect.READ,
    "sim_cloud_summary": Effect.READ,
    "cost_so_far": Effect.READ,
    "write_metrics_csv": Effect.READ,
    "analyze_nccl_log": Effect.READ,
    "doctor_checks": Effect.READ,
    "doctor_json": Effect.READ,
    "severity_word": Effect.READ,
    "rule_title": Effect.READ,
    "said_of": Effect.READ,
    "conversations": Effect.READ,
    "open_checkpoint_connection": Effect.READ,
    "active_job_names": Effect.READ,
    "check_own_host": Effect.EXEC,
    "trust_host": Effect.EXEC,
    "start_guard": Effect.DESTROY,
    "why_stuck": Effect.READ,  # issue 34 (b34)
}


def test_every_public_method_declares_its_effect_and_the_surface_is_pinned() -> None:
    from xyclaw.engine.surface import surface_of

    surface = {m.name: m for m in surface_of(Engine)}
    # Methods added by later work (jobs) extend the pin; none may be missing or change effect.
    assert set(EFFECTS) <= set(surface), sorted(set(EFFECTS) - set(surface))
    for name, effect in EFFECTS.items():
        assert surface[name].effect is effect, name
    assert list(inspect.signature(Engine.up).parameters) == [
        "self",
        "quote",
        "keep_partial",
        "approved",
    ]
    public_attrs = [n for n, v in vars(Engine).items() if not n.startswith("_") and not callable(v)]
    assert sorted(public_attrs) == ["config", "paths", "secrets"]  # read-only properties


def test_every_event_class_is_exported() -> None:
    import xyclaw.events as events

    declared = {
        v
        for v in vars(events).values()
        if isinstance(v, type) and issubclass(v, Event) and v is not Event
    }
    assert declared == set(ALL_EVENTS)


def _plan_a800(world) -> tuple[int, RentQuote]:  # type: ignore[no-untyped-def]
    request = PlanRequest.parse(
        task="finetune-lora", model_size="13B", gpus="8", gpu="A800", budget="500"
    )
    outcome = world.engine.plan(request)
    assert outcome.offers_source == "live" and outcome.result.options
    return outcome.plan_id, world.engine.quote(outcome.plan_id, 1)


def test_plan_quote_then_a_price_change_refuses_up_and_rents_nothing(make_world: MakeWorld) -> None:
    world = make_world()
    plan_id, quote = _plan_a800(world)
    assert quote.plan_id == plan_id and quote.gpu == "A800" and quote.gpu_count == 8
    assert quote.estimated_total_micros is not None and quote.budget_micros == 500_000_000
    assert quote.to_json()["price_per_hour"] == pytest.approx(
        quote.price_per_gpu_hour_micros * 8 / 1e6
    )
    # The cloud raises its price after the user approved the quote.
    cloud = world.server.cloud
    cloud.offers = tuple(
        dataclasses.replace(o, price_micro=o.price_micro + 300_000)
        if o.offer_id == quote.offer_id
        else o
        for o in cloud.offers
    )
    with pytest.raises(QuoteError, match=r"changed from .* to .* per card-hour since you approved"):
        world.engine.up(quote)
    assert world.engine.clusters(include_released=True) == []
    assert world.provider.clusters() == []


def test_an_expired_or_altered_quote_is_refused(make_world: MakeWorld) -> None:
    world = make_world()
    _, quote = _plan_a800(world)
    world.clock.advance(11 * 60)  # quotes are valid for 10 minutes by default
    with pytest.raises(QuoteError, match="expired"):
        world.engine.up(quote)
    tampered = dataclasses.replace(quote, price_per_gpu_hour_micros=1)
    with pytest.raises(QuoteError, match="changed after it was made"):
        world.engine.up(tampered)
    assert world.engine.clusters(include_released=True) == []


def test_a_multi_node_order_to_a_single_node_provider_is_refused_up_front(
    make_world: MakeWorld,
) -> None:
    world = make_world()
    local = Engine._check_capabilities
    from xyclaw.providers.local import LocalProvider

    provider = LocalProvider(world.state_dir / "local.json")
    with pytest.raises(QuoteError, match="cannot rent a multi-node cluster"):
        local(provider, UpRequest(provider="local", gpu="A800", gpu_count=16, gpus_per_node=8))


def test_up_tune_down_publish_each_change_once_and_in_order(make_world: MakeWorld) -> None:
    world = make_world()
    heard: list[Event] = []
    world.engine.subscribe(Event, heard.append)
    quote = world.engine.quote_request(
        UpRequest(provider="sim", gpu="A800", gpu_count=16, region="Xiamen", fabric="ib-hdr-200")
    )
    cluster = world.engine.up(quote).result(120)
    world.engine.down(cluster.name).result(60)
    states = [e.state for e in heard if isinstance(e, ClusterChanged)]
    assert states == [
        "requested",
        "provisioning",
        "bootstrapping",
        "ready",
        "releasing",
        "released",
    ]
    per_node: dict[int, list[str]] = {}
    for e in heard:
        if isinstance(e, NodeChanged):
            per_node.setdefault(e.rank, []).append(e.state)
    assert sorted(per_node) == [0, 1]
    for changes in per_node.values():
        assert changes[-1] == "terminated"
        assert all(a != b for a, b in itertools.pairwise(changes))  # no repeats
    changes = [e for e in heard if isinstance(e, ClusterChanged)]
    assert all(c.previous == p.state for p, c in itertools.pairwise(changes))
    finals = [e for e in heard if isinstance(e, OperationProgress) and e.state != "running"]
    assert [e.state for e in finals] == ["succeeded", "succeeded"]
    assert not [e for e in heard if isinstance(e, Notice) and e.kind == "alert"]
