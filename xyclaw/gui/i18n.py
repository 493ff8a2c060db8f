"""The GUI's languages: English (the source) and 简体中文, switchable while the app runs.

Every user-visible string goes through Qt's translation system (``self.tr`` in widgets,
``QCoreApplication.translate`` with a literal context elsewhere, ``QT_TRANSLATE_NOOP`` for
tables of words). The catalogues are ``resources/i18n/xyclaw_<lang>.ts`` (sources, edited
with Qt Linguist) and the ``.qm`` files built from them by ``tools/i18n.py release``.
Installing a language posts ``QEvent.LanguageChange`` to every widget: pages retranslate
in ``changeEvent``; forms loaded from ``ui/`` retranslate by themselves.

Numbers, money and dates are written in the language's locale (:func:`number`,
:func:`money`, :func:`date_time`).
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from PySide6.QtCore import (
    QT_TRANSLATE_NOOP,
    QCoreApplication,
    QDateTime,
    QLibraryInfo,
    QLocale,
    QTranslator,
)

from xyclaw.paths import bundled

log = logging.getLogger(__name__)

#: The languages the GUI speaks, by setting value; "system" picks one from the OS locale.
LANGUAGES: dict[str, str] = {"en": "English", "zh_CN": "简体中文"}
LANGUAGE_SETTINGS = ("system", *LANGUAGES)

_installed: list[QTranslator] = []
_current = "en"

#: Words the file dialog takes from Qt's own catalogue, which lacks them in Qt 6 (they moved
#: to the icon provider's context): the file list's Type column says "Drive" for / and
#: "Folder" for a folder. Ours supplies them under Qt's context, so Qt's own lookup finds them.
QT_FILE_WORDS = (
    QT_TRANSLATE_NOOP("QAbstractFileIconProvider", "Drive"),
    QT_TRANSLATE_NOOP("QAbstractFileIconProvider", "Folder"),
    QT_TRANSLATE_NOOP("QAbstractFileIconProvider", "File"),
    QT_TRANSLATE_NOOP("QAbstractFileIconProvider", "%1 File"),
)


def catalogue_dir() -> Path:
    return bundled("resources") / "i18n"


def catalogue(language: str, suffix: str = ".qm") -> Path:
    return catalogue_dir() / f"xyclaw_{language}{suffix}"


def resolve(setting: str, system_locale: QLocale | None = None) -> str:
    """The language for a setting: itself, or for "system" Chinese when the OS locale is
    Chinese and English otherwise."""
    if setting in LANGUAGES:
        return setting
    name = (system_locale or QLocale.system()).name()
    return "zh_CN" if name.startswith("zh") else "en"


def current() -> str:
    """The language installed now ("en" or "zh_CN")."""
    return _current


def install(setting: str) -> str:
    """Switch the whole GUI to the language of ``setting`` (also while it runs); returns
    the language installed. A missing catalogue leaves English and says so in the log."""
    global _current
    app = QCoreApplication.instance()
    language = resolve(setting)
    for translator in _installed:
        if app is not None:
            app.removeTranslator(translator)
    _installed.clear()
    if language != "en" and app is not None:
        ours = QTranslator(app)
        if ours.load(str(catalogue(language))):
            app.installTranslator(ours)
            _installed.append(ours)
        else:
            log.warning(
                "no %s catalogue at %s; the GUI stays in English", language, catalogue_dir()
            )
            language = "en"
        if language != "en":  # Qt's own words: the standard buttons of dialogs
            qt = QTranslator(app)
            folder = QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)
            if qt.load(f"qtbase_{language}", folder):
                app.installTranslator(qt)
                _installed.append(qt)
    QLocale.setDefault(QLocale(language if language != "en" else "en_US"))
    _current = language
    return language


def alive(*widgets: object) -> bool:
    """Whether these Qt objects still exist: a page torn down with its window may still hear
    a language change while its children are already gone."""
    import shiboken6

    return all(shiboken6.isValid(w) for w in widgets)


def word_file_dialog(dialog: Any) -> Any:
    """A QFileDialog with its field labels in the GUI's language: Qt's own zh_CN catalogue
    leaves "Look in:" and "Files of type:" in English."""
    from PySide6.QtWidgets import QFileDialog

    labels = {
        QFileDialog.DialogLabel.LookIn: translate("FileDialog", "Look in:"),
        QFileDialog.DialogLabel.FileName: translate("FileDialog", "File name:"),
        QFileDialog.DialogLabel.FileType: translate("FileDialog", "Files of type:"),
    }
    for which, text in labels.items():
        dialog.setLabelText(which, text)
    return dialog


def save_file_name(parent: Any, title: str, start: str, filters: str) -> str:
    """``QFileDialog.getSaveFileName`` with the dialog worded by :func:`word_file_dialog`
    (modal; "" when cancelled)."""
    from PySide6.QtWidgets import QFileDialog

    dialog = word_file_dialog(QFileDialog(parent, title, start, filters))
    dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
    try:
        if dialog.exec() == QFileDialog.DialogCode.Accepted and dialog.selectedFiles():
            return str(dialog.selectedFiles()[0])
        return ""
    finally:
        dialog.deleteLater()


def translate(context: str, text: str) -> str:
    """``QCoreApplication.translate``; lupdate finds ``i18n.translate("Context", "text")``
    calls written with literals, as it finds Qt's own."""
    return QCoreApplication.translate(context, text)


