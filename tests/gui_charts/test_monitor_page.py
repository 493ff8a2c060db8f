"""The Monitor page on real ring buffers: what a user sees in the heatmap and curves, what a
click does, gaps, the frame timer, the job box and the alert actions."""

from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np
import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtWidgets import QPushButton, QStackedWidget, QToolTip
from pytestqt.qtbot import QtBot

from tests.gui_charts.conftest import MISSING_POWER, NOW, Clock, Fleet, records
from xyclaw.gui.charts.heatmap import GpuHeatmap
from xyclaw.gui.charts.source import AlertView, ClusterChoice, JobStatus
from xyclaw.gui.monitor_page import MonitorPage

pytestmark = pytest.mark.gui

MakePage = Callable[..., MonitorPage]


def click_heatmap(qtbot: QtBot, hm: GpuHeatmap, x_s: float, y: float) -> None:
    """Click the heatmap where time ``x_s`` and row coordinate ``y`` are drawn."""
    scene = hm.plot.vb.mapViewToScene(QPointF(x_s, y))
    pos = hm.view.mapFromScene(scene)
    qtbot.mouseClick(hm.view.viewport(), Qt.MouseButton.LeftButton, pos=pos)


def click_node_label(qtbot: QtBot, hm: GpuHeatmap, y: float) -> None:
    scene_y = hm.plot.vb.mapViewToScene(QPointF(0, y)).y()
    axis = hm.axis.sceneBoundingRect()
    pos = hm.view.mapFromScene(QPointF(axis.center().x(), scene_y))
    qtbot.mouseClick(hm.view.viewport(), Qt.MouseButton.LeftButton, pos=pos)


def test_heatmap_shows_the_busy_gpu_as_a_high_row(fleet: Fleet, make_page: MakePage) -> None:
    fleet.fill(120, lambda n, g, t: 93 if (n, g) == (1, 3) else 4)
    page = make_page(fleet)
    hm = page.heatmap
    assert hm.image.shape == (16, 900)  # a row per GPU, a column per second of the window
    row = hm.rowmap.row_of(11, 3)
    assert row == 8 + 3  # grouped by node, in the cluster's order
    recent = hm.image[:, -100:]
    assert (recent[row] == 93).all()
    assert (np.delete(recent, row, axis=0) == 4).all()
    assert (hm.image[:, :-125] == 255).all()  # before the first sample: no data, not 0%
    assert hm.describe(row, NOW - 10).startswith("c1-node1 GPU 3: 93% at ")
    assert hm.describe(row, NOW - 300).startswith("c1-node1 GPU 3: no data at ")
    # the image item draws the same array through a fixed lookup table, levels not guessed
    drawn = hm.item.image
    assert drawn.dtype == np.uint8 and drawn.flags.c_contiguous
    assert hm.item.levels is not None and tuple(hm.item.levels) == (0, 255)


def test_a_new_second_moves_the_heatmap_and_adds_the_sample(
    fleet: Fleet, make_page: MakePage
) -> None:
    fleet.fill(60, lambda n, g, t: 50)
    clock = Clock()
    page = make_page(fleet, clock)
    row = page.heatmap.rowmap.row_of(10, 0)
    clock.t += 1
    fleet.add(0, clock.t, [99] + [50] * 7)
    fleet.add(1, clock.t, [50] * 8)
    page.tick()
    assert page.heatmap.image[row, -1] == 99
    assert page.heatmap.image[row, -2] == 50
    assert page.heatmap.grid is not None and page.heatmap.grid.end_s == clock.t + 1


