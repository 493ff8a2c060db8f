"""Light and dark themes (``ui/themes/*.qss``), following the system's colour scheme unless
the user picks one (``[gui] theme``), switchable while the app runs.

Qt tells every widget of a new style sheet with ``QEvent.StyleChange``; the charts pick
their colours from the palette then (:func:`xyclaw.gui.charts.theme.theme_for`), those of a
hidden page when it is shown.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication

from xyclaw.paths import bundled

THEMES = ("system", "light", "dark")


def system_is_dark(app: QGuiApplication | None = None) -> bool:
    """Whether the desktop asks for dark colours (Qt's colour scheme, else the palette)."""
    app = app or QGuiApplication.instance()  # type: ignore[assignment]
    if app is None:
        return False
    scheme = app.styleHints().colorScheme()
    if scheme == Qt.ColorScheme.Dark:
        return True
    if scheme == Qt.ColorScheme.Light:
        return False
    window = app.palette().color(QPalette.ColorRole.Window)
    return window.lightness() < 110


def resolve(setting: str, app: QGuiApplication | None = None) -> str:
    """ "light" or "dark" for a setting ("system" follows the desktop)."""
    if setting in ("light", "dark"):
        return setting
    return "dark" if system_is_dark(app) else "light"


def style_sheet(theme: str) -> str:
    """The theme's QSS, its ``{icons}`` the bundled icons' folder (QSS reads a relative
    ``url()`` from the working directory)."""
    text = (bundled("ui") / "themes" / f"{theme}.qss").read_text(encoding="utf-8")
    return text.replace("{icons}", (bundled("resources") / "icons").as_posix())


class ThemeFollower(QObject):
    """Keeps the app's style sheet on the chosen theme; with "system", follows the desktop
    when it switches between light and dark."""

    def __init__(self, app: QApplication) -> None:
        super().__init__(app)
        self.app = app
        self.setting = "system"
        self.applied = ""
        app.styleHints().colorSchemeChanged.connect(self._scheme_changed)

    def apply(self, setting: str) -> str:
        self.setting = setting if setting in THEMES else "system"
        theme = resolve(self.setting, self.app)
        if theme != self.applied:
            if self.applied and self.app.styleSheet():
                # One pass over the widgets instead of Qt's repolish of a changed sheet,
                # which restyles each widget again for every ancestor it has: with every
                # page built a switch took ~1 s of the main thread, now about a fifth.
                # Nothing paints in between: both calls run before the event loop turns.
                self.app.setStyleSheet("")
            self.app.setStyleSheet(style_sheet(theme))
            self.applied = theme
        return theme

    def _scheme_changed(self, _scheme: object) -> None:
        if self.setting == "system":
            self.apply("system")


_followers: dict[int, ThemeFollower] = {}


def apply_theme(app: QApplication, setting: str) -> str:
    """Put the app on a theme ("system", "light" or "dark"); returns the one applied."""
    follower = _followers.get(id(app))
    if follower is None:
        follower = _followers[id(app)] = ThemeFollower(app)
    return follower.apply(setting)


def applied_theme(app: QApplication | None = None) -> str:
    app = app or QApplication.instance()  # type: ignore[assignment]
    follower = _followers.get(id(app)) if app is not None else None
    return follower.applied if follower is not None else "light"
