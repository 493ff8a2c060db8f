"""Clusters and nodes as the store records them, and the writes the lifecycle makes.

Every intent is written before the provider is called and every outcome after,
so a crash at any point leaves a row that says what was under way.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import sqlite_utils

from xyclaw.billing import BilledSpan
from xyclaw.errors import UsageError
from xyclaw.providers import ClusterInfo, NodeInfo
from xyclaw.store import Store

# Local lifecycle states.
REQUESTED = "requested"  # intent written; the provider may or may not have it yet
PROVISIONING = "provisioning"  # the provider accepted it; nodes are coming up
BOOTSTRAPPING = "bootstrapping"  # nodes answer SSH; checks and setup run
READY = "ready"
RELEASING = "releasing"  # release intent written; waiting for the provider to confirm
RELEASED = "released"
FAILED = "failed"  # never billed: the provider refused or never created it
GONE = "gone"  # the provider no longer has it, and we did not release it

IN_FLIGHT = (REQUESTED, PROVISIONING, BOOTSTRAPPING, RELEASING)
LIVE = (REQUESTED, PROVISIONING, BOOTSTRAPPING, READY, RELEASING)


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
    state: str
    error: str | None
    running_at: float | None
    terminated_at: float | None

    @property
    def name(self) -> str:
        return self.hostname or f"node-{self.rank}"


@dataclass(frozen=True)
class ClusterRecord:
    id: int
    provider_id: str
    external_id: str | None
    name: str
    state: str
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

    @property
    def live(self) -> bool:
        return self.state in LIVE

    def billed_spans(self) -> list[BilledSpan]:
        return [
            BilledSpan(
                n.running_at, n.terminated_at, self.gpus_per_node, self.price_per_gpu_hour_micros
            )
            for n in self.nodes
            if n.running_at is not None
        ]

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


_CLUSTER_FIELDS = tuple(f for f in ClusterRecord.__dataclass_fields__ if f != "nodes")
_NODE_FIELDS = tuple(NodeRecord.__dataclass_fields__)


class ClusterStore:
    """Reads through the store's reader; writes through its one writer, waiting for each."""

    def __init__(self, store: Store, clock: Any = time.time) -> None:
        self.store = store
        self.clock = clock

    # -- reads ---------------------------------------------------------------------------
    def _nodes(self, cluster_ids: Sequence[int]) -> dict[int, list[NodeRecord]]:
        if not cluster_ids:
            return {}
        marks = ",".join("?" * len(cluster_ids))
        rows = self.store.query(
            f"SELECT {', '.join(_NODE_FIELDS)} FROM nodes WHERE cluster_id IN ({marks})"
            " ORDER BY cluster_id, rank",
            list(cluster_ids),
        )
        out: dict[int, list[NodeRecord]] = {}
        for row in rows:
            out.setdefault(row["cluster_id"], []).append(NodeRecord(**row))
        return out

    def _records(self, where: str = "", params: Sequence[Any] = ()) -> list[ClusterRecord]:
        rows = self.store.query(
            f"SELECT {', '.join(_CLUSTER_FIELDS)} FROM clusters {where} ORDER BY id", list(params)
        )
        nodes = self._nodes([r["id"] for r in rows])
        return [
            ClusterRecord(
                **{**r, "keep_partial": bool(r["keep_partial"])},
                nodes=tuple(nodes.get(r["id"], [])),
            )
            for r in rows
        ]

    def all(self) -> list[ClusterRecord]:
        return self._records()

    def live(self) -> list[ClusterRecord]:
        marks = ",".join("?" * len(LIVE))
        return self._records(f"WHERE state IN ({marks})", LIVE)

    def get(self, cluster_id: int) -> ClusterRecord:
        found = self._records("WHERE id = ?", [cluster_id])
        if not found:
            raise UsageError(f"no cluster {cluster_id}", hint="`xyclaw clusters` lists them")
        return found[0]

    def find(self, ref: str) -> ClusterRecord:
        """A cluster by id, name or the provider's id."""
        if ref.isdigit():
            found = self._records("WHERE id = ?", [int(ref)])
        else:
            found = self._records("WHERE name = ? OR external_id = ?", [ref, ref])
        if not found:
            raise UsageError(f"no cluster {ref!r}", hint="`xyclaw clusters` lists them")
        live = [c for c in found if c.live]
        return (live or found)[-1]

    # -- writes --------------------------------------------------------------------------
    def _write(self, sql: str, params: dict[str, Any] | Sequence[Any]) -> int | None:
        def run(db: sqlite_utils.Database) -> int | None:
            return db.conn.execute(sql, params).lastrowid

        return self.store.writer.call(run)

    def ensure_provider(self, name: str, kind: str) -> None:
        self._write(
            "INSERT OR IGNORE INTO providers (id, kind, name, created_at) VALUES (?, ?, ?, ?)",
            [name, kind, name, self.clock()],
        )

    def add_intent(self, values: dict[str, Any]) -> int:
        row = {**values, "state": REQUESTED, "created_at": self.clock()}
        cols = ", ".join(row)
        marks = ", ".join(f":{k}" for k in row)
        new_id = self._write(f"INSERT INTO clusters ({cols}) VALUES ({marks})", row)
        assert new_id is not None
        return new_id

    def update(self, cluster_id: int, **values: Any) -> None:
        sets = ", ".join(f"{k} = :{k}" for k in values)
        self._write(f"UPDATE clusters SET {sets} WHERE id = :id", {**values, "id": cluster_id})

    def apply_provider_view(self, cluster_id: int, info: ClusterInfo) -> None:
        """Record what the provider says of the cluster and its nodes, in one transaction."""
        now = self.clock()

        def run(db: sqlite_utils.Database) -> None:
            db.conn.execute(
                "UPDATE clusters SET external_id = ?, price_per_gpu_hour_micros = ?, currency = ?,"
                " gpus_per_node = ?, last_seen_at = ? WHERE id = ?",
                [
                    info.external_id,
                    info.price_per_gpu_hour_micros,
                    info.currency,
                    info.gpus_per_node,
                    now,
                    cluster_id,
                ],
            )
            for node in info.nodes:
                _upsert_node(db, cluster_id, node, now, info.running_at, info.terminated_at)

        self.store.writer.call(run)

    def mark_nodes_terminated(self, cluster_id: int, when: float | None = None) -> None:
        stamp = self.clock() if when is None else when
        self._write(
            "UPDATE nodes SET state = 'terminated', terminated_at = coalesce(terminated_at, ?)"
            " WHERE cluster_id = ?",
            [stamp, cluster_id],
        )

    def set_node_state(self, node_id: int, state: str, error: str | None = None) -> None:
        self._write("UPDATE nodes SET state = ?, error = ? WHERE id = ?", [state, error, node_id])


