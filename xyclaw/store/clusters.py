"""The clusters and nodes tables: every read and write of them, as named functions.

Writes go through the store's one writer and wait for it. Each write that changes
a cluster's or a node's state publishes exactly one event (``ClusterChanged`` or
``NodeChanged``) after it committed, so views never poll the database.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from xyclaw.events import ClusterChanged, Event, EventBus, NodeChanged
from xyclaw.store.connection import Database
from xyclaw.store.store import Store

CLUSTER_COLUMNS = (
    "id",
    "provider_id",
    "external_id",
    "name",
    "state",
    "gpu",
    "gpu_count",
    "gpus_per_node",
    "fabric",
    "region",
    "currency",
    "price_per_gpu_hour_micros",
    "budget_micros",
    "idempotency_key",
    "keep_partial",
    "image",
    "error",
    "worker_pid",
    "budget_warned_at",
    "created_at",
    "ready_at",
    "release_requested_at",
    "released_at",
    "last_seen_at",
    "error_said_json",
    "host",
    "host_community",
    "unlisted_since",
)
NODE_COLUMNS = (
    "id",
    "cluster_id",
    "rank",
    "external_id",
    "hostname",
    "ssh_host",
    "ssh_port",
    "ssh_user",
    "host_key",
    "state",
    "error",
    "running_at",
    "terminated_at",
    "error_said_json",
    "clock_offset_s",
    "private_ip",
)


@dataclass(frozen=True)
class NodeView:
    """What a provider says of one node, as the table stores it."""

    rank: int
    external_id: str
    hostname: str
    state: str
    ssh_host: str | None
    ssh_port: int | None
    ssh_user: str | None
    host_key: str | None
    error: str | None
    private_ip: str | None = None  # on the cluster's private network, where it has one
    error_said_json: str | None = None  # the error's key and figures, where it was said


class ClusterTable:
    """Rows of ``clusters`` and ``nodes`` as dicts; the records package turns them into records."""

    def __init__(self, store: Store, bus: EventBus, clock: Callable[[], float] = time.time) -> None:
        self._store = store
        self._bus = bus
        self._clock = clock

    # -- reads ---------------------------------------------------------------------------
    def node_rows(self, cluster_ids: Sequence[int]) -> list[dict[str, Any]]:
        if not cluster_ids:
            return []
        marks = ",".join("?" * len(cluster_ids))
        return self._store.query(
            f"SELECT {', '.join(NODE_COLUMNS)} FROM nodes WHERE cluster_id IN ({marks})"
            " ORDER BY cluster_id, rank",
            list(cluster_ids),
        )

    def _rows(self, where: str = "", params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        return self._store.query(
            f"SELECT {', '.join(CLUSTER_COLUMNS)} FROM clusters {where} ORDER BY id", list(params)
        )

    def all_rows(self) -> list[dict[str, Any]]:
        return self._rows()

    def rows_in_states(self, states: Iterable[str]) -> list[dict[str, Any]]:
        wanted = list(states)
        return self._rows(f"WHERE state IN ({','.join('?' * len(wanted))})", wanted)

    def rows_by_id(self, cluster_id: int) -> list[dict[str, Any]]:
        return self._rows("WHERE id = ?", [cluster_id])

    def rows_by_name(self, ref: str) -> list[dict[str, Any]]:
        return self._rows("WHERE name = ? OR external_id = ?", [ref, ref])

    def meter_total(self, cluster_id: int) -> int:
        rows = self._store.query(
            "SELECT coalesce(sum(amount_micros), 0) AS total FROM charges"
            " WHERE cluster_id = ? AND source = 'meter'",
            [cluster_id],
        )
        return int(rows[0]["total"])

    # -- writes --------------------------------------------------------------------------
    def _write(self, sql: str, params: dict[str, Any] | Sequence[Any]) -> int | None:
        def run(db: Database) -> int | None:
            return db.conn.execute(sql, params).lastrowid

        return self._store.writer.call(run)

    def _publish(self, events: Iterable[Event]) -> None:
        for event in events:
            self._bus.publish(event)

    def ensure_provider(self, name: str, kind: str) -> None:
        self._write(
            "INSERT OR IGNORE INTO providers (id, kind, name, created_at) VALUES (?, ?, ?, ?)",
            [name, kind, name, self._clock()],
        )

    def insert_cluster(self, values: dict[str, Any]) -> int:
        row = {**values, "created_at": self._clock()}
        cols = ", ".join(row)
        marks = ", ".join(f":{k}" for k in row)
        new_id = self._write(f"INSERT INTO clusters ({cols}) VALUES ({marks})", row)
        assert new_id is not None
        self._publish(
            [
                ClusterChanged(
                    cluster_id=new_id,
                    name=str(row.get("name", "")),
                    state=str(row["state"]),
                    previous=None,
                )
            ]
        )
        return new_id

    def update_cluster(self, cluster_id: int, values: dict[str, Any]) -> None:
        """Change columns of one cluster; a changed state is published once."""
        unknown = set(values) - set(CLUSTER_COLUMNS)
        if unknown or not values:
            raise ValueError(f"not cluster columns: {sorted(unknown) or 'none given'}")
        sets = ", ".join(f"{k} = :{k}" for k in values)

        def run(db: Database) -> tuple[str, str] | None:
            before = db.conn.execute(
                "SELECT name, state FROM clusters WHERE id = ?", [cluster_id]
            ).fetchone()
            db.conn.execute(
                f"UPDATE clusters SET {sets} WHERE id = :id", {**values, "id": cluster_id}
            )
            return None if before is None else (str(before[0]), str(before[1]))

        before = self._store.writer.call(run)
        if before is not None and "state" in values and values["state"] != before[1]:
            self._publish(
                [
                    ClusterChanged(
                        cluster_id=cluster_id,
                        name=str(values.get("name", before[0])),
                        state=str(values["state"]),
                        previous=before[1],
                    )
                ]
            )

    def apply_provider_view(
        self,
        cluster_id: int,
        cluster_values: dict[str, Any],
        nodes: Sequence[NodeView],
        provider_running_at: float | None,
        provider_terminated_at: float | None,
    ) -> None:
        """Record what the provider says of the cluster and its nodes, in one transaction."""
        now = self._clock()

        def run(db: Database) -> list[Event]:
            sets = ", ".join(f"{k} = ?" for k in cluster_values)
            db.conn.execute(
                f"UPDATE clusters SET {sets}, last_seen_at = ? WHERE id = ?",
                [*cluster_values.values(), now, cluster_id],
            )
            changes: list[Event] = []
            for node in nodes:
                change = _upsert_node(
                    db, cluster_id, node, now, provider_running_at, provider_terminated_at
                )
                if change is not None:
                    changes.append(change)
            return changes

        self._publish(self._store.writer.call(run))

    def mark_nodes_terminated(self, cluster_id: int, when: float) -> None:
        def run(db: Database) -> list[Event]:
            before = db.conn.execute(
                "SELECT id, rank, state FROM nodes WHERE cluster_id = ?", [cluster_id]
            ).fetchall()
            db.conn.execute(
                "UPDATE nodes SET state = 'terminated', terminated_at = coalesce(terminated_at, ?)"
                " WHERE cluster_id = ?",
                [when, cluster_id],
            )
            return [
                NodeChanged(
                    cluster_id=cluster_id,
                    node_id=node_id,
                    rank=rank,
                    state="terminated",
                    previous=state,
                )
                for node_id, rank, state in before
                if state != "terminated"
            ]

        self._publish(self._store.writer.call(run))

    def set_node_span(self, node_id: int, running_at: float, terminated_at: float) -> None:
        """When a node ran, as its scheduler recorded it (a Slurm job's exit record): the
        History's GPU-hours; a correction of times, not a state: no event."""
        self._store.writer.call(
            lambda db: db.conn.execute(
                "UPDATE nodes SET running_at = ?, terminated_at = ? WHERE id = ?",
                [running_at, terminated_at, node_id],
            )
        )

    def set_node_clock_offset(self, node_id: int, offset_s: float) -> None:
        """The node's clock minus this machine's, measured at bootstrap. A measurement, not a
        state: no event."""
        self._store.writer.call(
            lambda db: db.conn.execute(
                "UPDATE nodes SET clock_offset_s = ? WHERE id = ?", [offset_s, node_id]
            )
        )

    def set_node_state(
        self, node_id: int, state: str, error: str | None, error_said_json: str | None = None
    ) -> None:
        def run(db: Database) -> list[Event]:
            before = db.conn.execute(
                "SELECT cluster_id, rank, state FROM nodes WHERE id = ?", [node_id]
            ).fetchone()
            db.conn.execute(
                "UPDATE nodes SET state = ?, error = ?, error_said_json = ? WHERE id = ?",
                [state, error, error_said_json, node_id],
            )
            if before is None or before[2] == state:
                return []
            return [
                NodeChanged(
                    cluster_id=before[0],
                    node_id=node_id,
                    rank=before[1],
                    state=state,
                    previous=before[2],
                )
            ]

        self._publish(self._store.writer.call(run))


def _upsert_node(
    db: Database,
    cluster_id: int,
    node: NodeView,
    now: float,
    provider_running_at: float | None,
    provider_terminated_at: float | None,
) -> NodeChanged | None:
    """Insert or refresh a node. Billing times come from the provider where it gives them
    (so the meter matches its ledger even when we looked late), else from when we saw it."""
    running = node.state == "running"
    terminated = node.state in ("terminated", "failed")
    started = provider_running_at if provider_running_at is not None else now
    ended = provider_terminated_at if provider_terminated_at is not None else now
    existing = db.conn.execute(
        "SELECT id, running_at, terminated_at, state FROM nodes WHERE cluster_id = ? AND rank = ?",
        [cluster_id, node.rank],
    ).fetchone()
    if existing is None:
        cursor = db.conn.execute(
            "INSERT INTO nodes (cluster_id, rank, external_id, hostname, ssh_host, ssh_port,"
            " ssh_user, host_key, state, error, error_said_json, created_at, running_at,"
            " private_ip) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
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
                node.error_said_json,
                now,
                started if running else None,
                node.private_ip,
            ],
        )
        assert cursor.lastrowid is not None
        return NodeChanged(
            cluster_id=cluster_id,
            node_id=cursor.lastrowid,
            rank=node.rank,
            state=node.state,
            previous=None,
        )
    node_id, running_at, terminated_at, previous = existing
    db.conn.execute(
        "UPDATE nodes SET external_id = ?, hostname = ?, ssh_host = ?, ssh_port = ?,"
        " ssh_user = ?, host_key = coalesce(?, host_key), state = ?,"
        # the error's wording: the view's where it says one, else it stays while the error
        # does (the provider's view repeats it)
        " error_said_json = coalesce(?, CASE WHEN error IS ? THEN error_said_json END),"
        " error = ?,"
        " running_at = ?, terminated_at = ?, private_ip = coalesce(?, private_ip) WHERE id = ?",
        [
            node.external_id,
            node.hostname,
            node.ssh_host,
            node.ssh_port,
            node.ssh_user,
            node.host_key,
            node.state,
            node.error_said_json,
            node.error,
            node.error,
            running_at if running_at is not None else (started if running else None),
            terminated_at
            if terminated_at is not None
            else (ended if terminated and running_at is not None else None),
            node.private_ip,
            node_id,
        ],
    )
    if previous == node.state:
        return None
    return NodeChanged(
        cluster_id=cluster_id, node_id=node_id, rank=node.rank, state=node.state, previous=previous
    )
