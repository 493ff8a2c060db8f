"""The log's Follow never goes stale (issue 28, item 4): a job that ends between two reads
shows all its lines once it has ended, without selecting it again; with Follow off, Refresh
reads the log again."""

from __future__ import annotations

from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from tests.gui_jobs.conftest import wait
from tests.jobs_runtime.conftest import MakeCluster
from tests.jobs_runtime.helpers import finished, train_spec
from xyclaw.engine import Engine
from xyclaw.gui.bridge import EngineBridge, Worker
from xyclaw.gui.jobs_page import JobsPage
from xyclaw.gui.main_window import WindowContext

pytestmark = pytest.mark.gui


@pytest.mark.parametrize("follow", [True, False], ids=["follow", "refresh"])
def test_a_finished_job_shows_all_its_lines(
    engine: Engine, make_cluster: MakeCluster, qtbot: QtBot, tmp_path: Path, follow: bool
) -> None:
    cluster = make_cluster(nodes=1, gpus_per_node=1, time_scale=0.05)
    train_spec(tmp_path / "spec", "follow-me", steps=60, save_every=30, model="llama-0.5b")
    job = engine.launch(str(tmp_path / "spec" / "job.yaml"), cluster=cluster.name).result(120)
    worker, bridge = Worker(), EngineBridge.for_engine(engine)
    # a follow tick far apart: the lines of the end come between two reads
    page = JobsPage(
        WindowContext(engine=engine, bridge=bridge, worker=worker),
        refresh_ms=300,
        follow_ms=600_000,
    )
    qtbot.addWidget(page)
    try:
        page.resize(1300, 850)
        page.show()
        qtbot.waitExposed(page)
        page.log_follow.setChecked(follow)
        page.select_job(job.id)
        wait(qtbot, lambda: page.detail is not None and page.detail.job.id == job.id)
        finished(engine, job.id, 60)
        wait(qtbot, lambda: page.detail is not None and not page.detail.job.active, 30_000)
        total = len(engine.job_logs(str(job.id), tail=3000))
        if not follow:
            page.refresh_button.click()
        wait(qtbot, lambda: len(page.shown_log()) == total, 15_000)
        assert page.log_count.text() == f"{total} of {total} lines"
    finally:
        page.hide()
        bridge.close()
        qtbot.waitUntil(lambda: worker.busy == 0, timeout=30_000)
        worker.close()
