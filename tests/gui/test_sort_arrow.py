"""History's sort arrow says what the rows do (issue 28, item 8): the lists are sorted
newest first (descending), and the header's arrow points down, in both themes; sorted the
other way it points up. The style's own arrow pointed up for a descending sort."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

pytest.importorskip("PySide6")

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QHeaderView
from pytestqt.qtbot import QtBot

from tests.gui.conftest import MakeWindow
from xyclaw.engine import Engine
from xyclaw.gui.app import apply_theme


@pytest.fixture
def themed() -> Iterator[None]:
    yield
    apply_theme(QApplication.instance(), "light")  # type: ignore[arg-type]


def arrow_points(header: QHeaderView) -> str:
    """ "down" or "up": the arrow's rows of ink (at the section's right end), widest at its
    top or at its bottom."""
    section = header.sortIndicatorSection()
    left, width = header.sectionViewportPosition(section), header.sectionSize(section)
    image = header.grab().toImage()
    light = np.array(
        [
            [image.pixelColor(x, y).lightness() for x in range(left + width - 18, left + width - 2)]
            for y in range(2, image.height() - 2)
        ]
    )
    ink = np.abs(light - np.median(light)) > 40
    rows = [int(r.sum()) for r in ink if r.sum() > 1]
    assert len(rows) >= 3, rows  # an arrow is drawn
    return "down" if rows[0] > rows[-1] else "up"


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_the_history_sort_arrow_points_the_way_the_rows_go(
    themed: None, qtbot: QtBot, make_window: MakeWindow, local_engine: Engine, theme: str
) -> None:
    apply_theme(QApplication.instance(), theme)  # type: ignore[arg-type]
    ctl = make_window(local_engine)
    ctl.show_page("history")
    table = ctl.page_widgets["history"].job_table
    header = table.horizontalHeader()
    qtbot.wait(50)
    assert header.sortIndicatorOrder() == Qt.SortOrder.DescendingOrder  # newest first
    assert arrow_points(header) == "down"
    table.sortByColumn(0, Qt.SortOrder.AscendingOrder)
    qtbot.wait(50)
    assert arrow_points(header) == "up"
