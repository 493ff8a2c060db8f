"""A new cluster's first minutes fill the Monitor's charts (issue 28, item 5): while the
live window holds less than its 15 minutes, the heatmap's and the curves' time axis spans
just what the cluster has (its first sample within the first third), not 15 minutes with
the data a sliver at the right edge; once the window is full it is the whole window again."""

from __future__ import annotations

from collections.abc import Callable

import pytest

pytest.importorskip("PySide6")

from tests.gui_charts.conftest import NOW, Clock, Fleet
from xyclaw.gui.monitor_page import MonitorPage

pytestmark = pytest.mark.gui

MakePage = Callable[..., MonitorPage]


def _x_ranges(page: MonitorPage) -> list[tuple[float, float]]:
    ranges = [page.heatmap.plot.vb.viewRange()[0]]
    ranges += [plot.vb.viewRange()[0] for plot in page.curves.plots.values()]
    return [(float(a), float(b)) for a, b in ranges]


def test_two_minutes_of_a_new_cluster_fill_the_charts(fleet: Fleet, make_page: MakePage) -> None:
    fleet.fill(120, lambda n, g, t: 60)  # the cluster's first two minutes
    page = make_page(fleet)
    page.select_node(fleet.node_id(0))  # its GPUs charted below
    page.tick()
    first = NOW - 119
    for start, end in _x_ranges(page):
        assert start <= first and end >= NOW  # all of its data is shown
        assert end - first >= (end - start) * 2 / 3, (start, end)  # and fills the chart


def test_a_full_window_is_shown_whole(make_page: MakePage) -> None:
    fleet = Fleet(capacity=300)
    fleet.fill(400, lambda n, g, t: 60)  # more than the window holds
    clock = Clock()
    page = make_page(fleet, clock)
    page.select_node(fleet.node_id(0))
    page.tick()
    for start, end in _x_ranges(page):
        assert end - start == pytest.approx(300, abs=3), (start, end)
