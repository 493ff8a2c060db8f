"""The launch dialog names what XyClaw adds to a train job (issue 34, b34): the per-rank
step timer and the Flight Recorder, or that the spec turned the timer off."""

from __future__ import annotations

from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from tests.gui_jobs.conftest import MakePage, wait
from xyclaw.engine import Engine

pytestmark = pytest.mark.gui

TRAIN = "name: t\nrun: torchrun --nproc_per_node 8 train.py\n"


@pytest.mark.parametrize("off", [False, True])
def test_the_launch_dialog_names_the_step_timer_or_says_it_is_off(
    engine: Engine, make_page: MakePage, qtbot: QtBot, tmp_path: Path, off: bool
) -> None:
    spec = tmp_path / "job.yaml"
    spec.write_text(TRAIN + ('env:\n  XYCLAW_STEP_TIMES: "0"\n' if off else ""))
    page = make_page(engine)
    page.launch_from_file(spec)
    wait(qtbot, lambda: page.launch_flow.dialog is not None and page.launch_flow.dialog.isVisible())
    dialog = page.launch_flow.dialog
    assert dialog is not None
    text = dialog.additions.text()
    assert dialog.additions.isVisibleTo(dialog)
    if off:
        assert "the per-rank step timer is off" in text
    else:
        assert "XyClaw adds a per-rank step timer: a sitecustomize put first on PYTHONPATH" in text
    assert "Flight Recorder" in text
    dialog.reject()


def test_the_launch_dialog_names_the_secrets_a_job_sends_apart_from_its_variables(
    engine: Engine, make_page: MakePage, qtbot: QtBot, tmp_path: Path
) -> None:
    """Issue 31: before a host that cannot be trusted gets them, the dialog says which of the
    user's secrets the job sends (values never shown), apart from the spec's own variables."""
    spec = tmp_path / "job.yaml"
    spec.write_text(TRAIN + "env:\n  HF_TOKEN:\n  EPOCHS: '3'\n")
    page = make_page(engine)
    page.launch_from_file(spec)
    wait(qtbot, lambda: page.launch_flow.dialog is not None and page.launch_flow.dialog.isVisible())
    dialog = page.launch_flow.dialog
    assert dialog is not None
    assert dialog.sends.isVisibleTo(dialog) and dialog.sends_label.text() == "Sends"
    secrets, variables = dialog.sends.text().splitlines()
    assert secrets.startswith("Sends these secrets from this machine to every node: HF_TOKEN")
    assert "EPOCHS" not in secrets and variables == "Sets the spec's own variables: EPOCHS"
    dialog.reject()
