"""The one ranking hook every provider's offers pass through (issue 36).

:func:`xyclaw.planner.plan` asks the hook about each offer once. A judgement either warns
(its reasons are added to every option of that offer, the order is unchanged) or ranks
down (those options go after every option not ranked down, in their own order, and say
why). Nothing is ranked down without a reason; with no hook the ranking is the plain one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from xyclaw.catalog.models import Offer

#: (rule, English text, figures for another language), as the planner's other reasons.
HookReason = tuple[str, str, dict[str, str]]


@dataclass(frozen=True, slots=True)
class Judgement:
    """What the user's history says of one offer."""

    rank_down: bool
    reasons: tuple[HookReason, ...]


RankingHook = Callable[[Offer], Judgement | None]
