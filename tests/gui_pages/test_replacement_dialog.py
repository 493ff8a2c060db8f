"""The desktop follows a job whose node is lost for good: the replacement's quote opens the
rental approval dialog, and only the click on Approve rents it (the job then resumes as
attempt 2); Reject rents nothing."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from tests.gui_pages.conftest import wait_for
from tests.jobs_runtime.conftest import FAST
from tests.jobs_runtime.helpers import finished
from tests.jobs_runtime.test_replacement_approval import lose_node, running_job
from tests.lifecycle.conftest import MakeWorld, make_world  # noqa: F401  (the fixture)
from xyclaw.gui.bridge import EngineBridge
from xyclaw.gui.replacement_flow import ReplacementApprovals
from xyclaw.records.jobs import JobState

pytestmark = pytest.mark.gui


@pytest.mark.parametrize("approve", [True, False])
def test_a_lost_node_asks_in_the_rental_dialog_and_only_approve_rents(
    qtbot: QtBot,
    make_world: MakeWorld,  # noqa: F811  (the fixture imported above)
    tmp_path: Path,
    approve: bool,
) -> None:
    world = make_world(job_options=FAST)
    world.clock.advance(time.time() - world.clock())  # the card checks the quote's expiry
    window = QWidget()
    qtbot.addWidget(window)
    bridge = EngineBridge.for_engine(world.engine, window)
    approvals = ReplacementApprovals(world.engine, bridge, window)
    job = running_job(world, tmp_path, "gui")

    lose_node(world, job)
    wait_for(qtbot, lambda: job.id in approvals.dialogs, timeout=60000)
    dialog = approvals.dialogs[job.id]
    assert job.name in dialog.dialog.windowTitle()
    assert dialog.card.approve_button.text() == "Approve and rent"
    assert len(world.provider.clusters()) == 1  # the dialog alone rents nothing

    button = dialog.card.approve_button if approve else dialog.card.reject_button
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)

    if approve:
        done = finished(world.engine, job.id, timeout=120)
        assert done.state is JobState.SUCCEEDED, done.error
        assert len(world.provider.clusters()) == 2
    else:
        wait_for(qtbot, lambda: not world.engine.replacement_asks(), timeout=30000)
        assert world.engine.job(str(job.id)).state is not JobState.SUCCEEDED
        assert len(world.provider.clusters()) == 1
        # the job waits for its node; a cancel meanwhile ends it at once
        assert world.engine.cancel_job(str(job.id)).state is JobState.CANCELLED
    bridge.close()
