"""The Jobs page against the real job runtime: simulated GPU nodes over real SSH on loopback
(and the simulated cloud for a spec that rents), offscreen Qt.

A spec launched from its file runs on a 2-node cluster while the page follows it: the list
shows its state, attempt and progress, the detail its progress bar, loss and throughput
curves and the log as it grows (filtered by node and rank, searched); "Launch again" starts
the same spec. A broken spec is shown at its line and launches nothing. Cancel asks first.
A spec that rents goes through the quote and the approval card: rejected, nothing is rented.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from tests.gui_jobs.conftest import MakePage, wait
from tests.jobs_runtime.conftest import MakeCluster
from tests.jobs_runtime.helpers import finished, train_spec
from xyclaw.engine import Engine
from xyclaw.gui.job_launch import RENT, LaunchDialog, SpecErrorDialog
from xyclaw.gui.jobs_page import JobsPage
from xyclaw.records.jobs import JobState

pytestmark = pytest.mark.gui

COLUMN = {"state": 3, "cluster": 4, "attempt": 5, "progress": 6, "cost": 8}


def _launch_dialog(qtbot: QtBot, page: JobsPage) -> LaunchDialog:
    wait(qtbot, lambda: page.launch_flow.dialog is not None and page.launch_flow.dialog.isVisible())
    dialog = page.launch_flow.dialog
    assert dialog is not None
    return dialog


def test_a_job_launched_from_its_spec_file_is_followed_live_and_can_be_launched_again(
    engine: Engine, make_cluster: MakeCluster, make_page: MakePage, qtbot: QtBot, tmp_path: Path
) -> None:
    cluster = make_cluster(nodes=2, gpus_per_node=2, time_scale=0.05)
    train_spec(
        tmp_path / "spec",
        "lora-gui",
        steps=120,
        save_every=40,
        model="llama-0.5b",
        # each rank prints one line of its own (and no step-time lines: the timing hook off)
        extra='env:\n  XYCLAW_SIM_PRINT_ENV: "1"\n  XYCLAW_STEP_TIMES: "0"\n',
    )
    page = make_page(engine)
    wait(qtbot, lambda: page._loaded_once)
    assert page.list_stack.currentWidget() is page.empty  # no jobs yet: the page says how

    appended: list[int] = []
    page.log_appended.connect(appended.append)
    page.launch_from_file(tmp_path / "spec" / "job.yaml")
    dialog = _launch_dialog(qtbot, page)
    assert dialog.choice == cluster.name  # the one ready cluster; this spec rents nothing
    assert "lora-gui" in dialog.summary.text()
    dialog.launch_button.click()

    job_id = wait_value(qtbot, lambda: next((j.id for j in page.records), None))
    wait(qtbot, lambda: page.selected_id == job_id)  # a launched job is shown at once
    wait(qtbot, lambda: page.cell(job_id, COLUMN["state"]) == "running", 60_000)
    assert page.cell(job_id, COLUMN["cluster"]) == cluster.name
    assert page.cell(job_id, COLUMN["attempt"]) == "1"
    # progress moves in the list and the detail while it runs, without a click
    wait(qtbot, lambda: " / 120 " in page.cell(job_id, COLUMN["progress"]), 60_000)
    wait(qtbot, lambda: page.progress.maximum() == 120 and page.progress.value() > 0)
    first = page.progress.value()
    wait(qtbot, lambda: page.progress.value() > first, 60_000)
    wait(qtbot, lambda: min(page.curve_points()) >= 2, 60_000)
    low, high = page.rate_plot.viewRange()[1]  # throughput drawn from zero, not its noise
    assert low == 0.0 and high >= max(page.rate_curve.getData()[1])
    # the log follows: lines arrive after the first read
    wait(qtbot, lambda: sum(appended) > 0, 60_000)
    assert any("node0" in line for line in page.shown_log())

    done = finished(engine, job_id, 120)
    assert done.state is JobState.SUCCEEDED
    wait(qtbot, lambda: page.cell(job_id, COLUMN["state"]) == "succeeded", 30_000)
    wait(qtbot, lambda: page.progress.value() == page.progress.maximum() == 120)
    assert page.cell(job_id, COLUMN["cost"]) != ""
    assert not page.cancel_button.isEnabled()  # nothing to cancel once it ended
    assert page.attempts.rowCount() == 1
    assert page.attempts.item(0, 1).text() == "succeeded"

    # filters: one node's lines only, then one rank's, then a search within them
    wait(qtbot, lambda: page.log_node.count() == 3)  # all nodes + the two nodes
    node1 = page.log_node.itemData(2)
    page.log_node.setCurrentIndex(2)
    wait(qtbot, lambda: page.shown_log() and all(f"[{node1}" in ln for ln in page.shown_log()))
    logs = engine.job_logs(str(job_id), node=node1)
    assert len(page.lines) == min(len(logs), 3000)
    ranks = sorted({ln.rank for ln in logs if ln.rank is not None})
    page.log_rank.setValue(ranks[-1])
    wait(qtbot, lambda: page.lines and all(ln.rank == ranks[-1] for ln in page.lines))
    page.log_search.setText(f"RANK={ranks[-1]} ")
    assert len(page.shown_log()) == 1 and f"RANK={ranks[-1]} " in page.shown_log()[0]
    page.log_search.setText("no such text in any line")
    assert page.shown_log() == []

    # Launch again: the same spec, the same cluster preselected
    page.launch_again()
    again = _launch_dialog(qtbot, page)
    assert again is not dialog and again.choice == cluster.name
    assert again.plan.spec.name == "lora-gui" and again.plan.source.startswith(f"job {job_id}")
    again.launch_button.click()
    wait(qtbot, lambda: len(page.records) == 2, 60_000)
    second = max(j.id for j in page.records)
    assert engine.job(str(second)).name == "lora-gui"
    finished(engine, second, 120)


def wait_value(qtbot: QtBot, probe, timeout: int = 60_000):  # type: ignore[no-untyped-def]
    found: list[object] = []

    def check() -> bool:
        value = probe()
        if value is not None:
            found.append(value)
            return True
        return False

    qtbot.waitUntil(check, timeout=timeout)
    return found[-1]


def test_a_broken_spec_is_shown_at_its_line_and_launches_nothing(
    engine: Engine, make_cluster: MakeCluster, make_page: MakePage, qtbot: QtBot, tmp_path: Path
) -> None:
    make_cluster(nodes=1, gpus_per_node=1)
    spec = tmp_path / "broken.yaml"
    spec.write_text("name: broken\nrun: python train.py\nrecovery:\n  max_restarts: many\n")
    page = make_page(engine)
    page.launch_from_file(spec)
    wait(qtbot, lambda: page.launch_flow.error_dialog is not None)
    dialog = page.launch_flow.error_dialog
    assert isinstance(dialog, SpecErrorDialog) and dialog.isVisible()
    assert dialog.marked_line == 4
    assert "broken.yaml:4" in dialog.message.text() and "max_restarts" in dialog.message.text()
    assert dialog.text.textCursor().blockNumber() == 3  # the cursor sits on the line at fault
    assert "Line 4" in dialog.where.text()
    assert page.error.isVisible() and "max_restarts" in page.error.text()
    assert page.launch_flow.dialog is None
    assert engine.jobs(include_finished=True) == []


def test_cancel_asks_first_and_then_stops_the_job_on_every_node(
    engine: Engine, make_cluster: MakeCluster, make_page: MakePage, qtbot: QtBot, tmp_path: Path
) -> None:
    cluster = make_cluster(nodes=2, gpus_per_node=1, time_scale=0.2)
    spec = train_spec(tmp_path, "long", steps=100_000, save_every=1000, model="llama-0.5b")
    job = engine.launch(spec, cluster=cluster.name).result(60)
    page = make_page(engine)
    wait(qtbot, lambda: page.row_of(job.id) is not None)
    page.select_job(job.id)
    wait(qtbot, lambda: page.detail is not None and page.cancel_button.isEnabled())

    page.cancel_button.click()
    dialog = page.cancel_dialog
    assert dialog is not None and dialog.dialog.isVisible()
    facts = " ".join(label.text() for label in dialog.card.facts.values())
    assert "long" in facts and cluster.name in facts
    dialog.card.reject_button.click()
    wait(qtbot, lambda: "Kept long running" in page.notice.text())
    assert engine.job(str(job.id)).state is JobState.RUNNING

    page.cancel_button.click()
    assert page.cancel_dialog is not dialog
    page.cancel_dialog.card.approve_button.click()  # type: ignore[union-attr]
    wait(qtbot, lambda: engine.job(str(job.id)).state is JobState.CANCELLED, 60_000)
    wait(qtbot, lambda: page.cell(job.id, COLUMN["state"]) == "cancelled", 30_000)
    assert not page.cancel_button.isEnabled()


RENTING = """name: rented-gui
resources: {gpu: A800, nodes: 1, gpus_per_node: 8, provider: sim}
run: echo "hello from $XYCLAW_NODE_RANK"
"""


def test_a_spec_that_rents_needs_the_approval_card_and_rejecting_rents_nothing(
    sim_engine: Engine, make_page: MakePage, qtbot: QtBot, tmp_path: Path
) -> None:
    path = tmp_path / "rent.yaml"
    path.write_text(RENTING)
    page = make_page(sim_engine)
    rent = page.launch_flow.rent

    page.launch_from_file(path)
    dialog = _launch_dialog(qtbot, page)
    assert dialog.choice == RENT and dialog.launch_button.text() == "Get a quote…"
    dialog.launch_button.click()
    wait(qtbot, lambda: rent.dialog is not None and rent.dialog.dialog.isVisible(), 60_000)
    assert rent.dialog is not None and rent.quote is not None
    card_text = " ".join(label.text() for label in rent.dialog.card.facts.values())
    assert "8 × A800" in card_text and "rented-gui" in rent.dialog.card.request.title
    rent.dialog.card.reject_button.click()
    wait(qtbot, lambda: "Nothing was launched" in page.notice.text())
    assert sim_engine.clusters(include_released=True) == []
    assert sim_engine.jobs(include_finished=True) == []

    page.launch_from_file(path)
    _launch_dialog(qtbot, page).launch_button.click()
    wait(qtbot, lambda: rent.dialog is not None and rent.dialog.decision is None, 60_000)
    assert rent.dialog is not None and rent.dialog.card.approve_button.isEnabled()
    rent.dialog.card.approve_button.click()
    wait(
        qtbot,
        lambda: page.error.isVisible() or any(j.name == "rented-gui" for j in page.records),
        60_000,
    )
    assert not page.error.isVisible(), page.error.text()
    job_id = page.records[0].id
    done = finished(sim_engine, job_id, 180)
    assert done.state is JobState.SUCCEEDED and done.rented_cluster
    assert [ln.text for ln in sim_engine.job_logs(str(job_id))] == ["hello from 0"]


def test_after_a_restart_the_page_follows_the_running_job_again(
    sim_engine: Engine, make_page: MakePage, qtbot: QtBot, tmp_path: Path
) -> None:
    """The app quits while a job runs on the simulated cloud and starts again: the job's
    page shows the stored log and follows it again (the new app reattaches the job, as
    ``xyclaw logs -f`` does), instead of showing a log that no longer grows."""
    from xyclaw.config import load_config
    from xyclaw.engine.compose import build_engine
    from xyclaw.engine.lifecycle import UpRequest
    from xyclaw.paths import AppPaths

    quote = sim_engine.quote_request(UpRequest(provider="sim", gpu="A10", gpu_count=1))
    cluster = sim_engine.up(quote).result(120)
    spec = train_spec(tmp_path, "survivor", steps=1_000_000, save_every=100_000, model="llama-0.5b")
    job = sim_engine.launch(spec, cluster=cluster.name).result(60)
    wait(qtbot, lambda: len(sim_engine.job_logs(str(job.id))) >= 3, 60_000)
    sim_engine.close()  # the app quits; the job keeps running on its node

    paths = AppPaths.from_environment()
    again = build_engine(paths, load_config(paths.config_file))
    try:
        stored = again.job_logs(str(job.id))
        last_stored = stored[-1].id
        assert again.job(str(job.id)).state is JobState.RUNNING
        page = make_page(again)
        appended: list[int] = []
        page.log_appended.connect(appended.append)
        wait(qtbot, lambda: page.row_of(job.id) is not None)
        page.select_job(job.id)
        wait(qtbot, lambda: page.detail is not None and page.lines)
        assert page.log_follow.isChecked()
        # new lines, written by the node after the restart, stored and shown
        wait(qtbot, lambda: page.lines[-1].id > last_stored and sum(appended) > 0, 60_000)
        assert job.id in page.attached
        shown = page.shown_log()
        assert stored[-1].text in "\n".join(shown)
        grown = len(again.job_logs(str(job.id)))
        wait(qtbot, lambda: len(again.job_logs(str(job.id))) > grown, 60_000)  # still growing
        page.hide()
        wait(qtbot, lambda: page.worker.busy == 0)
        again.cancel_job(str(job.id))
        again.down(cluster.name).result(120)
    finally:
        again.close()
