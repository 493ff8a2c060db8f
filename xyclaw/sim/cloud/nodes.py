"""How the cloud starts a node: a factory turns a launch description into a running node.

The cloud only needs a node's SSH port and host key, a way to inject faults
and a way to stop it; tests may pass a factory of their own.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol


@dataclass(frozen=True)
class NodeLaunch:
    """Everything a node needs to boot as one rank of a cluster."""

    cluster_id: str
    node_id: str
    hostname: str
    rank: int
    peers: tuple[str, ...]  # hostnames of every node of the cluster, by rank
    gpu: str
    gpus_per_node: int
    fabric: str
    image: str
    root: Path  # the node's own files
    shared_volume: Path  # one folder every node of the cluster sees
    host_key_path: Path  # kept across restarts so clients see the same key
    authorized_key: str  # the renter's OpenSSH public key line
    host: str
    port: int  # 0: any free port
    peer_address: Callable[[str], tuple[str, int] | None] | None = None  # hostname -> SSH address


class NodeHandle(Protocol):
    """A node that runs: where it answers SSH, with which key, and how to hurt or stop it."""

    @property
    def port(self) -> int: ...

    @property
    def host_key(self) -> str: ...

    def apply_fault(self, fault: str, args: Mapping[str, Any]) -> list[str]:
        """The faults in effect afterwards; ValueError or TypeError says what was wrong."""
        ...

    def stop(self) -> None: ...


class NodeFactory(Protocol):
    def __call__(self, launch: NodeLaunch) -> NodeHandle: ...
