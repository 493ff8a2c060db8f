"""Failover across offers: when renting fails for capacity or quota, try the next option.

The plan's options are tried in order (another region, then another provider the
user enabled). Each is quoted again first, and the next one is tried without
asking only while it stays within what the user approved: the same GPU count, the
same currency, and at most the approved price per GPU-hour. Any other failure, or
a quote beyond the approval, stops and says why. Every attempt is kept with its
reason, and :meth:`FailoverResult.story` tells it in one line:
``Xiamen out of A800 -> Ulanqab, same price``.

This module decides nothing about *how* to rent: the caller passes a function that
tries one offer (the Engine's create) and, optionally, one that re-quotes it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Generic, TypeVar

from xyclaw.catalog import Offer, format_amount
from xyclaw.errors import CapacityError, XyclawError
from xyclaw.providers.cloud_api import QuotaError, UnsupportedRequestError
from xyclaw.providers.http_retry import ApiError
from xyclaw.wording import Said, said

T = TypeVar("T")


class FailureKind(StrEnum):
    CAPACITY = "capacity"  # none free there now: try the next option
    QUOTA = "quota"  # the account may not rent more there: try the next option
    UNSUPPORTED = "unsupported"  # the provider cannot rent this shape at all: stop
    OTHER = "other"  # anything else (bad key, network, a bug): stop


class Outcome(StrEnum):
    CREATED = "created"
    NO_CAPACITY = "no-capacity"
    OVER_QUOTA = "over-quota"
    NEEDS_APPROVAL = "needs-approval"  # the new quote is beyond what the user approved
    STOPPED = "stopped"  # a failure that another option would not fix


_QUOTA_WORDS = ("quota", "limit-exceeded", "insufficient-balance")
_CAPACITY_WORDS = ("capacity", "out-of-stock", "no-stock")


def classify(exc: BaseException) -> FailureKind:
    """Why creating failed, as failover sees it."""
    if isinstance(exc, UnsupportedRequestError):
        return FailureKind.UNSUPPORTED
    if isinstance(exc, QuotaError):
        return FailureKind.QUOTA
    if isinstance(exc, CapacityError):
        return FailureKind.CAPACITY
    if isinstance(exc, ApiError):
        code = exc.code.lower().replace("_", "-")
        if any(word in code for word in _QUOTA_WORDS):
            return FailureKind.QUOTA
        if any(word in code for word in _CAPACITY_WORDS):
            return FailureKind.CAPACITY
    return FailureKind.OTHER


@dataclass(frozen=True)
class Approval:
    """What the user said yes to: this many GPUs, at most this price, in this currency."""

    gpu_count: int
    max_price_per_gpu_hour_micros: int
    currency: str

    @classmethod
    def of(cls, offer: Offer, gpu_count: int) -> Approval:
        """The approval of a quote made from ``offer``."""
        return cls(gpu_count, offer.price_micro, offer.currency)

    def refusal(self, offer: Offer) -> Said | None:
        """Why ``offer`` is beyond this approval, or None when it is within it."""
        if offer.currency != self.currency:
            return said("op.failover.currency", quoted=offer.currency, approved=self.currency)
        if self.gpu_count not in offer.gpu_counts:
            counts = ", ".join(str(n) for n in offer.gpu_counts)
            return said("op.failover.counts", counts=counts, approved=self.gpu_count)
        if offer.price_micro > self.max_price_per_gpu_hour_micros:
            return said(
                "op.failover.dearer",
                quoted=_price(offer.price_micro, offer.currency),
                approved=_price(self.max_price_per_gpu_hour_micros, self.currency),
            )
        return None


@dataclass(frozen=True)
class Attempt:
    offer: Offer
    outcome: Outcome
    reason: str
    error: XyclawError | None = None
    reason_said: Said | None = None  # the reason's key and figures, where it has them

    @property
    def why(self) -> Said | str:
        """The reason, worded where it can be."""
        if self.reason_said is not None:
            return self.reason_said
        if self.error is not None and self.error.said is not None:
            return self.error.said
        return self.reason


@dataclass(frozen=True)
class FailoverResult(Generic[T]):
    attempts: tuple[Attempt, ...]
    value: T | None = None

    @property
    def created(self) -> bool:
        return bool(self.attempts) and self.attempts[-1].outcome is Outcome.CREATED

    @property
    def needs_approval(self) -> bool:
        """The next option costs more (or differs) than approved: ask the user again."""
        return bool(self.attempts) and self.attempts[-1].outcome is Outcome.NEEDS_APPROVAL

    @property
    def exhausted(self) -> bool:
        """Every option was out of capacity or quota."""
        return bool(self.attempts) and all(
            a.outcome in (Outcome.NO_CAPACITY, Outcome.OVER_QUOTA) for a in self.attempts
        )

    @property
    def chosen(self) -> Offer | None:
        return self.attempts[-1].offer if self.created else None

    @property
    def error(self) -> XyclawError | None:
        """The failure that stopped it (None when created, asking, or simply exhausted)."""
        last = self.attempts[-1] if self.attempts else None
        return last.error if last is not None and last.outcome is Outcome.STOPPED else None

    def lines(self) -> list[str]:
        """One line per attempt, for the history and the operation's progress."""
        return [f"{_place(a.offer, with_provider=True)}: {a.outcome} ({a.reason})"
                for a in self.attempts]  # fmt: skip

    def story(self) -> str:
        """The attempts in one line: ``Xiamen out of A800 -> Ulanqab, same price``."""
        return str(self.story_said())

    def story_said(self) -> Said:
        """:meth:`story` as a :class:`Said` (a view words it in its language)."""
        if not self.attempts:
            return said("op.failover.none")
        mixed = len({a.offer.provider for a in self.attempts}) > 1
        parts: list[Said | str] = []
        previous: Offer | None = None
        for attempt in self.attempts:
            where: Said | str = _place(attempt.offer, with_provider=mixed)
            if previous is not None:
                if (previous.provider, previous.region) == (attempt.offer.provider,
                                                            attempt.offer.region):  # fmt: skip
                    where = f"{where} {attempt.offer.fabric}"  # another offer in the same place
                change = _price_change(previous, attempt.offer)
                where = said("op.failover.where_change", where=where, change=change)
            if attempt.outcome is Outcome.NO_CAPACITY:
                parts.append(said("op.failover.out_of", where=where, gpu=attempt.offer.gpu))
            elif attempt.outcome is Outcome.OVER_QUOTA:
                parts.append(said("op.failover.over_quota", where=where))
            elif attempt.outcome is Outcome.NEEDS_APPROVAL:
                parts.append(said("op.failover.asking", where=where, reason=attempt.why))
            elif attempt.outcome is Outcome.STOPPED:
                parts.append(said("op.failover.stopped", where=where, reason=attempt.why))
            else:
                parts.append(where)
            previous = attempt.offer
        if self.exhausted:
            parts.append(said("op.failover.exhausted"))
        story: Said | str = parts[0]
        for part in parts[1:]:
            story = said("op.failover.then", first=story, then=part)
        return story if isinstance(story, Said) else said("op.failover.plain", text=story)


