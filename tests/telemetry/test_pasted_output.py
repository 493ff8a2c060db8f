"""Issue 30 point 1: what users paste (prompts, traces, MPI prefixes, CRLF, indentation,
610-driver fields, XIDs split over lines, nccl-tests failures, damaged rank lines) is read."""

from __future__ import annotations

from pathlib import Path

import pytest

from xyclaw.parsers.ibparse import parse_ibstat, parse_ibv_devinfo
from xyclaw.parsers.kernel_log import parse_dmesg, xid_info
from xyclaw.parsers.nccltests import parse_nccl_tests
from xyclaw.parsers.nvsmi import parse_query_details, parse_query_header
from xyclaw.parsers.paste import read_paste
from xyclaw.telemetry.rules import xid_wording
from xyclaw.tuning.verdict import FAILED, judge

_DIR = Path(__file__).parent / "fixtures" / "pasted"


def _read(name: str) -> str:
    return (_DIR / name).read_bytes().decode()  # keep CRLF as pasted


def test_pre_cleaning_takes_off_what_surrounds_the_output() -> None:
    text = (
        "```\r\n(base) alice@h100-7:~/work$ ibstat -v\r\n+ hostname\r\n"
        "[1,0]<stdout>:CA 'mlx5_0'\r\n[1,0]<stdout>:\tCA type: MT4129\r\n```\r\n"
    )
    pasted = read_paste(text)
    assert pasted.text == "CA 'mlx5_0'\n\tCA type: MT4129\n"
    assert pasted.commands == ("ibstat -v", "hostname") and pasted.mpi_prefixed
    # nccl-tests' own "# " lines are output, not a root prompt
    assert (
        read_paste("# nThread 1 nGpus 8\n#  Rank  0\n").text == "# nThread 1 nGpus 8\n#  Rank  0\n"
    )
    quoted = read_paste("> $ ibstat\n> CA 'mlx5_0'\n>   Port 1:\n")
    assert quoted.text == "CA 'mlx5_0'\n  Port 1:\n" and quoted.command == "ibstat"


def test_ibstat_pasted_with_its_prompt_and_crlf() -> None:
    hcas = parse_ibstat(_read("ibstat_prompt_crlf.txt"))
    assert [h.name for h in hcas] == ["mlx5_0", "mlx5_1"]
    assert hcas[0].ports[0].is_active and hcas[0].ports[0].rate_gbps == 400
    assert not hcas[1].ports[0].is_active


def test_ibstat_behind_a_shell_trace() -> None:
    text = "+ ibstat\n" + _read("ibstat_prompt_crlf.txt").split("\n", 1)[1]
    assert len(parse_ibstat(text)) == 2


def test_ibv_devinfo_with_root_prompt_and_quote_indentation() -> None:
    hcas = parse_ibv_devinfo(_read("ibv_devinfo_root_prompt_indented.txt"))
    assert [h.name for h in hcas] == ["mlx5_0", "mlx5_2"]
    assert hcas[0].ports[0].is_active and not hcas[0].ports[0].is_roce
    assert hcas[1].ports[0].is_roce


def test_610_driver_fields() -> None:
    text = _read("nvsmi_q_610_banner.txt")
    for q in (parse_query_header(text), parse_query_details(text)):
        assert q.driver_version == "610.57.04" and q.kmd_version == "610.57.04"
        assert q.cuda_version == "13.2" and q.cuda_umd_version == "13.2"
    only_kmd = text.replace("KMD Version  ", "Other Field  ").replace(
        "Driver Version                            : 610.57.04",
        "Driver Version                            : 611.00.01",
    )
    assert parse_query_header(only_kmd).driver_version == "611.00.01"


def test_xid_pci_on_the_next_line_and_the_full_catalog() -> None:
    events = parse_dmesg(_read("dmesg_xid_pci_next_line.txt"))
    assert [e.code for e in events] == [79, 109, 38, 32]
    lost = events[0]
    assert lost.pci == "0000:5d:00" and lost.uuid == "GPU-7c1e0a55-2b8f-4d10-9e3a-0f6b2c9d8e71"
    # NVIDIA's catalog: 109 context switch timeout -> reset the GPU; 38 driver firmware error
    # (ignore on its own); 32 corrupted push buffer stream -> restart the application
    assert xid_info(109).description == "Context Switch Timeout Error"
    assert xid_info(109).bucket == "RESET_GPU" and events[1].severity == "critical"
    assert xid_info(38).description == "Driver firmware error" and xid_info(38).bucket == "IGNORE"
    assert xid_info(32).description == "Invalid or corrupted push buffer stream"
    assert xid_info(32).bucket == "RESTART_APP" and events[3].category == "application"
    what, do = xid_wording(109)
    assert what.in_language("en") == "Context Switch Timeout Error (NVIDIA's XID catalog)"
    assert what.in_language("zh") == "上下文切换超时（NVIDIA XID 目录）"
    assert do.in_language("zh") == "重置这块 GPU（或重启节点）后再用"
    assert "not in" not in what.in_language("en")


def test_nccl_failure_and_damaged_rank_lines_are_reported() -> None:
    run = parse_nccl_tests(_read("nccltests_mpi_lost_hash_failure.txt"))
    assert len(run.rows) == 2
    assert run.failed and run.failures[0].startswith("NCCL failure at common.cu:1005: ")
    assert "remote process exited or there was a network error" in run.failures[0]
    assert run.failures[1] == "test failure at common.cu:401"
    ranks = sorted(r.rank for r in run.ranks)
    assert ranks == [r for r in range(16) if r != 14]  # 11 kept without its '#'
    assert "rank 11's line had lost its '#'" in run.rank_problems
    assert any(p.startswith("unreadable rank line: Rank 14") for p in run.rank_problems)
    assert "1 of 16 ranks missing from the rank list: 14" in run.rank_problems
    verdict = judge([run], None)
    assert verdict.status == FAILED and verdict.cause_codes == ["test_failure"]
    assert "remote process exited" in verdict.causes[0].detail
    assert "1 of 16 ranks missing from the rank list: 14" in verdict.notes


@pytest.mark.parametrize("name", sorted(p.name for p in _DIR.glob("*.txt")))
def test_pre_cleaning_keeps_every_output_line(name: str) -> None:
    raw = _read(name)
    pasted = read_paste(raw)
    kept = [ln.strip() for ln in pasted.text.splitlines() if ln.strip()]
    dropped = sum(1 for ln in raw.splitlines() if ln.strip()) - len(kept)
    assert dropped == len(pasted.commands) + sum(
        1 for ln in raw.splitlines() if ln.strip().endswith(("~# ", "~#"))
    )
