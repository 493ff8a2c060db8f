"""Money as integer micro-units, so that per-second charges add up exactly.

An amount of 3.5 CNY is stored as ``3_500_000``. Text is parsed with
:class:`decimal.Decimal`, never through a float, and floats appear only for
display (rounded, in JSON or on screen).
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

from xyclaw.wording import SaidValueError, said

MICRO_PER_UNIT = 1_000_000
#: A trillion units: more than anyone spends on GPUs, and in micro-units still a 64-bit integer
#: (what SQLite stores).
MAX_AMOUNT = 10**12


def parse_amount(text: str) -> int:
    """``"3.5"`` -> ``3_500_000``; raises ValueError with what was expected."""
    cleaned = text.strip().replace("_", "").replace(",", "")
    try:
        value = Decimal(cleaned)
    except InvalidOperation as exc:
        raise SaidValueError(said("error.typed.not_amount", text=repr(text))) from exc
    if not value.is_finite():
        raise SaidValueError(said("error.typed.not_finite_amount", text=repr(text)))
    if value < 0:
        raise SaidValueError(said("error.typed.negative_amount", text=repr(text)))
    if value > MAX_AMOUNT:
        too_large = said(
            "error.typed.amount_too_large", text=repr(text[:30]), most=f"{MAX_AMOUNT:,}"
        )
        raise SaidValueError(too_large)
    micro = value * MICRO_PER_UNIT
    if micro != micro.to_integral_value():
        raise SaidValueError(said("error.typed.too_many_places", text=repr(text)))
    return int(micro)


def to_display(micro: int, places: int = 2) -> float:
    """Micro-units as a float rounded half-up for display (never summed again)."""
    quantum = Decimal(1).scaleb(-places)
    return float((Decimal(micro) / MICRO_PER_UNIT).quantize(quantum, rounding=ROUND_HALF_UP))


def format_amount(micro: int, currency: str | None = None, places: int = 2) -> str:
    """``3_500_000, "CNY"`` -> ``"3.50 CNY"``."""
    quantum = Decimal(1).scaleb(-places)
    text = str((Decimal(micro) / MICRO_PER_UNIT).quantize(quantum, rounding=ROUND_HALF_UP))
    return f"{text} {currency}" if currency else text
