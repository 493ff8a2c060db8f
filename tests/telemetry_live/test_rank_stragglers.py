"""Stragglers by time (issue 34): per-rank compute times from the timing hook's lines,
scored against the best rank and against each rank's own best."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable

from tests.telemetry_live.conftest import FAST_THRESHOLDS, Live, fast_options, wait_until
from xyclaw.parsers.steptimes import StepTime, parse_step_time
from xyclaw.remote import StreamHandle
from xyclaw.telemetry.stragglers import RankTimes

TIMED = dataclasses.replace(FAST_THRESHOLDS, rank_straggler_for_s=0.5)


def test_the_timing_line_with_and_without_a_launcher_prefix() -> None:
    assert parse_step_time("[default3]:xyclaw-step rank=11 step=120 compute_s=0.8125") == (
        StepTime(11, 120, 0.8125)
    )
    assert parse_step_time("xyclaw-step rank=0 step=1 compute_s=1e-3") == StepTime(0, 1, 0.001)
    assert parse_step_time("step 10/100 | loss 1.2") is None
    assert parse_step_time("xyclaw-step rank=x step=1 compute_s=1") is None


def test_scores_against_the_best_rank_and_against_its_own_best() -> None:
    times = RankTimes(window=5, min_samples=5)
    for _ in range(5):
        for rank in range(4):
            times.add(rank, 1.0 if rank != 2 else 1.6)
    assert [s.rank for s in times.stragglers()] == [2]
    (two,) = [s for s in times.scores() if s.rank == 2]
    assert round(two.relative, 3) == 0.625 and two.individual == 1.0
    # rank 0 slows down on its own: its individual score drops, and so it straggles
    for _ in range(5):
        for rank in range(4):
            times.add(rank, 1.5 if rank == 0 else (1.0 if rank != 2 else 1.6))
    slow = {s.rank: s for s in times.stragglers()}
    assert set(slow) == {0, 2} and round(slow[0].individual, 3) == 0.667
    assert RankTimes().stragglers() == []  # no samples, no verdict


def _train(live: Live, seen: list[str]) -> list[StreamHandle]:
    record = live.cluster.record
    master = record.nodes[0].hostname
    access = live.parts.access()
    handles = []
    for rank, node in enumerate(record.nodes):
        live.run(rank, "printf '# sim: model=llama-0.5b\\nimport torch\\n' > /root/train.py")
        command = (
            f"cd /root && XYCLAW_STEP_TIMES=1 torchrun --nnodes 2 --node_rank {rank}"
            f" --nproc_per_node 8 --master_addr {master} train.py --max_steps 1000000"
        )

        def feed(line: str) -> None:
            if "xyclaw-step" in line:
                seen.append(line)
            live.service.feed_job_log(live.cluster_id, line, job_id=None)

        access.trust(node)
        handles.append(
            access.pool.stream(access.target(record, node), command, feed, on_stderr_line=feed)
        )
    return handles


def test_a_slow_gpu_s_rank_is_named_by_its_step_times(make_live: Callable[..., Live]) -> None:
    live = make_live(options=fast_options(thresholds=TIMED))
    seen: list[str] = []
    jobs = _train(live, seen)
    try:
        live.service.job_started(live.cluster_id, job_id=None)
        # healthy steps first, past the rule's hold: no rank straggles
        wait_until(lambda: len(seen) >= 16 * 8, timeout=30)
        time.sleep(1.0)
        assert live.raised("job.rank_straggler") == []
        live.cluster.nodes[1].faults.straggler(gpu=6)  # global rank 14
        raised = wait_until(lambda: live.raised("job.rank_straggler"), timeout=20)
        assert {e.message.split()[1] for e in raised} == {"14"}
        assert "of the best rank's speed" in raised[0].message
    finally:
        for job in jobs:
            job.cancel()
