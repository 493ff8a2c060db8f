"""Issue 29 point 3 in the window: the launch dialog's Check button shows the dry run of
the spec on the chosen cluster, and rents, uploads and runs nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from tests.gui_jobs.conftest import MakePage, wait
from tests.jobs_runtime.conftest import MakeCluster
from xyclaw.engine import Engine

pytestmark = pytest.mark.gui


def test_check_shows_what_would_run_where_and_runs_nothing(
    engine: Engine, make_cluster: MakeCluster, make_page: MakePage, qtbot: QtBot, tmp_path: Path
) -> None:
    cluster = make_cluster(nodes=2)
    spec = tmp_path / "task.yaml"
    spec.write_text(
        "num_nodes: 2\nenvs:\n  MODEL: tiny\nresources:\n  accelerators: H100:8\n"
        "run: echo rank $SKYPILOT_NODE_RANK\n"
    )
    page = make_page(engine)
    wait(qtbot, lambda: page._loaded_once)
    page.launch_from_file(spec)
    flow = page.launch_flow
    wait(qtbot, lambda: flow.dialog is not None and flow.dialog.isVisible())
    dialog = flow.dialog
    assert dialog is not None
    dialog.target.setCurrentIndex(dialog.target.findData(cluster.name))  # not renting
    assert dialog.choice == cluster.name
    assert not dialog.check_result.isVisible()
    dialog.check_button.click()
    wait(qtbot, lambda: "Nothing was rented" in dialog.check_result.toPlainText())
    text = dialog.check_result.toPlainText()
    assert f"Runs on {cluster.name}: 2 node(s)" in text
    assert "SKYPILOT_NUM_NODES=2" in text and "MODEL=tiny" in text
    assert "bash -i" in text  # the command each node runs, as sent
    assert "asks for H100 but cluster" in text  # the sim cluster's GPU differs: warned
    assert engine.jobs(include_finished=True) == []  # nothing was launched


def test_launch_from_the_dialog_on_a_cluster_of_another_gpu_warns_before_it_runs(
    engine: Engine, make_cluster: MakeCluster, make_page: MakePage, qtbot: QtBot, tmp_path: Path
) -> None:
    """Not only the Check: the launch itself says the GPU differs, as its first progress
    line (the operations panel shows it), before the run starts."""
    from xyclaw.engine.operations import OperationProgress

    cluster = make_cluster(nodes=2)
    heard: list[str] = []
    engine.subscribe(OperationProgress, lambda e: heard.append(str(e.message)))
    spec = tmp_path / "task.yaml"
    spec.write_text("resources:\n  accelerators: H100:1\nrun: echo ran on $SKYPILOT_NODE_RANK\n")
    page = make_page(engine)
    wait(qtbot, lambda: page._loaded_once)
    page.launch_from_file(spec)
    flow = page.launch_flow
    wait(qtbot, lambda: flow.dialog is not None and flow.dialog.isVisible())
    dialog = flow.dialog
    assert dialog is not None
    dialog.target.setCurrentIndex(dialog.target.findData(cluster.name))
    dialog.launch_button.click()
    wait(qtbot, lambda: [j for j in engine.jobs(include_finished=True) if j.state.finished])
    warned = f"warning: the task asks for H100 but cluster {cluster.name} has A800"
    assert any(h.startswith(warned) for h in heard), heard
    said_at = next(i for i, h in enumerate(heard) if h.startswith(warned))
    assert said_at < next(i for i, h in enumerate(heard) if h.startswith("starting the run"))
    [job] = engine.jobs(include_finished=True)
    assert "ran on 0" in [ln.text for ln in engine.job_logs(str(job.id), node=0)]
