"""A card an MCP client asked for, in the window (issue 37): shown with the client's name,
answered with the window's Approve, and the client's card_status sees it done."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

pytest.importorskip("PySide6")

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from tests.gui.conftest import MakeWindow
from xyclaw.agent.mcp_server import McpTools, client_name
from xyclaw.agent.runtime import AgentRuntime
from xyclaw.engine import Engine
from xyclaw.gui.app import build_runtime
from xyclaw.gui.chat.approval import ApprovalCard
from xyclaw.gui.chat.page import ChatPage
from xyclaw.store import Store

pytestmark = pytest.mark.slow
PLAN = {"task": "finetune-lora", "model_params": 7e9, "gpus": 8, "budget": 2000}


@pytest.fixture
def runtime(sim_engine: Engine, history_store: Store) -> Iterator[AgentRuntime]:
    rt = build_runtime(sim_engine, history_store)
    yield rt
    rt.close()


def shown(chat: ChatPage) -> list[ApprovalCard]:
    layout = chat.blocks
    widgets = (layout.itemAt(i).widget() for i in range(layout.count()))
    return [w for w in widgets if isinstance(w, ApprovalCard) and not w.isHidden()]


def test_an_mcp_clients_card_is_marked_with_its_name_and_answered_in_the_window(
    qtbot: QtBot, make_window: MakeWindow, sim_engine: Engine, runtime: AgentRuntime
) -> None:
    ctl = make_window(sim_engine, runtime)
    chat = ctl.chat
    qtbot.waitUntil(lambda: chat._cards_seen is not None, timeout=30000)  # looked once

    # an MCP client asks while the window is open (in the server's process: no event here)
    tools = McpTools(runtime)
    client = client_name("codex\x1b[2J")  # shown as the text it is
    plan, failed = tools.call("plan", dict(PLAN), client)
    assert not failed
    rent, failed = tools.call("rent", {"plan_id": plan["plan_id"], "option": 1}, client)
    assert not failed and rent["status"] == "pending"
    cid = rent["conversation"]

    # the window finds it on its own, lists it as waiting and announces it
    def listed() -> bool:
        items = [chat.list.item(i) for i in range(chat.list.count())]
        return any(
            item.data(Qt.ItemDataRole.UserRole) == cid and "approval waiting" in item.text()
            for item in items
        )

    qtbot.waitUntil(listed, timeout=30000)
    assert any("outside this window" in n.message for n in ctl.tray.recent)
    chat.select_conversation(cid)
    qtbot.waitUntil(lambda: bool(shown(chat)), timeout=30000)
    [card] = shown(chat)
    assert card.request.card_id == rent["card"]
    assert card.agent_label.text().startswith("asked by an MCP client (codex␛[2J)")

    qtbot.mouseClick(card.approve_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(
        lambda: tools.call("card_status", {"card": rent["card"]}, client)[0]["status"] == "done",
        timeout=120000,
    )
    qtbot.waitUntil(lambda: not chat.busy, timeout=60000)
    status, _ = tools.call("card_status", {"card": rent["card"]}, client)
    assert [c.name for c in sim_engine.clusters()] == [status["result"]["cluster"]["name"]]
    ctl.quit_now()
