"""What an alert card's "Stop job" asks for: the cancel_job of the cluster's job by its id,
titled in the window's language; nothing at all when no job runs there (no request in words
for the agents to guess at)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from pytestqt.qtbot import QtBot

from xyclaw.agent.types import Effect
from xyclaw.gui import i18n
from xyclaw.gui.charts.alerts import STOP_JOB
from xyclaw.gui.charts.source import AlertView
from xyclaw.gui.monitor_wiring import alert_request, cluster_jobs

pytestmark = pytest.mark.gui

STALL = AlertView(
    id=5, rule="job.nccl_timeout", severity="error", cluster_id=1, node=None,
    message="rank 1's ALLREDUCE timed out", action="",
)  # fmt: skip


def _job(id: int, state: str, cluster_id: int = 1, active: bool = True) -> SimpleNamespace:
    return SimpleNamespace(
        id=id, name=f"run-{id}", state=state, cluster_id=cluster_id, active=active
    )


def test_stop_job_cancels_the_clusters_job_by_its_id_in_the_windows_language(
    qtbot: QtBot,
) -> None:
    jobs = [_job(3, "running"), _job(4, "queued"), _job(5, "succeeded", active=False)]
    job = cluster_jobs(jobs)[1]
    assert job.id == 3  # the running one, not the newer queued one
    try:
        assert i18n.install("zh_CN") == "zh_CN"
        action = alert_request(STALL, STOP_JOB, "demo", job).action
        assert action is not None
        assert (action.tool, action.args, action.effect) == (
            "cancel_job",
            {"job": "3"},
            Effect.DESTROY,
        )
        assert action.label == "停止 demo 上的作业 run-3"
        i18n.install("en")
        again = alert_request(STALL, STOP_JOB, "demo", job).action
        assert again is not None and again.label == "Stop job run-3 on demo"
        nothing = alert_request(STALL, STOP_JOB, "demo", None)
        assert nothing.action is None and nothing.text is None
    finally:
        i18n.install("en")
