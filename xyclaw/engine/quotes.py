"""Rent quotes: the exact thing an approval agrees to, and the check that it still holds.

A quote names one offer, the shape, the price and the estimated total, with an
expiry and a digest of all of it. ``up`` rents only what a quote says, and only
while the provider still offers it at that price: anything else is refused with
nothing rented, so an approval can never be stretched to cover a different bill.

A quote made from a plan option also carries the price and total the plan showed
(and its tier), inside the digest: the price it asks for is the live one the
provider bills, and where that differs from the plan's (a price that moved since the
plan; a plan saved before the planner stopped pricing at tiers the provider does not
rent) the quote says by how much and why
(:meth:`RentQuote.notes`), so no card can be approved under a plan it differs from
without saying so. A plan longer than the horizon (``[billing] plan_horizon_days``)
says so on the card too.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, fields, replace
from typing import Any

from xyclaw.catalog import Offer, format_amount
from xyclaw.errors import UsageError
from xyclaw.wording import Said, said


class QuoteError(UsageError):
    """A quote that may no longer be acted on: expired, or the provider changed it."""


@dataclass(frozen=True)
class RentQuote:
    provider: str
    offer_id: str
    gpu: str
    nodes: int
    gpus_per_node: int
    gpu_count: int
    region: str
    fabric: str
    currency: str
    price_per_gpu_hour_micros: int
    hours: float | None  # planned run time, when the quote comes from a plan
    estimated_total_micros: int | None
    budget_micros: int | None
    created_at: float
    expires_at: float
    plan_id: int | None = None
    option: int | None = None
    image: str | None = None
    name: str | None = None
    # what the plan option showed, when the quote comes from one (in the digest)
    plan_price_per_gpu_hour_micros: int | None = None
    plan_total_micros: int | None = None
    plan_tier: str | None = None
    horizon_days: float | None = None  # set when the planned run is longer than this horizon
    # What a marketplace says about the host (Vast.ai, RunPod) and whether it is a
    # community host, run by someone the provider does not vouch for: the card says so.
    host: str | None = None
    community: bool | None = None
    spot: bool | None = None  # issue 32: True for a spot rental (None: on demand, as before)
    on_demand_per_gpu_hour_micros: int | None = None  # a spot quote: the price it saves on
    spot_preemptions_per_day: float | None = None  # a spot quote: the provider's stated risk
    # issue 34: the provider's id of the running cluster the nodes join, on its fabric (a
    # replacement node); None: a cluster of its own
    joins: str | None = None
    digest: str = ""

    def __post_init__(self) -> None:
        if not self.digest:
            object.__setattr__(self, "digest", self.compute_digest())

    @property
    def price_per_hour_micros(self) -> int:
        return self.price_per_gpu_hour_micros * self.gpu_count

    def compute_digest(self) -> str:
        body = {
            f.name: getattr(self, f.name)
            for f in fields(self)
            if f.name != "digest"
            # a field added later is left out while unset: a quote made before it still holds
            and not (f.name in _LATER_FIELDS and getattr(self, f.name) is None)
        }
        text = json.dumps(body, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()

    def verify_digest(self) -> None:
        if self.digest != self.compute_digest():
            raise QuoteError(said("error.quote.changed"), hint=said("error.quote.changed_hint"))

    def describe(self, language: str = "en") -> str:
        """One line for a confirmation prompt or an approval card, in ``language``."""
        return self.said().in_language(language)

    @property
    def differs_from_plan(self) -> bool:
        """The price per GPU-hour or the total is not the one the plan option showed."""
        if self.plan_price_per_gpu_hour_micros is None:
            return False
        return self.plan_price_per_gpu_hour_micros != self.price_per_gpu_hour_micros or (
            self.plan_total_micros is not None
            and self.estimated_total_micros is not None
            and self.plan_total_micros != self.estimated_total_micros
        )

    def notes(self) -> list[Said]:
        """What a card must say beside the price: how and why it differs from the plan's,
        and that the run is longer than the horizon."""
        out: list[Said] = []
        if self.differs_from_plan:
            assert self.plan_price_per_gpu_hour_micros is not None
            before, after = self.plan_price_per_gpu_hour_micros, self.price_per_gpu_hour_micros
            figures = {
                "plan_price": format_amount(before, self.currency),
                "price": format_amount(after, self.currency),
                "change": _signed(after - before, self.currency),
                "percent": _percent(after - before, before),
                "plan_total": format_amount(self.plan_total_micros or 0, self.currency),
                "total": format_amount(self.estimated_total_micros or 0, self.currency),
                "total_change": _signed(
                    (self.estimated_total_micros or 0) - (self.plan_total_micros or 0),
                    self.currency,
                ),
                "provider": self.provider,
            }
            if self.plan_tier == TIER_30D:
                out.append(said("common.quote_not_plan_tier", **figures))
            else:
                out.append(said("common.quote_price_moved", **figures))
        if self.host:
            key = "common.quote_host_community" if self.community else "common.quote_host"
            out.append(said(key, provider=self.provider, host=self.host))
        if self.horizon_days is not None and self.hours is not None:
            out.append(
                said(
                    "common.quote_over_horizon",
                    days=f"{self.hours / 24:.0f}",
                    horizon=f"{self.horizon_days:g}",
                )
            )
        return out

    def said(self) -> Said:
        """:meth:`describe` as a key and figures, for a message that words it later."""
        out = said(
            "common.quote_line",
            gpus=self.gpu_count,
            gpu=self.gpu,
            nodes=self.nodes,
            per_node=self.gpus_per_node,
            fabric=self.fabric,
            region=self.region,
            provider=self.provider,
            per_card=format_amount(self.price_per_gpu_hour_micros, self.currency),
            per_hour=format_amount(self.price_per_hour_micros, self.currency),
        )
        if self.estimated_total_micros is not None and self.hours is not None:
            total = format_amount(self.estimated_total_micros, self.currency)
            part = said("common.quote_total", total=total, hours=f"{self.hours:.1f}")
            out = said("common.joined", first=out, rest=part)
        if self.budget_micros:
            budget = format_amount(self.budget_micros, self.currency)
            out = said("common.joined", first=out, rest=said("common.quote_budget", budget=budget))
        if self.spot:
            out = said("common.joined", first=out, rest=self._spot_said())
        for note in self.notes():
            out = said("common.joined", first=out, rest=said("common.quote_note", note=note))
        return out

    def _spot_said(self) -> Said:
        """The saving of a spot quote and its risk, as far as the provider says them."""
        on_demand = self.on_demand_per_gpu_hour_micros
        rate = self.spot_preemptions_per_day
        if on_demand is None or on_demand <= 0 or rate is None:
            return said("common.quote_spot")
        saved = on_demand - self.price_per_gpu_hour_micros
        return said(
            "common.quote_spot_figures",
            saved=format_amount(saved * self.gpu_count, self.currency),
            percent=round(100 * saved / on_demand),
            rate=f"{rate:g}",
        )

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["price_per_hour_micros"] = self.price_per_hour_micros
        out["price_per_gpu_hour"] = self.price_per_gpu_hour_micros / 1e6
        out["price_per_hour"] = self.price_per_hour_micros / 1e6
        out["estimated_total"] = (
            None if self.estimated_total_micros is None else self.estimated_total_micros / 1e6
        )
        out["budget"] = None if self.budget_micros is None else self.budget_micros / 1e6
        out["notes_said"] = [note.to_json() for note in self.notes()]
        # issue 32: a spot quote's saving and risk, for a card to show in its own language
        out["spot_said"] = self._spot_said().to_json() if self.spot else None
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RentQuote:
        names = {f.name for f in fields(cls)}
        quote = cls(**{k: v for k, v in data.items() if k in names})
        quote.verify_digest()
        return quote

    def with_changes(self, **changes: Any) -> RentQuote:
        return replace(self, digest="", **changes)


TIER_30D = "30-day"  # the planner's name for its 30-day tier (xyclaw.planner.costing)
_LATER_FIELDS = frozenset(
    (
        "plan_price_per_gpu_hour_micros",
        "plan_total_micros",
        "plan_tier",
        "horizon_days",
        "host",
        "community",
        "spot",
        "on_demand_per_gpu_hour_micros",
        "spot_preemptions_per_day",
        "joins",
    )
)


def _signed(micros: int, currency: str) -> str:
    sign = "+" if micros > 0 else "-" if micros < 0 else "±"
    return sign + format_amount(abs(micros), currency)


def _percent(change: int, base: int) -> str:
    if base == 0:
        return "?"
    return f"{change / base * 100:+.1f}%"


def check_against_offers(
    quote: RentQuote, offers: list[Offer], now: float, *, require_room: bool = True
) -> Offer:
    """The live offer the quote names, or why it can no longer be rented as quoted.

    ``require_room=False`` lets a sold-out offer through, for a caller that fails over.
    """
    quote.verify_digest()
    if now > quote.expires_at:
        raise QuoteError(
            said(
                "error.quote.expired",
                count=quote.gpu_count,
                gpu=quote.gpu,
                seconds=int(now - quote.expires_at),
            ),
            hint=said("error.quote.expired_hint"),
        )
    same = [o for o in offers if o.offer_id == quote.offer_id and o.provider == quote.provider]
    if not same:
        raise QuoteError(
            said(
                "error.quote.gone",
                provider=quote.provider,
                gpu=quote.gpu,
                region=quote.region,
                offer=quote.offer_id,
            ),
            hint=said("error.quote.gone_hint"),
        )
    offer = same[0]
    if quote.spot and offer.spot_price_micro is not None:  # issue 32: priced as spot
        offer = replace(offer, price_micro=offer.spot_price_micro, price_30d_micro=None)
    if offer.price_micro != quote.price_per_gpu_hour_micros or offer.currency != quote.currency:
        raise QuoteError(
            said(
                "error.quote.price_changed",
                gpu=quote.gpu,
                region=quote.region,
                before=format_amount(quote.price_per_gpu_hour_micros, quote.currency),
                after=format_amount(offer.price_micro, offer.currency),
            ),
            hint=said("error.quote.plan_again"),
        )
    if quote.gpus_per_node != offer.gpus_per_node or quote.fabric != offer.fabric:
        raise QuoteError(
            said("error.quote.shape_changed", offer=quote.offer_id),
            hint=said("error.quote.plan_again"),
        )
    if require_room and offer.available_gpus is not None and offer.available_gpus < quote.gpu_count:
        raise QuoteError(
            said(
                "error.quote.sold_out",
                free=offer.available_gpus,
                gpu=quote.gpu,
                region=quote.region,
                count=quote.gpu_count,
            ),
            hint=said("error.quote.sold_out_hint"),
        )
    return offer
