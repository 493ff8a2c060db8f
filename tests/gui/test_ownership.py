"""Widgets whose children are deleted on their own (a row's Cancel button, an alert's card)
must not be kept alive by those children's slots.

A lambda over the panel connected to such a child held the panel's last reference once
nothing else did (a panel without a Qt parent, as in a test): Qt's deferred deletion of the
child then destroyed the panel from inside the child's destructor, and the panel deleted
that child a second time. The heap corruption aborted the GUI test process about one run
in four ("malloc_consolidate(): unaligned fastbin chunk detected")."""

from __future__ import annotations

import gc
import weakref

import pytest

pytest.importorskip("PySide6")

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QPushButton
from pytestqt.qtbot import QtBot

from xyclaw.events import OperationProgress
from xyclaw.gui.charts.alerts import AlertsPanel
from xyclaw.gui.charts.source import AlertView
from xyclaw.gui.operations_panel import OperationsPanel


class _Handle:
    def __init__(self, operation_id: int) -> None:
        self.id = operation_id
        self.cancelled = 0

    def cancel(self) -> None:
        self.cancelled += 1


def _progress(operation_id: int, state: str = "running") -> OperationProgress:
    return OperationProgress(
        operation_id=operation_id, title="rent 2 x A10", state=state, message="", fraction=0.5
    )


def test_a_row_cancel_button_works_and_does_not_keep_the_panel_alive(qtbot: QtBot) -> None:
    panel = OperationsPanel()
    handle = _Handle(7)
    panel.on_progress(_progress(7))
    panel.track(handle)
    button = panel.cancel_button(7)
    assert button is not None and button.isEnabled()
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    assert handle.cancelled == 1
    assert panel.views[7].state == "cancelling"

    panel.on_progress(_progress(8))  # a second row, its button still shown
    gone = weakref.ref(panel)
    del panel, button
    gc.collect()
    assert gone() is None, "a row's Cancel button keeps the operations panel alive"
    qtbot.wait(20)  # the removed button's deferred deletion runs with nothing left to free


def test_alert_cards_buttons_work_and_do_not_keep_the_panel_alive(qtbot: QtBot) -> None:
    panel = AlertsPanel()
    shown: list[AlertView] = []
    actions: list[tuple[int, str]] = []
    panel.show_requested.connect(shown.append)
    panel.action_requested.connect(lambda alert_id, key: actions.append((alert_id, key)))
    alert = AlertView(
        id=41,
        rule="gpu.xid",
        severity="critical",
        message="GPU 3 reported XID 79",
        action="reset the GPU",
        cluster_id=1,
        node="demo-node1",
        node_id=5,
        gpu=3,
    )
    panel.set_alerts([alert])
    (card,) = panel.cards
    qtbot.mouseClick(card.buttons["show"], Qt.MouseButton.LeftButton)
    assert shown == [alert]
    key, button = next((k, b) for k, b in card.buttons.items() if k != "show")
    assert isinstance(button, QPushButton)
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    assert actions == [(41, key)]

    gone = weakref.ref(panel)
    del panel, card, button
    gc.collect()
    assert gone() is None, "an alert card's buttons keep the alerts panel alive"
