"""The cloud's default nodes: ``xyclaw.sim.node.SimNode``, one SSH server per node on loopback."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from xyclaw.sim.cloud.keys import load_or_create_host_key, parse_public_key, public_line
from xyclaw.sim.cloud.nodes import NodeLaunch
from xyclaw.sim.node import SimClusterInfo, SimNode, SimNodeSpec

SSH_PORT = 22
SHARED_MOUNT = "/shared"
# What the API may call on SimNode.faults (docs/sim-api.md); "clear" takes kinds as a list.
FAULTS = ("node_down", "node_up", "hang", "slow_link", "link_down", "xid", "thermal_throttle",
          "ecc_uncorrectable", "nccl_watchdog", "straggler", "slow_nic", "pfc_pauses",
          "flap_link", "clear")  # fmt: skip


def node_fabric(fabric: str) -> str:
    """A single-node offer (fabric ``none``) still has its 25G management Ethernet."""
    return "eth-25" if fabric == "none" else fabric


def nic_count(gpus_per_node: int) -> int:
    """HGX boards carry four RDMA NICs; the smaller PCIe boxes one (offers.csv notes)."""
    return 4 if gpus_per_node >= 8 else 1


class SimNodeHandle:
    """A started SimNode as the cloud sees it."""

    def __init__(self, node: SimNode) -> None:
        self.node = node

    @property
    def port(self) -> int:
        return self.node.address[1]

    @property
    def host_key(self) -> str:
        return public_line(self.node.host_key)

    def apply_fault(self, fault: str, args: Mapping[str, Any]) -> list[str]:
        if fault not in FAULTS:
            raise ValueError(f"unknown fault; known: {', '.join(FAULTS)}")
        method = getattr(self.node.faults, fault)
        if fault == "clear":
            kinds = args.get("kinds", [])
            if set(args) - {"kinds"} or not isinstance(kinds, list):
                raise ValueError('clear takes only "kinds": a list of fault kinds (none: all)')
            method(*kinds)
        else:
            method(**args)
        active: list[str] = self.node.faults.active()
        return active

    def stop(self) -> None:
        self.node.stop()


class SimNodeFactory:
    """Builds and starts a SimNode for each launch; ``clock`` and ``time_scale`` go to the node."""

    def __init__(
        self,
        *,
        clock: Callable[[], float] = time.time,
        time_scale: float = 1.0,
        link_delay_s: float = 0.0,
    ) -> None:
        """``link_delay_s`` delays every reply of every node: how far the region is from you."""
        self._clock = clock
        self._time_scale = time_scale
        self._link_delay_s = link_delay_s

    def __call__(self, launch: NodeLaunch) -> SimNodeHandle:
        spec = SimNodeSpec(
            hostname=launch.hostname,
            gpu_model=launch.gpu,
            gpu_count=launch.gpus_per_node,
            fabric=node_fabric(launch.fabric),
            nic_count=nic_count(launch.gpus_per_node),
        )
        info = SimClusterInfo(
            hostnames=launch.peers,
            gpus_per_node=launch.gpus_per_node,
            shared_dir=launch.shared_volume,
            shared_mount=SHARED_MOUNT,
            name=launch.cluster_id,
        )
        if launch.peer_address is not None:
            info = replace(info, resolve=_resolver(info, launch.peer_address))
        node = SimNode(
            spec,
            root=launch.root,
            authorized_keys=[parse_public_key(launch.authorized_key)],
            host_key=load_or_create_host_key(launch.host_key_path),
            cluster=info,
            clock=self._clock,
            time_scale=self._time_scale,
        )
        node.start(launch.host, launch.port)
        if self._link_delay_s:
            node.faults.slow_link(self._link_delay_s)
        return SimNodeHandle(node)


def _resolver(
    info: SimClusterInfo, peer_address: Callable[[str], tuple[str, int] | None]
) -> Callable[[str, int], tuple[str, int] | None]:
    """Peers' SSH port 22 (by hostname or management address) -> where their sshd listens."""

    def resolve(host: str, port: int) -> tuple[str, int] | None:
        if port != SSH_PORT:
            return None
        peer = info.lookup(host)
        return peer_address(peer) if peer is not None else None

    return resolve
