"""Provisioning, failures, termination, the ledger and restarts, driven by a fake clock."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.simcloud.conftest import ServerMaker
from tests.simcloud.helpers import Api, FakeClock, FakeFactory, a800_body, port_open
from xyclaw.errors import ProviderError
from xyclaw.sim.cloud import CloudApiError, CloudSettings, build_cloud

ApiMaker = Callable[..., Api]
SLOW = CloudSettings(provision_delay_s=10.0, per_node_delay_s=1.0, terminate_delay_s=5.0)
A800_IB = 4_600_000  # micro-CNY per card-hour


@pytest.fixture
def factory() -> FakeFactory:
    return FakeFactory()


def test_a_cluster_goes_pending_provisioning_running_then_terminated(
    make_server: ServerMaker, api_of: ApiMaker, clock: FakeClock, factory: FakeFactory, pubkey: str
) -> None:
    api = api_of(make_server(SLOW, clock=clock, factory=factory))
    created = clock.now
    reply = api.create(a800_body(pubkey), "k")
    assert reply.status_code == 202
    cluster = reply.json()["cluster"]
    assert cluster["state"] == "pending"
    assert [n["ssh"] for n in cluster["nodes"]] == [None, None]
    assert cluster["created_at"] == created

    clock.advance(1.0)  # pending lasts a tenth of the delay, at most 1 s
    api.wait_state(cluster["id"], "provisioning")
    clock.advance(10.0)
    api.wait_state(cluster["id"], "provisioning")
    api.wait_node(cluster["id"], 0, "running")
    nodes = api.cluster(cluster["id"])["nodes"]
    assert nodes[0]["ssh"]["user"] == "root"
    assert nodes[0]["ssh"]["host_key"].startswith("ssh-ed25519 ")
    assert nodes[1]["state"] == "provisioning"
    assert nodes[1]["ssh"] is None
    clock.advance(1.0)  # the second node needs a little longer
    running = api.wait_state(cluster["id"], "running")
    assert running["running_at"] == created + 12.0
    starts = [e["start"] for e in api.http.get("/billing").json()["entries"]]
    assert starts == [created + 11.0, created + 12.0]
    ports = [n["ssh"]["port"] for n in running["nodes"]]
    assert all(port_open(p) for p in ports)

    deleted = api.http.delete(f"/clusters/{cluster['id']}")
    assert deleted.status_code == 202
    assert deleted.json()["cluster"]["state"] == "terminating"
    assert all(port_open(p) for p in ports)  # still up (and billing) until terminated
    asked = clock.now
    clock.advance(5.0)
    done = api.wait_state(cluster["id"], "terminated")
    assert done["terminated_at"] == asked + 5.0
    assert not any(port_open(p) for p in ports)
    assert [e["end"] for e in api.http.get("/billing").json()["entries"]] == [asked + 5.0] * 2
    assert api.http.get("/clusters").json()["clusters"] == []
    listed = api.http.get("/clusters", params={"all": 1}).json()["clusters"]
    assert [c["id"] for c in listed] == [cluster["id"]]
    assert api.http.delete(f"/clusters/{cluster['id']}").status_code == 200


def test_the_ledger_bills_whole_seconds_per_node_in_integers(
    make_server: ServerMaker, api_of: ApiMaker, clock: FakeClock, factory: FakeFactory, pubkey: str
) -> None:
    api = api_of(make_server(clock=clock, factory=factory))
    big = api.create(a800_body(pubkey), "big").json()["cluster"]
    small_body = {"gpu": "RTX4090", "gpu_count": 1, "region": "Xiamen", "fabric": "none",
                  "ssh_public_key": pubkey}  # fmt: skip
    small = api.create(small_body, "small").json()["cluster"]
    api.wait_state(big["id"], "running")
    api.wait_state(small["id"], "running")

    clock.advance(3600.7)
    ledger = api.http.get("/billing").json()
    assert ledger["currency"] == "CNY"
    by_cluster = {}
    for entry in ledger["entries"]:
        assert entry["seconds"] == 3600
        assert entry["end"] is None
        by_cluster.setdefault(entry["cluster_id"], []).append(entry["amount_micros"])
    assert by_cluster[big["id"]] == [8 * A800_IB, 8 * A800_IB]  # one hour of 8 cards, per node
    assert by_cluster[small["id"]] == [1_900_000]
    assert ledger["total_micros"] == 16 * A800_IB + 1_900_000

    clock.advance(10.2)
    api.http.delete(f"/clusters/{small['id']}")
    api.wait_state(small["id"], "terminated")
    clock.advance(100.0)
    entries = {e["cluster_id"]: e for e in api.http.get("/billing").json()["entries"]}
    stopped = entries[small["id"]]
    assert stopped["seconds"] == 3610  # billing ended at the release
    assert stopped["amount_micros"] == 3610 * 1_900_000 // 3600
    assert entries[big["id"]]["seconds"] == 3710  # the other one keeps counting
    assert entries[big["id"]]["amount_micros"] == 3710 * 8 * A800_IB // 3600


def test_failing_nodes_fail_the_cluster_but_the_others_keep_running(
    make_server: ServerMaker, api_of: ApiMaker, clock: FakeClock, factory: FakeFactory, pubkey: str
) -> None:
    api = api_of(make_server(clock=clock, factory=factory))
    api.faults(fail_nodes=1, capacity={"Xiamen": {"A800": 64}})
    cluster = api.create(a800_body(pubkey, gpu_count=32), "half").json()["cluster"]
    failed = api.wait_state(cluster["id"], "failed")
    bad = failed["nodes"][3]
    assert bad["state"] == "failed"
    assert bad["ssh"] is None
    assert bad["hostname"] in failed["error"]
    assert failed["error"].startswith("1 of 4 nodes failed")
    assert [n["state"] for n in failed["nodes"][:3]] == ["running"] * 3
    assert len(api.http.get("/billing").json()["entries"]) == 3
    offers = {o["offer_id"]: o for o in api.http.get("/offers").json()["offers"]}
    assert offers["xm-a800-ib"]["available_gpus"] == 64 - 24  # the failed node's cards are free

    second = api.create(a800_body(pubkey), "next").json()["cluster"]
    assert api.wait_state(second["id"], "running", "failed")["state"] == "running"

    api.http.delete(f"/clusters/{cluster['id']}")
    api.wait_state(cluster["id"], "terminated")
    clock.advance(60)
    ended = [
        e for e in api.http.get("/billing").json()["entries"] if e["cluster_id"] == cluster["id"]
    ]
    assert all(e["seconds"] == 0 for e in ended)


def test_node_faults_reach_the_running_node(
    make_server: ServerMaker, api_of: ApiMaker, factory: FakeFactory, pubkey: str
) -> None:
    api = api_of(make_server(factory=factory))
    cluster = api.create(a800_body(pubkey), "k").json()["cluster"]
    node_id = api.wait_state(cluster["id"], "running")["nodes"][1]["id"]
    reply = api.http.post(f"/_nodes/{node_id}/faults", json={"fault": "node_down", "for_s": 3})
    assert reply.status_code == 200, reply.text
    hurt = next(n for n in factory.started if n.launch.node_id == node_id)
    assert hurt.faults == [("node_down", {"for_s": 3})]
    unknown = api.http.post(f"/_nodes/{node_id}/faults", json={"fault": "meteor"})
    assert unknown.status_code == 400
    assert "meteor" in unknown.json()["error"]["message"]
    assert api.http.post("/_nodes/n-nope/faults", json={"fault": "clear"}).status_code == 404
    api.http.delete(f"/clusters/{cluster['id']}")
    api.wait_state(cluster["id"], "terminated")
    gone = api.http.post(f"/_nodes/{node_id}/faults", json={"fault": "clear"})
    assert gone.status_code == 400
    assert "running nodes only" in gone.json()["error"]["message"]


def test_a_restarted_cloud_resumes_everything_and_billed_while_down(
    make_server: ServerMaker, api_of: ApiMaker, clock: FakeClock, pubkey: str
) -> None:
    first = make_server(SLOW, clock=clock, factory=FakeFactory())
    api = api_of(first)
    api.faults(provision_delay_s=0, per_node_delay_s=0)
    running = api.create(a800_body(pubkey), "run").json()["cluster"]
    running = api.wait_state(running["id"], "running")
    api.faults(provision_delay_s=50)
    booting = api.create(a800_body(pubkey), "boot").json()["cluster"]
    api.faults(terminate_delay_s=30, provision_delay_s=0)
    leaving = api.create(a800_body(pubkey), "leave").json()["cluster"]
    api.wait_state(leaving["id"], "running")
    api.http.delete(f"/clusters/{leaving['id']}")
    asked = clock.now
    before = {e["node_id"]: e["start"] for e in api.http.get("/billing").json()["entries"]}
    first.stop()

    clock.advance(600.0)  # the cloud is down for ten minutes
    second = make_server(SLOW, clock=clock, factory=FakeFactory())
    api2 = api_of(second)
    again = api2.cluster(running["id"])
    assert again["state"] == "running"
    assert [n["ssh"]["host_key"] for n in again["nodes"]] == [
        n["ssh"]["host_key"] for n in running["nodes"]
    ]
    assert [n["ssh"]["port"] for n in again["nodes"]] == [
        n["ssh"]["port"] for n in running["nodes"]
    ]
    assert all(port_open(n["ssh"]["port"]) for n in again["nodes"])
    assert api2.wait_state(booting["id"], "running")["state"] == "running"
    gone = api2.wait_state(leaving["id"], "terminated")
    assert gone["terminated_at"] == asked + 30.0

    ledger = api2.http.get("/billing").json()["entries"]
    for entry in ledger:
        if entry["cluster_id"] == running["id"]:
            assert entry["start"] == before[entry["node_id"]]
            assert entry["seconds"] >= 600  # billed while the cloud was down
            assert entry["end"] is None
        if entry["cluster_id"] == leaving["id"]:
            assert entry["end"] == asked + 30.0
    replay = api2.create(a800_body(pubkey), "run")
    assert replay.status_code == 200
    assert replay.json()["cluster"]["id"] == running["id"]


def test_one_folder_is_served_by_one_cloud_at_a_time(
    make_server: ServerMaker, state_dir: Path, factory: FakeFactory
) -> None:
    server = make_server(factory=factory)
    assert (state_dir / "server.json").stat().st_mode & 0o777 == 0o600
    with pytest.raises(ProviderError, match="another simulated cloud is serving"):
        make_server(factory=factory)
    server.stop()
    assert not (state_dir / "server.json").exists()
    make_server(factory=factory)  # the folder is free again


def test_the_cloud_can_be_driven_without_http(
    tmp_path: Path, clock: FakeClock, factory: FakeFactory, pubkey: str
) -> None:
    settings = CloudSettings(provision_delay_s=0.0, per_node_delay_s=5.0, terminate_delay_s=0.0)
    cloud = build_cloud(tmp_path / "inproc", settings, node_factory=factory, clock=clock)
    cloud.open()
    try:
        status, body = cloud.create_cluster(a800_body(pubkey, gpu_count=32), "k")
        assert status == 202
        cluster_id = body["cluster"]["id"]
        deadline = time.monotonic() + 10
        while cloud.get_cluster(cluster_id)[1]["cluster"]["state"] != "running":
            assert time.monotonic() < deadline  # no delay at all: the clock never moves here
            time.sleep(0.01)
        assert len(factory.started) == 4
        with pytest.raises(CloudApiError) as caught:
            cloud.create_cluster(a800_body(pubkey, gpu_count=3), "k2")
        assert (caught.value.status, caught.value.code) == (400, "bad_request")
    finally:
        cloud.close()
    assert all(not port_open(node.port) for node in factory.started)
