"""What the core says to a user, kept as a key and its figures so every view words it in its
own language.

The core (the engine's operations, the jobs, the alerts, the agents' tools, the errors) used to
hand the views finished English sentences, which a Chinese window could only show as they
were. Now it hands them a :class:`Said`: a catalogue key and the figures that go into it.
``str(said)`` is the English sentence (for logs, the CLI's English and ``--json``); the GUI and a
Chinese CLI call :meth:`Said.in_language`. Stored messages keep both: the English text in their
column as before and ``Said.to_json()`` beside it, so an old database still reads.

The catalogue is split by area (:mod:`xyclaw.wording.operations`, ``jobs``, ``alerts``,
``agent``, ``errors``, ``common``, ``cli``, ``planner``), each a ``TEXTS`` dict of
``key: (English, Chinese)`` with ``str.format`` fields. It is the lowest layer: it imports
nothing of XyClaw.
"""

from __future__ import annotations

import logging
import os
import string
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Union

log = logging.getLogger(__name__)

#: What a figure may be: plain values, or another :class:`Said` worded in the same language.
Figure = Union[str, int, float, bool, None, "Said"]

LANGUAGES = ("en", "zh")


@dataclass(frozen=True)
class Said:
    """One message: a catalogue key and its figures (never a secret: they are stored)."""

    key: str
    figures: Mapping[str, Figure] = field(default_factory=dict)

    def __str__(self) -> str:
        return self.in_language("en")

    @property
    def english(self) -> str:
        return self.in_language("en")

    def in_language(self, language: str) -> str:
        """The message in ``language`` (``"en"`` or ``"zh"``); English where the catalogue
        has no Chinese, and the key with its figures where it has no entry at all (an older
        or newer XyClaw's message), so a view never fails on what it is handed."""
        from xyclaw.wording.catalogue import CATALOGUE

        entry = CATALOGUE.get(self.key)
        values = {name: _worded(value, language) for name, value in self.figures.items()}
        if entry is None:
            log.warning("no wording for %r", self.key)
            shown = ", ".join(f"{k}={v}" for k, v in values.items())
            return f"{self.key} ({shown})" if shown else self.key
        english, chinese = entry
        for template in (chinese, english) if language == "zh" and chinese else (english,):
            try:
                return template.format(**values)
            except (KeyError, IndexError, ValueError):
                log.warning("wording %r does not fit its figures %r", self.key, sorted(values))
        return english

    def to_json(self) -> dict[str, Any]:
        return {"key": self.key, "figures": {k: _figure_json(v) for k, v in self.figures.items()}}

    @classmethod
    def from_json(cls, data: object) -> Said | None:
        """The stored form back; None for anything that is not one (old rows, damage)."""
        if not isinstance(data, Mapping) or not isinstance(data.get("key"), str):
            return None
        raw = data.get("figures")
        figures: dict[str, Figure] = {}
        if isinstance(raw, Mapping):
            for name, value in raw.items():
                if isinstance(value, Mapping) and "said" in value:
                    figures[str(name)] = cls.from_json(value["said"])
                elif value is None or isinstance(value, (str, int, float, bool)):
                    figures[str(name)] = value
                else:
                    figures[str(name)] = str(value)
        return cls(data["key"], figures)


class SaidValueError(ValueError):
    """A parser's ValueError that keeps its :class:`Said`, so the usage error built from it
    (``xyclaw plan --gpus``, ``xyclaw up --budget``) is worded in each language; its text is
    the English, as a plain ValueError's was."""

    def __init__(self, message: Said) -> None:
        super().__init__(str(message))
        self.said = message


def said_of(exc: BaseException) -> Said | str:
    """An error's :class:`Said` where it carries one, else its text."""
    kept = getattr(exc, "said", None)
    return kept if isinstance(kept, Said) else str(exc)


