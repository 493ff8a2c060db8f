"""Every long operation (renting with its per-node steps, tuning, launching, releasing),
its progress, and a Cancel button.

The panel is fed by the bridge's coalesced ``operation_progress`` signal; it
never asks the engine anything on the main thread. Cancel asks the operation
to stop at its next check (the work cleans up what it started).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Qt, QTimer, Signal, Slot
from PySide6.QtWidgets import (
    QHeaderView,
    QLabel,
    QProgressBar,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from xyclaw.engine.operations import step_said
from xyclaw.events import OperationProgress
from xyclaw.gui.bridge import FINAL_STATES
from xyclaw.gui.formatting import duration, worded
from xyclaw.gui.forms import child, load_ui
from xyclaw.gui.widgets import DATA_ROLE, plain_tip, weak_slot
from xyclaw.wording import Said, display

CancelLookup = Callable[[int], Callable[[], Any] | None]

_STATE_TEXT = {
    "running": QT_TRANSLATE_NOOP("OperationsPanel", "running"),
    "succeeded": QT_TRANSLATE_NOOP("OperationsPanel", "done"),
    "failed": QT_TRANSLATE_NOOP("OperationsPanel", "failed"),
    "cancelled": QT_TRANSLATE_NOOP("OperationsPanel", "cancelled"),
    "cancelling": QT_TRANSLATE_NOOP("OperationsPanel", "cancelling…"),
}
translate = QCoreApplication.translate  # lupdate reads translate("Context", "text") calls


def _state_text(state: str) -> str:
    source = _STATE_TEXT.get(state)
    return translate("OperationsPanel", source) if source else state


@dataclass
class OperationView:
    """What the panel knows about one operation, from its progress events."""

    id: int
    title: str
    state: str = "running"
    fraction: float | None = None
    message: str = ""
    started_at: float = field(default_factory=time.monotonic)
    finished_at: float | None = None
    # subject -> (step, message): the message as the core said it (a Said, or older text)
    steps: dict[str, tuple[str, Said | str]] = field(default_factory=dict)
    title_said: Said | None = None
    said: Said | None = None  # the message's key and figures

    @property
    def finished(self) -> bool:
        return self.state in FINAL_STATES

    @property
    def shown_title(self) -> str:
        """The title in the GUI's language."""
        return worded(self.title_said or self.title)

    @property
    def shown_message(self) -> str:
        return worded(self.said or self.message)


