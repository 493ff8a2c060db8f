"""The Monitor page: every GPU of one cluster live, a few of them in detail, job, alerts.

The page pulls from a :class:`~xyclaw.gui.charts.source.LiveSource` with its
own timer (5 frames a second by default), only while it is shown: reading a
frame costs views of the telemetry's ring buffers, and a frame without new
samples redraws nothing. Alert actions are only requested here
(``action_requested(alert_id, action)``): whoever owns the window sends
them through approval.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from typing import Any

from PySide6.QtCore import (
    QT_TRANSLATE_NOOP,
    QCoreApplication,
    QEvent,
    QObject,
    QSize,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import QColor, QHideEvent, QIcon, QPixmap, QShowEvent
from PySide6.QtWidgets import (
    QComboBox,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLayout,
    QPushButton,
    QScrollArea,
    QSplitter,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from xyclaw.gui import i18n
from xyclaw.gui.charts.alerts import AlertsPanel
from xyclaw.gui.charts.curves import (
    CURVE_ROWS,
    HEATMAP_MIN_PX,
    MAX_CURVES,
    MIN_PLOT_PX,
    GpuKey,
    MetricCurves,
)
from xyclaw.gui.charts.heatmap import GpuHeatmap
from xyclaw.gui.charts.job import JobPanel
from xyclaw.gui.charts.source import (
    AlertView,
    ClusterChoice,
    ClusterFrame,
    JobFeed,
    LiveSource,
    NodeSeries,
    honest_utilization,
    short_node_name,
)
from xyclaw.gui.charts.theme import CURVE_COLORS, LIGHT, ChartTheme, theme_for
from xyclaw.gui.widgets import plain_label, weak_slot

log = logging.getLogger(__name__)

HINT = QT_TRANSLATE_NOOP(
    "MonitorPage",
    "Click a row of the heatmap to chart that GPU, or a node's name for all its GPUs.",
)
LEGEND_COLUMNS = 4  # chips per row of the legend at most

# The charts the desktop's start-up makes ahead, hidden, a turn of the event loop each
# (MainWindowController.build_pages_in_turns): the Monitor page built in one go held the
# main thread for 150-250 ms. The next page takes them; one made with none makes its own.
_made_ahead: dict[str, Any] = {}


def make_charts_ahead(kind: str) -> None:
    """Build the Monitor's ``"heatmap"``, or the next plot of its ``"curves"`` (a plot per
    call; a call once all are there does nothing), for the next page to take."""
    if kind == "heatmap":
        if kind not in _made_ahead:
            _made_ahead[kind] = GpuHeatmap()
        return
    if kind not in _made_ahead:
        _made_ahead[kind] = MetricCurves(in_steps=True)
    _made_ahead[kind].add_next_plot()


def _taken(kind: str) -> Any:
    made = _made_ahead.pop(kind, None)
    while kind == "curves" and made is not None and made.add_next_plot():
        pass  # taken before its last plot was added: the rest now
    return made


class MonitorPage(QWidget):
    """Pass the source (``TelemetryLiveSource(engine.telemetry)``) and optionally a job feed."""

    action_requested = Signal(int, str)  # alert id (events table), action key (ALERT_ACTIONS)
    selection_changed = Signal(list)  # [(node id, GPU slot)]

    def __init__(
        self,
        source: LiveSource | None = None,
        *,
        job_feed: JobFeed | None = None,
        fps: float = 5.0,
        clock: Callable[[], float] = time.time,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("page_monitor")
        self.source = source
        self.job_feed = job_feed
        self.clock = clock
        self.cluster_id: int | None = None
        self.selection: list[GpuKey] = []
        self.frame: ClusterFrame | None = None
        self.frames = 0  # frames pulled from the source
        self._choices: list[ClusterChoice] = []
        self._next_slow = 0.0
        self._theme: ChartTheme = LIGHT
        self._failed = False

        self.timer = QTimer(self)
        self.timer.setInterval(max(20, round(1000 / fps)))
        self.timer.timeout.connect(self.tick)

        # header: title, cluster picker, status
        self.title = title = plain_label()
        title.setProperty("role", "title")
        self.picker = QComboBox()
        self.picker.setMinimumWidth(260)
        self.picker.currentIndexChanged.connect(self._picked)
        head = QHBoxLayout()
        head.addWidget(title)
        head.addStretch(1)
        self.cluster_label = plain_label()
        head.addWidget(self.cluster_label)
        head.addWidget(self.picker)
        self.status = QLabel("")
        self.status.setProperty("role", "body")
        self.status.setWordWrap(True)
        # issue 34: nvidia-smi's utilization beside DCGM's SM / tensor / DRAM activity
        self.honest = QLabel("")
        self.honest.setObjectName("monitorHonestUtilization")
        self.honest.setProperty("role", "body")
        self.honest.setWordWrap(True)

        # left: heatmap over curves
        heatmap, curves = _taken("heatmap"), _taken("curves")
        self.heatmap: GpuHeatmap = heatmap if heatmap is not None else GpuHeatmap()
        self.heatmap.gpu_clicked.connect(self.toggle_gpu)
        self.heatmap.node_clicked.connect(self.select_node)
        self.curves: MetricCurves = curves if curves is not None else MetricCurves()
        # The legend lays its chips out in as many columns as its width fits (see
        # _place_chips): with a fixed four, chips wider than a quarter of a narrow window
        # were cut off at their "×".
        self.legend = _Legend()
        self.legend.installEventFilter(self)
        self._chips = self.legend.chips
        self._legend_columns = 0
        self._chips_pending = False  # re-placing the chips after a restyle is due
        self._legend_grid = QGridLayout(self.legend)
        self._legend_grid.setSizeConstraint(QLayout.SizeConstraint.SetNoConstraint)
        self._legend_grid.setContentsMargins(0, 0, 0, 0)
        self._legend_grid.setHorizontalSpacing(4)
        self._legend_grid.setVerticalSpacing(2)
        self.legend_hint = plain_label()
        self.legend_hint.setStyleSheet("color: #6b7280;")
        self.clear_button = QPushButton()
        self.clear_button.clicked.connect(lambda: self.set_selection([]))
        legend_row = QHBoxLayout()
        legend_row.setContentsMargins(4, 0, 4, 0)
        legend_row.addWidget(self.legend, 1)
        legend_row.addWidget(self.legend_hint, 1)
        legend_row.addWidget(self.clear_button, 0, Qt.AlignmentFlag.AlignTop)
        lower = QWidget()
        lower_layout = QVBoxLayout(lower)
        lower_layout.setContentsMargins(0, 0, 0, 0)
        lower_layout.setSpacing(2)
        lower_layout.addLayout(legend_row)
        lower_layout.addWidget(self.curves, 1)
        charts = QSplitter(Qt.Orientation.Vertical)
        charts.addWidget(self.heatmap)
        charts.addWidget(lower)
        charts.setStretchFactor(0, 2)
        charts.setStretchFactor(1, 3)
        charts.setChildrenCollapsible(False)

        # right: job and alerts
        self.job = JobPanel()
        self.alerts = AlertsPanel()
        self.alerts.action_requested.connect(self.action_requested)
        self.alerts.show_requested.connect(self._show_alert)
        side = QWidget()
        side.setMinimumWidth(280)
        side.setMaximumWidth(420)
        side_layout = QVBoxLayout(side)
        side_layout.setContentsMargins(8, 0, 0, 0)
        side_layout.addWidget(self.job)
        line = QFrame()
        line.setFrameShape(QFrame.Shape.HLine)
        line.setStyleSheet("color: #d1d5db;")
        side_layout.addWidget(line)
        side_layout.addWidget(self.alerts, 1)

        # The charts never squeezed below a readable height (the operations panel or the
        # tour's banner open at the default size): they scroll instead.
        self.heatmap.setMinimumHeight(HEATMAP_MIN_PX)  # its time axis and node labels too
        self.curves.setMinimumHeight(CURVE_ROWS * MIN_PLOT_PX + 16)
        self.charts_scroll = QScrollArea()
        self.charts_scroll.setObjectName("monitorChartsScroll")
        self.charts_scroll.setWidgetResizable(True)
        self.charts_scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.charts_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.charts_scroll.setWidget(charts)
        body = QSplitter(Qt.Orientation.Horizontal)
        body.addWidget(self.charts_scroll)
        body.addWidget(side)
        body.setStretchFactor(0, 1)
        body.setStretchFactor(1, 0)
        body.setChildrenCollapsible(False)

        self.empty = plain_label()
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty.setWordWrap(True)
        self.empty.setProperty("role", "body")
        self.stack = QStackedWidget()
        self.stack.addWidget(self.empty)
        self.stack.addWidget(body)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(24, 18, 24, 12)
        layout.setSpacing(6)
        layout.addLayout(head)
        layout.addWidget(self.status)
        layout.addWidget(self.honest)
        layout.addWidget(self.stack, 1)
        self.retranslate()
        self._rebuild_legend()

    def retranslate(self) -> None:
        """The page's words in the GUI's language (charts and panels word themselves)."""
        self.title.setText(self.tr("Monitor"))
        self.cluster_label.setText(self.tr("Cluster"))
        self.legend_hint.setText(QCoreApplication.translate("MonitorPage", HINT))
        self.clear_button.setText(self.tr("Clear"))
        self.clear_button.setToolTip(self.tr("stop charting the picked GPUs"))
        self.empty.setText(
            self.tr(
                "No cluster is being watched yet.\n\nRent one from Chat or the Clusters page: "
                "its GPUs show here as soon as the first samples arrive."
            )
        )
        if self.frame is not None:
            self._status_line(self.frame, self.clock())
        self.heatmap.apply_theme(self._theme)  # its colour bar's label

    # -- wiring ------------------------------------------------------------------------------
    def set_source(self, source: LiveSource | None, job_feed: JobFeed | None = None) -> None:
        self.source = source
        if job_feed is not None:
            self.job_feed = job_feed
        self._next_slow = 0.0
        if self.isVisible():
            self.tick()

    def set_cluster(self, cluster_id: int | None) -> None:
        """Show this cluster (also picks it in the list); its first node is charted."""
        if cluster_id == self.cluster_id:
            return
        self.cluster_id = cluster_id
        self.frame = None
        self.heatmap.clear()
        self.set_selection([])
        self._next_slow = 0.0
        for i, c in enumerate(self._choices):
            if c.id == cluster_id and self.picker.currentIndex() != i:
                self.picker.setCurrentIndex(i)
        if self.isVisible():
            self.tick()

    def _picked(self, index: int) -> None:
        if 0 <= index < len(self._choices):
            self.set_cluster(self._choices[index].id)

    # -- selection ---------------------------------------------------------------------------
    def set_selection(self, keys: Sequence[GpuKey]) -> None:
        keys = list(dict.fromkeys(keys))[-MAX_CURVES:]
        if keys == self.selection and self.curves.selection == keys:
            return
        self.selection = keys
        self.curves.set_selection(keys)
        self.heatmap.set_highlight({k: self.curves.color_of(k) for k in keys})
        self._rebuild_legend()
        if self.frame is not None:
            self.curves.set_frame(self.frame, self.clock())
        self.selection_changed.emit(list(keys))

    def toggle_gpu(self, node_id: int, gpu: int) -> None:
        """Chart a GPU, or stop charting it if it is charted (the oldest goes past 16)."""
        key = (node_id, gpu)
        if key in self.selection:
            self.set_selection([k for k in self.selection if k != key])
        else:
            self.set_selection([*self.selection, key])

    def select_node(self, node_id: int) -> None:
        """Chart every GPU of a node (instead of what was picked)."""
        node = self._node(node_id)
        count = node.gpus if node is not None else 8
        self.set_selection([(node_id, g) for g in range(min(count, MAX_CURVES))])

    def _node(self, node_id: int) -> NodeSeries | None:
        if self.frame is None:
            return None
        return next((n for n in self.frame.nodes if n.node_id == node_id), None)

    def _name(self, node_id: int) -> str:
        node = self._node(node_id)
        name = node.name if node is not None else f"node {node_id}"
        return short_node_name(name, self.frame.name if self.frame is not None else "")

    def _show_alert(self, alert: AlertView) -> None:
        if alert.node_id is None:
            return
        if alert.gpu is not None:
            key = (alert.node_id, alert.gpu)
            if key not in self.selection:
                self.toggle_gpu(*key)
        else:
            self.select_node(alert.node_id)

    def _rebuild_legend(self) -> None:
        grid = self._legend_grid
        while grid.count():
            grid.takeAt(0)
        for widget in self._chips:
            widget.hide()  # gone from the screen now; deleted at the next loop turn
            widget.deleteLater()
        self._chips.clear()
        for key in self.selection:
            color = CURVE_COLORS[self.curves.colors[key]]
            chip = QPushButton(f"{self._name(key[0])} · GPU {key[1]}  ×")
            chip.setObjectName("legendChip")
            chip.setFlat(True)
            chip.setIcon(_swatch(color))
            chip.setToolTip("stop charting this GPU")
            chip.setStyleSheet(
                "QPushButton#legendChip { text-align: left; padding: 1px 4px; border: none; }"
            )
            chip.clicked.connect(weak_slot(self.toggle_gpu, *key))  # deleted on its own
            self._chips.append(chip)
        self._place_chips(force=True)
        for chip in self._chips:
            chip.show()  # now, not at the next turn of the event loop
        self.legend.setVisible(bool(self.selection))
        self.legend_hint.setVisible(not self.selection)
        self.clear_button.setEnabled(bool(self.selection))

    def _place_chips(self, *, force: bool = False) -> None:
        """The chips in rows of as many as fit the legend's width (at most four), each at
        its full width: the "×" that removes it always shows."""
        chips = self._chips
        spacing = self._legend_grid.horizontalSpacing()
        widest = max((c.sizeHint().width() for c in chips), default=1)
        width = self.legend.width()
        columns = max(1, min(LEGEND_COLUMNS, (width + spacing) // (widest + spacing)))
        if not force and columns == self._legend_columns:
            return
        self._legend_columns = columns
        grid = self._legend_grid
        while grid.count():
            grid.takeAt(0)
        for i, chip in enumerate(chips):
            grid.addWidget(chip, i // columns, i % columns)
        for col in range(LEGEND_COLUMNS):
            grid.setColumnStretch(col, 1 if col < columns else 0)
        self.legend.updateGeometry()  # its height: the rows it has now

    def _replace_chips(self) -> None:
        self._chips_pending = False
        if self._chips and i18n.alive(self, self.legend):
            self._place_chips(force=True)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.legend and event.type() == QEvent.Type.Resize:
            self._place_chips()
        return False

    # -- the frame loop ----------------------------------------------------------------------
    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self._apply_theme()
        self._replace_chips()
        self.tick()
        self.timer.start()

    def hideEvent(self, event: QHideEvent) -> None:
        self.timer.stop()
        super().hideEvent(event)

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() in (QEvent.Type.StyleChange, QEvent.Type.PaletteChange):
            if self.isVisible():  # hidden, the charts take the theme when shown (showEvent)
                self._apply_theme()
                # the legend's rows once every chip has its new style (a theme switch
                # restyles the widgets in turn: rows counted from a chip not restyled yet
                # squeezed the chips under their width)
                if self._chips and not self._chips_pending:
                    self._chips_pending = True
                    QTimer.singleShot(0, self, self._replace_chips)
        elif event.type() == QEvent.Type.LanguageChange and i18n.alive(self.status, self.heatmap):
            self.retranslate()

    def _apply_theme(self) -> None:
        theme = theme_for(self)
        if theme != self._theme:
            self._theme = theme
            self.heatmap.apply_theme(theme)
            self.curves.apply_theme(theme)

    def tick(self) -> None:
        """One frame: pull the chosen cluster's views and redraw what changed. Does nothing
        while the page is hidden or its window minimised."""
        if not self.isVisible() or self.window().isMinimized() or self.source is None:
            return
        try:
            self._tick(self.source)
            self._failed = False
        except Exception:  # a broken frame must not stop the app; it is in the log
            if not self._failed:
                log.exception("monitor frame failed")
                self.status.setText(
                    self.tr("The monitor could not read the telemetry (see the log).")
                )
            self._failed = True

    def _tick(self, source: LiveSource) -> None:
        now = self.clock()
        slow = now >= self._next_slow
        if slow:
            self._next_slow = now + 1.0
            self._refresh_clusters(source)
        if self.cluster_id is None:
            self.stack.setCurrentIndex(0)
            self.status.setText("")
            return
        frame = source.snapshot(self.cluster_id)
        self.frames += 1
        if frame is None:
            self.stack.setCurrentIndex(0)
            return
        self.stack.setCurrentIndex(1)
        first = self.frame is None
        self.frame = frame
        self.heatmap.set_frame(frame, now)
        if first and not self.selection and frame.nodes:
            self.select_node(frame.nodes[0].node_id)
        self.curves.set_frame(frame, now)
        if slow or first:
            self._refresh_slow(source, frame, now)

    def _refresh_clusters(self, source: LiveSource) -> None:
        choices = list(source.clusters())
        if choices != self._choices:
            self._choices = choices
            self.picker.blockSignals(True)
            self.picker.clear()
            for c in choices:
                self.picker.addItem(c.label, c.id)
            self.picker.blockSignals(False)
            ids = [c.id for c in choices]
            if self.cluster_id not in ids:
                self.cluster_id = None
                self.set_cluster(ids[0] if ids else None)
            else:
                self.picker.setCurrentIndex(ids.index(self.cluster_id))
        self.picker.setEnabled(bool(choices))

    def _refresh_slow(self, source: LiveSource, frame: ClusterFrame, now: float) -> None:
        cluster_id = frame.cluster_id
        self.alerts.set_alerts(list(source.alerts(cluster_id)))
        status = None
        if self.job_feed is not None:
            try:
                status = self.job_feed(cluster_id)
            except Exception:
                log.exception("job status for the monitor failed")
        self.job.set_status(status)
        self._status_line(frame, now)
        self._honest_line(frame)

    def _honest_line(self, frame: ClusterFrame) -> None:
        """Utilization counts any kernel running; DCGM's fields say how much work is done
        (a busy loop reads 100% with idle SMs). Where no node has DCGM, say what stands in."""
        h = honest_utilization(frame)
        if h.util is None:
            self.honest.setText("")
            return
        util = self.tr("GPU utilization {util}% (nvidia-smi)").format(util=f"{h.util:.0f}")
        if h.nodes_with_dcgm and h.sm_active is not None and h.tensor_active is not None:
            dram = "-" if h.dram_active is None else f"{h.dram_active:.0f}"
            text = (
                util
                + " · "
                + self.tr("SM active {sm}% · tensor pipe {tensor}% · DRAM {dram}% (DCGM)").format(
                    sm=f"{h.sm_active:.0f}", tensor=f"{h.tensor_active:.0f}", dram=dram
                )
            )
            if h.nodes_with_dcgm < h.nodes:
                text += " · " + self.tr("{n} of {total} nodes without DCGM").format(
                    n=h.nodes - h.nodes_with_dcgm, total=h.nodes
                )
        else:
            text = (
                util
                + " · "
                + self.tr(
                    "no DCGM on these nodes: a busy loop is told from work by the power it draws"
                )
            )
        self.honest.setText(text)

    def _status_line(self, frame: ClusterFrame, now: float) -> None:
        newest = frame.newest_ms()
        age = (
            self.tr("no samples yet")
            if newest is None
            else self.tr("newest sample {age}").format(age=_age(now - newest / 1000))
        )
        nodes = len(frame.nodes)
        shape = self.tr("1 node") if nodes == 1 else self.tr("{n} nodes").format(n=nodes)
        self.status.setText(
            self.tr("{name} · {nodes} · {gpus} GPUs · {age} · last {minutes} min").format(
                name=frame.name, nodes=shape, gpus=frame.gpu_count, age=age,
                minutes=f"{frame.window_s / 60:.0f}",
            )
        )  # fmt: skip


class _Legend(QWidget):
    """The picked GPUs' chips: as wide as four of them would like, as narrow as one."""

    def __init__(self) -> None:
        super().__init__()
        self.chips: list[QPushButton] = []

    def _chip_width(self) -> int:
        return max((c.sizeHint().width() for c in self.chips), default=0)

    def _height(self) -> int:
        layout = self.layout()
        return layout.sizeHint().height() if layout is not None else 0

    def sizeHint(self) -> QSize:
        return QSize(LEGEND_COLUMNS * (self._chip_width() + 4), self._height())

    def minimumSizeHint(self) -> QSize:
        return QSize(self._chip_width(), self._height())


def _swatch(color: str) -> QIcon:
    pixmap = QPixmap(14, 14)
    pixmap.fill(QColor(color))
    return QIcon(pixmap)


def _age(seconds: float) -> str:
    if seconds < 0:
        seconds = 0.0
    if seconds < 120:
        return QCoreApplication.translate("MonitorPage", "{n} s ago").format(
            n=i18n.number(seconds, 1 if seconds < 10 else 0)
        )
    return QCoreApplication.translate("MonitorPage", "{n} min ago").format(n=f"{seconds / 60:.0f}")
