"""The Plan page: a request form -> ranked options with reasons, a cost-versus-hours chart
with the Pareto front, Rent through a quote and an approval, and the selection report.

The form is checked with the planner's own parsing (``PlanRequest.parse``): every
field is tried alone, then the whole request, and each error is shown under the
field it names. ``Engine.plan``, ``Engine.quote``, ``Engine.up`` and the report's
file write run on the worker; the page only shows and forwards.
"""

from __future__ import annotations

import json
import logging
import math
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import (
    QT_TRANSLATE_NOOP,
    QBuffer,
    QByteArray,
    QCoreApplication,
    QEvent,
    QIODevice,
    Qt,
    QTimer,
    QUrl,
    Signal,
)
from PySide6.QtGui import QColor, QKeySequence, QShortcut, QShowEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QBoxLayout,
    QCheckBox,
    QComboBox,
    QFileDialog,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QSplitter,
    QStackedLayout,
    QTableWidget,
    QTableWidgetItem,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from xyclaw.catalog.fabrics import BUILTIN_FABRICS
from xyclaw.catalog.money import format_amount
from xyclaw.engine.values import (
    Catalog,
    PlanRequest,
    RequestError,
    Task,
    side_by_side,
    size_label,
    starts_text,
    worded_reasons,
)
from xyclaw.errors import XyclawError
from xyclaw.files import write_private
from xyclaw.gui import i18n
from xyclaw.gui.bridge import ErrorInfo
from xyclaw.gui.charts.theme import LIGHT, ChartTheme, theme_for
from xyclaw.gui.formatting import error_text, fabric_text, message_language, worded
from xyclaw.gui.forms import child, load_ui
from xyclaw.gui.plan_report import (
    FAMILY_COLORS,
    FRONT_COLOR,
    MAX_OPTIONS,
    family,
    legend_html,
    selection_report,
)
from xyclaw.gui.rent_flow import RentFlow
from xyclaw.gui.widgets import html_text, plain_label, plain_tip, weak_slot
from xyclaw.wording import display

if TYPE_CHECKING:
    from xyclaw.engine.reports import PlanOutcome
    from xyclaw.engine.values import PlanOption, RejectedOption
    from xyclaw.gui.context import GuiContext

log = logging.getLogger(__name__)

TASKS: tuple[tuple[Task, str], ...] = (
    (Task.FINETUNE_LORA, QT_TRANSLATE_NOOP("PlanPage", "LoRA fine-tune")),
    (Task.FINETUNE_FULL, QT_TRANSLATE_NOOP("PlanPage", "Full fine-tune")),
    (Task.PRETRAIN, QT_TRANSLATE_NOOP("PlanPage", "Pretrain")),
    (Task.INFERENCE, QT_TRANSLATE_NOOP("PlanPage", "Inference (serve)")),
)
#: (value, label, translated): the built-in fabrics are shown by their names.
FABRIC_CHOICES: tuple[tuple[str | None, str, bool], ...] = (
    (None, QT_TRANSLATE_NOOP("PlanPage", "Any fabric"), True),
    ("ib", QT_TRANSLATE_NOOP("PlanPage", "InfiniBand (any)"), True),
    ("roce", QT_TRANSLATE_NOOP("PlanPage", "RoCE v2 (any)"), True),
    ("eth", QT_TRANSLATE_NOOP("PlanPage", "TCP Ethernet (any)"), True),
    ("none", QT_TRANSLATE_NOOP("PlanPage", "One node only (no fabric)"), True),
    *((name, name, False) for name in BUILTIN_FABRICS if name != "none"),
)
#: Form field -> the PlanRequest.parse keyword it feeds.
FIELDS = ("task", "model_size", "tokens", "gpus", "gpu", "fabric", "budget", "deadline", "rate")
#: RequestError.field -> the form field that shows it.
ERROR_FIELD = {
    "dataset_tokens": "tokens",
    "epochs": "tokens",
    "currency": "budget",
    "duration": "deadline",
    "precision": "task",
}
TRAINING_ONLY = frozenset({"tokens", "deadline"})
INFERENCE_ONLY = frozenset({"rate"})
COLUMNS = (
    "#",
    "GPU",
    "Cards",
    "Fabric",
    "Where",
    "Per card-h",
    "Time",
    "Cost",
    "Starts",  # issue 33: now, or a Slurm partition's wait
    "GiB/GPU",
    "Util",
    "",
)
REJECTED_COLUMNS = ("#", "GPU", "Cards", "Fabric", "Where", "Time", "Cost", "Why it does not fit")
#: The columns' headers in the GUI's language (the keys stay English).
HEADERS = {
    "GPU": QT_TRANSLATE_NOOP("PlanPage", "GPU"),
    "Cards": QT_TRANSLATE_NOOP("PlanPage", "Cards"),
    "Fabric": QT_TRANSLATE_NOOP("PlanPage", "Fabric"),
    "Where": QT_TRANSLATE_NOOP("PlanPage", "Where"),
    "Per card-h": QT_TRANSLATE_NOOP("PlanPage", "Per card-h"),
    "Time": QT_TRANSLATE_NOOP("PlanPage", "Time"),
    "Cost": QT_TRANSLATE_NOOP("PlanPage", "Cost"),
    "Starts": QT_TRANSLATE_NOOP("PlanPage", "Starts"),
    "GiB/GPU": QT_TRANSLATE_NOOP("PlanPage", "GiB/GPU"),
    "Util": QT_TRANSLATE_NOOP("PlanPage", "Util"),
    "Why it does not fit": QT_TRANSLATE_NOOP("PlanPage", "Why it does not fit"),
}
VALIDATE_DEBOUNCE_MS = 250
FAMILIES = ("none", "ib", "roce", "eth")


def _t(text: str) -> str:
    return QCoreApplication.translate("PlanPage", text)


def hours_text(seconds: float | None) -> str:
    if seconds is None:
        return "–"
    hours = seconds / 3600
    if hours < 100:
        return QCoreApplication.translate("PlanPage", "{n} h").format(n=i18n.number(hours, 1))
    return QCoreApplication.translate("PlanPage", "{n} d").format(n=i18n.number(hours / 24, 1))