class OperationsPanel(QWidget):
    """The operations list; ``running_changed(count)`` drives the status bar's button."""

    running_changed = Signal(int)
    operation_finished = Signal(object)  # OperationView

    def __init__(
        self, cancel_lookup: CancelLookup | None = None, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setObjectName("operationsPanel")
        form = load_ui("operations_panel.ui", self)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(form)
        self.tree = child(form, QTreeWidget, "operations")
        self.summary = child(form, QLabel, "operationsSummary")
        self.clear_button = child(form, QPushButton, "clearFinished")
        self.clear_button.clicked.connect(self.clear_finished)
        header = self.tree.header()
        header.setStretchLastSection(False)
        self.tree.setColumnWidth(0, 300)
        self.tree.setColumnWidth(1, 180)
        self.tree.setColumnWidth(3, 90)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        self._cancel_lookup = cancel_lookup
        self._handles: dict[int, Any] = {}
        self.views: dict[int, OperationView] = {}
        self._items: dict[int, QTreeWidgetItem] = {}
        self._bars: dict[int, QProgressBar] = {}
        self._buttons: dict[int, QPushButton] = {}
        self._step_items: dict[tuple[int, str], QTreeWidgetItem] = {}

    # -- feeding --------------------------------------------------------------------------------
    def track(self, handle: Any) -> None:
        """Remember an operation's handle so its Cancel button works."""
        self._handles[int(handle.id)] = handle
        button = self._buttons.get(int(handle.id))
        if button is not None:
            button.setEnabled(not self.views[int(handle.id)].finished)

    @Slot(object)
    def on_progress(self, event: OperationProgress) -> None:
        view = self.views.get(event.operation_id)
        if view is None:
            view = OperationView(event.operation_id, event.title, title_said=event.title_said)
            self.views[event.operation_id] = view
            self._add_row(view)
        if event.subject:
            view.steps[event.subject] = (event.step or "", event.said or event.message)
            self._show_step(view, event.subject)
        elif not view.finished:
            view.message, view.said = event.message, event.said
            if event.fraction is not None:
                view.fraction = event.fraction
        if event.state in FINAL_STATES and not view.finished:
            view.state = event.state
            view.message, view.said = event.message, event.said
            view.finished_at = time.monotonic()
            if event.state == "succeeded":
                view.fraction = 1.0
            self._refresh_row(view)
            self._handles.pop(view.id, None)
            self.operation_finished.emit(view)
            self._update_summary()
        else:
            self._refresh_row(view)

    # -- actions --------------------------------------------------------------------------------
    def cancel(self, operation_id: int) -> bool:
        """Ask the operation to stop; False when nothing here can reach it."""
        view = self.views.get(operation_id)
        if view is None or view.finished:
            return False
        handle = self._handles.get(operation_id)
        cancel = handle.cancel if handle is not None else None
        if cancel is None and self._cancel_lookup is not None:
            cancel = self._cancel_lookup(operation_id)
        if cancel is None:
            return False
        cancel()
        view.state = "cancelling"
        self._refresh_row(view)
        return True

    @Slot()
    def clear_finished(self) -> None:
        for op_id in [v.id for v in self.views.values() if v.finished]:
            item = self._items.pop(op_id)
            self.tree.takeTopLevelItem(self.tree.indexOfTopLevelItem(item))
            del self.views[op_id]
            self._bars.pop(op_id, None)
            self._buttons.pop(op_id, None)
            for key in [k for k in self._step_items if k[0] == op_id]:
                del self._step_items[key]
        self._update_summary()

    def cancel_button(self, operation_id: int) -> QPushButton | None:
        """The Cancel button of a running operation (None once it has ended)."""
        return self._buttons.get(operation_id)

    @property
    def running(self) -> list[OperationView]:
        return [v for v in self.views.values() if not v.finished]

    def retranslate(self) -> None:
        """The panel's own words in the GUI's language (the window calls it on a change; no
        changeEvent override: PySide would call it while the panel is being destroyed)."""
        for button in self._buttons.values():
            button.setText(translate("OperationsPanel", "Cancel"))
        for view in self.views.values():
            if view.id in self._items:
                self._items[view.id].setText(0, view.shown_title)
                self._refresh_row(view)
                for subject in view.steps:
                    self._show_step(view, subject)
        self._update_summary()
        # again once the form has worded itself (it puts back its "No operations yet.")
        QTimer.singleShot(0, self, self._summary_if_alive)

    def _summary_if_alive(self) -> None:
        import shiboken6

        if shiboken6.isValid(self.summary):
            self._update_summary()

    # -- drawing --------------------------------------------------------------------------------
    def _add_row(self, view: OperationView) -> None:
        item = QTreeWidgetItem(
            [display.line(view.shown_title), "", display.line(view.shown_message), ""]
        )
        item.setData(0, Qt.ItemDataRole.UserRole, view.id)
        self.tree.insertTopLevelItem(0, item)
        bar = QProgressBar()
        bar.setRange(0, 1000)
        bar.setTextVisible(True)
        bar.setMaximumHeight(18)
        self.tree.setItemWidget(item, 1, bar)
        button = QPushButton(translate("OperationsPanel", "Cancel"))
        button.setObjectName(f"cancel_{view.id}")
        button.setProperty("role", "danger-small")
        # not a lambda over self: the button is deleted on its own (the row ends, Clear)
        button.clicked.connect(weak_slot(self.cancel, view.id))
        button.setEnabled(view.id in self._handles or self._cancel_lookup is not None)
        self.tree.setItemWidget(item, 3, button)
        self._items[view.id] = item
        self._bars[view.id] = bar
        self._buttons[view.id] = button
        self._update_summary()

    def _refresh_row(self, view: OperationView) -> None:
        item = self._items[view.id]
        bar = self._bars[view.id]
        state = _state_text(view.state)
        elapsed = (view.finished_at or time.monotonic()) - view.started_at
        message = display.line(view.shown_message)  # may quote a node or a provider
        if view.finished:
            plain = view.message in ("", "done", view.state) or message in ("", state)
            said = (
                "" if plain else translate("OperationsPanel", ": {message}").format(message=message)
            )
            item.setText(2, f"{state}{said} ({duration(elapsed)})")
        else:
            item.setText(2, message or state)
        item.setToolTip(2, plain_tip(item.text(2)))
        if view.fraction is None and not view.finished:
            bar.setRange(0, 0)  # busy: the work does not say how far it is
        else:
            bar.setRange(0, 1000)
            bar.setValue(int(1000 * (view.fraction or 0.0)))
            bar.setFormat(f"{int(100 * (view.fraction or 0.0))}%  {state}")
        bar.setProperty("state", view.state)
        bar.style().unpolish(bar)
        bar.style().polish(bar)
        button = self._buttons.get(view.id)
        if button is not None and view.finished:
            self.tree.removeItemWidget(item, 3)  # nothing left to cancel
            del self._buttons[view.id]
        elif button is not None and view.state == "cancelling":
            button.setEnabled(False)

    def _show_step(self, view: OperationView, subject: str) -> None:
        key = (view.id, subject)
        step, said = view.steps[subject]
        step = worded(step_said(step)) if step else ""
        message = display.line(worded(said))
        item = self._step_items.get(key)
        if item is None:
            item = QTreeWidgetItem([display.line(subject), step, message, ""])
            item.setData(0, DATA_ROLE, True)  # a node's name
            self._items[view.id].addChild(item)
            self._items[view.id].setExpanded(True)
            self._step_items[key] = item
        else:
            item.setText(1, step)
            item.setText(2, message)
        item.setToolTip(2, plain_tip(message))

    def _update_summary(self) -> None:
        running = len(self.running)
        finished = len(self.views) - running
        if not self.views:
            self.summary.setText(translate("OperationsPanel", "No operations yet."))
        else:
            self.summary.setText(
                translate("OperationsPanel", "{running} running, {finished} finished").format(
                    running=running, finished=finished
                )
            )
        self.clear_button.setEnabled(finished > 0)
        self.running_changed.emit(running)