def test_hovering_a_cell_says_which_gpu_how_busy_and_when(
    fleet: Fleet, make_page: MakePage, qtbot: QtBot
) -> None:
    fleet.fill(120, lambda n, g, t: 87 if (n, g) == (1, 5) else 10)
    page = make_page(fleet)
    hm = page.heatmap
    scene = hm.plot.vb.mapViewToScene(QPointF(NOW - 30, 8 + 5 + 0.5))
    moved: list[QPointF] = []
    hm.view.scene().sigMouseMoved.connect(moved.append)
    target = hm.view.mapFromScene(scene)
    qtbot.mouseMove(hm.view.viewport(), target - QPoint(5, 0))
    qtbot.mouseMove(hm.view.viewport(), target)
    qtbot.waitUntil(lambda: bool(moved), timeout=2000)
    qtbot.waitUntil(lambda: QToolTip.isVisible(), timeout=2000)
    assert re.fullmatch(r"c1-node1 GPU 5: 87% at \d\d:\d\d:\d\d", QToolTip.text())


def test_legend_chips_show_whole_with_their_close_mark_in_a_narrow_window(
    fleet: Fleet, make_page: MakePage, qtbot: QtBot
) -> None:
    fleet.fill(60, lambda n, g, t: 50)
    page = make_page(fleet)

    def chips() -> list[QPushButton]:
        shown = [b for b in page.legend.findChildren(QPushButton) if b.isVisible()]
        assert len(shown) == 8 and all(b.text().endswith("×") for b in shown)
        return shown

    def whole() -> bool:  # each chip at its full width, inside the legend
        return all(
            c.width() >= c.sizeHint().width() and c.geometry().right() < page.legend.width()
            for c in chips()
        )

    def rows() -> int:
        return len({c.y() for c in chips()})

    qtbot.waitUntil(lambda: whole() and rows() == 2)  # four a row where they fit
    page.resize(760, 860)  # narrower: fewer chips a row, none cut off
    qtbot.waitUntil(lambda: page.legend.width() < 400 and whole() and rows() > 2)
    assert page.clear_button.isVisible()
    page.resize(1300, 860)
    qtbot.waitUntil(lambda: whole() and rows() == 2)


def test_clicking_a_row_charts_that_gpu_and_clicking_a_node_charts_its_gpus(
    fleet: Fleet, make_page: MakePage, qtbot: QtBot
) -> None:
    fleet.fill(300, lambda n, g, t: 93 if (n, g) == (1, 3) else 30)
    page = make_page(fleet)
    assert page.selection == [(10, g) for g in range(8)]  # the first node, to start with
    click_heatmap(qtbot, page.heatmap, NOW - 100, 8 + 3 + 0.5)
    assert (11, 3) in page.selection and len(page.selection) == 9
    x, y = page.curves.curve_data("util", (11, 3)) or (None, None)
    assert y is not None and np.nanmin(y) == 93 and np.nanmax(y) == 93
    assert x is not None and x.min() >= NOW - 900 and x.max() <= NOW + 6
    temp = page.curves.curve_data("temperature", (11, 3))
    assert temp is not None and np.nanmax(temp[1]) == 40 + 93 // 3
    chips = [b.text() for b in page.legend.findChildren(QPushButton)]
    assert any("node1 · GPU 3" in t for t in chips)

    click_heatmap(qtbot, page.heatmap, NOW - 100, 8 + 3 + 0.5)  # again: no longer charted
    assert (11, 3) not in page.selection
    assert page.curves.curve_data("util", (11, 3)) is None

    click_node_label(qtbot, page.heatmap, 8 + 4)
    assert page.selection == [(11, g) for g in range(8)]
    assert page.curves.curve_data("nic", 11) is None  # no NIC readings: no NIC curve


def test_at_most_sixteen_gpus_are_charted(fleet: Fleet, make_page: MakePage) -> None:
    fleet.fill(30, lambda n, g, t: 10 * g)
    page = make_page(fleet)
    for g in range(8):
        page.toggle_gpu(11, g)
    page.toggle_gpu(10, 0)  # charted already: this one goes
    page.toggle_gpu(10, 0)  # back, as the newest
    assert len(page.selection) == 16
    visible = [c for c in page.curves.curves["util"] if c.isVisible()]
    assert len(visible) == 16
    colors = {page.curves.color_of(k) for k in page.selection}
    assert len(colors) == 16


