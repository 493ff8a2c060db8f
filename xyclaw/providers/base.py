"""The Provider interface: what every source of machines (a cloud, your hosts, this PC) offers.

Adding a real provider means one new module with a class that satisfies
:class:`Provider` and a line in :mod:`xyclaw.providers.registry`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Protocol, runtime_checkable

from xyclaw.catalog import Offer
from xyclaw.records.provider_view import (
    FAILED,
    LIVE_STATES,
    PENDING,
    PROVISIONING,
    RUNNING,
    TERMINATED,
    TERMINATING,
    ClusterInfo,
    NodeInfo,
)
from xyclaw.wording import Said, said

__all__ = [
    "FAILED",
    "LIVE_STATES",
    "PENDING",
    "PROVISIONING",
    "RUNNING",
    "TERMINATED",
    "TERMINATING",
    "Capabilities",
    "ClusterInfo",
    "ClusterOrder",
    "Feature",
    "LedgerEntry",
    "NodeInfo",
    "Provider",
    "SchedulesTermination",
]


class Feature(StrEnum):
    """What a request may need of a provider (the keys of :attr:`Capabilities.why_not`)."""

    MULTI_NODE = "multi-node"
    STOP_START = "stop-start"
    SPOT = "spot"
    BILLING_LEDGER = "billing-ledger"
    FABRIC = "fabric"  # a network between nodes that NCCL can use (RDMA or Ethernet)
    CUSTOM_IMAGE = "custom-image"
    HOST_KEYS = "host-keys"  # the provider hands over each node's SSH host key
    SCHEDULED_TERMINATION = "scheduled-termination"  # it ends a cluster itself at a deadline
    # A whole machine with systemd and sysctl (not a Docker container, as on Vast.ai and
    # RunPod): a bootstrap or tuning step that needs them must ask for this first.
    HOST_SYSTEM = "host-system"


_FLAGS: dict[str, str] = {
    Feature.MULTI_NODE: "multi_node",
    Feature.STOP_START: "stop_start",
    Feature.SPOT: "spot",
    Feature.BILLING_LEDGER: "billing_ledger",
    Feature.SCHEDULED_TERMINATION: "scheduled_termination",
}


@dataclass(frozen=True)
class Capabilities:
    """What a provider can do, declared as data so the planner and GUI can ask.

    ``why_not`` maps each feature the provider lacks to the reason a user (or an
    agent) is shown when a request needs it, as SkyPilot's
    ``_CLOUD_UNSUPPORTED_FEATURES`` does.
    """

    rents: bool  # False for machines you already own: nothing is bought or released
    multi_node: bool
    stop_start: bool = False
    spot: bool = False
    regions: tuple[str, ...] = ()
    billing_ledger: bool = False  # the provider keeps its own per-second ledger
    # The provider terminates a cluster by itself at a deadline given on create
    # (``ClusterOrder.terminate_at``) and moved later (:class:`SchedulesTermination`), so a
    # budget holds with no XyClaw process running. Without it, only XyClaw's guard enforces.
    scheduled_termination: bool = False
    # each reason a Said, so a view words it in the user's language (issue 35, c35q)
    why_not: Mapping[str, str | Said] = field(default_factory=dict, hash=False, compare=False)

    def supports(self, feature: str) -> bool:
        flag = _FLAGS.get(feature)  # a StrEnum member hashes as its text
        if flag is not None:
            return bool(getattr(self, flag))
        return feature not in self.why_not

    def lacking(self, needs: Iterable[str]) -> dict[str, str | Said]:
        """The features in ``needs`` this provider lacks, each with the reason to show."""
        return {
            str(feature): self.why_not.get(
                str(feature), said("provider.why_not.unsupported", feature=str(feature))
            )
            for feature in needs
            if not self.supports(feature)
        }


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
    terminate_at: float | None = None  # UTC epoch seconds; only if scheduled_termination
    spot: bool = False  # preemptible, at the spot price; only if capabilities.spot (issue 32)
    # The offer the quote named (a marketplace's ask, one host): where a provider rents
    # per offer, it rents exactly this one or refuses; None lets the provider choose.
    offer_id: str | None = None
    # The provider's id of a running cluster this order adds nodes to, on its fabric (a
    # replacement for a node of it, issue 34); only where the provider says it joins_clusters.
    joins: str | None = None


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


@runtime_checkable
class SchedulesTermination(Protocol):
    """A provider with ``Capabilities.scheduled_termination``: its deadline can be moved."""

    def set_terminate_at(self, external_id: str, at: float | None) -> ClusterInfo:
        """Terminate the cluster by itself at ``at`` (UTC epoch seconds); None: never."""
        ...
