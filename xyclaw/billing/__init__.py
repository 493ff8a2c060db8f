"""Per-second cost meter, budget guard and idle auto-release."""

from xyclaw.billing.meter import (
    BilledSpan,
    BudgetStatus,
    charge_micros,
    cost_so_far,
)

__all__ = [
    "BilledSpan",
    "BudgetStatus",
    "charge_micros",
    "cost_so_far",
]
