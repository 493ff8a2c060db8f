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
