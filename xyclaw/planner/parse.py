"""Parsing what people type: ``7B``, ``1.5e9``, ``48h``, ``2d``, ``8-32``, ``500 CNY``.

Each parser raises ValueError whose message says what was expected; the request
turns it into a usage error naming the field (and the CLI, the flag).
"""

from __future__ import annotations

import re
from decimal import ROUND_HALF_UP, Decimal

from xyclaw.catalog.money import parse_amount

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


def _too_long(text: str, what: str) -> None:
    if len(text) > _MAX_TEXT:
        raise ValueError(f"{text[:20]!r}... is not {what}: too long")


def parse_count(text: str, *, what: str = "a count", most: int = MOST_COUNT) -> int:
    """``"7B"`` -> 7_000_000_000; ``"1.5e9"`` -> 1_500_000_000; ``"300M"`` -> 300_000_000."""
    _too_long(text, what)
    match = _COUNT.match(text)
    if match is None:
        raise ValueError(
            f"{text!r} is not {what}; expected a number with an optional K, M, B or T "
            "suffix, such as 7B, 13b, 300M or 1.5e9"
        )
    value = Decimal(match["num"]) * _UNITS[match["unit"].lower()]
    if value > most:
        raise ValueError(f"{text!r} is more than XyClaw plans for; expected at most {most:.0e}")
    count = int(value.to_integral_value(rounding=ROUND_HALF_UP))
    if count <= 0:
        raise ValueError(f"{text!r} is not {what}; expected more than zero")
    return count


def parse_size(text: str) -> int:
    """A model size in parameters; a bare small number is most likely a missing ``B``."""
    count = parse_count(text, what="a model size", most=LARGEST_MODEL)
    if count < SMALLEST_MODEL:
        raise ValueError(
            f"{text!r} is only {count:,} parameters; expected a size such as 7B or 1.5e9 "
            "(did you forget the B?)"
        )
    return count


def parse_duration(text: str) -> int:
    """``"48h"`` -> 172800 s; ``"2d"``, ``"1d12h"``, ``"90m"``, ``"1.5h"``, ``"1w"`` also work."""
    _too_long(text, "a duration")
    cleaned = text.strip()
    parts = _DURATION_PART.findall(cleaned)
    if not parts or _DURATION_PART.sub("", cleaned).strip():
        raise ValueError(
            f"{text!r} is not a duration; expected a number with a unit, such as 48h, 2d, "
            "90m or 1d12h"
        )
    seconds = sum(
        (Decimal(num) * _DURATION_SECONDS[unit.lower()] for num, unit in parts), Decimal(0)
    )
    if seconds > MOST_SECONDS:
        raise ValueError(f"{text!r} is longer than XyClaw plans for; expected at most 10 years")
    total = int(seconds.to_integral_value(rounding=ROUND_HALF_UP))
    if total <= 0:
        raise ValueError(f"{text!r} is not a duration; expected more than zero")
    return total


def parse_gpu_range(text: str) -> tuple[int, int | None]:
    """``"8"`` -> (8, 8); ``"8-32"`` -> (8, 32); ``"8+"`` -> (8, None)."""
    _too_long(text, "a GPU count")
    match = _RANGE.match(text)
    if match is None:
        raise ValueError(f"{text!r} is not a GPU count; expected N, MIN-MAX or N+, such as 8-32")
    if any(int(g) > MOST_GPUS for g in (match[1], match[3]) if g):
        raise ValueError(f"{text!r}: expected at most {MOST_GPUS:,} GPUs")
    low = int(match[1])
    if low < 1:
        raise ValueError(f"{text!r}: expected at least 1 GPU")
    if match[4]:
        return low, None
    high = int(match[3]) if match[2] else low
    if high < low:
        raise ValueError(f"{text!r}: the range must go from small to large, such as 8-32")
    return low, high


def parse_budget(text: str) -> tuple[int, str | None]:
    """``"500"`` -> (500_000_000, None); ``"500 CNY"`` -> (500_000_000, "CNY")."""
    _too_long(text, "an amount")
    match = _MONEY.match(text)
    if match is None:
        raise ValueError(f"{text!r} is not an amount; expected a number such as 500 or 500 CNY")
    amount = parse_amount(match["num"])
    if amount <= 0:
        raise ValueError(f"{text!r}: expected a budget above zero")
    currency = match["cur"].upper() if match["cur"] else None
    return amount, currency
