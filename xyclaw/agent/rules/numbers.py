"""Text as people type it, made regular: full-width forms, Chinese numerals, English number words.

``prepare("帮我租八张A800，预算一万五")`` gives ``"帮我租 8 张a800,预算 1.5w "``: NFKC
folds full-width digits and punctuation, the text is lower-cased, and every
Chinese numeral becomes Arabic digits with a space either side so that the
patterns in :mod:`xyclaw.agent.rules.slots` see one spelling only. A number
with 亿 in it is written in billions with a ``b`` (``70亿`` -> ``7b``, ``1000亿``
-> ``100b``), the way model sizes and token counts are written in English; one
with 万 in ten-thousands with a ``w``, as people type it (``1.5万`` -> ``1.5w``).
"""

from __future__ import annotations

import re
import unicodedata
from decimal import Decimal

_DIGITS = {
    "零": 0,
    "〇": 0,
    "一": 1,
    "二": 2,
    "两": 2,
    "俩": 2,
    "三": 3,
    "四": 4,
    "五": 5,
    "六": 6,
    "七": 7,
    "八": 8,
    "九": 9,
}
_SMALL_UNITS = {"十": 10, "百": 100, "千": 1000}
_CN_DIGIT = "零〇一二两俩三四五六七八九"
_CN_CHARS = _CN_DIGIT + "十百千万亿"
# A run of numerals: Arabic numbers, Chinese digits and units, and 点 as a decimal point.
# It must start with a digit (or 十, "十张卡"); 千万 ("by all means") and 万一 do not.
_RUN = re.compile(
    rf"(?:\d+(?:\.\d+)?|[{_CN_DIGIT}十])"
    rf"(?:\d+(?:\.\d+)?|[{_CN_CHARS}]|点(?=[\d{_CN_DIGIT}]))*"
)
_TOKEN = re.compile(rf"\d+(?:\.\d+)?|[{_CN_CHARS}]|点")

_EN_UNITS = {
    "zero": 0,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "thirteen": 13,
    "fourteen": 14,
    "fifteen": 15,
    "sixteen": 16,
    "seventeen": 17,
    "eighteen": 18,
    "nineteen": 19,
    "twenty": 20,
    "thirty": 30,
    "forty": 40,
    "fifty": 50,
    "sixty": 60,
    "seventy": 70,
    "eighty": 80,
    "ninety": 90,
    "hundred": 100,
}
_EN_WORD = re.compile(r"(?<![a-z])(" + "|".join(_EN_UNITS) + r")(?![a-z])")
# "one" is "the second one" as often as a number: only before a unit noun.
_EN_ONE = re.compile(
    r"(?<![a-z])(?:one|a single)(?=[\s-]+(?:gpus?|cards?|nodes?|machines?|servers?|days?|"
    r"hours?|weeks?|jobs?|clusters?|lines?|plans?|events?|a800|a100|h100|h800|4090|rtx)\b)"
)
_EN_ORDINALS = {
    "first": 1,
    "second": 2,
    "third": 3,
    "fourth": 4,
    "fifth": 5,
    "sixth": 6,
    "seventh": 7,
    "eighth": 8,
    "ninth": 9,
    "tenth": 10,
}


