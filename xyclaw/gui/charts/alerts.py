"""The open alerts of a cluster, each with what to do about it as buttons.

A button never acts by itself: the panel emits ``action_requested(alert_id,
action)`` and the window owner routes it through the same approval as the
agents' actions (releasing a cluster costs the work on it; an ``exec`` runs a
command on a node). ``ALERT_ACTIONS`` says which actions fit which rule, with
the Engine effect each one has, so the approval can say what it will do.
"""

from __future__ import annotations

import html
from dataclasses import dataclass

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QEvent, Qt, Signal
from PySide6.QtWidgets import (
    QFrame,
    QLabel,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from xyclaw.engine.values import rule_title
from xyclaw.gui import history_words as words
from xyclaw.gui import i18n
from xyclaw.gui.charts.source import AlertView
from xyclaw.gui.charts.theme import SEVERITY_COLORS
from xyclaw.gui.formatting import message_language, worded
from xyclaw.gui.widgets import FlowLayout, html_text, plain_label, plain_tip, weak_slot


@dataclass(frozen=True)
class AlertAction:
    """One suggested action: ``key`` is what ``action_requested`` carries; ``effect`` is the
    Engine effect (``destroy``: releases or stops something, ``exec``: runs ``command`` on
    the alert's node, ``{gpu}`` replaced by its GPU slot)."""

    key: str
    label: str
    effect: str
    command: str | None = None
    tip: str = ""


RELEASE = AlertAction(
    "release_cluster",
    QT_TRANSLATE_NOOP("AlertsPanel", "Release cluster"),
    "destroy",
    tip=QT_TRANSLATE_NOOP(
        "AlertsPanel",
        "stop paying for the cluster; what is not in a checkpoint or downloaded is lost",
    ),
)
STOP_JOB = AlertAction(
    "stop_job",
    QT_TRANSLATE_NOOP("AlertsPanel", "Stop job"),
    "destroy",
    tip=QT_TRANSLATE_NOOP("AlertsPanel", "cancel the running job on this cluster"),
)
RESET_GPU = AlertAction(
    "reset_gpu",
    QT_TRANSLATE_NOOP("AlertsPanel", "Reset GPU"),
    "exec",
    command="nvidia-smi -r -i {gpu}",
    tip=QT_TRANSLATE_NOOP("AlertsPanel", "reset this GPU (only works once no process uses it)"),
)
RESTORE_POWER = AlertAction(
    "restore_power_limit",
    QT_TRANSLATE_NOOP("AlertsPanel", "Restore power limit"),
    "exec",
    command="nvidia-smi -i {gpu} -pl $(nvidia-smi -i {gpu} --query-gpu=power.default_limit"
    " --format=csv,noheader,nounits)",
    tip=QT_TRANSLATE_NOOP("AlertsPanel", "set the GPU's power limit back to its default"),
)
CLOCKS = AlertAction(
    "query_clocks",
    QT_TRANSLATE_NOOP("AlertsPanel", "Query clocks"),
    "exec",
    command="nvidia-smi -q -d PERFORMANCE,CLOCK,TEMPERATURE -i {gpu}",
    tip=QT_TRANSLATE_NOOP("AlertsPanel", "read the GPU's clocks, throttle reasons and temperature"),
)
IBSTAT = AlertAction(
    "check_ports",
    QT_TRANSLATE_NOOP("AlertsPanel", "Check IB ports"),
    "exec",
    command="ibstat",
    tip=QT_TRANSLATE_NOOP("AlertsPanel", "show the node's port states"),
)
TUNE = AlertAction(
    "tune",
    QT_TRANSLATE_NOOP("AlertsPanel", "Re-run network check"),
    "exec",
    tip=QT_TRANSLATE_NOOP("AlertsPanel", "probe the fabric and run nccl-tests again"),
)

ALERT_ACTIONS: dict[str, tuple[AlertAction, ...]] = {
    "node.unreachable": (RELEASE,),
    "gpu.missing": (STOP_JOB, RELEASE),
    "gpu.xid": (RESET_GPU, STOP_JOB),
    "gpu.ecc_uncorrectable": (RESET_GPU, STOP_JOB),
    "gpu.thermal_throttle": (CLOCKS,),
    "gpu.power_throttle": (RESTORE_POWER,),
    "gpu.memory_full": (),
    "gpu.idle_during_job": (STOP_JOB, RELEASE),
    "gpu.straggler": (CLOCKS,),
    "node.straggler": (),
    "net.traffic_collapse": (IBSTAT, TUNE, STOP_JOB),
    "job.nccl_timeout": (STOP_JOB,),
}


def actions_for(alert: AlertView) -> tuple[AlertAction, ...]:
    """The buttons of an alert; GPU actions only where the alert names a GPU."""
    actions = ALERT_ACTIONS.get(alert.rule, ())
    return tuple(a for a in actions if "{gpu}" not in (a.command or "") or alert.gpu is not None)


def _t(text: str) -> str:
    return QCoreApplication.translate("AlertsPanel", text)


class AlertCard(QFrame):
    """One alert: severity, where, message, advice, and the action buttons."""

    def __init__(self, alert: AlertView, panel: AlertsPanel) -> None:
        super().__init__()
        self.alert = alert
        self.setObjectName("alertCard")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        color = SEVERITY_COLORS.get(alert.severity, "#6b7280")
        self.setStyleSheet(
            f"QFrame#alertCard {{ border: 1px solid {color}; border-left: 4px solid {color};"
            " border-radius: 4px; }"
        )
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 6, 8, 6)
        layout.setSpacing(3)
        title = rule_title(alert.rule, message_language())
        head = QLabel(
            f"<b style='color:{color}'>{words.word(words.SEVERITIES, alert.severity).upper()}</b>"
            f" \u00a0<span>{html_text(_where(alert))}</span>"
            f" \u00a0<span style='color:#6b7280'>{html.escape(title)}</span>"
        )
        head.setTextFormat(Qt.TextFormat.RichText)
        head.setToolTip(plain_tip(alert.rule))
        head.setWordWrap(True)
        layout.addWidget(head)
        # Worded in the window's language; an alert stored before alerts were worded has
        # only its English text, shown as it was stored (data).
        message = plain_label(worded(alert.said or alert.message), multiline=True)
        message.setObjectName("alertMessage")
        if alert.said is None:
            message.setProperty("data", True)
        message.setWordWrap(True)
        layout.addWidget(message)
        advice = plain_label(worded(alert.action_said or alert.action), multiline=True)
        advice.setObjectName("alertAdvice")
        if alert.action_said is None:
            advice.setProperty("data", True)
        advice.setWordWrap(True)
        advice.setProperty("role", "hint")
        advice.setStyleSheet("color: #6b7280; font-size: 12px;")
        layout.addWidget(advice)
        # The buttons wrap to a second line where the panel is narrow (English labels are
        # wider than Chinese ones); the list never scrolls sideways.
        buttons = QWidget()
        row = FlowLayout(buttons, spacing=6)
        self.buttons: dict[str, QPushButton] = {}
        if alert.node_id is not None:
            show = QPushButton(_t(QT_TRANSLATE_NOOP("AlertsPanel", "Show")))
            show.setToolTip(
                plain_tip(
                    QCoreApplication.translate("AlertsPanel", "chart this node's GPUs")
                    if alert.gpu is None
                    else QCoreApplication.translate("AlertsPanel", "chart this GPU")
                )
            )
            # weak: a card is deleted on its own, and must not hold the panel
            show.clicked.connect(weak_slot(panel.show_alert, alert))
            row.addWidget(show)
            self.buttons["show"] = show
        for action in actions_for(alert):
            button = QPushButton(_t(action.label))
            tip = _t(action.tip) if action.tip else ""
            if action.command:
                tip += "\n" + QCoreApplication.translate("AlertsPanel", "runs: {command}").format(
                    command=action.command.format(gpu=alert.gpu)
                )
            button.setToolTip(
                plain_tip(
                    tip
                    + "\n"
                    + QCoreApplication.translate("AlertsPanel", "(asks for your approval first)")
                )
            )
            button.setEnabled(alert.id is not None)
            button.clicked.connect(weak_slot(panel.emit_action, alert, action.key))
            row.addWidget(button)
            self.buttons[action.key] = button
        layout.addWidget(buttons)


