"""The verdict on repeated runs: jitter on RoCE points at PFC/ECN; steady runs are healthy."""

from __future__ import annotations

import pytest

from xyclaw.tuning.analyze import analyze_log

SIZES = [64 << 20, 128 << 20, 256 << 20, 512 << 20]


def _log(runs: list[list[float]], transport: str = "RoCE") -> str:
    """Runs of all_reduce_perf on 2 nodes x 8 GPUs in the documented text format; each run
    gives the busbw (GB/s) of every size, used for both placements."""
    n = 16
    factor = 2 * (n - 1) / n
    out = []
    for busbws in runs:
        out += [
            "# nccl-tests version 2.17.8 nccl-headers=22105 nccl-library=22105",
            "# Collective test starting: all_reduce_perf",
            "# nThread 1 nGpus 1 minBytes 67108864 maxBytes 536870912 step: 2(factor) "
            "warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0",
            "#",
            "# Using devices",
        ]
        for rank in range(n):
            host = f"node{rank // 8}"
            out.append(
                f"#  Rank {rank:2d} Group  0 Pid {1000 + rank:6d} on {host:>10} device "
                f"{rank % 8:2d} [0000:18:00] NVIDIA A800-SXM4-80GB"
            )
        devices = " ".join(f"[{i}]mlx5_{i}:1/{transport}" for i in range(4))
        out += [
            "#",
            f"node0:1000:1000 [0] NCCL INFO NET/IB : Using {devices} [RO]; OOB eth0:10.1.0.10<0>",
            "#",
            "#       size         count      type   redop    root     time   algbw   busbw "
            "#wrong     time   algbw   busbw  #wrong",
        ]
        values = []
        for size, busbw in zip(SIZES, busbws, strict=True):
            algbw = busbw / factor
            t_us = size / 1e3 / algbw
            cell = f"{t_us:9.1f}  {algbw:6.2f}  {busbw:6.2f}       0"
            out.append(f"{size:12d}  {size // 4:12d}     float     sum      -1  {cell}  {cell}")
            values += [busbw, busbw]
        out += [
            "# Out of bounds values : 0 OK",
            f"# Avg bus bandwidth    : {sum(values) / len(values):.4f}",
            "#",
        ]
    return "\n".join(out) + "\n"


def test_roce_runs_that_jitter_point_at_pfc_ecn() -> None:
    runs = [[41.0, 43.0, 44.0, 45.0], [38.0, 40.5, 41.5, 42.0], [43.5, 45.5, 46.5, 47.5]]
    got = analyze_log(_log(runs), fabric="roce-100")
    verdict = got.verdict
    assert len(got.runs) == 3
    assert verdict.jitter is not None and verdict.jitter > 0.025
    assert verdict.status == "unstable"
    assert verdict.cause_codes == ["pfc_ecn_jitter"]
    # The median of the runs' peaks, not the luckiest run.
    assert verdict.peak_busbw == pytest.approx(45.0)
    assert verdict.ratio == pytest.approx(45.0 / 50.0)


def test_steady_roce_runs_are_healthy() -> None:
    runs = [[42.0, 44.0, 45.0, 45.2], [42.1, 44.1, 45.1, 45.0], [41.9, 43.9, 44.9, 45.1]]
    verdict = analyze_log(_log(runs), fabric="roce-100").verdict
    assert verdict.jitter is not None and verdict.jitter < 0.01
    assert verdict.status == "healthy" and verdict.causes == ()


def test_steady_but_slow_runs_are_low_with_no_invented_cause() -> None:
    runs = [[20.0, 21.0, 22.0, 22.1], [20.1, 21.1, 22.1, 22.0]]
    verdict = analyze_log(_log(runs, transport="IB"), fabric="ib-hdr-200").verdict
    # 4 HDR NICs: 100 GB/s; 22 GB/s is far below and nothing in the log says why.
    assert verdict.status == "low"
    assert verdict.cause_codes == ["unexplained"]
