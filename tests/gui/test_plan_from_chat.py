"""The Plan page shows the plan made in the chat (issue 28, item 8: "the Plan page ignores
plans made in the chat"): opened after a chat plan, it offers it (a button; the form typed
there is not replaced unasked); shown, its form holds the chat's request (the figures said
there, the assumed ones left to assume) and its table that request's options, each with its
rent button, and it says so."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

pytest.importorskip("PySide6")

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from tests.gui.conftest import MakeWindow
from tests.gui.test_zh_chat_cards import ask
from xyclaw.agent.runtime import AgentRuntime
from xyclaw.engine import Engine
from xyclaw.gui.app import build_runtime
from xyclaw.gui.plan_page import chat_request_values
from xyclaw.store import Store

pytestmark = pytest.mark.slow


@pytest.fixture
def runtime(sim_engine: Engine, history_store: Store) -> Iterator[AgentRuntime]:
    rt = build_runtime(sim_engine, history_store)
    yield rt
    rt.close()


def test_the_plan_page_shows_the_chat_s_plan(
    qtbot: QtBot, make_window: MakeWindow, sim_engine: Engine, runtime: AgentRuntime
) -> None:
    ctl = make_window(sim_engine, runtime)
    chat = ctl.chat
    qtbot.waitUntil(lambda: chat.runtime is not None and chat.composer.isEnabled(), timeout=30000)
    ask(qtbot, chat, "plan a LoRA fine-tune of a 7B model on 16 GPUs, budget 900 CNY")
    [made] = sim_engine.history("plans", limit=1)
    assert made["conversation_id"] is not None

    ctl.show_page("plan")
    page = ctl.page_widgets["plan"]
    # offered, not forced: the form the user typed stays until they ask for the chat's plan
    qtbot.waitUntil(page.chat_plan_button.isVisible, timeout=30000)
    assert page.chat_plan_button.text() == f"Show the chat's plan {made['id']} here"
    assert page.view is None and page.values()["model_size"] == "13B"
    qtbot.mouseClick(page.chat_plan_button, Qt.MouseButton.LeftButton)
    assert not page.chat_plan_button.isVisible()
    qtbot.waitUntil(lambda: page.view is not None and not page.planning, timeout=60000)
    assert page.values()["model_size"] == "7B"
    assert page.values()["gpus"] == "16"
    assert page.values()["budget"] == "900 CNY"
    assert page.values()["tokens"] is None  # assumed in the chat: left to assume here
    request = page.view.outcome.result.request
    assert request.params == 7_000_000_000 and request.gpus_max == 16
    assert page.table.rowCount() > 0 and page.rent_buttons
    assert f"The chat's plan {made['id']}" in page.status.text(), page.status.text()

    # shown again with no newer chat plan: the page keeps what it shows
    shown = page.view.plan_id
    ctl.show_page("chat")
    ctl.show_page("plan")
    qtbot.wait(500)
    assert page.view.plan_id == shown and not page.chat_plan_button.isVisible()


def test_a_chat_request_fills_the_form_with_what_was_said() -> None:
    values = chat_request_values(
        {"task": "inference", "model_size": 70e9, "tokens": None, "tokens_assumed": False,
         "rate": 5.0, "rate_assumed": False, "gpus_min": 8, "gpus_max": 32, "gpu": "H800",
         "fabric": None, "budget": 2000.0, "currency": "CNY", "deadline_hours": 1.5}
    )  # fmt: skip
    assert values == {
        "task": "inference",
        "model_size": "70B",
        "gpus": "8-32",
        "gpu": "H800",
        "budget": "2000 CNY",
        "deadline": "1.5h",
        "rate": "5",
    }
