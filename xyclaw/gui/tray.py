"""The tray icon: the spend rate at a glance, and notifications for what needs the user.

Alerts, budget warnings, approvals waiting, and jobs that finished or failed
are announced here (as a desktop notification where the system has a tray,
and always in the tray menu's "Recent" list and the window's status bar).
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

from PySide6.QtCore import QCoreApplication, QObject, Signal, Slot
from PySide6.QtGui import QAction, QIcon
from PySide6.QtWidgets import QMenu, QSystemTrayIcon

from xyclaw.gui import history_words as words
from xyclaw.gui.bridge import EngineBridge
from xyclaw.gui.formatting import money, worded
from xyclaw.gui.widgets import plain_tip
from xyclaw.wording import display

RECENT = 10
translate = QCoreApplication.translate  # lupdate reads translate("Context", "text") calls
_JOB_ENDS = {"succeeded": "finished", "completed": "finished", "failed": "failed"}


@dataclass(frozen=True)
class Notification:
    title: str
    message: str
    severity: str = "info"  # info, warning, error, critical
    ts: float = field(default_factory=time.time)


class TrayController(QObject):
    """Owns the tray icon and its menu; ``notified`` carries every Notification."""

    notified = Signal(object)
    show_requested = Signal()
    quit_requested = Signal()

    def __init__(
        self,
        icon: QIcon,
        bridge: EngineBridge,
        *,
        available: bool | None = None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.available = QSystemTrayIcon.isSystemTrayAvailable() if available is None else available
        self.icon = QSystemTrayIcon(icon, self)
        self.icon.setToolTip("XyClaw")
        self.recent: deque[Notification] = deque(maxlen=RECENT)
        self.menu = QMenu()
        self.menu.setObjectName("trayMenu")
        self._show = QAction(translate("Tray", "Show XyClaw"), self.menu)
        self._show.triggered.connect(self.show_requested.emit)
        self.menu.addAction(self._show)
        self.recent_menu = self.menu.addMenu(translate("Tray", "Recent notifications"))
        self.recent_menu.setEnabled(False)
        self.menu.addSeparator()
        self._quit = QAction(translate("Tray", "Quit XyClaw…"), self.menu)
        self._quit.triggered.connect(self.quit_requested.emit)
        self.menu.addAction(self._quit)
        self.icon.setContextMenu(self.menu)
        self.icon.activated.connect(self._activated)
        if self.available:
            self.icon.show()
        bridge.alert_raised.connect(self._alert)
        bridge.budget_warning.connect(self._budget)
        bridge.job_changed.connect(self._job)
        self.window_active: Callable[[], bool] = lambda: False

    def retranslate(self) -> None:
        """The menu's words in the GUI's language (the window calls it on a change)."""
        self._show.setText(translate("Tray", "Show XyClaw"))
        self.recent_menu.setTitle(translate("Tray", "Recent notifications"))
        self._quit.setText(translate("Tray", "Quit XyClaw…"))

    # -- what the tray says --------------------------------------------------------------------
    def set_spend_rate(self, text: str) -> None:
        self.icon.setToolTip(plain_tip(f"XyClaw — {text}"))

    @property
    def tooltip(self) -> str:
        return self.icon.toolTip()

    def notify(self, title: str, message: str, severity: str = "info") -> Notification:
        # names and a machine's words inside: no control, bidi or invisible character
        title, message = display.line(title), display.line(message)
        note = Notification(title, message, severity)
        self.recent.appendleft(note)
        self._rebuild_recent()
        if self.available and self.icon.supportsMessages():
            kind = {
                "warning": QSystemTrayIcon.MessageIcon.Warning,
                "error": QSystemTrayIcon.MessageIcon.Critical,
                "critical": QSystemTrayIcon.MessageIcon.Critical,
            }.get(severity, QSystemTrayIcon.MessageIcon.Information)
            self.icon.showMessage(title, message, kind, 8000)
        self.notified.emit(note)
        return note

    def approval_waiting(self, title: str, conversation: str) -> None:
        """An agent waits for a decision; said only when the user is not looking at it."""
        if not self.window_active():
            self.notify(
                translate("Tray", "Approval waiting"),
                translate("Tray", "{title} (in “{conversation}”)").format(
                    title=title, conversation=conversation
                ),
                "warning",
            )

    # -- engine events -------------------------------------------------------------------------
    @Slot(object)
    def _alert(self, event: object) -> None:
        severity = str(getattr(event, "severity", "warning"))
        where = getattr(event, "node", None)
        message = worded(getattr(event, "said", None) or str(getattr(event, "message", "")))
        action = worded(getattr(event, "action_said", None) or getattr(event, "action", ""))
        if where and message.startswith(f"{where}"):
            where = None  # the rule's message names its node already
        text = (f"{where}: " if where else "") + message + (f" — {action}" if action else "")
        self.notify(
            translate("Tray", "Alert ({severity})").format(
                severity=words.word(words.SEVERITIES, severity)
            ),
            text,
            severity,
        )

    @Slot(object)
    def _budget(self, event: object) -> None:
        name = getattr(event, "name", "a cluster")
        spent = money(getattr(event, "spent_micros", 0), getattr(event, "currency", "CNY"))
        budget = money(getattr(event, "budget_micros", 0), getattr(event, "currency", "CNY"))
        if getattr(event, "released", False):
            self.notify(
                translate("Tray", "Budget reached"),
                translate("Tray", "{name} spent {spent} of {budget}; released").format(
                    name=name, spent=spent, budget=budget
                ),
                "error",
            )
        else:
            self.notify(
                translate("Tray", "Budget warning"),
                translate("Tray", "{name} has spent {spent} of {budget}").format(
                    name=name, spent=spent, budget=budget
                ),
                "warning",
            )

    @Slot(object)
    def _job(self, event: object) -> None:
        state = str(getattr(event, "state", ""))
        end = _JOB_ENDS.get(state)
        if end is None:
            return
        name = getattr(event, "name", "a job")
        severity = "error" if end == "failed" else "info"
        if end == "failed":
            title = translate("Tray", "Job failed")
            text = translate("Tray", "{name} failed").format(name=name)
        else:
            title = translate("Tray", "Job finished")
            text = translate("Tray", "{name} finished").format(name=name)
        self.notify(title, text, severity)

    # -- menu ----------------------------------------------------------------------------------
    def _rebuild_recent(self) -> None:
        self.recent_menu.clear()
        for note in self.recent:
            stamp = time.strftime("%H:%M", time.localtime(note.ts))
            action = self.recent_menu.addAction(f"{stamp}  {note.title}: {note.message}")
            action.triggered.connect(self.show_requested.emit)
        self.recent_menu.setEnabled(bool(self.recent))

    @Slot(QSystemTrayIcon.ActivationReason)
    def _activated(self, reason: QSystemTrayIcon.ActivationReason) -> None:
        if reason in (
            QSystemTrayIcon.ActivationReason.Trigger,
            QSystemTrayIcon.ActivationReason.DoubleClick,
        ):
            self.show_requested.emit()

    def close(self) -> None:
        self.icon.hide()
        self.menu.deleteLater()
