"""nccl-tests output: text, JSON, MPI prefixes, old builds, cut files, NCCL INFO."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from xyclaw.errors import ParseError
from xyclaw.parsers.nccltests import (
    NcclTestRow,
    average_bus_bandwidth,
    bus_bandwidth,
    bus_factor,
    normalize_collective,
    parse_nccl_info,
    parse_nccl_tests,
    parse_nccl_tests_all,
    parse_nccl_tests_json,
)

FIX = Path(__file__).parent / "fixtures"


def _read(name: str) -> str:
    return (FIX / name).read_text()


def _sizes(lo: int, hi: int) -> list[int]:
    out = []
    while lo <= hi:
        out.append(lo)
        lo *= 2
    return out


def _check_busbw(rows: tuple[NcclTestRow, ...], n: int, collective: str) -> None:
    """Every printed busbw is algbw x the collective's factor (within print rounding)."""
    for r in rows:
        for alg, bus in ((r.out_algbw, r.out_busbw), (r.in_algbw, r.in_busbw)):
            assert alg is not None and bus is not None
            assert bus == pytest.approx(bus_bandwidth(alg, n, collective), abs=0.02 + 0.002 * bus)


def test_two_node_16_gpu_all_reduce() -> None:
    run = parse_nccl_tests(_read("nccl_allreduce_2node_16gpu_ib.txt"))
    assert run.collective == "all_reduce" and not run.truncated
    assert [r.size for r in run.rows] == _sizes(8, 8 * 1024**3)
    assert run.n_ranks == 16 and run.n_nodes == 2 and run.hosts == ["gpu-a01", "gpu-a02"]
    assert run.ranks[9].host == "gpu-a02" and run.ranks[9].bus_id == "0000:2a:00"
    assert run.ranks[0].name == "NVIDIA A800-SXM4-80GB" and run.ranks[0].group == 0
    assert (run.version, run.nccl_version) == ("2.17.6", "2.21.5")
    assert (run.n_threads, run.n_gpus, run.min_bytes, run.max_bytes) == (1, 1, 8, 8 * 1024**3)
    assert run.params["warmup iters"] == "5" and run.params["validation"] == "1"
    assert (run.out_of_bounds, run.out_of_bounds_ok, run.validation_failed) == (0, True, False)
    first, last = run.rows[0], run.rows[-1]
    assert (first.count, first.type, first.redop, first.root) == (2, "float", "sum", -1)
    assert (first.out_time_us, first.in_time_us) == (38.32, 38.05)
    assert (last.out_time_us, last.out_algbw, last.out_busbw, last.out_wrong) == (
        88022.1,
        97.59,
        182.98,
        0,
    )
    assert run.peak_busbw == 184.93
    assert run.avg_busbw == 62.2631
    assert run.recomputed_avg_busbw == pytest.approx(run.avg_busbw, abs=0.005)
    _check_busbw(run.rows, 16, "all_reduce")
    assert run.net.transport == "ib" and not run.net.socket_fallback
    assert [d.name for d in run.net.devices] == ["mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3"]
    assert run.net.oob_interface == "ens8f0" and run.net.network == "IB"
    assert run.net.gdr is True and run.net.nccl_version == "2.21.5+cuda12.4"
    assert run.skipped_lines == 0


def test_validation_failures_are_reported() -> None:
    text = _read("nccl_allreduce_2node_16gpu_ib.txt")
    text = text.replace("# Out of bounds values : 0 OK", "# Out of bounds values : 3 FAILED")
    lines = text.splitlines()
    i = next(k for k, ln in enumerate(lines) if ln.strip().startswith("1048576 "))
    lines[i] = lines[i][: lines[i].rindex("0")] + "12"
    run = parse_nccl_tests("\n".join(lines))
    assert (run.out_of_bounds, run.out_of_bounds_ok, run.validation_failed) == (3, False, True)
    bad = next(r for r in run.rows if r.size == 1048576)
    assert (bad.out_wrong, bad.in_wrong, bad.wrong) == (0, 12, 12)


