"""What counts as a stall (issue 34, b34): no new progress line for `factor` times the usual
gap between them (learned as the job runs), and at least `floor_s`; said once per stall and
again only after progress resumed. A job's slow start says nothing."""

from __future__ import annotations

from xyclaw.jobs.forensics import StallWatch


def test_a_stall_is_past_the_usual_gap_said_once_and_again_after_progress() -> None:
    watch = StallWatch(factor=5.0, floor_s=20.0)
    assert watch.stalled(1000.0) is None  # nothing learned yet: never a stall
    for i, t in enumerate((0.0, 10.0, 20.0, 30.0)):  # a progress line every 10 s
        watch.see(i * 10, t)
    assert watch.usual_s == 10.0 and watch.limit_s() == 50.0
    assert watch.stalled(79.0) is None  # 49 s quiet: within 5 x 10 s
    assert watch.stalled(81.0) == 51.0
    assert watch.stalled(200.0) is None  # said once
    watch.see(40, 210.0)  # progress again (a long gap, learned too)
    assert watch.stalled(215.0) is None
    assert watch.stalled(210.0 + watch.limit_s() + 1) is not None  # a new stall


def test_the_floor_holds_for_fast_steps_and_a_repeated_step_is_no_progress() -> None:
    watch = StallWatch(factor=5.0, floor_s=120.0)
    for i in range(5):
        watch.see(i, i * 0.5)  # 0.5 s steps: 2.5 s would be a stall without the floor
    watch.see(4, 50.0)  # the same step again (a redraw): not progress
    assert watch.stalled(100.0) is None
    assert watch.stalled(123.0) is not None
