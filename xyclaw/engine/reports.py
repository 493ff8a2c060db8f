"""Typed answers of the Engine's read methods: plans, bills, spend, provider status."""

from __future__ import annotations

import calendar
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from xyclaw.errors import UsageError
from xyclaw.wording import Said, said

if TYPE_CHECKING:
    # cost per result (Engine.job_results, result_trends) and the memory of hosts and
    # providers (Engine.track_record), by the names the faces use
    from xyclaw.jobs.results import JobResult as JobResult
    from xyclaw.jobs.results import ResultTrend as ResultTrend
    from xyclaw.planner.result import PlanResult
    from xyclaw.planner.track_record import Mark as Mark
    from xyclaw.planner.track_record import Standing as Standing
    from xyclaw.planner.track_record import TrackRecord as TrackRecord


@dataclass(frozen=True)
class PlanOutcome:
    """A plan as saved: its id (to rent option N of it later) and where its offers came from."""

    plan_id: int
    result: PlanResult
    offers_source: str  # "live" or "catalog" (a provider could not be reached)
    notes: list[str] = field(default_factory=list)
    notes_said: list[Said] = field(default_factory=list)  # the notes, for another language

    def to_json(self, max_options: int | None = None) -> dict[str, Any]:
        return {
            "plan_id": self.plan_id,
            "offers_source": self.offers_source,
            "notes": self.notes,
            **self.result.to_json(max_options=max_options, max_rejected=max_options),
        }


@dataclass(frozen=True)
class ProviderStatus:
    name: str
    kind: str
    reachable: bool
    detail: str


#: Metered and charged differing by more than this share (of the larger) are warned about.
CHARGE_TOLERANCE = 0.05
#: ... and by more than this much (micro-units): a cent's rounding is no difference.
CHARGE_TOLERANCE_MICROS = 10_000


@dataclass(frozen=True)
class ClusterBill:
    cluster_id: int
    name: str
    state: str
    provider: str
    currency: str
    meter_micros: int
    provider_ledger_micros: int | None  # None: the provider keeps no ledger, or did not answer
    # Traffic the provider bills per GB (Vast), from the instance's own counters: apart from
    # the meter's GPU time and storage.
    bandwidth_micros: int = 0
    storage_micros: int = 0  # the disk a stopped instance still bills (its GPU time ended)
    # What the provider's API says about charges: "charged" (a figure), "none" (it reports
    # none), "unavailable" (it did not answer) or "no_line" (it answered, nothing for this).
    charges: str = "none"

    @property
    def metered_micros(self) -> int:
        """Everything XyClaw metered for the cluster: GPU time (with storage while it ran),
        storage while stopped, and bandwidth."""
        return self.meter_micros + self.bandwidth_micros + self.storage_micros

    @property
    def differs(self) -> bool:
        """The provider charged noticeably other than XyClaw metered (SkyPilot #4914)."""
        charged = self.provider_ledger_micros
        if charged is None:
            return False
        gap = abs(self.metered_micros - charged)
        return gap > CHARGE_TOLERANCE_MICROS and gap > CHARGE_TOLERANCE * max(
            self.metered_micros, charged
        )


@dataclass(frozen=True)
class BillingReport:
    clusters: list[ClusterBill]
    warnings: list[str] = field(default_factory=list)
    #: ``warnings`` as said, one for one, so a Chinese command line words them (b35)
    warnings_said: list[Said] = field(default_factory=list)

    @property
    def totals(self) -> dict[str, int]:
        """The meter's total per currency (amounts in different currencies never add up)."""
        out: dict[str, int] = {}
        for bill in self.clusters:
            out[bill.currency] = out.get(bill.currency, 0) + bill.metered_micros
        return out

    def to_json(self) -> dict[str, Any]:
        totals = self.totals
        return {
            "clusters": [
                {
                    "id": b.cluster_id,
                    "name": b.name,
                    "state": b.state,
                    "provider": b.provider,
                    "currency": b.currency,
                    "meter": b.meter_micros / 1e6,
                    "provider_ledger": None
                    if b.provider_ledger_micros is None
                    else b.provider_ledger_micros / 1e6,
                    "meter_micros": b.meter_micros,
                    "provider_ledger_micros": b.provider_ledger_micros,
                    "bandwidth": b.bandwidth_micros / 1e6,
                    "bandwidth_micros": b.bandwidth_micros,
                    "storage_stopped_micros": b.storage_micros,
                    "metered_micros": b.metered_micros,
                    "charges": b.charges,
                    "differs": b.differs,
                }
                for b in self.clusters
            ],
            "totals": {cur: amount / 1e6 for cur, amount in totals.items()},
            "total_meter": sum(totals.values()) / 1e6 if len(totals) <= 1 else None,
            "warnings": self.warnings,
        }


@dataclass(frozen=True)
class SpendSummary:
    period: str
    start: float
    end: float
    totals: dict[str, int]  # per currency, micro-units
    per_cluster: list[dict[str, Any]]  # cluster_id, name, currency, amount_micros
    rate_per_hour: dict[str, int]  # what every live cluster costs per hour now, per currency

    @classmethod
    def of(
        cls,
        period: str,
        start: float,
        end: float,
        rows: list[dict[str, Any]],
        names: dict[int, str],
        rate: dict[str, int],
    ) -> SpendSummary:
        totals: dict[str, int] = {}
        per_cluster = []
        for row in rows:
            amount = int(row["amount_micros"])
            totals[row["currency"]] = totals.get(row["currency"], 0) + amount
            per_cluster.append(
                {
                    "cluster_id": row["cluster_id"],
                    "name": names.get(row["cluster_id"], str(row["cluster_id"])),
                    "currency": row["currency"],
                    "amount_micros": amount,
                }
            )
        return cls(period, start, end, totals, per_cluster, rate)

    def to_json(self) -> dict[str, Any]:
        return {
            "period": self.period,
            "start": self.start,
            "end": self.end,
            "totals": {c: a / 1e6 for c, a in self.totals.items()},
            "clusters": [{**c, "amount": c["amount_micros"] / 1e6} for c in self.per_cluster],
            "rate_per_hour": {c: a / 1e6 for c, a in self.rate_per_hour.items()},
        }


PERIODS = ("today", "month", "last_month", "all")


def period_bounds(period: str | tuple[float, float], now: float) -> tuple[float, float]:
    """``[start, end)`` in epoch seconds; days and months in local time, as people mean them."""
    if isinstance(period, tuple):
        start, end = period
        if end <= start:
            raise UsageError(said("error.report.period_order"))
        return float(start), float(end)
    local = datetime.fromtimestamp(now)
    if period == "today":
        start_dt = local.replace(hour=0, minute=0, second=0, microsecond=0)
        return start_dt.timestamp(), now + 1
    if period == "month":
        start_dt = local.replace(day=1, hour=0, minute=0, second=0, microsecond=0)
        return start_dt.timestamp(), now + 1
    if period == "last_month":
        first = local.replace(day=1, hour=0, minute=0, second=0, microsecond=0)
        year, month = (first.year, first.month - 1) if first.month > 1 else (first.year - 1, 12)
        prev = first.replace(year=year, month=month)
        assert calendar.monthrange(year, month)
        return prev.timestamp(), first.timestamp()
    if period == "all":
        return 0.0, now + 1
    raise UsageError(
        said("error.report.period_unknown", period=repr(period)),
        hint=said("error.report.periods", names=", ".join(PERIODS)),
    )
