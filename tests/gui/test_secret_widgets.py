"""A model that echoes its API key (issue 26): no widget of the window shows it, in the chat
(the streamed answer, its reasoning, the tool card's arguments and error) or on any page."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

pytest.importorskip("PySide6")

from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QComboBox,
    QGroupBox,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QTextEdit,
    QWidget,
)
from pytestqt.qtbot import QtBot

from tests.agent import fake_llm as f
from tests.gui.conftest import MakeWindow
from tests.gui.test_chat_e2e import ask, shown
from xyclaw.agent.presets import key_secret_name
from xyclaw.agent.runtime import AgentRuntime
from xyclaw.config import load_config
from xyclaw.engine import Engine
from xyclaw.gui.chat.blocks import MessageBlock, ToolCard
from xyclaw.paths import AppPaths
from xyclaw.store import Store

pytestmark = pytest.mark.gui
KEY = f.API_KEY


def every_text(root: QWidget) -> Iterator[tuple[str, str]]:
    """Every text under ``root``, shown or not, data or not (item views' cells too)."""
    for w in [root, *root.findChildren(QWidget)]:
        name = f"{type(w).__name__}#{w.objectName()}"
        if isinstance(w, QLabel | QAbstractButton):
            yield name, w.text()
        elif isinstance(w, QGroupBox):
            yield name, w.title()
        elif isinstance(w, QLineEdit):
            yield name, w.text()
        elif isinstance(w, QTextEdit | QPlainTextEdit):
            yield name, w.toPlainText()
        elif isinstance(w, QComboBox):
            for i in range(w.count()):
                yield name, w.itemText(i)
        if isinstance(w, QAbstractItemView) and w.model() is not None:
            model = w.model()
            root_index = QModelIndex()
            try:
                columns = model.columnCount(root_index)
            except TypeError:  # a list model: one column
                columns = 1
            for row in range(min(model.rowCount(root_index), 200)):
                for column in range(columns):
                    value = model.data(model.index(row, column), Qt.ItemDataRole.DisplayRole)
                    yield f"{name}[{row},{column}]", str(value or "")
        yield name + ":tooltip", w.toolTip()


def test_no_widget_shows_a_key_the_model_echoes(
    local_engine: Engine, history_store: Store, make_window: MakeWindow, qtbot: QtBot
) -> None:
    paths = AppPaths.from_environment()
    echo = f.Reply(
        text=f"Planning with {KEY} now.",
        reasoning=f"The user's key is {KEY}.",
        tool_calls=[("plan", json.dumps({"task": "pretrain", "model_params": 7e9, "gpu": KEY}))],
        pieces=6,
    )
    script = [echo, f.text(f"That failed for GPU {KEY}.", reasoning=f"still {KEY}")]
    with f.FakeLLM(script, router=lambda body: "planner") as llm:
        local_engine.secrets.set(key_secret_name("custom"), KEY)
        config = load_config(
            paths.config_file,
            environ={
                "XYCLAW_LLM_PRESET": "custom",
                "XYCLAW_LLM_BASE_URL": llm.base_url,
                "XYCLAW_LLM_MODEL": "fake-model",
                "XYCLAW_LLM_MAX_RETRIES": "0",
            },
        )
        runtime = AgentRuntime(local_engine, store=history_store, paths=paths, config=config)
        try:
            ctl = make_window(local_engine, runtime)
            chat = ctl.chat
            ask(qtbot, chat, "plan a 7B pretraining")
            qtbot.waitUntil(
                lambda: any("That failed for GPU" in b.body.toPlainText()
                            for b in shown(chat, MessageBlock)) and not chat.busy,
                timeout=60_000,
            )  # fmt: skip
            assert shown(chat, ToolCard)
            texts = list(every_text(ctl.window))
            assert any("That failed for GPU ***" in t for _w, t in texts)
            leaks = [(w, t) for w, t in texts if KEY in t]
            assert leaks == []
        finally:
            runtime.close()