def test_missing_metric_and_silent_node_show_gaps_not_zeros(
    fleet: Fleet, make_page: MakePage
) -> None:
    clock = Clock()
    for k in range(600):
        t = NOW - 599 + k
        silent = NOW - 400 <= t < NOW - 300  # node 0 said nothing for 100 s
        power = [MISSING_POWER if t < NOW - 200 else 2000] + [2500] * 7  # GPU 0: [N/A] at first
        if not silent:
            fleet.add(0, t, [60] * 8, power_dw=power)
            fleet.add_nic(0, t, [1e9, 1e9], [5e8, float("nan")])
        fleet.add(1, t, [60] * 8)
    page = make_page(fleet, clock)
    page.set_selection([(10, 0), (10, 1)])

    x, util = page.curves.curve_data("util", (10, 0)) or (None, None)
    assert x is not None and util is not None
    in_gap = (x > NOW - 394) & (x < NOW - 306)
    assert np.isnan(util[in_gap]).all()
    before = (x > NOW - 590) & (x < NOW - 410)
    assert (util[before] == 60).all() and not (util == 0).any()

    _, power = page.curves.curve_data("power", (10, 0)) or (None, None)
    assert power is not None
    assert np.isnan(power[x < NOW - 205]).all()  # not available: no line at all there
    assert (power[(x > NOW - 195) & (x < NOW - 5)] == 200).all()
    _, other = page.curves.curve_data("power", (10, 1)) or (None, None)
    assert other is not None and np.nanmin(other) == 250

    _, nic = page.curves.curve_data("nic", 10) or (None, None)
    assert nic is not None
    assert np.isnan(nic[in_gap]).all()
    assert np.allclose(nic[before], (2e9 + 5e8) * 8e-9)  # NaN port counted out, not as 0

    hm = page.heatmap
    cols = [hm.grid.column_at(t) for t in (NOW - 390, NOW - 350, NOW - 310)]  # type: ignore[union-attr]
    assert all((hm.image[0:8, c] == 255).all() for c in cols if c is not None)
    assert (hm.image[8:16, cols[1]] == 60).all()


def test_a_gpu_without_any_power_reading_has_no_power_curve(
    fleet: Fleet, make_page: MakePage
) -> None:
    fleet.fill(100, lambda n, g, t: 50)
    for k in range(100):
        fleet.add(0, NOW + 1 + k, [50] * 8, power_dw=[MISSING_POWER] + [3000] * 7)
    page = make_page(fleet, Clock(NOW + 100))
    page.set_selection([(10, 0)])
    assert page.curves.curve_data("util", (10, 0)) is not None
    power = page.curves.curve_data("power", (10, 0))
    assert power is None or np.isnan(power[1][power[0] > NOW + 5]).all()


def test_the_page_pulls_only_while_it_is_shown(
    fleet: Fleet, make_page: MakePage, qtbot: QtBot
) -> None:
    fleet.fill(10, lambda n, g, t: 50)
    page = make_page(fleet, fps=20)
    qtbot.waitUntil(lambda: fleet.source.snapshots >= 4, timeout=3000)
    page.hide()
    pulled = fleet.source.snapshots
    qtbot.wait(400)
    assert fleet.source.snapshots == pulled
    assert not page.timer.isActive()

    stack = QStackedWidget()  # as in the main window: a page that is not the current one
    qtbot.addWidget(stack)
    other = QPushButton("another page")
    stack.addWidget(other)
    stack.addWidget(page)
    stack.show()
    qtbot.wait(400)
    assert fleet.source.snapshots == pulled
    stack.setCurrentWidget(page)
    qtbot.waitUntil(lambda: fleet.source.snapshots >= pulled + 3, timeout=3000)
    stack.setCurrentWidget(other)
    pulled = fleet.source.snapshots
    qtbot.wait(400)
    assert fleet.source.snapshots == pulled


