"""Issue 28 (a theme switch in <= 150 ms): the switch restyles the window in one pass, and a
page's chart hidden during it takes the new colours when the page is opened. What a user
would see were that wrong: the Plan page's chart white on a dark page (it stayed in the
theme it was made in)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QEvent
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QApplication, QVBoxLayout, QWidget
from pytestqt.qtbot import QtBot

from tests.gui.conftest import MakeWindow
from xyclaw.engine import Engine
from xyclaw.gui.app import apply_theme, create_app
from xyclaw.gui.charts.theme import DARK, LIGHT, ChartTheme
from xyclaw.gui.themes import style_sheet

pytestmark = pytest.mark.gui


class _Counting(QWidget):
    """A widget that counts how often it is restyled."""

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self.restyled = 0

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.StyleChange:
            self.restyled += 1


def test_a_theme_switch_restyles_a_nested_widget_once_not_once_per_ancestor(
    qtbot: QtBot,
) -> None:
    """Qt's repolish of a changed application sheet restyles every widget again for each
    ancestor it has: a page's widgets, 8-15 deep, made a switch take 0.2-1 s of the main
    thread. The switch goes through one pass (no sheet, then the new one)."""
    app = create_app()
    apply_theme(app, "light")
    root = holder = QWidget()
    qtbot.addWidget(root)
    for _ in range(30):
        inner = QWidget(holder)
        QVBoxLayout(holder).addWidget(inner)
        holder = inner
    leaf = _Counting(holder)
    QVBoxLayout(holder).addWidget(leaf)
    root.show()
    qtbot.waitExposed(root)
    try:
        apply_theme(app, "dark")
        assert leaf.restyled <= 2  # cleared, then the dark sheet (it was 32: once per ancestor)
        assert leaf.palette().color(QPalette.ColorRole.Window).lightness() < 110
    finally:
        apply_theme(app, "light")


def _plan_look(ctl) -> tuple[str, str, bool]:  # type: ignore[no-untyped-def]
    """The Plan chart's background and axis text, and whether the page around it is dark."""
    page = ctl.page_widgets["plan"]
    chart = page.chart
    return (
        chart.view.backgroundBrush().color().name(),
        chart.plot.getAxis("left").textPen().color().name(),
        page.palette().color(QPalette.ColorRole.Window).lightness() < 110,
    )


def _look(theme: ChartTheme) -> tuple[str, str, bool]:
    return theme.background, theme.foreground, theme.dark


def test_the_plan_chart_hidden_during_a_switch_has_the_new_colours_when_opened(
    qtbot: QtBot, make_window: MakeWindow, local_engine: Engine
) -> None:
    app = create_app()
    apply_theme(app, "light")
    ctl = make_window(local_engine)
    try:
        ctl.show_page("plan")
        assert _plan_look(ctl) == _look(LIGHT)
        ctl.show_page("chat")
        apply_theme(app, "dark")
        assert isinstance(app, QApplication) and app.styleSheet() == style_sheet("dark")
        ctl.show_page("plan")
        assert _plan_look(ctl) == _look(DARK)
        apply_theme(app, "light")  # shown: at once
        assert _plan_look(ctl) == _look(LIGHT)
        chat = ctl.page_widgets["chat"]
        ctl.show_page("chat")
        apply_theme(app, "dark")  # the visible page restyled by the one pass too
        assert chat.palette().color(QPalette.ColorRole.Window).lightness() < 110
    finally:
        apply_theme(app, "light")
