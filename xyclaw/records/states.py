"""The states a cluster and a node go through, as XyClaw records them."""

from __future__ import annotations

from enum import StrEnum


class ClusterState(StrEnum):
    REQUESTED = "requested"  # intent written; the provider may or may not have it yet
    PROVISIONING = "provisioning"  # the provider accepted it; nodes are coming up
    BOOTSTRAPPING = "bootstrapping"  # nodes answer SSH; checks and setup run
    READY = "ready"
    RELEASING = "releasing"  # release intent written; waiting for the provider to confirm
    RELEASED = "released"
    FAILED = "failed"  # never billed: the provider refused or never created it
    GONE = "gone"  # the provider no longer has it, and we did not release it

    @property
    def live(self) -> bool:
        return self in LIVE

    @property
    def in_flight(self) -> bool:
        return self in IN_FLIGHT


IN_FLIGHT: tuple[ClusterState, ...] = (
    ClusterState.REQUESTED,
    ClusterState.PROVISIONING,
    ClusterState.BOOTSTRAPPING,
    ClusterState.RELEASING,
)
LIVE: tuple[ClusterState, ...] = (*IN_FLIGHT[:3], ClusterState.READY, ClusterState.RELEASING)


class NodeState(StrEnum):
    """A node as its provider reports it, plus what bootstrap found."""

    PENDING = "pending"
    PROVISIONING = "provisioning"
    RUNNING = "running"
    FAILED = "failed"
    TERMINATING = "terminating"
    TERMINATED = "terminated"
    UNKNOWN = "unknown"

    @classmethod
    def of(cls, text: str) -> NodeState:
        try:
            return cls(text)
        except ValueError:
            return cls.UNKNOWN
