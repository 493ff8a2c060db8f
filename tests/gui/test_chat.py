"""The chat page with a scripted runtime: streaming, tool cards, plan tables, approval cards,
the conversation list and the keyboard."""

from __future__ import annotations

import pytest

pytest.importorskip("PySide6")

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLineEdit
from pytestqt.qtbot import QtBot

from tests.gui.conftest import MakeWindow
from tests.gui.scripted import ScriptedRuntime
from xyclaw.engine import Engine
from xyclaw.gui.chat.approval import ApprovalCard
from xyclaw.gui.chat.blocks import MessageBlock, PlanCard, ToolCard, UserBlock
from xyclaw.gui.chat.examples import EXAMPLES
from xyclaw.gui.chat.page import ChatPage
from xyclaw.gui.main_window import MainWindowController

REQUEST = "LoRA fine-tune a 13B model on 8 GPUs, budget 500"


@pytest.fixture
def runtime() -> ScriptedRuntime:
    return ScriptedRuntime()


@pytest.fixture
def window(
    make_window: MakeWindow, local_engine: Engine, runtime: ScriptedRuntime
) -> MainWindowController:
    return make_window(local_engine, runtime)


def blocks(chat: ChatPage, kind: type) -> list:
    layout = chat.blocks
    found = []
    for i in range(layout.count()):
        widget = layout.itemAt(i).widget()
        if isinstance(widget, kind) and not widget.isHidden():
            found.append(widget)
    return found


def idle(qtbot: QtBot, ctl: MainWindowController) -> None:
    qtbot.waitUntil(lambda: not ctl.chat.busy and ctl.worker.busy == 0, timeout=5000)


def test_an_empty_chat_offers_examples_in_english_and_chinese(
    qtbot: QtBot, window: MainWindowController, runtime: ScriptedRuntime
) -> None:
    chat = window.chat
    qtbot.waitUntil(lambda: bool(chat.example_chips), timeout=3000)
    texts = [c.text() for c in chat.example_chips]
    assert texts == list(EXAMPLES)
    assert any("LoRA" in t for t in texts)
    assert any("\u4e00" <= ch <= "\u9fff" for t in texts for ch in t)  # some Chinese
    qtbot.mouseClick(chat.example_chips[0], Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: bool(blocks(chat, UserBlock)), timeout=3000)
    assert blocks(chat, UserBlock)[0].text == EXAMPLES[0]
    assert not chat.example_chips  # the examples made way for the conversation
    idle(qtbot, window)


def test_typing_a_request_streams_the_reply_with_its_tool_card_and_plan_table(
    qtbot: QtBot, make_window: MakeWindow, local_engine: Engine
) -> None:
    runtime = ScriptedRuntime(token_delay_s=0.02)
    ctl = make_window(local_engine, runtime)
    chat = ctl.chat
    qtbot.waitUntil(lambda: chat.runtime is not None and chat.composer.isEnabled(), timeout=3000)
    qtbot.keyClicks(chat.composer, REQUEST)
    qtbot.keyClick(chat.composer, Qt.Key.Key_Return)
    assert chat.composer.toPlainText() == "" and not chat.send_button.isEnabled()
    qtbot.waitUntil(chat.stop_button.isEnabled, timeout=3000)

    # The reply is shown while it streams, before the turn ends.
    qtbot.waitUntil(lambda: bool(blocks(chat, MessageBlock)), timeout=3000)
    partial = blocks(chat, MessageBlock)[0]
    qtbot.waitUntil(lambda: len(partial.text) > 10, timeout=3000)
    assert chat.busy and partial.streaming and len(partial.text) < 100

    qtbot.waitUntil(lambda: not chat.busy, timeout=5000)
    reply = blocks(chat, MessageBlock)[0]
    assert reply.agent_label.text() == "planner"
    assert "two options" in reply.body.toPlainText()
    assert "120 in" in reply.footer.text() and "60 out" in reply.footer.text()
    # Markdown: the table and the code block are rendered, not shown as source.
    html = reply.body.toHtml()
    assert "<table" in html and "|---|" not in reply.body.toPlainText()
    assert "xyclaw up --plan 1 --option 1" in reply.body.toPlainText()

    [card] = blocks(chat, ToolCard)
    assert card.name.text() == "plan" and card.badge.text() == "read"
    assert card.status.text().startswith("done")
    assert "best 8 x A800 at 173.60 CNY" in card.summary.text()
    assert not card.expanded
    qtbot.mouseClick(card.toggle, Qt.MouseButton.LeftButton)
    assert card.expanded and '"model_size": "13B"' in card.args.toPlainText()

    [plan] = blocks(chat, PlanCard)
    assert plan.option_count == 2
    assert plan.cell(0, "GPUs") == "8 × A800" and plan.cell(0, "Nodes") == "1 × 8"
    assert plan.cell(0, "Cost") == "173.60 CNY"
    assert plan.reasons_text(0).startswith("3.50 CNY per GPU-hour")
    assert "sharded over 8" in plan.reasons_text(0)
    assert [b.text() for b in plan.rent_buttons] == ["Rent this", "Rent this"]
    assert runtime.turn_threads and all(n.startswith("gui-agent") for n in runtime.turn_threads)
    idle(qtbot, ctl)


