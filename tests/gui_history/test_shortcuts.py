"""The window's keyboard: Ctrl+F searches on the page shown, Ctrl+N opens a new chat from
any page, and Ctrl+Enter / Ctrl+Backspace answer the approval card that has the focus."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QWidget
from pytestqt.qtbot import QtBot

from xyclaw.agent.types import ApprovalRequest, Effect
from xyclaw.config import load_config
from xyclaw.engine import Engine
from xyclaw.engine.compose import build_engine
from xyclaw.gui.chat.approval import ApprovalCard
from xyclaw.gui.main_window import MainWindowController
from xyclaw.paths import AppPaths
from xyclaw.providers import ProviderRegistry

pytestmark = pytest.mark.gui


@pytest.fixture
def window(xyclaw_home: Path, qtbot: QtBot) -> Iterator[MainWindowController]:
    paths = AppPaths.from_environment()
    engine: Engine = build_engine(
        paths, load_config(paths.config_file), providers=ProviderRegistry()
    )
    ctl = MainWindowController(
        engine, None, tray_available=False, on_quit=lambda: None, status_refresh_ms=3_600_000
    )
    ctl.window.resize(1280, 820)
    ctl.window.show()
    ctl.window.activateWindow()
    qtbot.waitUntil(ctl.window.isActiveWindow, timeout=3000)
    yield ctl
    ctl.quit_now()
    qtbot.wait(20)
    engine.close()


def _request(effect: Effect = Effect.SPEND) -> ApprovalRequest:
    return ApprovalRequest(
        approval_id="a-1",
        conversation_id=1,
        agent="planner",
        tool="up",
        effect=effect,
        args={"gpu": "A800", "gpus": 16},
        title="Rent 16 x A800",
        details={},
        flagged_after_remote_output=False,
        created_at=time.time(),
    )


def test_ctrl_f_focuses_the_search_of_the_page_shown(
    window: MainWindowController, qtbot: QtBot
) -> None:
    window.show_page("history")
    window.navigation.setFocus()
    qtbot.keyClick(window.navigation, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    page = window.page_widgets["history"]
    qtbot.waitUntil(page.search.hasFocus, timeout=2000)
    window.show_page("settings")  # no search there: nothing happens, nothing breaks
    qtbot.keyClick(window.navigation, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)


def test_ctrl_n_from_another_page_opens_the_chat(
    window: MainWindowController, qtbot: QtBot
) -> None:
    window.show_page("history")
    qtbot.keyClick(window.navigation, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)
    assert window.pages.currentWidget() is window.page_widgets["chat"]
    assert not window.shortcuts.new_chat.isEnabled()  # the Chat page's own Ctrl+N now


@pytest.mark.parametrize(("key", "decision"), [(Qt.Key.Key_Return, "approve"),
                                               (Qt.Key.Key_Backspace, "reject")])  # fmt: skip
def test_ctrl_enter_and_ctrl_backspace_answer_the_focused_approval_card(
    window: MainWindowController, qtbot: QtBot, key: Qt.Key, decision: str
) -> None:
    host = QWidget(window.window)
    card = ApprovalCard(_request(), host)
    host.resize(600, 400)
    host.show()
    answers: list[str] = []
    card.decided.connect(lambda kind, _args, _remember: answers.append(kind))
    card.reject_button.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is card.reject_button, timeout=2000)
    qtbot.keyClick(card.reject_button, key, Qt.KeyboardModifier.ControlModifier)
    assert answers == [decision]
    # answered: the keys do nothing more
    qtbot.keyClick(card.reject_button, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    assert answers == [decision]
