"""Two or more jobs side by side: their curves overlaid on one x axis (step, wall time,
tokens seen, money spent), with smoothing and a log scale, and a table of their settings
and results that shows only the rows that differ unless asked for all."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QSlider,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from xyclaw.gui.charts.curves import MIN_PLOT_PX
from xyclaw.gui.charts.theme import CURVE_COLORS, LIGHT, ChartTheme, theme_for
from xyclaw.gui.formatting import fabric_text
from xyclaw.gui.history_data import Comparison, Curve, curve
from xyclaw.gui.history_words import row_label, row_value
from xyclaw.gui.widgets import DATA_ROLE, TRANSLATED_ROLE, html_text, plain_label, plain_tip

# Rows whose values are names, shown as they are in every language.
DATA_ROWS = frozenset({"cluster.provider", "cluster.region", "cluster.gpu"})


def _is_data_key(key: str) -> bool:
    """The spec's values (commands, paths, names, numbers as written) and the NCCL
    environment's are data: shown as the spec file and the nodes have them."""
    return key.startswith(("spec.", "nccl."))


class CompareView(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("historyCompare")
        self.comparison: Comparison | None = None
        self.shown: list[Curve] = []
        self._theme: ChartTheme | None = None

        self.title = plain_label()
        self.title.setProperty("role", "heading")
        self.x_label = plain_label()
        self.x_box = QComboBox()
        self.x_box.setObjectName("compareX")
        self.y_label = plain_label()
        self.y_box = QComboBox()
        self.y_box.setObjectName("compareY")
        self.smooth_label = plain_label()
        self.smooth = QSlider(Qt.Orientation.Horizontal)
        self.smooth.setObjectName("compareSmoothing")
        self.smooth.setRange(0, 99)
        self.smooth.setMaximumWidth(180)
        self.smooth_value = plain_label()
        self.smooth_value.setMinimumWidth(36)
        self.log_scale = QCheckBox()
        self.log_scale.setObjectName("compareLog")
        for box in (self.x_box, self.y_box):
            box.currentIndexChanged.connect(self._draw)
        self.smooth.valueChanged.connect(self._draw)
        self.log_scale.toggled.connect(self._draw)
        controls = QHBoxLayout()
        for w in (self.x_label, self.x_box, self.y_label, self.y_box, self.smooth_label):
            controls.addWidget(w)
        controls.addWidget(self.smooth)
        controls.addWidget(self.smooth_value)
        controls.addWidget(self.log_scale)
        controls.addStretch(1)

        self.plot_widget = pg.PlotWidget(enableMenu=False)  # none: ~30 ms less to make
        self.plot_widget.setObjectName("comparePlot")
        # never squeezed under a readable height (the tour banner and the operations panel
        # take room at the default size): the table below gives way instead
        self.plot_widget.setMinimumHeight(MIN_PLOT_PX)
        self.plot: pg.PlotItem = self.plot_widget.getPlotItem()
        self.plot.hideButtons()
        self.plot.setMenuEnabled(False)
        self.plot.showGrid(x=True, y=True, alpha=0.2)
        self.legend = self.plot.addLegend(offset=(-10, 10))
        self.items: list[pg.PlotDataItem] = []
        self.note = plain_label()
        self.note.setProperty("role", "muted")
        self.note.setWordWrap(True)

        self.differences = QCheckBox()
        self.differences.setObjectName("compareDifferences")
        self.differences.setChecked(True)
        self.differences.toggled.connect(self._fill_table)
        self.table_count = plain_label()
        self.table_count.setProperty("role", "muted")
        table_head = QHBoxLayout()
        table_head.addWidget(self.differences)
        table_head.addStretch(1)
        table_head.addWidget(self.table_count)
        self.table = QTableWidget(0, 2)
        self.table.setObjectName("compareTable")
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.setWordWrap(True)
        self.table.setAlternatingRowColors(True)

        top = QWidget()
        top_layout = QVBoxLayout(top)
        top_layout.setContentsMargins(0, 0, 0, 0)
        top_layout.addLayout(controls)
        top_layout.addWidget(self.plot_widget, 1)
        top_layout.addWidget(self.note)
        bottom = QWidget()
        bottom_layout = QVBoxLayout(bottom)
        bottom_layout.setContentsMargins(0, 0, 0, 0)
        bottom_layout.addLayout(table_head)
        bottom_layout.addWidget(self.table, 1)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(top)
        split.addWidget(bottom)
        split.setStretchFactor(0, 1)
        split.setStretchFactor(1, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.title)
        layout.addWidget(split, 1)
        self.retranslate()

    # -- words --------------------------------------------------------------------------------
    def retranslate(self) -> None:
        self.x_label.setText(self.tr("x axis"))
        self.y_label.setText(self.tr("Curve"))
        self.smooth_label.setText(self.tr("Smoothing"))
        self.log_scale.setText(self.tr("Log scale"))
        self.differences.setText(self.tr("Differences only"))
        for box, items in (
            (
                self.x_box,
                [
                    (self.tr("Step"), "step"),
                    (self.tr("Wall time"), "time"),
                    (self.tr("Tokens seen"), "tokens"),
                    (self.tr("Money spent"), "money"),
                ],
            ),
            (self.y_box, [(self.tr("Loss"), "loss"), (self.tr("Tokens/s"), "tokens_per_s")]),
        ):
            current = max(0, box.currentIndex())
            box.blockSignals(True)
            box.clear()
            for text, key in items:
                box.addItem(text, key)
            box.setCurrentIndex(current)
            box.blockSignals(False)
        if self.comparison is not None:
            self.set_comparison(self.comparison)

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
        self.plot_widget.setBackground(theme.background)
        for name in ("left", "bottom"):
            axis = self.plot.getAxis(name)
            axis.setPen(theme.muted)
            axis.setTextPen(theme.foreground)
        self.legend.setLabelTextColor(theme.foreground)
        self._draw()

    # -- data ---------------------------------------------------------------------------------
    def set_comparison(self, comparison: Comparison) -> None:
        self.comparison = comparison
        self.title.setText(self.tr("Comparing {n} jobs").format(n=len(comparison.replays)))
        self._draw()
        self._fill_table()

    @property
    def x_axis(self) -> str:
        return str(self.x_box.currentData() or "step")

    def set_x_axis(self, key: str) -> None:
        self.x_box.setCurrentIndex(max(0, self.x_box.findData(key)))

    def _draw(self) -> None:
        self.smooth_value.setText(f"{self.smooth.value() / 100:.2f}")
        comparison = self.comparison
        for item in self.items:
            self.plot.removeItem(item)
        self.items.clear()
        self.legend.clear()
        self.shown = []
        if comparison is None:
            return
        x_axis = self.x_axis
        y_key = str(self.y_box.currentData() or "loss")
        weight = self.smooth.value() / 100
        log_y = self.log_scale.isChecked()
        missing = []
        currencies = set()
        for i, replay in enumerate(comparison.replays):
            c = curve(replay, x_axis, y_key, weight)
            y = c.y.copy()
            if log_y:
                y[y <= 0] = np.nan
            ok = ~(np.isnan(c.x) | np.isnan(y))
            if not ok.any():
                missing.append(replay.label)
                continue
            self.shown.append(c)
            if c.currency:
                currencies.add(c.currency)
            x = c.x / self._time_unit()[0] if x_axis == "time" else c.x
            item = pg.PlotDataItem(
                x,
                y,
                pen=pg.mkPen(CURVE_COLORS[i % len(CURVE_COLORS)], width=2),
                name=html_text(c.label),  # a legend renders HTML: the run's name escaped
                connect="finite",
            )
            self.plot.addItem(item)
            self.items.append(item)
        self.plot.setLogMode(x=False, y=log_y)
        labels = {
            "step": self.tr("step"),
            "time": self.tr("wall time ({unit})").format(unit=self._time_unit()[1]),
            "tokens": self.tr("tokens seen"),
            "money": self.tr("money spent ({currency})").format(
                currency=", ".join(sorted(currencies)) or "–"
            ),
        }
        self.plot.setLabel("bottom", labels[x_axis], color=self.chart_theme.foreground)
        self.plot.setLabel(
            "left",
            self.tr("loss") if y_key == "loss" else self.tr("tokens/s"),
            color=self.chart_theme.foreground,
        )
        self.plot.enableAutoRange()
        self.note.setText(
            self.tr("No points on this axis for: {runs}").format(runs=", ".join(missing))
            if missing
            else ""
        )
        self.note.setVisible(bool(missing))

    def _time_unit(self) -> tuple[float, str]:
        comparison = self.comparison
        longest = max((r.span_s for r in comparison.replays), default=0) if comparison else 0
        if longest > 3 * 3600:
            return 3600.0, self.tr("h")
        if longest > 180:
            return 60.0, self.tr("min")
        return 1.0, self.tr("s")

    def _fill_table(self) -> None:
        comparison = self.comparison
        if comparison is None:
            self.table.setRowCount(0)
            return
        rows = comparison.table(differences_only=self.differences.isChecked())
        total = len(comparison.table(differences_only=False))
        runs = comparison.replays
        self.table.setColumnCount(2 + len(runs))
        self.table.setHorizontalHeaderLabels(
            [self.tr("Group"), self.tr("Setting or result"), *(r.label for r in runs)]
        )
        self.table.setRowCount(len(rows))
        for r, row in enumerate(rows):
            group, label, translated = row_label(row.key)
            g = QTableWidgetItem(group)
            g.setData(TRANSLATED_ROLE, True)
            name = QTableWidgetItem(label)
            name.setToolTip(plain_tip(row.key))
            # a spec field or an NCCL variable is shown by its name, as in every language
            name.setData(TRANSLATED_ROLE if translated else DATA_ROLE, True)
            self.table.setItem(r, 0, g)
            self.table.setItem(r, 1, name)
            for c, value in enumerate(row.values):
                if row.key == "cluster.fabric" and value is not None:
                    text = fabric_text(value)
                    is_data = text == value  # a fabric's name (one machine is worded)
                else:
                    text = row_value(row.key, value)
                    is_data = _is_data_key(row.key) or (value is not None and row.key in DATA_ROWS)
                cell = QTableWidgetItem(text)
                cell.setToolTip(plain_tip(value or ""))
                if row.key == "result.state":
                    cell.setData(TRANSLATED_ROLE, True)
                elif is_data:
                    cell.setData(DATA_ROLE, True)
                self.table.setItem(r, 2 + c, cell)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        for c in range(len(runs)):
            header.setSectionResizeMode(2 + c, QHeaderView.ResizeMode.Stretch)
        self.table_count.setText(
            self.tr("{shown} of {total} rows").format(shown=len(rows), total=total)
            if self.differences.isChecked()
            else self.tr("{total} rows").format(total=total)
        )

    def visible_keys(self) -> list[str]:
        """The keys of the rows shown now (tests)."""
        out = []
        for r in range(self.table.rowCount()):
            item = self.table.item(r, 1)
            out.append(item.toolTip() if item else "")
        return out
