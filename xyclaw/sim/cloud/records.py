"""What the simulated cloud remembers about clusters and nodes, and how it shows them.

Records carry a few internal fields (schedule, last port, failing ranks) that
survive a restart but never appear in the API; :meth:`public` gives the API view.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from xyclaw.wording import Said

CLUSTER_STATES = ("pending", "provisioning", "running", "failed", "terminating", "terminated")
NODE_STATES = ("pending", "provisioning", "running", "failed", "terminated")

# Cluster states in which nothing more happens on its own.
SETTLED = ("running", "failed", "terminated")


@dataclass
class NodeRecord:
    """One node of a cluster. ``running_at``/``ended_at`` bound what it bills."""

    id: str
    rank: int
    hostname: str
    state: str = "pending"
    error: str | None = None
    # the error's Said as JSON (key and figures), so XyClaw words it in the user's language
    error_said: dict[str, Any] | None = None
    port: int | None = None  # last SSH port; tried again after a restart
    host_key: str | None = None  # "ssh-ed25519 AAAA..." once the node has run
    running_at: float | None = None
    ended_at: float | None = None  # when it stopped billing (terminated, or failed after running)
    fails: bool = False  # this node is scheduled to fail (fault fail_nodes)

    def fail(self, why: Said) -> None:
        """The node failed: the English in ``error``, the Said beside it."""
        self.state, self.error, self.error_said = "failed", why.english, why.to_json()

    @property
    def said_error(self) -> Said | str | None:
        """Its error as said where it was, else its text (a state file of an older XyClaw)."""
        return Said.from_json(self.error_said) or self.error

    def public(self, host: str, user: str) -> dict[str, Any]:
        ssh: dict[str, Any] | None = None
        if self.state == "running" and self.port is not None and self.host_key is not None:
            ssh = {"host": host, "port": self.port, "user": user, "host_key": self.host_key}
        return {
            "id": self.id,
            "rank": self.rank,
            "hostname": self.hostname,
            "state": self.state,
            "error": self.error,
            "error_said": self.error_said,
            "ssh": ssh,
        }

    def to_json(self) -> dict[str, Any]:
        return dict(vars(self))  # every field is a plain value: no deep copy needed

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> NodeRecord:
        return cls(**data)


@dataclass
class ClusterRecord:
    """One rented cluster; the schedule fields let provisioning resume after a restart."""

    id: str
    name: str
    state: str
    offer_id: str
    gpu: str
    gpu_count: int
    gpus_per_node: int
    region: str
    fabric: str
    image: str
    price_per_gpu_hour_micros: int
    currency: str
    created_at: float
    idempotency_key: str
    ssh_public_key: str
    provisioning_at: float  # when pending turns into provisioning
    provision_delay_s: float
    per_node_delay_s: float
    running_at: float | None = None
    terminating_at: float | None = None
    terminate_deadline: float | None = None
    terminated_at: float | None = None
    error: str | None = None
    error_said: dict[str, Any] | None = None  # as :attr:`NodeRecord.error_said`
    nodes: list[NodeRecord] = field(default_factory=list)
    terminate_at: float | None = None  # the renter's deadline: the cloud terminates it then
    billing_ends_at: float | None = None  # set when a deadline ended it: billing stops there
    ended_by: str | None = None  # "request" (DELETE), "deadline" (terminate_at), "preempted"
    spot: bool = False  # rented at the spot price: the cloud may take it back (issue 32)
    preempt_at: float | None = None  # a preemption's notice: the cloud takes it back then
    # when the cloud gives its own notice (drawn at the spot rate; private, never public)
    spot_notice_due: float | None = None
    # issue 34: the running cluster whose fabric and shared volume these nodes joined
    joins: str | None = None

    def fail(self, why: Said) -> None:
        """The cluster failed: the English in ``error``, the Said beside it."""
        self.error, self.error_said = why.english, why.to_json()

    @property
    def node_count(self) -> int:
        return len(self.nodes)

    def node_ready_at(self, node: NodeRecord) -> float:
        """When a node finishes booting: the cluster's delay plus a little per rank."""
        return self.provisioning_at + self.provision_delay_s + node.rank * self.per_node_delay_s

    def public(self, host: str, user: str) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "state": self.state,
            "gpu": self.gpu,
            "gpu_count": self.gpu_count,
            "gpus_per_node": self.gpus_per_node,
            "node_count": self.node_count,
            "region": self.region,
            "fabric": self.fabric,
            "image": self.image,
            "price_per_gpu_hour_micros": self.price_per_gpu_hour_micros,
            "currency": self.currency,
            "created_at": self.created_at,
            "running_at": self.running_at,
            "terminated_at": self.terminated_at,
            "terminate_at": self.terminate_at,
            "ended_by": self.ended_by,
            "spot": self.spot,
            "joins": self.joins,
            "preempt_at": self.preempt_at,
            "error": self.error,
            "error_said": self.error_said,
            "idempotency_key": self.idempotency_key,
            "nodes": [n.public(host, user) for n in self.nodes],
        }

    def to_json(self) -> dict[str, Any]:
        # Written on every change, for every cluster the cloud remembers: a shallow copy
        # (dataclasses.asdict deep-copies each value, and walked the nodes twice).
        data = dict(vars(self))
        data["nodes"] = [n.to_json() for n in self.nodes]
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ClusterRecord:
        fields = dict(data)
        nodes = [NodeRecord.from_json(n) for n in fields.pop("nodes", [])]
        return cls(**fields, nodes=nodes)
