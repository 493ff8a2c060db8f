"""Text the rules brain does not understand ("asdf qwer") is answered in the window's
language (issue 28, item 6): in a Chinese window the "I did not understand" help comes back
in Chinese, in an English window in English; text in Chinese is answered in Chinese in
either."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

pytest.importorskip("PySide6")

from pytestqt.qtbot import QtBot

from tests.gui.conftest import MakeWindow
from tests.gui.test_zh_chat_cards import ask, shown
from xyclaw.agent.runtime import AgentRuntime
from xyclaw.engine import Engine
from xyclaw.gui import i18n
from xyclaw.gui.app import build_runtime
from xyclaw.gui.chat.blocks import MessageBlock
from xyclaw.store import Store

pytestmark = pytest.mark.slow


@pytest.fixture
def runtime(local_engine: Engine, history_store: Store) -> Iterator[AgentRuntime]:
    rt = build_runtime(local_engine, history_store)
    yield rt
    rt.close()


def _last_reply(chat) -> str:  # type: ignore[no-untyped-def]
    return shown(chat, MessageBlock)[-1].body.toPlainText()


@pytest.mark.parametrize(
    ("window", "text", "expected", "not_expected"),
    [
        ("zh_CN", "asdf qwer zxcv", "没听懂", "I did not understand"),
        ("en", "asdf qwer zxcv", "I did not understand", "没听懂"),
        ("en", "今天天气怎么样", "没听懂", "I did not understand"),
    ],
)
def test_the_nonsense_reply_follows_the_window_language(
    qtbot: QtBot,
    make_window: MakeWindow,
    local_engine: Engine,
    runtime: AgentRuntime,
    window: str,
    text: str,
    expected: str,
    not_expected: str,
) -> None:
    assert i18n.install(window) == window
    try:
        ctl = make_window(local_engine, runtime)
        chat = ctl.chat
        qtbot.waitUntil(
            lambda: chat.runtime is not None and chat.composer.isEnabled(), timeout=30000
        )
        ask(qtbot, chat, text)
        qtbot.waitUntil(lambda: bool(shown(chat, MessageBlock)), timeout=30000)
        reply = _last_reply(chat)
        assert expected in reply and not_expected not in reply, reply
    finally:
        i18n.install("en")
