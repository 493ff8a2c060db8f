"""What a simulated node is (GPU model, count, fabric) and what it knows about its cluster."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from xyclaw.errors import UsageError
from xyclaw.sim.specs import FABRICS, GPU_MODELS


class SimSpecError(UsageError, ValueError):
    """A node spec names a GPU model or fabric the simulator does not know."""


@dataclass(frozen=True)
class SimNodeSpec:
    hostname: str
    gpu_model: str = "A800"  # RTX4090, A10, L40S, A100-40G, A100-80G, A800, H100, H800, H20, H200
    gpu_count: int = 8
    fabric: str = "ib-hdr-200"  # ib-hdr-200, ib-ndr-400, roce-100, roce-200, eth-25
    nic_count: int = 4  # RDMA NICs; ignored for eth-25
    dcgm: bool | None = None  # dcgmi installed; None: data-centre GPUs yes, GeForce no

    def __post_init__(self) -> None:
        where = f"simulated node {self.hostname!r}"
        if self.gpu_model not in GPU_MODELS:
            raise SimSpecError(
                f"{where}: unknown GPU model {self.gpu_model!r}",
                hint=f"use one of {', '.join(GPU_MODELS)}",
            )
        if self.fabric not in FABRICS:
            raise SimSpecError(
                f"{where}: unknown fabric {self.fabric!r}", hint=f"use one of {', '.join(FABRICS)}"
            )
        if not 1 <= self.gpu_count <= 16:
            raise SimSpecError(f"{where}: gpu_count {self.gpu_count}", hint="use 1 to 16 GPUs")
        if not 0 <= self.nic_count <= 16:
            raise SimSpecError(f"{where}: nic_count {self.nic_count}", hint="use 0 to 16 NICs")
        if not self.hostname or any(c.isspace() for c in self.hostname):
            raise SimSpecError(f"{where}: invalid hostname", hint="use a name without spaces")


def mgmt_ip(index: int) -> str:
    """The management address of the node at a position in its cluster (eth0)."""
    return f"10.1.{index // 250}.{index % 250 + 10}"


@dataclass(frozen=True)
class SimClusterInfo:
    """The peers of a node: who else is in the cluster and where the shared volume lives.

    `resolve` maps a peer's hostname (or address) and port to the loopback
    address its simulated sshd listens on; a node uses it to forward
    `direct-tcpip` channels (ProxyJump through a node).
    """

    hostnames: tuple[str, ...]
    gpus_per_node: int = 8
    shared_dir: Path | None = None
    shared_mount: str = "/shared"
    name: str = "sim"
    resolve: Callable[[str, int], tuple[str, int] | None] | None = None

    @property
    def node_count(self) -> int:
        return len(self.hostnames)

    def index_of(self, hostname: str) -> int:
        try:
            return self.hostnames.index(hostname)
        except ValueError:
            return 0

    def lookup(self, name: str) -> str | None:
        """A peer's hostname from its hostname or management address."""
        if name in self.hostnames:
            return name
        for index, host in enumerate(self.hostnames):
            if name == mgmt_ip(index) or name == host.split(".")[0]:
                return host
        return None