def request_text(request: PlanRequest) -> str:
    """What was asked, in the GUI's language (the planner's own words are English)."""
    tasks = dict(TASKS)
    parts = [f"{_t(tasks[request.task])} {size_label(request.params)}"]
    assumed = QCoreApplication.translate("PlanPage", " (assumed)")
    if request.task.training:
        tokens = QCoreApplication.translate("PlanPage", "{n} tokens").format(
            n=size_label(request.training_tokens)
        )
        parts.append(tokens + (assumed if request.tokens_assumed else ""))
    else:
        rate = QCoreApplication.translate("PlanPage", "{n} req/s").format(
            n=f"{request.target_rate:g}"
        )
        parts.append(
            QCoreApplication.translate("PlanPage", "{rate} for {hours}").format(
                rate=rate + (assumed if request.rate is None else ""),
                hours=QCoreApplication.translate("PlanPage", "{n} h").format(
                    n=f"{request.serve_seconds / 3600:g}"
                ),
            )
        )
    parts.append(
        QCoreApplication.translate("PlanPage", "{precision}, context {n}").format(
            precision=request.precision.value, n=request.context
        )
    )
    limits: list[str] = []
    if request.gpus_max == request.gpus_min:
        one = request.gpus_min == 1
        limits.append(
            QCoreApplication.translate("PlanPage", "1 GPU")
            if one
            else QCoreApplication.translate("PlanPage", "{n} GPUs").format(n=request.gpus_min)
        )
    elif request.gpus_max is not None or request.gpus_min > 1:
        upper = "" if request.gpus_max is None else str(request.gpus_max)
        limits.append(
            QCoreApplication.translate("PlanPage", "{n} GPUs").format(
                n=f"{request.gpus_min}-{upper}" if upper else f"{request.gpus_min}+"
            )
        )
    for label, value in (
        (QCoreApplication.translate("PlanPage", "GPU {value}"), request.gpu),
        (QCoreApplication.translate("PlanPage", "region {value}"), request.region),
        (QCoreApplication.translate("PlanPage", "fabric {value}"), request.fabric),
        (QCoreApplication.translate("PlanPage", "provider {value}"), request.provider),
    ):
        if value:
            limits.append(label.format(value=value))
    if request.budget_micro is not None:
        limits.append(
            QCoreApplication.translate("PlanPage", "budget {amount}").format(
                amount=format_amount(request.budget_micro, request.currency)
            )
        )
    if request.deadline_seconds is not None and request.task.training:
        limits.append(
            QCoreApplication.translate("PlanPage", "deadline {hours}").format(
                hours=QCoreApplication.translate("PlanPage", "{n} h").format(
                    n=f"{request.deadline_seconds / 3600:g}"
                )
            )
        )
    if request.fastest:
        limits.append(QCoreApplication.translate("PlanPage", "fastest first"))
    sep = QCoreApplication.translate("PlanPage", ", ")
    return sep.join(parts) + (" | " + sep.join(limits) if limits else "")


def chat_request_values(request: dict[str, Any]) -> dict[str, str]:
    """The form's values for a saved plan's request (``PlanRequest.to_json``): the figures
    the chat was told; the ones it assumed (tokens, rate) left for the planner to assume."""
    values = {
        "task": str(request["task"]),
        "model_size": f"{float(request['model_size']) / 1e9:g}B",
    }
    if request.get("tokens") and not request.get("tokens_assumed"):
        values["tokens"] = str(int(request["tokens"]))
    low, high = request.get("gpus_min"), request.get("gpus_max")
    if high is not None:
        values["gpus"] = str(high) if low in (None, high) else f"{low}-{high}"
    elif low and int(low) > 1:
        values["gpus"] = f"{low}+"
    for key in ("gpu", "fabric"):
        if request.get(key):
            values[key] = str(request[key])
    if request.get("budget") is not None:
        values["budget"] = f"{request['budget']:g} {request.get('currency') or ''}".strip()
    if request.get("deadline_hours"):
        values["deadline"] = f"{float(request['deadline_hours']):g}h"
    if request.get("rate") and not request.get("rate_assumed"):
        values["rate"] = f"{float(request['rate']):g}"
    return values


def field_errors(values: dict[str, str | None], fastest: bool = False) -> dict[str, str]:
    """Every field the planner refuses, each with the planner's own message.

    Each filled field is parsed alone (on a request that is otherwise valid), so
    several wrong fields are all shown at once; then the whole request, for the
    rules that join fields (a budget's currency, a context too small).
    """
    errors: dict[str, str] = {}
    task = values.get("task") or Task.FINETUNE_LORA.value
    base: dict[str, Any] = {"task": task, "model_size": "7B"}

    def attempt(kwargs: dict[str, Any]) -> None:
        try:
            PlanRequest.parse(**kwargs, fastest=fastest)
        except RequestError as exc:
            errors.setdefault(
                ERROR_FIELD.get(exc.field, exc.field), error_text(exc, with_hint=False)
            )

    if not (values.get("model_size") or "").strip():
        errors["model_size"] = QCoreApplication.translate(
            "PlanPage", "give the model's size, such as 7B, 13B or 70B"
        )
    else:
        attempt({**base, "model_size": values["model_size"]})
    for name in FIELDS[2:]:
        value = values.get(name)
        if value and name not in errors:
            attempt({**base, name: value})
    if not errors:
        attempt({**{k: v for k, v in values.items() if v}, "task": task})
    return errors


@dataclass(frozen=True)
class PlanView:
    """What the worker hands the page: the outcome and the chart's arrays."""

    outcome: PlanOutcome
    hours: np.ndarray
    costs: np.ndarray
    families: tuple[str, ...]
    front: tuple[int, ...]  # option indexes on the Pareto front, by rising time
    options: tuple[PlanOption, ...]  # the first MAX_OPTIONS (the ones a quote can name)
    rejected: tuple[RejectedOption, ...]

    @classmethod
    def of(cls, outcome: PlanOutcome) -> PlanView:
        result = outcome.result
        every = list(result.options)
        index = {o.key: i for i, o in enumerate(every)}
        front = sorted(
            (index[o.key] for o in result.pareto_front()), key=lambda i: every[i].seconds
        )
        return cls(
            outcome=outcome,
            hours=np.asarray([o.seconds / 3600 for o in every], dtype=np.float64),
            costs=np.asarray([o.cost_micro / 1e6 for o in every], dtype=np.float64),
            families=tuple(family(o.fabric) for o in every),
            front=tuple(front),
            options=tuple(every[:MAX_OPTIONS]),
            rejected=tuple(result.rejected[:20]),
        )

    @property
    def plan_id(self) -> int:
        return self.outcome.plan_id

    @property
    def currency(self) -> str:
        return self.options[0].currency if self.options else self.outcome.result.request.currency


