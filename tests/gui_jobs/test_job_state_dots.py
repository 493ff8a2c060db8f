"""Issue 28 item 8: the Jobs table's state cell carries its state's coloured dot: green
while the job runs, grey once it is cancelled."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtGui import QColor
from pytestqt.qtbot import QtBot

from tests.gui_jobs.conftest import MakePage, wait
from tests.gui_jobs.test_jobs_page import COLUMN
from tests.jobs_runtime.conftest import MakeCluster
from tests.jobs_runtime.helpers import train_spec
from xyclaw.engine import Engine

pytestmark = pytest.mark.gui


def _dot_in_cell(page, job_id: int) -> QColor | None:  # type: ignore[no-untyped-def]
    row = page.row_of(job_id)
    if row is None:
        return None
    icon = page.table.item(row, COLUMN["state"]).icon()
    if icon.isNull():
        return None
    return icon.pixmap(10, 10).toImage().pixelColor(5, 5)


def test_a_running_job_has_a_green_dot_and_a_finished_one_grey(
    engine: Engine, make_cluster: MakeCluster, make_page: MakePage, qtbot: QtBot, tmp_path: Path
) -> None:
    cluster = make_cluster(nodes=1, gpus_per_node=1, time_scale=0.2)
    done = engine.launch(
        train_spec(tmp_path / "a", "short", steps=20, save_every=10, model="llama-0.5b"),
        cluster=cluster.name,
    ).result(60)
    wait(qtbot, lambda: engine.job(str(done.id)).state.finished, 60_000)
    spec = train_spec(tmp_path / "b", "long", steps=100_000, save_every=1000, model="llama-0.5b")
    job = engine.launch(spec, cluster=cluster.name).result(60)
    page = make_page(engine)
    wait(qtbot, lambda: page.cell(job.id, COLUMN["state"]) == "running")
    final = engine.job(str(done.id)).state.value
    assert final == "succeeded", engine.job(str(done.id)).error_worded
    wait(qtbot, lambda: page.cell(done.id, COLUMN["state"]) == final)
    running = _dot_in_cell(page, job.id)
    assert running is not None and 90 <= running.hsvHue() <= 170  # green
    assert running.hsvSaturation() > 64
    ended = _dot_in_cell(page, done.id)
    assert ended is not None and ended.hsvSaturation() < 64  # grey
