"""The replay of a job that nobody watched for a while: the span is shaded on its charts and
its timeline entry sits where the span began, worded in the window's language."""

from __future__ import annotations

import pytest
from pytestqt.qtbot import QtBot

from xyclaw.gui.history_data import Replay, TimelineItem
from xyclaw.gui.history_replay import ReplayView
from xyclaw.wording import said

pytestmark = pytest.mark.gui

T0 = 1_796_500_000.0


def _replay(timeline: list[TimelineItem]) -> Replay:
    metrics = [
        {"ts": T0 + s, "attempt": 1, "step": s, "loss": 2.0 - s / 100, "tokens_per_s": 1000.0}
        for s in range(1, 60)
    ]
    return Replay(
        kind="job", id=7, name="quiet", row={"state": "succeeded"}, cluster=None,
        start_s=T0, end_s=T0 + 60, frame=None, resolution="none", metrics=metrics, log=[],
        log_total=0, timeline=timeline, cost=None, settings={}, results={},
    )  # fmt: skip


def test_a_span_nobody_watched_is_shaded_where_the_timeline_says(qtbot: QtBot) -> None:
    view = ReplayView()
    qtbot.addWidget(view)
    gap = TimelineItem(
        T0 + 20,
        "event",
        params={"event": "job", "not_watched_from": T0 + 20, "not_watched_until": T0 + 50},
        message="job quiet was not watched for 30 s",
        said=said("job.not_watched", name="quiet", seconds="30"),
    )
    view.set_replay(_replay([TimelineItem(T0, "job_created", params={"name": "quiet"}), gap]))

    assert view.unwatched == [(T0 + 20, T0 + 50)]
    shaded = [
        item for item in view.loss_plot.items if item.__class__.__name__ == "LinearRegionItem"
    ]
    assert len(shaded) == 1 and tuple(shaded[0].getRegion()) == (T0 + 20, T0 + 50)
    assert view.timeline.topLevelItem(1).text(3).startswith("job quiet was not watched for 30 s")

    view.set_replay(_replay([]))  # another run: nothing left shaded
    assert view.unwatched == []
    assert not [i for i in view.loss_plot.items if i.__class__.__name__ == "LinearRegionItem"]