def test_socket_fallback_is_reported() -> None:
    run = parse_nccl_tests(_read("nccl_allreduce_2node_socket_fallback.txt"))
    assert run.net.socket_fallback and run.net.transport == "socket"
    assert run.net.network == "Socket" and run.net.devices[0].name == "ens8f0"
    assert run.net.gdr is None
    assert run.peak_busbw is not None and run.peak_busbw < 10
    assert run.recomputed_avg_busbw == pytest.approx(run.avg_busbw, abs=0.005)


def test_mpi_prefixed_roce_run() -> None:
    run = parse_nccl_tests(_read("nccl_allreduce_mpi_prefixed_roce.txt"))
    assert len(run.rows) == len(_sizes(1024, 1024**3)) and not run.truncated
    assert run.rows[0].type == "half" and run.rows[0].count == 512
    assert run.n_ranks == 8 and run.hosts == ["roce-n1", "roce-n2"]
    assert run.avg_busbw == 16.6167
    assert run.recomputed_avg_busbw == pytest.approx(16.6167, abs=0.005)
    assert run.net.transport == "roce" and run.net.oob_interface == "ens1f0np0"
    _check_busbw(run.rows, 8, "all_reduce")


def test_old_build_error_column_no_root() -> None:
    run = parse_nccl_tests(_read("nccl_allreduce_oldformat_v100.txt"))
    assert run.wrong_column == "error" and run.version is None
    assert len(run.rows) == len(_sizes(8, 128 * 1024**2))
    assert all(r.root is None and r.redop == "sum" for r in run.rows)
    assert all(r.out_wrong == 0 and r.in_wrong == 0 for r in run.rows)
    assert run.ranks[3].group is None and run.ranks[3].bus_id == "0x0b"
    assert run.ranks[3].name == "Tesla V100-SXM2-32GB" and run.n_nodes == 1
    assert run.collective == "all_reduce"  # inferred from busbw/algbw = 2(n-1)/n
    assert run.avg_busbw == 37.5809
    assert run.recomputed_avg_busbw == pytest.approx(37.5809, abs=0.005)


def test_timestamp_column_and_all_gather_factor() -> None:
    run = parse_nccl_tests(_read("nccl_allgather_timestamps.txt"))
    assert run.collective == "all_gather" and len(run.rows) == 10
    assert run.rows[0].timestamp == "2025-03-01 10:15:00"
    assert run.rows[-1].timestamp == "2025-03-01 10:15:18"
    assert all(r.redop == "none" and r.root == -1 for r in run.rows)
    assert run.n_gpus == 8 and run.n_ranks == 8
    _check_busbw(run.rows, 8, "all_gather")
    assert run.recomputed_avg_busbw == pytest.approx(run.avg_busbw, abs=0.005)


def test_truncated_file_keeps_rows_read_so_far() -> None:
    run = parse_nccl_tests(_read("nccl_allreduce_2node_truncated.txt"))
    full = parse_nccl_tests(_read("nccl_allreduce_2node_16gpu_ib.txt"))
    assert run.truncated and run.avg_busbw is None and run.out_of_bounds is None
    assert run.rows == full.rows[:20]
    assert run.skipped_lines == 1  # the half row at the end
    assert run.recomputed_avg_busbw == average_bus_bandwidth(full.rows[:20])


def test_json_output() -> None:
    run = parse_nccl_tests_json(_read("nccl_allreduce_1node.json"))
    assert run.collective == "all_reduce" and not run.truncated
    assert len(run.rows) == len(_sizes(8, 1024**3))
    assert run.n_ranks == 8 and run.hosts == ["h100-solo"]
    assert run.ranks[5].bus_id == "0000:ab:00" and run.ranks[5].name == "NVIDIA H100 80GB HBM3"
    assert run.nccl_version == "2.21.5" and run.params["json_version"] == "2"
    assert (run.out_of_bounds, run.out_of_bounds_ok) == (0, True)
    assert all(r.root == -1 and r.redop == "sum" and r.type == "float" for r in run.rows)
    assert run.recomputed_avg_busbw == pytest.approx(run.avg_busbw, abs=1e-5)
    _check_busbw(run.rows, 8, "all_reduce")
    # parse_nccl_tests hands a JSON document to the JSON reader
    assert parse_nccl_tests(_read("nccl_allreduce_1node.json")) == run


