"""The first run, in a real (offscreen) window on a fresh XYCLAW_HOME: the welcome on the
chat says what works with no account, offers the example requests in English and Chinese,
"Take the tour" and "Skip", and is remembered once left; the tour plays plan -> approve ->
rent -> tune -> launch -> watch -> release -> history on the simulated cloud with the rules
agent, and nothing that spends, runs or releases happens before the user clicks Approve."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

import pytest

pytest.importorskip("PySide6")

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QPushButton
from pytestqt.qtbot import QtBot

from tests.gui.conftest import MakeWindow
from xyclaw.agent.runtime import AgentRuntime
from xyclaw.engine import Engine
from xyclaw.gui.app import build_runtime
from xyclaw.gui.chat.approval import ApprovalCard
from xyclaw.gui.chat.blocks import PlanCard
from xyclaw.gui.main_window import MainWindowController
from xyclaw.gui.pages import PAGES
from xyclaw.gui.tour import FIRST_RUN_FILE, STEPS, Tour, WelcomeBox
from xyclaw.store import Store

pytestmark = pytest.mark.gui


def welcome_of(qtbot: QtBot, ctl: MainWindowController) -> WelcomeBox:
    qtbot.waitUntil(lambda: bool(ctl.chat.example_chips), timeout=30000)
    [box] = ctl.chat.examples.findChildren(WelcomeBox)
    qtbot.waitUntil(box.isVisible, timeout=5000)
    return box


def page_now(ctl: MainWindowController) -> str:
    return PAGES[ctl.navigation.currentRow()].key


def test_first_run_welcome_then_skip_is_remembered(
    qtbot: QtBot, make_window: MakeWindow, local_engine: Engine, history_store: Store
) -> None:
    runtime = build_runtime(local_engine, history_store)
    try:
        ctl = make_window(local_engine, runtime)
        assert page_now(ctl) == "chat"
        box = welcome_of(qtbot, ctl)
        assert box.intro.isVisible() and box.skip_button.isVisible()
        assert box.tour_button.isVisible() and box.tour_button.text() == "Take the tour"
        intro = box.intro.text()
        assert "no account" in intro and "simulated GPU cloud" in intro and "rules agent" in intro
        chips = [chip.text() for chip in ctl.chat.example_chips]
        assert any(re.search(r"[A-Za-z]{4}", c) for c in chips)
        assert any(re.search(r"[\u4e00-\u9fff]", c) for c in chips)
        state = local_engine.paths.state_dir / FIRST_RUN_FILE
        assert not state.exists()

        qtbot.mouseClick(box.skip_button, Qt.MouseButton.LeftButton)
        assert not box.intro.isVisible() and not box.skip_button.isVisible()
        assert box.tour_button.isVisible()  # the tour stays on offer
        assert json.loads(state.read_text())["welcome"] == "skipped"
        assert runtime.conversations() == []  # skipping made nothing

        # The next start (a new window on the same data): no first-run welcome.
        again = make_window(local_engine, runtime)
        box2 = welcome_of(qtbot, again)
        assert not box2.intro.isVisible() and not box2.skip_button.isVisible()
        assert box2.tour_button.isVisible()
    finally:
        runtime.close()


@pytest.fixture
def runtime(sim_engine: Engine, history_store: Store) -> Iterator[AgentRuntime]:
    rt = build_runtime(sim_engine, history_store)
    yield rt
    rt.close()


def approve_when_asked(qtbot: QtBot, ctl: MainWindowController, tour: Tour, effect: str) -> None:
    """Wait for the step's approval card, check nothing happened yet is the caller's job."""
    qtbot.waitUntil(lambda: tour.state == "approve", timeout=60000)
    assert "Approve" in tour.panel.status.text()
    assert not tour.panel.next_button.isVisible()  # the tour cannot approve for you
    assert tour.pending is not None
    approval_id = tour.pending.approval_id
    qtbot.waitUntil(lambda: approval_id in ctl.chat.approval_cards, timeout=30000)
    card = ctl.chat.approval_cards[approval_id]
    assert isinstance(card, ApprovalCard) and card.effect == effect
    assert ctl.chat.current == tour.conversation_id
    qtbot.waitUntil(lambda: card.isVisible(), timeout=10000)  # a new card shows on the next loop
    assert card.approve_button.isEnabled() and card.decision is None, card.request.title
    qtbot.mouseClick(card.approve_button, Qt.MouseButton.LeftButton)
    modal = QApplication.activeModalWidget() or QApplication.activePopupWidget()
    assert card.decision == "approve", (
        f"the click on Approve of {card.request.title!r} was not taken"
        f" (modal/popup: {modal!r}, chat busy: {ctl.chat.busy})"
    )
    qtbot.waitUntil(lambda: tour.state != "approve", timeout=60000)


def next_step(qtbot: QtBot, tour: Tour, timeout: int = 120000) -> None:
    qtbot.waitUntil(lambda: tour.state in ("done", "failed"), timeout=timeout)
    assert tour.state == "done", tour.panel.status.text()
    button: QPushButton = tour.panel.next_button
    assert button.isVisible() and button.isEnabled()
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)


@pytest.mark.slow
@pytest.mark.timeout(360)  # 45 s at load 4 on 2 cores; a whole demo flow, not a unit
def test_the_tour_plays_the_demo_flow_and_the_user_approves(
    qtbot: QtBot, make_window: MakeWindow, sim_engine: Engine, runtime: AgentRuntime
) -> None:
    ctl = make_window(sim_engine, runtime)
    tour = ctl.tour
    assert isinstance(tour, Tour)
    box = welcome_of(qtbot, ctl)
    qtbot.mouseClick(box.tour_button, Qt.MouseButton.LeftButton)
    assert tour.dock.isVisible()
    state = sim_engine.paths.state_dir / FIRST_RUN_FILE
    assert json.loads(state.read_text())["welcome"] == "tour"

    # 1. plan: the plan card in the tour's own conversation
    qtbot.waitUntil(lambda: tour.state == "done", timeout=60000)
    assert tour.panel.heading.text().startswith(f"Tour, step 1 of {len(STEPS)}")
    assert [c.title for c in runtime.conversations()] == ["Tour"]
    plans = [w for w in ctl.chat.plan_cards if not w.isHidden()]
    assert plans and isinstance(plans[0], PlanCard) and plans[0].option_count >= 1
    assert sim_engine.clusters() == []
    qtbot.mouseClick(tour.panel.next_button, Qt.MouseButton.LeftButton)

    # 2. rent: the spend card waits for the user; nothing is rented before Approve
    qtbot.waitUntil(lambda: tour.state == "approve", timeout=60000)
    qtbot.wait(300)
    assert sim_engine.clusters() == []
    approve_when_asked(qtbot, ctl, tour, "spend")
    qtbot.waitUntil(lambda: tour.state in ("done", "failed"), timeout=120000)
    assert tour.state == "done", tour.panel.status.text()
    [cluster] = sim_engine.clusters()
    assert cluster.state == "ready" and tour.cluster == cluster.name
    assert page_now(ctl) == "clusters"
    next_step(qtbot, tour)

    # 3. tune (exec), 4. launch (exec): each waits for Approve
    approve_when_asked(qtbot, ctl, tour, "exec")
    next_step(qtbot, tour)
    assert sim_engine.jobs(include_finished=True) == []
    approve_when_asked(qtbot, ctl, tour, "exec")
    qtbot.waitUntil(lambda: tour.state in ("done", "failed"), timeout=120000)
    assert tour.state == "done", tour.panel.status.text()
    assert page_now(ctl) == "monitor" and tour.job
    next_step(qtbot, tour)

    # 5. watch: Next comes back once the job has ended
    assert tour.state == "watching" and not tour.panel.next_button.isVisible()
    assert page_now(ctl) == "monitor"
    qtbot.waitUntil(lambda: tour.state == "done", timeout=180000)
    assert "succeeded" in tour.panel.status.text()
    [job] = sim_engine.jobs(include_finished=True)
    assert str(job.state) == "succeeded"
    assert job.name == "qwen7b-lora-1node"  # the 7B LoRA fine-tune it planned, shortened
    next_step(qtbot, tour)

    # 6. release (destroy): still billing until Approve
    qtbot.waitUntil(lambda: tour.state == "approve", timeout=60000)
    assert sim_engine.cluster(cluster.name).state == "ready"
    approve_when_asked(qtbot, ctl, tour, "destroy")
    next_step(qtbot, tour)
    assert sim_engine.clusters() == []

    # 7. history, then Finish
    assert page_now(ctl) == "history"
    assert tour.panel.next_button.text() == "Finish"
    ended: list[str] = []
    tour.ended.connect(ended.append)
    qtbot.mouseClick(tour.panel.next_button, Qt.MouseButton.LeftButton)
    assert ended == ["finished"] and not tour.dock.isVisible()
    assert json.loads(state.read_text())["tour"] == "finished"


def test_settings_say_what_is_set_up_and_what_is_next(
    qtbot: QtBot, make_window: MakeWindow, local_engine: Engine
) -> None:
    ctl = make_window(local_engine)
    settings = ctl.page_widgets["settings"]
    ctl.show_page("settings")
    status = settings.setup_status
    qtbot.waitUntil(lambda: status.facts is not None, timeout=10000)
    text = status.text()
    assert text.startswith("Set up: the simulated cloud")
    assert "rules agent" in text and "Own hosts tab" in text and "Model tab" in text
    assert "xyclaw secrets set lambda_api_key" in text and "AutoDL" in text

    paths = local_engine.paths
    (paths.config_dir / "hosts.toml").write_text(
        '[[host]]\nname = "gpu1"\nhost = "10.0.0.5"\ngpu = "A100-80G"\ngpus = 8\n'
    )
    local_engine.secrets.set("lambda_api_key", "k-123")
    ctl.show_page("chat")
    ctl.show_page("settings")  # shown again: read again
    qtbot.waitUntil(lambda: "1 machine(s) of your own" in status.text(), timeout=10000)
    assert "keys for lambda" in status.text() and "Own hosts tab" not in status.text()
    assert "Model tab" in status.text()  # still the rules agent
