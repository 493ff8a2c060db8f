"""The History page in the real window, on the history of a real simulated-cloud run, with
the simulated cloud stopped and every provider call failing: it lists the runs, replays a
recovered 2-node job with data in every chart, compares two jobs, exports, and never calls
a provider."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from tests.gui_history.conftest import FailingProviders
from tests.gui_history.history_run import HistoryFacts
from xyclaw.engine import Engine
from xyclaw.engine.compose import Composition
from xyclaw.gui.history_data import export_of, read_csv, read_json
from xyclaw.gui.history_page import HistoryPage
from xyclaw.gui.main_window import MainWindowController
from xyclaw.paths import AppPaths

pytestmark = pytest.mark.gui


@pytest.fixture
def window(
    offline_engine: Engine, offline: FailingProviders, qtbot: QtBot
) -> Iterator[MainWindowController]:
    ctl = MainWindowController(
        offline_engine, None, tray_available=False, on_quit=lambda: None,
        status_refresh_ms=3_600_000,
    )  # fmt: skip
    ctl.window.resize(1400, 900)
    ctl.window.show()
    qtbot.waitExposed(ctl.window)
    qtbot.waitUntil(lambda: ctl.worker.busy == 0, timeout=10_000)  # the status bar's first look
    offline.reset()  # from here on, any provider call is the History page's
    yield ctl
    ctl.quit_now()
    qtbot.wait(20)


def _page(ctl: MainWindowController, qtbot: QtBot) -> HistoryPage:
    ctl.show_page("history")
    page = ctl.page_widgets["history"]
    assert isinstance(page, HistoryPage)
    qtbot.waitUntil(lambda: len(page.jobs) == 2 and not page.busy, timeout=10_000)
    return page


def _names(page: HistoryPage, model_attr: str) -> list[str]:
    model = getattr(page, model_attr)
    return [model.item(r, 1).text() for r in range(model.rowCount())]


def test_offline_history_lists_replays_compares_and_exports_without_a_provider_call(
    window: MainWindowController,
    offline: FailingProviders,
    history_facts: HistoryFacts,
    qtbot: QtBot,
    tmp_path: Path,
) -> None:
    from xyclaw.sim.cloud import launcher

    run_home = history_facts.database.parents[1]
    assert not launcher.status(AppPaths.under(run_home).data_dir / "sim").running
    page = _page(window, qtbot)

    # every past job and cluster, filterable
    assert sorted(_names(page, "job_model")) == ["lora-a", "lora-b"]
    assert _names(page, "cluster_model") == [history_facts.cluster_name]
    page.set_filter(state="released")  # the cluster's state; no job has it
    assert page.job_model.rowCount() == 0 and page.cluster_model.rowCount() == 1
    page.set_filter(state=None, text="lora-b")
    assert _names(page, "job_model") == ["lora-b"]
    page.set_filter(text="")
    assert page.job_model.rowCount() == 2

    # the recovered job's replay: heatmap, curves, loss, timeline with the recovery, log
    page.select("job", [history_facts.job_a])
    qtbot.mouseClick(page.replay_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: page.replay is not None and not page.busy, timeout=10_000)
    view = page.replay_view
    assert page.detail.currentWidget() is view
    image = view.heatmap.image
    assert image.shape[0] == 16
    assert (image != 255).sum() > image.size // 2  # cells with a sample
    assert (image[image != 255] > 50).any()  # and some of them busy
    node = view.frame.nodes[0].node_id
    util = view.curves.curve_data("util", (node, 0))
    assert util is not None and np.isfinite(util[1]).any()
    _loss_x, loss_y = view.loss_curve.getData()
    assert loss_y is not None and np.isfinite(loss_y).sum() > 100
    rows = [view.timeline.topLevelItem(i) for i in range(view.timeline.topLevelItemCount())]
    kinds = [r.data(0, Qt.ItemDataRole.UserRole) for r in rows]
    assert "recovery" in kinds and "rented" in kinds and "released" in kinds
    ended = rows[kinds.index("attempt_ended")]
    assert history_facts.lost_node in ended.text(3)
    assert "training finished" in view.log_text.toPlainText()

    # the slider moves the window through the run
    assert view.window_box.findData(60) == -1  # no window longer than the 30 s run
    view.window_box.setCurrentIndex(view.window_box.findData(10))
    assert view.slider.isEnabled() and view.slider.value() == view.slider.maximum()
    before = view.heatmap.grid.end_s
    view.slider.setValue(0)
    assert view.heatmap.grid.end_s < before

    # compare two jobs: overlaid curves, only the differences
    page.select("job", [history_facts.job_a, history_facts.job_b])
    assert page.compare_button.isEnabled()
    qtbot.mouseClick(page.compare_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: page.comparison is not None and not page.busy, timeout=10_000)
    compare = page.compare_view
    assert len(compare.items) == 2
    for item in compare.items:
        x, _y = item.getData()
        assert x is not None and len(x) > 100
    keys = compare.visible_keys()
    assert "spec.env.NCCL_ALGO" in keys and "result.attempts" in keys
    assert "cluster.gpu" not in keys and "cluster.shape" not in keys
    compare.differences.setChecked(False)
    assert "cluster.gpu" in compare.visible_keys()
    compare.differences.setChecked(True)
    for axis in ("time", "tokens", "money"):
        compare.set_x_axis(axis)
        assert len(compare.items) == 2, axis
    compare.log_scale.setChecked(True)
    compare.smooth.setValue(80)
    assert len(compare.items) == 2

    # export the comparison; it reads back equal
    written: list[list[Path]] = []
    page.export_to(tmp_path / "cmp.json", written.append)
    page.export_to(tmp_path / "cmp.csv", written.append)
    qtbot.waitUntil(lambda: len(written) == 2, timeout=10_000)
    expected = export_of(page.comparison.replays)
    assert read_json(tmp_path / "cmp.json").to_json() == expected.to_json()
    metrics, table = read_csv(tmp_path / "cmp.csv")
    assert metrics == expected.metrics and table == expected.table

    # a cluster's replay from the Clusters tab
    page.select("cluster", [history_facts.cluster_id])
    page.replay_selected()
    qtbot.waitUntil(
        lambda: page.replay is not None and page.replay.kind == "cluster", timeout=10_000
    )
    assert view.heatmap.image.shape[0] == 16

    assert offline.attempts == [], "the History page called a provider:\n" + "\n".join(
        offline.attempts
    )


def test_the_list_follows_a_job_that_changes_while_the_page_is_shown(
    window: MainWindowController,
    offline_parts: Composition,
    history_facts: HistoryFacts,
    qtbot: QtBot,
) -> None:
    page = _page(window, qtbot)
    from xyclaw.records.jobs import JobState, JobStore

    jobs = JobStore(offline_parts.store, offline_parts.bus)
    new = jobs.add(
        name="late", kind="train", spec_json="{}", cluster_id=history_facts.cluster_id,
        rented_cluster=False, state=JobState.QUEUED,
    )  # fmt: skip
    qtbot.waitUntil(lambda: "late" in _names(page, "job_model"), timeout=10_000)
    assert any(j["id"] == new for j in page.jobs)


def test_launch_again_opens_the_jobs_launch_with_the_past_jobs_spec(
    window: MainWindowController,
    offline: FailingProviders,
    history_facts: HistoryFacts,
    qtbot: QtBot,
) -> None:
    """The spec comes from the history; its cluster was released and the spec rents nothing,
    so the launch says there is nowhere to run it, and nothing calls a provider."""
    from xyclaw.gui.jobs_page import JobsPage

    page = _page(window, qtbot)
    page.select("job", [history_facts.job_a, history_facts.job_b])
    assert not page.again_button.isEnabled()  # one job at a time
    page.select("job", [history_facts.job_a])
    assert page.again_button.isEnabled()
    page.again_button.click()

    jobs = window.page_widgets["jobs"]
    assert isinstance(jobs, JobsPage)
    assert window.pages.currentWidget() is jobs
    qtbot.waitUntil(lambda: jobs.launch_flow.dialog is not None, timeout=10_000)
    dialog = jobs.launch_flow.dialog
    assert dialog is not None and dialog.isVisible()
    assert dialog.plan.spec.name == "lora-a"
    assert dialog.plan.source.startswith(f"job {history_facts.job_a}")
    assert "--learning_rate 3e-4" in dialog.plan.spec.run  # the run as it was launched
    assert dialog.target.count() == 0 and dialog.none.isVisibleTo(dialog)
    assert not dialog.launch_button.isEnabled()
    dialog.reject()
    assert offline.attempts == [], "Launch again called a provider:\n" + "\n".join(offline.attempts)


def test_the_replay_memory_chart_shows_a_small_model_s_memory_off_the_floor(
    window: MainWindowController, history_facts: HistoryFacts, qtbot: QtBot
) -> None:
    """The replay's "Memory used" chart was flat at 0: the run's 0.5B model holds about 2 %
    of each 80 GB card, drawn on a fixed 0-100 % axis (the data were right, the chart hid
    them). Its axis now tops at the next round number over the peak (10 % at least), so the
    line stands clear of the floor and the axis still says what it is."""
    page = _page(window, qtbot)
    page.select("job", [history_facts.job_a])
    qtbot.mouseClick(page.replay_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: page.replay is not None and not page.busy, timeout=10_000)
    view = page.replay_view
    node = view.frame.nodes[0].node_id
    memory = view.curves.curve_data("memory", (node, 0))
    assert memory is not None
    peak = float(np.nanmax(memory[1]))
    assert 0.5 < peak < 10, peak  # a small model on a big card: a few per cent
    low, top = view.curves.plots["memory"].vb.viewRange()[1]
    assert low == 0 and peak < top <= 100
    assert peak / top >= 0.2, (peak, top)  # at least a fifth of the chart's height
    ticks = view.curves.plots["memory"].getAxis("left").tickValues(low, top, 100)
    assert any(0 < v <= top for v in ticks[0][1]), ticks  # labelled, so the scale is read


def test_a_job_costs_the_same_on_the_history_and_the_jobs_page(
    window: MainWindowController,
    offline_engine: Engine,
    history_facts: HistoryFacts,
    qtbot: QtBot,
) -> None:
    """Issue 28, item 8: a job's cost was 0.17 on the Jobs page and 0.16 in History (the
    History took its share of the meter's charges, the Jobs page its attempts' node-hours at
    the price). Both count the attempts now: the same figure, shown the same."""
    from xyclaw.gui.jobs_page import cost_text

    page = _page(window, qtbot)
    model = page.job_model
    cost_column = next(
        c
        for c in range(model.columnCount())
        if model.headerData(c, Qt.Orientation.Horizontal) == "Cost"
    )
    for job_id in (history_facts.job_a, history_facts.job_b):
        row = next(r for r in range(model.rowCount()) if model.item(r, 0).text() == str(job_id))
        job = offline_engine.job(str(job_id))  # what the Jobs page shows of it
        listed = next(j for j in page.jobs if int(j["id"]) == job_id)
        assert job.cost_micros is not None and abs(listed["cost_micros"] - job.cost_micros) <= 1
        assert model.item(row, cost_column).text() == cost_text(job)
