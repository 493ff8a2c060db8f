"""Jobs as XyClaw records them: their states, attempts, stored log lines and progress.

The SQL is in :mod:`xyclaw.store.jobs`; this module turns its rows into typed records
and is what the job runtime, the engine and the views read. The spec itself stays JSON
here (``spec_json``): reading it is the jobs layer's business.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from xyclaw.errors import UsageError
from xyclaw.events import EventBus
from xyclaw.store import Store
from xyclaw.store.jobs import AppendOutcome, JobTable, LogCap, LogRows
from xyclaw.wording import Said, said, said_from_text, said_to_text


class JobState(StrEnum):
    QUEUED = "queued"  # written; nothing runs yet (renting, waiting for the cluster)
    SETTING_UP = "setting-up"  # uploading the workdir, running setup on every node
    RUNNING = "running"  # the run command was started on every node
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    CANCELLED = "cancelled"
    RECOVERING = "recovering"  # an attempt ended for a cause the policy retries
    LOST_CONTACT = "lost-contact"  # a node does not answer; the job may still be running

    @property
    def finished(self) -> bool:
        return self in FINISHED

    @property
    def active(self) -> bool:
        return self not in FINISHED

    @classmethod
    def of(cls, text: str) -> JobState:
        if text == "starting":  # written by older versions
            return cls.RUNNING
        return cls(text)


FINISHED: tuple[JobState, ...] = (JobState.SUCCEEDED, JobState.FAILED, JobState.CANCELLED)
ACTIVE: tuple[JobState, ...] = tuple(s for s in JobState if s not in FINISHED)


@dataclass(frozen=True)
class JobProgress:
    """The newest figures read from a job's log, with the ETA once it is warmed up."""

    step: int | None = None
    total_steps: int | None = None
    loss: float | None = None
    learning_rate: float | None = None
    tokens_per_s: float | None = None
    samples_per_s: float | None = None
    epoch: float | None = None
    eta_s: float | None = None
    eta_reason: str | None = None
    updated_at: float | None = None
    checkpoint_step: int | None = None
    requests_per_s: float | None = None  # services: sampled from the forwarded port
    latency_ms: float | None = None
    requests_served: int | None = None  # services: connections through the forward, all attempts

    @classmethod
    def from_json(cls, text: str | None) -> JobProgress:
        try:
            data = json.loads(text or "{}")
        except ValueError:
            return cls()
        if not isinstance(data, dict):
            return cls()
        names = set(cls.__dataclass_fields__)
        return cls(**{k: v for k, v in data.items() if k in names})

    def to_json(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


@dataclass(frozen=True)
class AttemptNode:
    """One node of an attempt: where it ran and how it ended."""

    rank: int
    node: str
    cluster_id: int
    node_id: int
    ip: str | None = None
    state: str | None = None  # running, exited, dead, lost, unreachable
    exit_code: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "rank": self.rank,
            "node": self.node,
            "cluster_id": self.cluster_id,
            "node_id": self.node_id,
            "ip": self.ip,
            "state": self.state,
            "exit_code": self.exit_code,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> AttemptNode:
        return cls(
            rank=int(data["rank"]),
            node=str(data["node"]),
            cluster_id=int(data["cluster_id"]),
            node_id=int(data["node_id"]),
            ip=data.get("ip"),
            state=data.get("state"),
            exit_code=data.get("exit_code"),
        )


@dataclass(frozen=True)
class AttemptRecord:
    job_id: int
    attempt: int
    cluster_id: int | None
    state: str
    started_at: float | None
    ended_at: float | None
    exit_code: int | None
    resumed_from: str | None  # the checkpoint folder it resumed from
    resume_step: int | None
    cause: str | None  # node_lost, xid, nccl_timeout, exit_nonzero, cancelled, ...
    message: str | None  # "XID 79 on node-2", "exit code 1 on node-0"
    nodes: tuple[AttemptNode, ...] = ()
    message_said: Said | None = None  # the message's key and figures (None for old rows)

    @property
    def said(self) -> Said | str | None:
        """The message as a view words it: its :class:`Said`, else the stored English."""
        return self.message_said or self.message

    def to_json(self) -> dict[str, Any]:
        return {
            "attempt": self.attempt,
            "cluster_id": self.cluster_id,
            "state": self.state,
            "started_at": self.started_at,
            "ended_at": self.ended_at,
            "exit_code": self.exit_code,
            "resumed_from": self.resumed_from,
            "resume_step": self.resume_step,
            "cause": self.cause,
            "message": self.message,
            "nodes": [n.to_json() for n in self.nodes],
        }


@dataclass(frozen=True)
class JobRecord:
    id: int
    name: str
    kind: str
    state: JobState
    cluster_id: int | None
    spec_json: str
    created_at: float
    started_at: float | None
    ended_at: float | None
    exit_code: int | None
    attempt: int
    cause: str | None
    error: str | None
    rented_cluster: bool
    service_url: str | None
    cancel_requested_at: float | None
    progress: JobProgress
    log_lines: int
    log_cut_lines: int
    cluster: str | None = None  # the cluster's name, when known
    cost_micros: int | None = None
    currency: str | None = None
    attempts: tuple[AttemptRecord, ...] = field(default=())
    error_said: Said | None = None  # the error's key and figures (None for old rows)

    @property
    def error_worded(self) -> Said | str | None:
        """The error as a view words it: its :class:`Said`, else the stored English."""
        return self.error_said or self.error

    @property
    def active(self) -> bool:
        return self.state.active

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "kind": self.kind,
            "state": self.state.value,
            "cluster_id": self.cluster_id,
            "cluster": self.cluster,
            "attempt": self.attempt,
            "created_at": self.created_at,
            "started_at": self.started_at,
            "ended_at": self.ended_at,
            "exit_code": self.exit_code,
            "cause": self.cause,
            "error": self.error,
            "rented_cluster": self.rented_cluster,
            "url": self.service_url,
            "progress": self.progress.to_json(),
            "cost": None if self.cost_micros is None else self.cost_micros / 1e6,
            "cost_micros": self.cost_micros,
            "currency": self.currency,
            "log_lines": self.log_lines,
            "log_cut_lines": self.log_cut_lines,
            "attempts": [a.to_json() for a in self.attempts],
        }