def test_a_frame_without_new_samples_redraws_nothing(fleet: Fleet, make_page: MakePage) -> None:
    fleet.fill(60, lambda n, g, t: 50)
    page = make_page(fleet)
    before = page.heatmap.image.copy()
    assert not page.heatmap.set_frame(fleet.source.snapshot(1), NOW)  # type: ignore[arg-type]
    assert not page.curves.set_frame(fleet.source.snapshot(1), NOW)  # type: ignore[arg-type]
    assert (page.heatmap.image == before).all()


def alert(event_id: int | None, rule: str, gpu: int | None = 5, node: int = 11) -> AlertView:
    return AlertView(
        event_id,
        rule,
        "critical",
        f"c1-node1: GPU {gpu} reports an uncorrectable ECC error",
        "drain the node and reset the GPU before reuse",
        1,
        "c1-node1",
        node,
        gpu,
        NOW - 30,
    )


def test_alert_actions_are_buttons_that_ask_the_window_owner(
    fleet: Fleet, make_page: MakePage, qtbot: QtBot
) -> None:
    fleet.fill(60, lambda n, g, t: 50)
    fleet.alerts = [alert(42, "gpu.ecc_uncorrectable"), alert(None, "gpu.idle_during_job", None)]
    page = make_page(fleet)
    cards = page.alerts.cards
    assert [c.alert.rule for c in cards] == ["gpu.ecc_uncorrectable", "gpu.idle_during_job"]
    assert page.alerts.title.text() == "Alerts (2)"
    assert "drain the node" in " ".join(
        w.text() for w in cards[0].findChildren(type(page.alerts.title))
    )
    reset = cards[0].buttons["reset_gpu"]
    assert "nvidia-smi -r -i 5" in reset.toolTip()
    with qtbot.waitSignal(page.action_requested, timeout=1000) as blocker:
        qtbot.mouseClick(reset, Qt.MouseButton.LeftButton)
    assert blocker.args == [42, "reset_gpu"]
    with qtbot.waitSignal(page.action_requested, timeout=1000) as blocker:
        qtbot.mouseClick(cards[0].buttons["stop_job"], Qt.MouseButton.LeftButton)
    assert blocker.args == [42, "stop_job"]
    # not stored yet: nothing to refer to, so its actions wait
    assert not cards[1].buttons["release_cluster"].isEnabled()

    qtbot.mouseClick(cards[0].buttons["show"], Qt.MouseButton.LeftButton)
    assert (11, 5) in page.selection


def test_alerts_list_follows_the_source_and_says_when_there_is_none(
    fleet: Fleet, make_page: MakePage
) -> None:
    fleet.fill(30, lambda n, g, t: 50)
    clock = Clock()
    page = make_page(fleet, clock)
    assert page.alerts.empty.isVisible() and not page.alerts.cards
    fleet.alerts = [alert(7, "gpu.xid")]
    clock.t += 1.5
    page.tick()
    assert [c.alert.id for c in page.alerts.cards] == [7]
    assert not page.alerts.empty.isVisible()
    fleet.alerts = []
    clock.t += 1.5
    page.tick()
    assert not page.alerts.cards and page.alerts.empty.isVisible()


def test_job_box_shows_step_loss_and_eta_or_no_job(
    fleet: Fleet, make_page: MakePage, qtbot: QtBot
) -> None:
    fleet.fill(30, lambda n, g, t: 50)
    clock = Clock()
    page = make_page(fleet, clock)
    assert page.job.none.isVisible() and page.job.none.text() == "no job"
    fleet.job = JobStatus("lora-13b", step=1200, total_steps=5000, loss=1.83421, eta_s=4310)
    clock.t += 1.5
    page.tick()
    assert not page.job.none.isVisible()
    assert page.job.title.text() == "Job: lora-13b (running)"
    assert page.job.step.text() == "1,200 / 5,000"
    assert page.job.loss.text() == "1.8342"
    assert page.job.eta.text() == "1 h 11 min"
    assert page.job.progress.value() == 1200
    # in Chinese, at run time: the box's words and the job's state
    from xyclaw.gui import i18n

    try:
        assert i18n.install("zh_CN") == "zh_CN"
        qtbot.waitUntil(lambda: page.job.title.text() == "作业：lora-13b（运行中）", timeout=5000)
        assert [label.text() for label in page.job.names] == [
            "步数",
            "损失",
            "预计剩余",
            "token/秒",
        ]
        assert page.job.eta.text() == "1 小时 11 分"  # the time left in Chinese units too
    finally:
        i18n.install("en")
    qtbot.waitUntil(lambda: page.job.title.text() == "Job: lora-13b (running)", timeout=5000)
    assert page.job.names[0].text() == "Step"