def said(key: str, /, **figures: Figure) -> Said:
    """A :class:`Said` for ``key``; an unknown key is a programming error, caught here."""
    from xyclaw.wording.catalogue import CATALOGUE

    if key not in CATALOGUE:
        raise KeyError(f"no wording for {key!r}: add it to a xyclaw.wording catalogue")
    return Said(key, figures)


def worded(message: Said | str | None, language: str) -> str:
    """What a view shows for a message that may be a :class:`Said` or already text."""
    if message is None:
        return ""
    if isinstance(message, Said):
        return message.in_language(language)
    return message


def joined(items: list[Figure]) -> Figure:
    """``a, b, c`` in English, ``a、b、c`` in Chinese (one item: itself; none: "")."""
    if not items:
        return ""
    if len(items) == 1:
        return items[0]
    return said("common.list", first=items[0], rest=joined(items[1:]))


def semicolon_joined(items: list[Figure]) -> Figure:
    """``a; b; c`` in English, ``a；b；c`` in Chinese: reasons, each worded in the view's
    language (one item: itself; none: "")."""
    if not items:
        return ""
    if len(items) == 1:
        return items[0]
    return said("common.list_semicolon", first=items[0], rest=semicolon_joined(items[1:]))


def said_to_text(value: object) -> str | None:
    """What a ``*_said_json`` column stores for a message: its Said as JSON, None for text."""
    import json

    if not isinstance(value, Said):
        return None
    return json.dumps(value.to_json(), default=str, ensure_ascii=False)


def said_from_text(text: object) -> Said | None:
    """A stored ``*_said_json`` column back as its :class:`Said` (None: none, or damaged)."""
    import json

    if not isinstance(text, str) or not text:
        return None
    try:
        return Said.from_json(json.loads(text))
    except ValueError:
        return None


def fields_of(template: str) -> set[str]:
    """The figure names a template uses (for the catalogue's own check)."""
    parsed = string.Formatter().parse(template)
    return {name.split(".")[0].split("[")[0] for _, name, _, _ in parsed if name}


def _worded(value: Figure, language: str) -> object:
    if isinstance(value, Said):
        return value.in_language(language)
    return "" if value is None else value


def _figure_json(value: Figure) -> object:
    if isinstance(value, Said):
        return {"said": value.to_json()}
    return value


def language_of(setting: str, environ: Mapping[str, str] | None = None) -> str:
    """``"zh"`` or ``"en"`` for a ``[gui] language`` value; ``system`` reads the locale."""
    if setting == "zh_CN":
        return "zh"
    if setting != "system":
        return "en"
    env = os.environ if environ is None else environ
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(name)
        if value:
            return "zh" if value.lower().startswith("zh") else "en"
    return "en"


def text_in(language: str, key: str, /, **values: object) -> str:
    """The entry ``key`` in ``language``, filled with ``values`` (any objects, formatted as
    ``str.format`` does): the command line's lines, where a :class:`Said` is not kept."""
    from xyclaw.wording.catalogue import CATALOGUE

    english, chinese = CATALOGUE[key]
    return (chinese if language == "zh" else english).format(**values)


def reason_in(language: str, rule: str, english: str, figures: Mapping[str, object] | None) -> str:
    """One planner reason in ``language``: the planner's own English text, or its Chinese
    entry (``plan.reason.<rule>/<form>`` or ``plan.reason.<rule>``) filled with its figures."""
    if language != "zh":
        return english
    from xyclaw.wording.catalogue import CATALOGUE

    values = dict(figures or {})
    if "what_zh" in values:  # the planner words what failed in both languages
        values["what"] = values["what_zh"]
    form = values.get("form")
    entry = CATALOGUE.get(f"plan.reason.{rule}/{form}") or CATALOGUE.get(f"plan.reason.{rule}")
    if entry is None:
        return english
    try:
        return entry[1].format(**values)
    except (KeyError, IndexError, ValueError):  # an older plan without figures: keep its text
        return english