@dataclass(frozen=True)
class LogLine:
    """One stored line of a job's log; ``str()`` is how ``xyclaw logs`` prints it."""

    id: int
    job_id: int
    attempt: int
    stream: str  # run, setup, or "cut" for the marker of trimmed lines
    node_rank: int
    node: str
    rank: int | None
    offset: int  # byte offset of the line in the node's log file
    ts: float
    text: str

    def __str__(self) -> str:
        if self.stream == "cut":
            return self.text
        who = self.node if self.rank is None else f"{self.node} rank {self.rank}"
        tag = "" if self.stream == "run" else f" {self.stream}"
        return f"[{who}{tag}] {_shown(self.text)}"

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "attempt": self.attempt,
            "stream": self.stream,
            "node_rank": self.node_rank,
            "node": self.node,
            "rank": self.rank,
            "offset": self.offset,
            "ts": self.ts,
            "text": self.text,
        }


def _shown(text: str) -> str:
    """A line as a terminal would show it: a tqdm bar redrawn with \\r shows its last drawing."""
    if "\r" in text:
        parts = [p for p in text.split("\r") if p.strip()]
        return parts[-1] if parts else ""
    return text


def _attempt(row: dict[str, Any]) -> AttemptRecord:
    try:
        nodes_raw = json.loads(row.get("nodes_json") or "[]")
    except ValueError:
        nodes_raw = []
    nodes = tuple(AttemptNode.from_json(n) for n in nodes_raw if isinstance(n, dict))
    return AttemptRecord(
        job_id=int(row["job_id"]),
        attempt=int(row["attempt"]),
        cluster_id=row["cluster_id"],
        state=str(row["state"]),
        started_at=row["started_at"],
        ended_at=row["ended_at"],
        exit_code=row["exit_code"],
        resumed_from=row["resumed_from"],
        resume_step=row["resume_step"],
        cause=row["cause"],
        message=row["message"],
        nodes=nodes,
        message_said=said_from_text(row.get("message_said_json")),
    )