def _shape(alert: AlertView) -> tuple[object, ...]:
    """What a card shows: a new card when any of it changes."""
    return (alert.id, alert.rule, alert.severity, alert.message, alert.node_id, alert.gpu)


def _where(alert: AlertView) -> str:
    if alert.node and alert.gpu is not None:
        return f"{alert.node} GPU {alert.gpu}"
    return alert.node or QCoreApplication.translate("AlertsPanel", "cluster")


class AlertsPanel(QWidget):
    """The open alerts, rebuilt only when they change (not on every frame)."""

    action_requested = Signal(int, str)
    show_requested = Signal(object)  # AlertView

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._shown: tuple[tuple[object, ...], ...] | None = None
        self.cards: list[AlertCard] = []
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        self.alerts: list[AlertView] = []
        self.title = plain_label()
        self.title.setStyleSheet("font-weight: 600;")
        outer.addWidget(self.title)
        self.scroll_area = QScrollArea()
        self.scroll_area.setWidgetResizable(True)
        self.scroll_area.setFrameShape(QFrame.Shape.NoFrame)
        self.scroll_area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.body = QWidget()
        self.list = QVBoxLayout(self.body)
        self.list.setContentsMargins(0, 0, 4, 0)
        self.list.setSpacing(6)
        self.empty = plain_label()
        self.empty.setStyleSheet("color: #6b7280;")
        self.list.addWidget(self.empty)
        self.list.addStretch(1)
        self.scroll_area.setWidget(self.body)
        self.scroll_area.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Expanding)
        outer.addWidget(self.scroll_area, 1)
        self.retranslate()

    def retranslate(self) -> None:
        self.empty.setText(self.tr("No open alerts."))
        self._title()
        if self.cards:  # cards are worded when made: make them again
            for card in self.cards:
                self.list.removeWidget(card)
                card.hide()
                card.deleteLater()
            self.cards = []
            self._shown = None
            self.set_alerts(self.alerts)

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange and i18n.alive(self.title, self.empty):
            self.retranslate()

    def _title(self) -> None:
        count = len(self.alerts)
        self.title.setText(self.tr("Alerts ({n})").format(n=count) if count else self.tr("Alerts"))

    def set_alerts(self, alerts: list[AlertView]) -> None:
        """Show these alerts in this order. A card whose alert did not change is kept as it
        is (its buttons do not move or vanish under the pointer); only new or changed
        alerts get a new card."""
        self.alerts = list(alerts)
        shape = tuple(_shape(a) for a in alerts)
        if shape == self._shown:
            return
        self._shown = shape
        old = {_shape(c.alert): c for c in self.cards}
        cards: list[AlertCard] = []
        for alert in alerts:
            card = old.pop(_shape(alert), None)
            cards.append(card if card is not None else AlertCard(alert, self))
        for card in old.values():
            self.list.removeWidget(card)
            card.hide()
            card.deleteLater()
        for i, card in enumerate(cards):
            self.list.insertWidget(i, card)  # moves a kept card to its place
            card.show()
        self.cards = cards
        self.empty.setVisible(not alerts)
        self._title()

    def show_alert(self, alert: AlertView) -> None:
        self.show_requested.emit(alert)

    def emit_action(self, alert: AlertView, key: str) -> None:
        if alert.id is not None:
            self.action_requested.emit(alert.id, key)