def fail_over(
    candidates: Sequence[Offer],
    attempt: Callable[[Offer], T],
    *,
    approval: Approval,
    requote: Callable[[Offer], Offer | None] | None = None,
) -> FailoverResult[T]:
    """Try ``candidates`` in order with ``attempt`` until one is created.

    ``requote(offer)`` returns the offer as the provider quotes it now (None: it is no
    longer offered); without it the offers are taken as they are. Only XyclawErrors are
    classified: anything else is a bug and propagates.
    """
    attempts: list[Attempt] = []
    for candidate in candidates:
        try:
            offer = requote(candidate) if requote is not None else candidate
        except XyclawError as exc:
            kind = classify(exc)
            if kind in (FailureKind.CAPACITY, FailureKind.QUOTA):
                attempts.append(Attempt(candidate, _outcome(kind), exc.message, exc))
                continue
            attempts.append(Attempt(candidate, Outcome.STOPPED, exc.message, exc))
            return FailoverResult(tuple(attempts))
        if offer is None:
            gone = said("op.failover.not_offered")
            attempts.append(Attempt(candidate, Outcome.NO_CAPACITY, str(gone), reason_said=gone))
            continue
        refusal = approval.refusal(offer)
        if refusal is not None:
            attempts.append(
                Attempt(offer, Outcome.NEEDS_APPROVAL, str(refusal), reason_said=refusal)
            )
            return FailoverResult(tuple(attempts))
        if offer.available_gpus is not None and offer.available_gpus < approval.gpu_count:
            short = said("op.failover.short", free=offer.available_gpus, needed=approval.gpu_count)
            attempts.append(Attempt(offer, Outcome.NO_CAPACITY, str(short), reason_said=short))
            continue
        try:
            value = attempt(offer)
        except XyclawError as exc:
            kind = classify(exc)
            if kind in (FailureKind.CAPACITY, FailureKind.QUOTA):
                attempts.append(Attempt(offer, _outcome(kind), exc.message, exc))
                continue
            attempts.append(Attempt(offer, Outcome.STOPPED, exc.message, exc))
            return FailoverResult(tuple(attempts))
        attempts.append(Attempt(offer, Outcome.CREATED, "created"))
        return FailoverResult(tuple(attempts), value)
    return FailoverResult(tuple(attempts))


def requote_from(offers_of: Callable[[str], Sequence[Offer]]) -> Callable[[Offer], Offer | None]:
    """A ``requote`` that asks each provider for its offers once per failover run."""
    seen: dict[str, dict[str, Offer]] = {}

    def requote(offer: Offer) -> Offer | None:
        if offer.provider not in seen:
            seen[offer.provider] = {o.offer_id: o for o in offers_of(offer.provider)}
        return seen[offer.provider].get(offer.offer_id)

    return requote


def _outcome(kind: FailureKind) -> Outcome:
    return Outcome.OVER_QUOTA if kind is FailureKind.QUOTA else Outcome.NO_CAPACITY


def _place(offer: Offer, *, with_provider: bool) -> str:
    return f"{offer.provider} {offer.region}" if with_provider else offer.region


def _price(micros: int, currency: str) -> str:
    return f"{format_amount(micros, currency)}/GPU-h"


def _price_change(before: Offer, after: Offer) -> Said | str:
    if before.currency != after.currency:
        return _price(after.price_micro, after.currency)
    delta = after.price_micro - before.price_micro
    if delta == 0:
        return said("op.failover.same_price")
    amount = format_amount(abs(delta), after.currency)
    return said("op.failover.more" if delta > 0 else "op.failover.cheaper", amount=amount)


__all__ = [
    "Approval",
    "Attempt",
    "FailoverResult",
    "FailureKind",
    "Outcome",
    "classify",
    "fail_over",
    "requote_from",
]