def _job(row: dict[str, Any], attempts: Sequence[AttemptRecord] = ()) -> JobRecord:
    return JobRecord(
        id=int(row["id"]),
        name=str(row["name"]),
        kind=str(row["kind"]),
        state=JobState.of(str(row["state"])),
        cluster_id=row["cluster_id"],
        spec_json=str(row["spec_json"]),
        created_at=float(row["created_at"]),
        started_at=row["started_at"],
        ended_at=row["ended_at"],
        exit_code=row["exit_code"],
        attempt=int(row["attempt"] or 1),
        cause=row["cause"],
        error=row["error"],
        rented_cluster=bool(row["rented_cluster"]),
        service_url=row["service_url"],
        cancel_requested_at=row["cancel_requested_at"],
        progress=JobProgress.from_json(row["progress_json"]),
        log_lines=int(row["log_lines"] or 0),
        log_cut_lines=int(row["log_cut_lines"] or 0),
        attempts=tuple(attempts),
        error_said=said_from_text(row.get("error_said_json")),
    )


def _worded_columns(values: dict[str, Any], column: str) -> None:
    """A message given as a :class:`Said` is stored as its English text in ``column`` and
    its key and figures in ``column``'s ``_said_json`` (a plain text clears that)."""
    if column in values:
        value = values[column]
        values[f"{column}_said_json"] = said_to_text(value)
        values[column] = None if value is None else str(value)


def _line(row: dict[str, Any]) -> LogLine:
    return LogLine(**row)