def tr(context: str, text: str) -> str:
    """``QCoreApplication.translate`` for code outside a QObject; lupdate finds only calls
    written as ``QCoreApplication.translate("Context", "text")`` or QT_TRANSLATE_NOOP, so
    call this only with texts marked by one of those."""
    return QCoreApplication.translate(context, text)


# -- numbers, money and dates in the locale's form ----------------------------------------


def number(value: float | int | None, decimals: int = 0) -> str:
    if value is None:
        return "–"
    locale = QLocale()
    if isinstance(value, int) and decimals == 0:
        return locale.toString(value)
    return locale.toString(float(value), "f", decimals)


def money(micros: int | float | None, currency: str | None = "CNY", decimals: int = 2) -> str:
    """``3_500_000, "CNY"`` -> ``"3.50 CNY"`` (``"1,234.50 CNY"``; the currency code is the
    unit in every language)."""
    if micros is None:
        return "–"
    text = QLocale().toString(float(micros) / 1e6, "f", decimals)
    return f"{text} {currency}" if currency else text


_DATE_FORMATS = {"en": "yyyy-MM-dd HH:mm", "zh_CN": "yyyy年M月d日 HH:mm"}


def date_time(ts: float | None, *, seconds: bool = False) -> str:
    """A UTC epoch time as the language writes a date and time, in local time
    (``2026-05-01 14:03``, ``2026年5月1日 14:03``)."""
    if ts is None:
        return "–"
    moment = QDateTime.fromMSecsSinceEpoch(int(ts * 1000))
    fmt = _DATE_FORMATS.get(_current, _DATE_FORMATS["en"])
    if seconds:
        fmt += ":ss"
    return QLocale().toString(moment, fmt)


def clock_time(ts: float | None) -> str:
    if ts is None:
        return "–"
    moment = QDateTime.fromMSecsSinceEpoch(int(ts * 1000))
    return QLocale().toString(moment.time(), "HH:mm:ss")


def duration(seconds: float | None) -> str:
    """75 -> ``"1 min 15 s"``, 7300 -> ``"2 h 1 min"``, in the GUI's language."""
    if seconds is None:
        return "–"
    if seconds < 60:
        return QCoreApplication.translate("Units", "{n} s").format(
            n=number(seconds, 1 if seconds < 10 else 0)
        )
    minutes, secs = divmod(round(seconds), 60)
    if minutes < 60:
        return QCoreApplication.translate("Units", "{m} min {s} s").format(m=minutes, s=secs)
    hours, minutes = divmod(minutes, 60)
    return QCoreApplication.translate("Units", "{h} h {m} min").format(h=hours, m=minutes)
