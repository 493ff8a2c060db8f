"""Numbers as the widgets show them: money, rates, durations, token counts, local times."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

from PySide6.QtCore import QCoreApplication

from xyclaw.catalog.money import format_amount
from xyclaw.wording import Said

# How a cluster without a network between nodes is stored ("none") and offered.
NO_FABRIC = ("", "none")


def money(micros: int | None, currency: str | None = "CNY", places: int = 2) -> str:
    if micros is None:
        return "–"
    return format_amount(int(micros), currency, places)


def money_totals(totals: Mapping[str, int], empty_currency: str = "CNY", places: int = 2) -> str:
    """``{"CNY": 3_500_000, "USD": 10_000}`` -> ``"3.50 CNY + 0.01 USD"``."""
    shown = [money(v, c, places) for c, v in sorted(totals.items()) if v]
    return " + ".join(shown) if shown else money(0, empty_currency, places)


def rate(micros_per_hour: int, currency: str = "CNY") -> str:
    return f"{money(micros_per_hour, currency)}/h"


def tokens(count: int) -> str:
    """12_345 -> ``"12.3k"``; small counts as they are."""
    if count < 1000:
        return str(count)
    if count < 1_000_000:
        return f"{count / 1000:.1f}k"
    return f"{count / 1_000_000:.2f}M"


def duration(seconds: float | None) -> str:
    """0.42 -> ``"420 ms"``; 75 -> ``"1 min 15 s"`` (``"1 分 15 秒"``); 7300 -> ``"2 h 1 min"``."""
    if seconds is None:
        return "–"
    if seconds < 1:
        return f"{seconds * 1000:.0f} ms"
    if seconds < 60:
        return f"{seconds:.1f} s"
    from xyclaw.gui import i18n

    return i18n.duration(seconds)  # "1 min 15 s" / "1 分 15 秒"


def countdown(seconds: float) -> str:
    """Seconds left as ``m:ss`` (``h:mm:ss`` past an hour)."""
    seconds = max(0, int(seconds))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def local_time(ts: float | None, *, with_date: bool = False) -> str:
    if ts is None:
        return "–"
    if with_date:  # as the GUI's language writes a date (2026-05-01 14:03, 2026年5月1日 14:03)
        from xyclaw.gui import i18n

        return i18n.date_time(ts)
    return time.strftime("%H:%M", time.localtime(ts))


def message_language() -> str:
    """``"zh"`` or ``"en"``: the language the core's messages (:class:`Said`) are worded in
    for the GUI, the one installed now."""
    from xyclaw.gui import i18n
    from xyclaw.wording import language_of

    return language_of(i18n.current())


def worded(message: Said | str | None) -> str:
    """A core message as the window shows it: a :class:`Said` in the GUI's language, text as
    it is (a name, a remote machine's own words, an older stored message)."""
    from xyclaw.wording import worded as in_language

    return in_language(message, message_language())


def error_text(error: BaseException, *, with_hint: bool = True) -> str:
    """An error as the window shows it: a XyclawError's message (and hint) in the GUI's
    language, anything else as its text."""
    from xyclaw.errors import XyclawError

    if not isinstance(error, XyclawError):
        return str(error)
    message, hint = error.in_language(message_language())
    return f"{message}\n{hint}" if with_hint and hint else message


def show_worded(label: Any, words: Callable[[], str]) -> None:
    """``label`` shows ``words()`` now and again at each :func:`reword` (a page's
    retranslate): ``words`` holds the message (an error's :meth:`ErrorInfo.text`), never the
    page."""
    label.worded_by = words
    label.setText(words())


def reword(*labels: Any) -> None:
    """What :func:`show_worded` put on each label, in the language installed now."""
    for label in labels:
        words = getattr(label, "worded_by", None)
        if words is not None:
            label.setText(words())


def planner_reason(rule: str, english: str, figures: Mapping[str, object] | None) -> str:
    """A planner reason in the GUI's language (the planner words it in English; its rule and
    figures give the Chinese form)."""
    from xyclaw.wording import reason_in

    return reason_in(message_language(), rule, english, figures)


def fabric_text(fabric: object) -> str:
    """A cluster's fabric as a user reads it: its name, or "single node" for one machine
    (stored as ``none``: there is no network between nodes to name)."""
    if fabric is None or str(fabric).strip().lower() in NO_FABRIC:
        return QCoreApplication.translate("Fabric", "single node")
    return str(fabric)


def fabric_tip(fabric: object) -> str:
    """The tooltip that goes with :func:`fabric_text`."""
    if fabric is None or str(fabric).strip().lower() in NO_FABRIC:
        return QCoreApplication.translate(
            "Fabric",
            "One machine: its GPUs talk over NVLink or PCIe, no network fabric between "
            "nodes is used (none to choose or tune)",
        )
    return QCoreApplication.translate("Fabric", "The network between the nodes: {fabric}").format(
        fabric=fabric
    )
