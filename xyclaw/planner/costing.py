"""What a run costs, in integer micro-units: cards x seconds x price per card-hour.

Billing is per second (seed 003), so a run of ``s`` seconds on ``g`` cards at
``p`` micro-units per card-hour costs ``ceil(g * s * p / 3600)``. An offer's
30-day tier commits to 30 days at a lower price: it applies to runs of 30 days
or more, and to shorter runs when paying for the full 30 days at the tier
price still costs less than the run on demand (the user is told which).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

THIRTY_DAYS = 30 * 86400
ON_DEMAND = "on-demand"
TIER_30D = "30-day"

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class Bill:
    cost_micro: int
    tier: str
    price_micro: int
    billed_seconds: int


def _ceil_div(numerator: int, denominator: int) -> int:
    return -(-numerator // denominator)


def bill(gpus: int, seconds: int, price_micro: int, price_30d_micro: int | None) -> Bill:
    """The exact cost of a run; the cheaper of on demand and the 30-day tier."""
    on_demand = _ceil_div(gpus * seconds * price_micro, 3600)
    if price_30d_micro is not None:
        billed = max(seconds, THIRTY_DAYS)
        tiered = _ceil_div(gpus * billed * price_30d_micro, 3600)
        if tiered < on_demand:
            return Bill(tiered, TIER_30D, price_30d_micro, billed)
    return Bill(on_demand, ON_DEMAND, price_micro, seconds)


def cost_vector(
    gpus: FloatArray, seconds: FloatArray, price: FloatArray, price_30d: FloatArray
) -> FloatArray:
    """:func:`bill`'s cost in floating point, for ranking many shapes at once.

    Exact to well under one micro-unit while products stay below 2**53; the
    planner re-checks budget borderlines with :func:`bill`.
    """
    on_demand = gpus * seconds * price / 3600.0
    with np.errstate(invalid="ignore"):
        tiered = gpus * np.maximum(seconds, THIRTY_DAYS) * price_30d / 3600.0
        cheaper = tiered < on_demand  # NaN (no tier) compares False
    return np.where(cheaper, np.ceil(tiered), np.ceil(on_demand))
