"""The launch dialog and the cluster a spec asks for (issue 28, item 2): a cluster without
the spec's GPUs or nodes is warned about before launch, an idle cluster that fits is chosen
before renting a new one, and the Jobs page's red banner can be dismissed."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from tests.gui_jobs.conftest import MakePage
from tests.jobs_runtime.conftest import MakeCluster
from tests.jobs_runtime.helpers import train_spec
from xyclaw.engine import Engine
from xyclaw.gui.bridge import ErrorInfo
from xyclaw.gui.job_launch import RENT, LaunchDialog, LaunchFlow, read_spec_file

pytestmark = pytest.mark.gui

TWO_NODES = "resources:\n  gpu: A100-80G\n  nodes: 2\n  gpus_per_node: 2\n"


def _dialog(engine: Engine, spec_file: Path, qtbot: QtBot) -> LaunchDialog:
    found = read_spec_file(spec_file, {"A100-80G", "A100-40G", "A800"})
    assert not hasattr(found, "line"), found
    dialog = LaunchDialog(LaunchFlow._with_clusters(engine, found))  # type: ignore[arg-type]
    qtbot.addWidget(dialog)
    dialog.show()
    return dialog


def test_a_cluster_too_small_is_warned_about_and_an_idle_one_that_fits_is_chosen(
    engine: Engine, make_cluster: MakeCluster, qtbot: QtBot, tmp_path: Path
) -> None:
    small = make_cluster(nodes=1, gpus_per_node=1, gpu="A100-40G")
    train_spec(tmp_path / "s", "big-lora", steps=10, save_every=5, extra=TWO_NODES)
    spec_file = tmp_path / "s" / "job.yaml"

    dialog = _dialog(engine, spec_file, qtbot)
    assert dialog.choice == RENT  # nothing ready fits: renting is offered first
    dialog.target.setCurrentIndex(dialog.target.findData(small.name))
    assert dialog.misfit.isVisible()
    text = dialog.misfit.text()
    assert small.name in text and "2 × 2 A100-80G" in text and "1 × 1 A100-40G" in text

    big = make_cluster(nodes=2, gpus_per_node=2, gpu="A100-80G")
    dialog = _dialog(engine, spec_file, qtbot)
    assert dialog.choice == big.name  # an idle cluster that fits, not a new rental
    assert not dialog.misfit.isVisible()


def test_the_red_banner_can_be_dismissed(engine: Engine, make_page: MakePage, qtbot: QtBot) -> None:
    page = make_page(engine)
    page.show_error(ErrorInfo("HF_TOKEN must be set", "set it in Settings"))
    assert page.error.isVisible()
    qtbot.mouseClick(page.error_close, Qt.MouseButton.LeftButton)
    assert not page.error.isVisible()
