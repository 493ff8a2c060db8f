"""The Monitor page's job box in the window's wiring: a job running on a cluster of simulated
GPU nodes (real SSH on loopback), read from the Engine's jobs on the window's worker while
the page is shown; the box shows the job's name, state and a step that advances."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from tests.gui_jobs.conftest import wait
from tests.jobs_runtime.conftest import MakeCluster
from tests.jobs_runtime.helpers import finished, train_spec
from xyclaw.engine import Engine
from xyclaw.gui.bridge import EngineBridge, Worker
from xyclaw.gui.main_window import WindowContext
from xyclaw.gui.monitor_wiring import MonitorWiring

pytestmark = pytest.mark.gui


@pytest.fixture
def wiring(engine: Engine, qtbot: QtBot) -> Iterator[MonitorWiring]:
    worker = Worker()
    bridge = EngineBridge.for_engine(engine)
    made = MonitorWiring(WindowContext(engine=engine, bridge=bridge, worker=worker))
    qtbot.addWidget(made.page)
    yield made
    made.page.hide()
    bridge.close()
    qtbot.waitUntil(lambda: worker.busy == 0, timeout=30_000)
    worker.close()


def _step(wiring: MonitorWiring) -> int:
    status = wiring.page.job.status
    return -1 if status is None or status.step is None else status.step


def test_the_monitor_shows_the_running_job_and_its_step_advancing(
    engine: Engine,
    make_cluster: MakeCluster,
    wiring: MonitorWiring,
    qtbot: QtBot,
    tmp_path: Path,
) -> None:
    cluster = make_cluster(nodes=2, gpus_per_node=2, time_scale=0.05)
    page = wiring.page
    page.resize(1300, 850)
    page.show()
    qtbot.waitExposed(page)
    wait(qtbot, lambda: page.frame is not None, 60_000)  # the cluster's GPUs are live
    assert page.cluster_id == cluster.cluster_id
    wait(qtbot, lambda: wiring.job_reads > 0)
    assert page.job.none.isVisible() and page.job.status is None  # nothing runs yet

    spec = train_spec(tmp_path / "spec", "monitor-job", steps=400, save_every=100)
    job = engine.launch(spec, cluster=cluster.name).result(60)
    wait(qtbot, lambda: _step(wiring) > 0, 60_000)  # the job box, not a click, picks it up
    assert page.job.details.isVisible() and not page.job.none.isVisible()
    assert page.job.title.text() == "Job: monitor-job (running)"
    assert page.job.step.text().endswith(" / 400")
    assert page.job.loss.text() not in ("", "-")
    first = _step(wiring)
    wait(qtbot, lambda: _step(wiring) > first, 60_000)  # re-read every 2 s while shown
    assert page.job.progress.value() == _step(wiring)

    page.hide()  # hidden: the reads stop (one already on the worker may still land)
    wait(qtbot, lambda: not wiring._reading_jobs)
    reads = wiring.job_reads
    qtbot.wait(2 * 2000 + 500)
    assert wiring.job_reads == reads

    page.show()  # shown again: read at once; cancelled (a JobChanged): the box clears
    wait(qtbot, lambda: wiring.job_reads > reads)
    engine.cancel_job(str(job.id))
    wait(qtbot, lambda: page.job.status is None and page.job.none.isVisible(), 60_000)
    assert finished(engine, job.id, 60).state.finished