def test_shift_enter_is_a_new_line_and_ctrl_n_a_new_chat(
    qtbot: QtBot, window: MainWindowController, runtime: ScriptedRuntime
) -> None:
    chat = window.chat
    qtbot.waitUntil(lambda: chat.composer.isEnabled(), timeout=3000)
    qtbot.keyClicks(chat.composer, "first line")
    qtbot.keyClick(chat.composer, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    qtbot.keyClicks(chat.composer, "second line")
    assert chat.composer.toPlainText() == "first line\nsecond line"
    assert not blocks(chat, UserBlock)
    qtbot.keyClick(chat.composer, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: bool(blocks(chat, UserBlock)), timeout=3000)
    assert blocks(chat, UserBlock)[0].text == "first line\nsecond line"
    idle(qtbot, window)
    assert len(runtime.conversations()) == 1

    qtbot.keyClick(window.window, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: len(runtime.conversations()) == 2, timeout=3000)
    qtbot.waitUntil(lambda: chat.list.count() == 2, timeout=3000)
    newest = runtime.conversations()[0]
    assert chat.current == newest.id and not blocks(chat, UserBlock)
    qtbot.waitUntil(lambda: bool(chat.example_chips), timeout=3000)


def _rent(qtbot: QtBot, ctl: MainWindowController) -> ApprovalCard:
    chat = ctl.chat
    qtbot.waitUntil(lambda: chat.composer.isEnabled(), timeout=3000)
    chat.send(REQUEST)
    qtbot.waitUntil(lambda: bool(blocks(chat, PlanCard)) and not chat.busy, timeout=5000)
    plan = blocks(chat, PlanCard)[0]
    qtbot.mouseClick(plan.rent_buttons[0], Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: bool(blocks(chat, ApprovalCard)) and not chat.busy, timeout=5000)
    return blocks(chat, ApprovalCard)[0]


def test_rent_this_shows_an_approval_card_with_price_total_budget_and_expiry(
    qtbot: QtBot, window: MainWindowController, runtime: ScriptedRuntime
) -> None:
    card = _rent(qtbot, window)
    assert runtime.rented == [(7, 1)]
    facts = {k: v.text() for k, v in card.facts.items()}
    assert facts["What"] == "8 × A800 (1 node × 8)"
    assert "sim · Xiamen" in facts["Where"]
    assert facts["Price"].startswith("28.00 CNY/h")
    assert facts["Estimated total"] == "173.60 CNY for 6.2 h"
    assert facts["Budget"].startswith("500.00 CNY")
    assert card.expiry is not None and card.expiry.text().startswith("for 4:5")
    assert not card.flag.isVisible()
    assert card.approve_button.isEnabled() and card.reject_button.isEnabled()
    # The tool card above it says it waits.
    rent_card = window.chat.tool_cards["call-rent"]
    assert rent_card.badge.text() == "spends money" and "approval" in rent_card.status.text()


def test_approve_sends_the_decision_and_the_card_says_so(
    qtbot: QtBot, window: MainWindowController, runtime: ScriptedRuntime
) -> None:
    card = _rent(qtbot, window)
    qtbot.mouseClick(card.approve_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: bool(runtime.decisions) and not window.chat.busy, timeout=5000)
    assert [d.kind for _, d in runtime.decisions] == ["approve"]
    assert card.outcome.text() == "Approved by you"
    assert not card.approve_button.isEnabled() and not card.reject_button.isEnabled()
    # the countdown stopped: its row says what was decided, and stays so
    assert card.expiry is not None
    decided = card.expiry.text()
    assert decided.startswith("approved at ") and "the quote held until" in decided
    qtbot.wait(1200)
    assert card.expiry.text() == decided
    # A second click does nothing more.
    qtbot.mouseClick(card.approve_button, Qt.MouseButton.LeftButton)
    assert len(runtime.decisions) == 1
    # the agent's reply after the yes is drawn once the resumed turn comes back
    qtbot.waitUntil(
        lambda: (
            "Renting it now." in [b.body.toPlainText() for b in blocks(window.chat, MessageBlock)]
        ),
        timeout=5000,
    )


def test_reject_sends_a_rejection(
    qtbot: QtBot, window: MainWindowController, runtime: ScriptedRuntime
) -> None:
    card = _rent(qtbot, window)
    qtbot.mouseClick(card.reject_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: bool(runtime.decisions) and not window.chat.busy, timeout=5000)
    assert [d.kind for _, d in runtime.decisions] == ["reject"]
    assert "Rejected" in card.outcome.text()
    assert window.chat.tool_cards["call-rent"].status.text().startswith("rejected")
    assert card.expiry is not None and card.expiry.text().startswith("rejected at ")
    assert "for " not in card.expiry.text()  # no countdown left on an answered card


def test_edit_changes_the_arguments_in_a_small_dialog(
    qtbot: QtBot, window: MainWindowController, runtime: ScriptedRuntime
) -> None:
    card = _rent(qtbot, window)
    qtbot.mouseClick(card.edit_button, Qt.MouseButton.LeftButton)
    dialog = card.edit_dialog
    assert dialog is not None and dialog.dialog.isVisible()
    hours = dialog.dialog.findChild(QLineEdit, "edit_hours")
    hours.setText("not a number")
    dialog._accept()
    assert dialog.error.isVisible() and dialog.dialog.isVisible()
    hours.setText("3")
    dialog._accept()
    qtbot.waitUntil(lambda: bool(runtime.decisions) and not window.chat.busy, timeout=5000)
    [(_, decision)] = runtime.decisions
    assert decision.kind == "edit"
    assert decision.args == {"plan_id": 7, "option": 1, "hours": 3}


def test_an_expired_quote_cannot_be_approved(
    qtbot: QtBot, make_window: MakeWindow, local_engine: Engine
) -> None:
    runtime = ScriptedRuntime(quote_ttl_s=1.0)
    ctl = make_window(local_engine, runtime)
    card = _rent(qtbot, ctl)
    qtbot.waitUntil(lambda: card.expired and not card.approve_button.isEnabled(), timeout=4000)
    assert "expired" in card.expiry.text()
    qtbot.mouseClick(card.approve_button, Qt.MouseButton.LeftButton)
    assert runtime.decisions == []
    assert card.reject_button.isEnabled()


def test_a_pending_approval_is_shown_again_after_a_restart(
    qtbot: QtBot, make_window: MakeWindow, local_engine: Engine, runtime: ScriptedRuntime
) -> None:
    first = make_window(local_engine, runtime)
    _rent(qtbot, first)
    first.quit_now()

    second = make_window(local_engine, runtime)  # the same history, a new window
    chat = second.chat
    qtbot.waitUntil(lambda: bool(blocks(chat, ApprovalCard)), timeout=5000)
    item = chat.list.item(0)
    assert "approval waiting" in item.text()
    [card] = blocks(chat, ApprovalCard)
    assert card.approval_id == "ap-7-1" and card.approve_button.isEnabled()
    # The earlier turn is there too: the question, the tool card, the reply.
    assert blocks(chat, UserBlock)[0].text == REQUEST
    assert "call-plan" in chat.tool_cards
    qtbot.mouseClick(card.approve_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: bool(runtime.decisions) and not chat.busy, timeout=5000)


def test_stop_ends_the_answer(qtbot: QtBot, make_window: MakeWindow, local_engine: Engine) -> None:
    runtime = ScriptedRuntime(token_delay_s=0.2)
    ctl = make_window(local_engine, runtime)
    chat = ctl.chat
    qtbot.waitUntil(lambda: chat.composer.isEnabled(), timeout=3000)
    chat.send(REQUEST)
    qtbot.waitUntil(lambda: bool(blocks(chat, MessageBlock)), timeout=3000)
    qtbot.mouseClick(chat.stop_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not chat.busy, timeout=3000)
    notices = [w.text() for w in chat.findChildren(type(chat.error)) if w.text() == "Stopped."]
    assert notices == ["Stopped."]
    reply = blocks(chat, MessageBlock)[0]
    assert len(reply.text) < 40  # it stopped early
    assert chat.send_button.isEnabled() and not chat.stop_button.isEnabled()


def test_conversations_can_be_renamed_deleted_and_searched(
    qtbot: QtBot, window: MainWindowController, runtime: ScriptedRuntime
) -> None:
    chat = window.chat
    for title in ("GPU plan for llama", "Release the idle ones", "NCCL on RoCE"):
        runtime.new_conversation(title)
    chat.reload_conversations()
    qtbot.waitUntil(lambda: chat.list.count() == 3, timeout=3000)
    chat.list.setCurrentRow(0)  # newest first
    qtbot.waitUntil(lambda: chat.current == 3, timeout=3000)
    assert chat.title.text() == "NCCL on RoCE"

    chat.rename_selected()
    dialog = chat.rename_dialog
    assert dialog is not None
    dialog.setTextValue("NCCL tuning on RoCE")
    dialog.accept()
    qtbot.waitUntil(
        lambda: chat.list.count() == 3 and "NCCL tuning on RoCE" in chat.list.item(0).text(),
        timeout=3000,
    )
    assert chat.title.text() == "NCCL tuning on RoCE"

    qtbot.keyClicks(chat.search, "idle")
    qtbot.waitUntil(lambda: chat.list.count() == 1, timeout=3000)
    assert "Release the idle ones" in chat.list.item(0).text()
    chat.search.clear()
    qtbot.waitUntil(lambda: chat.list.count() == 3, timeout=3000)

    chat.list.setCurrentRow(0)
    chat.delete_selected()
    box = chat.delete_dialog
    assert box is not None and "NCCL tuning on RoCE" in box.text()
    [delete] = [b for b in box.buttons() if b.text() == "Delete"]
    qtbot.mouseClick(delete, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: chat.list.count() == 2, timeout=3000)
    assert [c.title for c in runtime.conversations()] == [
        "Release the idle ones",
        "GPU plan for llama",
    ]


def test_an_approval_waiting_while_the_window_is_hidden_is_announced(
    qtbot: QtBot, make_window: MakeWindow, local_engine: Engine, runtime: ScriptedRuntime
) -> None:
    ctl = make_window(local_engine, runtime, tray_available=True)
    chat = ctl.chat
    qtbot.waitUntil(lambda: chat.composer.isEnabled(), timeout=3000)
    chat.send(REQUEST)
    qtbot.waitUntil(lambda: bool(chat.plan_cards) and not chat.busy, timeout=5000)
    assert not [n for n in ctl.tray.recent if n.title == "Approval waiting"]
    ctl.window.close()  # to the tray; the agents go on
    assert not ctl.window.isVisible()
    chat.rent_option(7, 1)
    qtbot.waitUntil(lambda: not chat.busy, timeout=5000)
    [note] = [n for n in ctl.tray.recent if n.title == "Approval waiting"]
    assert note.message.startswith("Rent 8 x A800 (single node)")
    assert REQUEST[:30] in note.message  # names the conversation


def test_a_single_node_option_or_quote_says_single_node_not_none(qtbot: QtBot) -> None:
    from types import SimpleNamespace

    from xyclaw.gui.chat.approval import approval_facts
    from xyclaw.gui.chat.blocks import PLAN_COLUMNS, _option_cells
    from xyclaw.gui.formatting import fabric_text, fabric_tip

    one = {"option": 1, "gpus": 8, "gpu": "A800", "nodes": 1, "gpus_per_node": 8}
    fabric = PLAN_COLUMNS.index("Fabric")
    assert _option_cells(0, {**one, "fabric": "none"})[fabric] == "single node"
    assert _option_cells(0, {**one, "fabric": "ib-hdr-200"})[fabric] == "ib-hdr-200"
    quote = {"provider": "sim", "region": "Xiamen", "fabric": "none", "gpu": "A800"}
    request = SimpleNamespace(effect="spend", details={"quote": quote}, args={})
    where = dict(approval_facts(request))["Where"]
    assert where == "sim · Xiamen · single node"
    assert "NVLink" in fabric_tip("none") and fabric_text(None) == "single node"
    quote["fabric"] = "roce-100"
    assert dict(approval_facts(request))["Where"] == "sim · Xiamen · fabric roce-100"


def test_a_slurm_partitions_option_says_when_it_starts_after_its_hours() -> None:
    from xyclaw.gui.chat.blocks import PLAN_COLUMNS, _option_cells

    hours = PLAN_COLUMNS.index("Hours")
    lab = {"option": 1, "gpus": 16, "gpu": "A800", "hours": 7.5, "queued": True}
    assert _option_cells(0, {**lab, "wait_s": 2400})[hours] == "7.5 · starts in ~40 min"
    assert _option_cells(0, {**lab, "wait_s": 0, "runs_now": True})[hours] == "7.5 · starts now"
    assert _option_cells(0, {**lab, "wait_s": None})[hours] == "7.5 · queued, wait unknown"
    assert _option_cells(0, {"option": 2, "hours": 1.4})[hours] == "1.4"  # a rental
