"""Launching from the chat with no cluster (issue 28, item 1): a sample spec that rents its own
cluster gives one approval card with the quote (cost, nodes), and after Approve the job runs
and its progress is followed in the chat;
a sample named loosely ("the lora example") is resolved, or refused with the samples listed,
before any card is shown."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

pytest.importorskip("PySide6")

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from tests.gui.conftest import MakeWindow
from tests.gui.test_zh_chat_cards import approve, ask, card_waiting, shown
from xyclaw.agent.runtime import AgentRuntime
from xyclaw.engine import Engine
from xyclaw.gui import i18n
from xyclaw.gui.app import build_runtime
from xyclaw.gui.chat.approval import ApprovalCard
from xyclaw.gui.chat.blocks import JobProgressBlock, MessageBlock, ToolCard
from xyclaw.store import Store

pytestmark = pytest.mark.slow


@pytest.fixture
def runtime(sim_engine: Engine, history_store: Store) -> Iterator[AgentRuntime]:
    rt = build_runtime(sim_engine, history_store)
    yield rt
    rt.close()


def _texts(chat) -> str:  # type: ignore[no-untyped-def]
    parts = [b.body.toPlainText() for b in shown(chat, MessageBlock)]
    parts += [f"{c.name.text()} {c.summary.text()}" for c in shown(chat, ToolCard)]
    return "\n".join(parts)


def facts(card: ApprovalCard) -> str:
    return "\n".join(f"{k}: {v.text()}" for k, v in card.facts.items())


def test_launch_a_renting_sample_shows_its_quote_and_runs_after_approve(
    qtbot: QtBot, make_window: MakeWindow, sim_engine: Engine, runtime: AgentRuntime
) -> None:
    ctl = make_window(sim_engine, runtime)
    ctl.window.resize(1400, 1000)
    chat = ctl.chat
    qtbot.waitUntil(lambda: chat.runtime is not None and chat.composer.isEnabled(), timeout=30000)
    assert sim_engine.clusters() == []

    ask(qtbot, chat, "launch skypilot-ddp on 2 nodes")  # the shortest path
    card = card_waiting(qtbot, chat, "spend")
    quote = sim_engine.launch_quote("skypilot-ddp")
    shown_text = card.title.text() + "\n" + facts(card)
    assert "skypilot-ddp" in card.title.text()
    assert f"{quote.nodes} nodes × {quote.gpus_per_node}" in card.facts["What"].text()
    total = f"{quote.estimated_total_micros / 1e6:,.2f}"
    per_hour = f"{quote.price_per_hour_micros / 1e6:,.2f}"
    assert per_hour in shown_text, shown_text
    assert total in shown_text, shown_text
    assert "Nodes -" not in shown_text
    # A launch that rents still names what XyClaw adds to the job and which secrets it
    # sends (issues 34 and 31), as a launch on a cluster does
    assert "Flight Recorder" in card.facts["XyClaw adds"].text()
    assert card.facts["Sends"].text().startswith("Sends ")
    assert len([c for c in shown(chat, ApprovalCard) if c.decision is None]) == 1

    approve(qtbot, chat, card)
    qtbot.waitUntil(lambda: bool(sim_engine.jobs(include_finished=True)), timeout=60000)
    [job] = sim_engine.jobs(include_finished=True)
    assert job.name == "qwen7b-lora-sky"  # the spec's own name
    qtbot.waitUntil(
        lambda: sim_engine.job(str(job.id)).state in ("running", "succeeded"), timeout=120000
    )
    [cluster] = sim_engine.clusters()
    assert cluster.gpu_count == quote.gpu_count
    # the job's progress in the chat, below the launch: its state, step of the total, loss
    qtbot.waitUntil(lambda: len(shown(chat, JobProgressBlock)) == 1, timeout=30000)
    [line] = shown(chat, JobProgressBlock)
    qtbot.waitUntil(lambda: line.bar.maximum() > 0 and "%)" in line.text(), timeout=120000)
    assert line.text().startswith("qwen7b-lora-sky: running · "), line.text()
    first = line.bar.value()
    total = sim_engine.job(str(job.id)).progress.total_steps
    assert total and line.bar.maximum() == total and f"/ {i18n.number(total)} (" in line.text()
    qtbot.waitUntil(lambda: line.bar.value() > first, timeout=60000)  # it follows the job
    said = _texts(chat)
    assert "CLI:" not in said and "Engine:" not in said and "quote=" not in said


def test_the_lora_example_is_resolved_before_any_card(
    qtbot: QtBot, make_window: MakeWindow, sim_engine: Engine, runtime: AgentRuntime
) -> None:
    ctl = make_window(sim_engine, runtime)
    chat = ctl.chat
    qtbot.waitUntil(lambda: chat.runtime is not None and chat.composer.isEnabled(), timeout=30000)

    ask(qtbot, chat, "run the lora example")
    card = card_waiting(qtbot, chat, "spend")
    assert "lora-2node" in card.title.text()
    assert card.facts["Spec"].text() == "lora-2node"


def test_an_unknown_sample_is_refused_with_the_samples_listed_and_no_card(
    qtbot: QtBot, make_window: MakeWindow, sim_engine: Engine, runtime: AgentRuntime
) -> None:
    ctl = make_window(sim_engine, runtime)
    chat = ctl.chat
    qtbot.waitUntil(lambda: chat.runtime is not None and chat.composer.isEnabled(), timeout=30000)

    ask(qtbot, chat, "launch mnist.yaml")
    qtbot.waitUntil(lambda: not chat.busy, timeout=60000)
    assert not shown(chat, ApprovalCard)
    said = _texts(chat)
    for name in ("plain-python", "skypilot-ddp", "lora-2node"):
        assert name in said, said


def test_the_two_node_lora_sample_asks_for_hf_token_in_the_chat_then_runs(
    qtbot: QtBot,
    make_window: MakeWindow,
    sim_engine: Engine,
    runtime: AgentRuntime,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 28, item 2: the bundled 2-node sample's HF_TOKEN is asked for in the window (the
    card names it; Approve asks for its value, hidden, kept in the keyring), then it runs."""
    from xyclaw.gui.job_launch import SecretValuesDialog
    from xyclaw.secrets import job_secret_name

    monkeypatch.delenv("HF_TOKEN", raising=False)
    ctl = make_window(sim_engine, runtime)
    ctl.window.resize(1400, 1000)
    chat = ctl.chat
    qtbot.waitUntil(lambda: chat.runtime is not None and chat.composer.isEnabled(), timeout=30000)

    ask(qtbot, chat, "run the lora example")
    card = card_waiting(qtbot, chat, "spend")
    assert card.facts["Spec"].text() == "lora-2node"
    assert card.facts["Asks you for"].text() == "HF_TOKEN"
    qtbot.mouseClick(card.approve_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(
        lambda: (
            isinstance(chat.secrets_dialog, SecretValuesDialog) and chat.secrets_dialog.isVisible()
        ),
        timeout=30000,
    )
    dialog = chat.secrets_dialog
    assert isinstance(dialog, SecretValuesDialog)
    assert card.decision is None and sim_engine.clusters() == []  # nothing rented yet
    field = dialog.fields["HF_TOKEN"]
    assert field.echoMode() == field.EchoMode.Password
    qtbot.keyClicks(field, "hf_value_typed_in_the_chat_0042")
    dialog.save_button.click()

    qtbot.waitUntil(lambda: card.decision == "approve", timeout=30000)
    qtbot.waitUntil(lambda: bool(sim_engine.jobs(include_finished=True)), timeout=120000)
    [job] = sim_engine.jobs(include_finished=True)
    assert job.name == "qwen7b-lora"
    qtbot.waitUntil(
        lambda: sim_engine.job(str(job.id)).state in ("running", "succeeded"), timeout=120000
    )
    assert sim_engine.secrets.get(job_secret_name("HF_TOKEN")) == "hf_value_typed_in_the_chat_0042"
    qtbot.waitUntil(lambda: not chat.busy, timeout=180000)
    said = _texts(chat)
    assert "HF_TOKEN must be set" not in said and "hf_value_typed" not in said
