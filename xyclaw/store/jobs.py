"""The jobs, job_attempts, job_logs, job_log_offsets and job_metrics tables: every read and
write of them, as named functions.

Writes go through the store's one writer. A write that changes a job's state publishes
exactly one ``JobChanged`` after it committed (none when the state did not change). Log
lines are stored together with the byte offset they end at, in one transaction and only
if the stored offset is the one the caller read from: a reconnect, an app restart or a
second follower never stores a line twice and never skips one.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from itertools import repeat
from typing import Any

from xyclaw.events import EventBus, JobChanged
from xyclaw.secrets import mask
from xyclaw.store.connection import Database
from xyclaw.store.store import Store

#: Job states in which a job holds its cluster's GPUs.
ACTIVE_JOB_STATES = ("queued", "setting-up", "starting", "running", "recovering", "lost-contact")

JOB_COLUMNS = (
    "id",
    "cluster_id",
    "name",
    "kind",
    "spec_json",
    "state",
    "created_at",
    "started_at",
    "ended_at",
    "exit_code",
    "attempt",
    "cause",
    "error",
    "error_said_json",
    "rented_cluster",
    "service_url",
    "cancel_requested_at",
    "follower",
    "follower_seen",
    "progress_json",
    "log_lines",
    "log_cut_lines",
    "log_cut_after",
    "updated_at",
)
_UPDATABLE = frozenset(JOB_COLUMNS) - {"id", "created_at", "state", "log_lines", "log_cut_lines"}
ATTEMPT_COLUMNS = (
    "job_id",
    "attempt",
    "cluster_id",
    "state",
    "started_at",
    "ended_at",
    "exit_code",
    "resumed_from",
    "resume_step",
    "cause",
    "message",
    "message_said_json",
    "nodes_json",
)
LOG_COLUMNS = ("id", "job_id", "attempt", "stream", "node_rank", "node", "rank", "offset", "ts",
               "text")  # fmt: skip
METRIC_COLUMNS = (
    "job_id",
    "attempt",
    "ts",
    "step",
    "total_steps",
    "loss",
    "learning_rate",
    "grad_norm",
    "tokens_per_s",
    "samples_per_s",
    "epoch",
)


@dataclass(frozen=True)
class LogCap:
    """How many lines of one job are kept: the first ``head`` and the last ``tail``."""

    head: int = 100_000
    tail: int = 900_000

    @property
    def total(self) -> int:
        return self.head + self.tail


@dataclass(frozen=True)
class LogRows:
    """Lines of one node's stream to store, as columns of equal length: no row object is
    made per line (the insert zips the columns in C)."""

    node: str
    ts: float
    offsets: Sequence[int]
    ranks: Sequence[int | None]
    texts: Sequence[str]

    def __len__(self) -> int:
        return len(self.texts)


@dataclass(frozen=True)
class AppendOutcome:
    """What :meth:`JobTable.append_log` did: ``stored`` is False when the stored offset was
    not the one the caller read from (another follower got there first); ``offset`` is the
    stored offset either way, where the next read starts."""

    stored: bool
    offset: int
    stored_at: float | None = None  # when the lines were written to the store


class JobTable:
    def __init__(
        self,
        store: Store,
        bus: EventBus | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._store = store
        self._bus = bus
        self._clock = clock

    # -- what other parts ask ------------------------------------------------------------------
    def active_count(self, cluster_id: int) -> int:
        """Jobs on a cluster that are running or about to: the one answer to "is a job running"."""
        marks = ",".join("?" * len(ACTIVE_JOB_STATES))
        rows = self._store.query(
            f"SELECT count(*) AS n FROM jobs WHERE cluster_id = ? AND state IN ({marks})",
            [cluster_id, *ACTIVE_JOB_STATES],
        )
        return int(rows[0]["n"])

    def window(self, job_id: int) -> dict[str, Any] | None:
        """When a job ran and on which cluster: what a metrics export of the job needs."""
        rows = self._store.query(
            "SELECT id, cluster_id, created_at, started_at, ended_at FROM jobs WHERE id = ?",
            [job_id],
        )
        return rows[0] if rows else None

    # -- job rows ------------------------------------------------------------------------------
    def _rows(self, where: str = "", params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        return self._store.query(
            f"SELECT {', '.join(JOB_COLUMNS)} FROM jobs {where} ORDER BY id", list(params)
        )

    def row(self, job_id: int) -> dict[str, Any] | None:
        found = self._rows("WHERE id = ?", [job_id])
        return found[0] if found else None

    def rows(self, *, active_only: bool = False, limit: int | None = None) -> list[dict[str, Any]]:
        if active_only:
            marks = ",".join("?" * len(ACTIVE_JOB_STATES))
            return self._rows(f"WHERE state IN ({marks})", ACTIVE_JOB_STATES)
        if limit is not None:
            return list(
                reversed(
                    self._store.query(
                        f"SELECT {', '.join(JOB_COLUMNS)} FROM jobs ORDER BY id DESC LIMIT ?",
                        [limit],
                    )
                )
            )
        return self._rows()

    def rows_by_name(self, name: str) -> list[dict[str, Any]]:
        return self._rows("WHERE name = ?", [name])

    def rows_on_cluster(self, cluster_id: int, *, active_only: bool = True) -> list[dict[str, Any]]:
        if not active_only:
            return self._rows("WHERE cluster_id = ?", [cluster_id])
        marks = ",".join("?" * len(ACTIVE_JOB_STATES))
        return self._rows(
            f"WHERE cluster_id = ? AND state IN ({marks})", [cluster_id, *ACTIVE_JOB_STATES]
        )

    # -- job writes ----------------------------------------------------------------------------
    def _publish(self, event: JobChanged | None) -> None:
        if event is not None and self._bus is not None:
            self._bus.publish(event)

    def insert(
        self,
        *,
        name: str,
        kind: str,
        spec_json: str,
        state: str,
        cluster_id: int | None,
        rented_cluster: bool,
    ) -> int:
        """A new job; publishes its JobChanged (``previous`` None)."""
        now = self._clock()
        row = [cluster_id, name, kind, spec_json, state, now, int(rented_cluster), now]

        def run(db: Database) -> int | None:
            return db.conn.execute(
                "INSERT INTO jobs (cluster_id, name, kind, spec_json, state, created_at,"
                " rented_cluster, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                row,
            ).lastrowid

        job_id = self._store.writer.call(run)
        assert job_id is not None
        self._publish(
            JobChanged(
                ts=now, job_id=job_id, cluster_id=cluster_id, name=name, state=state, previous=None
            )
        )
        return job_id

    def update(self, job_id: int, **values: Any) -> None:
        """Change columns other than the state (no event)."""
        unknown = set(values) - _UPDATABLE
        if unknown or not values:
            raise ValueError(f"not updatable job columns: {sorted(unknown) or 'none given'}")
        sets = ", ".join(f"{k} = :{k}" for k in values)
        params = {**values, "id": job_id, "updated_at_": self._clock()}
        self._store.writer.call(
            lambda db: db.conn.execute(
                f"UPDATE jobs SET {sets}, updated_at = :updated_at_ WHERE id = :id", params
            )
        )

    def set_state(
        self,
        job_id: int,
        state: str,
        *,
        only_from: Iterable[str] | None = None,
        **values: Any,
    ) -> str | None:
        """Move a job to ``state`` (and set ``values`` with it) in one transaction.

        Returns the previous state when it changed (one JobChanged is published), None when
        the job was already in ``state`` or, with ``only_from``, in a state not listed
        (then nothing is written: a job cancelled meanwhile stays cancelled).
        """
        unknown = set(values) - _UPDATABLE
        if unknown:
            raise ValueError(f"not updatable job columns: {sorted(unknown)}")
        allowed = None if only_from is None else tuple(only_from)
        now = self._clock()

        def run(db: Database) -> JobChanged | None:
            before = db.conn.execute(
                "SELECT name, state, cluster_id, attempt FROM jobs WHERE id = ?", [job_id]
            ).fetchone()
            if before is None:
                return None
            name, previous, cluster_id, attempt = before
            if previous == state or (allowed is not None and previous not in allowed):
                if values and previous == state:
                    sets = ", ".join(f"{k} = :{k}" for k in values)
                    db.conn.execute(
                        f"UPDATE jobs SET {sets} WHERE id = :id", {**values, "id": job_id}
                    )
                return None
            sets = ", ".join(f"{k} = :{k}" for k in ("state", *values))
            db.conn.execute(
                f"UPDATE jobs SET {sets}, updated_at = :now WHERE id = :id",
                {**values, "state": state, "id": job_id, "now": now},
            )
            return JobChanged(
                ts=now,
                job_id=job_id,
                cluster_id=values.get("cluster_id", cluster_id),
                name=str(name),
                state=state,
                previous=str(previous),
                attempt=int(values.get("attempt", attempt) or 1),
            )

        event = self._store.writer.call(run)
        self._publish(event)
        return None if event is None else event.previous

    def claim(self, job_id: int, follower: str, *, now: float, stale_before: float,
              dead: Iterable[str] = ()) -> bool:  # fmt: skip
        """Take the follower lease of a job: free, ours, stale (no heartbeat since
        ``stale_before``) or held by one of ``dead``. The heartbeat is ``now``."""
        dead_list = list(dead)

        def run(db: Database) -> bool:
            marks = ",".join("?" * len(dead_list)) or "NULL"
            cursor = db.conn.execute(
                "UPDATE jobs SET follower = ?, follower_seen = ? WHERE id = ? AND ("
                " follower IS NULL OR follower = ? OR follower_seen IS NULL"
                f" OR follower_seen < ? OR follower IN ({marks}))",
                [follower, now, job_id, follower, stale_before, *dead_list],
            )
            return cursor.rowcount == 1

        return self._store.writer.call(run)

    def release_claim(self, job_id: int, follower: str, *, now: float | None = None) -> None:
        """Give the lease up; ``follower_seen`` keeps ``now``, when the job was last
        watched (the next follower says how long nobody did)."""
        self._store.writer.call(
            lambda db: db.conn.execute(
                "UPDATE jobs SET follower = NULL, follower_seen = ? WHERE id = ? AND follower = ?",
                [now, job_id, follower],
            )
        )

    # -- attempts ------------------------------------------------------------------------------
    def upsert_attempt(self, job_id: int, attempt: int, **values: Any) -> None:
        """Create the attempt row if it is new, then set ``values`` on it."""
        unknown = set(values) - set(ATTEMPT_COLUMNS)
        if unknown:
            raise ValueError(f"not attempt columns: {sorted(unknown)}")

        def run(db: Database) -> None:
            db.conn.execute(
                "INSERT OR IGNORE INTO job_attempts (job_id, attempt, state) VALUES (?, ?, ?)",
                [job_id, attempt, values.get("state", "queued")],
            )
            if values:
                sets = ", ".join(f"{k} = :{k}" for k in values)
                db.conn.execute(
                    f"UPDATE job_attempts SET {sets} WHERE job_id = :job AND attempt = :att",
                    {**values, "job": job_id, "att": attempt},
                )

        self._store.writer.call(run)

    def attempts(self, job_id: int) -> list[dict[str, Any]]:
        return self._store.query(
            f"SELECT {', '.join(ATTEMPT_COLUMNS)} FROM job_attempts WHERE job_id = ?"
            " ORDER BY attempt",
            [job_id],
        )

    # -- logs ----------------------------------------------------------------------------------
    def log_offset(self, job_id: int, attempt: int, stream: str, node_rank: int) -> int:
        rows = self._store.query(
            "SELECT offset FROM job_log_offsets WHERE job_id = ? AND attempt = ? AND stream = ?"
            " AND node_rank = ?",
            [job_id, attempt, stream, node_rank],
        )
        return int(rows[0]["offset"]) if rows else 0

    def submit_log(
        self,
        job_id: int,
        attempt: int,
        stream: str,
        node_rank: int,
        *,
        expected_offset: int,
        new_offset: int,
        lines: LogRows,
        cap: LogCap,
    ) -> Future[AppendOutcome]:
        """Queue storing ``lines`` that end at ``new_offset``, if the stored offset is still
        ``expected_offset``; lines past the job's cap are trimmed from the middle (the head
        and the tail are kept, the cut counted). Returns at once: the store's writer puts
        many of these in one transaction."""
        count = len(lines)
        if not (len(lines.offsets) == len(lines.ranks) == count):
            raise ValueError("log columns of different lengths")
        key = [job_id, attempt, stream, node_rank]
        # A job that prints its secret variables (HF_TOKEN): masked before it is kept.
        texts = [mask(text) for text in lines.texts]

        def run(db: Database) -> AppendOutcome:
            conn = db.conn
            found = conn.execute(
                "SELECT offset FROM job_log_offsets WHERE job_id = ? AND attempt = ?"
                " AND stream = ? AND node_rank = ?",
                key,
            ).fetchone()
            current = int(found[0]) if found else 0
            if current != expected_offset:
                return AppendOutcome(False, current)
            if count:
                conn.executemany(
                    "INSERT INTO job_logs (job_id, attempt, stream, node_rank, node, ts, offset,"
                    " rank, text) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    zip(
                        repeat(job_id),
                        repeat(attempt),
                        repeat(stream),
                        repeat(node_rank),
                        repeat(lines.node),
                        repeat(lines.ts),
                        lines.offsets,
                        lines.ranks,
                        texts,
                    ),
                )
            conn.execute(
                "INSERT INTO job_log_offsets (job_id, attempt, stream, node_rank, offset, lines)"
                " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (job_id, attempt, stream, node_rank)"
                " DO UPDATE SET offset = excluded.offset, lines = lines + excluded.lines",
                [*key, new_offset, count],
            )
            if count:
                conn.execute(
                    "UPDATE jobs SET log_lines = log_lines + ? WHERE id = ?", [count, job_id]
                )
                _trim(conn, job_id, cap)
            return AppendOutcome(True, new_offset, time.time())

        return self._store.writer.submit(run)

    def append_log(
        self,
        job_id: int,
        attempt: int,
        stream: str,
        node_rank: int,
        *,
        expected_offset: int,
        new_offset: int,
        lines: LogRows,
        cap: LogCap,
    ) -> AppendOutcome:
        """:meth:`submit_log`, waiting for the outcome."""
        return self.submit_log(
            job_id,
            attempt,
            stream,
            node_rank,
            expected_offset=expected_offset,
            new_offset=new_offset,
            lines=lines,
            cap=cap,
        ).result(60.0)

    def log_rows(
        self,
        job_id: int,
        *,
        attempt: int | None = None,
        stream: str | None = None,
        rank: int | None = None,
        node: str | int | None = None,
        after_id: int | None = None,
        tail: int | None = None,
        limit: int = 100_000,
    ) -> list[dict[str, Any]]:
        """Stored lines of a job in the order they were stored, filtered; ``tail``: the last
        that many; ``after_id``: only lines stored after that one."""
        where = ["job_id = ?"]
        params: list[Any] = [job_id]
        if attempt is not None:
            where.append("attempt = ?")
            params.append(attempt)
        if stream is not None:
            where.append("stream = ?")
            params.append(stream)
        if rank is not None:
            where.append("rank = ?")
            params.append(rank)
        if node is not None:
            if isinstance(node, int) or str(node).isdigit():
                where.append("node_rank = ?")
                params.append(int(node))
            else:
                where.append("node = ?")
                params.append(str(node))
        if after_id is not None:
            where.append("id > ?")
            params.append(after_id)
        sql = f"SELECT {', '.join(LOG_COLUMNS)} FROM job_logs WHERE {' AND '.join(where)}"
        if tail is not None:
            found = self._store.query(sql + " ORDER BY id DESC LIMIT ?", [*params, max(0, tail)])
            return list(reversed(found))
        return self._store.query(sql + " ORDER BY id LIMIT ?", [*params, limit])

    def log_offsets(self, job_id: int) -> list[dict[str, Any]]:
        return self._store.query(
            "SELECT attempt, stream, node_rank, offset, lines FROM job_log_offsets"
            " WHERE job_id = ? ORDER BY attempt, stream, node_rank",
            [job_id],
        )

    # -- metrics -------------------------------------------------------------------------------
    def add_metrics(self, rows: Sequence[Sequence[Any]]) -> None:
        """Queue points of the metrics series (fire and forget: a lost point is a gap)."""
        if rows:
            marks = ", ".join("?" * len(METRIC_COLUMNS))
            self._store.writer.execute_many(
                f"INSERT INTO job_metrics ({', '.join(METRIC_COLUMNS)}) VALUES ({marks})", rows
            )

    def metrics(self, job_id: int, limit: int = 100_000) -> list[dict[str, Any]]:
        return self._store.query(
            f"SELECT {', '.join(METRIC_COLUMNS)} FROM job_metrics WHERE job_id = ?"
            " ORDER BY ts LIMIT ?",
            [job_id, limit],
        )


def _trim(conn: Any, job_id: int, cap: LogCap) -> None:
    """Keep the head and the tail of a job's lines; count what is cut between them.

    Runs when the job has more lines than the cap plus a slack of a tenth of the tail, so
    the index walk it takes is paid once per that many lines, not on every append.
    """
    total, cut_after = conn.execute(
        "SELECT log_lines, log_cut_after FROM jobs WHERE id = ?", [job_id]
    ).fetchone()
    if total <= cap.total + max(1, cap.tail // 10):
        return
    if cut_after is None:
        found = conn.execute(
            "SELECT id FROM job_logs WHERE job_id = ? ORDER BY id LIMIT 1 OFFSET ?",
            [job_id, max(0, cap.head - 1)],
        ).fetchone()
        cut_after = int(found[0]) if found and cap.head > 0 else 0
    oldest_tail = conn.execute(
        "SELECT id FROM job_logs WHERE job_id = ? ORDER BY id DESC LIMIT 1 OFFSET ?",
        [job_id, max(0, cap.tail - 1)],
    ).fetchone()
    if oldest_tail is None:
        return
    removed = conn.execute(
        "DELETE FROM job_logs WHERE job_id = ? AND id > ? AND id < ?",
        [job_id, cut_after, int(oldest_tail[0])],
    ).rowcount
    conn.execute(
        "UPDATE jobs SET log_lines = log_lines - ?, log_cut_lines = log_cut_lines + ?,"
        " log_cut_after = ? WHERE id = ?",
        [removed, removed, cut_after, job_id],
    )
