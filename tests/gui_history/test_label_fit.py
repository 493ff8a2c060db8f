"""At the default window size (1280 x 820), in English and Chinese, light and dark, with the
tour banner and the operations panel open and closed: every visible label and button on the
History page (list, replay, comparison) and the Settings tabs fits its width, and every
chart is at least 120 px tall (issue 28, "How well"). The live pages are walked in
tests/gui/test_label_fit_live.py."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

pytest.importorskip("PySide6")

from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from tests.gui_history.conftest import FailingProviders
from tests.gui_history.history_run import HistoryFacts
from tests.support.fit import misfits, squeezed_plots
from xyclaw.engine import Engine
from xyclaw.gui import i18n
from xyclaw.gui.app import apply_theme
from xyclaw.gui.main_window import MainWindowController

pytestmark = pytest.mark.gui

COMBOS = [
    (language, theme, panels)
    for language in ("en", "zh_CN")
    for theme in ("light", "dark")
    for panels in (False, True)
]


@pytest.fixture
def window(
    offline_engine: Engine, offline: FailingProviders, qtbot: QtBot
) -> Iterator[MainWindowController]:
    ctl = MainWindowController(
        offline_engine, None, tray_available=False, on_quit=lambda: None,
        status_refresh_ms=3_600_000,
    )  # fmt: skip
    ctl.window.resize(1280, 820)  # the default size (ui/main_window.ui)
    ctl.window.show()
    qtbot.waitExposed(ctl.window)
    yield ctl
    ctl.quit_now()
    i18n.install("en")
    apply_theme(QApplication.instance(), "light")  # type: ignore[arg-type]
    qtbot.wait(20)


def set_panels(ctl: MainWindowController, qtbot: QtBot, shown: bool) -> None:
    """The tour banner (at its tallest step) and the operations panel, both open or closed."""
    tour = ctl.tour
    if tour is not None:
        if shown:
            from xyclaw.gui.tour import STEPS

            index = max(range(len(STEPS)), key=lambda i: len(STEPS[i].body))
            tour.panel.show_step(index, STEPS[index], "…", i18n.translate("Tour", "Next"))
            tour.dock.show()
        else:
            tour.dock.hide()
    ctl.operations_dock.setVisible(shown)
    qtbot.wait(150)


def look(ctl: MainWindowController, where: str) -> list[str]:
    return [f"{where}: {m}" for m in misfits(ctl.window) + squeezed_plots(ctl.window)]


def test_history_and_settings_fit_at_the_default_size(
    window: MainWindowController, history_facts: HistoryFacts, qtbot: QtBot
) -> None:
    ctl = window
    app = QApplication.instance()
    found: list[str] = []
    ctl.show_page("settings")
    settings = ctl.page_widgets["settings"]
    ctl.show_page("history")
    page = ctl.page_widgets["history"]
    for language, theme, panels in COMBOS:
        i18n.install(language)
        apply_theme(app, theme)  # type: ignore[arg-type]
        set_panels(ctl, qtbot, panels)
        tag = f"{language}/{theme}/{'panels' if panels else 'no panels'}"
        ctl.show_page("history")
        qtbot.waitUntil(lambda: len(page.jobs) == 2 and not page.busy, timeout=10_000)
        qtbot.wait(100)
        found += look(ctl, f"{tag} history list")
        page.select("job", [history_facts.job_a])
        page.replay_selected()
        qtbot.waitUntil(lambda: page.replay is not None and not page.busy, timeout=10_000)
        for tab in range(page.replay_view.tabs.count()):
            page.replay_view.tabs.setCurrentIndex(tab)
            qtbot.wait(100)
            found += look(ctl, f"{tag} replay tab {tab}")
        page.replay_view.tabs.setCurrentIndex(0)
        page.select("job", [history_facts.job_a, history_facts.job_b])
        page.compare_selected()
        qtbot.waitUntil(lambda: page.comparison is not None and not page.busy, timeout=10_000)
        qtbot.wait(100)
        found += look(ctl, f"{tag} compare")
        ctl.show_page("settings")
        qtbot.waitUntil(lambda: settings._loaded and not settings.busy, timeout=10_000)
        for tab in range(settings.tabs.count()):
            settings.tabs.setCurrentIndex(tab)
            qtbot.wait(100)
            found += look(ctl, f"{tag} settings tab {tab}")
    assert not found, "\n".join(found)
