"""XyClaw's own conversation titles ("New conversation", "Tour", stored in English) shown in
the window's language (issue 28, item 8)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

pytest.importorskip("PySide6")

from pytestqt.qtbot import QtBot

from tests.gui.conftest import MakeWindow
from xyclaw.agent.runtime import AgentRuntime
from xyclaw.engine import Engine
from xyclaw.gui import i18n
from xyclaw.gui.app import build_runtime
from xyclaw.store import Store

pytestmark = pytest.mark.slow


@pytest.fixture
def runtime(sim_engine: Engine, history_store: Store) -> Iterator[AgentRuntime]:
    rt = build_runtime(sim_engine, history_store)
    yield rt
    rt.close()


def test_own_titles_are_chinese_in_a_chinese_window(
    qtbot: QtBot, make_window: MakeWindow, sim_engine: Engine, runtime: AgentRuntime
) -> None:
    runtime.new_conversation(None)
    runtime.new_conversation("Tour")
    assert i18n.install("zh_CN") == "zh_CN"
    try:
        ctl = make_window(sim_engine, runtime)
        chat = ctl.chat
        qtbot.waitUntil(lambda: chat.list.count() >= 2, timeout=30000)
        shown = "\n".join(chat.list.item(i).text() for i in range(chat.list.count()))
        assert "新对话" in shown and "导览" in shown, shown
        assert "New conversation" not in shown and "Tour" not in shown, shown
    finally:
        i18n.install("en")