def log_ticks(low: float, high: float) -> list[list[tuple[float, str]]]:
    """Ticks at 1, 2 and 5 times a power of ten for a log axis, as plain numbers (the
    default labels every minor tick with an exponent and they run into each other)."""
    ticks: list[tuple[float, str]] = []
    low, high = max(low, 1e-9) / 1.6, high * 1.6
    for power in range(math.floor(math.log10(low)), math.ceil(math.log10(high)) + 1):
        for step in (1, 2, 5):
            value = step * 10.0**power
            if low <= value <= high:
                ticks.append(
                    (math.log10(value), i18n.number(value, 0) if value >= 1 else f"{value:g}")
                )
    return [ticks]


class PlanChart(QWidget):
    """Cost against hours of every feasible option, coloured by fabric, Pareto front drawn.

    ``point_clicked(index)`` names the option (0-based) under a click.
    """

    point_clicked = Signal(int)

    def __init__(self, parent: QWidget | None = None, *, theme: ChartTheme = LIGHT) -> None:
        super().__init__(parent)
        self.theme = theme
        self.view = pg.PlotWidget(enableMenu=False)  # none: ~30 ms less to make
        self.view.setObjectName("planChart")
        self.plot: pg.PlotItem = self.view.getPlotItem()
        self.plot.hideButtons()
        self.plot.setMenuEnabled(False)
        self.plot.showGrid(x=True, y=True, alpha=theme.grid_alpha)
        # Front points get a red diamond over their fabric's dot (one symbol per item:
        # pyqtgraph's legend samples crash on per-point symbol lists).
        self.front_curve = pg.PlotDataItem(
            pen=pg.mkPen(FRONT_COLOR, width=2),
            symbol="d",
            symbolSize=13,
            symbolPen=pg.mkPen(FRONT_COLOR, width=2),
            symbolBrush=pg.mkBrush(0, 0, 0, 0),
        )
        self.front_curve.setZValue(10)
        self.plot.addItem(self.front_curve)
        # One item per fabric family, made once: a plan only sets their data (making and
        # adding pyqtgraph items costs ~10 ms each).
        self.scatters: dict[str, pg.PlotDataItem] = {}
        for name in FAMILIES:
            color = QColor(FAMILY_COLORS[name])
            scatter = pg.PlotDataItem(
                pen=None,
                symbol="o",
                symbolSize=8,
                symbolPen=pg.mkPen(color.darker(140), width=1),
                symbolBrush=pg.mkBrush(color),
            )
            scatter.sigPointsClicked.connect(self._clicked)
            self.plot.addItem(scatter)
            self.scatters[name] = scatter
        self.highlight = pg.PlotDataItem(
            pen=None,
            symbol="o",
            symbolSize=18,
            symbolPen=pg.mkPen("#111827", width=2),
            symbolBrush=pg.mkBrush(0, 0, 0, 0),
        )
        self.highlight.setZValue(11)
        self.plot.addItem(self.highlight)
        self.count = 0
        self._x = np.zeros(0)
        self._y = np.zeros(0)
        self.legend_label = QLabel()
        self.legend_label.setObjectName("planChartLegend")
        self.legend_label.setProperty("role", "muted")
        self.legend_label.setTextFormat(Qt.TextFormat.RichText)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.placeholder = plain_label()
        self.placeholder.setObjectName("planChartPlaceholder")
        self.placeholder.setProperty("role", "muted")
        self.placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.placeholder.setWordWrap(True)
        chart = QWidget()
        chart_layout = QVBoxLayout(chart)
        chart_layout.setContentsMargins(0, 0, 0, 0)
        chart_layout.setSpacing(2)
        chart_layout.addWidget(self.legend_label)
        chart_layout.addWidget(self.view, 1)
        # A stack, so that words in place of the plot never change the page's proportions.
        self.stack = QStackedLayout()
        self.stack.addWidget(self.placeholder)
        self.stack.addWidget(chart)
        layout.addLayout(self.stack, 1)
        self.view_shown: PlanView | None = None
        self.retranslate()
        self.apply_theme(theme)

    def retranslate(self) -> None:
        if self.view_shown is None:
            self.set_placeholder(
                self.tr(
                    "Cost against time of every option that fits, with the Pareto front: the "
                    "options nothing else beats on both. Plan to see it."
                )
            )
        else:
            self.show_plan(self.view_shown)

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange and i18n.alive(self.placeholder, self.view):
            self.retranslate()
        elif (
            event.type() in (QEvent.Type.StyleChange, QEvent.Type.PaletteChange)
            and self.isVisible()  # hidden: when it is shown next
        ):
            self._follow_theme()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self._follow_theme()

    def _follow_theme(self) -> None:
        """The chart in the theme switched to (it stayed in the one it was made in)."""
        theme = theme_for(self)
        if theme != self.theme:
            self.apply_theme(theme)

    def set_placeholder(self, text: str | None) -> None:
        """Words instead of an empty plot (before the first plan, or when nothing fits)."""
        self.placeholder.setText(text or "")
        self.stack.setCurrentIndex(0 if text else 1)

    def apply_theme(self, theme: ChartTheme) -> None:
        self.theme = theme
        self.view.setBackground(theme.background)
        for name in ("left", "bottom"):
            axis = self.plot.getAxis(name)
            axis.setPen(theme.muted)
            axis.setTextPen(theme.foreground)

    def clear(self) -> None:
        for scatter in self.scatters.values():
            scatter.setData([], [])
        self.front_curve.setData([], [])
        self.highlight.setData([], [])
        self.count = 0
        self.plot.setTitle(None)

    def show_plan(self, view: PlanView) -> None:
        """Draw every option; hours become days and costs thousands when they are large,
        and an axis turns logarithmic when its values spread over more than 30x."""
        self.clear()
        self.view_shown = view
        count = len(view.hours)
        self.count = count
        self.legend_label.setText(legend_html(view.families, len(view.front)))
        self.set_placeholder(
            None
            if count
            else self.tr(
                "Nothing fits, so there is nothing to chart: the table lists "
                "the closest shapes and the limit each breaks."
            )
        )
        if not count:
            self._x = self._y = np.zeros(0)
            return
        days = float(view.hours.max()) > 240
        thousands = float(view.costs.max()) >= 20_000
        x = view.hours / 24 if days else view.hours
        y = view.costs / 1000 if thousands else view.costs
        self._x, self._y = x, y
        log_x = float(x.max()) / max(float(x.min()), 1e-9) > 30
        log_y = float(y.max()) / max(float(y.min()), 1e-9) > 30
        self.plot.setLogMode(x=log_x, y=log_y)
        for name, values, log in (("bottom", x, log_x), ("left", y, log_y)):
            axis = self.plot.getAxis(name)
            axis.enableAutoSIPrefix(False)
            axis.setTicks(log_ticks(float(values.min()), float(values.max())) if log else None)
        unit = self.tr("days") if days else self.tr("hours")
        training = view.outcome.result.request.task.training
        what = self.tr("run time") if training else self.tr("serving time")
        money = (
            self.tr("thousand {currency}").format(currency=view.currency)
            if thousands
            else view.currency
        )
        log_scale = self.tr(", log scale")
        self.plot.setLabel(
            "bottom",
            self.tr("{what} ({unit})").format(what=what, unit=unit + (log_scale if log_x else "")),
        )
        self.plot.setLabel(
            "left", self.tr("cost ({unit})").format(unit=money + (log_scale if log_y else ""))
        )
        families = np.asarray(view.families)
        for name, scatter in self.scatters.items():
            idx = np.flatnonzero(families == name)
            scatter.setData(x[idx], y[idx], data=[int(i) for i in idx])
        order = list(view.front)
        self.front_curve.setData(x[order], y[order])
        self.plot.autoRange(padding=0.08)

    def _clicked(self, _item: Any, points: Any, *_rest: Any) -> None:
        if len(points):
            self.point_clicked.emit(int(points[0].data()))

    def select(self, index: int | None) -> None:
        if index is None or not 0 <= index < self.count:
            self.highlight.setData([], [])
            return
        self.highlight.setData([self._x[index]], [self._y[index]])

    def front_points(self) -> list[tuple[float, float]]:
        """The front as drawn, in the axes' units (hours or days, cost or thousands)."""
        xs, ys = self.front_curve.xData, self.front_curve.yData
        if xs is None or ys is None:
            return []
        return list(zip((float(x) for x in xs), (float(y) for y in ys), strict=True))

    def point_count(self) -> int:
        return sum(len(s.scatter.points()) for s in self.scatters.values())

    def drawn_families(self) -> set[str]:
        return {name for name, s in self.scatters.items() if len(s.scatter.points())}

    def png(self, width: int = 1000) -> bytes:
        """The chart drawn at a fixed size, as PNG bytes (for the report)."""
        from pyqtgraph.exporters import ImageExporter

        exporter = ImageExporter(self.plot)
        exporter.parameters()["width"] = width  # the height follows the plot's aspect
        exporter.parameters()["background"] = QColor(self.theme.background)
        self.highlight.setVisible(False)  # the report shows every option alike
        try:
            image = exporter.export(toBytes=True)
        finally:
            self.highlight.setVisible(True)
        data = QByteArray()
        buffer = QBuffer(data)
        buffer.open(QIODevice.OpenModeFlag.WriteOnly)
        image.save(buffer, "PNG")
        buffer.close()
        return bytes(data.data())


