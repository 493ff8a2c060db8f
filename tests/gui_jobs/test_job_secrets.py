"""A job's missing secret (issue 26): the window asks for it (hidden), keeps it in the keyring
through the Engine and launches; the value is in no byte of the history. The bundled 2-node
sample's HF_TOKEN is asked for before anything is rented."""

from __future__ import annotations

from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from tests.gui_jobs.conftest import MakePage, wait
from tests.jobs_runtime.conftest import MakeCluster
from tests.jobs_runtime.helpers import train_spec
from xyclaw.engine import Engine
from xyclaw.gui.job_launch import RENT, SecretValuesDialog
from xyclaw.gui.jobs_page import JobsPage
from xyclaw.paths import AppPaths
from xyclaw.secrets import job_secret_name

pytestmark = pytest.mark.gui

VALUE = "hf_planted_value_for_the_window_0042"


def _secrets_dialog(qtbot: QtBot, page: JobsPage) -> SecretValuesDialog:
    flow = page.launch_flow
    wait(qtbot, lambda: flow.secrets_dialog is not None and flow.secrets_dialog.isVisible())
    assert flow.secrets_dialog is not None
    return flow.secrets_dialog


def test_a_missing_secret_is_asked_for_kept_in_the_keyring_and_the_job_launches(
    engine: Engine,
    make_cluster: MakeCluster,
    make_page: MakePage,
    qtbot: QtBot,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    cluster = make_cluster(nodes=1, gpus_per_node=2, time_scale=0.05)
    # Each rank prints its XYCLAW_* variables: the token is echoed into the job's log.
    extra = 'env:\n  XYCLAW_SIM_PRINT_ENV: "1"\n  XYCLAW_JOB_TOKEN:\n'
    train_spec(tmp_path / "spec", "needs-token", steps=40, save_every=20, extra=extra)
    page = make_page(engine)
    wait(qtbot, lambda: page._loaded_once)
    page.launch_from_file(tmp_path / "spec" / "job.yaml")
    wait(qtbot, lambda: page.launch_flow.dialog is not None and page.launch_flow.dialog.isVisible())
    assert page.launch_flow.dialog is not None
    assert page.launch_flow.dialog.choice == cluster.name
    page.launch_flow.dialog.launch_button.click()

    dialog = _secrets_dialog(qtbot, page)
    assert dialog.names == ["XYCLAW_JOB_TOKEN"]
    field = dialog.fields["XYCLAW_JOB_TOKEN"]
    assert field.echoMode() == field.EchoMode.Password
    assert not dialog.save_button.isEnabled()  # nothing typed: nothing to save
    assert engine.jobs() == []  # nothing launched while it asks
    qtbot.keyClicks(field, VALUE)
    assert dialog.save_button.isEnabled()
    dialog.save_button.click()

    wait(qtbot, lambda: len(engine.jobs()) == 1, 60_000)
    wait(qtbot, lambda: page.selected_id is not None)
    wait(qtbot, lambda: any("XYCLAW_JOB_TOKEN" in line for line in page.shown_log()), 60_000)
    echoed = [line for line in page.shown_log() if "XYCLAW_JOB_TOKEN" in line]
    assert all(VALUE not in line and "***" in line for line in echoed), echoed
    assert engine.secrets.get(job_secret_name("XYCLAW_JOB_TOKEN")) == VALUE
    assert engine.missing_job_secrets(tmp_path / "spec" / "job.yaml") == []
    for db_file in AppPaths.from_environment().data_dir.glob("xyclaw.db*"):
        assert VALUE.encode() not in db_file.read_bytes(), db_file


def test_the_bundled_two_node_sample_asks_for_its_hf_token_before_renting(
    engine: Engine, make_page: MakePage, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    from xyclaw.paths import bundled

    monkeypatch.delenv("HF_TOKEN", raising=False)
    sample = bundled("resources") / "examples" / "lora-2node.yaml"
    page = make_page(engine)
    wait(qtbot, lambda: page._loaded_once)
    page.launch_from_file(sample)
    wait(qtbot, lambda: page.launch_flow.dialog is not None and page.launch_flow.dialog.isVisible())
    launch = page.launch_flow.dialog
    assert launch is not None and launch.choice == RENT
    cancelled: list[bool] = []
    page.launch_flow.cancelled.connect(lambda: cancelled.append(True))
    launch.launch_button.click()
    dialog = _secrets_dialog(qtbot, page)
    assert dialog.names == ["HF_TOKEN"] and "HF_TOKEN" in dialog.explain.text()
    dialog.reject()
    wait(qtbot, lambda: cancelled)
    assert engine.clusters() == [] and engine.jobs() == []
