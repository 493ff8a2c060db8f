"""Where clusters come from: the Provider interface and its adapters (sim, ssh, local)."""

from xyclaw.providers.base import (
    FAILED,
    LIVE_STATES,
    PENDING,
    PROVISIONING,
    RUNNING,
    TERMINATED,
    TERMINATING,
    Capabilities,
    ClusterInfo,
    ClusterOrder,
    LedgerEntry,
    NodeInfo,
    Provider,
)
from xyclaw.providers.registry import ProviderRegistry

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
    "LedgerEntry",
    "NodeInfo",
    "Provider",
    "ProviderRegistry",
]
