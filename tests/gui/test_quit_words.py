"""Quitting with a live cluster and a job on it (issue 28, item 3): the dialog's words are
true of the guard (whether one keeps watching after quit), it says which job runs on the
cluster and that releasing stops it, and no cluster line is cut at the list's edge."""

from __future__ import annotations

import math

import pytest

pytest.importorskip("PySide6")

from pytestqt.qtbot import QtBot

from tests.gui.conftest import MakeWindow
from xyclaw.engine import Engine
from xyclaw.engine.lifecycle import UpRequest

pytestmark = pytest.mark.slow


def test_the_quit_dialog_says_what_runs_and_what_watches_after_quit(
    qtbot: QtBot, make_window: MakeWindow, sim_engine: Engine
) -> None:
    quote = sim_engine.quote_request(UpRequest(provider="sim", gpu="RTX4090", gpu_count=1))
    cluster = sim_engine.up(quote).result(120)
    job = sim_engine.launch("plain-python", cluster=cluster.name).result(120)
    assert sim_engine.job(str(job.id)).active

    ctl = make_window(sim_engine, on_quit=lambda: None)
    ctl.request_quit()
    qtbot.waitUntil(lambda: ctl.quit_flow.dialog is not None, timeout=10000)
    flow = ctl.quit_flow
    qtbot.waitUntil(flow.dialog.isVisible, timeout=3000)

    line = flow.list.item(0).text()
    assert line.startswith(f"{cluster.name} — ")
    assert f"job {job.name} is running on it: releasing stops it" in line

    status = sim_engine.guard_status()
    watched = status.running and (
        (status.info is not None and status.info.holder != "desktop")
        or sim_engine.config.guard.autostart
    )
    words = flow.explanation.text()
    assert ("a background guard keeps watching them" in words) == watched
    assert ("nothing releases idle machines" in words) == (not watched)
    assert "The simulated cloud keeps running in the background" in words  # a sim cluster

    # every line of the item whole: wrapped into as many rows as its width needs
    item = flow.list.item(0)
    rect = flow.list.visualItemRect(item)
    metrics = flow.list.fontMetrics()
    rows = sum(
        max(1, math.ceil(metrics.horizontalAdvance(part) / max(1, rect.width() - 8)))
        for part in line.split("\n")
    )
    assert rect.height() >= rows * metrics.height(), (rect, rows, line)
    flow.dialog.reject()
    sim_engine.cancel_job(str(job.id))
