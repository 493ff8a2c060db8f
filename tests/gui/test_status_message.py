"""A long notification on the status bar (an approval waiting, in Chinese it is long) is
elided to the room the bar's permanent parts leave, with the whole of it in the bar's
tooltip, not cut mid-word (issue 28, seen in the zh screenshots)."""

from __future__ import annotations

import pytest

pytest.importorskip("PySide6")

from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from tests.gui.conftest import MakeWindow
from xyclaw.engine import Engine


def test_a_long_status_message_is_elided_with_a_tooltip(
    qtbot: QtBot, make_window: MakeWindow, local_engine: Engine
) -> None:
    ctl = make_window(local_engine)  # the default size
    bar = ctl.window.statusBar()
    qtbot.wait(100)
    text = (
        "等待审批: 租用 8 张 A100-40G（单机），每小时 23.20 CNY，预计共 31.84 CNY；"
        "在对话中批准或拒绝，或在终端里回答这张卡片 " * 2
    )
    ctl.say_in_status_bar(text, 15000)
    shown = bar.currentMessage()
    permanent = sum(
        w.width() for w in bar.findChildren(QWidget) if w.parentWidget() is bar and w.isVisible()
    )
    assert shown.endswith("…") and shown[:-1] in text
    assert bar.fontMetrics().horizontalAdvance(shown) <= bar.width() - permanent
    assert bar.toolTip() == text
    bar.clearMessage()
    assert bar.toolTip() == ""
    ctl.say_in_status_bar("Data: /tmp/x", 1000)  # a short one is shown whole, no tooltip
    assert bar.currentMessage() == "Data: /tmp/x" and bar.toolTip() == ""
