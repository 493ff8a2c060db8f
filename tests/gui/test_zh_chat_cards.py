"""A whole conversation in Chinese in a real window, through the rules brain on the simulated
cloud: plan, "Rent this" on the plan card (its card looked at in the Edit dialog, then
rejected), rent in words (approved), launch, watch, release. Every card along the way (tool
cards, the plan card, the approval cards) and the agents' replies show no English but names,
the requests as typed and the tools' names; the conversation reopened from the database is
Chinese too, and English again after switching back."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("PySide6")

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QWidget
from pytestqt.qtbot import QtBot

from tests.gui.conftest import MakeWindow
from tests.support.zh_words import WORD, assert_no_english, catalogue_words, english_words
from xyclaw.agent.runtime import AgentRuntime
from xyclaw.agent.tools import TOOL_NAMES
from xyclaw.engine import Engine
from xyclaw.gui import i18n
from xyclaw.gui.app import build_runtime
from xyclaw.gui.chat.approval import ApprovalCard
from xyclaw.gui.chat.blocks import MessageBlock, PlanCard, ToolCard, UserBlock
from xyclaw.gui.chat.page import ChatPage
from xyclaw.store import Store

pytestmark = pytest.mark.slow

PLAN = "用8张卡LoRA微调13B模型，预算500元"
RENT = "租第一个"
WATCH = "训练进度如何"
RELEASE = "释放这个集群"


@pytest.fixture
def runtime(sim_engine: Engine, history_store: Store) -> Iterator[AgentRuntime]:
    rt = build_runtime(sim_engine, history_store)
    yield rt
    rt.close()


@pytest.fixture
def chinese() -> Iterator[None]:
    assert i18n.install("zh_CN") == "zh_CN"
    yield
    i18n.install("en")


def shown(chat: ChatPage, kind: type) -> list:
    layout = chat.blocks
    widgets = (layout.itemAt(i).widget() for i in range(layout.count()))
    return [w for w in widgets if isinstance(w, kind) and not w.isHidden()]


def ask(qtbot: QtBot, chat: ChatPage, text: str) -> None:
    qtbot.waitUntil(lambda: not chat.busy and chat.composer.isEnabled(), timeout=60000)
    chat.composer.setFocus()
    chat.composer.setPlainText(text)  # keyClicks types no Chinese offscreen
    qtbot.keyClick(chat.composer, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: not chat.busy, timeout=120000)


def card_waiting(qtbot: QtBot, chat: ChatPage, effect: str) -> ApprovalCard:
    qtbot.waitUntil(
        lambda: any(c.effect == effect and c.decision is None for c in shown(chat, ApprovalCard)),
        timeout=60000,
    )
    return next(c for c in shown(chat, ApprovalCard) if c.effect == effect and c.decision is None)


def approve(qtbot: QtBot, chat: ChatPage, card: ApprovalCard) -> None:
    qtbot.mouseClick(card.approve_button, Qt.MouseButton.LeftButton)
    assert card.decision == "approve"
    qtbot.waitUntil(lambda: not chat.busy, timeout=180000)


def data_of(engine: Engine, chat: ChatPage, requests: list[str]) -> set[str]:
    """Names as they are in every language: clusters, nodes, jobs, offers, GPU models, regions,
    the agents and tools, the requests as typed and the conversation's title."""
    out = set(chat.runtime.agents.agents) | set(TOOL_NAMES) | catalogue_words()
    out |= {"sim", "torchrun", "tests"}  # the provider; commands (torchrun, nccl-tests)
    for text in requests:
        out.update(WORD.findall(text))
    for cluster in engine.clusters(include_released=True):
        out.update(WORD.findall(f"{cluster.name} {cluster.region}"))
    for job in engine.jobs(include_finished=True):
        out.update(WORD.findall(str(job.name)))
    out.update(WORD.findall(chat.title.text()))
    return out


