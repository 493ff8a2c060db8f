"""The Monitor at the default window size (issue 28, item 5): with the operations panel open,
no chart is squeezed under 120 px (they scroll instead of overlapping their axis labels)."""

from __future__ import annotations

import pytest

pytest.importorskip("PySide6")

from pytestqt.qtbot import QtBot

from tests.gui.conftest import MakeWindow
from xyclaw.engine import Engine
from xyclaw.engine.lifecycle import UpRequest

pytestmark = pytest.mark.slow


def _heights(page) -> dict[str, int]:  # type: ignore[no-untyped-def]
    found = {k: round(p.geometry().height()) for k, p in page.curves.plots.items()}
    found["heatmap"] = page.heatmap.height()
    return found


def test_no_chart_is_squeezed_with_the_operations_panel_open(
    qtbot: QtBot, make_window: MakeWindow, sim_engine: Engine
) -> None:
    quote = sim_engine.quote_request(UpRequest(provider="sim", gpu="A800", gpu_count=16))
    sim_engine.up(quote).result(120)
    ctl = make_window(sim_engine)  # the default size, 1280 x 820
    ctl.show_page("monitor")
    page = ctl.page_widgets["monitor"]
    qtbot.waitUntil(lambda: page.stack.currentIndex() == 1, timeout=10000)
    qtbot.wait(200)
    assert min(_heights(page).values()) >= 120, _heights(page)

    ctl.show_operations()
    qtbot.waitUntil(ctl.operations_dock.isVisible, timeout=3000)
    qtbot.wait(300)
    heights = _heights(page)
    assert min(heights.values()) >= 120, heights
    bar = page.charts_scroll.verticalScrollBar()
    assert bar.maximum() > 0  # what does not fit scrolls