def test_cluster_picker_switches_the_charts(fleet: Fleet, make_page: MakePage) -> None:
    fleet.fill(30, lambda n, g, t: 50)
    small = fleet.live.node(2, 99, "tiny-node0", 4)
    for k in range(30):
        small.add_gpu(int((NOW - 29 + k) * 1000), records([77] * 4))
    fleet.source.set_clusters([*fleet.source.clusters(), ClusterChoice(2, "tiny", "H100", 1, 4)])
    page = make_page(fleet)
    assert page.picker.count() == 2 and page.cluster_id == 1
    page.picker.setCurrentIndex(1)
    assert page.cluster_id == 2
    assert page.heatmap.image.shape[0] == 4 and (page.heatmap.image[:, -20:] == 77).all()
    assert page.selection == [(99, g) for g in range(4)]
    assert "tiny" in page.status.text() and "4 GPUs" in page.status.text()


def test_no_cluster_says_what_to_do(make_page: MakePage) -> None:
    fleet = Fleet()
    fleet.source.set_clusters([])
    page = make_page(fleet)
    assert page.stack.currentWidget() is page.empty
    assert "No cluster is being watched" in page.empty.text()


def test_an_unchanged_alert_keeps_its_card_when_others_come_and_go(
    fleet: Fleet, make_page: MakePage
) -> None:
    fleet.fill(30, lambda n, g, t: 50)
    clock = Clock()
    fleet.alerts = [alert(1, "gpu.xid")]
    page = make_page(fleet, clock)
    card = page.alerts.cards[0]
    fleet.alerts = [alert(2, "gpu.ecc_uncorrectable", gpu=2), alert(1, "gpu.xid")]
    clock.t += 1.5
    page.tick()
    assert [c.alert.id for c in page.alerts.cards] == [2, 1]
    assert page.alerts.cards[1] is card and card.isVisible()
    assert page.alerts.cards[0].isVisible()  # a card added to a shown page shows at once


def test_a_long_node_name_is_shown_elided_on_the_heatmap_axis(qtbot: QtBot) -> None:
    """A provider's node name longer than the axis is wide (``yc-a100-40g-0001`` in a cluster
    of another name) was not drawn at all: it is shown, cut at the front."""
    from PySide6.QtGui import QFontMetrics

    from xyclaw.gui.charts.source import ClusterFrame, NodeSeries
    from xyclaw.store.samples import empty_gpu_records

    no_ts = np.zeros(0, dtype=np.int64)
    view = NodeSeries(
        node_id=7,
        name="yc-a100-40g-0001",
        ts_ms=no_ts,
        records=empty_gpu_records(0).reshape(0, 8),
        nic_ts_ms=no_ts,
        nic_rates=np.zeros((0, 1, 2), dtype=np.float32),
        instants=0,
    )
    frame = ClusterFrame(1, "a100-40g-x8-461885", 1.0, 60.0, (view,))
    hm = GpuHeatmap()
    qtbot.addWidget(hm)
    hm.resize(900, 200)
    hm.show()
    hm.set_frame(frame, NOW)
    hm._relabel()
    [[(_, label)], _] = hm.axis._tickLevels
    assert label.startswith("…") and label.endswith("-0001")
    metrics = QFontMetrics(hm.axis.style["tickFont"] or hm.axis.font())
    assert metrics.horizontalAdvance(label) <= hm.axis.width() - 5
