"""The tuning parsers against outputs captured on real machines
(../shared/fixtures/real, see its SOURCES.md); skipped where that folder is absent."""

from __future__ import annotations

from pathlib import Path

import pytest

from xyclaw.errors import ParseError
from xyclaw.parsers.ibparse import parse_ibv_devinfo
from xyclaw.parsers.nccltests import bus_bandwidth, parse_nccl_info, parse_nccl_tests


def _text(root: Path, name: str) -> str:
    path = root / name
    if not path.is_file():
        pytest.skip(f"{name} is not among the real fixtures")
    return path.read_text()


def test_every_real_nccl_tests_file_recomputes_its_footer(real_fixtures: Path) -> None:
    files = sorted(real_fixtures.glob("nccltests_*.txt"))
    assert files
    for f in files:
        run = parse_nccl_tests(f.read_text())
        assert not run.truncated and run.avg_busbw is not None, f.name
        assert run.recomputed_avg_busbw == pytest.approx(run.avg_busbw, abs=0.01), f.name
        n = run.n_ranks
        assert n is not None
        for row in run.rows:
            if row.in_algbw >= 1:
                assert row.in_busbw == pytest.approx(bus_bandwidth(row.in_algbw, n), abs=0.02)


def test_h100_ten_nodes(real_fixtures: Path) -> None:
    run = parse_nccl_tests(_text(real_fixtures, "nccltests_allreduce_h100_10node_80gpu.txt"))
    assert len(run.rows) == 10 and run.avg_busbw == 265.631
    assert run.recomputed_avg_busbw == pytest.approx(265.632, abs=1e-6)
    assert run.n_ranks == 80 and run.n_nodes == 10
    assert run.hosts == [f"cnode3-{i:03d}" for i in range(2, 12)]
    assert (run.version, run.nccl_version, run.collective) == ("2.17.8", "2.29.2", "all_reduce")
    assert (run.n_threads, run.n_gpus, run.max_bytes) == (1, 1, 68719476736)
    assert run.peak_busbw == 364.07
    first, last = run.rows[0], run.rows[-1]
    assert (first.size, first.count, first.type, first.root) == (33554432, 4194304, "double", -1)
    assert (last.size, last.out_time_us, last.in_time_us) == (17179869184, 105854.0, 105146.0)
    assert any("Reducing maxBytes to 26549638485" in n for n in run.notes)
    assert run.out_of_bounds_ok is True and run.ranks[79].bus_id == "0000:df:00"


def test_h100_one_node(real_fixtures: Path) -> None:
    run = parse_nccl_tests(_text(real_fixtures, "nccltests_allreduce_h100_1node_8gpu.txt"))
    assert (len(run.rows), run.avg_busbw, run.peak_busbw) == (10, 437.957, 482.27)
    assert run.n_nodes == 1 and run.hosts == ["cnode3-002"]


def test_a100_old_format(real_fixtures: Path) -> None:
    run = parse_nccl_tests(
        _text(real_fixtures, "nccltests_allreduce_a100_1node_8gpu_oldformat.txt")
    )
    assert len(run.rows) == 34 and run.avg_busbw == 68.4048
    assert run.wrong_column == "error" and run.version is None
    assert all(r.root is None and r.in_wrong is None and r.out_wrong is None for r in run.rows)
    assert run.rows[0].size == 0 and run.rows[-1].in_busbw == 235.03
    assert (run.n_gpus, run.n_ranks, run.params["validation"]) == (8, 8, "0")
    assert {r.host for r in run.ranks} == {"localhost"} and run.ranks[0].group is None
    assert run.ranks[0].name == "A100-SXM4-40GB" and run.ranks[0].bus_id == "0x00"
    assert run.collective == "all_reduce"
    assert run.net.info_lines == 1 and run.skipped_lines == 0


def test_torch_benchmark_log_is_not_nccl_tests_but_names_the_transport(
    real_fixtures: Path,
) -> None:
    text = _text(real_fixtures, "nccl_info_torch_allreduce_a100_4node_omnipath.log")
    with pytest.raises(ParseError, match="not nccl-tests output"):
        parse_nccl_tests(text)
    info = parse_nccl_info(text)
    assert info.transport == "ib" and info.network == "IB" and not info.socket_fallback
    assert [d.name for d in info.devices] == ["hfi1_1", "hfi1_0", "hfi1_2", "hfi1_3"]
    assert info.oob_interface == "ib0" and info.gdr is False
    assert info.nccl_version == "2.10.3+cuda11.3"


def test_mixed_ib_and_roce_devices(real_fixtures: Path) -> None:
    info = parse_nccl_info(
        _text(real_fixtures, "nccl_info_ib_roce_mixed_azure_completion_error.txt")
    )
    assert info.transports == ("ib", "roce") and info.transport == "mixed"
    assert [(d.name, d.link) for d in info.devices] == [
        ("ibP111p0s0", "IB"),
        ("rdmaP1111p0s2", "RoCE"),
    ]
    assert info.oob_interface == "eth0" and len(info.warnings) == 1


def test_ibv_devinfo_two_connectx3(real_fixtures: Path) -> None:
    hcas = parse_ibv_devinfo(_text(real_fixtures, "ibv_devinfo_cx3_mlx4_ib_2hca.txt"))
    assert [h.name for h in hcas] == ["mlx4_1", "mlx4_0"]
    assert {h.firmware for h in hcas} == {"2.42.5000"} and hcas[0].vendor_part_id == "4099"
    assert [(p.port, p.state, p.lid) for p in hcas[0].ports] == [(1, "ACTIVE", 22), (2, "DOWN", 0)]
    assert [(p.port, p.state, p.sm_lid) for p in hcas[1].ports] == [
        (1, "ACTIVE", 18),
        (2, "DOWN", 0),
    ]
    assert all(p.link_layer == "InfiniBand" and p.active_mtu == 4096 for h in hcas for p in h.ports)


def test_ibv_devinfo_verbose_port(real_fixtures: Path) -> None:
    (hca,) = parse_ibv_devinfo(_text(real_fixtures, "ibv_devinfo_v_cx3_mlx4_port2.txt"))
    (p,) = hca.ports
    assert (p.port, p.state, p.phys_state) == (2, "DOWN", "POLLING")
    assert (p.width, p.speed_gbps, p.rate_gbps) == ("4X", 2.5, 10.0)
    assert [(g.index, g.gid) for g in p.gids] == [(0, "fe80:0000:0000:0000:7cfe:9003:00a5:95c2")]
    assert hca.board_id == "MT_1090120019"