def replies_in_english(chat: ChatPage, data: set[str]) -> dict[str, list[str]]:
    """The agents' replies and the requests (Markdown views: not read by assert_no_english)
    with English left; a request XyClaw wrote for a button is in the window's language."""
    found = {}
    for block in [*shown(chat, MessageBlock), *shown(chat, UserBlock)]:
        text = block.body.toPlainText()
        words = english_words(text, data)
        if words:
            found[text] = words
    return found


def save_shot(qtbot: QtBot, widget: QWidget, name: str) -> None:
    folder = os.environ.get("SHOTS_DIR")  # where to keep the pictures (not kept otherwise)
    if folder:
        qtbot.wait(300)  # the transcript laid out and scrolled to its end
        Path(folder).mkdir(parents=True, exist_ok=True)
        widget.grab().save(str(Path(folder) / name))


def test_a_chinese_conversation_plan_rent_launch_watch_release_shows_no_english(
    qtbot: QtBot,
    make_window: MakeWindow,
    sim_engine: Engine,
    runtime: AgentRuntime,
    chinese: None,
) -> None:
    ctl = make_window(sim_engine, runtime)
    ctl.window.resize(1400, 1000)
    chat = ctl.chat
    qtbot.waitUntil(lambda: chat.runtime is not None and chat.composer.isEnabled(), timeout=30000)
    requests = [PLAN, RENT, WATCH, RELEASE]

    ask(qtbot, chat, PLAN)
    qtbot.waitUntil(lambda: bool(shown(chat, PlanCard)), timeout=30000)
    [plan] = shown(chat, PlanCard)
    assert plan.rent_buttons[0].text() == "租用这个"
    [plan_call] = [c for c in shown(chat, ToolCard) if c.name.text() == "plan"]
    assert plan_call.summary.text().startswith(f"方案 {plan.plan_id}：")

    # "Rent this": asked in the window's language; the card's Edit dialog, then No
    qtbot.mouseClick(plan.rent_buttons[0], Qt.MouseButton.LeftButton)
    first = card_waiting(qtbot, chat, "spend")
    qtbot.waitUntil(lambda: not chat.busy, timeout=60000)
    assert first.title.text().startswith("租用 8 张") and "（单机）" in first.title.text()
    first.edit()
    dialog = first.edit_dialog
    assert dialog is not None and isinstance(dialog.dialog, QDialog)
    qtbot.waitUntil(dialog.dialog.isVisible, timeout=5000)
    assert_no_english(dialog.dialog, data_of(sim_engine, chat, requests), "the Edit dialog")
    dialog.dialog.reject()
    assert first.decision is None
    qtbot.mouseClick(first.reject_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not chat.busy, timeout=60000)
    assert sim_engine.clusters() == []
    qtbot.waitUntil(
        lambda: any(c.name.text() == "create_cluster" for c in shown(chat, ToolCard)),
        timeout=10000,
    )
    [refused] = [c for c in shown(chat, ToolCard) if c.name.text() == "create_cluster"]
    assert refused.summary.text() == "你已拒绝"

    ask(qtbot, chat, RENT)
    rent = card_waiting(qtbot, chat, "spend")
    approve(qtbot, chat, rent)
    [cluster] = sim_engine.clusters()
    qtbot.waitUntil(lambda: sim_engine.cluster(cluster.name).state == "ready", timeout=120000)
    rented = [c for c in shown(chat, ToolCard) if c.name.text() == "create_cluster"]
    assert rented[-1].summary.text().startswith(f"已租用 {cluster.name}（")

    launch = f"在 {cluster.name} 上启动 plain-python"
    requests.append(launch)
    ask(qtbot, chat, launch)
    card = card_waiting(qtbot, chat, "exec")
    assert card.title.text() == f"在 {cluster.name} 上启动 plain-python"
    approve(qtbot, chat, card)
    qtbot.waitUntil(lambda: bool(sim_engine.jobs(include_finished=True)), timeout=60000)

    ask(qtbot, chat, WATCH)
    qtbot.waitUntil(
        lambda: any(c.name.text() == "job_status" for c in shown(chat, ToolCard)), timeout=10000
    )

    # the tune and cancel cards, looked at and answered no
    [job] = sim_engine.jobs(include_finished=True)
    for request, effect, title in (
        ("调优一下网络", "exec", f"调优 {cluster.name} 的 NCCL"),
        (f"取消任务{job.id}", "destroy", f"取消作业 {job.name}"),
    ):
        requests.append(request)
        ask(qtbot, chat, request)
        card = card_waiting(qtbot, chat, effect)
        assert card.title.text() == title
        assert_no_english(card, data_of(sim_engine, chat, requests), f"the card of {request}")
        save_shot(qtbot, card, f"zh-card-{card.request.tool}.png")
        qtbot.mouseClick(card.reject_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: not chat.busy, timeout=60000)
    assert sim_engine.job(str(job.id)).cancel_requested_at is None

    ask(qtbot, chat, RELEASE)
    release = card_waiting(qtbot, chat, "destroy")
    assert release.title.text() == f"释放 {cluster.name}"
    data = data_of(sim_engine, chat, requests)
    assert_no_english(chat, data, "the chat with the release card waiting")
    save_shot(qtbot, ctl.window, "zh-chat-cards.png")
    # a card on screen is worded again when the language changes, both ways
    i18n.install("en")
    qtbot.waitUntil(lambda: release.title.text() == f"Release {cluster.name}", timeout=5000)
    assert release.facts["Stops billing"].text().startswith(f"billing of {cluster.name} stops")
    assert "files on the nodes' own disks" in release.facts["What is lost"].text()
    assert i18n.install("zh_CN") == "zh_CN"
    qtbot.waitUntil(lambda: release.title.text() == f"释放 {cluster.name}", timeout=5000)
    assert release.facts["Stops billing"].text() == f"平台确认后，{cluster.name} 停止计费"
    approve(qtbot, chat, release)
    qtbot.waitUntil(lambda: sim_engine.cluster(cluster.name).state == "released", timeout=120000)

    data = data_of(sim_engine, chat, requests)
    tools = [c.name.text() for c in shown(chat, ToolCard)]
    assert {"plan", "create_cluster", "launch_job", "job_status", "release_cluster"} <= set(tools)
    assert_no_english(chat, data, "the Chinese conversation with its cards")
    assert not replies_in_english(chat, data)
    save_shot(qtbot, ctl.window, "zh-chat-cards-done.png")
    save_shot(qtbot, chat.scroll.widget(), "zh-chat-transcript.png")  # all of it

    # reopened from the database: the same cards, worded from what was stored
    cid = chat.current
    assert cid is not None
    chat.open_conversation(cid)
    qtbot.waitUntil(
        lambda: {c.name.text() for c in shown(chat, ToolCard)} >= set(tools), timeout=30000
    )
    summaries = {c.name.text(): c.summary.text() for c in shown(chat, ToolCard)}
    assert summaries["create_cluster"].startswith(f"已租用 {cluster.name}（")
    assert summaries["release_cluster"].startswith(f"已释放 {cluster.name}（已释放")
    assert_no_english(chat, data, "the reopened Chinese conversation")
    save_shot(qtbot, ctl.window, "zh-chat-reopened.png")

    # and English again after switching back
    i18n.install("en")
    qtbot.waitUntil(
        lambda: all(c.badge.text() in ("read", "spends money", "destroys", "runs commands")
                    for c in shown(chat, ToolCard)),
        timeout=5000,
    )  # fmt: skip
    summaries = {c.name.text(): c.summary.text() for c in shown(chat, ToolCard)}
    assert summaries["create_cluster"].startswith(f"rented {cluster.name} (")
    assert summaries["release_cluster"] == f"released {cluster.name} (released)"
    assert summaries["plan"].startswith("plan ") and "options, best" in summaries["plan"]