def _upsert_node(
    db: sqlite_utils.Database,
    cluster_id: int,
    node: NodeInfo,
    now: float,
    provider_running_at: float | None,
    provider_terminated_at: float | None,
) -> None:
    """Insert or refresh a node. Billing times come from the provider where it gives them
    (so the meter matches its ledger even when we looked late), else from when we saw it."""
    running = node.state == "running"
    terminated = node.state in ("terminated", "failed")
    started = provider_running_at if provider_running_at is not None else now
    ended = provider_terminated_at if provider_terminated_at is not None else now
    existing = db.conn.execute(
        "SELECT id, running_at, terminated_at FROM nodes WHERE cluster_id = ? AND rank = ?",
        [cluster_id, node.rank],
    ).fetchone()
    if existing is None:
        db.conn.execute(
            "INSERT INTO nodes (cluster_id, rank, external_id, hostname, ssh_host, ssh_port,"
            " ssh_user, host_key, state, error, created_at, running_at) VALUES"
            " (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                cluster_id,
                node.rank,
                node.external_id,
                node.hostname,
                node.ssh_host,
                node.ssh_port,
                node.ssh_user,
                node.host_key,
                node.state,
                node.error,
                now,
                started if running else None,
            ],
        )
        return
    node_id, running_at, terminated_at = existing
    db.conn.execute(
        "UPDATE nodes SET external_id = ?, hostname = ?, ssh_host = ?, ssh_port = ?,"
        " ssh_user = ?, host_key = coalesce(?, host_key), state = ?, error = ?,"
        " running_at = ?, terminated_at = ? WHERE id = ?",
        [
            node.external_id,
            node.hostname,
            node.ssh_host,
            node.ssh_port,
            node.ssh_user,
            node.host_key,
            node.state,
            node.error,
            running_at if running_at is not None else (started if running else None),
            terminated_at
            if terminated_at is not None
            else (ended if terminated and running_at is not None else None),
            node_id,
        ],
    )