def _item(text: str, *, right: bool = False, tip: str = "") -> QTableWidgetItem:
    item = QTableWidgetItem(display.line(text))  # a provider's names, drawn safely
    if right:
        item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
    if tip:
        item.setToolTip(plain_tip(tip))
    return item


#: Reasons whose words name a command-line flag: said for the window, naming its field.
_WINDOW_REASONS = {
    "assumed-tokens": lambda f: QCoreApplication.translate(
        "PlanPage", "{tokens} training tokens assumed; fill in Tokens above"
    ).format(tokens=f.get("tokens", "?")),
    "assumed-rate": lambda f: QCoreApplication.translate(
        "PlanPage", "{rate} req/s assumed; fill in QPS above"
    ).format(rate=f.get("rate", "?")),
}


def _worded_reasons(option: PlanOption) -> list[tuple[str, str]]:
    """The option's (rule, reason) in the GUI's language; a reason that tells a terminal user
    which flag to give tells a window user which field to fill in."""
    figures = option.reason_figures or ({},) * len(option.reasons)
    out = []
    worded = worded_reasons(option, message_language())
    for (rule, text), found in zip(worded, figures, strict=False):
        window = _WINDOW_REASONS.get(rule)
        out.append((rule, window(dict(found or {})) if window else text))
    return out


def _reasons_tip(option: PlanOption) -> str:
    return "\n".join(f"• {text}" for _, text in _worded_reasons(option))


