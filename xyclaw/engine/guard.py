"""The guard: charge the meter, enforce budgets, release idle clusters, keep provider deadlines.

Budgets are enforced here, by the engine, never by a model: at the warning
share a ``BudgetWarning``; at 100% the policy (release by default) is carried
out and a ``BudgetWarning(released=True)`` says so. Idle: no job running and
every GPU below the utilization threshold for the configured time -> a
warning, then release.

Checks are scheduled by money, not by the clock alone: :meth:`Guard.next_check`
names the earliest moment something is due (a cluster reaching its warning
level or its budget at its current rate, an idle limit), so whoever runs the
guard (:mod:`xyclaw.engine.maintenance`) wakes then rather than a minute later.

Where the provider can terminate a cluster by itself at a deadline
(``Capabilities.scheduled_termination``), the guard keeps that deadline at the
moment the budget is spent plus a grace, so the budget holds even when no
XyClaw process runs; the guard itself releases at the budget.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from xyclaw.billing import BudgetStatus, billed_spans, cost_so_far, reaches_at
from xyclaw.catalog import format_amount
from xyclaw.config import BillingSettings, GuardSettings
from xyclaw.errors import ParseError, XyclawError
from xyclaw.events import BudgetWarning
from xyclaw.parsers.nvsmi import parse_csv
from xyclaw.providers.base import SchedulesTermination
from xyclaw.records import ClusterRecord, ClusterState, ClusterStore
from xyclaw.remote import CommandResult
from xyclaw.store.charges import ChargeTable
from xyclaw.store.event_log import EventLog
from xyclaw.wording import Figure, Said, said

if TYPE_CHECKING:  # the guard is built on first use; its module is imported at once
    from xyclaw.engine.lifecycle import ClusterLifecycle
    from xyclaw.remote.node_access import NodeAccess

log = logging.getLogger(__name__)

UtilizationProbe = Callable[[ClusterRecord], list[float] | None]
#: How often a policy of "warn" repeats its warning once a budget is spent.
REWARN_S = 600.0
#: A cluster whose GPUs cannot be read (telemetry late, nvidia-smi failing) keeps its idle
#: count this long, so a moment's silence does not restart it; longer, and it restarts.
UNKNOWN_GRACE_S = 60.0


@dataclass(frozen=True)
class GuardAction:
    """One thing the guard did, as ``xyclaw guard --once`` prints it."""

    kind: str  # released-budget, released-idle, budget-warning, budget-spent, idle-warning
    cluster: str
    message: str
    said: Said | None = None  # ``message`` as a key and figures (the CLI in [gui] language)

    @classmethod
    def of(cls, kind: str, cluster: str, message: Said) -> GuardAction:
        return cls(kind, cluster, str(message), message)

    def in_language(self, language: str) -> str:
        return self.said.in_language(language) if self.said else self.message


@dataclass
class GuardReport:
    charged_micros: int = 0
    warned: list[str] = field(default_factory=list)
    released_for_budget: list[str] = field(default_factory=list)
    released_idle: list[str] = field(default_factory=list)
    idle_warned: list[str] = field(default_factory=list)
    actions: list[GuardAction] = field(default_factory=list)
    errors: list[Said] = field(default_factory=list)  # str(): the English, as before
    checked: int = 0  # live clusters looked at
    next_check_at: float | None = None
    next_reason: str | None = None  # the English of next_reason_said
    next_reason_said: Said | None = None

    def lines(self, language: str = "en") -> list[str]:
        """What the pass did, one line each (the errors too), in ``language``."""
        return [a.in_language(language) for a in self.actions] + [
            said("op.guard.report_error", error=e).in_language(language) for e in self.errors
        ]


def duration(seconds: float) -> str:
    """``45 s``, ``12 min``, ``2.5 h``: short durations must not read as ``0 min``."""
    return str(duration_said(seconds))


def duration_said(seconds: float) -> Said:
    """:func:`duration` worded (``45 秒``, ``12 分钟``, ``2.5 小时`` in Chinese)."""
    seconds = max(0.0, seconds)
    if seconds < 90:
        return said("alert.dur.s", n=seconds)
    if seconds < 5400:
        return said("alert.dur.min", n=seconds / 60)
    return said("alert.dur.h", n=seconds / 3600)


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


def telemetry_first(
    watching: Callable[[int], bool],
    reading: Callable[[int], list[float] | None],
    ssh: UtilizationProbe,
) -> UtilizationProbe:
    """Utilization from telemetry where it watches the cluster (no command on the nodes);
    an nvidia-smi over SSH only where it does not."""

    def probe(cluster: ClusterRecord) -> list[float] | None:
        if watching(cluster.id):
            return reading(cluster.id)
        return ssh(cluster)

    return probe


def first_deadline(
    now: float, budget_micros: int, gpus: int, price_per_gpu_hour_micros: int, grace_s: float
) -> float | None:
    """The deadline to give a provider when renting: the budget's worth of time from now.

    Billing starts only once the nodes run, so this is early, never late; the guard moves it
    to the exact moment once they run.
    """
    per_hour = gpus * price_per_gpu_hour_micros
    if budget_micros <= 0 or per_hour <= 0:
        return None
    return now + budget_micros * 3600 / per_hour + grace_s


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
        guard_settings: GuardSettings | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.clusters = clusters
        self.lifecycle = lifecycle
        self.events = events
        self.settings = settings
        self.guard_settings = guard_settings or GuardSettings()
        self.utilization = utilization
        self.job_running = job_running
        self.charges = charges
        self.clock = clock
        self._idle_since: dict[int, float] = {}
        self._idle_warned: set[int] = set()
        self._idle_seen_at: dict[int, float] = {}  # the last reading of idle GPUs
        self._active_at: dict[int, float] = {}  # when this guard last saw a job, busy or silent
        self._watching_since: float | None = None
        self._deadlines: dict[int, float | None] = {}  # what each provider was last told

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

    def budget_of(self, cluster: ClusterRecord) -> int | None:
        """The cluster's budget, else the configured default; None: none."""
        if cluster.budget_micros:
            return cluster.budget_micros
        if self.settings.default_budget > 0:
            return int(self.settings.default_budget * 1_000_000)
        return None

    # -- the pass ----------------------------------------------------------------------------
    def tick(self) -> GuardReport:
        report = GuardReport()
        now = self.clock()
        for cluster in self.clusters.all():
            if not cluster.nodes:
                continue
            if self._billable(cluster, now):
                report.charged_micros += self.charge(cluster, now)
            if not cluster.live:
                self._forget(cluster.id)
                continue
            report.checked += 1
            try:
                if self._budget(cluster, now, report):
                    continue  # released
                if cluster.state == ClusterState.READY and self._idle(cluster, now, report):
                    continue
                self.sync_deadline(cluster)
            except XyclawError as exc:
                log.error("guard on %s failed: %s", cluster.name, exc)
                error = exc.said or exc.message
                report.errors.append(said("op.guard.report_failed", name=cluster.name, error=error))
                self.events.record(
                    "billing",
                    "error",
                    said("alert.guard.failed", name=cluster.name, error=exc.said or exc.message),
                    cluster_id=cluster.id,
                )
        report.next_check_at, report.next_reason_said = self.next_check(self.clock())
        report.next_reason = (
            None if report.next_reason_said is None else str(report.next_reason_said)
        )
        return report

    def _forget(self, cluster_id: int) -> None:
        self._reset_idle(cluster_id)
        self._active_at.pop(cluster_id, None)
        self._deadlines.pop(cluster_id, None)

    def _charged(self, cluster_id: int) -> tuple[int, str]:
        """What a released cluster cost in all, from its final node times (and as text)."""
        released = self.clusters.get(cluster_id)
        total = cost_so_far(billed_spans(released), self.clock())
        return total, format_amount(total, released.currency)

    def _budget(self, cluster: ClusterRecord, now: float, report: GuardReport) -> bool:
        """Warn or release by the budget; True if the cluster was released."""
        budget = self.budget_of(cluster)
        if not budget:
            return False
        spent_micros = cost_so_far(billed_spans(cluster), now)
        status = BudgetStatus(spent_micros, budget, self.settings.warn_fraction)
        spent = format_amount(spent_micros, cluster.currency)
        limit = format_amount(budget, cluster.currency)

        def warning(released: bool, amount: int, message: Said) -> BudgetWarning:
            return BudgetWarning(
                ts=self.clock(),
                cluster_id=cluster.id,
                name=cluster.name,
                spent_micros=amount,
                budget_micros=budget,
                currency=cluster.currency,
                released=released,
                message=str(message),
                said=message,
            )

        if status.exhausted:
            if self.settings.on_budget_exhausted == "warn":
                if cluster.budget_warned_at is None or cluster.budget_warned_at < now - REWARN_S:
                    message = said(
                        "alert.budget.spent_still_bills",
                        name=cluster.name,
                        spent=spent,
                        limit=limit,
                    )
                    self.events.record_budget(
                        warning(False, spent_micros, message),
                        "critical",
                        message,
                        action=said("alert.budget.spent_action", name=cluster.name),
                    )
                    self.clusters.update(cluster.id, budget_warned_at=now)
                    report.actions.append(GuardAction.of("budget-spent", cluster.name, message))
                return False
            log.info("%s spent its budget (%s of %s): releasing it", cluster.name, spent, limit)
            # Jobs stop with their machines; the jobs part stops them first once it exists.
            self.lifecycle.down(cluster.id, reason="budget")
            total, charged = self._charged(cluster.id)
            message = said("alert.budget.released", name=cluster.name, limit=limit, charged=charged)
            self.events.record_budget(warning(True, total, message), "critical", message)
            self._forget(cluster.id)
            report.released_for_budget.append(cluster.name)
            report.actions.append(GuardAction.of("released-budget", cluster.name, message))
            return True
        if status.warn and cluster.budget_warned_at is None:
            message = said(
                "alert.budget.warn",
                name=cluster.name,
                fraction=status.fraction,
                spent=spent,
                limit=limit,
            )
            self.events.record_budget(warning(False, spent_micros, message), "warning", message)
            self.clusters.update(cluster.id, budget_warned_at=now)
            report.warned.append(cluster.name)
            warned = said("alert.guard.warned", what=message)
            report.actions.append(GuardAction.of("budget-warning", cluster.name, warned))
        return False

    # -- idle --------------------------------------------------------------------------------
    def begin_watching(self, since: float | None) -> None:
        """This process runs the guard from ``since`` on (when it took the data folder's guard
        lock; None: it does not). A cluster that became ready after that and that the guard has
        never seen busy, silent or running a job has been idle since it became ready, however
        long the guard took to start; otherwise idleness counts from when the guard saw it."""
        self._watching_since = since

    def _idle_from(self, cluster: ClusterRecord, now: float) -> float:
        """When the cluster's idleness began, as far as this guard can tell."""
        watching = self._watching_since
        if watching is None:
            return now  # one pass (`xyclaw guard --once`): from now
        since = max(watching, cluster.ready_at or now, self._active_at.get(cluster.id, watching))
        return min(since, now)

    @property
    def _idle_limit_s(self) -> float:
        return self.settings.idle_release_minutes * 60

    @staticmethod
    def _idle_warn_at(limit_s: float) -> float:
        return limit_s - min(300.0, limit_s / 3)

    def _idle(self, cluster: ClusterRecord, now: float, report: GuardReport) -> bool:
        """Observe, warn or release; True if the cluster was released."""
        limit_s = self._idle_limit_s
        if limit_s <= 0 or self.utilization is None:
            return False
        if self.job_running(cluster.id):
            self._active(cluster.id, now)
            return False
        values = self.utilization(cluster)
        if not values:  # a node silent for a moment (telemetry late, nvidia-smi failed)
            seen = self._idle_seen_at.get(cluster.id)
            if seen is not None and now - seen <= UNKNOWN_GRACE_S:
                return False  # the idle count goes on; only a fresh idle reading releases
            self._active(cluster.id, now)  # not known to be idle for longer: from scratch
            return False
        if max(values) >= self.settings.idle_utilization_percent:
            self._active(cluster.id, now)
            return False
        self._idle_seen_at[cluster.id] = now
        since = self._idle_since.get(cluster.id)
        if since is None:
            since = self._idle_since[cluster.id] = self._idle_from(cluster, now)
        idle_for = now - since
        if idle_for >= limit_s:
            self.events.record(
                "idle",
                "warning",
                said("alert.idle.releasing", name=cluster.name, idle=duration_said(idle_for)),
                cluster_id=cluster.id,
            )
            self.lifecycle.down(cluster.id, reason="idle")
            _, charged = self._charged(cluster.id)
            self._forget(cluster.id)
            report.released_idle.append(cluster.name)
            report.actions.append(
                GuardAction.of(
                    "released-idle",
                    cluster.name,
                    said(
                        "alert.idle.released",
                        name=cluster.name,
                        idle=duration_said(idle_for),
                        charged=charged,
                    ),
                )
            )
            return True
        if idle_for >= self._idle_warn_at(limit_s) and cluster.id not in self._idle_warned:
            self._idle_warned.add(cluster.id)
            message = said(
                "alert.idle.warn",
                name=cluster.name,
                percent=self.settings.idle_utilization_percent,
                left=duration_said(limit_s - idle_for),
            )
            keep = said("alert.idle.warn_action")
            self.events.record(
                "idle",
                "warning",
                message,
                cluster_id=cluster.id,
                action=str(keep),
                data={"action_said": keep.to_json()},
            )
            report.idle_warned.append(cluster.name)
            warned = said("alert.guard.warned", what=message)
            report.actions.append(GuardAction.of("idle-warning", cluster.name, warned))
        return False

    def _reset_idle(self, cluster_id: int) -> None:
        self._idle_since.pop(cluster_id, None)
        self._idle_seen_at.pop(cluster_id, None)
        self._idle_warned.discard(cluster_id)

    def _active(self, cluster_id: int, now: float) -> None:
        self._reset_idle(cluster_id)
        self._active_at[cluster_id] = now

    # -- provider deadlines ------------------------------------------------------------------
    def wanted_deadline(self, cluster: ClusterRecord, now: float) -> float | None:
        """When the provider should end the cluster by itself: the budget's moment plus the
        grace; None for no deadline (no budget, or a policy that keeps it billing)."""
        budget = self.budget_of(cluster)
        if not budget or self.settings.on_budget_exhausted == "warn":
            return None
        at = reaches_at(billed_spans(cluster), budget, now)
        return None if at is None else at + self.guard_settings.deadline_grace_s

    def sync_deadline(self, cluster: ClusterRecord, *, force: bool = False) -> float | None:
        """Tell the provider the deadline (if it keeps one) when it moved by over a second."""
        if cluster.external_id is None or not cluster.live:
            return None
        if not force:
            if not any(n.running_at is not None for n in cluster.nodes):
                return None  # not billing yet: the deadline given on create holds
            if self.budget_of(cluster) is None and cluster.id not in self._deadlines:
                return None  # no budget, and none was ever given (set_budget drops it)
        provider = self.lifecycle.providers.get(cluster.provider_id)
        if not provider.capabilities.scheduled_termination or not isinstance(
            provider, SchedulesTermination
        ):
            return None
        now = self.clock()
        wanted = self.wanted_deadline(cluster, now)
        budget = self.budget_of(cluster)
        waits = not any(n.running_at for n in cluster.nodes)
        if wanted is None and budget and waits and self.settings.on_budget_exhausted != "warn":
            # Nothing bills yet: the budget's worth of time from now, as on create.
            wanted = first_deadline(
                now,
                budget,
                cluster.gpu_count,
                cluster.price_per_gpu_hour_micros,
                self.guard_settings.deadline_grace_s,
            )
        told = self._deadlines.get(cluster.id, math.nan)
        same = (wanted is None and told is None) or (
            wanted is not None and told is not None and abs(wanted - told) <= 1.0
        )
        if same and not force:
            return wanted
        provider.set_terminate_at(cluster.external_id, wanted)
        self._deadlines[cluster.id] = wanted
        log.info("%s: %s ends it itself at %s", cluster.name, provider.name, wanted)
        return wanted

    # -- the schedule ------------------------------------------------------------------------
    def next_check(self, now: float) -> tuple[float, Said | None]:
        """The earliest moment a check is due, and why (None: the regular interval)."""
        interval = self.guard_settings.interval_s
        best, why = now + interval, None

        def due(at: float, key: str, **figures: Figure) -> None:
            nonlocal best, why
            if at < best:
                best, why = max(at, now), said(f"op.guard.why.{key}", **figures)

        limit_s = self._idle_limit_s
        probe_every = min(interval, max(self.guard_settings.poll_s, limit_s / 20))
        for cluster in self.clusters.live():
            spans = billed_spans(cluster)
            budget = self.budget_of(cluster)
            if budget:
                if self.settings.on_budget_exhausted == "warn" and cluster.budget_warned_at:
                    if cost_so_far(spans, now) >= budget:
                        due(cluster.budget_warned_at + REWARN_S, "still_bills", name=cluster.name)
                elif cluster.budget_warned_at is None:
                    level = math.ceil(budget * self.settings.warn_fraction)
                    at = reaches_at(spans, level, now)
                    if at is not None:
                        due(
                            at,
                            "reaches_warning",
                            name=cluster.name,
                            fraction=self.settings.warn_fraction,
                        )
                if self.settings.on_budget_exhausted != "warn":
                    at = reaches_at(spans, budget, now)
                    if at is not None:
                        due(at, "reaches_budget", name=cluster.name)
            if cluster.state != ClusterState.READY or limit_s <= 0 or self.utilization is None:
                continue
            since = self._idle_since.get(cluster.id)
            if since is None:
                due(now + probe_every, "is_idle", name=cluster.name)
                continue
            if cluster.id not in self._idle_warned:
                due(since + self._idle_warn_at(limit_s), "nears_idle_limit", name=cluster.name)
            due(since + limit_s, "reaches_idle_limit", name=cluster.name)
            due(now + probe_every, "still_idle", name=cluster.name)
        return best, why

    def fingerprint(self) -> tuple[object, ...]:
        """What, if it changes, calls for a check now: live clusters, their states, budgets,
        nodes and jobs (read cheaply, a few times a second at most)."""
        return tuple(
            (
                c.id,
                str(c.state),
                c.budget_micros,
                c.budget_warned_at,
                tuple((n.id, str(n.state), n.running_at, n.terminated_at) for n in c.nodes),
                self.job_running(c.id),
            )
            for c in self.clusters.live()
        )
