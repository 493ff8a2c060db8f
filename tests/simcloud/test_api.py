"""The control plane over real HTTP: auth, offers, validation, capacity, faults, idempotency."""

from __future__ import annotations

from collections.abc import Callable

import httpx
import pytest

from tests.simcloud.conftest import ServerMaker
from tests.simcloud.helpers import Api, FakeFactory, a800_body
from xyclaw.catalog import Catalog
from xyclaw.sim.cloud import CloudSettings

ApiMaker = Callable[..., Api]


@pytest.fixture
def api(make_server: ServerMaker, api_of: ApiMaker) -> Api:
    return api_of(make_server(factory=FakeFactory()))


def test_health_needs_no_token_but_everything_else_does(
    make_server: ServerMaker, api_of: ApiMaker
) -> None:
    server = make_server(factory=FakeFactory())
    assert httpx.get(f"{server.url}/health").json()["ok"] is True
    anonymous = httpx.get(f"{server.url}/offers")
    assert anonymous.status_code == 401
    assert anonymous.json()["error"]["code"] == "unauthorized"
    wrong = api_of(server, token="not-the-token").http.get("/clusters")
    assert wrong.status_code == 401
    assert server.cloud.token not in wrong.text


def test_offers_are_the_catalogs_sim_offers_with_live_availability(api: Api, pubkey: str) -> None:
    offers = api.http.get("/offers").json()["offers"]
    expected = {o.offer_id for o in Catalog.builtin().offers if o.provider == "sim"}
    assert {o["offer_id"] for o in offers} == expected
    ib = next(o for o in offers if o["offer_id"] == "xm-a800-ib")
    assert ib["node_counts"] == [2, 4]
    assert ib["price_per_gpu_hour_micros"] == 4_600_000
    assert ib["currency"] == "CNY"
    slice_ = next(o for o in offers if o["offer_id"] == "xm-a800-slice")
    assert slice_["available_gpus"] >= 2 * 128  # room for two 128-card slices
    before = ib["available_gpus"]

    assert api.create(a800_body(pubkey), "k1").status_code == 202
    after = {o["offer_id"]: o["available_gpus"] for o in api.http.get("/offers").json()["offers"]}
    assert after["xm-a800-ib"] == before - 16
    assert after["xm-a800-x8"] == before - 16  # same pool of A800 cards in Xiamen
    assert after["yc-a800-x8"] == next(
        o["available_gpus"] for o in offers if o["offer_id"] == "yc-a800-x8"
    )


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"gpu_count": 12}, ["gpu_count 12", "offered", "16, 32 cards", "xm-a800-ib"]),
        ({"gpus_per_node": 8, "gpu_count": 20}, ["not a multiple", "gpus_per_node 8"]),
        ({"region": "Atlantis"}, ["region", "Xiamen", "Yinchuan"]),
        ({"gpu": "B200"}, ["gpu", "A800", "RTX4090"]),
        ({"fabric": "roce-100"}, ["fabric roce-100", "ib-hdr-200", "roce-200"]),
        ({"fabric": "ib-fast"}, ["fabric", "ib-hdr-200"]),
        ({"ssh_public_key": "ssh-ed25519 nope"}, ["ssh_public_key"]),
        ({"image": "windows"}, ["image", "pytorch-2.1"]),
        ({"colour": "red"}, ["colour", "allowed", "gpu_count"]),
        ({"gpu_count": "16"}, ["gpu_count", "whole number"]),
    ],
)
def test_bad_requests_say_what_is_allowed(
    api: Api, pubkey: str, change: dict[str, object], words: list[str]
) -> None:
    reply = api.create(a800_body(pubkey, **change), "k")
    assert reply.status_code == 400, reply.text
    error = reply.json()["error"]
    assert error["code"] == "bad_request"
    for word in words:
        assert word in error["message"]


def test_create_needs_an_idempotency_key_and_a_json_body(api: Api, pubkey: str) -> None:
    reply = api.http.post("/clusters", json=a800_body(pubkey))
    assert reply.status_code == 400
    assert "Idempotency-Key" in reply.json()["error"]["message"]
    garbled = api.http.post("/clusters", content=b"{", headers={"Idempotency-Key": "k"})
    assert garbled.status_code == 400
    assert "JSON" in garbled.json()["error"]["message"]
    assert api.http.get("/nowhere").json()["error"]["code"] == "not_found"
    assert api.http.get("/clusters/c-missing").status_code == 404
    assert api.http.delete("/clusters/c-missing").status_code == 404


