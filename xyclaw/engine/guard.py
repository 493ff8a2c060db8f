"""The engine's minute tick: charge the meter, enforce budgets, release idle clusters.

Budgets are enforced here, by the engine, never by a model: at the warning
share a warning event; at 100% the policy (release by default) is carried out.
Idle: no job running and every GPU below the utilization threshold for the
configured time -> a warning, then release.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from xyclaw.billing import BudgetStatus, billed_spans, cost_so_far
from xyclaw.catalog import format_amount
from xyclaw.config import BillingSettings
from xyclaw.engine.lifecycle import ClusterLifecycle
from xyclaw.errors import ParseError, XyclawError
from xyclaw.parsers.nvsmi import parse_csv
from xyclaw.records import ClusterRecord, ClusterState, ClusterStore
from xyclaw.remote import CommandResult
from xyclaw.remote.node_access import NodeAccess
from xyclaw.store.charges import ChargeTable
from xyclaw.store.event_log import EventLog

log = logging.getLogger(__name__)

UtilizationProbe = Callable[[ClusterRecord], list[float] | None]


@dataclass
class GuardReport:
    charged_micros: int = 0
    warned: list[str] = field(default_factory=list)
    released_for_budget: list[str] = field(default_factory=list)
    released_idle: list[str] = field(default_factory=list)
    idle_warned: list[str] = field(default_factory=list)


def probe_utilization(access: NodeAccess) -> UtilizationProbe:
    """GPU utilization of every node, read once with nvidia-smi (None if a node is silent)."""

    def probe(cluster: ClusterRecord) -> list[float] | None:
        nodes = [n for n in cluster.nodes if n.state == "running"]
        results = access.run_all(
            cluster,
            nodes,
            "nvidia-smi --query-gpu=index,utilization.gpu --format=csv,noheader,nounits",
            timeout=20,
        )
        values: list[float] = []
        for result in results.values():
            if not isinstance(result, CommandResult) or not result.ok:
                return None
            try:
                samples = parse_csv(result.stdout, ["index", "utilization.gpu"])
            except ParseError:
                return None
            values += [s.utilization_gpu for s in samples if s.utilization_gpu is not None]
        return values

    return probe


class Guard:
    def __init__(
        self,
        clusters: ClusterStore,
        lifecycle: ClusterLifecycle,
        events: EventLog,
        settings: BillingSettings,
        *,
        charges: ChargeTable,
        job_running: Callable[[int], bool],
        utilization: UtilizationProbe | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.clusters = clusters
        self.lifecycle = lifecycle
        self.events = events
        self.settings = settings
        self.utilization = utilization
        self.job_running = job_running
        self.charges = charges
        self.clock = clock
        self._idle_since: dict[int, float] = {}
        self._idle_warned: set[int] = set()

    # -- the meter ---------------------------------------------------------------------------
    def charge(self, cluster: ClusterRecord, now: float) -> int:
        """Write the meter's charges since the last one; the ledger sums to the cost exactly."""
        total = cost_so_far(billed_spans(cluster), now)
        return self.charges.charge_meter(
            cluster.id, cluster.created_at, total, now, cluster.currency
        )

    @staticmethod
    def _billable(cluster: ClusterRecord, now: float) -> bool:
        """Still billing, or released so recently that its last seconds may not be charged."""
        if not cluster.nodes:
            return False
        return cluster.live or cluster.released_at is None or cluster.released_at > now - 3600

    def charge_all(self) -> int:
        now = self.clock()
        return sum(self.charge(c, now) for c in self.clusters.all() if self._billable(c, now))

    # -- the tick ----------------------------------------------------------------------------
    def tick(self) -> GuardReport:
        report = GuardReport()
        now = self.clock()
        for cluster in self.clusters.all():
            if not cluster.nodes:
                continue
            if self._billable(cluster, now):
                report.charged_micros += self.charge(cluster, now)
            if not cluster.live:
                self._idle_since.pop(cluster.id, None)
                continue
            try:
                self._budget(cluster, now, report)
                if cluster.state == ClusterState.READY:
                    self._idle(cluster, now, report)
            except XyclawError as exc:
                log.error("guard on %s failed: %s", cluster.name, exc)
                self.events.record(
                    "billing",
                    "error",
                    f"could not act on {cluster.name}: {exc.message}; retrying next minute",
                    cluster_id=cluster.id,
                )
        return report

    def _budget(self, cluster: ClusterRecord, now: float, report: GuardReport) -> None:
        budget = cluster.budget_micros
        if budget is None and self.settings.default_budget > 0:
            budget = int(self.settings.default_budget * 1_000_000)
        if not budget:
            return
        status = BudgetStatus(
            cost_so_far(billed_spans(cluster), now), budget, self.settings.warn_fraction
        )
        spent = format_amount(status.spent_micros, cluster.currency)
        limit = format_amount(budget, cluster.currency)
        if status.exhausted:
            policy = self.settings.on_budget_exhausted
            if policy == "warn":
                if cluster.budget_warned_at is None or cluster.budget_warned_at < now - 600:
                    self.events.record(
                        "budget",
                        "critical",
                        f"{cluster.name} has spent its budget ({spent} of {limit}) and still bills",
                        cluster_id=cluster.id,
                        action=f"xyclaw down {cluster.name}",
                    )
                    self.clusters.update(cluster.id, budget_warned_at=now)
                return
            self.events.record(
                "budget",
                "critical",
                f"{cluster.name} has spent its budget ({spent} of {limit}); releasing it",
                cluster_id=cluster.id,
            )
            # Jobs stop with their machines; the jobs part stops them first once it exists.
            self.lifecycle.down(cluster.id)
            report.released_for_budget.append(cluster.name)
            return
        if status.warn and cluster.budget_warned_at is None:
            self.events.record(
                "budget",
                "warning",
                f"{cluster.name} has spent {status.fraction:.0%} of its budget "
                f"({spent} of {limit})",
                cluster_id=cluster.id,
            )
            self.clusters.update(cluster.id, budget_warned_at=now)
            report.warned.append(cluster.name)

    def _idle(self, cluster: ClusterRecord, now: float, report: GuardReport) -> None:
        limit_s = self.settings.idle_release_minutes * 60
        if limit_s <= 0 or self.utilization is None:
            return
        if self.job_running(cluster.id):
            self._reset_idle(cluster.id)
            return
        values = self.utilization(cluster)
        if not values or max(values) >= self.settings.idle_utilization_percent:
            self._reset_idle(cluster.id)
            return
        since = self._idle_since.setdefault(cluster.id, now)
        idle_for = now - since
        warn_at = limit_s - min(300.0, limit_s / 3)
        if idle_for >= limit_s:
            self.events.record(
                "idle",
                "warning",
                f"{cluster.name} has been idle for {idle_for / 60:.0f} min with no job; "
                "releasing it",
                cluster_id=cluster.id,
            )
            self.lifecycle.down(cluster.id)
            self._reset_idle(cluster.id)
            report.released_idle.append(cluster.name)
        elif idle_for >= warn_at and cluster.id not in self._idle_warned:
            self._idle_warned.add(cluster.id)
            self.events.record(
                "idle",
                "warning",
                f"{cluster.name} is idle (GPUs below "
                f"{self.settings.idle_utilization_percent:.0f}%, "
                f"no job); it will be released in {(limit_s - idle_for) / 60:.0f} min",
                cluster_id=cluster.id,
                action="start a job to keep it",
            )
            report.idle_warned.append(cluster.name)

    def _reset_idle(self, cluster_id: int) -> None:
        self._idle_since.pop(cluster_id, None)
        self._idle_warned.discard(cluster_id)
