"""End to end on the simulated cloud with the rules brain: type a request, see the plan,
rent through the approval card, watch the operation, release. A watchdog fails the test if
the event loop stalls for more than 100 ms at any point."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

pytest.importorskip("PySide6")

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from tests.gui.conftest import LoopWatchdog, MakeWindow
from xyclaw.agent.runtime import AgentRuntime
from xyclaw.engine import Engine
from xyclaw.engine.lifecycle import UpRequest
from xyclaw.gui.app import build_runtime
from xyclaw.gui.charts.alerts import actions_for
from xyclaw.gui.charts.source import AlertView
from xyclaw.gui.chat.approval import ApprovalCard
from xyclaw.gui.chat.blocks import MessageBlock, PlanCard, ToolCard
from xyclaw.gui.chat.page import ChatPage
from xyclaw.gui.main_window import MainWindowController
from xyclaw.gui.monitor_wiring import alert_request
from xyclaw.store import Store

pytestmark = pytest.mark.slow
REQUEST = "LoRA fine-tune a 13B model on 8 GPUs, budget 500"


@pytest.fixture
def runtime(sim_engine: Engine, history_store: Store) -> Iterator[AgentRuntime]:
    rt = build_runtime(sim_engine, history_store)  # as the app starts it (with its warm-up)
    yield rt
    rt.close()


def shown(chat: ChatPage, kind: type) -> list:
    layout = chat.blocks
    widgets = (layout.itemAt(i).widget() for i in range(layout.count()))
    return [w for w in widgets if isinstance(w, kind) and not w.isHidden()]


def ask(qtbot: QtBot, chat: ChatPage, text: str) -> None:
    qtbot.waitUntil(lambda: not chat.busy and chat.composer.isEnabled(), timeout=30000)
    chat.composer.setFocus()
    qtbot.keyClicks(chat.composer, text)
    qtbot.keyClick(chat.composer, Qt.Key.Key_Return)


def operation(ctl: MainWindowController, prefix: str, state: str) -> bool:
    return any(
        v.title.startswith(prefix) and v.state == state for v in ctl.operations.views.values()
    )


def plan_in_chat(qtbot: QtBot, ctl: MainWindowController) -> PlanCard:
    chat = ctl.chat
    ask(qtbot, chat, REQUEST)
    # a block added to the visible chat is shown at the next turn of the event loop (Qt
    # queues it), so wait for the reply to be on screen, not only for the turn to end
    qtbot.waitUntil(
        lambda: bool(shown(chat, PlanCard) and shown(chat, MessageBlock)) and not chat.busy,
        timeout=60000,
    )
    [plan] = shown(chat, PlanCard)
    assert plan.option_count >= 2 and len(plan.rent_buttons) == plan.option_count
    assert "CNY" in plan.cell(0, "Cost")
    [card] = [c for c in shown(chat, ToolCard) if c.name.text() == "plan"]
    assert card.badge.text() == "read" and card.status.text().startswith("done")
    replies = shown(chat, MessageBlock)
    layout = chat.blocks
    seen = [type(layout.itemAt(i).widget()).__name__ for i in range(layout.count())]
    assert replies, seen
    assert replies[-1].agent_label.text() == "planner"
    assert "option" in replies[-1].body.toPlainText()
    return plan


def test_request_plan_rent_approve_watch_release(
    qtbot: QtBot,
    make_window: MakeWindow,
    sim_engine: Engine,
    runtime: AgentRuntime,
    loop_watchdog: LoopWatchdog,
) -> None:
    ctl = make_window(sim_engine, runtime)
    chat = ctl.chat
    qtbot.waitUntil(lambda: ctl.status.snapshot is not None, timeout=30000)
    loop_watchdog.start()

    loop_watchdog.phase = "plan"
    plan_in_chat(qtbot, ctl)

    loop_watchdog.phase = "ask to rent"
    ask(qtbot, chat, "rent option 1")
    qtbot.waitUntil(lambda: bool(shown(chat, ApprovalCard)) and not chat.busy, timeout=60000)
    [card] = shown(chat, ApprovalCard)
    assert card.effect == "spend"
    assert "(single node)" in str(card.request.title)  # 8 GPUs on one machine: no fabric
    assert "CNY/h" in card.facts["Price"].text()
    assert card.facts["Budget"].text().startswith("500.00 CNY")
    assert card.expiry is not None and card.expiry.text().startswith("for ")

    loop_watchdog.phase = "approve and rent"
    qtbot.mouseClick(card.approve_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: operation(ctl, "rent", "succeeded"), timeout=120000)
    qtbot.waitUntil(lambda: not chat.busy, timeout=60000)
    assert ctl.operations_dock.isVisible()
    rent_item = next(
        ctl.operations.tree.topLevelItem(i)
        for i in range(ctl.operations.tree.topLevelItemCount())
        if ctl.operations.tree.topLevelItem(i).text(0).startswith("rent")
    )
    assert rent_item.childCount() >= 1  # one row per node with its bootstrap step
    qtbot.waitUntil(
        lambda: "on 1 cluster (simulated, not charged)" in ctl.status.rate.text(), timeout=30000
    )
    assert "CNY/h" in ctl.status.rate.text()
    assert "CNY/h" in ctl.tray.tooltip
    with loop_watchdog.paused():
        [cluster] = sim_engine.clusters()
        assert cluster.state == "ready"

    loop_watchdog.phase = "release"
    ask(qtbot, chat, f"release {cluster.name}")
    qtbot.waitUntil(
        lambda: any(c.effect == "destroy" for c in shown(chat, ApprovalCard)) and not chat.busy,
        timeout=60000,
    )
    release = next(c for c in shown(chat, ApprovalCard) if c.effect == "destroy")
    qtbot.mouseClick(release.approve_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: operation(ctl, "release", "succeeded"), timeout=120000)
    qtbot.waitUntil(lambda: ctl.status.rate.text() == "Nothing billing", timeout=30000)
    qtbot.waitUntil(lambda: not chat.busy, timeout=60000)
    loop_watchdog.stop()
    with loop_watchdog.paused():
        assert sim_engine.clusters() == []
        assert sim_engine.cluster(cluster.name).state == "released"
    loop_watchdog.stop()


def test_reject_on_the_approval_card_rents_nothing_even_after_a_restart(
    qtbot: QtBot,
    make_window: MakeWindow,
    sim_engine: Engine,
    history_store: Store,
    runtime: AgentRuntime,
    loop_watchdog: LoopWatchdog,
) -> None:
    ctl = make_window(sim_engine, runtime)
    chat = ctl.chat
    qtbot.waitUntil(lambda: ctl.status.snapshot is not None, timeout=30000)
    loop_watchdog.start()
    plan = plan_in_chat(qtbot, ctl)
    qtbot.mouseClick(plan.rent_buttons[0], Qt.MouseButton.LeftButton)  # "Rent this"
    qtbot.waitUntil(lambda: bool(shown(chat, ApprovalCard)) and not chat.busy, timeout=60000)
    [first] = shown(chat, ApprovalCard)

    # The app restarts with the approval still waiting: it is shown again.
    loop_watchdog.stop()
    ctl.quit_now()
    runtime.close()
    again = build_runtime(sim_engine, history_store)
    try:
        ctl = make_window(sim_engine, again)
        chat = ctl.chat
        loop_watchdog.start()
        qtbot.waitUntil(lambda: bool(shown(chat, ApprovalCard)), timeout=30000)
        [card] = shown(chat, ApprovalCard)
        assert card.approval_id == first.approval_id and card.approve_button.isEnabled()
        assert "approval waiting" in chat.list.item(0).text()
        qtbot.mouseClick(card.reject_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: not chat.busy, timeout=60000)
        assert "Rejected" in card.outcome.text()
        rent_cards = [c for c in shown(chat, ToolCard) if c.name.text() == "create_cluster"]
        assert rent_cards and rent_cards[-1].status.text().startswith("rejected")
        assert not any(v.title.startswith("rent") for v in ctl.operations.views.values())
        loop_watchdog.stop()
        with loop_watchdog.paused():
            assert sim_engine.clusters(include_released=True) == []
        assert ctl.status.rate.text() == "Nothing billing"
    finally:
        ctl.quit_now()
        again.close()


def test_the_monitor_page_goes_live_and_its_alert_buttons_ask_for_approval(
    qtbot: QtBot,
    make_window: MakeWindow,
    sim_engine: Engine,
    runtime: AgentRuntime,
) -> None:
    quote = sim_engine.quote_request(UpRequest(provider="sim", gpu="A10", gpu_count=2))
    cluster = sim_engine.up(quote).result(120)
    ctl = make_window(sim_engine, runtime)
    assert ctl.context.monitor is None  # built when first shown, not before the first paint
    ctl.show_page("monitor")
    monitor = ctl.context.monitor
    assert monitor is not None and ctl.pages.currentWidget() is monitor.page
    qtbot.waitUntil(lambda: monitor.page.source is not None, timeout=30000)
    qtbot.waitUntil(lambda: monitor.page.cluster_id == cluster.id, timeout=10000)
    qtbot.waitUntil(lambda: monitor.page.frames > 0, timeout=10000)

    # What an XID alert's "Reset GPU" button asks for: that GPU, on that node only.
    node = cluster.nodes[0].name
    alert = AlertView(
        id=1,
        rule="gpu.xid",
        severity="critical",
        message="XID 79 on GPU 1",
        action="",
        cluster_id=cluster.id,
        node=node,
        node_id=cluster.nodes[0].id,
        gpu=1,
    )
    [reset] = [a for a in actions_for(alert) if a.key == "reset_gpu"]
    request = alert_request(alert, reset, cluster.name)
    assert request.action is not None and request.action.tool == "run_command"
    command = request.action.args["command"]
    assert command == f'if [ "$(hostname)" = {node} ]; then nvidia-smi -r -i 1; fi'

    ctl.chat.run_in_monitor(request.action)
    chat = ctl.chat
    qtbot.waitUntil(lambda: bool(shown(chat, ApprovalCard)) and not chat.busy, timeout=60000)
    [card] = shown(chat, ApprovalCard)
    assert card.effect == "exec" and card.facts["Command"].text() == command
    assert chat.title.text() == "Monitor"
    qtbot.mouseClick(card.reject_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not chat.busy, timeout=60000)
    sim_engine.down(cluster.name).result(120)


def test_the_heartbeat_puts_an_alerts_action_on_a_card_in_the_monitor_conversation(
    qtbot: QtBot,
    make_window: MakeWindow,
    sim_engine: Engine,
    history_store: Store,
    runtime: AgentRuntime,
) -> None:
    from tests.agent.conftest import raise_alert
    from xyclaw.gui.app import start_heartbeat

    quote = sim_engine.quote_request(UpRequest(provider="sim", gpu="A10", gpu_count=2))
    cluster = sim_engine.up(quote).result(120)
    raise_alert(history_store, cluster.id, "gpu.idle_during_job", severity="warning")
    runtime.new_conversation("an earlier chat")
    ctl = make_window(sim_engine, runtime)
    chat = ctl.chat
    monitor = runtime.monitor_conversation()
    qtbot.waitUntil(lambda: chat.list.count() == 1, timeout=10000)  # the chat only
    chat.select_conversation(monitor)  # open: the heartbeat's post draws it again
    beat = start_heartbeat(ctl, runtime)
    try:
        qtbot.waitUntil(lambda: bool(shown(chat, ApprovalCard)) and not chat.busy, timeout=60000)
        [card] = shown(chat, ApprovalCard)
        assert card.effect == "destroy" and card.request.tool == "release_cluster"
        # Listed while its card waits (the list otherwise shows the chats only).
        qtbot.waitUntil(
            lambda: any(
                chat.list.item(row).data(Qt.ItemDataRole.UserRole) == monitor
                and "approval waiting" in chat.list.item(row).text()
                for row in range(chat.list.count())
            ),
            timeout=10000,
        )
        assert [c.name for c in sim_engine.clusters()] == [cluster.name]  # only a card so far
        qtbot.mouseClick(card.approve_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: not sim_engine.clusters() and not chat.busy, timeout=60000)
        qtbot.waitUntil(
            lambda: any(
                f"Released **{cluster.name}**" in b.text for b in shown(chat, MessageBlock)
            ),
            timeout=30000,
        )
        said = [b.text for b in shown(chat, MessageBlock)]
        assert any("Proposed" in t and "Release the idle cluster" in t for t in said)
    finally:
        beat.stop()
