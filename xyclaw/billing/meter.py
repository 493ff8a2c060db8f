"""Per-second cost from rented prices, in integer micro-units so sums are exact.

A node bills from the moment its provider reports it running until it is
terminated: ``seconds x GPUs x price per GPU-hour / 3600``, rounded down, the
same rule the simulated cloud's ledger uses, so the two agree to the micro-unit
wherever their start and end times agree.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from xyclaw.records import ClusterRecord


def charge_micros(seconds: float, gpus: int, price_per_gpu_hour_micros: int) -> int:
    """Cost of ``gpus`` cards for whole ``seconds`` at a per-card-hour price."""
    whole = max(0, int(seconds))
    return whole * gpus * price_per_gpu_hour_micros // 3600


@dataclass(frozen=True)
class BilledSpan:
    """One node's billed time: from ``start`` to ``end`` (None while it still runs)."""

    start: float
    end: float | None
    gpus: int
    price_per_gpu_hour_micros: int

    def seconds(self, now: float) -> int:
        end = now if self.end is None else min(self.end, now)
        return max(0, int(end - self.start))

    def cost(self, now: float) -> int:
        return charge_micros(self.seconds(now), self.gpus, self.price_per_gpu_hour_micros)


def billed_spans(cluster: ClusterRecord) -> list[BilledSpan]:
    """Each node's billed time: from when its provider ran it until it was terminated."""
    return [
        BilledSpan(
            n.running_at, n.terminated_at, cluster.gpus_per_node, cluster.price_per_gpu_hour_micros
        )
        for n in cluster.nodes
        if n.running_at is not None
    ]


def cost_so_far(spans: Iterable[BilledSpan], now: float) -> int:
    return sum(span.cost(now) for span in spans)


@dataclass(frozen=True)
class BudgetStatus:
    spent_micros: int
    budget_micros: int | None
    warn_fraction: float

    @property
    def fraction(self) -> float | None:
        if not self.budget_micros:
            return None
        return self.spent_micros / self.budget_micros

    @property
    def warn(self) -> bool:
        f = self.fraction
        return f is not None and f >= self.warn_fraction

    @property
    def exhausted(self) -> bool:
        return (
            self.budget_micros is not None
            and self.budget_micros > 0
            and (self.spent_micros >= self.budget_micros)
        )


def reaches_at(spans: Iterable[BilledSpan], target_micros: int, now: float) -> float | None:
    """The first instant (at or after ``now``) at which the cost reaches ``target_micros``.

    ``now`` itself when it has already; None when nothing bills any more (it never will).
    Whole seconds and integer rounding are those of :func:`charge_micros`, so the cost at the
    answer is at least the target and a moment earlier it was less.
    """
    spans = list(spans)
    if cost_so_far(spans, now) >= target_micros:
        return now
    open_spans = [s for s in spans if s.end is None or s.end > now]
    rate = sum(s.gpus * s.price_per_gpu_hour_micros for s in open_spans) / 3600
    if rate <= 0:
        return None
    latest = max((s.end for s in open_spans if s.end is not None), default=None)
    remaining = target_micros - cost_so_far(spans, now)
    # Every span gives up to one second less than its rate would (rounding down), so the
    # answer is within a second per span of the estimate; search for it to the millisecond.
    low, high = now, now + remaining / rate + len(open_spans) + 1
    if latest is not None and all(s.end is not None for s in open_spans):
        if cost_so_far(spans, latest) < target_micros:
            return None  # every span ends before the cost gets there
        high = min(high, latest)
    while cost_so_far(spans, high) < target_micros:  # guard against rounding: widen
        high += max(1.0, high - now)
    while high - low > 0.001:
        mid = (low + high) / 2
        if cost_so_far(spans, mid) >= target_micros:
            high = mid
        else:
            low = mid
    return high
