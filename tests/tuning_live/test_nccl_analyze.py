"""`xyclaw nccl analyze` on nccl-tests logs written to the documented formats."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from xyclaw.cli.main import main

FIXTURES = Path(__file__).resolve().parents[1] / "tuning" / "fixtures"
_ROW = re.compile(r"^(?:\[\d+,\d+\]<stdout>:)?\s*(\d+)\s+(\d+)\s+\w+\s")


def _rows_by_hand(path: Path) -> list[list[float]]:
    """Each result row's busbw values (out-of-place, in-place), read without the parser."""
    out = []
    for line in path.read_text().splitlines():
        if not _ROW.match(line) or "NCCL" in line:
            continue
        cells = line.split(":", 1)[1].split() if line.startswith("[") else line.split()
        numbers = [c for c in cells[3:] if re.fullmatch(r"-?\d+(\.\d+)?(e[+-]\d+)?", c)]
        if len(numbers) < 8:
            continue  # a row cut off mid-line
        # ... root, then (time algbw busbw wrong) twice; busbw sits third from each group's end.
        out.append([float(numbers[-6]), float(numbers[-2])])
    return out


def _footer_avg(path: Path) -> float:
    m = re.search(r"# Avg bus bandwidth\s*:\s*(\S+)", path.read_text())
    assert m is not None
    return float(m.group(1))


