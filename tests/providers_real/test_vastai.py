"""The ``vastai`` adapter against a fake Vast.ai on loopback (shapes from vast-cli 1.9.1).

What a user would notice: what the marketplace offers and what it says about the host,
one rental per intent even when an answer is lost, every instance found across pages,
and a listing it cannot trust read as "state unknown", never as "gone".
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.providers_real.conftest import APP_KEY, FAST
from tests.providers_real.fake_vast import KEY, FakeVast
from tests.providers_real.fakehttp import FakeServer
from xyclaw.errors import CapacityError, ProviderStateUnknownError
from xyclaw.providers.base import ClusterOrder, Feature
from xyclaw.providers.http_retry import ApiError
from xyclaw.providers.vastai import VastProvider

MakeVast = Callable[..., tuple[FakeVast, VastProvider]]


@pytest.fixture
def make_vast(tmp_path: Path) -> Iterator[MakeVast]:
    started: list[tuple[FakeServer, VastProvider]] = []

    def make(
        fake: FakeVast | None = None, *, key: str = KEY, **options: object
    ) -> tuple[FakeVast, VastProvider]:
        fake = fake or FakeVast()
        server = FakeServer(fake).start()
        values: dict[str, object] = {
            "base_url": server.url,
            "state_file": tmp_path / "vast-instances.json",
            "retry": FAST,
            "timeout_s": 5.0,
        }
        values.update(options)
        provider = VastProvider(key, **values)  # type: ignore[arg-type]
        started.append((server, provider))
        return fake, provider

    yield make
    for server, provider in started:
        provider.close()
        server.stop()


def order(gpu: str = "H100", count: int = 1, key: str = "xyclaw-c1-abc") -> ClusterOrder:
    return ClusterOrder(
        gpu=gpu,
        gpu_count=count,
        region=None,
        fabric=None,
        idempotency_key=key,
        ssh_public_key=APP_KEY,
        gpus_per_node=count,
    )


def test_offers_carry_the_hosts_facts_and_leave_out_hosts_without_an_ssh_port(
    make_vast: MakeVast,
) -> None:
    fake, provider = make_vast()
    offers = {o.offer_id: o for o in provider.offers()}
    assert set(offers) == {"101", "102", "103", "105"}
    assert [(offer, str(why)) for offer, why in provider.filtered] == [
        ("104", "no direct port: XyClaw cannot reach SSH on it")
    ]
    h100x8 = offers["102"]
    assert (h100x8.gpu, h100x8.gpus_per_node, h100x8.region) == ("H100", 8, "Norway")
    assert (h100x8.price_micro, h100x8.currency) == (2_050_000, "USD")  # 16.40 / 8 per GPU-h
    assert offers["103"].note.startswith("community host, reliability 0.97")
    assert offers["101"].note == (
        "verified host, reliability 0.97, DLPerf 25.1, inet 512/802 Mbps up/down, CUDA 12.4"
    )
    [search] = fake.requests_to("POST", "/api/v0/bundles/")
    assert search.body["rentable"] == {"eq": True} and search.body["rented"] == {"eq": False}
    assert search.body["type"] == "on-demand"


def test_verified_only_asks_the_marketplace_for_verified_hosts(make_vast: MakeVast) -> None:
    _, provider = make_vast(verified_only=True)
    assert {o.offer_id for o in provider.offers()} == {"101", "102", "105"}


def test_rent_labels_the_instance_with_the_intent_and_trusts_only_the_clusters_key(
    make_vast: MakeVast,
) -> None:
    fake, provider = make_vast()
    info = provider.create(order())
    [put] = fake.requests_to("PUT", "/api/v0/asks/101/")  # the cheapest 1 x H100 with a port
    assert put.body["label"] == "xyclaw-c1-abc" and put.body["client_id"] == "me"
    assert put.body["runtype"] == "args"  # Vast's ssh run types add the account's keys
    assert APP_KEY in put.body["args"][1] and put.body["env"] == {"-p 22:22": "1"}
    assert info.idempotency_key == "xyclaw-c1-abc" and info.state == "running"
    # The price is the instance's own, read back after renting it.
    assert (info.gpu, info.gpu_count, info.price_per_gpu_hour_micros) == ("H100", 1, 1_950_000)
    [node] = info.nodes
    assert (node.ssh_host, node.ssh_user) == ("127.0.0.1", "root")
    assert node.ssh_port == 22000 + int(info.external_id) % 1000  # the direct port, not the proxy
    assert info.extra["community"] is False


def test_a_repeated_or_interrupted_rent_adopts_the_first_instance(make_vast: MakeVast) -> None:
    fake, provider = make_vast()
    first = provider.create(order())
    assert provider.create(order()).external_id == first.external_id
    # The rent's answer is lost (the client times out after Vast created it): the retry
    # lists, finds the label, and rents nothing more.
    fake.faults.hang_next, fake.faults.hang_s = 1, 1.5
    fake.faults.hang_paths = ("/api/v0/asks/101/",)
    _, impatient = make_vast(fake, timeout_s=0.5)
    second = impatient.create(order(key="xyclaw-c2-def"))
    assert len(fake.requests_to("PUT", "/api/v0/asks/101/")) == 2
    assert sorted(i.label or "" for i in fake.billing()) == ["xyclaw-c1-abc", "xyclaw-c2-def"]
    assert second.idempotency_key == "xyclaw-c2-def"


def test_the_listing_is_read_page_by_page_and_never_lists_the_users_own(
    make_vast: MakeVast,
) -> None:
    fake, provider = make_vast(FakeVast(others=3))
    for n in range(57):
        with fake.lock:
            fake._rent(fake.offers[2], f"xyclaw-c{n}-k", "img", [])
    listed = provider.clusters()
    assert len(listed) == 57 and all(c.name.startswith("xyclaw-") for c in listed)
    pages = fake.requests_to("GET", "/api/v1/instances/")
    assert len(pages) == 3  # 60 instances, 25 a page
    assert provider.instances()[0]["label"] == "my-own-notebook"


def test_get_and_destroy_and_destroy_again(make_vast: MakeVast) -> None:
    fake, provider = make_vast()
    info = provider.create(order("RTX 4090", 2))
    got = provider.get(info.external_id)
    assert got is not None and got.state == "running" and got.gpu == "RTX4090"
    ended = provider.terminate(info.external_id)
    assert ended.state == "terminated" and fake.billing() == []
    assert [r.method for r in fake.log if r.path.endswith(f"/{info.external_id}/")][-1] == (
        "DELETE"
    )
    # Destroying it again (a retried release) is done, not an error: no_such_instance.
    assert provider.terminate(info.external_id).state == "terminated"
    gone = provider.get(info.external_id)
    assert gone is not None and gone.state == "terminated"


def test_a_storm_of_429_and_5xx_is_ridden_out(make_vast: MakeVast) -> None:
    fake, provider = make_vast()
    info = provider.create(order())
    fake.faults.fail_next.extend([429, 503, 502, 500, 429])
    started = time.monotonic()
    assert [c.external_id for c in provider.clusters()] == [info.external_id]
    assert time.monotonic() - started < 5
    assert [e.status for e in fake.log[-6:]] == [429, 503, 502, 500, 429, 200]


@pytest.mark.parametrize("mode", ["410", "success-false", "renamed", "page-missing"])
def test_a_listing_it_cannot_trust_is_state_unknown_never_an_empty_list(
    make_vast: MakeVast, mode: str
) -> None:
    fake, provider = make_vast()
    info = provider.create(order())
    for n in range(30):  # two pages, so a missing page can be noticed
        with fake.lock:
            fake._rent(fake.offers[2], f"xyclaw-x{n}-k", "img", [])
    fake.listing_mode = mode
    with pytest.raises(ProviderStateUnknownError) as raised:
        provider.clusters()
    assert "unknown" in raised.value.message and "keeps metering" in raised.value.message
    if mode in ("410", "success-false"):
        with pytest.raises(ProviderStateUnknownError):
            provider.get(info.external_id)
    assert len(fake.billing()) == 31  # nothing was released on a guess


def test_a_bad_key_says_which_key_and_how_to_set_it(make_vast: MakeVast) -> None:
    _, provider = make_vast(key="wrong")
    for call in (provider.offers, provider.clusters):
        with pytest.raises(ApiError) as raised:
            call()
        assert "did not accept the API key" in raised.value.message
        assert raised.value.hint and "xyclaw secrets set vastai_api_key" in raised.value.hint
        assert "wrong" not in raised.value.message


def test_an_offer_taken_meanwhile_is_a_capacity_error(make_vast: MakeVast) -> None:
    fake, provider = make_vast()
    with fake.lock:
        fake.offers = [o for o in fake.offers if o["gpu_name"] != "H100 SXM"]
    with pytest.raises(CapacityError, match="no 1 x H100 offer"):
        provider.create(order())
    assert fake.billing() == []


def test_capabilities_say_why_not() -> None:
    caps = VastProvider.capabilities
    lacking = caps.lacking([Feature.MULTI_NODE, Feature.HOST_SYSTEM, Feature.STOP_START])
    assert "share no private network" in str(lacking[Feature.MULTI_NODE])
    assert "no systemd" in str(lacking[Feature.HOST_SYSTEM])
    assert "storage" in str(lacking[Feature.STOP_START])
    assert caps.supports(Feature.CUSTOM_IMAGE)
