"""The Jobs page: every job with its state, cluster, attempt, progress, ETA and cost so far;
a job's detail (its attempts and why each ended, a progress bar with step/total and ETA,
loss and throughput charts, the live log with rank and node filters, search and follow,
its events, its cost, and for a service its local URL, request rate and latency);
"Launch…" from a spec file, "Launch again" with a job's own spec, and Cancel after a
confirmation.

Every engine call runs on the worker. A ``JobChanged`` event re-reads the list (and the
job shown); while a job is active the page also re-reads its progress every few seconds
and follows its log from the last line it has (``Engine.job_logs(since_offset=...)``), and
only while the page is visible.
"""

from __future__ import annotations

import html
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, Qt, QTimer, Signal
from PySide6.QtGui import QBrush, QColor, QKeySequence, QShortcut, QShowEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QFileDialog,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QSplitter,
    QStackedWidget,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from xyclaw.engine.values import JobRecord, LogLine, said_of
from xyclaw.gui import i18n
from xyclaw.gui.bridge import ErrorInfo
from xyclaw.gui.charts.curves import MIN_PLOT_PX
from xyclaw.gui.charts.theme import CURVE_COLORS, SEVERITY_COLORS, ChartTheme, theme_for
from xyclaw.gui.formatting import worded
from xyclaw.gui.history_words import CAUSES, SEVERITIES, progress_text, state, word
from xyclaw.gui.job_launch import LaunchFlow, SpecProblem, error_text
from xyclaw.gui.rent_flow import ApprovalDialog, destroy_request
from xyclaw.gui.state_dots import dot_icon
from xyclaw.gui.widgets import (
    DATA_ROLE,
    TRANSLATED_ROLE,
    html_text,
    plain_label,
    plain_tip,
    set_plain,
)
from xyclaw.paths import bundled
from xyclaw.wording import display

log = logging.getLogger(__name__)

#: Lines of a job's log read when it is opened (and after a filter changes).
LOG_TAIL = 3000
# After a failed attach (no SSH to the nodes), how long until the page tries again.
ATTACH_RETRY_MS = 30_000
#: Lines kept in the log view while following (older ones scroll away).
LOG_KEEP = 20000
ACTIVE_STATES = frozenset({"queued", "setting-up", "running", "recovering", "lost-contact"})
STATE_COLORS = {
    "failed": SEVERITY_COLORS.get("error", "#dc2626"),
    "lost-contact": SEVERITY_COLORS.get("warning", "#d97706"),
    "recovering": SEVERITY_COLORS.get("warning", "#d97706"),
}


def cause_text(cause: str | None) -> str:
    return word(CAUSES, cause or None)


def cost_text(job: JobRecord) -> str:
    if job.cost_micros is None:
        return "–"
    return i18n.money(job.cost_micros, job.currency or "CNY")


@dataclass
class JobDetail:
    """What the detail shows of one job, read together on the worker."""

    job: JobRecord
    metrics: list[dict[str, Any]]
    events: list[dict[str, Any]]
    lines: list[LogLine] | None = None  # None: the log was not re-read this time
    read_at: float = field(default_factory=time.time)
    result: Any | None = None  # its cost per result and MFU (Engine.job_results, issue 36)


def job_events(engine: Any, job: JobRecord, limit: int = 400) -> list[dict[str, Any]]:
    """The job's own events, and its cluster's alerts while it ran, oldest first."""
    rows = engine.recent_events(limit, None if job.cluster_id is None else str(job.cluster_id))
    start = job.created_at
    end = job.ended_at or time.time() + 60
    out = [
        r
        for r in rows
        if r.get("job_id") == job.id
        or (r.get("job_id") is None and r.get("kind") == "alert" and start <= r["ts"] <= end)
    ]
    return sorted(out, key=lambda r: (r["ts"], r["id"]))


def _item(
    text: str, *, translated: bool = False, tip: str = "", data: bool = False
) -> QTableWidgetItem:
    """A cell; ``translated``: the GUI's own words, ``data``: a name or a path, shown as it
    is in every language."""
    item = QTableWidgetItem(display.line(text))  # names, paths: as written, drawn safely
    item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsEditable)
    if translated:
        item.setData(TRANSLATED_ROLE, True)
    if data:
        item.setData(DATA_ROLE, True)
    if tip:
        item.setToolTip(plain_tip(tip))
    return item


