"""What the fabric probe found: per node, and summed up for the cluster.

The report is what NCCL settings and the verdict are derived from, and what
the store keeps, so it round-trips through plain JSON.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from xyclaw.wording import Said

INFINIBAND = "InfiniBand"
ETHERNET = "Ethernet"

# NCCL's names for the PCIe distance between a GPU and a NIC, nearest first.
PCI_DISTANCES: tuple[str, ...] = ("PIX", "PXB", "PHB", "NODE", "SYS")


@dataclass(frozen=True)
class PortInfo:
    """One port of an RDMA device (HCA)."""

    hca: str
    port: int
    state: str | None
    rate_gbps: float | None
    link_layer: str | None  # InfiniBand or Ethernet (RoCE)
    roce_v2_gid_index: int | None = None
    gid_count: int = 0
    netdev: str | None = None

    @property
    def active(self) -> bool:
        return self.state == "ACTIVE"

    def to_json(self) -> dict[str, Any]:
        return {
            "hca": self.hca,
            "port": self.port,
            "state": self.state,
            "rate_gbps": self.rate_gbps,
            "link_layer": self.link_layer,
            "roce_v2_gid_index": self.roce_v2_gid_index,
            "gid_count": self.gid_count,
            "netdev": self.netdev,
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> PortInfo:
        return cls(
            hca=str(d["hca"]),
            port=int(d["port"]),
            state=d.get("state"),
            rate_gbps=d.get("rate_gbps"),
            link_layer=d.get("link_layer"),
            roce_v2_gid_index=d.get("roce_v2_gid_index"),
            gid_count=int(d.get("gid_count", 0)),
            netdev=d.get("netdev"),
        )


@dataclass(frozen=True)
class IfaceInfo:
    """One IP network interface."""

    name: str
    ipv4: str | None
    prefix: int | None
    state: str | None  # up, down, unknown
    speed_mbps: int | None
    mtu: int | None
    default_route: bool = False

    @property
    def up(self) -> bool:
        return self.state in ("up", "unknown") and self.name != "lo"

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "ipv4": self.ipv4,
            "prefix": self.prefix,
            "state": self.state,
            "speed_mbps": self.speed_mbps,
            "mtu": self.mtu,
            "default_route": self.default_route,
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> IfaceInfo:
        return cls(
            name=str(d["name"]),
            ipv4=d.get("ipv4"),
            prefix=d.get("prefix"),
            state=d.get("state"),
            speed_mbps=d.get("speed_mbps"),
            mtu=d.get("mtu"),
            default_route=bool(d.get("default_route", False)),
        )


@dataclass(frozen=True)
class GpuNic:
    """A GPU, the NIC nearest to it over PCIe, and how near (PIX ... SYS)."""

    gpu: int
    nic: str
    distance: str

    def to_json(self) -> dict[str, Any]:
        return {"gpu": self.gpu, "nic": self.nic, "distance": self.distance}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> GpuNic:
        return cls(int(d["gpu"]), str(d["nic"]), str(d["distance"]))


@dataclass(frozen=True)
class NodeFabric:
    """What one node showed. ``error`` is set when the node could not be probed at all."""

    name: str
    hostname: str | None = None
    gpu_name: str | None = None
    gpu_count: int = 0
    nvlinks: int = 0  # bonded NVLinks between GPU0 and GPU1 (0: PCIe only or unknown)
    gpu_nics: tuple[GpuNic, ...] = ()
    ports: tuple[PortInfo, ...] = ()
    ifaces: tuple[IfaceInfo, ...] = ()
    nccl_env: dict[str, str] = field(default_factory=dict)
    peermem: bool | None = None  # nvidia_peermem loaded; None when it could not be told
    tools: dict[str, str | None] = field(default_factory=dict)
    problems: tuple[str, ...] = ()
    error: str | None = None
    # The same, worded (English in ``problems``/``error`` for logs and stored reports).
    problems_said: tuple[Said, ...] = field(default=(), compare=False)
    error_said: Said | None = field(default=None, compare=False)

    @property
    def reachable(self) -> bool:
        return self.error is None

    @property
    def rdma_ports(self) -> list[PortInfo]:
        return [p for p in self.ports if p.link_layer in (INFINIBAND, ETHERNET)]

    @property
    def active_ports(self) -> list[PortInfo]:
        return [p for p in self.rdma_ports if p.active]

    def iface(self, name: str) -> IfaceInfo | None:
        return next((i for i in self.ifaces if i.name == name), None)

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "hostname": self.hostname,
            "gpu_name": self.gpu_name,
            "gpu_count": self.gpu_count,
            "nvlinks": self.nvlinks,
            "gpu_nics": [g.to_json() for g in self.gpu_nics],
            "ports": [p.to_json() for p in self.ports],
            "ifaces": [i.to_json() for i in self.ifaces],
            "nccl_env": dict(self.nccl_env),
            "peermem": self.peermem,
            "tools": dict(self.tools),
            "problems": list(self.problems),
            "error": self.error,
            "problems_said": [p.to_json() for p in self.problems_said],
            "error_said": self.error_said.to_json() if self.error_said else None,
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> NodeFabric:
        return cls(
            name=str(d["name"]),
            hostname=d.get("hostname"),
            gpu_name=d.get("gpu_name"),
            gpu_count=int(d.get("gpu_count", 0)),
            nvlinks=int(d.get("nvlinks", 0)),
            gpu_nics=tuple(GpuNic.from_json(g) for g in d.get("gpu_nics", [])),
            ports=tuple(PortInfo.from_json(p) for p in d.get("ports", [])),
            ifaces=tuple(IfaceInfo.from_json(i) for i in d.get("ifaces", [])),
            nccl_env={str(k): str(v) for k, v in (d.get("nccl_env") or {}).items()},
            peermem=d.get("peermem"),
            tools={str(k): v for k, v in (d.get("tools") or {}).items()},
            problems=tuple(str(p) for p in d.get("problems", [])),
            error=d.get("error"),
            problems_said=_saids(d.get("problems_said")),
            error_said=Said.from_json(d.get("error_said")),
        )


@dataclass(frozen=True)
class FabricSummary:
    """The cluster-wide view the settings and the verdict use.

    ``transport`` is ``ib`` or ``roce`` when every node has RDMA ports of that
    link layer, ``socket`` when there is no RDMA at all, ``mixed`` otherwise.
    Counts and rates are the minimum over nodes: the slowest node sets the pace.
    """

    transport: str
    hcas: tuple[str, ...]  # active RDMA devices present on every node, in order
    nic_count: int  # RDMA ports per node (active or not), minimum over nodes
    active_nic_count: int
    nic_rate_gbps: float | None  # slowest active port
    roce_gid_index: int | None
    gdr_distance: str | None  # the farthest of each GPU's nearest NIC
    socket_ifaces: tuple[str, ...]  # interface(s) for NCCL's bootstrap and socket traffic
    socket_speed_mbps: int | None
    nvlinks: int
    gpus_per_node: int
    gpu_name: str | None
    peermem: bool | None
    findings: tuple[str, ...] = ()
    # The findings worded, one for each (English in ``findings``).
    findings_said: tuple[Said, ...] = field(default=(), compare=False)

    def to_json(self) -> dict[str, Any]:
        return {
            "transport": self.transport,
            "hcas": list(self.hcas),
            "nic_count": self.nic_count,
            "active_nic_count": self.active_nic_count,
            "nic_rate_gbps": self.nic_rate_gbps,
            "roce_gid_index": self.roce_gid_index,
            "gdr_distance": self.gdr_distance,
            "socket_ifaces": list(self.socket_ifaces),
            "socket_speed_mbps": self.socket_speed_mbps,
            "nvlinks": self.nvlinks,
            "gpus_per_node": self.gpus_per_node,
            "gpu_name": self.gpu_name,
            "peermem": self.peermem,
            "findings": list(self.findings),
            "findings_said": [f.to_json() for f in self.findings_said],
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> FabricSummary:
        return cls(
            transport=str(d["transport"]),
            hcas=tuple(d.get("hcas", [])),
            nic_count=int(d.get("nic_count", 0)),
            active_nic_count=int(d.get("active_nic_count", 0)),
            nic_rate_gbps=d.get("nic_rate_gbps"),
            roce_gid_index=d.get("roce_gid_index"),
            gdr_distance=d.get("gdr_distance"),
            socket_ifaces=tuple(d.get("socket_ifaces", [])),
            socket_speed_mbps=d.get("socket_speed_mbps"),
            nvlinks=int(d.get("nvlinks", 0)),
            gpus_per_node=int(d.get("gpus_per_node", 0)),
            gpu_name=d.get("gpu_name"),
            peermem=d.get("peermem"),
            findings=tuple(d.get("findings", [])),
            findings_said=_saids(d.get("findings_said")),
        )

    def worded_findings(self) -> tuple[Said | str, ...]:
        """Each finding as a Said where it has one (a report stored before: its English)."""
        if len(self.findings_said) == len(self.findings):
            return self.findings_said
        return self.findings


@dataclass(frozen=True)
class FabricReport:
    """One probe of one cluster."""

    cluster_id: int
    cluster_name: str
    fabric: str  # what the cluster was rented as (ib-hdr-200, roce-100, ...)
    gpu: str  # the catalog's model name
    probed_at: float
    nodes: tuple[NodeFabric, ...]
    summary: FabricSummary
    id: int | None = None  # row id once stored

    @property
    def node_count(self) -> int:
        return len(self.nodes)

    @property
    def nccl_env(self) -> dict[str, str]:
        """NCCL variables the nodes' image sets (those set the same on every reachable node)."""
        envs = [n.nccl_env for n in self.nodes if n.reachable]
        if not envs:
            return {}
        common = dict(envs[0])
        for env in envs[1:]:
            common = {k: v for k, v in common.items() if env.get(k) == v}
        return common

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "cluster_id": self.cluster_id,
            "cluster": self.cluster_name,
            "fabric": self.fabric,
            "gpu": self.gpu,
            "probed_at": self.probed_at,
            "summary": self.summary.to_json(),
            "nodes": [n.to_json() for n in self.nodes],
        }

    @classmethod
    def from_json(cls, d: dict[str, Any], *, id: int | None = None) -> FabricReport:
        return cls(
            cluster_id=int(d["cluster_id"]),
            cluster_name=str(d.get("cluster", "")),
            fabric=str(d.get("fabric", "")),
            gpu=str(d.get("gpu", "")),
            probed_at=float(d.get("probed_at", 0.0)),
            nodes=tuple(NodeFabric.from_json(n) for n in d.get("nodes", [])),
            summary=FabricSummary.from_json(d["summary"]),
            id=id if id is not None else d.get("id"),
        )


def _saids(raw: object) -> tuple[Said, ...]:
    """Stored Saids back; what does not read as one is left out (old rows, damage)."""
    if not isinstance(raw, list):
        return ()
    return tuple(s for item in raw if (s := Said.from_json(item)) is not None)