class PlanPage(QWidget):
    """See the module's docstring. Signals are for the window and the tests."""

    planned = Signal(object)  # PlanView
    report_saved = Signal(str)
    message = Signal(str)  # what the status line says

    def __init__(self, context: GuiContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.context = context
        self.worker = context.worker
        form = load_ui("plan_page.ui", self)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(form)
        self.form = form
        names = {
            "task": "planTask",
            "model_size": "planModelSize",
            "tokens": "planTokens",
            "gpus": "planGpus",
            "gpu": "planGpu",
            "fabric": "planFabric",
            "budget": "planBudget",
            "deadline": "planDeadline",
            "rate": "planRate",
        }
        self.fields: dict[str, QWidget] = {
            key: child(form, QWidget, name) for key, name in names.items()
        }
        self.errors: dict[str, QLabel] = {
            key: child(form, QLabel, f"{name}Error") for key, name in names.items()
        }
        self.labels: dict[str, QLabel] = {
            key: child(form, QLabel, f"{name}Label") for key, name in names.items()
        }
        self.task: QComboBox = child(form, QComboBox, "planTask")
        for task, label in TASKS:
            self.task.addItem(_t(label), task.value)
        self.gpu: QComboBox = child(form, QComboBox, "planGpu")
        self.gpu.addItem(self.tr("Any GPU"), None)
        for gpu in Catalog.builtin().gpus:
            self.gpu.addItem(f"{gpu.name} ({gpu.memory_gib:g} GB)", gpu.name)
        self.fabric: QComboBox = child(form, QComboBox, "planFabric")
        for value, label, translated in FABRIC_CHOICES:
            self.fabric.addItem(_t(label) if translated else label, value)
        self.model_size: QLineEdit = child(form, QLineEdit, "planModelSize")
        self.model_size.setText("13B")
        self.gpus: QLineEdit = child(form, QLineEdit, "planGpus")
        self.gpus.setText("8")
        self.fastest = child(form, QCheckBox, "planFastest")
        self.use_memory = child(form, QCheckBox, "planMemory")  # issue 36: off per plan
        self.form_error = child(form, QLabel, "planFormError")
        self.plan_button = child(form, QPushButton, "planButton")
        self.status = child(form, QLabel, "planStatus")
        self.summary = child(form, QLabel, "planSummary")
        self.summary.setTextFormat(Qt.TextFormat.RichText)  # its data escaped (html_text)
        self.notes = child(form, QLabel, "planNotes")
        self.save_button = child(form, QPushButton, "saveReport")
        self.table: QTableWidget = child(form, QTableWidget, "planOptions")
        self.details: QTextBrowser = child(form, QTextBrowser, "planDetails")
        self.details.setOpenLinks(False)  # issue 32: its "rent as spot" link quotes here
        self.details.anchorClicked.connect(self._details_link)
        results = child(form, QSplitter, "planResults")
        results.setStretchFactor(0, 1)
        results.setStretchFactor(1, 1)
        results.setSizes([380, 420])
        lower = child(form, QSplitter, "planLower")
        lower.setStretchFactor(0, 3)
        lower.setStretchFactor(1, 2)
        self.chart = PlanChart(theme=theme_for(self))
        child(form, QWidget, "planChartHost").layout().addWidget(self.chart)
        self._columns: tuple[str, ...] = ()
        self._setup_table(COLUMNS)
        self._details_hint()

        self.view: PlanView | None = None
        self.rent_buttons: list[QPushButton] = []
        self.rent_flow = RentFlow(context, self, asked_by=self.tr("Plan page"))
        self.rent_flow.rented.connect(self._rented)
        self.rent_flow.rejected.connect(
            lambda q: self._say(
                self.tr("Rejected: nothing was rented ({n} × {gpu}).").format(
                    n=q.gpu_count, gpu=q.gpu
                )
            )
        )
        self.rent_flow.failed.connect(self._show_error)
        self.save_dialog: QFileDialog | None = None
        self.planning = False
        self._touched: set[str] = set()
        self._chat_plan_seen = 0  # the newest plan id this page looked at
        self._from_chat: int | None = None  # the chat's plan being planned again here
        self._chat_plan: tuple[int, dict[str, str]] | None = None  # offered by the button
        self.chat_plan_button = QPushButton()
        self.chat_plan_button.setObjectName("planFromChat")
        self.chat_plan_button.hide()
        self.chat_plan_button.clicked.connect(self.show_chat_plan)
        column = self.form_error.parentWidget().layout()  # type: ignore[union-attr]
        assert isinstance(column, QBoxLayout)  # the form's column (ui/plan_page.ui)
        column.insertWidget(column.indexOf(self.form_error), self.chat_plan_button)

        self._validate_timer = QTimer(self)
        self._validate_timer.setSingleShot(True)
        self._validate_timer.setInterval(VALIDATE_DEBOUNCE_MS)
        self._validate_timer.timeout.connect(lambda: self.validate(only_touched=True))
        for key, widget in self.fields.items():
            if isinstance(widget, QLineEdit):
                widget.textEdited.connect(lambda _t, k=key: self._edited(k))
                widget.returnPressed.connect(self.plan)
            elif isinstance(widget, QComboBox):
                widget.currentIndexChanged.connect(lambda _i, k=key: self._edited(k))
        self.task.currentIndexChanged.connect(lambda _i: self._task_changed())
        self.fastest.toggled.connect(lambda _on: self._edited("task"))
        self.plan_button.clicked.connect(self.plan)
        self.save_button.clicked.connect(self.ask_report_path)
        self.table.itemSelectionChanged.connect(self._row_selected)
        self.chart.point_clicked.connect(self.select_option)
        shortcut = QShortcut(QKeySequence("Ctrl+Return"), self)
        shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        shortcut.activated.connect(self.plan)
        self._task_changed()

    # -- words ------------------------------------------------------------------------------
    def retranslate(self) -> None:
        """Choices, headers and what is shown, in the GUI's language (the form words itself)."""
        self._word_chat_button()
        for i, (_task, label) in enumerate(TASKS):
            self.task.setItemText(i, _t(label))
        self.gpu.setItemText(0, self.tr("Any GPU"))
        for i, (_value, label, translated) in enumerate(FABRIC_CHOICES):
            if translated:
                self.fabric.setItemText(i, _t(label))
        self._headers()
        self._task_changed()
        self.validate(only_touched=True)
        if self.view is not None:
            self.show_plan(self.view, quiet=True)
            if self.status.text():  # what the status line said, said again in this language
                self._say(self._saved_text(self.view))
        else:
            self._details_hint()

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange:
            # after the form has worded itself again (it would put back its own texts)
            QTimer.singleShot(0, self, self._retranslate_if_alive)

    def _retranslate_if_alive(self) -> None:
        if i18n.alive(self, self.task, self.table, self.details):
            self.retranslate()

    def _details_hint(self) -> None:
        self.details.setHtml(
            "<p style='color:#6b7280'>"
            + self.tr("Select an option to see why it is ranked where it is.")
            + "</p>"
        )

    def _headers(self) -> None:
        self.table.setHorizontalHeaderLabels(
            [_t(HEADERS[c]) if c in HEADERS else c for c in self._columns]
        )

    # -- the form --------------------------------------------------------------------------
    def values(self) -> dict[str, str | None]:
        """The form as the planner's keyword arguments (empty and N/A fields left out)."""
        training = self.current_task().training
        out: dict[str, str | None] = {}
        for key, widget in self.fields.items():
            if (key in TRAINING_ONLY and not training) or (key in INFERENCE_ONLY and training):
                continue
            if isinstance(widget, QComboBox):
                data = widget.currentData()
                out[key] = None if data is None else str(data)
            elif isinstance(widget, QLineEdit):
                out[key] = widget.text().strip() or None
        return out

    def current_task(self) -> Task:
        return Task(str(self.task.currentData()))

    def set_values(self, **values: str) -> None:
        """Fill the form (tests, and requests handed over from elsewhere)."""
        for key, value in values.items():
            widget = self.fields[key]
            if isinstance(widget, QComboBox):
                index = widget.findData(value)
                if index < 0:
                    raise ValueError(f"{key}: no choice {value!r}")
                widget.setCurrentIndex(index)
            elif isinstance(widget, QLineEdit):
                widget.setText(value)
            self._touched.add(key)
        self.validate(only_touched=False)

    def _edited(self, key: str) -> None:
        self._touched.add(key)
        self._validate_timer.start()

    def _task_changed(self) -> None:
        training = self.current_task().training
        for key in TRAINING_ONLY:
            self._enable(key, training, self.tr("Only for training") if not training else "")
        for key in INFERENCE_ONLY:
            self._enable(key, not training, self.tr("Only for inference") if training else "")

    def _enable(self, key: str, on: bool, why: str) -> None:
        widget = self.fields[key]
        widget.setEnabled(on)
        self.labels[key].setEnabled(on)
        widget.setToolTip(plain_tip("" if on else why))
        if not on:
            self._show_field_error(key, None)

    def validate(self, *, only_touched: bool = False) -> dict[str, str]:
        """Check the form with the planner's rules; show each error under its field."""
        errors = field_errors(self.values(), self.fastest.isChecked())
        for key in self.fields:
            shown = errors.get(key)
            if only_touched and key not in self._touched:
                shown = None
            self._show_field_error(key, shown)
        other = [m for k, m in errors.items() if k not in self.fields]
        self.form_error.setText("; ".join(other))
        self.form_error.setVisible(bool(other) and not only_touched)
        return errors

    def _show_field_error(self, key: str, message: str | None) -> None:
        label = self.errors[key]
        label.setText(message or "")
        label.setVisible(bool(message))
        widget = self.fields[key]
        if widget.property("invalid") != bool(message):
            widget.setProperty("invalid", bool(message))
            widget.style().unpolish(widget)
            widget.style().polish(widget)

    def error_text(self, key: str) -> str:
        label = self.errors[key]
        return label.text() if label.isVisibleTo(self) else ""

    # -- planning --------------------------------------------------------------------------
    def plan(self) -> bool:
        """Plan the form's request on the worker; False if the form has errors or a plan runs."""
        if self.planning:
            return False
        self._touched.update(self.fields)
        if self.validate():
            self._say(self.tr("Fix the fields marked in red first."))
            return False
        values = {k: v for k, v in self.values().items() if v}
        request = PlanRequest.parse(**values, fastest=self.fastest.isChecked())  # type: ignore[arg-type]
        engine = self.context.engine
        use_memory = self.use_memory.isChecked()

        def work() -> PlanView | RequestError:
            try:
                providers = [request.provider] if request.provider else None
                return PlanView.of(engine.plan(request, providers=providers, use_memory=use_memory))
            except RequestError as exc:  # a field the offers refuse: shown at the field
                return exc

        self.planning = True
        self.plan_button.setEnabled(False)
        self._say(self.tr("Planning over the providers' live offers…"))
        self.worker.submit(work, on_done=self._planned, on_error=self._plan_failed, name="plan")
        return True

    def _plan_failed(self, error: ErrorInfo) -> None:
        self.planning = False
        self.plan_button.setEnabled(True)
        self._show_error(error)

    def _planned(self, answer: PlanView | RequestError) -> None:
        self.planning = False
        self.plan_button.setEnabled(True)
        from_chat, self._from_chat = self._from_chat, None
        if isinstance(answer, RequestError):
            key = ERROR_FIELD.get(answer.field, answer.field)
            if key in self.fields:
                self._show_field_error(key, error_text(answer, with_hint=False))
            else:
                self.form_error.setText(error_text(answer, with_hint=False))
                self.form_error.show()
            self._say(self.tr("The planner refused the request."))
            return
        self.show_plan(answer)
        if from_chat is not None:
            self._chat_plan_seen = max(self._chat_plan_seen, answer.plan_id)
            self._say(
                self.tr(
                    "The chat's plan {chat}, planned again here over the live offers as plan"
                    " {id}: rent any option for a quote."
                ).format(chat=from_chat, id=answer.plan_id)
            )

    def show_plan(self, view: PlanView, *, quiet: bool = False) -> None:
        self.view = view
        result = view.outcome.result
        request = result.request
        total = len(result.options)
        plan = "<b>" + self.tr("Plan {id}").format(id=view.plan_id) + "</b>"
        if total:
            order = self.tr("fastest first") if request.fastest else self.tr("cheapest first")
            listed = (
                self.tr(", the first {n} listed").format(n=len(view.options))
                if total > len(view.options)
                else ""
            )
            head = self.tr(
                "{plan}: {fit} of {considered} shapes fit ({order}); "
                "{front} on the Pareto front (◆)."
            ).format(
                plan=plan, fit=total, considered=result.considered, order=order + listed,
                front=len(view.front),
            )  # fmt: skip
        else:
            why = worded(result.unmatched_said or result.unmatched) or self.tr(
                "all {n} shapes break a limit"
            ).format(n=result.considered)
            head = self.tr("{plan}: nothing fits: {why}.").format(plan=plan, why=html_text(why))
        compared = side_by_side(result.options[:50], message_language()) if total else None
        if compared:  # a Slurm partition beside a rental (issue 33): the lab's or the cloud's
            head += f"<br>{html_text(compared)}"
        self.summary.setText(f"{head}<br><span>{html_text(request_text(request))}</span>")
        outcome = view.outcome
        notes = [worded(n) for n in outcome.notes_said] if outcome.notes_said else outcome.notes
        self.notes.setText("\n".join(notes))
        self.notes.setVisible(bool(notes))
        self.save_button.setEnabled(True)
        if total:
            self._fill_options(view)
        else:
            self._fill_rejected(view)
        if not quiet:
            self._say(self._saved_text(view))
        # The chart in the next turn of the event loop: table and chart together cost more
        # than a frame on a busy machine.
        # (with the page as context: a page deleted before then draws nothing)
        QTimer.singleShot(0, self, lambda: self._show_chart(view, quiet=quiet))

    def _saved_text(self, view: PlanView) -> str:
        if view.outcome.result.options:
            return self.tr("Plan {id} saved: rent any option for a quote.").format(id=view.plan_id)
        return self.tr("Plan {id} saved: nothing fits; loosen the limit the table names.").format(
            id=view.plan_id
        )

    def _show_chart(self, view: PlanView, *, quiet: bool = False) -> None:
        if view is not self.view or not i18n.alive(self, self.table, self.chart):
            return  # a newer plan is on screen, or the window is being torn down
        self.chart.show_plan(view)
        if view.options:
            rows = {i.row() for i in self.table.selectedIndexes()}
            self.table.selectRow(min(rows) if rows else 0)
            self._row_selected()
        else:
            self.details.setHtml(
                "<p>"
                + self.tr(
                    "Nothing fits. The table lists the closest shapes and what each breaks; "
                    "loosen that limit and plan again."
                )
                + "</p>"
            )
        if not quiet:
            self.planned.emit(view)

    def _setup_table(self, columns: tuple[str, ...]) -> None:
        table = self.table
        table.clearContents()
        if self._columns == columns:
            return
        self._columns = columns
        table.setColumnCount(len(columns))
        self._headers()
        table.verticalHeader().setVisible(False)
        table.verticalHeader().setDefaultSectionSize(30)
        table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        header = table.horizontalHeader()
        header.setHighlightSections(False)
        header.setStretchLastSection(False)
        for col in range(len(columns)):
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(
            4 if columns is COLUMNS else len(columns) - 1, QHeaderView.ResizeMode.Stretch
        )

    def _fill_options(self, view: PlanView) -> None:
        self._setup_table(COLUMNS)
        table = self.table
        table.setRowCount(len(view.options))
        front = set(view.front)
        self.rent_buttons = []
        for row, o in enumerate(view.options):
            tip = _reasons_tip(o)
            cells = [
                _item(f"{row + 1}{' ◆' if row in front else ''}", right=True, tip=tip),
                _item(o.gpu, tip=tip),
                _item(f"{o.nodes} × {o.gpus_per_node}", right=True, tip=tip),
                _item(fabric_text(o.fabric), tip=tip),
                _item(f"{o.provider} · {o.region}", tip=tip),
                _item(format_amount(o.price_micro, o.currency), right=True, tip=tip),
                _item(hours_text(o.seconds), right=True, tip=tip),
                _item(format_amount(o.cost_micro, o.currency), right=True, tip=tip),
                _item(starts_text(o, message_language()), tip=tip),
                _item(i18n.number(o.memory_per_gpu_gb, 1), right=True, tip=tip),
                _item(f"{o.utilization:.0%}", right=True, tip=tip),
            ]
            for col, cell in enumerate(cells):
                table.setItem(row, col, cell)
            button = QPushButton(self.tr("Rent…"))
            button.setObjectName(f"plan_rent_{row + 1}")
            button.setProperty("role", "primary-small")
            button.setToolTip(
                plain_tip(self.tr("Quote option {n} and ask for your approval").format(n=row + 1))
            )
            button.clicked.connect(weak_slot(self.rent, row + 1))  # deleted with its row
            table.setCellWidget(row, len(COLUMNS) - 1, button)
            self.rent_buttons.append(button)

    def _fill_rejected(self, view: PlanView) -> None:
        self._setup_table(REJECTED_COLUMNS)
        table = self.table
        table.setRowCount(len(view.rejected))
        self.rent_buttons = []
        for row, r in enumerate(view.rejected):
            cells = [
                _item(str(row + 1), right=True),
                _item(r.gpu),
                _item(f"{r.nodes} × {r.gpus_per_node}", right=True),
                _item(fabric_text(r.fabric)),
                _item(f"{r.provider} · {r.region}"),
                _item(hours_text(r.seconds), right=True),
                _item(
                    "–" if r.cost_micro is None else format_amount(r.cost_micro, r.currency),
                    right=True,
                ),
                _item(r.why, tip=r.why),
            ]
            for col, cell in enumerate(cells):
                table.setItem(row, col, cell)

    def option_cell(self, row: int, column: str) -> str:
        item = self.table.item(row, COLUMNS.index(column))
        return "" if item is None else item.text()

    # -- selection -------------------------------------------------------------------------
    def _row_selected(self) -> None:
        view = self.view
        rows = {i.row() for i in self.table.selectedIndexes()}
        if view is None or not rows or not view.options:
            return
        row = min(rows)
        if row >= len(view.options):
            return
        self.chart.select(row)
        self.details.setHtml(self._details_html(row, view.options[row]))

    def select_option(self, index: int) -> None:
        """An option picked on the chart: select its row (the chart marks it either way)."""
        self.chart.select(index)
        if self.view is not None and index < len(self.view.options):
            self.table.selectRow(index)
            self.table.scrollToItem(self.table.item(index, 0))

    def _tier_text(self, tier: str) -> str:
        """A price tier as a user reads it; a tier this version does not know, as it is."""
        words = {"on-demand": self.tr("on demand"), "30-day": self.tr("30-day tier")}
        return words.get(tier, tier)

    def _details_html(self, row: int, o: PlanOption) -> str:
        import html

        e = html.escape
        # each reason as the planner worded it, its rule's id in the tooltip of the table
        reasons = "".join(f"<li>{e(text)}</li>" for _rule, text in _worded_reasons(o))
        where = self.tr("{shape} on {fabric}, {where}").format(
            shape=f"{o.gpus} × {e(o.gpu)} ({o.nodes} × {o.gpus_per_node})",
            fabric=e(fabric_text(o.fabric)),
            where=f"{e(o.provider)} · {e(o.region)}",
        )
        cost = self.tr("{time} for {cost} at {price} per card-hour ({tier})").format(
            time=hours_text(o.seconds),
            cost=e(format_amount(o.cost_micro, o.currency)),
            price=e(format_amount(o.price_micro, o.currency)),
            tier=e(self._tier_text(o.tier)),
        )
        option = self.tr("Option {n}").format(n=row + 1)
        return f"<p><b>{option}</b>: {where}<br>{cost}</p><ul>{reasons}</ul>" + self._spot_html(
            row, o
        )

    def _spot_html(self, row: int, o: PlanOption) -> str:
        """Issue 32: what the option costs as spot, the risk, and a link that quotes it so
        (only where its offer can be rented as spot)."""
        import html

        if o.spot_cost_micro is None or o.cost_micro <= 0:
            return ""
        percent = round(100 * (o.cost_micro - o.spot_cost_micro) / o.cost_micro)
        rate = o.spot_preemptions_per_day
        line = self.tr(
            "As spot: {cost} (−{percent}%). The provider may take it back with a short notice"
            " (about {rate} time(s) a day); each time, the work since the last copied"
            " checkpoint is done again."
        ).format(
            cost=format_amount(o.spot_cost_micro, o.currency),
            percent=percent,
            rate="?" if rate is None else f"{rate:g}",
        )
        link = self.tr("Rent option {n} as spot…").format(n=row + 1)
        return f'<p>{html.escape(line)} <a href="spot:{row + 1}">{html.escape(link)}</a></p>'

    def _details_link(self, url: QUrl) -> None:
        if url.scheme() == "spot" and url.path().isdigit():
            self.rent_spot(int(url.path()))

    # -- renting ---------------------------------------------------------------------------
    def rent(self, option: int) -> bool:
        """Quote option ``option`` (1-based) of the shown plan, then ask for approval."""
        view = self.view
        if view is None or not 1 <= option <= len(view.options):
            return False
        engine, plan_id = self.context.engine, view.plan_id
        started = self.rent_flow.start(lambda: engine.quote(plan_id, option))
        if started:
            self._say(self.tr("Quoting option {n}…").format(n=option))
        else:
            self._say(self.tr("A quote is already waiting for your answer."))
        return started

    def rent_spot(self, option: int) -> bool:
        """Quote option ``option`` (1-based) of the shown plan as spot (issue 32): the card
        says the saving and the risk, and the yes rents spot."""
        view = self.view
        if view is None or not 1 <= option <= len(view.options):
            return False
        engine, plan_id = self.context.engine, view.plan_id
        started = self.rent_flow.start(lambda: engine.quote_spot(plan_id, option))
        if started:
            self._say(self.tr("Quoting option {n} as spot…").format(n=option))
        else:
            self._say(self.tr("A quote is already waiting for your answer."))
        return started

    def _rented(self, handle: Any) -> None:
        self._say(
            self.tr("Renting: “{title}”; the operations panel shows each node's steps.").format(
                title=handle.title
            )
        )

    # -- the report ------------------------------------------------------------------------
    def default_report_path(self) -> Path:
        plan_id = self.view.plan_id if self.view is not None else 0
        return self.context.engine.paths.data_dir / "reports" / f"plan-{plan_id}.html"

    def ask_report_path(self) -> None:
        if self.view is None:
            return
        dialog = QFileDialog(
            self, self.tr("Save the selection report"), str(self.default_report_path())
        )
        i18n.word_file_dialog(dialog)
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        dialog.setNameFilter(self.tr("HTML report (*.html)"))
        dialog.setDefaultSuffix("html")
        dialog.fileSelected.connect(lambda path: self.save_report(Path(path)))
        self.save_dialog = dialog
        dialog.open()

    def save_report(self, path: Path) -> bool:
        """Write the shown plan as a selection report (the chart drawn here, written there)."""
        view = self.view
        if view is None:
            return False
        try:
            png = self.chart.png() if self.chart.count else None
        except Exception:  # a chart that cannot be drawn still leaves a report
            log.exception("drawing the plan chart for the report failed")
            png = None
        outcome = view.outcome

        def write() -> Path:
            text = selection_report(outcome, png)
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                write_private(path, text)
            except OSError as exc:
                raise XyclawError(
                    f"cannot write the report to {path}: {exc.strerror or exc}",
                    hint="choose a folder you can write to",
                ) from exc
            return path

        def saved(done: Path) -> None:
            self._say(self.tr("Saved the selection report to {path}").format(path=done))
            self.report_saved.emit(str(done))

        self.worker.submit(write, on_done=saved, on_error=self._show_error, name="save report")
        return True

    # -- messages --------------------------------------------------------------------------
    def _say(self, text: str) -> None:
        self.status.setText(text)
        self.message.emit(text)

    # -- a plan made in the chat (issue 28, item 8) -------------------------------------------
    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self.look_for_chat_plan()

    def look_for_chat_plan(self) -> None:
        """A plan the chat made since this page last looked, newer than the one it shows, is
        offered (a button); shown, its request fills the form and is planned here over the
        live offers (the chat's options with a rent button each), said as the chat's plan."""
        if self.planning:
            return
        engine = self.context.engine

        def newest() -> dict[str, Any] | None:
            rows = engine.history("plans", limit=1)
            return dict(rows[0]) if rows else None

        self.worker.submit(newest, on_done=self._chat_plan_found, name="chat plan")

    def _chat_plan_found(self, row: dict[str, Any] | None) -> None:
        """A newer plan of the chat's is offered with a button (the form the user typed is
        not replaced unasked)."""
        if row is None or row.get("conversation_id") is None or self.planning:
            return
        plan_id = int(row["id"])
        shown = self.view.plan_id if self.view is not None else 0
        if plan_id <= max(self._chat_plan_seen, shown):
            return
        self._chat_plan_seen = plan_id
        try:
            values = chat_request_values(json.loads(row["request_json"]))
        except (ValueError, TypeError, KeyError):
            return  # a request this page cannot show: the chat still has it
        self._chat_plan = (plan_id, values)
        self._word_chat_button()
        self.chat_plan_button.show()

    def _word_chat_button(self) -> None:
        if getattr(self, "_chat_plan", None) is not None:
            assert self._chat_plan is not None
            self.chat_plan_button.setText(
                self.tr("Show the chat's plan {id} here").format(id=self._chat_plan[0])
            )

    def show_chat_plan(self) -> None:
        """The chat's plan offered by the button: its request in the form, planned here."""
        if self._chat_plan is None or self.planning:
            return
        plan_id, values = self._chat_plan
        self._chat_plan = None
        self.chat_plan_button.hide()
        for key, widget in self.fields.items():  # what the chat's request left out: cleared
            if key not in values and isinstance(widget, QLineEdit):
                widget.setText("")
            elif key not in values and isinstance(widget, QComboBox) and key != "task":
                widget.setCurrentIndex(0)
        try:
            self.set_values(**values)
        except ValueError:
            return
        self._from_chat = plan_id
        self.plan()

    def _show_error(self, error: ErrorInfo) -> None:
        text = error.text(" — ")
        self.form_error.setText(text)
        self.form_error.show()
        self._say("")
        self.message.emit(text)


def create_plan_page(context: GuiContext) -> QWidget:
    return PlanPage(context)
