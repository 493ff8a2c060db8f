"""The Engine: the one facade that the GUI, the agents and the CLI use."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from xyclaw.catalog import Offer
from xyclaw.config import Config
from xyclaw.engine.guard import Guard, GuardReport
from xyclaw.engine.lifecycle import ClusterLifecycle, UpRequest
from xyclaw.engine.operations import OperationHandle, OperationRunner, Progress
from xyclaw.engine.reconcile import Reconciler, ReconcileReport
from xyclaw.errors import RemoteError, XyclawError
from xyclaw.events import EventBus
from xyclaw.paths import AppPaths
from xyclaw.providers import ProviderRegistry
from xyclaw.records import ClusterRecord, ClusterStore
from xyclaw.remote import CommandResult
from xyclaw.remote.node_access import NodeAccess
from xyclaw.secrets import SecretStore
from xyclaw.store import Store, StoreInfo
from xyclaw.store.event_log import EventLog
from xyclaw.tuning.service import TuneResult, TuningService

if TYPE_CHECKING:
    from xyclaw.telemetry.service import TelemetryService

log = logging.getLogger(__name__)
T = TypeVar("T")


@dataclass(frozen=True)
class ClusterParts:
    """What renting needs, built by the composition function."""

    providers: ProviderRegistry
    access: NodeAccess
    clusters: ClusterStore
    lifecycle: ClusterLifecycle
    reconciler: Reconciler
    guard: Guard


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
        events: EventLog,
        parts: ClusterParts,
        tuning: TuningService,
        telemetry: TelemetryService | None = None,
    ) -> None:
        self.config = config
        self.paths = paths
        self.store = store
        self.bus = bus
        self.secrets = secrets
        self.operations = operations
        self.events = events
        self.providers = parts.providers
        self.access = parts.access
        self.clusters = parts.clusters
        self.lifecycle = parts.lifecycle
        self.reconciler = parts.reconciler
        self.guard = parts.guard
        self.tuning = tuning
        self.telemetry = telemetry
        self._maintenance_stop = threading.Event()
        self._maintenance: threading.Thread | None = None

    # -- long work -------------------------------------------------------------------------
    def start_operation(self, title: str, work: Callable[[Progress], T]) -> OperationHandle[T]:
        """Run ``work`` on a worker thread; progress arrives as OperationProgress events."""
        return self.operations.start(title, work)

    # -- renting ---------------------------------------------------------------------------
    def offers(self, provider: str = "sim", gpu: str | None = None) -> list[Offer]:
        found = self.providers.get(provider).offers()
        return [o for o in found if gpu is None or o.gpu == gpu]

    def up(self, request: UpRequest) -> OperationHandle[ClusterRecord]:
        title = f"rent {request.gpu_count} x {request.gpu} from {request.provider}"
        return self.start_operation(title, lambda progress: self.lifecycle.up(request, progress))

    def down(self, ref: str) -> OperationHandle[ClusterRecord]:
        cluster = self.clusters.find(ref)

        def release(progress: Progress) -> ClusterRecord:
            if self.telemetry is not None:
                self.telemetry.unwatch(cluster.id, released=True)
            return self.lifecycle.down(cluster.id, progress)

        return self.start_operation(f"release {cluster.name}", release)

    def cluster(self, ref: str) -> ClusterRecord:
        return self.clusters.find(ref)

    def list_clusters(self, include_released: bool = False) -> list[ClusterRecord]:
        return self.clusters.all() if include_released else self.clusters.live()

    def exec(
        self, ref: str, command: str, timeout: float | None = None
    ) -> dict[str, CommandResult | RemoteError]:
        cluster = self.clusters.find(ref)
        nodes = [n for n in cluster.nodes if n.state == "running"]
        if not cluster.live or not nodes:
            raise XyclawError(
                f"cluster {cluster.name} is {cluster.state} and has no running nodes",
                hint="`xyclaw clusters` shows the ones you can use",
            )
        return self.access.run_all(cluster, nodes, command, timeout=timeout)

    def tune(self, ref: str) -> OperationHandle[TuneResult]:
        """Probe the fabric, measure, try the recommended NCCL settings, keep the better."""
        cluster = self.clusters.find(ref)
        return self.start_operation(
            f"tune {cluster.name}", lambda progress: self.tuning.tune(cluster.id, progress)
        )

    def reconcile(self) -> ReconcileReport:
        return self.reconciler.run()

    def charge_meters(self) -> int:
        """Bring the meter's charges up to now (what `xyclaw billing` needs, nothing more)."""
        return self.guard.charge_all()

    def tick(self) -> GuardReport:
        """Charge the meter, enforce budgets and idle release (the minute tick)."""
        return self.guard.tick()

    def meter_charges(self, cluster_id: int) -> int:
        return self.clusters.meter_total(cluster_id)

    # -- maintenance -------------------------------------------------------------------------
    def start_maintenance(self) -> None:
        """Reconcile now and every ``reconcile.interval_s``, with the guard's tick (GUI, guard)."""
        if self._maintenance is not None:
            return

        def loop() -> None:
            while True:
                for step in (self.reconcile, self.tick, self.sync_telemetry):
                    try:
                        step()
                    except XyclawError as exc:
                        log.warning("maintenance step failed: %s", exc)
                    except Exception:
                        log.exception("maintenance step crashed")
                if self._maintenance_stop.wait(self.config.reconcile.interval_s):
                    return

        self._maintenance = threading.Thread(target=loop, name="maintenance", daemon=True)
        self._maintenance.start()

    def sync_telemetry(self) -> None:
        """Watch every ready cluster, and stop watching those that are gone or released."""
        if self.telemetry is None:
            return
        ready = {c.id: c for c in self.clusters.live() if c.state == "ready"}
        watched = {c.id for c in self.telemetry.watched()}
        for cluster_id in watched - set(ready):
            self.telemetry.unwatch(cluster_id, released=True)
        for cluster_id, cluster in ready.items():
            if cluster_id not in watched:
                self.telemetry.watch(cluster)

    # -- events ----------------------------------------------------------------------------
    def record_event(self, kind: str, severity: str, message: str, **details: Any) -> int:
        """Store an event in the history and publish it as a Notice; returns its id."""
        return self.events.record(kind, severity, message, **details)

    def recent_events(self, limit: int = 100) -> list[dict[str, Any]]:
        return self.events.recent(limit)

    # -- the store ---------------------------------------------------------------------------
    def store_info(self) -> StoreInfo:
        return self.store.info()

    # -- lifetime ----------------------------------------------------------------------------
    def close(self) -> None:
        self._maintenance_stop.set()
        if self._maintenance is not None:
            self._maintenance.join(timeout=30)
        if self.telemetry is not None:
            try:
                self.telemetry.close()
            except Exception:
                log.exception("closing telemetry failed")
        self.operations.close()
        self.access.pool.close()
        self.providers.close()
        self.store.close()
