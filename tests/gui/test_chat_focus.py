"""The chat's focus and scrolling (issue 28, item 6): the input has the focus on first start
and again after a card is answered (what is typed next is not lost), and an approval card
asked for from higher up in the transcript is scrolled into view."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

pytest.importorskip("PySide6")

from PySide6.QtCore import QPoint, Qt
from pytestqt.qtbot import QtBot

from tests.gui.conftest import MakeWindow
from tests.gui.test_zh_chat_cards import ask, card_waiting, shown
from xyclaw.agent.runtime import AgentRuntime
from xyclaw.engine import Engine
from xyclaw.gui.app import build_runtime
from xyclaw.gui.chat.approval import ApprovalCard
from xyclaw.gui.chat.blocks import PlanCard
from xyclaw.store import Store

pytestmark = pytest.mark.slow


@pytest.fixture
def runtime(sim_engine: Engine, history_store: Store) -> Iterator[AgentRuntime]:
    rt = build_runtime(sim_engine, history_store)
    yield rt
    rt.close()


def test_the_input_has_the_focus_on_start_and_after_a_card_is_answered(
    qtbot: QtBot, make_window: MakeWindow, sim_engine: Engine, runtime: AgentRuntime
) -> None:
    ctl = make_window(sim_engine, runtime)
    chat = ctl.chat
    qtbot.waitUntil(lambda: chat.runtime is not None and chat.composer.isEnabled(), timeout=30000)
    qtbot.waitUntil(chat.composer.hasFocus, timeout=3000)

    ask(qtbot, chat, "launch skypilot-ddp")
    card = card_waiting(qtbot, chat, "spend")
    qtbot.mouseClick(card.reject_button, Qt.MouseButton.LeftButton)
    assert chat.composer.hasFocus()
    qtbot.keyClicks(chat.composer, "next")
    assert chat.composer.toPlainText() == "next"


def test_a_card_asked_from_higher_up_is_scrolled_into_view(
    qtbot: QtBot, make_window: MakeWindow, sim_engine: Engine, runtime: AgentRuntime
) -> None:
    ctl = make_window(sim_engine, runtime)
    chat = ctl.chat
    qtbot.waitUntil(lambda: chat.runtime is not None and chat.composer.isEnabled(), timeout=30000)
    ask(qtbot, chat, "LoRA fine-tune a 13B model on 8 GPUs, budget 500")
    qtbot.waitUntil(lambda: bool(shown(chat, PlanCard)), timeout=30000)
    for _ in range(3):
        ask(qtbot, chat, "help")
    [plan] = shown(chat, PlanCard)
    qtbot.wait(100)
    chat.scroll.ensureWidgetVisible(plan.rent_buttons[0])
    bar = chat.scroll.verticalScrollBar()
    assert bar.value() < bar.maximum() - 200, "the transcript is long enough to scroll"

    qtbot.mouseClick(plan.rent_buttons[0], Qt.MouseButton.LeftButton)
    card = card_waiting(qtbot, chat, "spend")
    qtbot.waitUntil(lambda: not chat.busy, timeout=60000)
    qtbot.wait(100)
    viewport = chat.scroll.viewport()
    top = card.approve_button.mapTo(viewport, QPoint(0, 0))
    assert viewport.rect().contains(top), (top, viewport.rect())
    assert isinstance(card, ApprovalCard)


@pytest.mark.parametrize(
    ("language", "request_text", "said"),
    [
        ("en", "launch skypilot-ddp", "you said no to launching the job"),
        ("zh_CN", "启动 skypilot-ddp", "你拒绝了启动作业"),
    ],
)
def test_a_no_is_said_in_words_not_by_the_tool_name(
    qtbot: QtBot,
    make_window: MakeWindow,
    sim_engine: Engine,
    runtime: AgentRuntime,
    language: str,
    request_text: str,
    said: str,
) -> None:
    from xyclaw.gui import i18n
    from xyclaw.gui.chat.blocks import MessageBlock

    i18n.install(language)
    try:
        ctl = make_window(sim_engine, runtime)
        chat = ctl.chat
        qtbot.waitUntil(lambda: chat.composer.isEnabled(), timeout=30000)
        ask(qtbot, chat, request_text)
        card = card_waiting(qtbot, chat, "spend")
        qtbot.mouseClick(card.reject_button, Qt.MouseButton.LeftButton)

        def replies() -> str:
            return "\n".join(b.body.toPlainText() for b in shown(chat, MessageBlock))

        qtbot.waitUntil(lambda: said in replies(), timeout=60000)
        assert "launch_job" not in replies()
    finally:
        i18n.install("en")
