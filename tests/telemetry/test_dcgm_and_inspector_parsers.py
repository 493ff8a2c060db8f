"""The readers of DCGM's profiling fields and of NCCL's Inspector records (issue 34), on
outputs in the shapes their public sources show (tests/fixtures/dcgm/README.md)."""

from __future__ import annotations

import math
from pathlib import Path

from xyclaw.parsers.dcgm import parse_dcgm, parse_dmon, parse_exporter
from xyclaw.parsers.nccl_inspector import parse_inspector

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "dcgm"


def _read(name: str) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8")


def test_dmon_keeps_each_gpus_newest_row_and_reads_na_as_missing() -> None:
    gpu0, gpu1 = parse_dmon(_read("dmon_1002_1004_1005.txt"))
    assert (gpu0.gpu, gpu0.sm_active, gpu0.tensor_active, gpu0.dram_active) == (
        0,
        0.02,
        0.0,
        0.008,
    )
    assert gpu0.complete and not gpu1.complete and math.isnan(gpu1.sm_active)


def test_the_exporters_gauges_by_gpu() -> None:
    spin, work = parse_exporter(_read("exporter_metrics.txt"))
    assert (spin.gpu, spin.sm_active, spin.tensor_active) == (0, 0.016, 0.0)
    assert (work.gpu, work.sm_active, work.tensor_active, work.dram_active) == (
        1,
        0.874,
        0.512,
        0.338,
    )
    assert parse_dcgm(_read("exporter_metrics.txt")) == [spin, work]


def test_what_is_not_dcgm_gives_no_reading() -> None:
    for text in ("", "bash: dcgmi: command not found\n", "Error: unable to connect", "{}"):
        assert parse_dcgm(text) == []


def test_inspector_records_one_per_line_with_a_torn_last_one() -> None:
    small, big = parse_inspector(_read("inspector_v4.jsonl"))
    assert (small.seq, small.msg_bytes, small.busbw_gbs) == (1406, 4194304, 30.2)
    assert (big.coll, big.seq, big.busbw_gbs, big.algbw_gbs) == (
        "AllReduce",
        1407,
        485.119099,
        277.210914,
    )
    assert (big.rank, big.n_ranks, big.nnodes, big.hostname, big.version) == (
        0,
        16,
        2,
        "gpu-node-0",
        "v4.0",
    )


def test_inspector_pretty_printed_under_tails_header() -> None:
    (record,) = parse_inspector(_read("inspector_pretty.json"))
    assert (record.coll, record.seq, record.busbw_gbs) == ("ReduceScatter", 1231, 366.134533)
    assert (record.rank, record.hostname, record.ts_us) == (4, "gpu-node-1", 1752867229276385)


def test_inspector_prometheus_mode() -> None:
    (record,) = parse_inspector(_read("inspector_prom.txt"))
    assert (record.coll, record.busbw_gbs, record.rank, record.seq) == (
        "AllReduce",
        361.5,
        4,
        228924,
    )


def test_inspector_never_raises_on_noise() -> None:
    for text in ("", "{", "{{{}", '{"coll_perf": {"coll_busbw_gbs": "fast"}}', "]" * 50):
        assert parse_inspector(text) == []
