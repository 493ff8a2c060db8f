"""The Lambda Cloud adapter against a fake that implements the documented API v1."""

from __future__ import annotations

import itertools
import logging
import time
import uuid
from pathlib import Path

import pytest

from tests.providers_real.conftest import APP_KEY, MakeLambda, lambda_provider
from tests.providers_real.fake_lambda import INSTANCE_TYPES, LambdaSettings
from xyclaw.errors import CapacityError, ProviderError, XyclawError
from xyclaw.providers import ClusterOrder, Provider
from xyclaw.providers.base import Feature
from xyclaw.providers.cloud_api import QuotaError, UnsupportedRequestError
from xyclaw.providers.http_retry import ApiError
from xyclaw.providers.lambda_cloud import LambdaProvider, gpu_of, price_per_gpu_micros


def order(
    gpu: str = "H100", count: int = 8, region: str | None = "us-east-1", **kw: object
) -> ClusterOrder:
    values: dict[str, object] = {
        "gpu": gpu,
        "gpu_count": count,
        "region": region,
        "fabric": None,
        "idempotency_key": f"xyclaw-{uuid.uuid4()}",
        "ssh_public_key": APP_KEY,
        "gpus_per_node": count,
    }
    values.update(kw)
    return ClusterOrder(**values)  # type: ignore[arg-type]


