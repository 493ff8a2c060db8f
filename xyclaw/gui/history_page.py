"""The History page: every past cluster and job, from this computer's history alone.

No provider is asked for anything here, so the page works on a train with no network and
with the simulated cloud stopped: the lists, a job's or a cluster's replay (its GPUs, its
loss, its log, what happened to it, what it cost), comparisons of jobs, and exports to
JSON and CSV all come from the SQLite history (:mod:`xyclaw.gui.history_data`), read on
the worker so the window never waits for the disk.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from PySide6.QtCore import (
    QDate,
    QDateTime,
    QEvent,
    QItemSelectionModel,
    QPoint,
    QSortFilterProxyModel,
    Qt,
    QTime,
    QTimer,
    Signal,
)
from PySide6.QtGui import QKeySequence, QShortcut, QShowEvent, QStandardItem, QStandardItemModel
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDateEdit,
    QDoubleSpinBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMenu,
    QPushButton,
    QSplitter,
    QStackedWidget,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from xyclaw.gui import i18n
from xyclaw.gui.bridge import ErrorInfo, Worker
from xyclaw.gui.formatting import fabric_text, reword, show_worded
from xyclaw.gui.history_compare import CompareView
from xyclaw.gui.history_data import (
    Comparison,
    HistoryFilter,
    HistorySource,
    Replay,
    choices,
    export_of,
    filter_rows,
    write_csv,
    write_json,
)
from xyclaw.gui.history_memory import MemoryView, result_text
from xyclaw.gui.history_replay import ReplayView
from xyclaw.gui.history_words import state
from xyclaw.gui.widgets import DATA_ROLE, TRANSLATED_ROLE, plain_label, plain_tip
from xyclaw.wording import display

log = logging.getLogger(__name__)

SORT_ROLE = int(Qt.ItemDataRole.UserRole) + 1
ID_ROLE = int(Qt.ItemDataRole.UserRole) + 2
PERIODS = ("any", "today", "7d", "30d", "year", "custom")


def _shape(row: dict[str, Any]) -> str:
    per = int(row.get("gpus_per_node") or 0)
    count = int(row.get("gpu_count") or 0)
    if not count:
        return "–"
    return f"{count // max(1, per)} x {per} {row.get('gpu') or ''}".strip()


def result_rows(result: Any) -> dict[str, str | None]:
    """A job's cost per result and MFU as comparison rows (``result.*``)."""
    currency = result.currency or "CNY"

    def money(micros: int | None) -> str | None:
        return None if micros is None else i18n.money(micros, currency)

    mfu = result.mfu
    return {
        "result.mfu": None if mfu is None else f"{100 * mfu:.3g}%",
        "result.cost_per_m_tokens": money(result.cost_per_m_tokens_micros),
        "result.cost_per_epoch": money(result.cost_per_epoch_micros),
        "result.cost_per_1k_requests": money(result.cost_per_1k_requests_micros),
        "result.method": result.method,
    }


def _span(row: dict[str, Any], start: str, end: str) -> float | None:
    a, b = row.get(start) or row.get("created_at"), row.get(end)
    return None if a is None or b is None else float(b) - float(a)


#: The job list's columns hidden until asked for: cost per result and MFU.
_JOB_COLUMNS_HIDDEN = (12, 13)


