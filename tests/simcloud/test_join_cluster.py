"""One node added to a running cluster, on its fabric (issue 34): a multi-node offer rents 2
nodes or more, but the replacement for one hung node is one. ``joins`` names the cluster;
the node sees that cluster's shared volume and peers, and is billed as its own cluster."""

from __future__ import annotations

from tests.simcloud.conftest import ServerMaker
from tests.simcloud.helpers import Api, FakeFactory, a800_body


def _running(api: Api, pubkey: str) -> dict[str, object]:
    reply = api.create(a800_body(pubkey), "first")
    assert reply.status_code == 202, reply.text
    return api.wait_state(reply.json()["cluster"]["id"], "running")


def test_one_node_joins_a_running_cluster_on_its_fabric_and_volume(
    make_server: ServerMaker, pubkey: str
) -> None:
    factory = FakeFactory()
    server = make_server(factory=factory)
    api = Api(server)
    first = _running(api, pubkey)
    alone = api.create(a800_body(pubkey, gpu_count=8), "alone")  # not without joining
    assert alone.status_code == 400 and "16, 32 cards" in alone.json()["error"]["message"]

    reply = api.create(a800_body(pubkey, gpu_count=8, joins=first["id"]), "join")
    assert reply.status_code == 202, reply.text
    joined = api.wait_state(reply.json()["cluster"]["id"], "running")
    assert (joined["node_count"], joined["gpu_count"], joined["joins"]) == (1, 8, first["id"])
    assert (joined["fabric"], joined["region"], joined["gpu"]) == ("ib-hdr-200", "Xiamen", "A800")
    launches = {n.launch.node_id: n.launch for n in factory.started}
    (new,) = [launches[n["id"]] for n in joined["nodes"]]  # type: ignore[index]
    old = [launches[n["id"]] for n in first["nodes"]]  # type: ignore[index]
    assert new.shared_volume == old[0].shared_volume  # the cluster's checkpoints are there
    assert new.cluster_id == first["id"] and new.rank == 2
    assert new.peers[:2] == old[0].peers and len(new.peers) == 3
    api.close()


def test_a_join_needs_a_running_cluster_of_the_same_shape(
    make_server: ServerMaker, pubkey: str
) -> None:
    server = make_server(factory=FakeFactory())
    api = Api(server)
    first = _running(api, pubkey)
    nowhere = api.create(a800_body(pubkey, gpu_count=8, joins="c-nope"), "j1")
    assert nowhere.status_code == 404 and "c-nope" in nowhere.json()["error"]["message"]
    other = api.create(
        a800_body(pubkey, gpu_count=8, joins=first["id"], region="Yinchuan", fabric="roce-100"),
        "j2",
    )
    assert other.status_code == 409, other.text
    assert "ib-hdr-200 in Xiamen" in other.json()["error"]["message"]
    assert api.http.delete(f"/clusters/{first['id']}").status_code == 202
    api.wait_state(str(first["id"]), "terminated")
    gone = api.create(a800_body(pubkey, gpu_count=8, joins=first["id"]), "j3")
    assert gone.status_code == 409 and "terminated" in gone.json()["error"]["message"]
    api.close()