def test_json_cut_mid_write() -> None:
    run = parse_nccl_tests_json(_read("nccl_allreduce_1node_cut.json"))
    full = parse_nccl_tests_json(_read("nccl_allreduce_1node.json"))
    assert run.truncated and run.avg_busbw is None
    assert run.collective == "all_reduce"
    assert 0 < len(run.rows) < len(full.rows)
    assert run.rows == full.rows[: len(run.rows)]


def test_not_nccl_tests_output() -> None:
    with pytest.raises(ParseError, match="not nccl-tests output"):
        parse_nccl_tests(_read("not_nccl_tests.log"))
    with pytest.raises(ParseError, match="not nccl-tests JSON"):
        parse_nccl_tests_json('{"hello": 1}')
    with pytest.raises(ParseError, match="not nccl-tests JSON"):
        parse_nccl_tests_json("{not json")
    with pytest.raises(ParseError, match="unreadable result"):
        parse_nccl_tests_json('{"results": [{"size": 8}]}')


def test_several_runs_in_one_log() -> None:
    text = _read("nccl_allreduce_2node_16gpu_ib.txt") + _read("nccl_allgather_timestamps.txt")
    runs = parse_nccl_tests_all(text)
    assert [r.collective for r in runs] == ["all_reduce", "all_gather"]
    assert [len(r.rows) for r in runs] == [31, 10]
    assert parse_nccl_tests(text).collective == "all_reduce"


def test_bus_bandwidth_factors() -> None:
    assert bus_bandwidth(100.0, 16) == pytest.approx(187.5)
    assert bus_factor(8, "all_gather_perf") == pytest.approx(7 / 8)
    assert bus_factor(8, "ReduceScatter") == pytest.approx(7 / 8)
    assert bus_factor(8, "alltoall") == pytest.approx(7 / 8)
    assert bus_factor(8, "broadcast") == 1.0 and bus_factor(8, "reduce") == 1.0
    assert bus_factor(1) == 0.0
    assert normalize_collective("/opt/nccl-tests/build/all_reduce_perf") == "all_reduce"
    with pytest.raises(ValueError, match="unknown collective"):
        bus_factor(8, "magic")
    with pytest.raises(ValueError, match="at least 1"):
        bus_factor(0)


def test_nccl_info_lines_alone() -> None:
    info = parse_nccl_info(
        "h:1:1 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [1]mlx5_2:1/RoCE ; "
        "OOB eth0:10.0.0.1<0>\n"
        "h:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 8[0] [send] via NET/IB/0\n"
    )
    assert info.transport == "roce" and info.gdr is False
    assert [(d.index, d.name, d.port) for d in info.devices] == [(0, "mlx5_0", 1), (1, "mlx5_2", 1)]
    assert parse_nccl_info("nothing here").transport is None


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 2**34), st.floats(0.1, 1e6), st.floats(0, 500), st.floats(0, 500)),
        min_size=1,
        max_size=12,
    )
)
def test_rows_printed_like_util_cu_read_back(rows: list[tuple[int, float, float, float]]) -> None:
    lines = ["# nThread 1 nGpus 8 minBytes 8 maxBytes 8 step: 2(factor) warmup iters: 5 iters: 20"]
    for size, t, alg, bus in rows:
        lines.append(
            f"{size:12d}  {size // 4:12d}  {'float':>8s}  {'sum':>6s}  {-1:6d}"
            + f"  {t:7.2f}  {alg:6.2f}  {bus:6.2f}  {0:6g}" * 2
        )
    run = parse_nccl_tests("\n".join(lines))
    assert run.truncated and len(run.rows) == len(rows)
    for row, (size, t, alg, bus) in zip(run.rows, rows, strict=True):
        assert row.size == size and row.count == size // 4
        assert row.in_time_us == float(f"{t:.2f}") and row.in_busbw == float(f"{bus:.2f}")
        assert row.out_algbw == float(f"{alg:.2f}")
    assert average_bus_bandwidth(run.rows) == pytest.approx(
        sum(float(f"{b:.2f}") for *_, b in rows) / len(rows)
    )
