"""The window against the real loopback Slurm (issue 33, b33): the Clusters page shows a
Slurm allocation like any cluster (its queue state with Slurm's reason, the Slurm job id,
nodes, GPUs), the Monitor page draws its nodes' GPUs from the sampler files, and the History
keeps its samples, logs and GPU-hours (a lab's GPUs cost 0, their hours count)."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pyqtgraph")

from pytestqt.qtbot import QtBot

from tests.slurm.approve import submit
from tests.slurm.conftest import as_root
from tests.slurm.test_slurm_mirror import engine  # noqa: F401  (the fixture)
from xyclaw.engine import Engine
from xyclaw.gui import i18n
from xyclaw.gui.bridge import EngineBridge, Worker
from xyclaw.gui.charts.source import TelemetryLiveSource
from xyclaw.gui.clusters_page import ClustersPage
from xyclaw.gui.history_data import HistorySource
from xyclaw.gui.history_page import HistoryPage
from xyclaw.gui.main_window import WindowContext
from xyclaw.gui.monitor_page import MonitorPage

pytestmark = pytest.mark.gui


def task(name: str, run: str) -> str:
    path = Path(os.environ["XYCLAW_HOME"]) / f"{name}.yaml"
    path.write_text(
        f"name: {name}\nnum_nodes: 2\nresources:\n  accelerators: A800:8\nrun: |\n  {run}\n"
    )
    return str(path)


def slurm_state(job_id: str) -> str:
    return as_root("squeue", "-h", "-j", job_id, "-o", "%T").strip()


@pytest.fixture
def context(qtbot: QtBot, engine: Engine) -> Iterator[WindowContext]:  # noqa: F811
    worker = Worker()
    bridge = EngineBridge.for_engine(engine)
    yield WindowContext(engine=engine, bridge=bridge, worker=worker)
    bridge.close()
    qtbot.waitUntil(lambda: worker.busy == 0, timeout=30_000)
    worker.close()


def test_the_clusters_page_shows_the_queue_and_the_history_keeps_samples_logs_and_hours(
    qtbot: QtBot,
    engine: Engine,  # noqa: F811
    context: WindowContext,
) -> None:
    hold = submit(engine, task("hold", "sleep 60"))
    deadline = time.monotonic() + 30
    while slurm_state(hold.job_id) != "RUNNING":
        assert time.monotonic() < deadline
        time.sleep(0.3)
    short = submit(engine, task("short", 'echo "rank $SKYPILOT_NODE_RANK"; sleep 3'))

    page = ClustersPage(context, slurm_follow_ms=300)
    qtbot.addWidget(page)
    page.resize(1300, 800)
    page.show()
    qtbot.waitExposed(page)

    def row(job_id: str) -> int | None:
        return next((a.cluster_id for a in page.allocations.values() if a.job_id == job_id), None)

    def state(job_id: str) -> str:
        cid = row(job_id)
        return "" if cid is None else page.cell(cid, "State")

    qtbot.waitUntil(
        lambda: state(hold.job_id) == f"running · Slurm job {hold.job_id}", timeout=20_000
    )
    deadline = time.monotonic() + 30
    while (reason := as_root("squeue", "-h", "-j", short.job_id, "-o", "%r").strip()) == "None":
        assert time.monotonic() < deadline  # Slurm has not looked at it yet
        time.sleep(0.3)
    engine.slurm_jobs("lab", fresh=True)  # as the user's refresh: squeue is asked now
    qtbot.waitUntil(lambda: state(short.job_id).startswith("pending ("), timeout=20_000)
    pending = state(short.job_id)
    assert pending.endswith(f") · Slurm job {short.job_id}")
    assert f"pending ({reason})" in pending  # Slurm's own reason (Resources, Priority)
    held = row(hold.job_id)
    assert held is not None
    assert page.cell(held, "Provider") == "lab" and page.cell(held, "Region") == "gpu"
    assert page.cell(held, "GPUs") == "16 × A800"
    page.table.selectRow(page.row_of(held) or 0)
    qtbot.waitUntil(lambda: page.nodes.rowCount() == 2)
    assert [page.nodes.item(r, 0).text() for r in range(2)] == ["n1", "n2"]
    # the scheduler's nodes: cancelled through the job's card, never released or tuned here
    assert not page.release_button.isEnabled() and not page.tune_button.isEnabled()

    # the Monitor page draws the running allocation's GPUs from its nodes' sampler files
    monitor = MonitorPage(None, fps=10)
    qtbot.addWidget(monitor)
    monitor.resize(1300, 800)
    monitor.show()
    qtbot.waitExposed(monitor)
    monitor.set_source(TelemetryLiveSource(engine.live_metrics(f"lab-{hold.job_id}")))
    qtbot.waitUntil(
        lambda: monitor.cluster_id == held and "newest sample" in monitor.status.text(),
        timeout=20_000,
    )
    assert "2 nodes · 16 GPUs" in monitor.status.text()
    assert monitor.frame is not None and [n.name for n in monitor.frame.nodes] == ["n1", "n2"]
    monitor.hide()

    # cancelled through its approval card; the queued job then runs and ends
    card = engine.slurm_cancel_card("lab", hold.job_id)
    engine.slurm_cancel("lab", hold.job_id, approved=card)
    deadline = time.monotonic() + 30
    while slurm_state(short.job_id) not in ("RUNNING", "COMPLETING", ""):
        assert time.monotonic() < deadline
        time.sleep(0.3)
    engine.slurm_jobs("lab", fresh=True)  # as the user's refresh: squeue is asked now
    qtbot.waitUntil(
        lambda: state(short.job_id).startswith(("running", "ending", "ended")), timeout=20_000
    )
    deadline = time.monotonic() + 30
    while slurm_state(short.job_id) != "":
        assert time.monotonic() < deadline
        time.sleep(0.3)
    engine.slurm_jobs("lab", fresh=True)
    qtbot.waitUntil(
        lambda: state(short.job_id) == f"ended · Slurm job {short.job_id}", timeout=20_000
    )
    view = next(v for v in engine.slurm_jobs("lab") if v.job_id == short.job_id)
    assert view.exit is not None and view.exit.exit_code == 0
    page._slurm_timer.stop()  # nothing more to follow: no read outlives the page
    qtbot.waitUntil(lambda: not page._following, timeout=20_000)

    # the History: the job's logs of both ranks, its samples, its GPU-hours at 0 CNY
    history = HistoryPage(HistorySource(lambda: engine.paths.database), context.worker)
    qtbot.addWidget(history)
    history.resize(1300, 900)
    history.show()
    qtbot.waitExposed(history)
    job = next(j for j in engine.jobs(include_finished=True) if j.name == "short")
    qtbot.waitUntil(lambda: job.id in {int(j["id"]) for j in history.jobs}, timeout=20_000)
    history.select("job", [job.id])
    with qtbot.waitSignal(history.replay_shown, timeout=20_000) as shown:
        history.replay_selected()
    replay = shown.args[0]
    log = history.replay_view.log_text.toPlainText()
    assert "rank 0" in log and "rank 1" in log, log
    assert replay.frame is not None and [n.name for n in replay.frame.nodes] == ["n1", "n2"]
    assert all(len(n.ts_ms) >= 1 for n in replay.frame.nodes)
    labels = history.replay_view.cost_labels
    assert labels["gpu_hours"][1].text() == i18n.number(view.exit.gpu_hours, 3)
    assert labels["price"][1].text() == i18n.money(0, "CNY")