class JobStore:
    """Jobs, attempts, log lines and metrics, read through the store's readers and written
    through its writer. Each state change is published by the table as one ``JobChanged``."""

    def __init__(self, store: Store, bus: EventBus, clock: Callable[[], float] = time.time) -> None:
        self.table = JobTable(store, bus, clock)
        self._clock = clock

    # -- reads ---------------------------------------------------------------------------
    def get(self, job_id: int, *, with_attempts: bool = True) -> JobRecord:
        row = self.table.row(job_id)
        if row is None:
            raise UsageError(
                said("error.record.no_job", ref=job_id), hint=said("error.record.jobs")
            )
        return _job(row, self.attempts(job_id) if with_attempts else ())

    def find(self, ref: str | int) -> JobRecord:
        """A job by id or name (the newest of that name, an active one first)."""
        text = str(ref).strip()
        if text.isdigit() and len(text) <= 18:
            row = self.table.row(int(text))
            if row is not None:
                return _job(row, self.attempts(int(text)))
        rows = self.table.rows_by_name(text)
        if not rows:
            raise UsageError(
                said("error.record.no_job", ref=repr(text)), hint=said("error.record.jobs")
            )
        active = [r for r in rows if JobState.of(str(r["state"])).active]
        row = (active or rows)[-1]
        return _job(row, self.attempts(int(row["id"])))

    def all(self, *, active_only: bool = False, limit: int | None = None) -> list[JobRecord]:
        return [_job(r) for r in self.table.rows(active_only=active_only, limit=limit)]

    def on_cluster(self, cluster_id: int, *, active_only: bool = True) -> list[JobRecord]:
        return [_job(r) for r in self.table.rows_on_cluster(cluster_id, active_only=active_only)]

    def attempts(self, job_id: int) -> list[AttemptRecord]:
        return [_attempt(r) for r in self.table.attempts(job_id)]

    def lines(
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
    ) -> list[LogLine]:
        """Stored lines, oldest first; where lines were cut (the job passed its cap) a
        ``cut`` line says how many."""
        rows = self.table.log_rows(
            job_id,
            attempt=attempt,
            stream=stream,
            rank=rank,
            node=node,
            after_id=after_id,
            tail=tail,
            limit=limit,
        )
        lines = [_line(r) for r in rows]
        row = self.table.row(job_id)
        if row is None or not row["log_cut_lines"] or row["log_cut_after"] is None:
            return lines
        cut_after = int(row["log_cut_after"])
        for i, line in enumerate(lines):
            if line.id > cut_after and (i == 0 or lines[i - 1].id <= cut_after):
                if i == 0 and after_id is not None and after_id > cut_after:
                    break
                marker = LogLine(
                    id=cut_after,
                    job_id=job_id,
                    attempt=line.attempt,
                    stream="cut",
                    node_rank=line.node_rank,
                    node="",
                    rank=None,
                    offset=line.offset,
                    ts=line.ts,
                    text=f"... {row['log_cut_lines']} lines cut here (the job's log passed its"
                    " cap; the first and the last lines are kept) ...",
                )
                return [*lines[:i], marker, *lines[i:]]
        return lines

    def log_offset(self, job_id: int, attempt: int, stream: str, node_rank: int) -> int:
        return self.table.log_offset(job_id, attempt, stream, node_rank)

    def metrics(self, job_id: int) -> list[dict[str, Any]]:
        return self.table.metrics(job_id)

    # -- writes --------------------------------------------------------------------------
    def add(
        self,
        *,
        name: str,
        kind: str,
        spec_json: str,
        cluster_id: int | None,
        rented_cluster: bool,
        state: JobState = JobState.QUEUED,
    ) -> int:
        return self.table.insert(
            name=name,
            kind=kind,
            spec_json=spec_json,
            state=state.value,
            cluster_id=cluster_id,
            rented_cluster=rented_cluster,
        )

    def set_state(
        self,
        job_id: int,
        state: JobState,
        *,
        only_from: Iterable[JobState] | None = None,
        **values: Any,
    ) -> JobState | None:
        """The previous state when it changed (one JobChanged was published), else None.
        An ``error`` may be a :class:`Said` (stored as its English with its key and figures)."""
        _worded_columns(values, "error")
        previous = self.table.set_state(
            job_id,
            state.value,
            only_from=None if only_from is None else [s.value for s in only_from],
            **values,
        )
        return None if previous is None else JobState.of(previous)

    def update(self, job_id: int, **values: Any) -> None:
        _worded_columns(values, "error")
        if "progress" in values:
            progress = values.pop("progress")
            values["progress_json"] = json.dumps(
                progress.to_json() if isinstance(progress, JobProgress) else progress
            )
        self.table.update(job_id, **values)

    def save_attempt(self, job_id: int, attempt: int, **values: Any) -> None:
        """Create or change attempt ``attempt``; its ``message`` may be a :class:`Said`."""
        _worded_columns(values, "message")
        if "nodes" in values:
            nodes = values.pop("nodes")
            values["nodes_json"] = json.dumps([n.to_json() for n in nodes])
        self.table.upsert_attempt(job_id, attempt, **values)

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
        return self.table.append_log(
            job_id,
            attempt,
            stream,
            node_rank,
            expected_offset=expected_offset,
            new_offset=new_offset,
            lines=lines,
            cap=cap,
        )

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
        """:meth:`append_log` without waiting (the follower checks the outcome later)."""
        return self.table.submit_log(
            job_id,
            attempt,
            stream,
            node_rank,
            expected_offset=expected_offset,
            new_offset=new_offset,
            lines=lines,
            cap=cap,
        )

    def add_metrics(self, rows: Sequence[Sequence[Any]]) -> None:
        self.table.add_metrics(rows)

    def claim(
        self, job_id: int, follower: str, *, lease_s: float, dead: Iterable[str] = ()
    ) -> bool:
        now = self._clock()
        return self.table.claim(job_id, follower, now=now, stale_before=now - lease_s, dead=dead)

    def release_claim(self, job_id: int, follower: str) -> None:
        self.table.release_claim(job_id, follower, now=self._clock())