def test_single_node_offers_and_case_insensitive_names(api: Api, pubkey: str) -> None:
    body = {"gpu": "rtx 4090", "gpu_count": 4, "region": "xiamen", "fabric": "none",
            "ssh_public_key": pubkey, "name": "demo"}  # fmt: skip
    cluster = api.create(body, "k-4090").json()["cluster"]
    assert (cluster["gpu"], cluster["region"], cluster["gpus_per_node"]) == ("RTX4090", "Xiamen", 4)
    assert cluster["node_count"] == 1
    assert cluster["name"] == "demo"
    assert cluster["image"] == "pytorch-2.1"
    assert cluster["price_per_gpu_hour_micros"] == 1_900_000


def test_same_key_same_body_returns_the_first_cluster(api: Api, pubkey: str) -> None:
    first = api.create(a800_body(pubkey), "same")
    again = api.create(a800_body(pubkey), "same")
    assert (first.status_code, again.status_code) == (202, 200)
    assert again.json()["cluster"]["id"] == first.json()["cluster"]["id"]
    assert len(api.http.get("/clusters").json()["clusters"]) == 1
    conflict = api.create(a800_body(pubkey, gpu_count=32), "same")
    assert conflict.status_code == 409
    assert conflict.json()["error"]["code"] == "idempotency_conflict"
    assert first.json()["cluster"]["id"] in conflict.json()["error"]["message"]


def test_capacity_errors_name_region_gpu_asked_and_free(api: Api, pubkey: str) -> None:
    api.faults(capacity={"Xiamen": {"A800": 24}})
    assert api.create(a800_body(pubkey), "a").status_code == 202
    reply = api.create(a800_body(pubkey), "b")
    assert reply.status_code == 422
    error = reply.json()["error"]
    assert error["code"] == "insufficient_capacity"
    for word in ("Xiamen", "A800", "16 cards asked", "8 free"):
        assert word in error["message"]
    offers = api.http.get("/offers").json()["offers"]
    assert next(o for o in offers if o["offer_id"] == "xm-a800-ib")["available_gpus"] == 8


def test_rate_limit_answers_429_with_retry_after(api: Api) -> None:
    api.faults(rate_limit_per_s=2)
    replies = [api.http.get("/clusters") for _ in range(6)]
    limited = [r for r in replies if r.status_code == 429]
    assert limited, [r.status_code for r in replies]
    assert limited[0].json()["error"]["code"] == "rate_limited"
    wait = float(limited[0].headers["Retry-After"])
    assert 0 < wait <= 0.5
    import time

    time.sleep(wait + 0.05)
    assert api.http.get("/clusters").status_code == 200
    api.faults(rate_limit_per_s=0)
    assert all(api.http.get("/clusters").status_code == 200 for _ in range(10))


def test_injected_errors_spare_health_and_the_fault_api(api: Api, pubkey: str) -> None:
    api.faults(error_rate=1.0, error_status=502)
    reply = api.create(a800_body(pubkey), "k")
    assert reply.status_code == 502
    assert reply.json()["error"]["code"] == "internal"
    assert api.http.get(f"{api.server.url}/health").status_code == 200
    assert api.faults(reset=True)["error_rate"] == 0
    assert api.http.get("/clusters").json()["clusters"] == []  # the failed create did nothing


def test_a_timed_out_create_is_recovered_by_retrying_the_same_key(api: Api, pubkey: str) -> None:
    api.faults(timeout_rate=1.0, timeout_s=1.0)
    with pytest.raises(httpx.ReadTimeout):
        api.http.post(
            "/clusters",
            json=a800_body(pubkey),
            headers={"Idempotency-Key": "slow"},
            timeout=0.2,
        )
    api.faults(timeout_rate=0.0)
    retry = api.create(a800_body(pubkey), "slow")
    assert retry.status_code == 200  # the first call created it; the retry finds it
    assert len(api.http.get("/clusters").json()["clusters"]) == 1


def test_fault_settings_are_checked(api: Api) -> None:
    for bad in ({"error_rate": 2}, {"error_status": 404}, {"capacity": {"Mars": {"A800": 1}}},
                {"fail_nodes": -1}, {"bogus": 1}):  # fmt: skip
        reply = api.http.post("/_faults", json=bad)
        assert reply.status_code == 400, bad
    faults = api.http.get("/_faults").json()
    assert faults["capacity"]["Xiamen"]["A800"] >= 256


def test_settings_reach_the_faults(make_server: ServerMaker, api_of: ApiMaker) -> None:
    settings = CloudSettings.fast(terminate_delay_s=1.5, capacity={"Xiamen": {"A800": 64}})
    api = api_of(make_server(settings, factory=FakeFactory()))
    faults = api.http.get("/_faults").json()
    assert faults["terminate_delay_s"] == 1.5
    assert faults["capacity"] == {"Xiamen": {"A800": 64}}
