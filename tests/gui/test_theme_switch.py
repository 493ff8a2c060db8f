"""Issue 28 (a theme switch in <= 150 ms): the switch restyles the window in one pass, and a
page's chart hidden during it takes the new colours when the page is opened. What a user
would see were that wrong: the Plan page's chart white on a dark page (it stayed in the
theme it was made in)."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from tests.gui.conftest import MakeWindow
from xyclaw.engine import Engine
from xyclaw.gui.app import apply_theme, create_app
from xyclaw.gui.charts.theme import DARK, LIGHT, ChartTheme
from xyclaw.gui.themes import style_sheet

pytestmark = pytest.mark.gui


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
