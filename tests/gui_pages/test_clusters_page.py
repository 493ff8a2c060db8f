"""The Clusters page on the simulated cloud: plan -> rent -> the cluster appears with each
node's bootstrap -> release -> billing stops; the manual Rent dialog; Release rejected; the
idle countdown and idle release; host-key prompts against a real OpenSSH server."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from tests.gui_pages.conftest import (
    LORA_13B,
    LoopWatchdog,
    MakeWindow,
    pause,
    settle,
    wait_for,
)
from xyclaw.config import load_config
from xyclaw.engine import Engine
from xyclaw.engine.compose import build_engine
from xyclaw.engine.lifecycle import UpRequest
from xyclaw.gui.clusters_page import BOOT_STEPS, ClustersPage, key_fingerprint, ssh_alias
from xyclaw.gui.formatting import money
from xyclaw.gui.main_window import MainWindowController
from xyclaw.gui.plan_page import PlanPage
from xyclaw.paths import AppPaths

pytestmark = pytest.mark.gui


def pages(ctl: MainWindowController) -> tuple[PlanPage, ClustersPage]:
    plan, clusters = ctl.page_widgets["plan"], ctl.page_widgets["clusters"]
    assert isinstance(plan, PlanPage) and isinstance(clusters, ClustersPage)
    return plan, clusters


def only_cluster(page: ClustersPage) -> int:
    assert len(page.records) == 1, page.records
    return next(iter(page.records))


def state_of(page: ClustersPage) -> str:
    return page.cell(only_cluster(page), "State") if len(page.records) == 1 else ""


def test_plan_rent_approve_then_the_cluster_appears_with_node_progress_and_release_stops_billing(
    qtbot: QtBot, make_window: MakeWindow, sim_engine: Engine, loop_watchdog: LoopWatchdog
) -> None:
    ctl = make_window(sim_engine)
    plan, page = pages(ctl)
    qtbot.waitUntil(lambda: ctl.status.snapshot is not None, timeout=30000)
    gc.collect()
    loop_watchdog.start()
    assert page.loaded and page.table.rowCount() == 0
    assert "nothing live" in page.summary.text()

    loop_watchdog.phase = "plan"
    ctl.show_page("plan")
    plan.set_values(**LORA_13B)
    with qtbot.waitSignal(plan.planned, timeout=60000):
        qtbot.mouseClick(plan.plan_button, Qt.MouseButton.LeftButton)
    loop_watchdog.phase = "quote"
    qtbot.mouseClick(plan.rent_buttons[0], Qt.MouseButton.LeftButton)
    wait_for(qtbot, lambda: plan.rent_flow.dialog is not None)
    quote = plan.rent_flow.quote

    loop_watchdog.phase = "approve and rent"
    ctl.show_page("clusters")
    states: list[str] = []
    page.records_shown.connect(lambda: states.append(state_of(page)))
    qtbot.mouseClick(plan.rent_flow.dialog.card.approve_button, Qt.MouseButton.LeftButton)
    wait_for(qtbot, lambda: state_of(page) == "ready", timeout=120000)
    cid = only_cluster(page)
    record = page.records[cid]
    # The row followed the cluster's events: it was shown before it was ready.
    assert states and states[0] in ("requested", "provisioning", "bootstrapping"), states
    assert page.cell(cid, "GPUs") == f"{quote.gpu_count} × {quote.gpu}"
    assert page.cell(cid, "Region") == quote.region
    # The rate shows once the nodes' running state has been read back (on the worker).
    rate = f"{money(quote.price_per_hour_micros, 'CNY')}/h"
    wait_for(qtbot, lambda: page.cell(cid, "Per hour") == rate)
    assert page.cell(cid, "Budget").endswith("of 500 CNY")

    # Per node: state, endpoint, alias and every bootstrap step with what it found.
    wait_for(qtbot, lambda: page.node_cell(0, "Bootstrap").startswith("✓ all"))
    record = page.records[cid]  # as shown now, its nodes' endpoints read back
    node = record.nodes[0]
    assert page.node_cell(0, "State") == "running"
    assert page.node_cell(0, "SSH endpoint") == f"root@127.0.0.1:{node.ssh_port}"
    assert page.node_cell(0, "ssh alias") == ssh_alias(record, node) == f"{record.name}-0"
    details = page.node_details.toPlainText()
    for step in BOOT_STEPS:
        assert f"{step}:" in details
    assert "CUDA" in details and "SSH answers" in details
    assert f"-p {node.ssh_port} root@127.0.0.1" in details
    assert f"Host {record.name}-0" in details and f"Port {node.ssh_port}" in details
    fingerprint = key_fingerprint(node.host_key)
    assert fingerprint is not None and fingerprint.split()[1] in details
    assert page.copy_ssh_config().startswith(f"Host {record.name}-0\n")

    # The clock columns move with no event: cost so far grows while it bills.
    loop_watchdog.phase = "billing"
    first = page.cell(cid, "Cost so far")
    wait_for(qtbot, lambda: page.cell(cid, "Cost so far") != first, timeout=10000)
    assert page.cell(cid, "Uptime") != "–"
    with loop_watchdog.paused():
        assert sim_engine.spend().rate_per_hour == {"CNY": quote.price_per_hour_micros}

    loop_watchdog.phase = "release"
    qtbot.mouseClick(page.release_button, Qt.MouseButton.LeftButton)
    wait_for(qtbot, lambda: page.release_dialog is not None)
    confirm = page.release_dialog
    assert confirm.card.effect == "destroy"
    stops = confirm.card.facts["Stops billing"].text()
    assert f"{money(quote.price_per_hour_micros, 'CNY')}/h" in stops and "so far" in stops
    lost = confirm.card.facts["What is lost"].text()
    assert "disks" in lost and f"{record.name}-0" in lost
    qtbot.mouseClick(confirm.card.approve_button, Qt.MouseButton.LeftButton)
    wait_for(qtbot, lambda: state_of(page) == "released", timeout=60000)
    assert page.cell(cid, "Per hour") == "stopped"
    assert not page.release_button.isEnabled() and not page.tune_button.isEnabled()
    wait_for(qtbot, lambda: page.node_cell(0, "State") == "terminated")
    stopped_at = page.cell(cid, "Cost so far")
    pause(qtbot, 1.5)
    assert page.cell(cid, "Cost so far") == stopped_at
    assert "nothing billing" in page.summary.text()
    with loop_watchdog.paused():
        assert sim_engine.spend().rate_per_hour == {}
        assert sim_engine.cluster(str(cid)).state == "released"
    settle(qtbot, ctl)


def test_manual_rent_dialog_quotes_then_approves_and_a_rejected_release_keeps_the_cluster(
    qtbot: QtBot, make_window: MakeWindow, sim_engine: Engine
) -> None:
    offer = next(o for o in sim_engine.offers() if o.gpus_per_node == 8 and not o.price_assumed)
    ctl = make_window(sim_engine)
    _plan, page = pages(ctl)
    ctl.show_page("clusters")
    qtbot.mouseClick(page.rent_button, Qt.MouseButton.LeftButton)
    wait_for(qtbot, lambda: page.rent_dialog is not None)
    dialog = page.rent_dialog
    assert dialog.dialog.isVisible()
    assert dialog.provider.findData("sim") >= 0

    # A budget the planner's parser refuses is shown at the field; nothing is quoted.
    dialog.set_values(provider="sim", gpu=offer.gpu, count=8, region=offer.region, budget="lots")
    qtbot.mouseClick(dialog.quote_button, Qt.MouseButton.LeftButton)
    assert "not an amount" in dialog.budget_error.text() and dialog.budget_error.isVisibleTo(
        dialog.dialog
    )
    assert page.rent_flow.quote is None

    # What no offer has: the engine's answer, in the dialog.
    dialog.set_values(count=3, budget="200")
    qtbot.mouseClick(dialog.quote_button, Qt.MouseButton.LeftButton)
    wait_for(qtbot, lambda: dialog.error.isVisibleTo(dialog.dialog), timeout=30000)
    assert "3 x" in dialog.error.text() and dialog.dialog.isVisible()

    dialog.set_values(count=8)
    qtbot.mouseClick(dialog.quote_button, Qt.MouseButton.LeftButton)
    wait_for(qtbot, lambda: page.rent_flow.dialog is not None, timeout=30000)
    assert not dialog.dialog.isVisible()
    approval = page.rent_flow.dialog
    quote = page.rent_flow.quote
    assert (quote.gpu, quote.gpu_count, quote.region) == (offer.gpu, 8, offer.region)
    assert approval.card.facts["Budget"].text().startswith("200.00 CNY")
    assert "CNY/h" in approval.card.facts["Price"].text()
    qtbot.mouseClick(approval.card.approve_button, Qt.MouseButton.LeftButton)
    wait_for(qtbot, lambda: state_of(page) == "ready", timeout=120000)
    cid = only_cluster(page)
    assert page.records[cid].budget_micros == 200_000_000

    qtbot.mouseClick(page.release_button, Qt.MouseButton.LeftButton)
    wait_for(qtbot, lambda: page.release_dialog is not None)
    qtbot.mouseClick(page.release_dialog.card.reject_button, Qt.MouseButton.LeftButton)
    settle(qtbot, ctl)
    pause(qtbot, 0.5)
    assert state_of(page) == "ready" and page.cell(cid, "Per hour").endswith("CNY/h")
    assert sim_engine.cluster(str(cid)).state == "ready"
    assert sim_engine.spend().rate_per_hour == {"CNY": quote.price_per_hour_micros}

    # Tune: an operation in the panel, and its decision said when it ends.
    said: list[str] = []
    page.message.connect(said.append)
    assert page.tune_button.isEnabled()
    qtbot.mouseClick(page.tune_button, Qt.MouseButton.LeftButton)
    wait_for(qtbot, lambda: any(v.title.startswith("tune") for v in ctl.operations.views.values()))
    record = page.records[cid]
    wait_for(qtbot, lambda: any(s.startswith(f"{record.name}: ") for s in said), timeout=120000)
    wait_for(
        qtbot,
        lambda: (
            [v.state for v in ctl.operations.views.values() if v.title.startswith("tune")]
            == ["succeeded"]
        ),
    )
    settle(qtbot, ctl)
    sim_engine.down(str(cid)).result(60)
    wait_for(qtbot, lambda: state_of(page) == "released", timeout=30000)


@pytest.fixture
def idle_engine(xyclaw_home: Path) -> Iterator[Engine]:
    """The simulated cloud with idle release after 6 s (warned 2 s before)."""
    from xyclaw.sim.cloud import launcher

    paths = AppPaths.from_environment()
    environ = {"XYCLAW_SIM_PROVISION_DELAY_S": "0", "XYCLAW_BILLING_IDLE_RELEASE_MINUTES": "0.1"}
    engine = build_engine(paths, load_config(paths.config_file, environ=environ))
    yield engine
    engine.close()
    launcher.stop(paths.data_dir / "sim")


def test_idle_countdown_after_the_guards_warning_then_idle_release(
    qtbot: QtBot, make_window: MakeWindow, idle_engine: Engine
) -> None:
    offer = next(o for o in idle_engine.offers() if o.gpus_per_node == 8)
    quote = idle_engine.quote_request(UpRequest("sim", offer.gpu, 8, region=offer.region))
    cluster = idle_engine.up(quote).result(120)
    ctl = make_window(idle_engine)
    _plan, page = pages(ctl)
    ctl.show_page("clusters")
    wait_for(qtbot, lambda: state_of(page) == "ready")
    assert page.cell(cluster.id, "Idle release") == "–"
    # What the column says the moment each idle notice has reached the page.
    shown: list[tuple[str, str]] = []
    ctl.bridge.notice.connect(
        lambda n: (
            shown.append((n.message, page.cell(cluster.id, "Idle release")))
            if n.kind == "idle"
            else None
        )
    )
    stop = threading.Event()

    def guard() -> None:  # the engine's minute tick, every half second
        while not stop.is_set():
            idle_engine.tick()
            stop.wait(0.5)

    ticker = threading.Thread(target=guard)
    ticker.start()
    try:
        wait_for(qtbot, lambda: shown, timeout=30000)
        warning, column = shown[0]
        assert "will be released in" in warning
        assert column.startswith("in 0:0"), shown
        wait_for(
            qtbot,
            lambda: (
                page.cell(cluster.id, "Idle release") == "releasing (idle)"
                or state_of(page) == "released"
            ),
            timeout=30000,
        )
        wait_for(qtbot, lambda: state_of(page) == "released", timeout=60000)
    finally:
        stop.set()
        ticker.join()
    assert page.cell(cluster.id, "Per hour") == "stopped"
    settle(qtbot, ctl)
