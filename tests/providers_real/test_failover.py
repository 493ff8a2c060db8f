"""Failover across offers: the pure rules, then on the simulated cloud over real HTTP."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.providers_real.conftest import APP_KEY
from xyclaw.catalog import Offer
from xyclaw.errors import CapacityError, ProviderError
from xyclaw.providers import ClusterInfo, ClusterOrder
from xyclaw.providers.cloud_api import QuotaError, UnsupportedRequestError
from xyclaw.providers.failover import (
    Approval,
    FailureKind,
    Outcome,
    classify,
    fail_over,
    requote_from,
)
from xyclaw.providers.http_retry import ApiError, RetryPolicy
from xyclaw.providers.sim import SimProvider
from xyclaw.sim.cloud import CloudSettings, SimCloudServer, build_cloud


def offer(region: str, price: str = "3.50", *, provider: str = "sim", **kw: object) -> Offer:
    values: dict[str, object] = {
        "provider": provider,
        "offer_id": f"{region.lower()}-a800",
        "region": region,
        "gpu": "A800",
        "gpus_per_node": 8,
        "node_counts": (1,),
        "fabric": "none",
        "price_micro": int(float(price) * 1_000_000),
        "currency": "CNY",
    }
    values.update(kw)
    return Offer(**values)  # type: ignore[arg-type]


APPROVED = Approval(gpu_count=8, max_price_per_gpu_hour_micros=3_500_000, currency="CNY")


def test_failures_are_classified_for_failover() -> None:
    assert classify(CapacityError("none free")) is FailureKind.CAPACITY
    assert classify(QuotaError("quota")) is FailureKind.QUOTA
    assert classify(UnsupportedRequestError("16 GPUs")) is FailureKind.UNSUPPORTED
    assert classify(ApiError("x", status=400, code="global/quota-exceeded")) is FailureKind.QUOTA
    assert classify(ApiError("x", status=401, code="global/invalid-api-key")) is FailureKind.OTHER
    assert classify(ProviderError("timed out")) is FailureKind.OTHER


def test_capacity_moves_on_and_the_story_says_where_and_at_what_price() -> None:
    tried: list[str] = []

    def attempt(o: Offer) -> str:
        tried.append(o.region)
        if o.region in ("Xiamen", "Yinchuan"):
            raise CapacityError(f"insufficient capacity in {o.region}")
        return f"cluster in {o.region}"

    result = fail_over(
        [offer("Xiamen"), offer("Yinchuan", "3.40"), offer("Ulanqab", "3.40")],
        attempt,
        approval=APPROVED,
    )
    assert result.created and result.value == "cluster in Ulanqab" and tried == [
        "Xiamen", "Yinchuan", "Ulanqab",
    ]  # fmt: skip
    assert result.chosen is not None and result.chosen.region == "Ulanqab"
    assert result.story() == (
        "Xiamen out of A800 -> Yinchuan, 0.10 CNY/GPU-h cheaper out of A800 -> Ulanqab, same price"
    )
    assert [a.outcome for a in result.attempts] == [
        Outcome.NO_CAPACITY, Outcome.NO_CAPACITY, Outcome.CREATED,
    ]  # fmt: skip
    assert result.lines()[0] == "sim Xiamen: no-capacity (insufficient capacity in Xiamen)"


def test_a_quote_beyond_the_approval_stops_and_asks_without_renting() -> None:
    tried: list[str] = []

    def attempt(o: Offer) -> str:
        tried.append(o.region)
        raise CapacityError("none")

    result = fail_over(
        [offer("Xiamen"), offer("Ulanqab", "3.80"), offer("Yinchuan", "3.50")],
        attempt,
        approval=APPROVED,
    )
    assert tried == ["Xiamen"] and result.needs_approval and not result.created
    assert result.story() == (
        "Xiamen out of A800 -> Ulanqab, 0.30 CNY/GPU-h more: quotes 3.80 CNY/GPU-h, above the "
        "approved 3.50 CNY/GPU-h; asking"
    )


def test_another_provider_in_another_currency_or_shape_needs_asking() -> None:
    usd = offer("us-east-1", "2.99", provider="lambda", currency="USD")
    result = fail_over([usd], lambda o: "never", approval=APPROVED)
    assert result.needs_approval and "quotes in USD; CNY was approved" in result.story()
    small = offer("Ulanqab", gpus_per_node=4)
    result = fail_over([small], lambda o: "never", approval=APPROVED)
    assert result.needs_approval and "rents 4 GPUs, not the 8 approved" in result.story()


def test_requoting_sees_a_price_rise_and_known_short_stock_before_trying() -> None:
    fresh = {
        "xiamen-a800": offer("Xiamen", available_gpus=4),  # too few free: skipped, not tried
        "ulanqab-a800": offer("Ulanqab", "3.90"),  # the price rose since the plan
    }
    asked: list[str] = []

    def offers_of(provider: str) -> list[Offer]:
        asked.append(provider)
        return list(fresh.values())

    result = fail_over(
        [offer("Xiamen"), offer("Ulanqab"), offer("Yinchuan")],
        lambda o: pytest.fail("nothing should be rented"),
        approval=APPROVED,
        requote=requote_from(offers_of),
    )
    assert asked == ["sim"]  # one quote per provider per run
    assert [a.outcome for a in result.attempts] == [Outcome.NO_CAPACITY, Outcome.NEEDS_APPROVAL]
    assert result.attempts[0].reason == "4 free, 8 needed"
    assert "above the approved 3.50" in result.story()
    gone = fail_over(
        [offer("Yinchuan")], lambda o: "x", approval=APPROVED, requote=requote_from(offers_of)
    )
    assert gone.exhausted and gone.story() == "Yinchuan out of A800 -> no option left"


def test_quota_moves_on_but_anything_else_stops() -> None:
    def quota_then_ok(o: Offer) -> str:
        if o.provider == "lambda":
            raise QuotaError("Quota exceeded")
        return "ok"

    lam = offer("us-east-1", "3.50", provider="lambda")
    result = fail_over([lam, offer("Ulanqab")], quota_then_ok, approval=APPROVED)
    assert (
        result.created
        and result.story() == "lambda us-east-1 over quota -> sim Ulanqab, same price"
    )

    def bad_key(o: Offer) -> str:
        raise ApiError("key refused", status=401, code="global/invalid-api-key", hint="set it")

    stopped = fail_over([offer("Xiamen"), offer("Ulanqab")], bad_key, approval=APPROVED)
    assert [a.outcome for a in stopped.attempts] == [Outcome.STOPPED]
    assert stopped.error is not None and stopped.error.hint == "set it"
    assert stopped.story() == "Xiamen failed: key refused; stopped"
    unsupported = fail_over(
        [offer("Xiamen")], lambda o: (_ for _ in ()).throw(UnsupportedRequestError("no")),
        approval=APPROVED,
    )  # fmt: skip
    assert unsupported.attempts[0].outcome is Outcome.STOPPED


# -- on the simulated cloud, over real HTTP ------------------------------------------------


@pytest.fixture
def sim(tmp_path: Path) -> Iterator[SimProvider]:
    cloud = build_cloud(tmp_path / "cloud", CloudSettings.fast())
    server = SimCloudServer(cloud).start()
    provider = SimProvider(
        server.url,
        cloud.token,
        retry=RetryPolicy(attempts=3, base_delay_s=0.01, max_delay_s=0.05, deadline_s=10),
    )
    yield provider
    provider.close()
    server.stop()


def rent_on(provider: SimProvider, gpu_count: int) -> Callable[[Offer], ClusterInfo]:
    def attempt(o: Offer) -> ClusterInfo:
        return provider.create(
            ClusterOrder(
                gpu=o.gpu,
                gpu_count=gpu_count,
                region=o.region,
                fabric=o.fabric,
                idempotency_key=f"xyclaw-{uuid.uuid4()}",
                ssh_public_key=APP_KEY,
                gpus_per_node=o.gpus_per_node,
            )
        )

    return attempt


def by_id(provider: SimProvider, *ids: str) -> list[Offer]:
    offers = {o.offer_id: o for o in provider.offers()}
    return [offers[i] for i in ids]


def test_sim_region_out_of_capacity_fails_over_at_the_same_price(sim: SimProvider) -> None:
    candidates = by_id(sim, "xm-a800-x8", "wl-a800-x8", "yc-a800-x8")  # the plan's options
    sim.fault(capacity={"Xiamen": {"A800": 0}})  # then Xiamen sells out
    approval = Approval.of(candidates[0], 8)
    # As planned (stale offers): the create itself is refused, and the next region is tried.
    result = fail_over(candidates, rent_on(sim, 8), approval=approval)
    assert result.created and result.story() == "Xiamen out of A800 -> Ulanqab, same price"
    assert "insufficient capacity in Xiamen" in result.attempts[0].reason
    [made] = sim.clusters()
    assert made.region == "Ulanqab" and made.gpu_count == 8
    # Re-quoted first: the fresh offer shows no free A800 in Xiamen, so no create is sent.
    again = fail_over(
        candidates,
        rent_on(sim, 8),
        approval=approval,
        requote=requote_from(lambda name: sim.offers()),
    )
    assert again.created and again.story() == "Xiamen out of A800 -> Ulanqab, same price"
    assert again.attempts[0].reason == "0 free, 8 needed"
    assert sorted(c.region or "" for c in sim.clusters()) == ["Ulanqab", "Ulanqab"]


def test_sim_price_rise_beyond_the_approved_stops_and_asks(sim: SimProvider) -> None:
    sim.fault(capacity={"Yinchuan": {"A800": 0}})
    candidates = by_id(sim, "yc-a800-roce", "xm-a800-ib")  # 3.80, then 4.60 CNY per GPU-hour
    result = fail_over(
        candidates,
        rent_on(sim, 16),
        approval=Approval.of(candidates[0], 16),
        requote=requote_from(lambda name: sim.offers()),
    )
    assert result.needs_approval and not result.created
    assert result.story() == (
        "Yinchuan out of A800 -> Xiamen, 0.80 CNY/GPU-h more: quotes 4.60 CNY/GPU-h, above the "
        "approved 3.80 CNY/GPU-h; asking"
    )
    assert sim.clusters() == []  # nothing was rented past the approval
