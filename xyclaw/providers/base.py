"""The Provider interface: what every source of machines (a cloud, your hosts, this PC) offers.

Adding a real provider means one new module with a class that satisfies
:class:`Provider` and a line in :mod:`xyclaw.providers.registry`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from xyclaw.catalog import Offer

#: Cluster states as providers report them.
PENDING = "pending"
PROVISIONING = "provisioning"
RUNNING = "running"
FAILED = "failed"
TERMINATING = "terminating"
TERMINATED = "terminated"
LIVE_STATES = (PENDING, PROVISIONING, RUNNING, FAILED, TERMINATING)


@dataclass(frozen=True)
class Capabilities:
    """What a provider can do, declared as data so the planner and GUI can ask."""

    rents: bool  # False for machines you already own: nothing is bought or released
    multi_node: bool
    stop_start: bool = False
    spot: bool = False
    regions: tuple[str, ...] = ()
    billing_ledger: bool = False  # the provider keeps its own per-second ledger


@dataclass(frozen=True)
class ClusterOrder:
    """What to rent. ``idempotency_key`` makes a retried create return the first cluster."""

    gpu: str
    gpu_count: int
    region: str | None
    fabric: str | None
    idempotency_key: str
    ssh_public_key: str
    gpus_per_node: int | None = None
    image: str | None = None
    name: str | None = None


@dataclass(frozen=True)
class NodeInfo:
    external_id: str
    rank: int
    hostname: str
    state: str
    ssh_host: str | None = None
    ssh_port: int | None = None
    ssh_user: str | None = None
    host_key: str | None = None  # an OpenSSH public key line, handed over by the provider
    error: str | None = None


@dataclass(frozen=True)
class ClusterInfo:
    """A cluster as the provider sees it."""

    external_id: str
    name: str
    state: str
    gpu: str
    gpu_count: int
    gpus_per_node: int
    fabric: str
    region: str | None
    price_per_gpu_hour_micros: int
    currency: str
    nodes: tuple[NodeInfo, ...] = ()
    created_at: float | None = None
    running_at: float | None = None
    terminated_at: float | None = None
    error: str | None = None
    idempotency_key: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def live(self) -> bool:
        return self.state in LIVE_STATES


@dataclass(frozen=True)
class LedgerEntry:
    """One line of the provider's own bill: a node's billed seconds and amount."""

    cluster_external_id: str
    node_external_id: str | None
    start: float
    end: float | None
    seconds: int
    amount_micros: int
    currency: str


@runtime_checkable
class Provider(Protocol):
    name: str
    kind: str
    capabilities: Capabilities

    def offers(self) -> list[Offer]: ...

    def create(self, order: ClusterOrder) -> ClusterInfo: ...

    def get(self, external_id: str) -> ClusterInfo | None: ...

    def clusters(self) -> list[ClusterInfo]: ...

    def terminate(self, external_id: str) -> ClusterInfo: ...

    def billing(self) -> list[LedgerEntry]: ...

    def close(self) -> None: ...
