"""Per-second cost meter, budget guard and idle auto-release."""

from xyclaw.billing.meter import (
    BilledSpan,
    BudgetStatus,
    billed_spans,
    charge_micros,
    cost_so_far,
    reaches_at,
)

__all__ = [
    "BilledSpan",
    "BudgetStatus",
    "billed_spans",
    "charge_micros",
    "cost_so_far",
    "reaches_at",
]
