"""A cluster and its nodes as a provider reports them (before XyClaw records them)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from xyclaw.wording import Said

#: The ``ssh_host`` of a node that is this machine (the ``local`` provider): run, not SSH.
LOCAL_HOST = "local"

#: Cluster states as providers report them.
PENDING = "pending"
PROVISIONING = "provisioning"
RUNNING = "running"
FAILED = "failed"
TERMINATING = "terminating"
TERMINATED = "terminated"
LIVE_STATES = (PENDING, PROVISIONING, RUNNING, FAILED, TERMINATING)


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
    # What the provider says went wrong: a :class:`Said` where XyClaw words it (a view shows
    # it in the user's language, the records keep its English), text where the provider's own.
    error: str | Said | None = None
    # Its address on the cluster's own network, where the provider names one (a RunPod
    # Instant Cluster pod's clusterIp): what the other nodes and NCCL reach it at.
    private_ip: str | None = None


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
    error: str | Said | None = None  # as :attr:`NodeInfo.error`
    idempotency_key: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def live(self) -> bool:
        return self.state in LIVE_STATES
