"""The desktop follows a 2 x 8 job whose rank 11 hung after node 1 logged XID 79 (issue 34):
the replacement's dialog says the verdict and the checkpoint the job resumes from, and its
Approve is the bound ``replace_and_resume`` card: one node joins the cluster's fabric and
the next attempt resumes from exactly the checkpoint shown."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from tests.gui_pages.conftest import wait_for
from tests.jobs_runtime.helpers import finished
from tests.jobs_runtime.test_hang_replacement_card import WATCHED, hang_until_the_ask
from tests.jobs_runtime.test_spot_preemption import Ticker
from tests.lifecycle.conftest import MakeWorld, make_world  # noqa: F401  (the fixture)
from xyclaw.gui.bridge import EngineBridge
from xyclaw.gui.replacement_flow import ReplacementApprovals
from xyclaw.records.jobs import JobState

pytestmark = pytest.mark.gui


@pytest.mark.timeout(300)
def test_the_hang_dialog_says_the_verdict_and_checkpoint_and_approve_resumes_from_it(
    qtbot: QtBot,
    make_world: MakeWorld,  # noqa: F811  (the fixture imported above)
    tmp_path: Path,
) -> None:
    world = make_world(job_options=WATCHED, time_scale=0.02)
    world.clock.advance(time.time() - world.clock())  # the card checks the quote's expiry
    window = QWidget()
    qtbot.addWidget(window)
    bridge = EngineBridge.for_engine(world.engine, window)
    approvals = ReplacementApprovals(world.engine, bridge, window)
    with Ticker(world.clock):
        hung = hang_until_the_ask(world, tmp_path, "guifr")
        job, node1 = hung.job, hung.node1
        wait_for(qtbot, lambda: job.id in approvals.dialogs, timeout=60000)
        dialog = approvals.dialogs[job.id]
        (ask,) = world.engine.replacement_asks()
        assert ask.resume_from is not None
        assert dialog.dialog.windowTitle() == f"Job {job.name} hangs: replace {node1.name}?"
        text = dialog.note.text()
        assert f"rank 11 on {node1.name} never entered all_reduce #{hung.at}" in text
        assert "logged XID 79 (GPU has fallen off the bus)" in text
        assert f"resume the job from {ask.resume_from};" in text
        assert len(world.provider.clusters()) == 1  # the dialog alone rents nothing

        qtbot.mouseClick(dialog.card.approve_button, Qt.MouseButton.LeftButton)

        done = finished(world.engine, job.id, timeout=180)
    assert done.state is JobState.SUCCEEDED, done.error
    second = done.attempts[1]
    assert second.resumed_from == ask.resume_from
    (extra,) = [c for c in world.provider.clusters() if c.external_id != hung.cluster.external_id]
    assert extra.gpu_count == 8 and extra.fabric == hung.cluster.fabric
    bridge.close()
