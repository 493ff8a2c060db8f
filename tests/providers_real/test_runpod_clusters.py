"""RunPod Instant Clusters (several nodes) against the fake RunPod on loopback.

What a user would notice: a 2-node plan rents one Instant Cluster (one createCluster, the
key on its name, no second cluster after a lost answer or a crash), its nodes' SSH and
their private addresses, the price RunPod bills, a release that is not called done while
any pod still bills, and a listing it cannot trust read as "state unknown".
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.providers_real.conftest import APP_KEY, MakeRunPod
from tests.providers_real.fake_runpod import FakeRunPod
from tests.providers_real.fakehttp import FakeServer
from xyclaw.errors import CapacityError, ProviderStateUnknownError
from xyclaw.providers.base import ClusterOrder
from xyclaw.providers.cloud_api import UnsupportedRequestError

H100 = "NVIDIA H100 80GB HBM3"


def two_nodes(key: str = "xyclaw-c7-two", region: str | None = "EU-RO-1") -> ClusterOrder:
    return ClusterOrder(
        gpu="H100",
        gpu_count=16,
        region=region,
        fabric=None,
        idempotency_key=key,
        ssh_public_key=APP_KEY,
        gpus_per_node=8,
    )


def creates(fake: FakeRunPod) -> list[str]:
    return [
        str(r.body["query"])
        for r in fake.requests_to("POST", "/graphql")
        if "createCluster" in str(r.body.get("query"))
    ]


def test_cluster_offers_are_2_to_8_pods_with_the_network_runpod_names(
    make_runpod: MakeRunPod,
) -> None:
    _, provider = make_runpod()
    offers = {o.offer_id: o for o in provider.offers()}
    cluster = offers[f"cluster:{H100}@EU-RO-1"]
    assert (cluster.kind, cluster.gpu, cluster.gpus_per_node) == ("cluster", "H100", 8)
    assert cluster.node_counts == (2, 3, 4, 5, 6, 7, 8)
    assert (cluster.fabric, cluster.price_micro, cluster.region) == (
        "eth-100",
        2_990_000,
        "EU-RO-1",
    )
    assert "100 to 3200 Gb/s" in cluster.host and not cluster.community
    assert f"cluster:{H100}@US-TX-3" in offers
    assert not any(o.kind == "cluster" and o.gpu == "A100" for o in offers.values())
    left_out = [(offer, str(why)) for offer, why in provider.filtered]
    assert ("cluster NVIDIA A100-SXM4-80GB", "out of stock") in left_out
    # Single pods are still one node each.
    assert offers[f"{H100}@SECUREx8"].node_counts == (1,)


def test_a_cluster_query_runpod_refuses_leaves_single_pods_offered(
    make_runpod: MakeRunPod,
) -> None:
    fake, provider = make_runpod()
    fake.cluster_mode = "renamed-types"
    offers = provider.offers()
    assert offers and all(o.kind == "node" for o in offers)
    [(_, why)] = [f for f in provider.filtered if f[0] == "Instant Clusters"]
    assert 'Cannot query field "clusterPrice"' in str(why)


def test_two_nodes_rent_one_instant_cluster_with_ssh_and_private_addresses(
    make_runpod: MakeRunPod,
) -> None:
    fake, provider = make_runpod()
    info = provider.create(two_nodes())
    [mutation] = creates(fake)
    for part in (
        'clusterName: "xyclaw-c7-two"',
        f'gpuTypeId: "{H100}"',
        "podCount: 2",
        "gpuCountPerPod: 8",
        "type: TRAINING",
        "deployCost: 47.84",  # 2.99 x 16 per hour: without it RunPod refuses
        'dataCenterId: "EU-RO-1"',
        'ports: "22/tcp"',
    ):
        assert part in mutation
    assert "minCudaVersion" not in mutation and "env:" not in mutation
    assert APP_KEY.split()[1] in mutation
    assert not fake.requests_to("POST", "/v1/pods")
    assert info.external_id.startswith("cluster:") and info.idempotency_key == "xyclaw-c7-two"
    assert (info.state, info.gpu, info.gpu_count, info.gpus_per_node) == ("running", "H100", 16, 8)
    assert (info.fabric, info.region) == ("eth-100", "EU-RO-1")
    assert info.price_per_gpu_hour_micros == 2_691_000  # adjustedCostPerHr, not the list price
    assert [n.rank for n in info.nodes] == [0, 1]
    assert all(n.ssh_host == "127.0.0.1" and n.ssh_port for n in info.nodes)
    assert len({n.ssh_port for n in info.nodes}) == 2
    # Each node's address on the cluster network (clusterIp), for NCCL and MASTER_ADDR.
    assert [n.private_ip for n in info.nodes] == ["10.65.0.2", "10.65.0.3"]
    assert info.extra["private_ips"] == ("10.65.0.2", "10.65.0.3")
    assert len(fake.billing()) == 2


def test_a_lost_answer_or_a_crash_after_create_adopts_the_cluster(
    make_runpod: MakeRunPod,
) -> None:
    fake, provider = make_runpod()
    fake.create_delay_s = 1.2  # the cluster is made; its answer comes after the timeout
    _, impatient = make_runpod(fake, timeout_s=0.4)
    first = impatient.create(two_nodes())
    fake.create_delay_s = 0.0
    # A new process (the first one died before recording) asks again with the same key.
    again = provider.create(two_nodes())
    assert again.external_id == first.external_id
    assert len(creates(fake)) == 1 and len(fake.clusters) == 1 and len(fake.billing()) == 2


def test_the_listing_shows_the_cluster_once_beside_single_pods_not_the_users(
    make_runpod: MakeRunPod,
) -> None:
    fake, provider = make_runpod()
    fake.add_pod("my-own-pod")
    cluster = provider.create(two_nodes())
    single = provider.create(
        ClusterOrder("RTX 4090", 1, None, None, "xyclaw-c8-one", APP_KEY, gpus_per_node=1)
    )
    listed = {c.external_id: c for c in provider.clusters()}
    assert set(listed) == {cluster.external_id, single.external_id}
    assert len(listed[cluster.external_id].nodes) == 2
    got = provider.get(cluster.external_id)
    assert got is not None and [n.external_id for n in got.nodes] == [
        n.external_id for n in cluster.nodes
    ]


def test_release_is_done_only_when_every_pod_is_gone(make_runpod: MakeRunPod) -> None:
    fake, provider = make_runpod()
    info = provider.create(two_nodes())
    fake.linger_s = 0.6
    fake.forget_on_delete = True  # RunPod stops listing the cluster before its pods end
    ended = provider.terminate(info.external_id)
    [delete] = [
        str(r.body["query"])
        for r in fake.requests_to("POST", "/graphql")
        if "deleteCluster" in str(r.body["query"])
    ]
    assert f'deleteCluster(input: {{id: "{info.external_id.removeprefix("cluster:")}"}})' in delete
    assert ended.state == "terminating" and len(fake.billing()) == 2
    time.sleep(0.7)
    after = provider.get(info.external_id)
    assert after is not None and after.state == "terminated" and fake.billing() == []
    # Released again (another process, a retry): "Cluster not found" means done.
    _, other = make_runpod(fake, state_file=None)
    assert provider.terminate(info.external_id).state == "terminated"
    assert other.get(info.external_id) is None  # never seen there, and RunPod has none


def test_runpod_refusing_a_cluster_in_a_200_answer_rents_nothing(make_runpod: MakeRunPod) -> None:
    fake, provider = make_runpod()
    fake.cluster_mode = "no-capacity"
    with pytest.raises(CapacityError, match="Insufficient resources"):
        provider.create(two_nodes())
    assert fake.billing() == [] and len(creates(fake)) == 1
    with pytest.raises(CapacityError, match="no Instant Cluster of 2 x 8 A100"):
        provider.create(ClusterOrder("A100", 16, None, None, "xyclaw-c9", APP_KEY, 8))
    with pytest.raises(UnsupportedRequestError, match="2 to 8 pods, not 9"):
        provider.create(ClusterOrder("H100", 72, None, None, "xyclaw-c10", APP_KEY, 8))
    with pytest.raises(UnsupportedRequestError, match="no ib fabric"):
        provider.create(ClusterOrder("H100", 16, None, "ib", "xyclaw-c11", APP_KEY, 8))


def test_a_storm_of_429_and_5xx_neither_hides_nor_doubles_a_cluster(
    make_runpod: MakeRunPod,
) -> None:
    fake, provider = make_runpod()
    fake.faults.fail_next.extend([429, 503])
    info = provider.create(two_nodes())
    fake.faults.fail_next.extend([429, 500, 503, 502, 429])
    assert [c.external_id for c in provider.clusters()] == [info.external_id]
    assert len(creates(fake)) == 1


@pytest.mark.parametrize("mode", ["410", "success-false", "renamed", "shape"])
def test_a_cluster_listing_it_cannot_trust_is_state_unknown(
    make_runpod: MakeRunPod, mode: str
) -> None:
    fake, provider = make_runpod()
    info = provider.create(two_nodes())
    fake.listing_mode = mode
    with pytest.raises(ProviderStateUnknownError, match="cluster listing"):
        provider.clusters()
    with pytest.raises(ProviderStateUnknownError):
        provider.create(two_nodes())  # never a second cluster on a listing it cannot read
    if mode != "shape":
        with pytest.raises(ProviderStateUnknownError):
            provider.get(info.external_id)
    assert len(fake.billing()) == 2 and len(creates(fake)) == 1


def test_the_engine_rents_bootstraps_meters_and_releases_a_2_node_cluster(
    tmp_path: Path,
) -> None:
    from tests.providers_real import app
    from tests.providers_real.fake_runpod import Pod
    from tests.providers_real.nodes import SimNodes
    from tests.simcloud.helpers import FakeClock
    from xyclaw.records import ClusterState
    from xyclaw.remote import CommandResult

    nodes = SimNodes(tmp_path / "nodes")

    def pod_node(pod: Pod, script: str) -> tuple[str, int]:
        return nodes.container_node(f"pod-{pod.id}", "H100", pod.count, script)

    fake = FakeRunPod(boot_s=0.3, on_running=pod_node, linger_s=0.5)
    server = FakeServer(fake).start()
    clock = FakeClock(start=time.time())
    engine = app.engine("runpod-cluster", server.url, 0, clock=clock)
    try:
        cluster = engine.up(engine.quote_request(app.REQUESTS["runpod-cluster"])).result(90)
        assert cluster.state == ClusterState.READY and len(cluster.nodes) == 2
        assert cluster.external_id is not None and cluster.external_id.startswith("cluster:")
        results = engine.exec(cluster.name, "nvidia-smi -L").values()
        assert [r.stdout.count("GPU ") for r in results if isinstance(r, CommandResult)] == [8, 8]
        [mutation] = creates(fake)
        assert " ".join(engine.ssh_public_key().split()[:2]) not in mutation  # its own key
        # Each node's address on the cluster network is kept, and a job's MASTER_ADDR is
        # node 0's on that network (the first `hostname -I` address may be the management
        # interface there).
        nodes_now = sorted(engine.cluster(cluster.name).nodes, key=lambda n: n.rank)
        private = [n.private_ip for n in nodes_now]
        pods = sorted(fake.pods.values(), key=lambda p: p.cluster_idx or 0)
        assert private == [p.cluster_ip for p in pods if p.cluster is not None]
        assert all(private) and len(set(private)) == 2
        spec = tmp_path / "job.yaml"
        spec.write_text("name: t\nrun: torchrun train.py\nresources:\n  nodes: 2\n")
        env = engine.launch_dry_run(str(spec), cluster.name)["environment"]
        assert env["MASTER_ADDR"] == private[0]
        clock.advance(3600)
        engine.charge_meters()
        price = engine.cluster(cluster.name).price_per_gpu_hour_micros
        assert price == 2_691_000  # adjustedCostPerHr of its pods, per GPU
        charged = engine.meter_charges(cluster.id)
        assert abs(charged - 16 * price) <= 16 * price * 0.01, (charged, price)
        released = engine.down(cluster.name).result(60)
        # Recorded released only once RunPod stopped billing every pod of the cluster.
        assert released.state == ClusterState.RELEASED and fake.billing() == []
    finally:
        engine.close()
        server.stop()
        nodes.stop()
