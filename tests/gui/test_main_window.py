from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("PySide6")

from pytestqt.qtbot import QtBot

from xyclaw.config import load_config
from xyclaw.engine.compose import build_engine
from xyclaw.gui.main_window import MainWindowController
from xyclaw.gui.pages import PAGES
from xyclaw.paths import AppPaths


@pytest.fixture
def controller(qtbot: QtBot, xyclaw_home: Path) -> MainWindowController:
    paths = AppPaths.from_environment()
    engine = build_engine(paths, load_config(paths.config_file))
    ctl = MainWindowController(engine)
    qtbot.addWidget(ctl.window)
    ctl.window.show()
    yield ctl
    engine.close()


def test_window_shows_every_section_and_switches_pages(controller: MainWindowController) -> None:
    nav = controller.navigation
    assert [nav.item(i).text() for i in range(nav.count())] == [p.title for p in PAGES]
    controller.show_page("monitor")
    assert controller.pages.currentWidget().objectName() == "page_monitor"
    nav.setCurrentRow(1)
    assert controller.pages.currentWidget().objectName() == "page_plan"


def test_status_bar_says_where_the_data_is(
    controller: MainWindowController, xyclaw_home: Path
) -> None:
    message = controller.window.statusBar().currentMessage()
    assert str(xyclaw_home) in message and "schema v" in message