def format_decimal(value: Decimal) -> str:
    """``Decimal("15000.0")`` -> ``"15000"``; ``Decimal("0.15")`` -> ``"0.15"`` (no exponent)."""
    text = format(value.normalize(), "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text or "0"


def chinese_number(run: str) -> Decimal | None:
    """The value of a numeral run: ``七十亿``, ``一万五``, ``1.5万``, ``两千五百``, ``三点五``.

    Colloquial endings count as the next smaller unit (``一万五`` is 15000, ``一百五``
    150); a run of bare digits reads digit by digit (``二零二六`` is 2026). None when
    the run holds no number at all.
    """
    tokens = _TOKEN.findall(run)
    if not tokens:
        return None
    # Bare digits only (no units): digit by digit, like a year or a port.
    if all(t in _DIGITS or t[0].isdigit() for t in tokens) and any(t in _DIGITS for t in tokens):
        text = "".join(str(_DIGITS[t]) if t in _DIGITS else t for t in tokens)
        try:
            return Decimal(text)
        except ArithmeticError:
            return None
    total = Decimal(0)  # whole 亿s
    wan = Decimal(0)  # whole 万s below the last 亿
    section = Decimal(0)  # below 万
    number: Decimal | None = None
    last_unit = 0  # the last unit seen, for colloquial endings (一万五 = 15000)
    after_zero = False
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token == "点":
            # 三点五: the digits after 点 are the fraction.
            digits = ""
            i += 1
            while i < len(tokens) and (tokens[i] in _DIGITS or tokens[i].isdigit()):
                digits += str(_DIGITS[tokens[i]]) if tokens[i] in _DIGITS else tokens[i]
                i += 1
            number = (number or Decimal(0)) + (Decimal("0." + digits) if digits else 0)
            continue
        if token in _DIGITS:
            value = _DIGITS[token]
            if value == 0:
                after_zero = True
            number = Decimal(value)
        elif token[0].isdigit():
            number = Decimal(token)
        elif token in _SMALL_UNITS:
            unit = _SMALL_UNITS[token]
            section += (number if number is not None else Decimal(1)) * unit
            number = None
            last_unit = unit
            after_zero = False
        elif token == "万":
            wan += (section + (number or 0)) * 10_000
            section, number, last_unit, after_zero = Decimal(0), None, 10_000, False
        elif token == "亿":
            total = (total + wan + section + (number or 0)) * 100_000_000
            wan, section, number, last_unit, after_zero = (
                Decimal(0),
                Decimal(0),
                None,
                100_000_000,
                False,
            )
        i += 1
    if number is not None and last_unit >= 100 and not after_zero and number < 10:
        number *= last_unit // 10  # 一万五 -> 5 x 1000; 一百五 -> 5 x 10
    result = total + wan + section + (number or 0)
    return result


def _replace_run(match: re.Match[str]) -> str:
    run = match.group(0)
    if not any(ch in _CN_CHARS or ch == "点" for ch in run):
        return run  # plain Arabic digits stay as they are
    value = chinese_number(run)
    if value is None:
        return run
    if "亿" in run:
        return f" {format_decimal(value / 1_000_000_000)}b "
    if "万" in run:
        return f" {format_decimal(value / 10_000)}w "
    return f" {format_decimal(value)} "


def fold(text: str) -> str:
    """NFKC (full-width to ASCII, ``１２`` -> ``12``, ``，`` -> ``,``) and lower case."""
    return unicodedata.normalize("NFKC", text).lower()


def prepare(text: str) -> str:
    """:func:`fold`, then Chinese numerals and English number words as Arabic digits."""
    folded = fold(text)
    converted = _RUN.sub(_replace_run, folded)
    converted = _EN_ONE.sub("1", converted)
    converted = _EN_WORD.sub(lambda m: str(_EN_UNITS[m.group(1)]), converted)
    return converted


def ordinal(word: str) -> int | None:
    """``"second"`` -> 2, ``"2nd"`` -> 2; None for anything else."""
    if word in _EN_ORDINALS:
        return _EN_ORDINALS[word]
    match = re.fullmatch(r"(\d+)(?:st|nd|rd|th)", word)
    return int(match.group(1)) if match else None


ORDINAL_WORDS = "|".join(_EN_ORDINALS)


def to_number(text: str) -> int | float:
    """``"8"`` -> 8, ``"1.5"`` -> 1.5, ``"15000.0"`` -> 15000: whole values as int, for JSON."""
    value = Decimal(text.replace(",", ""))
    if value == value.to_integral_value():
        return int(value)
    return float(value)
