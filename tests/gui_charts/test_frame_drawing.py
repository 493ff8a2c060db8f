"""What a frame draws on the screen, drawn the fast way (only the changed strips repainted,
a curve's newest points drawn on their own, time axes moved instead of laid out again,
the heatmap's new columns alone filled and pooled), is what a fresh drawing of the same
page shows, pixel for pixel; and the shortcuts give the numbers the plain ways give."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6.QtGui import QImage, QPainter, QPicture
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from tests.gui_charts.conftest import NOW, Clock, records
from xyclaw.gui.charts.axes import SlidingDateAxis
from xyclaw.gui.charts.curves import METRICS, gpu_metrics
from xyclaw.gui.charts.heatmap import pool_rows
from xyclaw.gui.charts.source import BuffersLiveSource, NodeSeries
from xyclaw.gui.charts.synthetic import SyntheticCluster
from xyclaw.gui.monitor_page import MonitorPage
from xyclaw.store.samples import MISSING
from xyclaw.telemetry.live import LiveBuffers

pytestmark = pytest.mark.gui


def pixels(image: QImage) -> np.ndarray:
    image = image.convertToFormat(QImage.Format.Format_RGB32)
    rows = np.frombuffer(image.constBits(), np.uint8).reshape(image.height(), -1, 4)
    return rows[:, : image.width()].copy()


def on_screen(page: MonitorPage) -> np.ndarray:
    """What the window shows now: the backing store that the frames painted into."""
    handle = page.windowHandle()
    assert handle is not None
    return pixels(handle.screen().grabWindow(page.winId()).toImage())


def test_frames_drawn_strip_by_strip_look_like_a_fresh_drawing(qtbot: QtBot) -> None:
    live = LiveBuffers(900)
    sim = SyntheticCluster(live, nodes=40, gpus=8)  # 320 rows: pooled, two to a line
    clock = Clock(NOW)
    sim.fill(clock.t, 400)  # node 2 went silent for a minute in there
    page = MonitorPage(BuffersLiveSource(live, [sim.choice]), clock=clock)
    qtbot.addWidget(page)
    page.resize(1400, 900)
    page.show()
    qtbot.waitExposed(page)
    page.timer.stop()  # the test drives the frames
    # 16 GPUs on 16 nodes: node 2's curves have a gap (it went silent), the others none
    page.set_selection([(sim.node_id(i), i % 8) for i in range(16)])
    app = QApplication.instance()
    assert app is not None
    page.tick()
    app.processEvents()
    axis = page.heatmap.time_axis
    layouts = axis.layouts
    tail_paths = 0
    for second in range(1, 15):  # past a move of the curves' buckets and an axis tick
        clock.t += 1
        sim.step(clock.t)
        page.tick()
        app.processEvents()
        curves = [c for cs in page.curves.curves.values() for c in cs]
        tail_paths += sum(c._tail_path is not None for c in curves)
        if second % 5 == 0:
            shown = on_screen(page)
            fresh = pixels(page.grab().toImage())  # everything painted again from scratch
            differ = (shown != fresh).any(axis=2)
            assert not differ.any(), (second, np.argwhere(differ)[:5])
            # the rows pooled column by column are the whole image pooled
            hm = page.heatmap
            assert np.array_equal(hm.item.image, pool_rows(hm.image, hm._pool)), second
            # and drawn in the colours of their values (looked up column by column too)
            assert hm.item.colored is not None
            assert np.array_equal(hm.item.colored, hm._lut32[hm.item.image]), second
    assert page.heatmap._pool > 1  # the pooled image was drawn too
    assert tail_paths > 0  # the newest points were drawn on their own in some frames
    assert axis.layouts - layouts < 14  # the time axis mostly moved its layout


def test_a_sliding_time_axis_shows_what_a_fresh_layout_shows(qtbot: QtBot) -> None:
    widget = pg.GraphicsLayoutWidget()
    qtbot.addWidget(widget)
    axis = SlidingDateAxis("bottom")
    plot = widget.addPlot(axisItems={"bottom": axis})
    plot.showGrid(x=True, y=False, alpha=0.3)
    widget.resize(900, 200)
    widget.show()
    qtbot.waitExposed(widget)
    moved = 0
    for step in range(200):  # a 15-minute window sliding a second at a time
        start = NOW - 900 + step
        plot.vb.setXRange(start, start + 900, padding=0)
        plot.vb.updateMatrix()
        picture = QPicture()
        painter = QPainter(picture)
        before = axis.layouts
        got = axis.generateDrawSpecs(painter)
        moved += axis.layouts == before
        want = pg.DateAxisItem.generateDrawSpecs(axis, painter)  # laid out from scratch
        painter.end()
        assert got is not None and want is not None
        got_ticks = [(p1.x(), p1.y(), p2.y()) for _, p1, p2 in got[1]]
        want_ticks = [(p1.x(), p1.y(), p2.y()) for _, p1, p2 in want[1]]
        assert np.allclose(got_ticks, want_ticks, atol=1e-6), step
        assert [t for _, _, t in got[2]] == [t for _, _, t in want[2]], step
        got_at = [(r.x(), r.y(), r.width()) for r, _, _ in got[2]]
        want_at = [(r.x(), r.y(), r.width()) for r, _, _ in want[2]]
        assert np.allclose(got_at, want_at, atol=1e-6), step
    assert moved > 150  # most slides moved the last layout


def test_the_metrics_read_in_one_pass_are_the_metric_readers_numbers() -> None:
    rows = []
    for t in range(6):
        rec = records([10 * t, 50, 100, 7], mem_total_mib=[80_000, 80_000, 0, 80_000])
        rec["mem_used_mib"][1] = MISSING["mem_used_mib"]
        rec["power_dw"][3] = MISSING["power_dw"]
        rec["temp_c"][0] = MISSING["temp_c"]
        rec["util"][2] = MISSING["util"]
        rows.append(rec)
    recs = np.stack(rows)
    node = NodeSeries(1, "n", np.arange(6, dtype=np.int64), recs, np.zeros(0, np.int64),
                      np.zeros((0, 1, 2), np.float32), 6)  # fmt: skip
    cols = [3, 0, 2, 1]
    want = np.hstack([m.read(node, cols) for m in METRICS if m.read is not None])
    got = gpu_metrics(recs, cols)
    assert got.shape == want.shape == (6, 16)
    assert np.array_equal(got, want, equal_nan=True)
    assert np.isnan(got[:, 4 + 3]).all() and np.isnan(got[:, 4 + 2]).all()  # no memory read
