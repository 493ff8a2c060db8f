"""The main window: pages, the status bar, the operations panel, the tray, closing and
quitting."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

pytest.importorskip("PySide6")

from PySide6.QtCore import Qt
from PySide6.QtGui import QIcon, QTextDocumentFragment
from pytestqt.qtbot import QtBot

from tests.gui.conftest import MakeWindow
from tests.gui.scripted import ScriptedRuntime
from xyclaw.engine import Engine
from xyclaw.engine.lifecycle import UpRequest
from xyclaw.engine.operations import OperationRunner, Progress
from xyclaw.events import AlertRaised, BudgetWarning, EventBus, JobChanged
from xyclaw.gui.bridge import EngineBridge
from xyclaw.gui.host_keys import default_prompter
from xyclaw.gui.operations_panel import OperationsPanel
from xyclaw.gui.pages import PAGES
from xyclaw.gui.tray import TrayController


def test_window_shows_every_section_and_switches_pages(
    qtbot: QtBot, make_window: MakeWindow, local_engine: Engine
) -> None:
    ctl = make_window(local_engine)
    nav = ctl.navigation
    assert [nav.item(i).text() for i in range(nav.count())] == [p.title for p in PAGES]
    ctl.show_page("monitor")
    assert ctl.pages.currentWidget().objectName() == "page_monitor"
    nav.setCurrentRow(1)
    assert ctl.pages.currentWidget().objectName() == "page_plan"
    qtbot.keyClick(ctl.window, Qt.Key.Key_3, Qt.KeyboardModifier.ControlModifier)
    assert ctl.pages.currentWidget().objectName() == "page_clusters"


def test_status_bar_shows_spend_tokens_brain_and_providers(
    qtbot: QtBot, make_window: MakeWindow, local_engine: Engine
) -> None:
    runtime = ScriptedRuntime()
    ctl = make_window(local_engine, runtime)
    status = ctl.status
    qtbot.waitUntil(lambda: status.snapshot is not None, timeout=5000)
    assert status.rate.text() == "Nothing billing"
    assert status.spent.text() == "Today 0.00 CNY"
    assert status.brain.text() == "Brain: scripted"
    shown = QTextDocumentFragment.fromHtml(status.providers.text()).toPlainText()
    assert shown == "● local"  # its dot coloured by the provider's state (rich text)
    assert "local: connected" in status.providers.toolTip()
    assert status.llm.text() == "LLM 0 tokens · 0.0000 USD"
    assert ctl.tray.tooltip == "XyClaw — Nothing billing"

    # A turn's tokens show up once it is done.
    ctl.chat.send("LoRA fine-tune a 13B model on 8 GPUs, budget 500")
    qtbot.waitUntil(lambda: status.llm.text().startswith("LLM 180 tokens"), timeout=5000)
    assert status.llm.text() == "LLM 180 tokens · 0.0004 USD"


def test_operations_panel_shows_per_node_steps_and_cancels(qtbot: QtBot) -> None:
    bus = EventBus()
    bridge = EngineBridge(bus.subscribe)
    runner = OperationRunner(bus)
    panel = OperationsPanel()
    qtbot.addWidget(panel)
    panel.show()
    bridge.operation_progress.connect(panel.on_progress)
    started = threading.Event()

    def rent(progress: Progress) -> str:
        for step in ("ssh", "driver", "gpus"):
            for node in ("n0", "n1"):
                progress.update(f"{node}: {step} ok", 0.1, step=step, subject=node)
        started.set()
        while True:
            progress.check_cancelled()
            progress.update("waiting for the fabric", 0.5)
            time.sleep(0.005)

    handle = runner.start("rent 16 x A800 from sim", rent)
    panel.track(handle)
    qtbot.waitUntil(lambda: handle.id in panel.views and started.is_set(), timeout=3000)
    qtbot.waitUntil(
        lambda: panel.views[handle.id].steps.get("n1", ("",))[0] == "gpus", timeout=3000
    )
    item = panel.tree.topLevelItem(0)
    assert item.text(0) == "rent 16 x A800 from sim"
    assert {item.child(i).text(0) for i in range(item.childCount())} == {"n0", "n1"}
    assert item.child(0).text(1) == "gpus"
    assert panel.summary.text() == "1 running, 0 finished"
    button = panel.cancel_button(handle.id)
    assert button is not None and button.isEnabled()
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: panel.views[handle.id].state == "cancelled", timeout=3000)
    assert handle.done()
    assert item.text(2).startswith("cancelled")
    assert panel.cancel_button(handle.id) is None  # nothing left to cancel
    assert panel.summary.text() == "0 running, 1 finished"
    qtbot.mouseClick(panel.clear_button, Qt.MouseButton.LeftButton)
    assert panel.tree.topLevelItemCount() == 0
    bridge.close()
    runner.close()


def test_the_tray_announces_alerts_budgets_and_finished_jobs(qtbot: QtBot) -> None:
    bus = EventBus()
    bridge = EngineBridge(bus.subscribe)
    tray = TrayController(QIcon(), bridge, available=False)
    got: list = []
    tray.notified.connect(got.append)
    bus.publish(
        AlertRaised(
            event_id=1,
            rule="xid",
            severity="critical",
            message="GPU 3 reported XID 79 (fell off the bus)",
            action="replace the node",
            cluster_id=1,
            node="demo-node1",
        )
    )
    bus.publish(
        BudgetWarning(
            cluster_id=1,
            name="demo",
            spent_micros=410_000_000,
            budget_micros=500_000_000,
            currency="CNY",
        )
    )
    bus.publish(JobChanged(job_id=1, cluster_id=1, name="lora-13b", state="running", previous=None))
    bus.publish(JobChanged(job_id=1, cluster_id=1, name="lora-13b", state="failed", previous="x"))
    qtbot.waitUntil(lambda: len(got) == 3, timeout=3000)
    assert [n.title for n in got] == ["Alert (critical)", "Budget warning", "Job failed"]
    assert (
        got[0].message == "demo-node1: GPU 3 reported XID 79 (fell off the bus) — replace the node"
    )
    assert got[1].message == "demo has spent 410.00 CNY of 500.00 CNY"
    newest = tray.recent_menu.actions()[0].text()
    assert newest.split("  ", 1)[1] == "Job failed: lora-13b failed"
    tray.close()
    bridge.close()


def test_closing_the_window_keeps_the_app_in_the_tray(
    qtbot: QtBot, make_window: MakeWindow, local_engine: Engine
) -> None:
    quits: list[int] = []
    ctl = make_window(local_engine, tray_available=True, on_quit=lambda: quits.append(1))
    ctl.window.close()
    assert not ctl.window.isVisible() and ctl.closed_to_tray
    assert ctl.tray.recent[0].title == "XyClaw is still running"
    qtbot.wait(50)
    assert quits == []
    ctl.tray.show_requested.emit()
    assert ctl.window.isVisible()


def test_closing_without_a_tray_quits_when_nothing_bills(
    qtbot: QtBot, make_window: MakeWindow, local_engine: Engine
) -> None:
    quits: list[int] = []
    ctl = make_window(local_engine, tray_available=False, on_quit=lambda: quits.append(1))
    ctl.window.close()
    qtbot.waitUntil(lambda: quits == [1], timeout=3000)
    assert ctl.quit_flow.dialog is None  # nothing to ask about


def _rent(engine: Engine, gpus: int = 2) -> str:
    quote = engine.quote_request(UpRequest(provider="sim", gpu="A10", gpu_count=gpus))
    return engine.up(quote).result(120).name


@pytest.mark.slow
def test_quit_with_live_clusters_says_what_bills_and_releases_them(
    qtbot: QtBot, make_window: MakeWindow, sim_engine: Engine
) -> None:
    name = _rent(sim_engine)
    quits: list[int] = []
    ctl = make_window(sim_engine, on_quit=lambda: quits.append(1))
    ctl.request_quit()
    qtbot.waitUntil(lambda: ctl.quit_flow.dialog is not None, timeout=5000)
    flow = ctl.quit_flow
    assert flow.dialog.isVisible()
    assert flow.headline.text() == "1 cluster keeps billing after XyClaw quits"
    line = flow.list.item(0).text()
    assert line.startswith(f"{name} — ") and "CNY/h" in line and "ready" in line

    # Cancel keeps everything as it was.
    qtbot.mouseClick(flow.cancel_button, Qt.MouseButton.LeftButton)
    assert not flow.dialog.isVisible() and quits == []

    ctl.request_quit()
    qtbot.waitUntil(lambda: flow.dialog is not None and flow.dialog.isVisible(), timeout=5000)
    qtbot.mouseClick(flow.release_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: quits == [1], timeout=60000)
    assert sim_engine.clusters() == []
    released = sim_engine.cluster(name)
    assert released.state == "released"


@pytest.mark.slow
def test_quit_release_is_bound_to_the_ids_the_dialog_showed(
    qtbot: QtBot, make_window: MakeWindow, sim_engine: Engine
) -> None:
    """The dialog lists keeper (id N); behind it keeper is released and a new keeper rented:
    Release releases nothing, says so, and the new keeper keeps running."""
    quote = sim_engine.quote_request(
        UpRequest(provider="sim", gpu="A10", gpu_count=1, name="keeper")
    )
    old = sim_engine.up(quote).result(120)
    quits: list[int] = []
    ctl = make_window(sim_engine, on_quit=lambda: quits.append(1))
    ctl.request_quit()
    qtbot.waitUntil(lambda: ctl.quit_flow.dialog is not None, timeout=5000)
    flow = ctl.quit_flow
    assert flow.list.item(0).text().startswith("keeper — ")

    sim_engine.down(str(old.id)).result(120)
    again = sim_engine.quote_request(
        UpRequest(provider="sim", gpu="A10", gpu_count=1, name="keeper")
    )
    new = sim_engine.up(again).result(120)
    assert new.id != old.id and new.name == "keeper"

    qtbot.mouseClick(flow.release_button, Qt.MouseButton.LeftButton)
    # refused (Quit anyway offered) or, as before this was bound, released by name and quit
    qtbot.waitUntil(lambda: bool(quits) or flow.keep_button.isEnabled(), timeout=60000)
    assert sim_engine.cluster(str(new.id)).live, "the new keeper was released"
    assert quits == [] and flow.dialog.isVisible()
    assert flow.headline.text().startswith("Nothing was released")
    told = flow.list.item(flow.list.count() - 1).text()
    assert f"id {new.id}" in told and f"id {old.id}" in told, told
    assert not flow.release_button.isEnabled()

    # Asked again, the dialog binds the new keeper, and Release releases it.
    qtbot.mouseClick(flow.cancel_button, Qt.MouseButton.LeftButton)
    ctl.request_quit()
    qtbot.waitUntil(lambda: flow.dialog is not None and flow.dialog.isVisible(), timeout=5000)
    qtbot.waitUntil(lambda: flow.release_button.isEnabled(), timeout=5000)
    qtbot.mouseClick(flow.release_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: quits == [1], timeout=60000)
    assert sim_engine.cluster(str(new.id)).state == "released"


def test_only_the_first_page_is_built_before_the_first_paint_and_the_others_when_shown(
    qtbot: QtBot, make_window: MakeWindow, local_engine: Engine
) -> None:
    from xyclaw.gui.main_window import MainWindowController

    unshown = MainWindowController(local_engine, tray_available=False, on_quit=lambda: None)
    try:
        assert list(unshown.page_widgets) == ["chat"]  # before the first paint: only it
        qtbot.wait(50)
        assert list(unshown.page_widgets) == ["chat"]  # never drawn: nothing more
    finally:
        unshown.quit_now()
    ctl = make_window(local_engine)
    assert ctl.pages.currentWidget() is ctl.chat and ctl.chat.composer.isVisible()
    # the Clusters page keeps this session's events (bootstrap steps, host-key questions):
    # it is built after the first paint, shown or not; the others wait to be shown
    qtbot.waitUntil(lambda: "clusters" in ctl.page_widgets, timeout=5000)
    assert ctl.pages.currentWidget() is ctl.chat
    assert sorted(ctl.page_widgets) == ["chat", "clusters"]
    assert default_prompter().attached
    assert ctl.pages.count() == len(PAGES)
    qtbot.keyClick(ctl.window, Qt.Key.Key_4, Qt.KeyboardModifier.ControlModifier)
    jobs = ctl.page_widgets["jobs"]
    assert ctl.pages.currentWidget() is jobs and jobs.objectName() == "page_jobs"
    assert jobs.isVisible() and ctl.pages.indexOf(jobs) == 3
    # A page asked for by another (History's "Launch again" wants the Jobs page) is built
    # then, in its place, without being shown.
    history = ctl.context.pages.get("history")
    assert history is not None and ctl.pages.indexOf(history) == 5
    assert ctl.pages.currentWidget() is jobs
    ctl.show_page("history")
    assert ctl.pages.currentWidget() is history  # the same one, not built twice
    assert sorted(ctl.page_widgets) == ["chat", "clusters", "history", "jobs"]
    assert ctl.context.pages.get("nothing") is None


def test_after_first_paint_runs_once_the_window_was_drawn(qtbot: QtBot) -> None:
    from PySide6.QtWidgets import QLabel

    from xyclaw.gui.first_paint import after_first_paint

    window = QLabel("drawn")
    qtbot.addWidget(window)
    calls: list[bool] = []
    after_first_paint(window, lambda: calls.append(window.isVisible()))
    qtbot.wait(50)
    assert calls == []  # not shown: not drawn
    window.show()
    qtbot.waitUntil(lambda: calls == [True], timeout=5000)
    window.update()
    qtbot.wait(50)
    assert calls == [True]  # once


@pytest.mark.slow
def test_a_cluster_rented_in_the_window_is_watched_before_the_monitor_page_is_built(
    qtbot: QtBot, make_window: MakeWindow, sim_engine: Engine
) -> None:
    # Samples, alerts and their tray notices start with the cluster: not when the Monitor
    # page is first shown (it is built lazily), nor at the next maintenance pass (none
    # runs here; in the app it comes once a minute).
    ctl = make_window(sim_engine)
    quote = sim_engine.quote_request(UpRequest(provider="sim", gpu="A10", gpu_count=2))
    rent = sim_engine.up(quote)
    qtbot.waitUntil(rent.done, timeout=120000)
    name = rent.result().name
    assert "monitor" not in ctl.page_widgets

    def saved() -> list[dict[str, Any]]:
        return list(sim_engine.export_metrics("gpu", cluster=name).rows)

    # Collected every second and saved at the next flush (10 s): never without a watch.
    qtbot.waitUntil(lambda: len(saved()) > 0, timeout=60000)
    assert "monitor" not in ctl.page_widgets
    rows = saved()
    ready_at = sim_engine.cluster(name).ready_at
    assert ready_at is not None
    # from the start: the first sample soon after the cluster was ready (the maintenance
    # pass would come up to a minute later), from both nodes' GPUs
    first_s = min(row["ts_ms"] for row in rows) / 1000
    assert first_s - ready_at < 20, f"first sample {first_s - ready_at:.1f} s after ready"
    assert {row["node"] for row in rows} == {n.name for n in sim_engine.cluster(name).nodes}
