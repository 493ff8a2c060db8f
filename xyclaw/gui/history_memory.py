"""The History page's memory tab (issue 36): how each provider, region, node class and host
has been for this user, what happened to them, and what a result cost on each.

It shows what :meth:`xyclaw.engine.Engine.track_record` and
:meth:`~xyclaw.engine.Engine.result_trends` read from the history (no provider is asked).
The marks' details can be a machine's or a provider's own words: they are drawn as plain
text, never as markup.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QEvent, Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from xyclaw.gui import i18n
from xyclaw.gui.widgets import DATA_ROLE, TRANSLATED_ROLE, plain_label
from xyclaw.wording import display

if TYPE_CHECKING:
    from xyclaw.engine.reports import ResultTrend, Standing, TrackRecord

BY = ("provider", "region", "node_class", "host")
_BY_WORDS = {
    "provider": QT_TRANSLATE_NOOP("HistoryMemory", "provider"),
    "region": QT_TRANSLATE_NOOP("HistoryMemory", "region"),
    "node_class": QT_TRANSLATE_NOOP("HistoryMemory", "node class"),
    "host": QT_TRANSLATE_NOOP("HistoryMemory", "host"),
}
_KIND_WORDS = {
    "xid": QT_TRANSLATE_NOOP("HistoryMemory", "XID error"),
    "ecc": QT_TRANSLATE_NOOP("HistoryMemory", "uncorrectable ECC errors"),
    "gpu_lost": QT_TRANSLATE_NOOP("HistoryMemory", "GPU fell off the bus"),
    "straggler": QT_TRANSLATE_NOOP("HistoryMemory", "straggler"),
    "fabric": QT_TRANSLATE_NOOP("HistoryMemory", "fabric stall"),
    "busbw_low": QT_TRANSLATE_NOOP("HistoryMemory", "low bus bandwidth"),
    "bring_up_failed": QT_TRANSLATE_NOOP("HistoryMemory", "never came up"),
    "refusal": QT_TRANSLATE_NOOP("HistoryMemory", "refused"),
    "leak": QT_TRANSLATE_NOOP("HistoryMemory", "left billing unseen"),
    "price_drift": QT_TRANSLATE_NOOP("HistoryMemory", "billed off the quote"),
}


def _t(text: object) -> str:
    return QCoreApplication.translate("HistoryMemory", str(text))


def _item(text: str, *, data: bool = False, translated: bool = False) -> QTableWidgetItem:
    item = QTableWidgetItem(display.line(text))  # names and remote words drawn safely
    item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsEditable)
    if data:
        item.setData(DATA_ROLE, True)
    if translated:
        item.setData(TRANSLATED_ROLE, True)
    return item


def _table(name: str) -> QTableWidget:
    table = QTableWidget()
    table.setObjectName(name)
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.setAlternatingRowColors(True)
    table.verticalHeader().setVisible(False)
    table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    table.horizontalHeader().setStretchLastSection(True)
    table.setWordWrap(False)
    return table


class MemoryView(QWidget):
    """Standings per provider (region, node class, host), the marks behind them, and cost
    per result per provider and GPU model by month. :meth:`set_data` fills it."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("historyMemory")
        self.memory: TrackRecord | None = None
        self.trends: list[ResultTrend] = []

        self.by_label = plain_label()
        self.by = QComboBox()
        self.by.setObjectName("memoryBy")
        self.by.currentIndexChanged.connect(lambda _i: self._fill_standings())
        self.by_label.setBuddy(self.by)
        self.note = plain_label()
        self.note.setProperty("role", "muted")
        self.note.setWordWrap(True)
        self.standings = _table("memoryStandings")
        self.marks = _table("memoryMarks")
        self.trend_table = _table("memoryTrends")
        self.marks_title = plain_label()
        self.marks_title.setProperty("role", "heading")
        self.trends_title = plain_label()
        self.trends_title.setProperty("role", "heading")

        head = QHBoxLayout()
        head.addWidget(self.by_label)
        head.addWidget(self.by)
        head.addSpacing(12)
        head.addWidget(self.note, 1)
        lower = QWidget()
        lower_layout = QVBoxLayout(lower)
        lower_layout.setContentsMargins(0, 0, 0, 0)
        lower_layout.addWidget(self.marks_title)
        lower_layout.addWidget(self.marks, 1)
        lower_layout.addWidget(self.trends_title)
        lower_layout.addWidget(self.trend_table, 1)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.standings)
        split.addWidget(lower)
        split.setChildrenCollapsible(False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(head)
        layout.addWidget(split, 1)
        self.retranslate()

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    def retranslate(self) -> None:
        current = self.by.currentData() or "provider"
        self.by.blockSignals(True)
        self.by.clear()
        for key in BY:
            self.by.addItem(_t(_BY_WORDS[key]), key)
        self.by.setCurrentIndex(max(0, self.by.findData(current)))
        self.by.blockSignals(False)
        self.by_label.setText(self.tr("One line per"))
        self.note.setText(
            self.tr(
                "From this computer's history. The planner ranks a node class that failed on "
                "two rentals in 30 days, or a provider that billed over its quote, down and "
                "says why (turn it off per plan)."
            )
        )
        self.marks_title.setText(self.tr("What happened"))
        self.trends_title.setText(self.tr("Cost per result by provider, GPU model and month"))
        self.standings.setColumnCount(11)
        self.standings.setHorizontalHeaderLabels(
            [
                _t(_BY_WORDS[current]).capitalize(), self.tr("Rentals"), self.tr("Failed"),
                self.tr("XIDs"), self.tr("ECC"), self.tr("Worst bus bandwidth"),
                self.tr("Never came up"), self.tr("Refused"), self.tr("Leaks"),
                self.tr("Price drift"), self.tr("Ready in (median)"),
            ]
        )  # fmt: skip
        self.marks.setColumnCount(5)
        self.marks.setHorizontalHeaderLabels(
            [self.tr("When"), self.tr("Where"), self.tr("Host"), self.tr("What"),
             self.tr("Details")]
        )  # fmt: skip
        self.trend_table.setColumnCount(7)
        self.trend_table.setHorizontalHeaderLabels(
            [
                self.tr("Month"), self.tr("Provider"), self.tr("GPU"), self.tr("Jobs"),
                self.tr("Per M tokens"), self.tr("Per 1k requests"), self.tr("MFU"),
            ]
        )  # fmt: skip
        if self.memory is not None:
            self.set_data(self.memory, self.trends)

    # -- data -----------------------------------------------------------------------------------
    def set_data(self, memory: TrackRecord, trends: list[ResultTrend]) -> None:
        self.memory, self.trends = memory, list(trends)
        self._fill_standings()
        self._fill_marks()
        self._fill_trends()

    def summary(self) -> str:
        if self.memory is None:
            return ""
        providers = len(self.memory.standings("provider"))
        return self.tr("{rentals} rentals from {providers} providers remembered").format(
            rentals=len(self.memory.rentals), providers=providers
        )

    def _fill_standings(self) -> None:
        by = self.by.currentData() or "provider"
        header = self.standings.horizontalHeaderItem(0)
        if header is not None:
            header.setText(_t(_BY_WORDS[by]).capitalize())
        rows: list[Standing] = [] if self.memory is None else self.memory.standings(by)
        self.standings.setRowCount(len(rows))
        for i, s in enumerate(rows):
            counts: dict[str, int] = s.counts

            def n(kind: str, c: dict[str, int] = counts) -> str:
                return str(c.get(kind) or "–")

            cells = [
                _item(s.key, data=True),
                _item(str(s.rentals)),
                _item(str(s.failed_rentals or "–")),
                _item(n("xid")),
                _item(n("ecc")),
                _item("–" if s.worst_busbw_ratio is None else f"{s.worst_busbw_ratio:.0%}"),
                _item(n("bring_up_failed")),
                _item(n("refusal")),
                _item(n("leak")),
                _item("–" if s.worst_price_drift is None else f"{s.worst_price_drift:+.0%}"),
                _item(i18n.duration(s.median_ready_s), translated=True),
            ]
            for column, cell in enumerate(cells):
                self.standings.setItem(i, column, cell)

    def _fill_marks(self) -> None:
        marks = [] if self.memory is None else list(reversed(self.memory.marks))[:200]
        self.marks.setRowCount(len(marks))
        for i, m in enumerate(marks):
            where = " / ".join((m.provider, m.region or "?", m.gpu, m.fabric))
            what = _KIND_WORDS.get(m.kind)
            cells = [
                _item(i18n.date_time(m.ts), translated=True),
                _item(where, data=True),
                _item(m.host or "–", data=True),
                _item(_t(what) if what else m.kind, translated=what is not None),
                _item(m.detail, data=True),  # a machine's or a provider's words, as they are
            ]
            for column, cell in enumerate(cells):
                self.marks.setItem(i, column, cell)

    def _fill_trends(self) -> None:
        self.trend_table.setRowCount(len(self.trends))
        for i, t in enumerate(self.trends):
            per_m, per_k = t.cost_per_m_tokens_micros, t.cost_per_1k_requests_micros
            cells = [
                _item(t.month),
                _item(t.provider, data=True),
                _item(t.gpu, data=True),
                _item(str(t.jobs)),
                _item("–" if per_m is None else i18n.money(per_m, t.currency), translated=True),
                _item("–" if per_k is None else i18n.money(per_k, t.currency), translated=True),
                _item("–" if t.mfu is None else f"{t.mfu:.1%}"),
            ]
            for column, cell in enumerate(cells):
                self.trend_table.setItem(i, column, cell)


def result_text(result: Any) -> tuple[str, float]:
    """A job's cost per result for a list cell (per M tokens, else per 1k requests, else per
    epoch) and the figure to sort it by."""
    currency = result.currency or "CNY"
    for micros, unit in (
        (result.cost_per_m_tokens_micros, QT_TRANSLATE_NOOP("HistoryMemory", "{cost} / M tokens")),
        (
            result.cost_per_1k_requests_micros,
            QT_TRANSLATE_NOOP("HistoryMemory", "{cost} / 1k requests"),
        ),
        (result.cost_per_epoch_micros, QT_TRANSLATE_NOOP("HistoryMemory", "{cost} / epoch")),
    ):
        if micros is not None:
            return _t(unit).format(cost=i18n.money(micros, currency)), float(micros)
    return "–", -1.0
