"""A READY cluster of simulated GPU nodes registered in a test engine's store.

For tests of parts that work on a cluster that is already up (telemetry,
tuning, jobs) without going through a provider: the nodes are real SSH servers
on loopback that authorise the engine's own key, and the store rows are what
the lifecycle would have written.

    with sim_cluster(engine, tmp_path, nodes=2, fabric="roce-100") as sc:
        engine.exec(sc.name, "nvidia-smi -L")
        sc.nodes[0].faults.xid(79, gpu=3)
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from xyclaw.engine import Engine
from xyclaw.providers import ClusterInfo, NodeInfo
from xyclaw.records import ClusterRecord, ClusterState
from xyclaw.remote.node_access import parse_public_key
from xyclaw.sim.node import SimNode
from xyclaw.sim.nodespec import SimClusterInfo, SimNodeSpec

_names = itertools.count(1)


@dataclass
class SimCluster:
    engine: Engine
    cluster_id: int
    name: str
    nodes: list[SimNode]

    @property
    def record(self) -> ClusterRecord:
        return self.engine.cluster(str(self.cluster_id))


@contextmanager
def sim_cluster(
    engine: Engine,
    tmp_path: Path,
    *,
    nodes: int = 2,
    gpu: str = "A800",
    gpus_per_node: int = 8,
    fabric: str = "ib-hdr-200",
    nic_count: int = 4,
    price_per_gpu_hour_micros: int = 3_500_000,
    name: str | None = None,
    clock_skew_s: float = 0.0,
    dcgm: bool | None = None,
) -> Iterator[SimCluster]:
    """``clock_skew_s``: the nodes' clocks run that far ahead of this machine's (behind when
    negative), as a rented node's may."""
    name = name or f"test-{next(_names)}"
    hostnames = tuple(f"{name}-node{i}" for i in range(nodes))
    shared = tmp_path / f"{name}-shared"
    shared.mkdir(parents=True, exist_ok=True)
    info = SimClusterInfo(
        hostnames=hostnames, gpus_per_node=gpus_per_node, shared_dir=shared, name=name
    )
    public_key = parse_public_key(engine.ssh_public_key())
    started: list[SimNode] = []
    try:
        for hostname in hostnames:
            node = SimNode(
                SimNodeSpec(
                    hostname=hostname,
                    gpu_model=gpu,
                    gpu_count=gpus_per_node,
                    fabric=fabric,
                    nic_count=nic_count,
                    dcgm=dcgm,
                ),
                root=tmp_path / hostname,
                authorized_keys=[public_key],
                cluster=info,
                clock=(lambda: time.time() + clock_skew_s) if clock_skew_s else time.time,
            )
            node.start()
            started.append(node)
        clusters = engine._clusters
        clusters.ensure_provider("test", "sim")
        cluster_id = clusters.add_intent(
            {
                "provider_id": "test",
                "name": name,
                "gpu": gpu,
                "gpu_count": nodes * gpus_per_node,
                "gpus_per_node": gpus_per_node,
                "fabric": fabric,
                "region": "loopback",
                "currency": "CNY",
                "price_per_gpu_hour_micros": price_per_gpu_hour_micros,
                "idempotency_key": f"{name}-key",
            }
        )
        node_infos = []
        for rank, node in enumerate(started):
            host, port = node.address
            key = node.host_key
            node_infos.append(
                NodeInfo(
                    external_id=f"{name}-n{rank}",
                    rank=rank,
                    hostname=hostnames[rank],
                    state="running",
                    ssh_host=host,
                    ssh_port=port,
                    ssh_user="root",
                    host_key=f"{key.get_name()} {key.get_base64()}",
                )
            )
        clusters.apply_provider_view(
            cluster_id,
            ClusterInfo(
                external_id=f"{name}-ext",
                name=name,
                state="running",
                gpu=gpu,
                gpu_count=nodes * gpus_per_node,
                gpus_per_node=gpus_per_node,
                fabric=fabric,
                region="loopback",
                price_per_gpu_hour_micros=price_per_gpu_hour_micros,
                currency="CNY",
                nodes=tuple(node_infos),
            ),
        )
        clusters.update(cluster_id, state=ClusterState.READY, ready_at=time.time())
        yield SimCluster(engine, cluster_id, name, started)
    finally:
        for node in started:
            node.stop()
