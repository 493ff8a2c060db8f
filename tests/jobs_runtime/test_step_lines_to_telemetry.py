"""The timing hook's lines of a followed job (issue 34, b34) go to telemetry's rank scores,
and are not read as the job's progress (rank 0's ``step`` lines are)."""

from __future__ import annotations

from typing import Any, cast

from xyclaw.jobs.follow import Committed
from xyclaw.jobs.progress import ProgressTracker


def test_step_time_lines_reach_telemetry_and_leave_progress_alone() -> None:
    fed: list[str] = []
    tracker = ProgressTracker(7, feed_telemetry=fed.append)
    texts = [
        "[default0]:step 40/100 | loss 2.1000 | lr 1.000e-04 | step_time 0.500s",
        "[default3]:xyclaw-step rank=11 step=9999 compute_s=0.8125",
        "[default0]:xyclaw-step rank=0 step=9999 compute_s=0.4000",
    ]
    batch = Committed(
        job_id=7, attempt=1, stream="run", node=cast(Any, None), texts=texts,
        offsets=[0, 80, 140], ranks=[0, 11, 0], redraws=[], ts=100.0,
    )  # fmt: skip
    tracker.feed(batch)
    assert tracker.snapshot(100.0).step == 40  # not 9999: the hook's lines are no progress
    assert [t for t in fed if "xyclaw-step" in t] == texts[1:]
