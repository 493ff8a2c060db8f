"""Issue 28 (a theme switch in <= 150 ms): a page hidden during a theme switch restyles its
charts when it is opened, not while hidden. What a user would see were that wrong: the Jobs
page's charts, opened after a switch to dark, still white on a dark page (and the reverse)."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtGui import QPalette
from pytestqt.qtbot import QtBot

from tests.gui.conftest import MakeWindow, make_window  # noqa: F401  (a fixture used here)
from tests.gui_jobs.conftest import wait
from tests.jobs_runtime.conftest import MakeCluster
from tests.jobs_runtime.helpers import train_spec
from xyclaw.engine import Engine
from xyclaw.gui.app import apply_theme, create_app
from xyclaw.gui.charts.theme import DARK, LIGHT, ChartTheme
from xyclaw.gui.jobs_page import JobsPage

pytestmark = pytest.mark.gui


def _charts_look(page: JobsPage) -> tuple[str, str, bool]:
    """The charts' background, their axes' text, and whether the page around them is dark."""
    assert page.charts is not None
    axis = page.loss_plot.getAxis("left")
    return (
        page.charts.backgroundBrush().color().name(),
        axis.textPen().color().name(),
        page.palette().color(QPalette.ColorRole.Window).lightness() < 110,
    )


def _look(theme: ChartTheme) -> tuple[str, str, bool]:
    return theme.background, theme.foreground, theme.dark


def test_the_jobs_charts_hidden_during_a_theme_switch_have_its_colours_when_opened(
    engine: Engine,
    make_cluster: MakeCluster,
    make_window: MakeWindow,  # noqa: F811
    qtbot: QtBot,
    tmp_path: Path,
) -> None:
    app = create_app()
    apply_theme(app, "light")
    cluster = make_cluster(nodes=1, gpus_per_node=1, time_scale=0.2)
    spec = train_spec(tmp_path / "spec", "themed", steps=20, save_every=10, model="llama-0.5b")
    job = engine.launch(spec, cluster=cluster.name).result(60)
    wait(qtbot, lambda: engine.job(str(job.id)).state.finished, 60_000)
    ctl = make_window(engine)
    try:
        ctl.show_page("jobs")
        page = ctl.page_widgets["jobs"]
        assert isinstance(page, JobsPage)
        wait(qtbot, lambda: page.row_of(job.id) is not None)
        page.select_job(job.id)
        wait(qtbot, lambda: min(page.curve_points()) >= 2)
        assert _charts_look(page) == _look(LIGHT)

        ctl.show_page("chat")  # the Jobs page hidden, then the switch
        assert not page.isVisible()
        apply_theme(app, "dark")
        ctl.show_page("jobs")
        assert page.isVisible()
        assert _charts_look(page) == _look(DARK)

        ctl.show_page("chat")  # and back, hidden again
        apply_theme(app, "light")
        ctl.show_page("jobs")
        assert _charts_look(page) == _look(LIGHT)

        apply_theme(app, "dark")  # while it is shown: at once
        assert _charts_look(page) == _look(DARK)
    finally:
        apply_theme(app, "light")
