"""The Engine: the one facade that the GUI, the agents and the CLI use."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from typing import Any, TypeVar

from xyclaw.config import Config
from xyclaw.engine.operations import OperationHandle, OperationRunner, Progress
from xyclaw.events import EventBus, Notice
from xyclaw.paths import AppPaths
from xyclaw.secrets import SecretStore
from xyclaw.store import Store, StoreInfo

log = logging.getLogger(__name__)
T = TypeVar("T")


class Engine:
    """Holds the parts it is given; builds none of them (see :mod:`xyclaw.engine.compose`)."""

    def __init__(
        self,
        *,
        config: Config,
        paths: AppPaths,
        store: Store,
        bus: EventBus,
        secrets: SecretStore,
        operations: OperationRunner,
    ) -> None:
        self.config = config
        self.paths = paths
        self.store = store
        self.bus = bus
        self.secrets = secrets
        self.operations = operations
        self._closers: list[Callable[[], None]] = []

    # -- long work -------------------------------------------------------------------------
    def start_operation(self, title: str, work: Callable[[Progress], T]) -> OperationHandle[T]:
        """Run ``work`` on a worker thread; progress arrives as OperationProgress events."""
        return self.operations.start(title, work)

    # -- events ----------------------------------------------------------------------------
    def record_event(
        self,
        kind: str,
        severity: str,
        message: str,
        *,
        cluster_id: int | None = None,
        node_id: int | None = None,
        job_id: int | None = None,
        rule: str | None = None,
        data: dict[str, Any] | None = None,
        action: str | None = None,
    ) -> int:
        """Store an event in the history and publish it as a Notice; returns its id."""
        ts = time.time()
        row = {
            "ts": ts,
            "kind": kind,
            "severity": severity,
            "cluster_id": cluster_id,
            "node_id": node_id,
            "job_id": job_id,
            "rule": rule,
            "message": message,
            "data_json": json.dumps(data or {}, default=str),
        }
        event_id: int | None = self.store.writer.call(
            lambda db: (
                db.conn.execute(
                    "INSERT INTO events (ts, kind, severity, cluster_id, node_id, job_id, rule,"
                    " message, data_json) VALUES (:ts, :kind, :severity, :cluster_id, :node_id,"
                    " :job_id, :rule, :message, :data_json)",
                    row,
                ).lastrowid
            )
        )
        self.bus.publish(
            Notice(
                ts=ts,
                severity=severity,
                message=message,
                kind=kind,
                cluster_id=cluster_id,
                action=action,
            )
        )
        assert event_id is not None
        return event_id

    def recent_events(self, limit: int = 100) -> list[dict[str, Any]]:
        return self.store.query("SELECT * FROM events ORDER BY ts DESC, id DESC LIMIT ?", [limit])

    # -- the store ---------------------------------------------------------------------------
    def store_info(self) -> StoreInfo:
        return self.store.info()

    # -- lifetime ----------------------------------------------------------------------------
    def on_close(self, closer: Callable[[], None]) -> None:
        """Register a part to close (in reverse order) when the engine closes."""
        self._closers.append(closer)

    def close(self) -> None:
        while self._closers:
            closer = self._closers.pop()
            try:
                closer()
            except Exception:
                log.exception("closing a part failed")
        self.operations.close()
        self.store.close()