def _analyze(capsys: pytest.CaptureFixture[str], *args: str) -> dict:
    code = main(["nccl", "analyze", *args, "--json"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return json.loads(captured.out)


def test_two_node_infiniband_log_every_row_peak_average_transport(
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = FIXTURES / "nccl_allreduce_2node_16gpu_ib.txt"
    by_hand = _rows_by_hand(path)
    got = _analyze(capsys, str(path), "--fabric", "ib-hdr-200")

    assert len(got["rows"]) == len(by_hand) > 20
    assert [[r["out_busbw"], r["in_busbw"]] for r in got["rows"]] == by_hand
    assert got["peak_busbw_gbs"] == max(max(pair) for pair in by_hand)
    assert got["avg_busbw_gbs"] == _footer_avg(path)
    assert got["avg_busbw_recomputed_gbs"] == pytest.approx(_footer_avg(path), abs=0.01)
    assert (got["ranks"], got["nodes"], got["gpus_per_node"]) == (16, 2, 8)
    assert got["transport"] == "ib" and not got["socket_fallback"]
    assert got["gdr"] is True
    verdict = got["verdict"]
    assert verdict["healthy"]
    # 4 HDR NICs per node as NCCL listed them: 4 x 200 Gb/s / 8 = 100 GB/s.
    assert verdict["expected"]["busbw_gbs"] == 100.0
    assert verdict["ratio"] == pytest.approx(got["peak_busbw_gbs"] / 100.0, abs=1e-3)


def test_text_report_names_rows_peak_average_transport_and_verdict(
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = FIXTURES / "nccl_allreduce_2node_16gpu_ib.txt"
    assert main(["nccl", "analyze", str(path), "--fabric", "ib-hdr-200"]) == 0
    out = capsys.readouterr().out
    assert "16 rank(s) on 2 node(s), 8 GPU(s) per node" in out
    assert "transport: ib (mlx5_0 mlx5_1 mlx5_2 mlx5_3), GPUDirect RDMA on" in out
    assert re.search(r"peak bus bandwidth:\s+184\.93 GB/s \(at 8 GiB\)", out)
    assert f"average bus bandwidth: {_footer_avg(path):g} GB/s" in out
    assert "verdict: healthy" in out
    printed = [line for line in out.splitlines() if re.match(r"^\s+\d+ (B|KiB|MiB|GiB) ", line)]
    assert len(printed) == len(_rows_by_hand(path))


def test_socket_fallback_is_named_as_the_cause(capsys: pytest.CaptureFixture[str]) -> None:
    path = FIXTURES / "nccl_allreduce_2node_socket_fallback.txt"
    got = _analyze(capsys, str(path), "--fabric", "ib-hdr-200")
    assert got["transport"] == "socket" and got["socket_fallback"]
    assert got["verdict"]["status"] == "low"
    assert got["verdict"]["ratio"] < 0.1
    assert got["verdict"]["causes"][0]["code"] == "socket_fallback"


def test_json_log(capsys: pytest.CaptureFixture[str]) -> None:
    path = FIXTURES / "nccl_allreduce_1node.json"
    doc = json.loads(path.read_text())
    got = _analyze(capsys, str(path))
    assert len(got["rows"]) == len(doc["results"])
    assert got["peak_busbw_gbs"] == max(
        max(r["out_of_place"]["bus_bw"], r["in_place"]["bus_bw"]) for r in doc["results"]
    )
    assert got["avg_busbw_recomputed_gbs"] == pytest.approx(got["avg_busbw_gbs"], abs=0.01)
    assert (got["nodes"], got["gpus_per_node"], got["gpu"]) == (1, 8, "H100")
    # One node: judged against NVLink (H100: 900 GB/s both ways, 450 one way).
    assert got["verdict"]["expected"]["path"] == "nvlink"
    assert got["verdict"]["expected"]["busbw_gbs"] == 450.0
    assert got["verdict"]["healthy"]


def test_mpi_prefixed_roce_log(capsys: pytest.CaptureFixture[str]) -> None:
    path = FIXTURES / "nccl_allreduce_mpi_prefixed_roce.txt"
    by_hand = _rows_by_hand(path)
    got = _analyze(capsys, str(path), "--fabric", "roce-100")
    assert [[r["out_busbw"], r["in_busbw"]] for r in got["rows"]] == by_hand
    assert (got["nodes"], got["gpus_per_node"]) == (2, 4)
    assert got["transport"] == "roce"
    assert got["avg_busbw_recomputed_gbs"] == pytest.approx(_footer_avg(path), abs=0.01)
    assert got["verdict"]["status"] == "healthy"


def test_old_format_log_with_error_column(capsys: pytest.CaptureFixture[str]) -> None:
    path = FIXTURES / "nccl_allreduce_oldformat_v100.txt"
    got = _analyze(capsys, str(path))
    assert len(got["rows"]) == len(_rows_by_hand(path))
    assert got["rows"][0]["root"] is None
    assert got["avg_busbw_recomputed_gbs"] == pytest.approx(_footer_avg(path), abs=0.01)
    # V100 is in the catalog (issue 29): the single-node run is judged against its NVLink
    assert got["verdict"]["status"] == "healthy"
    assert not any("unknown GPU model" in n for n in got["notes"])


def test_truncated_log_is_reported_cut_and_not_judged_low(
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = FIXTURES / "nccl_allreduce_2node_truncated.txt"
    got = _analyze(capsys, str(path), "--fabric", "ib-hdr-200")
    assert got["truncated"] and got["avg_busbw_gbs"] is None
    assert len(got["rows"]) == len(_rows_by_hand(path))
    assert got["verdict"]["status"] == "unknown"
    assert any("cut off" in n for n in got["verdict"]["notes"])


def test_multi_node_without_fabric_asks_for_it(capsys: pytest.CaptureFixture[str]) -> None:
    got = _analyze(capsys, str(FIXTURES / "nccl_allreduce_2node_16gpu_ib.txt"))
    assert got["verdict"]["status"] == "unknown"
    assert any("--fabric" in n for n in got["notes"])


def test_options_override_what_the_log_says(capsys: pytest.CaptureFixture[str]) -> None:
    path = FIXTURES / "nccl_allreduce_2node_16gpu_ib.txt"
    got = _analyze(capsys, str(path), "--fabric", "ib-hdr-200", "--nics", "8")
    assert got["verdict"]["expected"]["busbw_gbs"] == 200.0
    assert got["verdict"]["healthy"]


def test_not_nccl_tests_output_is_a_clear_error(capsys: pytest.CaptureFixture[str]) -> None:
    path = FIXTURES / "not_nccl_tests.log"
    assert main(["nccl", "analyze", str(path)]) == 1
    err = capsys.readouterr().err
    assert str(path) in err and "not nccl-tests output" in err


def test_bad_input_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["nccl", "analyze", str(tmp_path / "missing.log")]) == 2
    assert "no such file" in capsys.readouterr().err
    path = FIXTURES / "nccl_allreduce_2node_16gpu_ib.txt"
    assert main(["nccl", "analyze", str(path), "--fabric", "token-ring-4"]) == 2
    assert "not a fabric" in capsys.readouterr().err
