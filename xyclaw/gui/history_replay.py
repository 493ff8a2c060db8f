"""A past job or cluster played back: its GPUs' heatmap and curves from the stored samples
with a time slider, its loss and throughput, its log, a timeline of what happened to it,
and what it cost.

The charts are the Monitor page's own (:class:`GpuHeatmap`, :class:`MetricCurves`), fed a
frame made from the history instead of the live rings; the slider moves the end of the
window they draw.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QShowEvent
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QScrollArea,
    QSlider,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from xyclaw.gui import i18n
from xyclaw.gui.charts.curves import (
    CURVE_ROWS,
    HEATMAP_MIN_PX,
    MAX_CURVES,
    METRICS,
    MIN_PLOT_PX,
    GpuKey,
    MetricCurves,
)
from xyclaw.gui.charts.heatmap import GpuHeatmap
from xyclaw.gui.charts.source import ClusterFrame, honest_utilization
from xyclaw.gui.charts.theme import CURVE_COLORS, LIGHT, SEVERITY_COLORS, ChartTheme, theme_for
from xyclaw.gui.formatting import worded
from xyclaw.gui.history_data import Replay, at_time
from xyclaw.gui.history_words import describe, state
from xyclaw.gui.widgets import TRANSLATED_ROLE, plain_label, plain_tip
from xyclaw.wording import display

#: Window lengths offered for scrubbing through a run (seconds; 0: the whole run).
WINDOWS = (0, 3600, 900, 300, 60, 30, 10)


def _mark(item: QTableWidgetItem | QTreeWidgetItem, column: int | None = None) -> None:
    if isinstance(item, QTreeWidgetItem):
        item.setData(column or 0, TRANSLATED_ROLE, True)
    else:
        item.setData(TRANSLATED_ROLE, True)


class ReplayView(QWidget):
    """Shows one :class:`Replay`; ``time_changed(t)`` when the slider moves."""

    time_changed = Signal(float)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("historyReplay")
        self.replay: Replay | None = None
        self.frame: ClusterFrame | None = None
        self.selection: list[GpuKey] = []
        self.window_s = 0.0
        self.t_end = 0.0
        self.rate_scale = 1.0
        self._theme: ChartTheme | None = None

        self.title = plain_label()
        self.title.setProperty("role", "heading")
        self.title.setProperty("data", True)
        self.facts = plain_label()
        self.facts.setProperty("role", "muted")
        self.facts.setProperty("data", True)
        self.facts.setWordWrap(True)
        self.note = plain_label()
        self.note.setProperty("role", "muted")
        self.note.setWordWrap(True)

        self.tabs = QTabWidget()
        self.tabs.setObjectName("replayTabs")
        self.tabs.addTab(self._charts_tab(), "")
        self.tabs.addTab(self._timeline_tab(), "")
        self.tabs.addTab(self._log_tab(), "")
        self.tabs.addTab(self._cost_tab(), "")

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        layout.addWidget(self.title)
        layout.addWidget(self.facts)
        layout.addWidget(self.note)
        layout.addWidget(self.tabs, 1)
        self.retranslate()

    # -- parts --------------------------------------------------------------------------------
    def _charts_tab(self) -> QWidget:
        tab = QWidget()
        self.window_label = plain_label()
        self.window_box = QComboBox()
        self.window_box.setObjectName("replayWindow")
        self.window_box.currentIndexChanged.connect(self._window_picked)
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.setObjectName("replaySlider")
        self.slider.valueChanged.connect(self._slid)
        self.position = plain_label()
        self.position.setMinimumWidth(150)
        controls = QHBoxLayout()
        controls.addWidget(self.window_label)
        controls.addWidget(self.window_box)
        controls.addWidget(self.slider, 1)
        controls.addWidget(self.position)

        self.heatmap = GpuHeatmap()
        self.heatmap.gpu_clicked.connect(self.toggle_gpu)
        self.heatmap.node_clicked.connect(self.select_node)
        self.curves = MetricCurves(fit_memory=True)  # a small model's memory shows
        self.no_samples = plain_label()
        self.no_samples.setProperty("role", "muted")
        self.no_samples.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.no_samples.setWordWrap(True)
        gpus = QSplitter(Qt.Orientation.Vertical)
        gpus.addWidget(self.heatmap)
        gpus.addWidget(self.curves)
        gpus.setStretchFactor(0, 2)
        gpus.setStretchFactor(1, 3)
        self.gpu_charts = gpus

        self.job_view = pg.GraphicsLayoutWidget()
        self.job_view.setMinimumWidth(260)
        # no context menus (made with them, each plot cost ~30 ms more)
        self.loss_plot: pg.PlotItem = self.job_view.addPlot(
            row=0, col=0, axisItems={"bottom": pg.DateAxisItem("bottom")}, enableMenu=False
        )
        self.rate_plot: pg.PlotItem = self.job_view.addPlot(
            row=1, col=0, axisItems={"bottom": pg.DateAxisItem("bottom")}, enableMenu=False
        )
        for plot in (self.loss_plot, self.rate_plot):
            plot.hideButtons()
            plot.setMenuEnabled(False)
            plot.getAxis("left").setWidth(52)
        self.rate_plot.setXLink(self.loss_plot)
        self.loss_curve = pg.PlotDataItem(pen=pg.mkPen(CURVE_COLORS[0], width=2), connect="finite")
        self.rate_curve = pg.PlotDataItem(pen=pg.mkPen(CURVE_COLORS[1], width=2), connect="finite")
        self.loss_plot.addItem(self.loss_curve)
        self.rate_plot.addItem(self.rate_curve)
        # spans nobody watched the job (its nodes' records tell what happened): shaded
        self.unwatched: list[tuple[float, float]] = []
        self._unwatched_items: list[tuple[pg.PlotItem, pg.LinearRegionItem]] = []
        self.cursors = [pg.InfiniteLine(angle=90, movable=False) for _ in range(2)]
        self.loss_plot.addItem(self.cursors[0])
        self.rate_plot.addItem(self.cursors[1])
        self.no_metrics = plain_label()
        self.no_metrics.setProperty("role", "muted")
        self.no_metrics.setWordWrap(True)
        self.no_metrics.setAlignment(Qt.AlignmentFlag.AlignCenter)
        job_box = QWidget()
        job_layout = QVBoxLayout(job_box)
        job_layout.setContentsMargins(0, 0, 0, 0)
        job_layout.addWidget(self.job_view, 1)
        job_layout.addWidget(self.no_metrics)
        self.job_box = job_box

        body = QSplitter(Qt.Orientation.Horizontal)
        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.addWidget(gpus, 1)
        left_layout.addWidget(self.no_samples)
        body.addWidget(left)
        body.addWidget(job_box)
        body.setStretchFactor(0, 3)
        body.setStretchFactor(1, 2)
        self.charts_split = body

        # Small charts are never squeezed below a readable height (the tour's banner or the
        # operations panel open at the default size): the charts scroll instead.
        self.heatmap.setMinimumHeight(HEATMAP_MIN_PX)
        self.curves.setMinimumHeight(CURVE_ROWS * MIN_PLOT_PX + 16)
        self.job_view.setMinimumHeight(2 * MIN_PLOT_PX + 16)
        gpus.setChildrenCollapsible(False)
        body.setChildrenCollapsible(False)
        self.charts_scroll = QScrollArea()
        self.charts_scroll.setObjectName("replayChartsScroll")
        self.charts_scroll.setWidgetResizable(True)
        self.charts_scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.charts_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.charts_scroll.setWidget(body)

        layout = QVBoxLayout(tab)
        layout.setContentsMargins(0, 4, 0, 0)
        layout.addLayout(controls)
        layout.addWidget(self.charts_scroll, 1)
        return tab

    def _timeline_tab(self) -> QWidget:
        self.timeline = QTreeWidget()
        self.timeline.setObjectName("replayTimeline")
        self.timeline.setColumnCount(4)
        self.timeline.setRootIsDecorated(False)
        self.timeline.setAlternatingRowColors(True)
        self.timeline.setWordWrap(True)
        header = self.timeline.header()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(3, QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(False)
        header.resizeSection(3, 380)
        return self.timeline

    def _log_tab(self) -> QWidget:
        tab = QWidget()
        self.log_search = QLineEdit()
        self.log_search.setObjectName("replayLogSearch")
        self.log_search.setClearButtonEnabled(True)
        self.log_search.textChanged.connect(self._show_log)
        self.log_node = QComboBox()
        self.log_node.setObjectName("replayLogNode")
        self.log_node.currentIndexChanged.connect(self._show_log)
        self.log_attempt = QComboBox()
        self.log_attempt.setObjectName("replayLogAttempt")
        self.log_attempt.currentIndexChanged.connect(self._show_log)
        self.log_count = plain_label()
        self.log_count.setProperty("role", "muted")
        row = QHBoxLayout()
        row.addWidget(self.log_search, 1)
        row.addWidget(self.log_node)
        row.addWidget(self.log_attempt)
        row.addWidget(self.log_count)
        self.log_text = QPlainTextEdit()
        self.log_text.setObjectName("replayLog")
        self.log_text.setReadOnly(True)
        self.log_text.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.log_text.setProperty("role", "code")
        layout = QVBoxLayout(tab)
        layout.setContentsMargins(0, 4, 0, 0)
        layout.addLayout(row)
        layout.addWidget(self.log_text, 1)
        return tab

    def _cost_tab(self) -> QWidget:
        tab = QWidget()
        self.cost_form = QFormLayout()
        self.cost_labels: dict[str, tuple[QLabel, QLabel]] = {}
        for key in ("total", "cluster", "price", "gpu_hours", "model"):
            name, value = plain_label(), plain_label()
            name.setProperty("role", "fact-label")
            value.setProperty("role", "fact")
            value.setWordWrap(True)
            self.cost_form.addRow(name, value)
            self.cost_labels[key] = (name, value)
        self.cost_nodes = QTableWidget(0, 4)
        self.cost_nodes.setObjectName("replayCostNodes")
        self.cost_nodes.verticalHeader().setVisible(False)
        self.cost_nodes.horizontalHeader().setStretchLastSection(True)
        self.cost_nodes.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.cost_model = QTableWidget(0, 5)
        self.cost_model.setObjectName("replayCostModel")
        self.cost_model.verticalHeader().setVisible(False)
        self.cost_model.horizontalHeader().setStretchLastSection(True)
        self.cost_model.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.nodes_heading = plain_label()
        self.nodes_heading.setProperty("role", "card-title")
        self.model_heading = plain_label()
        self.model_heading.setProperty("role", "card-title")
        layout = QVBoxLayout(tab)
        layout.setContentsMargins(4, 8, 4, 4)
        layout.addLayout(self.cost_form)
        layout.addWidget(self.nodes_heading)
        layout.addWidget(self.cost_nodes, 2)
        layout.addWidget(self.model_heading)
        layout.addWidget(self.cost_model, 1)
        return tab

    # -- words --------------------------------------------------------------------------------
    def retranslate(self) -> None:
        for index, text in enumerate(
            (self.tr("GPUs and loss"), self.tr("Timeline"), self.tr("Log"), self.tr("Cost"))
        ):
            self.tabs.setTabText(index, text)
        self.window_label.setText(self.tr("Window"))
        self._fill_windows()
        self.slider.setToolTip(
            self.tr("Move through the run: the charts show the window ending here")
        )
        self.log_search.setPlaceholderText(self.tr("Search the log…"))
        self.timeline.setHeaderLabels(
            [self.tr("Time"), self.tr("What"), self.tr("Details"), self.tr("As recorded")]
        )
        self.cost_nodes.setHorizontalHeaderLabels(
            [self.tr("Node"), self.tr("Hours"), self.tr("GPUs"), self.tr("Cost at the price")]
        )
        self.cost_model.setHorizontalHeaderLabels(
            [
                self.tr("Currency"),
                self.tr("Input tokens"),
                self.tr("Output tokens"),
                self.tr("Model cost"),
                self.tr("Conversations"),
            ]
        )
        names = {
            "total": self.tr("Cost"),
            "cluster": self.tr("Its cluster in all"),
            "price": self.tr("Price per GPU-hour"),
            "gpu_hours": self.tr("GPU-hours"),
            "model": self.tr("Agents' model tokens"),
        }
        for key, (name, _) in self.cost_labels.items():
            name.setText(names[key])
        self.nodes_heading.setText(self.tr("Node-hours"))
        self.model_heading.setText(self.tr("Model tokens spent by the agents on this cluster"))
        self.no_samples.setText(
            self.tr(
                "No GPU samples were kept for this time (raw samples and rollups are past their "
                "retention, or telemetry was off)."
            )
        )
        self.no_metrics.setText(self.tr("No loss or throughput was recorded for this run."))
        self.loss_plot.setTitle(self.tr("Loss"), size="9pt", color=self.chart_theme.foreground)
        self._title_rate()
        self._title_curves()
        if self.replay is not None:
            self.set_replay(self.replay, keep_time=True)

    def _fill_windows(self) -> None:
        """The whole run, and the window lengths shorter than it (to scrub through it)."""
        current = self.window_box.currentData()
        span = self.replay.span_s if self.replay is not None else float("inf")
        self.window_box.blockSignals(True)
        self.window_box.clear()
        for seconds in WINDOWS:
            if seconds == 0 or seconds < span:
                self.window_box.addItem(
                    self.tr("whole run") if seconds == 0 else i18n.duration(seconds), seconds
                )
        self.window_box.setCurrentIndex(max(0, self.window_box.findData(current)))
        self.window_box.blockSignals(False)

    def _title_rate(self) -> None:
        scale = getattr(self, "rate_scale", 1.0)
        title = {
            1.0: self.tr("Throughput (tokens/s)"),
            1e3: self.tr("Throughput (thousand tokens/s)"),
            1e6: self.tr("Throughput (million tokens/s)"),
        }[scale]
        self.rate_plot.setTitle(title, size="9pt", color=self.chart_theme.foreground)

    def _title_curves(self) -> None:
        titles = {
            "util": self.tr("GPU utilization"),
            "memory": self.tr("Memory used"),
            "power": self.tr("Power"),
            "temperature": self.tr("Temperature"),
            "nic": self.tr("Network (per node, in + out)"),
        }
        for spec in METRICS:
            unit = f"<span style='color:{self.chart_theme.muted}'>({spec.unit})</span>"
            self.curves.plots[spec.key].setTitle(
                f"{titles[spec.key]} {unit}",
                color=self.chart_theme.foreground,
                size="9pt",
            )
        self.heatmap.colorbar.axis.setLabel(
            self.tr("utilization %"), color=self.chart_theme.foreground
        )

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        elif (
            event.type() in (QEvent.Type.StyleChange, QEvent.Type.PaletteChange)
            and self.isVisible()  # hidden: when it is shown next (showEvent)
        ):
            self.apply_theme()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self.apply_theme()

    @property
    def chart_theme(self) -> ChartTheme:
        return self._theme or LIGHT

    def apply_theme(self) -> None:
        theme = theme_for(self)
        if theme == self._theme:
            return
        self._theme = theme
        self.heatmap.apply_theme(theme)
        self.curves.apply_theme(theme)
        self.job_view.setBackground(theme.background)
        for plot in (self.loss_plot, self.rate_plot):
            for name in ("left", "bottom"):
                axis = plot.getAxis(name)
                axis.setPen(theme.muted)
                axis.setTextPen(theme.foreground)
            plot.titleLabel.setText(plot.titleLabel.text, color=theme.foreground)
        self._title_rate()
        for line in self.cursors:
            line.setPen(pg.mkPen(theme.muted, width=1, style=Qt.PenStyle.DashLine))
        self._title_curves()
        self._draw()

    # -- data --------------------------------------------------------------------------------
    def set_replay(self, replay: Replay, *, keep_time: bool = False) -> None:
        """Show a replay (its charts drawn at once, for a window over the whole run)."""
        same = self.replay is replay
        self.replay = replay
        self.frame = replay.frame
        row = replay.row
        if replay.kind == "job":
            self.title.setText(
                self.tr("Job #{id} {name}: {state}").format(
                    id=replay.id, name=replay.name, state=state(row.get("state"))
                )
            )
        else:
            self.title.setText(
                self.tr("Cluster #{id} {name}: {state}").format(
                    id=replay.id, name=replay.name, state=state(row.get("state"))
                )
            )
        c = replay.cluster or {}
        shape = (
            self.tr("{nodes} x {per} {gpu} from {provider}").format(
                nodes=int(c.get("gpu_count") or 0) // max(1, int(c.get("gpus_per_node") or 1)),
                per=c.get("gpus_per_node"),
                gpu=c.get("gpu"),
                provider=c.get("provider"),
            )
            if c
            else self.tr("no cluster")
        )
        cost = replay.cost
        self.facts.setText(
            " · ".join(
                [
                    (self.tr("on {cluster}").format(cluster=c.get("name")) + f" ({shape})")
                    if replay.kind == "job" and c
                    else shape,
                    i18n.date_time(replay.start_s) + " – " + i18n.clock_time(replay.end_s),
                    i18n.duration(replay.span_s),
                    i18n.money(
                        cost.total_micros if cost else None, cost.currency if cost else None
                    ),
                ]
            )
        )
        notes = {
            "samples": "",
            "rollups": self.tr(
                "Drawn from one-minute rollups: the full-rate samples are past their retention."
            ),
            "none": self.tr("No GPU samples were kept for this run."),
        }
        note = notes.get(replay.resolution, "")
        honest = self._honest(self.frame) if replay.resolution == "samples" else ""
        note = "\n".join(t for t in (note, honest) if t)
        self.note.setText(note)
        self.note.setVisible(bool(note))
        has_samples = self.frame is not None and self.frame.gpu_count > 0
        self.gpu_charts.setVisible(has_samples)
        self.no_samples.setVisible(not has_samples)
        if has_samples and (not same or not self.selection):
            self.heatmap.clear()
            first = self.frame.nodes[0] if self.frame else None
            self.selection = (
                [(first.node_id, g) for g in range(min(first.gpus, MAX_CURVES))] if first else []
            )
            self.curves.set_selection(self.selection)
            self.heatmap.set_highlight({k: self.curves.color_of(k) for k in self.selection})
        self._set_metrics(replay)
        self._set_timeline(replay)
        self._set_log(replay)
        self._set_cost(replay)
        if not keep_time or not same:
            self.window_box.blockSignals(True)
            self.window_box.setCurrentIndex(0)
            self.window_box.blockSignals(False)
            self.window_s = 0.0
        self._fill_windows()
        self._configure_slider(keep_time and same)
        self._draw()

    def _honest(self, frame: ClusterFrame | None) -> str:
        """The run's utilization beside DCGM's means, where its nodes had DCGM (issue 34)."""
        if frame is None:
            return ""
        h = honest_utilization(frame, whole_window=True)
        if not h.nodes_with_dcgm or h.util is None or h.sm_active is None:
            return ""
        return self.tr(
            "Over this run: GPU utilization {util}% (nvidia-smi); SM active {sm}%, tensor pipe"
            " {tensor}%, DRAM {dram}% (DCGM)"
        ).format(
            util=f"{h.util:.0f}",
            sm=f"{h.sm_active:.0f}",
            tensor=f"{h.tensor_active or 0:.0f}",
            dram="-" if h.dram_active is None else f"{h.dram_active:.0f}",
        )

    def _set_metrics(self, replay: Replay) -> None:
        def series(key: str) -> tuple[np.ndarray, np.ndarray]:
            """The points of one metric, with a break where an attempt ends (a recovered
            job's second attempt starts again from its checkpoint)."""
            xs: list[float] = []
            ys: list[float] = []
            last = None
            for m in replay.metrics:
                if m.get(key) is None:
                    continue
                if last is not None and m.get("attempt") != last:
                    xs.append(float(m["ts"]))
                    ys.append(float("nan"))
                last = m.get("attempt")
                xs.append(float(m["ts"]))
                ys.append(float(m[key]))
            return np.array(xs, dtype=np.float64), np.array(ys, dtype=np.float64)

        lx, ly = series("loss")
        rx, ry = series("tokens_per_s")
        top = float(np.nanmax(ry)) if ry.shape[0] and not np.isnan(ry).all() else 0.0
        # no "1e+06" on the axis: thousands or millions, said in the title
        self.rate_scale = 1e6 if top >= 1e7 else 1e3 if top >= 1e4 else 1.0
        ry = ry / self.rate_scale
        self._title_rate()
        self.loss_curve.setData(lx, ly)
        self.rate_curve.setData(rx, ry)
        self._shade_unwatched(replay)
        has = bool(lx.shape[0] or rx.shape[0])
        self.job_view.setVisible(has)
        self.no_metrics.setVisible(not has)
        if has:
            self.loss_plot.setXRange(
                replay.start_s, max(replay.end_s, replay.start_s + 1), padding=0.02
            )
            for plot, ys in ((self.loss_plot, ly), (self.rate_plot, ry)):
                if ys.shape[0]:
                    lo, hi = float(np.nanmin(ys)), float(np.nanmax(ys))
                    pad = (hi - lo) * 0.08 or abs(hi) * 0.05 or 1.0
                    plot.setYRange(lo - pad, hi + pad, padding=0)

    def _shade_unwatched(self, replay: Replay) -> None:
        """Shade each span the timeline says nobody watched the job: what its charts show
        there was read later from the nodes, not seen as it happened."""
        for plot, region in self._unwatched_items:
            plot.removeItem(region)
        self._unwatched_items = []
        self.unwatched = []
        for entry in replay.timeline:
            start = entry.params.get("not_watched_from")
            end = entry.params.get("not_watched_until")
            if start is None or end is None or float(end) <= float(start):
                continue
            span = (float(start), float(end))
            self.unwatched.append(span)
            for plot in (self.loss_plot, self.rate_plot):
                region = pg.LinearRegionItem(
                    values=span, movable=False, brush=pg.mkBrush(128, 128, 128, 48)
                )
                region.setZValue(-10)
                plot.addItem(region)
                self._unwatched_items.append((plot, region))

    def _set_timeline(self, replay: Replay) -> None:
        self.timeline.clear()
        items = []
        for entry in replay.timeline:
            what, detail = describe(entry)
            recorded = worded(entry.worded)
            what, detail, recorded = (display.line(t) for t in (what, detail, recorded))
            item = QTreeWidgetItem([i18n.date_time(entry.ts, seconds=True), what, detail, recorded])
            for col in (0, 1, 2):
                _mark(item, col)
            item.setToolTip(2, plain_tip(detail))
            item.setToolTip(3, plain_tip(recorded))
            color = SEVERITY_COLORS.get(entry.severity)
            if color and entry.severity != "info":
                item.setForeground(1, QBrush(QColor(color)))
            item.setData(0, int(Qt.ItemDataRole.UserRole), entry.kind)
            items.append(item)
        self.timeline.addTopLevelItems(items)

    def _set_log(self, replay: Replay) -> None:
        for box, values, all_text in (
            (self.log_node, sorted({str(r["node"]) for r in replay.log}), self.tr("all nodes")),
            (
                self.log_attempt,
                [str(a) for a in sorted({int(r["attempt"]) for r in replay.log})],
                self.tr("all attempts"),
            ),
        ):
            box.blockSignals(True)
            box.clear()
            box.addItem(all_text, None)
            for value in values:
                label = value if box is self.log_node else self.tr("attempt {n}").format(n=value)
                box.addItem(label, value)
            box.blockSignals(False)
        self.log_node.setProperty("data", True)
        self._show_log()

    def _show_log(self) -> None:
        replay = self.replay
        if replay is None:
            return
        needle = self.log_search.text().strip().lower()
        node = self.log_node.currentData()
        attempt = self.log_attempt.currentData()
        lines = [
            r
            for r in replay.log
            if (node is None or str(r["node"]) == node)
            and (attempt is None or str(r["attempt"]) == attempt)
            and (not needle or needle in str(r["text"]).lower())
        ]
        self.log_text.setPlainText(
            "\n".join(
                f"{i18n.clock_time(r['ts'])} [{display.line(r['node'])}#{r['attempt']}]"
                f" {display.text(r['text'])}"
                for r in lines
            )
        )
        if replay.kind != "job":
            self.log_count.setText(self.tr("clusters have no log of their own"))
        elif replay.log_total > len(replay.log):
            self.log_count.setText(
                self.tr("{shown} of the last {kept} of {total} lines").format(
                    shown=len(lines), kept=len(replay.log), total=replay.log_total
                )
            )
        else:
            self.log_count.setText(self.tr("{shown} of {total} lines").format(
                shown=len(lines), total=len(replay.log)))  # fmt: skip

    def _set_cost(self, replay: Replay) -> None:
        cost = replay.cost
        values = self.cost_labels
        if cost is None:
            for _, value in values.values():
                value.setText("–")
            self.cost_nodes.setRowCount(0)
            self.cost_model.setRowCount(0)
            return
        values["total"][1].setText(i18n.money(cost.total_micros, cost.currency))
        values["cluster"][1].setText(i18n.money(cost.cluster_total_micros, cost.currency))
        values["price"][1].setText(i18n.money(cost.price_per_gpu_hour_micros, cost.currency))
        values["gpu_hours"][1].setText(i18n.number(cost.gpu_hours, 3))
        model = cost.model
        values["model"][1].setText(
            " + ".join(i18n.money(m.cost_micros, m.currency, 4) for m in model)
            if model
            else self.tr("none recorded")
        )
        self.cost_nodes.setRowCount(len(cost.node_hours))
        for row, n in enumerate(cost.node_hours):
            cells = [
                n.node,
                i18n.number(n.hours, 4),
                str(n.gpus),
                i18n.money(n.cost_micros, cost.currency),
            ]
            for col, text in enumerate(cells):
                self.cost_nodes.setItem(row, col, QTableWidgetItem(text))
        self.cost_model.setRowCount(len(model))
        for row, m in enumerate(model):
            cells = [
                m.currency,
                i18n.number(m.tokens_in),
                i18n.number(m.tokens_out),
                i18n.money(m.cost_micros, m.currency, 4),
                str(m.conversations),
            ]
            for col, text in enumerate(cells):
                self.cost_model.setItem(row, col, QTableWidgetItem(text))
        self.cost_nodes.resizeColumnsToContents()

    # -- the slider --------------------------------------------------------------------------
    def _step_s(self) -> float:
        return self.frame.interval_s if self.frame is not None else 1.0

    def _configure_slider(self, keep: bool) -> None:
        replay = self.replay
        if replay is None:
            return
        span = replay.span_s
        window = span if self.window_s <= 0 or self.window_s >= span else self.window_s
        steps = max(0, math.ceil((span - window) / self._step_s()))
        old = self.t_end
        self.slider.blockSignals(True)
        self.slider.setRange(0, steps)
        self.slider.setPageStep(max(1, steps // 10))
        if keep and replay.start_s + window <= old < replay.end_s - self._step_s() / 2:
            self.slider.setValue(round((old - replay.start_s - window) / self._step_s()))
        else:
            self.slider.setValue(steps)
        self.slider.blockSignals(False)
        self.slider.setEnabled(steps > 0)
        self._update_time()

    def _update_time(self) -> None:
        replay = self.replay
        if replay is None:
            return
        span = replay.span_s
        window = span if self.window_s <= 0 or self.window_s >= span else self.window_s
        self.t_end = min(
            replay.end_s, replay.start_s + window + self.slider.value() * self._step_s()
        )
        self.position.setText(i18n.clock_time(self.t_end))
        for line in self.cursors:
            line.setPos(self.t_end)
            line.setVisible(window < span)

    def _window_picked(self, index: int) -> None:
        value = self.window_box.itemData(index)
        self.window_s = float(value or 0)
        self.heatmap.clear()  # another width: every column again
        self._configure_slider(True)
        self._draw()

    def _slid(self, _value: int) -> None:
        self._update_time()
        self._draw()
        self.time_changed.emit(self.t_end)

    def set_time(self, t: float) -> None:
        """Move the window's end to ``t`` (epoch seconds)."""
        replay = self.replay
        if replay is None:
            return
        span = replay.span_s
        window = span if self.window_s <= 0 or self.window_s >= span else self.window_s
        self.slider.setValue(round((t - replay.start_s - window) / self._step_s()))

    def _draw(self) -> None:
        if self.frame is None or self.replay is None or not self.frame.gpu_count:
            return
        span = self.replay.span_s
        window = None if self.window_s <= 0 or self.window_s >= span else self.window_s
        frame = at_time(self.frame, self.t_end, window)
        self.heatmap.set_frame(frame, now_s=self.t_end)
        self.curves.set_frame(frame, now_s=self.t_end)

    # -- picking GPUs (as on the Monitor page) ----------------------------------------------
    def toggle_gpu(self, node_id: int, gpu: int) -> None:
        key = (node_id, gpu)
        keys = [k for k in self.selection if k != key] if key in self.selection else [
            *self.selection, key][-MAX_CURVES:]  # fmt: skip
        self.set_selection(keys)

    def select_node(self, node_id: int) -> None:
        node = next(
            (n for n in (self.frame.nodes if self.frame else ()) if n.node_id == node_id), None
        )
        if node is not None:
            self.set_selection([(node_id, g) for g in range(min(node.gpus, MAX_CURVES))])

    def set_selection(self, keys: Sequence[GpuKey]) -> None:
        self.selection = list(keys)[:MAX_CURVES]
        self.curves.set_selection(self.selection)
        self.heatmap.set_highlight({k: self.curves.color_of(k) for k in self.selection})
        self._draw()
