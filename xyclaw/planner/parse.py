"""Parsing what people type: ``7B``, ``1.5e9``, ``48h``, ``2d``, ``8-32``, ``500 CNY``.

Each parser raises ValueError whose message says what was expected (a SaidValueError,
worded in each language); the request turns it into a usage error naming the field (and
the CLI, the flag).
"""

from __future__ import annotations

import re
from decimal import ROUND_HALF_UP, Decimal

from xyclaw.catalog.money import parse_amount
from xyclaw.wording import Said, SaidValueError, said

_COUNT = re.compile(
    r"^\s*(?P<num>(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?)\s*(?P<unit>[kmbgt]?)\s*$", re.IGNORECASE
)
_UNITS = {"": 1, "k": 10**3, "m": 10**6, "b": 10**9, "g": 10**9, "t": 10**12}
_DURATION_PART = re.compile(r"(\d+(?:\.\d+)?)\s*([wdhms])", re.IGNORECASE)
_DURATION_SECONDS = {"w": 7 * 86400, "d": 86400, "h": 3600, "m": 60, "s": 1}
_RANGE = re.compile(r"^\s*(\d+)\s*(?:(-)\s*(\d+)|(\+))?\s*$")
_MONEY = re.compile(r"^\s*(?P<num>[0-9.,_]+)\s*(?P<cur>[A-Za-z]{3})?\s*$")
SMALLEST_MODEL = 1_000_000
#: Beyond these nothing is planned (the figures would overflow or mean nothing): a model of
#: 100 trillion parameters, a quadrillion tokens, ten years, a hundred thousand GPUs.
LARGEST_MODEL = 10**14
MOST_COUNT = 10**15
MOST_SECONDS = 10 * 365 * 86400
MOST_GPUS = 100_000
_MAX_TEXT = 64  # characters of a number anyone types


def _too_long(text: str, what: Said) -> None:
    if len(text) > _MAX_TEXT:
        raise SaidValueError(said("error.typed.too_long", head=repr(text[:20]), what=what))


def parse_count(text: str, *, what: Said | None = None, most: int = MOST_COUNT) -> int:
    """``"7B"`` -> 7_000_000_000; ``"1.5e9"`` -> 1_500_000_000; ``"300M"`` -> 300_000_000."""
    what = what or said("error.typed.what.count")
    _too_long(text, what)
    match = _COUNT.match(text)
    if match is None:
        raise SaidValueError(said("error.typed.not_count", text=repr(text), what=what))
    value = Decimal(match["num"]) * _UNITS[match["unit"].lower()]
    if value > most:
        raise SaidValueError(
            said("error.typed.count_too_large", text=repr(text), most=f"{most:.0e}")
        )
    count = int(value.to_integral_value(rounding=ROUND_HALF_UP))
    if count <= 0:
        raise SaidValueError(said("error.typed.not_positive", text=repr(text), what=what))
    return count


def parse_size(text: str) -> int:
    """A model size in parameters; a bare small number is most likely a missing ``B``."""
    count = parse_count(text, what=said("error.typed.what.model_size"), most=LARGEST_MODEL)
    if count < SMALLEST_MODEL:
        raise SaidValueError(said("error.typed.size_small", text=repr(text), count=f"{count:,}"))
    return count


def parse_duration(text: str) -> int:
    """``"48h"`` -> 172800 s; ``"2d"``, ``"1d12h"``, ``"90m"``, ``"1.5h"``, ``"1w"`` also work."""
    _too_long(text, said("error.typed.what.duration"))
    cleaned = text.strip()
    parts = _DURATION_PART.findall(cleaned)
    if not parts or _DURATION_PART.sub("", cleaned).strip():
        raise SaidValueError(said("error.typed.not_duration", text=repr(text)))
    seconds = sum(
        (Decimal(num) * _DURATION_SECONDS[unit.lower()] for num, unit in parts), Decimal(0)
    )
    if seconds > MOST_SECONDS:
        raise SaidValueError(said("error.typed.duration_too_long", text=repr(text)))
    total = int(seconds.to_integral_value(rounding=ROUND_HALF_UP))
    if total <= 0:
        raise SaidValueError(
            said(
                "error.typed.not_positive", text=repr(text), what=said("error.typed.what.duration")
            )
        )
    return total


def parse_gpu_range(text: str) -> tuple[int, int | None]:
    """``"8"`` -> (8, 8); ``"8-32"`` -> (8, 32); ``"8+"`` -> (8, None)."""
    _too_long(text, said("error.typed.what.gpu_count"))
    match = _RANGE.match(text)
    if match is None:
        raise SaidValueError(said("error.typed.not_gpu_range", text=repr(text)))
    if any(int(g) > MOST_GPUS for g in (match[1], match[3]) if g):
        raise SaidValueError(
            said("error.typed.gpus_at_most", text=repr(text), most=f"{MOST_GPUS:,}")
        )
    low = int(match[1])
    if low < 1:
        raise SaidValueError(said("error.typed.gpus_at_least", text=repr(text)))
    if match[4]:
        return low, None
    high = int(match[3]) if match[2] else low
    if high < low:
        raise SaidValueError(said("error.typed.range_order", text=repr(text)))
    return low, high


def parse_budget(text: str) -> tuple[int, str | None]:
    """``"500"`` -> (500_000_000, None); ``"500 CNY"`` -> (500_000_000, "CNY")."""
    _too_long(text, said("error.typed.what.amount"))
    match = _MONEY.match(text)
    if match is None:
        raise SaidValueError(said("error.typed.not_budget", text=repr(text)))
    amount = parse_amount(match["num"])
    if amount <= 0:
        raise SaidValueError(said("error.typed.budget_positive", text=repr(text)))
    currency = match["cur"].upper() if match["cur"] else None
    return amount, currency