class HistoryPage(QWidget):
    """``source`` reads the history; ``worker`` runs the reads; ``bridge`` (optional) tells
    of new or changed clusters and jobs so the lists follow."""

    loaded = Signal()  # the lists were (re)read
    replay_shown = Signal(object)  # a Replay
    comparison_shown = Signal(object)  # a Comparison

    def __init__(
        self,
        source: HistorySource,
        worker: Worker,
        *,
        bridge: Any | None = None,
        on_error: Callable[[ErrorInfo], None] | None = None,
        on_launch_again: Callable[[int], None] | None = None,
        engine: Any | None = None,
        parent: QWidget | None = None,
    ) -> None:
        """``engine`` (optional) adds what only it reads from the history: each job's cost per
        result and MFU, and the memory of hosts and providers (issue 36)."""
        super().__init__(parent)
        self.engine = engine
        self.setObjectName("page_history")
        self.on_launch_again = on_launch_again
        self.source = source
        self.worker = worker
        self.on_error = on_error
        self.jobs: list[dict[str, Any]] = []
        self.clusters: list[dict[str, Any]] = []
        self.shown_jobs: list[dict[str, Any]] = []
        self.shown_clusters: list[dict[str, Any]] = []
        self.replay: Replay | None = None
        self.comparison: Comparison | None = None
        self.loading = 0
        self._loaded_once = False
        self._stale = False

        self.title = plain_label()
        self.title.setProperty("role", "title")
        self.subtitle = plain_label()
        self.subtitle.setProperty("role", "muted")
        self.subtitle.setWordWrap(True)

        # filters
        self.search = QLineEdit()
        self.search.setObjectName("historySearch")
        self.search.setClearButtonEnabled(True)
        self.search.setMinimumWidth(180)
        self.period = QComboBox()
        self.period.setObjectName("historyPeriod")
        self.since = QDateEdit()
        self.until = QDateEdit()
        for edit in (self.since, self.until):
            edit.setCalendarPopup(True)
            edit.setDate(QDate.currentDate())
            edit.setVisible(False)
        self.provider = QComboBox()
        self.provider.setObjectName("historyProvider")
        self.provider.setProperty("data", True)
        self.gpu = QComboBox()
        self.gpu.setObjectName("historyGpu")
        self.gpu.setProperty("data", True)
        self.state_box = QComboBox()
        self.state_box.setObjectName("historyState")
        self.min_cost = QDoubleSpinBox()
        self.max_cost = QDoubleSpinBox()
        for box in (self.min_cost, self.max_cost):
            box.setRange(0, 1e9)
            box.setDecimals(2)
            box.setSpecialValueText("–")
            box.setMaximumWidth(100)
        self.cost_label = plain_label()
        self.cost_to = QLabel("–")
        self.provider_label, self.gpu_label, self.state_label = (
            plain_label(),
            plain_label(),
            plain_label(),
        )
        self.period_label = plain_label()
        for label, buddy in (
            (self.provider_label, self.provider),
            (self.gpu_label, self.gpu),
            (self.state_label, self.state_box),
            (self.period_label, self.period),
            (self.cost_label, self.min_cost),
        ):
            label.setBuddy(buddy)
        filters = QHBoxLayout()
        filters.setSpacing(6)
        filters.addWidget(self.search, 2)
        for w in (
            self.period_label, self.period, self.since, self.until, self.provider_label,
            self.provider, self.gpu_label, self.gpu, self.state_label, self.state_box,
            self.cost_label, self.min_cost, self.cost_to, self.max_cost,
        ):  # fmt: skip
            filters.addWidget(w)
        self.search.textChanged.connect(lambda _t: self._filter_timer.start())
        for box in (self.period, self.provider, self.gpu, self.state_box):
            box.currentIndexChanged.connect(self.apply_filters)
        for edit in (self.since, self.until):
            edit.dateChanged.connect(self.apply_filters)
        for spin in (self.min_cost, self.max_cost):
            spin.valueChanged.connect(lambda _v: self._filter_timer.start())
        self._filter_timer = QTimer(self)
        self._filter_timer.setSingleShot(True)
        self._filter_timer.setInterval(150)
        self._filter_timer.timeout.connect(self.apply_filters)

        # lists
        self.job_model = QStandardItemModel(0, 14, self)
        self.cluster_model = QStandardItemModel(0, 11, self)
        self.job_table = self._table(self.job_model, "historyJobs")
        # cost per result and MFU (issue 36) are in the comparison and the "Hosts and
        # providers" tab; in the list they are shown on request (right-click a header), so
        # every column stays in view at the default size
        for column in _JOB_COLUMNS_HIDDEN:
            self.job_table.setColumnHidden(column, True)
        self.cluster_table = self._table(self.cluster_model, "historyClusters")
        self.job_table.doubleClicked.connect(lambda _i: self.replay_selected())
        self.cluster_table.doubleClicked.connect(lambda _i: self.replay_selected())
        self.job_table.selectionModel().selectionChanged.connect(lambda *_: self._selection())
        self.cluster_table.selectionModel().selectionChanged.connect(lambda *_: self._selection())
        self.lists = QTabWidget()
        self.lists.setObjectName("historyLists")
        self.lists.addTab(self.job_table, "")
        self.lists.addTab(self.cluster_table, "")
        # The hosts-and-providers tab is built when first shown (or first asked for): its
        # three tables were a fifth of building the page on its first open (issue 28).
        self._memory_view: MemoryView | None = None
        self._memory_data: tuple[Any, Any] | None = None
        self._memory_slot = QWidget()
        self._memory_slot.setObjectName("historyMemorySlot")
        QVBoxLayout(self._memory_slot).setContentsMargins(0, 0, 0, 0)
        self.lists.addTab(self._memory_slot, "")
        self.lists.setTabVisible(2, engine is not None)
        self.lists.currentChanged.connect(self._list_shown)

        self.replay_button = QPushButton()
        self.replay_button.setObjectName("historyReplayButton")
        self.replay_button.setProperty("role", "primary")
        self.replay_button.clicked.connect(self.replay_selected)
        self.compare_button = QPushButton()
        self.compare_button.setObjectName("historyCompareButton")
        self.compare_button.clicked.connect(self.compare_selected)
        self.export_button = QPushButton()
        self.export_button.setObjectName("historyExportButton")
        self.export_button.clicked.connect(self.export_dialog)
        self.again_button = QPushButton()
        self.again_button.setObjectName("historyLaunchAgain")
        self.again_button.clicked.connect(self.launch_again)
        self.again_button.setVisible(on_launch_again is not None)
        self.refresh_button = QPushButton()
        self.refresh_button.setObjectName("historyRefresh")
        self.refresh_button.clicked.connect(self.refresh)
        self.summary = plain_label()
        self.summary.setProperty("role", "muted")
        self.error = plain_label()
        self.error.setProperty("role", "error")
        self.error.setWordWrap(True)
        self.error.setVisible(False)
        actions = QHBoxLayout()
        for b in (
            self.replay_button, self.compare_button, self.export_button, self.again_button,
            self.refresh_button,
        ):  # fmt: skip
            actions.addWidget(b)
        actions.addSpacing(12)
        actions.addWidget(self.summary, 1)

        # detail
        self.hint = plain_label()
        self.hint.setProperty("role", "muted")
        self.hint.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.hint.setWordWrap(True)
        # the replay's and the comparison's charts are built when first opened: they were
        # two thirds of building the page (pyqtgraph plots), on the way to its first show
        self._replay_view: ReplayView | None = None
        self._compare_view: CompareView | None = None
        self.detail = QStackedWidget()
        self.detail.setObjectName("historyDetail")
        self.detail.addWidget(self.hint)

        upper = QWidget()
        upper_layout = QVBoxLayout(upper)
        upper_layout.setContentsMargins(0, 0, 0, 0)
        upper_layout.addLayout(filters)
        upper_layout.addWidget(self.lists, 1)
        upper_layout.addLayout(actions)
        upper_layout.addWidget(self.error)
        self.split = QSplitter(Qt.Orientation.Vertical)
        self.split.setObjectName("historySplit")
        self.split.addWidget(upper)
        self.split.addWidget(self.detail)
        self.split.setStretchFactor(0, 1)
        self.split.setStretchFactor(1, 3)
        self.split.setSizes([300, 600])
        self.split.setChildrenCollapsible(False)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(20, 14, 20, 10)
        layout.setSpacing(6)
        head = QHBoxLayout()
        head.addWidget(self.title)
        head.addSpacing(12)
        head.addWidget(self.subtitle, 1)
        layout.addLayout(head)
        layout.addWidget(self.split, 1)

        for keys, slot in (
            (QKeySequence.StandardKey.Refresh, self.refresh),
            ("Ctrl+E", self.export_dialog),
            ("Ctrl+Shift+C", self.compare_selected),
        ):
            shortcut = QShortcut(QKeySequence(keys), self)
            shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            shortcut.activated.connect(slot)
        for table in (self.job_table, self.cluster_table):
            enter = QShortcut(QKeySequence(Qt.Key.Key_Return), table)
            enter.setContext(Qt.ShortcutContext.WidgetShortcut)
            enter.activated.connect(self.replay_selected)
        QWidget.setTabOrder(self.search, self.period)
        QWidget.setTabOrder(self.period, self.provider)
        QWidget.setTabOrder(self.provider, self.gpu)
        QWidget.setTabOrder(self.gpu, self.state_box)
        QWidget.setTabOrder(self.state_box, self.min_cost)
        QWidget.setTabOrder(self.min_cost, self.max_cost)
        QWidget.setTabOrder(self.max_cost, self.lists)
        QWidget.setTabOrder(self.lists, self.job_table)
        QWidget.setTabOrder(self.job_table, self.replay_button)
        QWidget.setTabOrder(self.replay_button, self.compare_button)
        QWidget.setTabOrder(self.compare_button, self.export_button)
        QWidget.setTabOrder(self.export_button, self.again_button)
        QWidget.setTabOrder(self.again_button, self.refresh_button)

        if bridge is not None:
            self._follow = QTimer(self)
            self._follow.setSingleShot(True)
            self._follow.setInterval(1500)
            self._follow.timeout.connect(self._changed_elsewhere)
            for signal in ("cluster_changed", "job_changed"):
                getattr(bridge, signal).connect(lambda _e: self._follow.start())
        self.retranslate()
        self._selection()

    def _table(self, model: QStandardItemModel, name: str) -> QTableView:
        proxy = QSortFilterProxyModel(self)
        proxy.setSourceModel(model)
        proxy.setSortRole(SORT_ROLE)
        table = QTableView()
        table.setObjectName(name)
        table.setModel(proxy)
        table.setSortingEnabled(True)
        table.sortByColumn(0, Qt.SortOrder.DescendingOrder)
        table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        table.setAlternatingRowColors(True)
        table.verticalHeader().setVisible(False)
        table.verticalHeader().setDefaultSectionSize(24)
        header = table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        # The name column takes the room left, or gives it up (its names elided, whole in
        # their tooltip): every column stays in view at the default size, the last too.
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        header.setStretchLastSection(False)
        table.setWordWrap(False)
        table.setMinimumHeight(130)  # a few rows stay in view with the operations panel open
        header.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        header.customContextMenuRequested.connect(lambda pos: self._column_menu(table, pos))
        return table

    def _column_menu(self, table: QTableView, pos: QPoint) -> None:
        """Right-click on a header: a check per column, to show or hide it."""
        header = table.horizontalHeader()
        model = table.model()
        menu = QMenu(self)
        for column in range(model.columnCount()):
            text = str(model.headerData(column, Qt.Orientation.Horizontal) or "")
            action = menu.addAction(text)
            action.setCheckable(True)
            action.setChecked(not table.isColumnHidden(column))
            action.toggled.connect(lambda shown, c=column: table.setColumnHidden(c, not shown))
        menu.popup(header.mapToGlobal(pos))

    # -- words --------------------------------------------------------------------------------
    @property
    def replay_view(self) -> ReplayView:
        """A job's replay (built on first use)."""
        if self._replay_view is None:
            self._replay_view = ReplayView()
            self.detail.addWidget(self._replay_view)
        return self._replay_view

    @property
    def compare_view(self) -> CompareView:
        """Two or more jobs compared (built on first use)."""
        if self._compare_view is None:
            self._compare_view = CompareView()
            self.detail.addWidget(self._compare_view)
        return self._compare_view

    def retranslate(self) -> None:
        self.title.setText(self.tr("History"))
        self.subtitle.setText(
            self.tr(
                "Every cluster and job XyClaw ran, from this computer's history: it works "
                "offline, and nothing here asks a provider."
            )
        )
        self.search.setPlaceholderText(self.tr("Search names, clusters, ids… (Ctrl+F)"))
        self.period_label.setText(self.tr("Period"))
        self.provider_label.setText(self.tr("Provider"))
        self.gpu_label.setText(self.tr("GPU"))
        self.state_label.setText(self.tr("State"))
        self.cost_label.setText(self.tr("Cost"))
        self.min_cost.setToolTip(self.tr("Lowest cost shown (in the run's currency)"))
        self.max_cost.setToolTip(self.tr("Highest cost shown (– for no limit)"))
        self._fill_period()
        self.lists.setTabText(0, self.tr("Jobs"))
        self.lists.setTabText(1, self.tr("Clusters"))
        self.lists.setTabText(2, self.tr("Hosts and providers"))
        self.job_model.setHorizontalHeaderLabels(
            [
                self.tr("ID"), self.tr("Job"), self.tr("State"), self.tr("Cluster"),
                self.tr("Provider"), self.tr("GPUs"), self.tr("Started"), self.tr("Duration"),
                self.tr("Attempts"), self.tr("Final loss"), self.tr("Tokens/s"), self.tr("Cost"),
                self.tr("Cost per result"), self.tr("MFU"),
            ]
        )  # fmt: skip
        self.cluster_model.setHorizontalHeaderLabels(
            [
                self.tr("ID"), self.tr("Cluster"), self.tr("State"), self.tr("Provider"),
                self.tr("Region"), self.tr("GPUs"), self.tr("Fabric"), self.tr("Rented"),
                self.tr("Duration"), self.tr("Jobs"), self.tr("Cost"),
            ]
        )  # fmt: skip
        self.replay_button.setText(self.tr("Replay"))
        self.replay_button.setToolTip(self.tr("Play back the selected run (Enter)"))
        self.compare_button.setToolTip(
            self.tr("Overlay the curves and table the settings of the selected jobs (Ctrl+Shift+C)")
        )
        self.export_button.setText(self.tr("Export…"))
        self.export_button.setToolTip(self.tr("Write what is shown below to JSON or CSV (Ctrl+E)"))
        self.again_button.setText(self.tr("Launch again…"))
        self.again_button.setToolTip(
            self.tr("Launch a new job with the selected job's spec (on the Jobs page)")
        )
        self.refresh_button.setText(self.tr("Refresh"))
        self.refresh_button.setToolTip(self.tr("Read the history again (F5)"))
        self.hint.setText(
            self.tr(
                "Pick a job or a cluster and press Replay to play it back; pick two or more "
                "jobs (Ctrl+click) and press Compare to overlay their curves."
            )
        )
        self._refill_choices()
        reword(self.error)
        if self._loaded_once:
            self.apply_filters()  # states, dates and durations in the new language
        self._after_filter()
        self._selection()

    def _fill_period(self) -> None:
        names = {
            "any": self.tr("any time"),
            "today": self.tr("today"),
            "7d": self.tr("last 7 days"),
            "30d": self.tr("last 30 days"),
            "year": self.tr("this year"),
            "custom": self.tr("between dates"),
        }
        current = self.period.currentData() or "any"
        self.period.blockSignals(True)
        self.period.clear()
        for key in PERIODS:
            self.period.addItem(names[key], key)
        self.period.setCurrentIndex(PERIODS.index(current))
        self.period.blockSignals(False)

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if not self._loaded_once or self._stale:
            self.refresh()

    def focus_search(self) -> None:
        self.search.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.search.selectAll()

    # -- reading --------------------------------------------------------------------------------
    @property
    def busy(self) -> bool:
        return self.loading > 0

    def _submit(self, fn: Callable[[], Any], done: Callable[[Any], None], name: str) -> None:
        self.loading += 1

        def finished(value: Any) -> None:
            self.loading -= 1
            done(value)

        def failed(error: ErrorInfo) -> None:
            self.loading -= 1
            self.show_error(error)

        self.worker.submit(fn, on_done=finished, on_error=failed, name=name)

    def refresh(self) -> None:
        self._stale = False
        source, engine = self.source, self.engine

        def read() -> tuple[Any, ...]:
            jobs, clusters = source.jobs(), source.clusters()
            if engine is None:
                return jobs, clusters
            results = {r.job_id: r for r in engine.job_results()}
            for row in jobs:
                row["result"] = results.get(int(row["id"]))
            return jobs, clusters, engine.track_record(), engine.result_trends()

        self._submit(read, self._loaded, "read the history")

    def _changed_elsewhere(self) -> None:
        if self.isVisible():
            self.refresh()
        else:
            self._stale = True

    def _loaded(self, value: tuple[Any, ...]) -> None:
        self._loaded_once = True
        self.error.setVisible(False)
        self.jobs, self.clusters = value[0], value[1]
        if len(value) == 4:
            if self._memory_view is None:
                self._memory_data = (value[2], value[3])  # shown when the tab is built
            else:
                self._memory_view.set_data(value[2], value[3])
        self._refill_choices()
        self.apply_filters()
        self.loaded.emit()

    def show_error(self, error: ErrorInfo) -> None:
        show_worded(self.error, error.text)
        self.error.setVisible(True)
        if self.on_error is not None:
            self.on_error(error)

    def _refill_choices(self) -> None:
        rows = [*self.jobs, *self.clusters]
        for box, values, everything in (
            (self.provider, choices(rows, "provider"), self.tr("all providers")),
            (self.gpu, choices(rows, "gpu"), self.tr("all GPUs")),
            (self.state_box, choices(rows, "state"), self.tr("all states")),
        ):
            current = box.currentData()
            box.blockSignals(True)
            box.clear()
            box.addItem(everything, None)
            for value in values:
                box.addItem(state(value) if box is self.state_box else value, value)
            index = box.findData(current) if current is not None else 0
            box.setCurrentIndex(max(0, index))
            box.blockSignals(False)

    # -- filters --------------------------------------------------------------------------------
    def current_filter(self) -> HistoryFilter:
        since, until = self._period_bounds()
        return HistoryFilter(
            since=since,
            until=until,
            provider=self.provider.currentData(),
            gpu=self.gpu.currentData(),
            state=self.state_box.currentData(),
            min_cost=self.min_cost.value() or None,
            max_cost=self.max_cost.value() or None,
            text=self.search.text().strip(),
        )

    def _period_bounds(self) -> tuple[float | None, float | None]:
        key = self.period.currentData() or "any"
        custom = key == "custom"
        self.since.setVisible(custom)
        self.until.setVisible(custom)
        today = QDateTime(QDate.currentDate(), QTime(0, 0)).toSecsSinceEpoch()
        if key == "today":
            return float(today), None
        if key == "7d":
            return float(today - 6 * 86400), None
        if key == "30d":
            return float(today - 29 * 86400), None
        if key == "year":
            first = QDate(QDate.currentDate().year(), 1, 1)
            return float(QDateTime(first, QTime(0, 0)).toSecsSinceEpoch()), None
        if custom:
            a = QDateTime(self.since.date(), QTime(0, 0)).toSecsSinceEpoch()
            b = QDateTime(self.until.date().addDays(1), QTime(0, 0)).toSecsSinceEpoch()
            return float(a), float(b)
        return None, None

    def set_filter(self, **values: Any) -> None:
        """Set filters by name (provider, gpu, state, text, min_cost, max_cost, period)."""
        for name, box in (("provider", self.provider), ("gpu", self.gpu), ("state", self.state_box),
                          ("period", self.period)):  # fmt: skip
            if name in values:
                box.setCurrentIndex(max(0, box.findData(values[name])))
        if "text" in values:
            self.search.setText(str(values["text"]))
        if "min_cost" in values:
            self.min_cost.setValue(float(values["min_cost"] or 0))
        if "max_cost" in values:
            self.max_cost.setValue(float(values["max_cost"] or 0))
        self.apply_filters()

    def apply_filters(self) -> None:
        flt = self.current_filter()
        self.shown_jobs = filter_rows(self.jobs, flt)
        self.shown_clusters = filter_rows(self.clusters, flt)
        self._fill_jobs()
        self._fill_clusters()
        self._after_filter()

    @property
    def memory_view(self) -> MemoryView:
        """The hosts-and-providers tab's view, built (with what was read for it) on first use."""
        if self._memory_view is None:
            view = MemoryView()
            if self._memory_data is not None:
                view.set_data(*self._memory_data)
                self._memory_data = None
            layout = self._memory_slot.layout()
            assert layout is not None
            layout.addWidget(view)
            view.show()  # now, not at the next turn (Qt's way): no empty frame in between
            self._memory_view = view
        return self._memory_view

    def memory_built(self) -> bool:
        return self._memory_view is not None

    def _list_shown(self, index: int) -> None:
        if index == 2:
            self.memory_view  # noqa: B018 - built on its first show
        self._after_filter()

    def _after_filter(self) -> None:
        if self.lists.currentIndex() == 2:
            self.summary.setText(self.memory_view.summary())
            return
        jobs_tab = self.lists.currentIndex() == 0
        rows = self.shown_jobs if jobs_tab else self.shown_clusters
        total = len(self.jobs if jobs_tab else self.clusters)
        costs: dict[str, float] = {}
        for r in rows:
            currency = r.get("currency") or "CNY"
            costs[currency] = costs.get(currency, 0) + float(r.get("cost_micros") or 0)
        spent = " + ".join(i18n.money(v, c) for c, v in sorted(costs.items())) or "–"
        what = self.tr("jobs") if jobs_tab else self.tr("clusters")
        self.summary.setText(
            self.tr("{shown} of {total} {what} · {cost} in all").format(
                shown=len(rows), total=total, what=what, cost=spent
            )
        )

    @staticmethod
    def _cell(
        text: str,
        sort: Any,
        *,
        translated: bool = False,
        row_id: int | None = None,
        data: bool = False,
    ) -> QStandardItem:
        """A list cell; ``data``: a name (a job's, a cluster's, a provider's, a region's,
        a fabric's), shown as it is in every language."""
        item = QStandardItem(display.line(text))  # names kept as written, drawn safely
        item.setData(sort if sort is not None else "", SORT_ROLE)
        if translated:
            item.setData(True, TRANSLATED_ROLE)
        if data:
            item.setData(True, DATA_ROLE)
            item.setToolTip(plain_tip(display.line(text)))  # a long name is elided
        if row_id is not None:
            item.setData(row_id, ID_ROLE)
        item.setEditable(False)
        return item

    def _fill_jobs(self) -> None:
        model = self.job_model
        model.setRowCount(0)
        for r in self.shown_jobs:
            duration = _span(r, "started_at", "ended_at")
            loss = r.get("final_loss")
            rate = r.get("tokens_per_s")
            cost = r.get("cost_micros") or 0
            result = r.get("result")
            per, per_sort = result_text(result) if result is not None else ("–", -1.0)
            mfu = result.mfu if result is not None else None
            model.appendRow(
                [
                    self._cell(str(r["id"]), int(r["id"]), row_id=int(r["id"])),
                    self._cell(str(r["name"]), str(r["name"]), data=True),
                    self._cell(state(r["state"]), str(r["state"]), translated=True),
                    self._cell(str(r.get("cluster") or "–"), str(r.get("cluster") or ""),
                               data=True),
                    self._cell(str(r.get("provider") or "–"), str(r.get("provider") or ""),
                               data=True),
                    self._cell(_shape(r), int(r.get("gpu_count") or 0)),
                    self._cell(i18n.date_time(r.get("started_at") or r["created_at"]),
                               float(r.get("started_at") or r["created_at"]), translated=True),
                    self._cell(i18n.duration(duration), duration or 0.0, translated=True),
                    self._cell(str(r.get("attempt") or 1), int(r.get("attempt") or 1)),
                    self._cell(
                        "–" if loss is None else i18n.number(loss, 4),
                        loss if loss is not None else -1.0,
                    ),
                    self._cell("–" if rate is None else i18n.number(rate), rate or 0.0),
                    self._cell(i18n.money(cost, r.get("currency") or "CNY"), float(cost)),
                    self._cell(per, per_sort, translated=per != "–"),
                    self._cell("–" if mfu is None else f"{mfu:.1%}", mfu or -1.0),
                ]
            )  # fmt: skip

    def _fill_clusters(self) -> None:
        model = self.cluster_model
        model.setRowCount(0)
        for r in self.shown_clusters:
            duration = _span(r, "created_at", "released_at")
            cost = r.get("cost_micros") or 0
            fabric = fabric_text(r["fabric"]) if r.get("fabric") else "–"
            model.appendRow(
                [
                    self._cell(str(r["id"]), int(r["id"]), row_id=int(r["id"])),
                    self._cell(str(r["name"]), str(r["name"]), data=True),
                    self._cell(state(r["state"]), str(r["state"]), translated=True),
                    self._cell(str(r.get("provider") or "–"), str(r.get("provider") or ""),
                               data=True),
                    self._cell(str(r.get("region") or "–"), str(r.get("region") or ""),
                               data=True),
                    self._cell(_shape(r), int(r.get("gpu_count") or 0)),
                    self._cell(fabric, str(r.get("fabric") or ""), data=fabric == r.get("fabric")),
                    self._cell(
                        i18n.date_time(r["created_at"]), float(r["created_at"]), translated=True
                    ),
                    self._cell(i18n.duration(duration), duration or 0.0, translated=True),
                    self._cell(str(r.get("job_count") or 0), int(r.get("job_count") or 0)),
                    self._cell(i18n.money(cost, r.get("currency") or "CNY"), float(cost)),
                ]
            )  # fmt: skip

    # -- selection and actions ---------------------------------------------------------------
    def _current_table(self) -> QTableView:
        return self.job_table if self.lists.currentIndex() == 0 else self.cluster_table

    def selected_ids(self) -> list[int]:
        if self.lists.currentIndex() not in (0, 1):  # the memory: nothing to replay
            return []
        table = self._current_table()
        proxy = table.model()
        rows = {i.row() for i in table.selectionModel().selectedRows()}
        return sorted(int(proxy.data(proxy.index(r, 0), ID_ROLE)) for r in rows)

    def select(self, kind: str, ids: Sequence[int]) -> None:
        """Select rows by id in the jobs or clusters list (shortcut for tests and links)."""
        self.lists.setCurrentIndex(0 if kind == "job" else 1)
        table = self._current_table()
        proxy = table.model()
        selection = table.selectionModel()
        selection.clearSelection()
        for r in range(proxy.rowCount()):
            index = proxy.index(r, 0)
            if int(proxy.data(index, ID_ROLE)) in ids:
                selection.select(
                    index,
                    QItemSelectionModel.SelectionFlag.Select
                    | QItemSelectionModel.SelectionFlag.Rows,
                )
        self._selection()

    def _selection(self) -> None:
        ids = self.selected_ids()
        jobs_tab = self.lists.currentIndex() == 0
        self.replay_button.setEnabled(len(ids) >= 1)
        self.compare_button.setEnabled(jobs_tab and len(ids) >= 2)
        self.compare_button.setText(
            self.tr("Compare ({n})").format(n=len(ids)) if jobs_tab and len(ids) >= 2
            else self.tr("Compare")
        )  # fmt: skip
        self.export_button.setEnabled(self.replay is not None or self.comparison is not None)
        self.again_button.setEnabled(jobs_tab and len(ids) == 1)

    def launch_again(self) -> None:
        """The selected job's spec, launched again through the Jobs page (where it asks where
        to run it and, when it rents, for the approval)."""
        ids = self.selected_ids()
        if self.on_launch_again is not None and self.lists.currentIndex() == 0 and len(ids) == 1:
            self.on_launch_again(ids[0])

    def replay_selected(self) -> None:
        ids = self.selected_ids()
        if ids:
            self.open_replay("job" if self.lists.currentIndex() == 0 else "cluster", ids[0])

    def open_replay(self, kind: str, item_id: int) -> None:
        source = self.source
        read = (lambda: source.replay_job(item_id)) if kind == "job" else (
            lambda: source.replay_cluster(item_id))  # fmt: skip
        self._submit(read, self._show_replay, f"replay {kind} {item_id}")

    def _show_replay(self, replay: Replay) -> None:
        self.replay = replay
        self.comparison = None
        self.replay_view.set_replay(replay)
        self.detail.setCurrentWidget(self.replay_view)
        self._selection()
        self.replay_shown.emit(replay)

    def compare_selected(self) -> None:
        ids = self.selected_ids()
        if self.lists.currentIndex() == 0 and len(ids) >= 2:
            self.open_comparison(ids)

    def open_comparison(self, job_ids: Sequence[int]) -> None:
        source, engine = self.source, self.engine
        ids = list(job_ids)

        def compare() -> Comparison:
            comparison = source.compare(ids)
            if engine is not None:  # cost per result, and MFU counted for the task (issue 36)
                results = {r.job_id: r for r in engine.job_results()}
                for replay in comparison.replays:
                    result = results.get(replay.id)
                    if result is not None:  # an estimate stays where the engine has none
                        found = result_rows(result)
                        replay.results.update({k: v for k, v in found.items() if v is not None})
            return comparison

        self._submit(compare, self._show_comparison, "compare jobs")

    def _show_comparison(self, comparison: Comparison) -> None:
        self.comparison = comparison
        self.replay = None
        self.compare_view.set_comparison(comparison)
        self.detail.setCurrentWidget(self.compare_view)
        self._selection()
        self.comparison_shown.emit(comparison)

    # -- export ---------------------------------------------------------------------------------
    def _exported_runs(self) -> list[Replay]:
        if self.comparison is not None:
            return list(self.comparison.replays)
        return [self.replay] if self.replay is not None else []

    def export_to(self, path: Path, done: Callable[[list[Path]], None] | None = None) -> None:
        """Write what is shown (a replay or a comparison) to ``path``: JSON for ``.json``,
        else CSV (the series, and ``<name>-table.csv`` with the settings and results)."""
        runs = self._exported_runs()
        if not runs:
            return
        export = export_of(runs)
        path = Path(path)

        def write() -> list[Path]:
            if path.suffix.lower() == ".json":
                return [write_json(export, path)]
            return write_csv(export, path)

        def written(paths: list[Path]) -> None:
            self.summary.setText(
                self.tr("Written: {files}").format(files=", ".join(p.name for p in paths))
            )
            if done is not None:
                done(paths)

        self._submit(write, written, "export")

    def export_dialog(self) -> None:
        runs = self._exported_runs()
        if not runs:
            return
        stem = runs[0].name if len(runs) == 1 else "comparison-" + "-".join(str(r.id) for r in runs)
        name = f"xyclaw-{stem}-{time.strftime('%Y%m%d')}.json"
        path = i18n.save_file_name(
            self,
            self.tr("Export"),
            str(Path.home() / name),
            self.tr("JSON (*.json);;CSV (*.csv)"),
        )
        if path:
            self.export_to(Path(path))

    def closeEvent(self, event: Any) -> None:
        self.source.close()
        super().closeEvent(event)


def create_history_page(context: Any) -> HistoryPage:
    """The page as the main window builds it: the engine's history file, its worker and
    bridge (the lists follow new and changed clusters and jobs)."""
    engine = context.engine

    def launch_again(job_id: int) -> None:
        jobs = context.pages.get("jobs")
        if jobs is not None and hasattr(jobs, "launch_again"):
            context.show_page("jobs")
            jobs.launch_again(job_id)

    return HistoryPage(
        HistorySource(lambda: engine.paths.database),
        context.worker,
        bridge=context.bridge,
        on_error=context.show_error,
        on_launch_again=launch_again,
        engine=engine,
    )