class JobsPage(QWidget):
    """See the module's docstring."""

    loaded = Signal()  # the list shows what the engine said
    detail_shown = Signal(object)  # a JobDetail
    log_appended = Signal(int)  # lines added by following
    message = Signal(str)

    def __init__(
        self,
        context: Any,
        parent: QWidget | None = None,
        *,
        refresh_ms: int = 2000,
        follow_ms: int = 1000,
        choose_spec: Callable[[], Path | None] | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("page_jobs")
        self.context = context
        self.engine = context.engine
        self.worker = context.worker
        self.choose_spec = choose_spec or self._choose_spec_file
        self.records: list[JobRecord] = []
        self.selected_id: int | None = None
        self.detail: JobDetail | None = None
        self.lines: list[LogLine] = []
        self.last_line_id: int | None = None
        self.loading = 0
        self._loaded_once = False
        self._reading_detail = False
        self._following = False
        self._follow_again = False
        # active jobs this page asked the engine to follow (after a restart nobody does)
        self.attached: set[int] = set()
        self.cancel_dialog: ApprovalDialog | None = None
        self.spec_dialog: QFileDialog | None = None
        self._select_newest = False  # after a launch: show the new job once it is listed
        self._theme: ChartTheme | None = None

        self.launch_flow = LaunchFlow(context, self, asked_by="Jobs page")
        self.launch_flow.launched.connect(self._launched)
        self.launch_flow.failed.connect(self.show_error)
        self.launch_flow.problem.connect(self._spec_problem)
        self.launch_flow.cancelled.connect(
            lambda: self._say(lambda: self.tr("Nothing was launched."))
        )

        # head
        self.title = plain_label()
        self.title.setProperty("role", "title")
        self.subtitle = plain_label()
        self.subtitle.setProperty("role", "muted")
        self.subtitle.setWordWrap(True)
        self.launch_button = QPushButton()
        self.launch_button.setObjectName("jobsLaunch")
        self.launch_button.setProperty("role", "primary")
        self.launch_button.clicked.connect(self.launch_from_file)
        self.show_finished = QCheckBox()
        self.show_finished.setObjectName("jobsShowFinished")
        self.show_finished.setChecked(True)
        self.show_finished.toggled.connect(lambda _on: self.reload())
        self.refresh_button = QPushButton()
        self.refresh_button.setObjectName("jobsRefresh")
        self.refresh_button.clicked.connect(self.refresh)
        self.error = plain_label()
        self.error.setObjectName("jobsError")
        self.error.setProperty("role", "error")
        self.error.setWordWrap(True)
        self.shown_error: ErrorInfo | None = None  # worded again on a language change
        # the red banner with its own close button: a failure read is dismissed by the user
        self.error_close = QToolButton()
        self.error_close.setObjectName("jobsErrorClose")
        self.error_close.setText("×")
        self.error_close.setAutoRaise(True)
        self.error_close.clicked.connect(self.dismiss_error)
        self.error_bar = QWidget()
        self.error_bar.setObjectName("jobsErrorBar")
        bar_layout = QHBoxLayout(self.error_bar)
        bar_layout.setContentsMargins(0, 0, 0, 0)
        bar_layout.addWidget(self.error, 1)
        bar_layout.addWidget(self.error_close, 0, Qt.AlignmentFlag.AlignTop)
        self.error_bar.hide()
        self.notice = plain_label()
        self.notice.setObjectName("jobsNotice")
        self.notice.setProperty("role", "muted")
        self._notice_words: Callable[[], str] | None = None  # worded again on a change
        self.notice.setWordWrap(True)

        # list
        self.table = QTableWidget(0, 9)
        self.table.setObjectName("jobsTable")
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setAlternatingRowColors(True)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(26)
        header = self.table.horizontalHeader()
        header.setHighlightSections(False)
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)  # the job's name
        self.table.itemSelectionChanged.connect(self._selected)
        self.table.setMinimumHeight(110)  # a few rows stay in view with the operations panel
        self.empty = plain_label()
        self.empty.setObjectName("jobsEmpty")
        self.empty.setProperty("role", "muted")
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty.setWordWrap(True)

        # detail
        self.detail_title = plain_label()
        self.detail_title.setObjectName("jobTitle")
        self.detail_title.setProperty("role", "card-title")
        self.detail_facts = plain_label()
        self.detail_facts.setObjectName("jobFacts")
        self.detail_facts.setWordWrap(True)
        self.detail_facts.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.cancel_button = QPushButton()
        self.cancel_button.setObjectName("jobCancel")
        self.cancel_button.setProperty("role", "danger")
        self.cancel_button.clicked.connect(self.ask_cancel)
        self.again_button = QPushButton()
        self.again_button.setObjectName("jobAgain")
        self.again_button.clicked.connect(self.launch_again)
        # issue 34 (b34): "why is it stuck": the verdict from every rank's dump, shown plain
        self.why_button = QPushButton()
        self.why_button.setObjectName("jobWhy")
        self.why_button.clicked.connect(self.ask_why)
        self.why = plain_label()
        self.why.setObjectName("jobWhyVerdict")
        self.why.setWordWrap(True)
        self.why.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.why.hide()
        self.why_answer: Any = None  # the last HangAnswer shown, worded again on a change
        self.progress = QProgressBar()
        self.progress.setObjectName("jobProgress")
        self.progress.setTextVisible(True)
        self.eta = plain_label()
        self.eta.setObjectName("jobEta")
        self.service = plain_label()
        self.service.setObjectName("jobService")
        self.service.setTextFormat(Qt.TextFormat.RichText)  # a link; its data escaped
        self.service.setOpenExternalLinks(True)
        self.service.setTextInteractionFlags(Qt.TextInteractionFlag.TextBrowserInteraction)
        self.service.setWordWrap(True)
        self.service.hide()
        self.tabs = QTabWidget()
        self.tabs.setObjectName("jobTabs")
        self.tabs.addTab(self._charts_tab(), "")
        self.tabs.addTab(self._log_tab(), "")
        self.tabs.addTab(self._attempts_tab(), "")
        self.tabs.addTab(self._events_tab(), "")
        self.tabs.addTab(self._cost_tab(), "")
        self.tabs.currentChanged.connect(lambda _i: self._keep_end_in_view())

        top_row = QHBoxLayout()
        top_row.addWidget(self.detail_title, 1)
        top_row.addWidget(self.again_button)
        top_row.addWidget(self.why_button)
        top_row.addWidget(self.cancel_button)
        bar_row = QHBoxLayout()
        bar_row.addWidget(self.progress, 1)
        bar_row.addWidget(self.eta)
        detail = QWidget()
        detail_layout = QVBoxLayout(detail)
        detail_layout.setContentsMargins(0, 4, 0, 0)
        detail_layout.addLayout(top_row)
        detail_layout.addWidget(self.detail_facts)
        detail_layout.addLayout(bar_row)
        detail_layout.addWidget(self.service)
        detail_layout.addWidget(self.why)
        detail_layout.addWidget(self.tabs, 1)
        self.hint = plain_label()
        self.hint.setProperty("role", "muted")
        self.hint.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.hint.setWordWrap(True)
        self.detail_stack = QStackedWidget()
        self.detail_stack.setObjectName("jobDetail")
        self.detail_stack.addWidget(self.hint)
        self.detail_stack.addWidget(detail)
        self.detail_page = detail

        upper = QWidget()
        upper_layout = QVBoxLayout(upper)
        upper_layout.setContentsMargins(0, 0, 0, 0)
        list_stack = QStackedWidget()
        list_stack.addWidget(self.table)
        list_stack.addWidget(self.empty)
        self.list_stack = list_stack
        upper_layout.addWidget(list_stack, 1)
        self.split = QSplitter(Qt.Orientation.Vertical)
        self.split.setObjectName("jobsSplit")
        self.split.addWidget(upper)
        self.split.addWidget(self.detail_stack)
        self.split.setStretchFactor(0, 1)
        self.split.setStretchFactor(1, 3)
        self.split.setSizes([200, 620])
        self.split.setChildrenCollapsible(False)

        head = QHBoxLayout()
        head.addWidget(self.title)
        head.addSpacing(12)
        head.addWidget(self.subtitle, 1)
        head.addWidget(self.show_finished)
        head.addWidget(self.refresh_button)
        head.addWidget(self.launch_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(20, 14, 20, 10)
        layout.setSpacing(6)
        layout.addLayout(head)
        layout.addWidget(self.error_bar)
        layout.addWidget(self.notice)
        layout.addWidget(self.split, 1)

        for keys, slot in (
            (QKeySequence.StandardKey.Refresh, self.refresh),
            ("Ctrl+L", self.launch_from_file),
        ):
            shortcut = QShortcut(QKeySequence(keys), self)
            shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            shortcut.activated.connect(slot)
        QWidget.setTabOrder(self.show_finished, self.refresh_button)
        QWidget.setTabOrder(self.refresh_button, self.launch_button)
        QWidget.setTabOrder(self.launch_button, self.table)
        QWidget.setTabOrder(self.table, self.again_button)
        QWidget.setTabOrder(self.again_button, self.why_button)
        QWidget.setTabOrder(self.why_button, self.cancel_button)
        QWidget.setTabOrder(self.cancel_button, self.tabs)

        bridge = context.bridge
        bridge.job_changed.connect(self._job_event)
        self._reload_timer = QTimer(self)
        self._reload_timer.setSingleShot(True)
        self._reload_timer.setInterval(250)
        self._reload_timer.timeout.connect(self.reload)
        self._tick = QTimer(self)
        self._tick.setInterval(refresh_ms)
        self._tick.timeout.connect(self._refresh_active)
        self._follow_timer = QTimer(self)
        self._follow_timer.setInterval(follow_ms)
        self._follow_timer.timeout.connect(self._follow)
        self.retranslate()
        self._show_detail_state()

    # -- tabs -------------------------------------------------------------------------------
    def _charts_tab(self) -> QWidget:
        # The two plots were two thirds of the page's build (its first open took 175-290 ms):
        # they are made when a job with a loss or throughput to draw is first shown (the
        # page opens with no job selected, the charts out of sight).
        self.charts: pg.GraphicsLayoutWidget | None = None
        self.rate_scale = 1.0
        self.no_metrics = plain_label()
        self.no_metrics.setProperty("role", "muted")
        self.no_metrics.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.no_metrics.setWordWrap(True)
        self.charts_scroll = scroll = QScrollArea()
        scroll.setObjectName("jobChartsScroll")
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.hide()
        tab = QWidget()
        layout = QVBoxLayout(tab)
        layout.setContentsMargins(0, 4, 0, 0)
        layout.addWidget(scroll, 1)
        layout.addWidget(self.no_metrics)
        return tab

    def _make_charts(self) -> pg.GraphicsLayoutWidget:
        """The loss and throughput plots (once), in the page's theme and language."""
        if self.charts is not None:
            return self.charts
        charts = pg.GraphicsLayoutWidget()
        charts.setObjectName("jobCharts")
        # no context menus: built with them, each plot cost ~30 ms more to make
        self.loss_plot: pg.PlotItem = charts.addPlot(row=0, col=0, enableMenu=False)
        self.rate_plot: pg.PlotItem = charts.addPlot(row=0, col=1, enableMenu=False)
        for plot in (self.loss_plot, self.rate_plot):
            plot.hideButtons()
            plot.showGrid(x=True, y=True, alpha=0.15)
            plot.getAxis("left").setWidth(52)
        self.loss_curve = pg.PlotDataItem(pen=pg.mkPen(CURVE_COLORS[0], width=2), connect="finite")
        self.rate_curve = pg.PlotDataItem(pen=pg.mkPen(CURVE_COLORS[1], width=2), connect="finite")
        self.loss_plot.addItem(self.loss_curve)
        self.rate_plot.addItem(self.rate_curve)
        # the charts never squeezed under a readable height (the operations panel or the
        # tour's banner open at the default size): they scroll instead
        charts.setMinimumHeight(MIN_PLOT_PX + 16)
        self.charts_scroll.setWidget(charts)
        self.charts = charts
        if self._theme is None:
            self._theme = theme_for(self)
        self._theme_charts(self._theme)
        return charts

    def _log_tab(self) -> QWidget:
        self.log_search = QLineEdit()
        self.log_search.setObjectName("jobLogSearch")
        self.log_search.setClearButtonEnabled(True)
        self.log_search.textChanged.connect(lambda _t: self._show_lines())
        self.log_node = QComboBox()
        self.log_node.setObjectName("jobLogNode")
        self.log_node.currentIndexChanged.connect(lambda _i: self._filters_changed())
        self.log_rank = QSpinBox()
        self.log_rank.setObjectName("jobLogRank")
        self.log_rank.setRange(-1, 65535)
        self.log_rank.setValue(-1)
        self.log_rank.valueChanged.connect(lambda _v: self._filter_timer.start())
        self.log_follow = QCheckBox()
        self.log_follow.setObjectName("jobLogFollow")
        self.log_follow.setChecked(True)
        self.log_follow.toggled.connect(lambda _on: self._follow_changed())
        self.log_follow.toggled.connect(lambda _on: self._keep_end_in_view())
        self.log_count = plain_label()
        self.log_count.setProperty("role", "muted")
        self.node_label, self.rank_label = plain_label(), plain_label()
        self.node_label.setBuddy(self.log_node)
        self.rank_label.setBuddy(self.log_rank)
        row = QHBoxLayout()
        row.addWidget(self.log_search, 1)
        row.addWidget(self.node_label)
        row.addWidget(self.log_node)
        row.addWidget(self.rank_label)
        row.addWidget(self.log_rank)
        row.addWidget(self.log_follow)
        row.addWidget(self.log_count)
        self.log_text = QPlainTextEdit()
        self.log_text.setObjectName("jobLog")
        self.log_text.setReadOnly(True)
        self.log_text.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.log_text.setProperty("role", "code")
        self.log_text.setProperty("data", True)
        self.log_text.setMaximumBlockCount(LOG_KEEP)
        self._filter_timer = QTimer(self)
        self._filter_timer.setSingleShot(True)
        self._filter_timer.setInterval(300)
        self._filter_timer.timeout.connect(self._filters_changed)
        tab = QWidget()
        layout = QVBoxLayout(tab)
        layout.setContentsMargins(0, 4, 0, 0)
        layout.addLayout(row)
        layout.addWidget(self.log_text, 1)
        return tab

    def _attempts_tab(self) -> QWidget:
        self.attempts = QTableWidget(0, 7)
        self.attempts.setObjectName("jobAttempts")
        self.attempts.verticalHeader().setVisible(False)
        self.attempts.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.attempts.horizontalHeader().setSectionResizeMode(
            QHeaderView.ResizeMode.ResizeToContents
        )
        self.attempts.horizontalHeader().setStretchLastSection(True)
        return self.attempts

    def _events_tab(self) -> QWidget:
        self.events = QTableWidget(0, 3)
        self.events.setObjectName("jobEvents")
        self.events.verticalHeader().setVisible(False)
        self.events.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.events.setWordWrap(True)
        self.events.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.events.horizontalHeader().setStretchLastSection(True)
        return self.events

    def _cost_tab(self) -> QWidget:
        tab = QWidget()
        self.cost_form = QFormLayout(tab)
        self.cost_rows: dict[str, tuple[QLabel, QLabel]] = {}
        for key in ("cost", "cluster", "rented", "attempts", "duration", "per_result", "mfu"):
            name, value = plain_label(), plain_label()
            name.setProperty("role", "fact-label")
            value.setProperty("role", "fact")
            value.setWordWrap(True)
            self.cost_form.addRow(name, value)
            self.cost_rows[key] = (name, value)
        return tab

    # -- words ------------------------------------------------------------------------------
    def retranslate(self) -> None:
        self.title.setText(self.tr("Jobs"))
        self.subtitle.setText(
            self.tr("Training and inference jobs: follow them live, launch, cancel, launch again.")
        )
        self.launch_button.setText(self.tr("Launch…"))
        self.launch_button.setToolTip(self.tr("Launch a job from its spec file (Ctrl+L)"))
        self.show_finished.setText(self.tr("Show finished"))
        self.refresh_button.setText(self.tr("Refresh"))
        self.refresh_button.setToolTip(self.tr("Read the jobs again (F5)"))
        self.error_close.setToolTip(self.tr("Dismiss this message"))
        self.table.setHorizontalHeaderLabels(
            [
                self.tr("ID"), self.tr("Job"), self.tr("Kind"), self.tr("State"),
                self.tr("Cluster"), self.tr("Attempt"), self.tr("Progress"), self.tr("ETA"),
                self.tr("Cost so far"),
            ]
        )  # fmt: skip
        self.empty.setText(
            self.tr(
                "No jobs yet. Press Launch… and pick a spec file (resources/examples has "
                "samples), or ask in the chat."
            )
        )
        self.hint.setText(self.tr("Select a job for its progress, charts, log and events."))
        self.cancel_button.setText(self.tr("Cancel job…"))
        self.cancel_button.setToolTip(
            self.tr("Stop the job on every node after a confirmation; the cluster stays")
        )
        self.why_button.setText(self.tr("Why is it stuck?"))
        self.why_button.setToolTip(
            self.tr(
                "Ask every rank for its Flight Recorder dump (the job keeps running) and say "
                "which rank the others wait for, on which node, in which collective"
            )
        )
        self._show_why()
        self.again_button.setText(self.tr("Launch again…"))
        self.again_button.setToolTip(self.tr("Launch a new job with this job's spec"))
        self.tabs.setTabText(0, self.tr("Charts"))
        self.tabs.setTabText(1, self.tr("Log"))
        self.tabs.setTabText(2, self.tr("Attempts"))
        self.tabs.setTabText(3, self.tr("Events"))
        self.tabs.setTabText(4, self.tr("Cost"))
        self._title_charts()
        self.no_metrics.setText(self.tr("No loss or throughput read from the log yet."))
        self.log_search.setPlaceholderText(self.tr("Search the log…"))
        self.node_label.setText(self.tr("Node"))
        self.rank_label.setText(self.tr("Rank"))
        self.log_rank.setSpecialValueText(self.tr("all"))
        self.log_follow.setText(self.tr("Follow"))
        self.log_follow.setToolTip(self.tr("Show new lines as they come and keep the end in view"))
        self.attempts.setHorizontalHeaderLabels(
            [
                self.tr("Attempt"), self.tr("State"), self.tr("Started"), self.tr("Ended"),
                self.tr("Ended by"), self.tr("Resumed from"), self.tr("What happened"),
            ]
        )  # fmt: skip
        self.events.setHorizontalHeaderLabels(
            [self.tr("Time"), self.tr("Severity"), self.tr("Event")]
        )
        names = {
            "cost": self.tr("Cost so far"),
            "cluster": self.tr("Cluster"),
            "rented": self.tr("Cluster rented for it"),
            "attempts": self.tr("Attempts"),
            "duration": self.tr("Running time"),
            "per_result": self.tr("Cost per result"),
            "mfu": self.tr("MFU"),
        }
        for key, (label, _value) in self.cost_rows.items():
            label.setText(names[key])
        self._fill_nodes()
        self._fill_table()
        if self.shown_error is not None:
            set_plain(self.error, error_text(self.shown_error), multiline=True)
        if self._notice_words is not None:
            self.notice.setText(self._notice_words())
        if self.detail is not None:
            self._show_detail(self.detail, keep_log=True)
            self._count(len(self.shown_log()))

    def _title_charts(self) -> None:
        if self.charts is None:
            return
        unit = {1e6: self.tr("M tokens/s"), 1e3: self.tr("k tokens/s")}.get(
            self.rate_scale, self.tr("tokens/s")
        )
        color = self._theme.foreground if self._theme is not None else None
        self.loss_plot.setTitle(self.tr("Loss by step"), color=color)
        self.rate_plot.setTitle(self.tr("Throughput ({unit})").format(unit=unit), color=color)

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
        if not self._loaded_once:
            self.reload()
        else:
            self._refresh_active()
        self._tick.start()
        self._follow_changed()

    def hideEvent(self, event: Any) -> None:
        super().hideEvent(event)
        self._tick.stop()
        self._follow_timer.stop()

    def apply_theme(self) -> None:
        """The charts in the colours of the page's theme (a switch while the page was hidden
        reaches them when it is shown)."""
        theme = theme_for(self)
        if theme == self._theme:
            return
        self._theme = theme
        self._theme_charts(theme)

    def _theme_charts(self, theme: ChartTheme) -> None:
        if self.charts is None:
            return
        self.charts.setBackground(theme.background)
        for plot in (self.loss_plot, self.rate_plot):
            for name in ("left", "bottom"):
                axis = plot.getAxis(name)
                axis.setPen(theme.muted)
                axis.setTextPen(theme.foreground)
        self._title_charts()

    # -- the list ---------------------------------------------------------------------------
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
        """Refresh (F5): the list, and the shown job with its log read again from the store."""
        self.reload()
        if self.selected_id is not None:
            self.open_job(self.selected_id)

    def reload(self) -> None:
        engine = self.engine
        include = self.show_finished.isChecked()
        self._submit(lambda: engine.jobs(include_finished=include), self._loaded, "jobs")

    def _loaded(self, records: list[JobRecord]) -> None:
        self._loaded_once = True
        newest = max((r.id for r in self.records), default=None)
        self.records = sorted(records, key=lambda r: r.id, reverse=True)
        self._fill_table()
        if self._select_newest and self.records and self.records[0].id != newest:
            self._select_newest = False
            self.select_job(self.records[0].id)
        self.loaded.emit()

    def _fill_table(self) -> None:
        table = self.table
        table.blockSignals(True)
        table.setRowCount(len(self.records))
        keep_row = None
        for row, job in enumerate(self.records):
            state_item = _item(
                state(job.state.value), translated=True, tip=worded(job.error_worded)
            )
            state_item.setIcon(dot_icon(job.state.value))
            color = STATE_COLORS.get(job.state.value)
            if color:
                state_item.setForeground(QBrush(QColor(color)))
            eta = job.progress.eta_s if job.active else None
            cells = [
                _item(str(job.id)),
                _item(job.name, data=True),
                _item(self._kind(job.kind), translated=True),
                state_item,
                _item(job.cluster or "–", data=job.cluster is not None),
                _item(str(job.attempt)),
                _item(progress_text(job), translated=True),
                _item(i18n.duration(eta) if eta is not None else "–", translated=True),
                _item(cost_text(job)),
            ]
            cells[0].setData(Qt.ItemDataRole.UserRole, job.id)
            for col, cell in enumerate(cells):
                table.setItem(row, col, cell)
            if job.id == self.selected_id:
                keep_row = row
        if keep_row is not None:
            table.selectRow(keep_row)
        table.blockSignals(False)
        self.list_stack.setCurrentIndex(0 if self.records or not self._loaded_once else 1)

    def _kind(self, kind: str) -> str:
        return {"train": self.tr("training"), "service": self.tr("service")}.get(kind, kind)

    def row_of(self, job_id: int) -> int | None:
        for row, job in enumerate(self.records):
            if job.id == job_id:
                return row
        return None

    def cell(self, job_id: int, column: int) -> str:
        row = self.row_of(job_id)
        item = None if row is None else self.table.item(row, column)
        return "" if item is None else item.text()

    def select_job(self, job_id: int) -> None:
        row = self.row_of(job_id)
        if row is not None:
            self.table.selectRow(row)
        else:
            self.open_job(job_id)

    def _selected(self) -> None:
        rows = self.table.selectionModel().selectedRows()
        if not rows:
            return
        item = self.table.item(rows[0].row(), 0)
        if item is None:
            return
        job_id = int(item.data(Qt.ItemDataRole.UserRole))
        if job_id != self.selected_id or self.detail is None:
            self.open_job(job_id)

    # -- events and refresh -----------------------------------------------------------------
    def _job_event(self, event: Any) -> None:
        self._reload_timer.start()
        if self.selected_id is not None and int(event.job_id) == self.selected_id:
            self._refresh_detail()

    def _refresh_active(self) -> None:
        if not self.isVisible():
            return
        if any(r.active for r in self.records):
            self.reload()
        if self.detail is not None and self.detail.job.active:
            self._refresh_detail()

    # -- the detail -------------------------------------------------------------------------
    def open_job(self, job_id: int) -> None:
        """Show a job: its record, metrics, events and the last lines of its log."""
        self.selected_id = job_id
        self.lines = []
        self.last_line_id = None
        self._read_detail(with_log=True)

    def _refresh_detail(self) -> None:
        if not self._reading_detail:
            self._read_detail(with_log=False)

    def _log_filters(self) -> dict[str, Any]:
        node = self.log_node.currentData()
        rank = self.log_rank.value()
        return {"node": node, "rank": None if rank < 0 else rank}

    def _read_detail(self, *, with_log: bool) -> None:
        job_id = self.selected_id
        if job_id is None:
            return
        engine = self.engine
        filters = self._log_filters()

        def read() -> JobDetail:
            job = engine.job(str(job_id))
            lines = engine.job_logs(str(job_id), tail=LOG_TAIL, **filters) if with_log else None
            metrics = engine.job_metrics(str(job_id))
            results = engine.job_results(str(job_id))
            return JobDetail(
                job, metrics, job_events(engine, job), lines, result=results[0] if results else None
            )

        self._reading_detail = True
        self.loading += 1

        def done(detail: JobDetail) -> None:
            self.loading -= 1
            self._reading_detail = False
            if detail.job.id == self.selected_id:
                self._show_detail(detail, keep_log=detail.lines is None)

        def failed(error: ErrorInfo) -> None:
            self.loading -= 1
            self._reading_detail = False
            self.show_error(error)

        self.worker.submit(read, on_done=done, on_error=failed, name=f"job {job_id}")

    def _show_detail(self, detail: JobDetail, *, keep_log: bool) -> None:
        ended = (
            self.detail is not None
            and self.detail.job.id == detail.job.id
            and self.detail.job.active
            and not detail.job.active
        )
        self.detail = detail
        job = detail.job
        self._show_detail_state()
        where = job.cluster or self.tr("no cluster yet")
        set_plain(
            self.detail_title,
            self.tr("{name} · {state} · on {cluster} · attempt {attempt}").format(
                name=job.name, state=state(job.state.value), cluster=where, attempt=job.attempt
            ),
        )
        set_plain(self.detail_facts, self._facts(job), multiline=True)
        p = job.progress
        if p.step is not None and p.total_steps:
            self.progress.setRange(0, int(p.total_steps))
            self.progress.setValue(min(int(p.step), int(p.total_steps)))
            self.progress.setFormat(
                self.tr("step {step} of {total} (%p%)").format(
                    step=i18n.number(p.step), total=i18n.number(p.total_steps)
                )
            )
        elif job.state.value == "succeeded":
            self.progress.setRange(0, 1)
            self.progress.setValue(1)
            self.progress.setFormat(self.tr("done"))
        else:
            self.progress.setRange(0, 0 if job.active else 1)
            self.progress.setValue(0)
            self.progress.setFormat(self.tr("no step read yet") if job.active else "–")
        if job.active and p.eta_s is not None:
            self.eta.setText(self.tr("ETA {eta}").format(eta=i18n.duration(p.eta_s)))
            self.eta.setToolTip("")
        elif job.active and p.eta_reason:
            self.eta.setText(self.tr("ETA: not yet known"))
            self.eta.setToolTip(plain_tip(self._eta_reason(p.eta_reason)))
        else:
            self.eta.setText("")
            self.eta.setToolTip("")
        # its new width now, not at the next layout pass: "ETA 25 s" -> "ETA 4.8 s" read (or
        # grabbed) in between was cut by a few pixels
        holder = self.eta.parentWidget()
        if holder is not None and holder.layout() is not None:
            holder.layout().activate()
        self._show_service(job)
        self.cancel_button.setEnabled(job.active and job.cancel_requested_at is None)
        self.why_button.setEnabled(job.active and job.kind != "service")
        if self.why_answer is not None and self.why_answer.job != job.name:
            self.why_answer = None
            self._show_why()
        self.again_button.setEnabled(True)
        self._show_metrics(detail.metrics)
        self._show_attempts(job)
        self._show_events(detail.events)
        self._show_cost(job, detail.result)
        if not keep_log and detail.lines is not None:
            self.lines = list(detail.lines)
            self.last_line_id = self.lines[-1].id if self.lines else self.last_line_id
            self._fill_nodes()
            self._show_lines()
        elif self.last_line_id is None and not self.lines:
            self._show_lines()
        self._follow_changed()
        if ended and self.log_follow.isChecked():
            self._follow()  # the lines written since the last read: a finished job's log whole
        self.detail_shown.emit(detail)

    def _show_detail_state(self) -> None:
        self.detail_stack.setCurrentIndex(0 if self.detail is None else 1)

    def _facts(self, job: JobRecord) -> str:
        p = job.progress
        parts = [self.tr("cost so far {cost}").format(cost=cost_text(job))]
        if p.loss is not None:
            parts.append(self.tr("loss {loss}").format(loss=i18n.number(p.loss, 4)))
        if p.tokens_per_s is not None:
            parts.append(self.tr("{rate} tokens/s").format(rate=i18n.number(p.tokens_per_s)))
        if p.checkpoint_step is not None:
            parts.append(self.tr("checkpoint at step {step}").format(step=p.checkpoint_step))
        if job.started_at is not None:
            parts.append(self.tr("started {when}").format(when=i18n.date_time(job.started_at)))
        if job.ended_at is not None:
            parts.append(self.tr("ended {when}").format(when=i18n.date_time(job.ended_at)))
        if job.cancel_requested_at is not None and job.active:
            parts.append(self.tr("cancelling…"))
        text = " · ".join(parts)
        if job.error:
            text += "\n" + worded(job.error_worded)
        return text

    def _eta_reason(self, reason: str) -> str:
        """Why there is no ETA yet (the progress reader says it in English)."""
        return {
            "warming up": self.tr("the first steps are warming up; the ETA follows"),
            "total steps unknown": self.tr("the log has not said how many steps there are"),
            "no progress yet": self.tr("no step read from the log yet"),
            "done": self.tr("done"),
        }.get(reason, reason)

    def _show_service(self, job: JobRecord) -> None:
        if job.kind != "service":
            self.service.hide()
            return
        p = job.progress
        url = job.service_url
        link = (
            f'<a href="{html.escape(display.line(url))}">{html_text(url)}</a>'
            if url
            else self.tr("not forwarded yet")
        )
        rate = "–" if p.requests_per_s is None else i18n.number(p.requests_per_s, 1)
        latency = "–" if p.latency_ms is None else i18n.number(p.latency_ms, 0)
        self.service.setText(
            self.tr("Service at {url} · {rate} requests/s · latency {latency} ms").format(
                url=link, rate=rate, latency=latency
            )
        )
        self.service.show()

    def _show_metrics(self, metrics: list[dict[str, Any]]) -> None:
        def series(key: str) -> tuple[np.ndarray, np.ndarray]:
            xs: list[float] = []
            ys: list[float] = []
            last = None
            for m in metrics:
                if m.get(key) is None or m.get("step") is None:
                    continue
                if last is not None and m.get("attempt") != last:
                    xs.append(float(m["step"]))
                    ys.append(float("nan"))  # an attempt ends: the next restarts from a checkpoint
                last = m.get("attempt")
                xs.append(float(m["step"]))
                ys.append(float(m[key]))
            return np.array(xs, dtype=np.float64), np.array(ys, dtype=np.float64)

        lx, ly = series("loss")
        rx, ry = series("tokens_per_s")
        has = bool(lx.shape[0] or rx.shape[0])
        self.charts_scroll.setVisible(has)
        self.no_metrics.setVisible(not has)
        if not has and self.charts is None:
            return  # nothing to draw yet: the plots are made for the first curve
        self._make_charts()
        top = float(np.nanmax(ry)) if ry.shape[0] and not np.isnan(ry).all() else 0.0
        self.rate_scale = 1e6 if top >= 1e7 else 1e3 if top >= 1e4 else 1.0
        self._title_charts()
        self.loss_curve.setData(lx, ly)
        self.rate_curve.setData(rx, ry / self.rate_scale)
        # throughput from zero: auto-ranged to its own +-1% it drew steady noise as wild swings
        if top > 0:
            self.rate_plot.setYRange(0.0, top / self.rate_scale * 1.05, padding=0)
        else:
            self.rate_plot.enableAutoRange(axis="y")

    def curve_points(self) -> tuple[int, int]:
        """How many points the loss and throughput curves draw (tests read it)."""
        if self.charts is None:
            return (0, 0)
        lx, _ = self.loss_curve.getData()
        rx, _ = self.rate_curve.getData()
        return (0 if lx is None else len(lx), 0 if rx is None else len(rx))

    def _show_attempts(self, job: JobRecord) -> None:
        table = self.attempts
        table.setRowCount(len(job.attempts))
        for row, a in enumerate(sorted(job.attempts, key=lambda a: a.attempt)):
            resumed = "–"
            if a.resume_step is not None:
                resumed = self.tr("step {step}").format(step=a.resume_step)
            elif a.resumed_from:
                resumed = a.resumed_from
            what = worded(a.said)  # how it ended, in the window's language
            cells = [
                _item(str(a.attempt)),
                _item(state(a.state), translated=True),
                _item(i18n.date_time(a.started_at, seconds=True), translated=True),
                _item(i18n.date_time(a.ended_at, seconds=True), translated=True),
                _item(cause_text(a.cause), translated=True),
                _item(
                    resumed,
                    translated=a.resume_step is not None or resumed == "–",
                    data=a.resume_step is None and bool(a.resumed_from),  # a folder
                ),
                _item(what, tip=what),
            ]
            for col, cell in enumerate(cells):
                table.setItem(row, col, cell)

    def _show_events(self, events: list[dict[str, Any]]) -> None:
        table = self.events
        table.setRowCount(len(events))
        for row, e in enumerate(events):
            severity = str(e.get("severity") or "info")
            sev = _item(word(SEVERITIES, severity), translated=True)
            color = SEVERITY_COLORS.get(severity)
            if color and severity != "info":
                sev.setForeground(QBrush(QColor(color)))
            message = worded(said_of(e) or str(e.get("message") or ""))
            table.setItem(row, 0, _item(i18n.date_time(e["ts"], seconds=True), translated=True))
            table.setItem(row, 1, sev)
            table.setItem(row, 2, _item(message, tip=message))
        table.resizeRowsToContents()
        if events:
            table.scrollToBottom()

    def _show_cost(self, job: JobRecord, result: Any | None = None) -> None:
        end = job.ended_at or time.time()
        running = None if job.started_at is None else max(0.0, end - job.started_at)
        values = {
            "cost": cost_text(job)
            + (" " + self.tr("(its share of the cluster while it ran)") if job.cost_micros else ""),
            "cluster": job.cluster or "–",
            "rented": self.tr("yes: released when the job is done")
            if job.rented_cluster
            else self.tr("no: the cluster stays when the job ends"),
            "attempts": str(job.attempt),
            "duration": i18n.duration(running),
            "per_result": self._per_result(result),
            "mfu": self._mfu(result),
        }
        for key, (_label, value) in self.cost_rows.items():
            value.setText(values[key])

    def _per_result(self, result: Any | None) -> str:
        """Cost per M tokens (per epoch), or per 1k requests for a service (issue 36)."""
        if result is None:
            return "–"
        currency = result.currency or "CNY"
        parts = []
        for micros, text in (
            (result.cost_per_m_tokens_micros, self.tr("{cost} per M tokens")),
            (result.cost_per_epoch_micros, self.tr("{cost} per epoch")),
            (result.cost_per_1k_requests_micros, self.tr("{cost} per 1k requests")),
        ):
            if micros is not None:
                parts.append(text.format(cost=i18n.money(micros, currency)))
        return " · ".join(parts) or "–"

    def _mfu(self, result: Any | None) -> str:
        value = self.cost_rows["mfu"][1]
        value.setToolTip(
            self.tr(
                "Counted when the spec names the model in its environment: "
                "XYCLAW_MODEL_PARAMS (7B) and XYCLAW_TRAINING (full or lora)"
            )
        )
        if result is None or result.mfu is None:
            return "–"
        k = 4 if result.method == "lora" else 6
        return self.tr("{mfu} ({k}N FLOPs per token, {gpus} x {gpu})").format(
            mfu=f"{result.mfu:.1%}", k=k, gpus=result.gpus, gpu=result.gpu or "?"
        )

    # -- the log ----------------------------------------------------------------------------
    def _fill_nodes(self) -> None:
        job = self.detail.job if self.detail is not None else None
        names: list[str] = []
        if job is not None:
            for attempt in job.attempts:
                for node in attempt.nodes:
                    if node.node not in names:
                        names.append(node.node)
        for line in self.lines:
            if line.node and line.node not in names and line.stream != "cut":
                names.append(line.node)
        current = self.log_node.currentData()
        self.log_node.blockSignals(True)
        self.log_node.clear()
        self.log_node.addItem(self.tr("all nodes"), None)
        for name in names:
            self.log_node.addItem(name, name)
        index = self.log_node.findData(current) if current is not None else 0
        self.log_node.setCurrentIndex(max(0, index))
        self.log_node.blockSignals(False)

    def _filters_changed(self) -> None:
        if self.selected_id is None:
            return
        job_id = self.selected_id
        engine = self.engine
        filters = self._log_filters()
        self.lines = []
        self.last_line_id = None
        self._submit(
            lambda: engine.job_logs(str(job_id), tail=LOG_TAIL, **filters),
            lambda lines: self._lines_read(job_id, lines),
            "job log",
        )

    def _lines_read(self, job_id: int, lines: list[LogLine]) -> None:
        if job_id != self.selected_id:
            return
        self.lines = list(lines)
        self.last_line_id = self.lines[-1].id if self.lines else None
        self._show_lines()

    def _matches(self, line: LogLine, needle: str) -> bool:
        return not needle or needle in line.text.lower()

    def _line_text(self, line: LogLine) -> str:
        # a remote machine's words: its escapes, controls and bidi characters made visible
        return f"{i18n.clock_time(line.ts)} {display.text(line)}"

    def _show_lines(self) -> None:
        needle = self.log_search.text().strip().lower()
        shown = [self._line_text(ln) for ln in self.lines if self._matches(ln, needle)]
        self.log_text.setPlainText("\n".join(shown))
        self._count(len(shown))
        self._keep_end_in_view()

    def _count(self, shown: int) -> None:
        job = self.detail.job if self.detail is not None else None
        total = job.log_lines if job is not None else len(self.lines)
        self.log_count.setText(
            self.tr("{shown} of {total} lines").format(
                shown=i18n.number(shown), total=i18n.number(max(total, len(self.lines)))
            )
        )

    def _keep_end_in_view(self) -> None:
        """With Follow on, the newest line is in view (also after the tab was hidden while
        lines came: a hidden view does not scroll)."""
        if self.log_follow.isChecked():
            bar = self.log_text.verticalScrollBar()
            bar.setValue(bar.maximum())

    def shown_log(self) -> list[str]:
        text = self.log_text.toPlainText()
        return text.splitlines() if text else []

    def _follow_changed(self) -> None:
        on = (
            self.log_follow.isChecked()
            and self.isVisible()
            and self.detail is not None
            and self.detail.job.active
        )
        if on and not self._follow_timer.isActive():
            self._follow_timer.start()
        elif not on:
            self._follow_timer.stop()
        if on:
            self._attach()
            self._follow()

    def _attach(self) -> None:
        """Have this app follow the shown active job if no XyClaw process does (the app was
        restarted while it ran): its runner stores the new lines the log view then reads,
        as ``xyclaw logs -f`` does. Once per job; a job someone follows is left to them."""
        job_id = self.selected_id
        if job_id is None or job_id in self.attached:
            return
        self.attached.add(job_id)
        engine = self.engine

        def failed(error: ErrorInfo) -> None:
            # asked again in a while (the next follow a second later would only fail again)
            QTimer.singleShot(ATTACH_RETRY_MS, lambda: self.attached.discard(job_id))
            log.info("attaching job %s: %s", job_id, error.message)
            if job_id == self.selected_id:
                self._say(
                    lambda: self.tr("Not following this job live: {error}").format(
                        error=error.worded()[0]
                    )
                )

        self.worker.submit(
            lambda: engine.attach_job(str(job_id)), on_error=failed, name="attach job"
        )

    def _follow(self) -> None:
        """New lines since the last one shown (one read at a time; one asked for meanwhile
        runs after it, so that the last lines of a job that just ended are never skipped)."""
        if self.selected_id is None or not i18n.alive(self, self.log_node):
            return  # a read finishing after the page was torn down (the window closing)
        if self._following:
            self._follow_again = True
            return
        job_id = self.selected_id
        after = self.last_line_id
        engine = self.engine
        filters = self._log_filters()
        self._following = True

        def read() -> list[LogLine]:
            if after is None:
                return list(engine.job_logs(str(job_id), tail=LOG_TAIL, **filters))
            return list(engine.job_logs(str(job_id), since_offset=after, **filters))

        def again() -> None:
            self._following = False
            if self._follow_again:
                self._follow_again = False
                QTimer.singleShot(0, self._follow)

        def done(lines: list[LogLine]) -> None:
            again()
            if job_id != self.selected_id or not lines:
                return
            if after != self.last_line_id:
                return  # the filters changed meanwhile
            self.lines.extend(lines)
            if len(self.lines) > LOG_KEEP:
                del self.lines[: len(self.lines) - LOG_KEEP]
            self.last_line_id = lines[-1].id
            needle = self.log_search.text().strip().lower()
            new = [self._line_text(ln) for ln in lines if self._matches(ln, needle)]
            bar = self.log_text.verticalScrollBar()
            at_end = bar.value() >= bar.maximum() - 2
            if new:
                if self.log_text.document().isEmpty():
                    self.log_text.setPlainText("\n".join(new))
                else:
                    self.log_text.appendPlainText("\n".join(new))
            if self.log_follow.isChecked() or at_end:
                bar.setValue(bar.maximum())
            self._count(len(self.shown_log()))
            self.log_appended.emit(len(lines))

        def failed(error: ErrorInfo) -> None:
            again()
            log.info("following job %s: %s", job_id, error.message)

        self.worker.submit(read, on_done=done, on_error=failed, name="follow log")

    # -- actions ----------------------------------------------------------------------------
    def _choose_spec_file(self) -> Path | None:
        """Open the file dialog (not blocking: the launch starts when a file is picked)."""
        dialog = QFileDialog(
            self,
            self.tr("Launch a job from its spec"),
            str(bundled("resources") / "examples"),
            self.tr("Job specs (*.yaml *.yml);;All files (*)"),
        )
        i18n.word_file_dialog(dialog)
        dialog.setObjectName("jobsSpecDialog")
        dialog.setFileMode(QFileDialog.FileMode.ExistingFile)
        dialog.fileSelected.connect(lambda path: self.launch_flow.from_file(Path(path)))
        dialog.finished.connect(lambda _code: dialog.deleteLater())
        self.spec_dialog = dialog
        dialog.open()
        return None

    def launch_from_file(self, path: Path | None = None) -> None:
        """Launch from ``path``; without one, ask for the file first."""
        chosen = path if isinstance(path, Path) else self.choose_spec()
        if chosen is not None:
            self.launch_flow.from_file(chosen)

    def launch_again(self, job_id: int | None = None) -> None:
        """A new job with a past job's spec (the selected one by default)."""
        target = job_id if isinstance(job_id, int) else self.selected_id
        if target is not None:
            self.launch_flow.again(target)

    def _launched(self, handle: Any) -> None:
        progress = getattr(handle, "progress", None)
        title = getattr(progress, "title_said", None) or getattr(handle, "title", "")
        self._say(
            lambda: self.tr("Launching: “{title}”; the operations panel shows each step.").format(
                title=worded(title)
            )
        )
        self._select_newest = True
        self.reload()

        def ended(future: Any) -> None:
            self.worker.post(self._launch_ended, future)

        future = getattr(handle, "future", None)
        if future is not None:
            future.add_done_callback(ended)

    def _launch_ended(self, future: Any) -> None:
        error = future.exception()
        if error is not None:
            self.show_error(ErrorInfo.from_exception(error))
        else:
            job = future.result()
            name = getattr(job, "name", "")
            self._say(lambda: self.tr("Job {name} runs.").format(name=name))
            if isinstance(job, JobRecord):
                self.selected_id = job.id
                self.open_job(job.id)
        self.reload()

    def _spec_problem(self, problem: SpecProblem) -> None:
        self.show_error(ErrorInfo(problem.message, problem.hint, problem.said, problem.hint_said))

    def ask_cancel(self) -> None:
        detail = self.detail
        if detail is None or not detail.job.active:
            return
        job = detail.job
        p = job.progress
        details: dict[str, Any] = {
            "running_job": f"{job.name} (#{job.id}), {state(job.state.value)}, "
            + self.tr("attempt {n}").format(n=job.attempt),
            "cluster": job.cluster or "–",
            "lost": [
                self.tr("the work since its last checkpoint")
                + (
                    f" ({self.tr('step {step}').format(step=p.checkpoint_step)})"
                    if p.checkpoint_step is not None
                    else ""
                ),
            ],
        }
        request = destroy_request(
            self.tr("Cancel job {name}").format(name=job.name),
            details,
            self.tr("you, from the Jobs page"),
        )
        dialog = ApprovalDialog(
            request,
            self,
            window_title=self.tr("Cancel job"),
            note=self.tr(
                "Its processes are stopped on every node (SIGTERM, then SIGKILL after a grace "
                "period). The cluster stays and keeps billing."
            ),
            approve_text=self.tr("Cancel the job"),
        )
        self.cancel_dialog = dialog
        dialog.decided.connect(lambda kind: self._cancel_decided(job, kind))
        dialog.open()

    def ask_why(self) -> None:
        """Issue 34 (b34): Engine.why_stuck on a worker thread (it asks every node)."""
        detail = self.detail
        if detail is None or not detail.job.active:
            return
        job = detail.job
        engine = self.engine
        self.why_button.setEnabled(False)
        self._say(
            lambda: self.tr("Asking every rank of {name} for its dump…").format(name=job.name)
        )

        def done(answer: Any) -> None:
            self.why_button.setEnabled(True)
            self.why_answer = answer
            self._show_why()
            self._say(lambda: self.tr("The ranks of {name} answered.").format(name=job.name))

        def failed(error: ErrorInfo) -> None:
            self.why_button.setEnabled(True)
            self.show_error(error)

        self.worker.submit(
            lambda: engine.why_stuck(str(job.id)), on_done=done, on_error=failed, name="why stuck"
        )

    def _show_why(self) -> None:
        """The verdict (its ranks, nodes and collective come from the nodes: plain text)
        and the action it asks for."""
        answer = self.why_answer
        if answer is None:
            self.why.hide()
            return
        text = worded(answer.verdict)
        if answer.action is not None:
            text += "\n" + self.tr("What to do: {action}").format(action=worded(answer.action))
        set_plain(self.why, text, multiline=True)
        self.why.show()

    def _cancel_decided(self, job: JobRecord, kind: str) -> None:
        if kind != "approve":
            self._say(lambda: self.tr("Kept {name} running.").format(name=job.name))
            return
        engine = self.engine
        self.cancel_button.setEnabled(False)
        self._say(lambda: self.tr("Cancelling {name}…").format(name=job.name))
        self._submit(
            lambda: engine.cancel_job(str(job.id)),
            lambda record: self._cancelled(record),
            "cancel job",
        )

    def _cancelled(self, record: JobRecord) -> None:
        self._say(
            lambda: self.tr("{name} is {state}.").format(
                name=record.name, state=state(record.state.value)
            )
        )
        self.reload()
        if record.id == self.selected_id:
            self._refresh_detail()

    # -- messages ---------------------------------------------------------------------------
    def _say(self, words: Callable[[], str]) -> None:
        """Show a notice; ``words`` makes its text in the window's language (called again
        when the language changes)."""
        self.dismiss_error()
        self._notice_words = words
        text = words()
        self.notice.setText(text)
        self.message.emit(text)
        window = self.window()
        bar = getattr(window, "statusBar", None)
        if callable(bar):
            bar().showMessage(text, 15000)

    def show_error(self, error: ErrorInfo) -> None:
        self.shown_error = error
        set_plain(self.error, error_text(error), multiline=True)
        self.error_bar.show()
        self.message.emit(error.worded()[0])

    def dismiss_error(self) -> None:
        """The red banner closed (its × button); the next failure shows it again."""
        self.error_bar.hide()
        self.shown_error = None


def create_jobs_page(context: Any) -> JobsPage:
    return JobsPage(context)
