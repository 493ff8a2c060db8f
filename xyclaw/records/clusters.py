"""Clusters and nodes as XyClaw records them, and the repository that reads and writes them.

Every intent is written before the provider is called and every outcome after,
so a crash at any point leaves a row that says what was under way. The SQL is in
:mod:`xyclaw.store.clusters`; this module turns its rows into typed records.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from xyclaw.errors import UsageError
from xyclaw.events import EventBus
from xyclaw.records.provider_view import ClusterInfo
from xyclaw.records.states import LIVE, ClusterState, NodeState
from xyclaw.store import Store
from xyclaw.store.clusters import ClusterTable, NodeView
from xyclaw.wording import Said, said, said_from_text, said_to_text


@dataclass(frozen=True)
class NodeRecord:
    id: int
    cluster_id: int
    rank: int
    external_id: str | None
    hostname: str | None
    ssh_host: str | None
    ssh_port: int | None
    ssh_user: str | None
    host_key: str | None
    state: NodeState
    error: str | None
    running_at: float | None
    terminated_at: float | None
    error_said: Said | None = None  # the error's key and figures (``error`` is its English)
    clock_offset_s: float | None = None  # the node's clock minus ours, measured at bootstrap
    private_ip: str | None = None  # on the cluster's private network (issue 31: RunPod)

    @property
    def name(self) -> str:
        return self.hostname or f"node-{self.rank}"


@dataclass(frozen=True)
class ClusterRecord:
    id: int
    provider_id: str
    external_id: str | None
    name: str
    state: ClusterState
    gpu: str
    gpu_count: int
    gpus_per_node: int
    fabric: str
    region: str | None
    currency: str
    price_per_gpu_hour_micros: int
    budget_micros: int | None
    idempotency_key: str | None
    keep_partial: bool
    image: str | None
    error: str | None
    worker_pid: int | None
    budget_warned_at: float | None
    created_at: float
    ready_at: float | None
    release_requested_at: float | None
    released_at: float | None
    last_seen_at: float | None
    nodes: tuple[NodeRecord, ...] = ()
    error_said: Said | None = None  # the error's key and figures (``error`` is its English)
    # What the approved quote said about a marketplace host (issue 31), and whether it is a
    # community host: shown wherever the cluster is listed.
    host: str | None = None
    host_community: bool = False
    #: When the provider's readable listing first lacked it (the user is asked to forget it).
    unlisted_since: float | None = None

    @property
    def live(self) -> bool:
        return self.state in LIVE

    @property
    def running_nodes(self) -> tuple[NodeRecord, ...]:
        return tuple(n for n in self.nodes if n.state == NodeState.RUNNING)

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "provider": self.provider_id,
            "external_id": self.external_id,
            "state": self.state,
            "gpu": self.gpu,
            "gpus": self.gpu_count,
            "gpus_per_node": self.gpus_per_node,
            "fabric": self.fabric,
            "region": self.region,
            "currency": self.currency,
            "price_per_gpu_hour": self.price_per_gpu_hour_micros / 1e6,
            "budget": None if self.budget_micros is None else self.budget_micros / 1e6,
            "error": self.error,
            "created_at": self.created_at,
            "ready_at": self.ready_at,
            "released_at": self.released_at,
            "last_seen_at": self.last_seen_at,
            "host": self.host,
            "host_community": self.host_community,
            "unlisted_since": self.unlisted_since,
            "nodes": [
                {
                    "rank": n.rank,
                    "hostname": n.hostname,
                    "state": n.state,
                    "ssh": None
                    if n.ssh_host is None
                    else {"host": n.ssh_host, "port": n.ssh_port, "user": n.ssh_user},
                    "error": n.error,
                }
                for n in self.nodes
            ],
        }


def _node(row: dict[str, Any]) -> NodeRecord:
    values = dict(row)
    said_json = values.pop("error_said_json", None)
    values["state"] = NodeState.of(row["state"])
    return NodeRecord(**values, error_said=said_from_text(said_json))


def _cluster(row: dict[str, Any], nodes: list[NodeRecord]) -> ClusterRecord:
    values = dict(row)
    said_json = values.pop("error_said_json", None)
    values["keep_partial"] = bool(row["keep_partial"])
    values["host_community"] = bool(row["host_community"])
    values["state"] = ClusterState(row["state"])
    return ClusterRecord(
        **values,
        nodes=tuple(nodes),
        error_said=said_from_text(said_json),
    )


class ClusterStore:
    """Clusters and nodes, read through the store's readers and written through its writer.

    Each state change it writes is published by the table as one ``ClusterChanged`` or
    ``NodeChanged`` event.
    """

    def __init__(self, store: Store, bus: EventBus, clock: Callable[[], float] = time.time) -> None:
        self._table = ClusterTable(store, bus, clock)
        self._clock = clock

    # -- reads ---------------------------------------------------------------------------
    def _records(self, rows: list[dict[str, Any]]) -> list[ClusterRecord]:
        nodes: dict[int, list[NodeRecord]] = {}
        for row in self._table.node_rows([r["id"] for r in rows]):
            nodes.setdefault(row["cluster_id"], []).append(_node(row))
        return [_cluster(r, nodes.get(r["id"], [])) for r in rows]

    def all(self) -> list[ClusterRecord]:
        return self._records(self._table.all_rows())

    def live(self) -> list[ClusterRecord]:
        return self._records(self._table.rows_in_states(LIVE))

    def get(self, cluster_id: int) -> ClusterRecord:
        found = self._records(self._table.rows_by_id(cluster_id))
        if not found:
            raise UsageError(
                said("error.record.no_cluster", ref=cluster_id), hint=said("error.record.clusters")
            )
        return found[0]

    def find(self, ref: str) -> ClusterRecord:
        """A cluster by id, name or the provider's id."""
        ref = ref.strip()
        if ref.isdigit() and len(ref) <= 18:
            found = self._records(self._table.rows_by_id(int(ref)))
        else:
            found = self._records(self._table.rows_by_name(ref))
        if not found:
            raise UsageError(
                said("error.record.no_cluster", ref=repr(ref)), hint=said("error.record.clusters")
            )
        live = [c for c in found if c.live]
        return (live or found)[-1]

    def meter_total(self, cluster_id: int) -> int:
        """What the app's meter has charged this cluster so far, in micro-units."""
        return self._table.meter_total(cluster_id)

    # -- writes --------------------------------------------------------------------------
    def ensure_provider(self, name: str, kind: str) -> None:
        self._table.ensure_provider(name, kind)

    def add_intent(self, values: dict[str, Any]) -> int:
        return self._table.insert_cluster({**values, "state": ClusterState.REQUESTED})

    def update(self, cluster_id: int, **values: Any) -> None:
        """Change columns of a cluster; an ``error`` given as a :class:`Said` is stored as its
        English text with its key and figures beside it (a view words it in its language)."""
        if "error" in values:
            error = values["error"]
            values["error"] = None if error is None else str(error)
            values["error_said_json"] = said_to_text(error)
        self._table.update_cluster(cluster_id, values)

    def apply_provider_view(self, cluster_id: int, info: ClusterInfo) -> None:
        """Record what the provider says of the cluster and its nodes, in one transaction."""
        self._table.apply_provider_view(
            cluster_id,
            {
                "external_id": info.external_id,
                "price_per_gpu_hour_micros": info.price_per_gpu_hour_micros,
                "currency": info.currency,
                "gpus_per_node": info.gpus_per_node,
            },
            [
                NodeView(
                    rank=n.rank,
                    external_id=n.external_id,
                    hostname=n.hostname,
                    state=n.state,
                    ssh_host=n.ssh_host,
                    ssh_port=n.ssh_port,
                    ssh_user=n.ssh_user,
                    host_key=n.host_key,
                    error=None if n.error is None else str(n.error),
                    private_ip=n.private_ip,
                    error_said_json=said_to_text(n.error),
                )
                for n in info.nodes
            ],
            info.running_at,
            info.terminated_at,
        )

    def mark_nodes_terminated(self, cluster_id: int, when: float | None = None) -> None:
        self._table.mark_nodes_terminated(cluster_id, self._clock() if when is None else when)

    def set_node_span(self, node_id: int, running_at: float, terminated_at: float) -> None:
        """When a node ran, as its scheduler recorded it (a Slurm job's exit record)."""
        self._table.set_node_span(node_id, running_at, terminated_at)

    def set_node_clock_offset(self, node_id: int, offset_s: float) -> None:
        """Seconds the node's clock is ahead of this machine's (behind: negative)."""
        self._table.set_node_clock_offset(node_id, offset_s)

    def set_node_state(self, node_id: int, state: str, error: str | Said | None = None) -> None:
        """A node's state and error; an error given as a :class:`Said` is stored as its English
        with its key and figures beside it, as :meth:`update` does for a cluster's."""
        self._table.set_node_state(
            node_id,
            state,
            None if error is None else str(error),
            said_to_text(error),
        )
