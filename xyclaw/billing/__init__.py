"""Per-second cost meter, budget guard and idle auto-release."""

from xyclaw.billing.meter import (
    BilledSpan,
    BudgetStatus,
    burn_rate_per_hour,
    charge_micros,
    cost_so_far,
    seconds_until,
)

__all__ = [
    "BilledSpan",
    "BudgetStatus",
    "burn_rate_per_hour",
    "charge_micros",
    "cost_so_far",
    "seconds_until",
]