def wait_state(provider: LambdaProvider, ext: str, state: str, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        info = provider.get(ext)
        if info is not None and info.state == state:
            return
        time.sleep(0.02)
    raise AssertionError(f"{ext} never reached {state}")


def test_it_is_a_provider_with_reasons_for_what_it_lacks(make_lambda: MakeLambda) -> None:
    _, provider = make_lambda()
    assert isinstance(provider, Provider)
    caps = provider.capabilities
    assert caps.rents and not caps.multi_node and not caps.billing_ledger
    lacking = caps.lacking([Feature.MULTI_NODE, Feature.STOP_START, Feature.SPOT])
    assert "single machines" in str(lacking[Feature.MULTI_NODE])
    assert "bills until it is terminated" in str(lacking[Feature.STOP_START])
    assert set(lacking) == {Feature.MULTI_NODE, Feature.STOP_START, Feature.SPOT}


def test_instance_type_names_and_prices_become_catalog_terms() -> None:
    assert gpu_of(INSTANCE_TYPES["gpu_8x_h100_sxm5"]) == ("H100", 8)
    assert gpu_of(INSTANCE_TYPES["gpu_1x_a100_sxm4"]) == ("A100-40G", 1)
    assert gpu_of(INSTANCE_TYPES["gpu_8x_a100_80gb_sxm4"]) == ("A100-80G", 8)
    assert gpu_of({"name": "gpu_1x_a10", "description": "1x A10 (24 GB PCIe)"}) == ("A10", 1)
    # the catalog's name for NVIDIA RTX A6000 (issue 29 added the workstation cards)
    assert gpu_of({"name": "gpu_2x_a6000", "specs": {"gpus": 2}}) == ("RTXA6000", 2)
    # 2392 US cents an hour for 8 GPUs: exactly 2.99 USD per GPU-hour in micro-dollars.
    assert price_per_gpu_micros(2392, 8) == 2_990_000
    assert price_per_gpu_micros(75, 1) == 750_000


def test_offers_carry_live_prices_in_usd_and_only_regions_with_capacity(
    make_lambda: MakeLambda,
) -> None:
    _, provider = make_lambda(LambdaSettings(capacity={("gpu_8x_h100_sxm5", "us-east-1"): 0}))
    offers = provider.offers()
    h100x8 = [o for o in offers if o.offer_id.startswith("gpu_8x_h100_sxm5@")]
    assert {o.region for o in h100x8} == {"us-west-1", "us-south-1", "europe-central-1"}
    first = h100x8[0]
    assert (first.gpu, first.gpus_per_node, first.node_counts, first.fabric) == (
        "H100",
        8,
        (1,),
        "none",
    )
    assert (first.price_micro, first.currency, first.price_basis) == (2_990_000, "USD", "live")
    assert not any(o.offer_id.startswith("cpu_") for o in offers)  # CPU-only types are not offers
    assert {o.gpu for o in offers} == {"A10", "A100-40G", "A100-80G", "H100"}


def test_launch_registers_the_key_once_names_the_instance_and_reaches_running(
    make_lambda: MakeLambda,
) -> None:
    fake, provider = make_lambda(LambdaSettings(boot_s=0.2))
    first = order()
    info = provider.create(first)
    assert info.state == "provisioning" and info.idempotency_key == first.idempotency_key
    [launch] = fake.requests_to("POST", "/api/v1/instance-operations/launch")
    assert launch.body["name"] == first.idempotency_key
    assert launch.body["instance_type_name"] == "gpu_8x_h100_sxm5"
    assert launch.body["region_name"] == "us-east-1" and launch.body["quantity"] == 1
    [key_name] = launch.body["ssh_key_names"]
    assert key_name.startswith("xyclaw-") and fake.ssh_keys[key_name]["public_key"] == APP_KEY
    wait_state(provider, info.external_id, "running")
    running = provider.get(info.external_id)
    assert running is not None
    [node] = running.nodes
    assert node.ssh_host == f"192.0.2.{info.external_id}" and node.ssh_port == 22
    assert node.ssh_user == "ubuntu" and node.state == "running"
    assert (running.gpu, running.gpu_count, running.price_per_gpu_hour_micros) == (
        "H100",
        8,
        2_990_000,
    )
    # A second rental reuses the registered key.
    provider.create(order("A10", 1))
    assert len(fake.requests_to("POST", "/api/v1/ssh-keys")) == 1


def test_a_repeated_create_returns_the_first_instance(make_lambda: MakeLambda) -> None:
    fake, provider = make_lambda()
    once = order()
    first = provider.create(once)
    again = provider.create(once)
    assert again.external_id == first.external_id
    assert len(fake.requests_to("POST", "/api/v1/instance-operations/launch")) == 1
    # Another process (a fresh adapter) finds it too, by its name.
    other = lambda_provider(
        fake_url(provider), fake.settings.api_key, Path("/nonexistent"), state_file=None
    )
    try:
        assert other.create(once).external_id == first.external_id
    finally:
        other.close()
    assert len(fake.live()) == 1


def fake_url(provider: LambdaProvider) -> str:
    return provider._base.removesuffix("/api/v1")


def test_instances_xyclaw_did_not_name_are_never_listed(make_lambda: MakeLambda) -> None:
    fake, provider = make_lambda()
    ours = provider.create(order("A10", 1))
    # The user's own instance, launched from Lambda's console.
    fake.ssh_keys["mine"] = {"id": "k", "name": "mine", "public_key": "ssh-rsa AAAA me"}
    with fake.lock:
        fake._launch({"region_name": "us-east-1", "instance_type_name": "gpu_1x_a10",
                      "ssh_key_names": ["mine"], "name": "my-notebook"})  # fmt: skip
    listed = provider.clusters()
    assert [c.external_id for c in listed] == [ours.external_id]
    assert len(fake.live()) == 2


def test_terminate_is_confirmed_and_remembered_after_lambda_forgets(
    make_lambda: MakeLambda, tmp_path: Path
) -> None:
    fake, provider = make_lambda(LambdaSettings(terminate_s=0.2, forget_s=0.3))
    info = provider.create(order())
    wait_state(provider, info.external_id, "running")
    leaving = provider.terminate(info.external_id)
    assert leaving.state == "terminating"
    wait_state(provider, info.external_id, "terminated")
    time.sleep(0.35)
    assert fake.live() == [] and info.external_id not in fake.instances
    # A fresh adapter (a restarted app) still knows what it was: price and shape.
    restarted = lambda_provider(fake_url(provider), fake.settings.api_key, tmp_path)
    try:
        gone = restarted.get(info.external_id)
        assert gone is not None and gone.state == "terminated"
        assert (gone.gpu, gone.gpu_count, gone.price_per_gpu_hour_micros) == ("H100", 8, 2_990_000)
        again = restarted.terminate(info.external_id)  # a repeated release is harmless
        assert again.state == "terminated"
    finally:
        restarted.close()
    assert provider.clusters() == []


def test_an_invalid_key_says_how_to_set_one_and_never_shows_it(
    make_lambda: MakeLambda, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    fake, provider = make_lambda(key="wrong-key-123456")
    with pytest.raises(ApiError) as info:
        provider.offers()
    assert info.value.status == 401 and info.value.code == "global/invalid-api-key"
    assert "xyclaw secrets set lambda_api_key" in str(info.value)
    assert "wrong-key-123456" not in str(info.value)
    assert "wrong-key-123456" not in caplog.text
    assert fake.settings.api_key not in caplog.text


def test_no_capacity_in_the_region_is_known_before_any_launch(make_lambda: MakeLambda) -> None:
    fake, provider = make_lambda(LambdaSettings(capacity={("gpu_8x_h100_sxm5", "us-east-1"): 0}))
    with pytest.raises(CapacityError) as info:
        provider.create(order(region="us-east-1"))
    assert "us-west-1" in str(info.value)  # says where there is capacity
    assert fake.requests_to("POST", "/api/v1/instance-operations/launch") == []
    # With no region asked, it picks one with capacity.
    assert provider.create(order(region=None)).region == "us-west-1"


def test_capacity_gone_at_launch_time_is_a_capacity_error(make_lambda: MakeLambda) -> None:
    fake, provider = make_lambda(
        LambdaSettings(sold_out_at_launch={("gpu_8x_h100_sxm5", "us-east-1")})
    )
    listed = provider.instance_types()["gpu_8x_h100_sxm5"]["regions_with_capacity_available"]
    assert "us-east-1" in [r["name"] for r in listed]  # listed with capacity ...
    with pytest.raises(CapacityError, match="Not enough capacity"):  # ... gone at launch
        provider.create(order(region="us-east-1"))
    assert fake.live() == []
    assert len(fake.requests_to("POST", "/api/v1/instance-operations/launch")) == 1


def test_quota_and_unsupported_shapes_are_definite_refusals(make_lambda: MakeLambda) -> None:
    fake, provider = make_lambda(LambdaSettings(quota=1))
    provider.create(order("A10", 1))
    with pytest.raises(QuotaError, match="Quota exceeded") as quota:
        provider.create(order("A10", 1))
    assert "quota" in (quota.value.hint or "")
    with pytest.raises(UnsupportedRequestError) as multi:
        provider.create(order("H100", 16, gpus_per_node=8))
    assert "single machines" in (multi.value.hint or "")
    with pytest.raises(UnsupportedRequestError, match="only as 1 x, 8 x"):
        provider.create(order("H100", 4))
    with pytest.raises(UnsupportedRequestError, match="no instance type with RTX4090"):
        provider.create(order("RTX4090", 1))
    with pytest.raises(UnsupportedRequestError, match="fabric"):
        provider.create(order("H100", 8, fabric="ib-ndr-400"))
    assert len(fake.live()) == 1


def test_launches_are_paced_and_429_answers_are_waited_out(make_lambda: MakeLambda) -> None:
    fake, provider = make_lambda(LambdaSettings(launch_interval_s=0.3), launch_interval_s=0.5)
    for _ in range(3):
        provider.create(order("A10", 1))
    launches = fake.requests_to("POST", "/api/v1/instance-operations/launch")
    assert [e.status for e in launches] == [200, 200, 200]
    gaps = [b.at - a.at for a, b in itertools.pairwise(launches)]
    assert all(gap >= 0.3 for gap in gaps), gaps
    # Without pacing, Lambda's 429 (with Retry-After) is waited out: still one instance each.
    eager, unpaced = make_lambda(LambdaSettings(launch_interval_s=0.3), launch_interval_s=0.0)
    for _ in range(3):
        unpaced.create(order("A10", 1))
    statuses = [e.status for e in eager.requests_to("POST", "/api/v1/instance-operations/launch")]
    assert statuses.count(200) == 3 and 429 in statuses
    assert len(eager.live()) == 3


def test_reads_ride_out_429_and_5xx_storms(make_lambda: MakeLambda) -> None:
    fake, provider = make_lambda()
    fake.faults.fail_next.extend([429, 503, 500, 429])
    assert provider.offers()
    fake.faults.fail_next.extend([502] * 10)
    with pytest.raises(ProviderError, match="answered HTTP 502"):
        provider.offers()


def test_a_launch_whose_answer_is_lost_does_not_rent_twice(make_lambda: MakeLambda) -> None:
    fake, provider = make_lambda(timeout_s=0.5)
    fake.faults.hang_paths = ("/api/v1/instance-operations/launch",)
    fake.faults.hang_next, fake.faults.hang_s = 1, 1.5  # created, then the answer is too late
    info = provider.create(order())
    assert len(fake.live()) == 1 and fake.live()[0].id == info.external_id
    # A 5xx before anything was created is simply retried.
    fake.faults.fail_next.extend([503, 500])
    provider.create(order("A10", 1))
    assert len(fake.live()) == 2


def test_an_unhealthy_instance_is_failed_with_the_reason(make_lambda: MakeLambda) -> None:
    _, provider = make_lambda(LambdaSettings(unhealthy={"1"}))
    info = provider.create(order())
    seen = provider.get(info.external_id)
    assert seen is not None and seen.state == "failed"
    assert (
        str(seen.error) == "Lambda reports the instance unhealthy"
        and seen.nodes[0].state == "failed"
    )


def test_a_missing_key_is_refused_with_the_command_to_set_it() -> None:
    with pytest.raises(XyclawError, match="xyclaw secrets set lambda_api_key"):
        LambdaProvider("")
