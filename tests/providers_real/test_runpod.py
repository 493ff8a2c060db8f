"""The ``runpod`` adapter against a fake RunPod on loopback (REST v1 pods, GraphQL prices).

What a user would notice: secure and community offers told apart, one pod per intent
even when an answer is lost, the price RunPod bills read back, SSH over an exposed TCP
port, and a listing it cannot trust read as "state unknown", never as "terminated".
"""

from __future__ import annotations

import time

import pytest

from tests.providers_real.conftest import APP_KEY, MakeRunPod
from xyclaw.errors import CapacityError, ProviderStateUnknownError
from xyclaw.providers.base import ClusterOrder, Feature
from xyclaw.providers.http_retry import ApiError
from xyclaw.providers.runpod import RunPodProvider


def order(
    gpu: str = "RTX 4090", count: int = 1, key: str = "xyclaw-c1-abc", region: str | None = None
) -> ClusterOrder:
    return ClusterOrder(
        gpu=gpu,
        gpu_count=count,
        region=region,
        fabric=None,
        idempotency_key=key,
        ssh_public_key=APP_KEY,
        gpus_per_node=count,
    )


def test_offers_tell_secure_from_community_and_leave_out_what_is_out_of_stock(
    make_runpod: MakeRunPod,
) -> None:
    _, provider = make_runpod()
    offers = {o.offer_id: o for o in provider.offers()}
    community = offers["NVIDIA GeForce RTX 4090@COMMUNITYx1"]
    assert (community.gpu, community.region, community.price_micro) == (
        "RTX4090",
        "community",
        340_000,
    )
    assert community.note.startswith("community cloud, stock medium")
    assert community.community and not offers["NVIDIA GeForce RTX 4090@SECUREx1"].community
    secure = offers["NVIDIA H100 80GB HBM3@SECUREx8"]
    assert (secure.gpu, secure.gpus_per_node, secure.price_micro) == ("H100", 8, 2_690_000)
    assert secure.note == "secure cloud, stock high"
    assert not any(o.gpu == "A40" for o in offers.values())
    assert [(offer, str(why)) for offer, why in provider.filtered] == [
        ("NVIDIA A40@SECURE", "out of stock"),
        ("cluster NVIDIA A100-SXM4-80GB", "out of stock"),
    ]
    _, secure_only = make_runpod(secure_only=True)
    kept = secure_only.offers()
    assert {o.region for o in kept if o.kind == "node"} == {"secure"}
    assert not any(o.community for o in kept)  # Instant Clusters run in secure data centres


def test_create_names_the_pod_exposes_ssh_and_reads_back_the_billed_price(
    make_runpod: MakeRunPod,
) -> None:
    fake, provider = make_runpod()
    info = provider.create(order())
    [post] = fake.requests_to("POST", "/v1/pods")
    assert post.body["name"] == "xyclaw-c1-abc" and post.body["cloudType"] == "COMMUNITY"
    assert post.body["ports"] == ["22/tcp"] and post.body["supportPublicIp"] is True
    assert post.body["env"] == {} and post.body["volumeInGb"] == 0
    assert APP_KEY in post.body["dockerStartCmd"][2]
    assert info.idempotency_key == "xyclaw-c1-abc" and info.state == "running"
    assert info.extra["community"] is True
    # adjustedCostPerHr (what RunPod bills), not the list price (SkyPilot #4914).
    assert info.price_per_gpu_hour_micros == 306_000
    [node] = info.nodes
    assert (node.ssh_host, node.ssh_port, node.ssh_user) == ("127.0.0.1", 40001, "root")


def test_a_repeated_or_interrupted_create_adopts_the_first_pod(make_runpod: MakeRunPod) -> None:
    fake, provider = make_runpod()
    first = provider.create(order())
    assert provider.create(order()).external_id == first.external_id
    fake.faults.hang_next, fake.faults.hang_s, fake.faults.hang_paths = 1, 1.5, ("/v1/pods",)
    _, impatient = make_runpod(fake, timeout_s=0.5)
    impatient.create(order(key="xyclaw-c2-def"))
    assert sorted(p.name for p in fake.billing()) == ["xyclaw-c1-abc", "xyclaw-c2-def"]


def test_get_list_terminate_and_terminate_again(make_runpod: MakeRunPod) -> None:
    fake, provider = make_runpod()
    fake.add_pod("my-own-pod")
    info = provider.create(order("H100", 2, region="secure"))
    assert [c.external_id for c in provider.clusters()] == [info.external_id]  # not the user's
    got = provider.get(info.external_id)
    assert got is not None and (got.gpu, got.gpu_count, got.region) == ("H100", 2, "EU-RO-1")
    assert provider.terminate(info.external_id).state == "terminated"
    assert [p.name for p in fake.billing()] == ["my-own-pod"]
    assert provider.terminate(info.external_id).state == "terminated"
    assert [r.method for r in fake.log if r.path.startswith("/v1/pods/")][-2:] == [
        "DELETE",
        "DELETE",
    ]


def test_a_storm_of_429_and_5xx_is_ridden_out(make_runpod: MakeRunPod) -> None:
    fake, provider = make_runpod()
    info = provider.create(order())
    fake.faults.fail_next.extend([429, 500, 503, 502, 429])
    started = time.monotonic()
    assert [c.external_id for c in provider.clusters()] == [info.external_id]
    assert time.monotonic() - started < 5


@pytest.mark.parametrize("mode", ["410", "success-false", "renamed", "shape"])
def test_a_listing_it_cannot_trust_is_state_unknown_never_terminated(
    make_runpod: MakeRunPod, mode: str
) -> None:
    fake, provider = make_runpod()
    info = provider.create(order())
    fake.listing_mode = mode
    with pytest.raises(ProviderStateUnknownError, match="state of its pods is unknown"):
        provider.clusters()
    if mode != "shape":
        with pytest.raises(ProviderStateUnknownError):
            provider.get(info.external_id)
    assert len(fake.billing()) == 1


def test_a_bad_key_says_how_to_set_it(make_runpod: MakeRunPod) -> None:
    _, provider = make_runpod(key="wrong")
    for call in (provider.offers, provider.clusters):
        with pytest.raises(ApiError) as raised:
            call()
        assert "did not accept the API key" in raised.value.message
        assert raised.value.hint and "xyclaw secrets set runpod_api_key" in raised.value.hint


def test_no_stock_is_a_capacity_error_and_rents_nothing(make_runpod: MakeRunPod) -> None:
    fake, provider = make_runpod()
    with pytest.raises(CapacityError, match="no 1 x A40 in stock"):
        provider.create(order("A40"))
    assert fake.billing() == [] and not fake.requests_to("POST", "/v1/pods")


def test_capabilities_say_why_not() -> None:
    lacking = RunPodProvider.capabilities.lacking(
        [Feature.MULTI_NODE, Feature.FABRIC, Feature.HOST_SYSTEM]
    )
    assert list(lacking) == [Feature.HOST_SYSTEM]  # several nodes: RunPod Instant Clusters
    assert "no systemd" in str(lacking[Feature.HOST_SYSTEM])
