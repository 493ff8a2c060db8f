"""The desktop builds the Monitor and Jobs pages hidden at start-up (issue 28: the Monitor's
first open took 240-900 ms, the Jobs page's 69-228 ms against a 150 ms target); a theme switch
while the Monitor is hidden reaches its charts when it is shown, and the Jobs page reads its
list when first shown."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from tests.gui.conftest import MakeWindow
from xyclaw.engine import Engine
from xyclaw.gui.app import apply_theme, create_app
from xyclaw.gui.charts.theme import DARK, LIGHT
from xyclaw.gui.main_window import PREBUILT_PAGES


def test_monitor_built_hidden_takes_the_theme_switched_meanwhile(
    qtbot: QtBot, make_window: MakeWindow, local_engine: Engine
) -> None:
    app = create_app()
    apply_theme(app, "light")
    ctl = make_window(local_engine)
    done: list[bool] = []
    ctl.when_started(lambda: ctl.build_pages_in_turns(PREBUILT_PAGES, lambda: done.append(True)))
    qtbot.waitUntil(lambda: done == [True], timeout=10000)
    monitor = ctl.page_widgets.built("monitor")
    assert monitor is not None and not monitor.isVisible()
    jobs = ctl.page_widgets.built("jobs")
    assert jobs is not None and not jobs.isVisible()
    assert ctl.page_widgets.built("history") is None  # only the slow pages are built ahead
    assert not jobs._loaded_once  # built hidden, it has not read the list yet
    page = monitor
    from xyclaw.gui import monitor_page

    assert not monitor_page._made_ahead  # the charts made a turn ahead were taken by it
    assert page.heatmap.window() is ctl.window and page.curves.window() is ctl.window
    from xyclaw.gui.charts.curves import METRICS

    assert list(page.curves.plots) == [m.key for m in METRICS]  # made a plot per turn
    try:
        apply_theme(app, "dark")
        ctl.show_page("monitor")
        qtbot.waitUntil(page.isVisible, timeout=3000)
        assert page.curves.theme == DARK and page.heatmap.theme == DARK
        apply_theme(app, "light")  # shown: at once
        assert page.curves.theme == LIGHT and page.heatmap.theme == LIGHT
        ctl.show_page("jobs")
        qtbot.waitUntil(lambda: jobs.isVisible() and jobs._loaded_once, timeout=5000)
    finally:
        apply_theme(app, "light")
