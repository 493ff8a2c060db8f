"""Whole-document readers given damaged text: a ParseError or a result, nothing else."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support.mangle import check_damaged_documents
from xyclaw.parsers import joblog, kernel_log, nic, nvsmi

FIX = Path(__file__).parent / "fixtures"

CASES: list[tuple[Callable[[str], object], str]] = [
    (nvsmi.parse_list, "nvsmi_L_mig.txt"),
    (nvsmi.parse_query_details, "nvsmi_q_v100_ecc_throttle.txt"),
    (nvsmi.parse_topology, "topo_h100_8gpu_4nic.txt"),
    (nvsmi.parse_csv, "nvsmi_header_units_8gpu.csv"),
    (nic.parse_proc_net_dev, "proc_net_dev_t0.txt"),
    (nic.parse_ib_counters, "ib_counters_t0.txt"),
    (kernel_log.parse_dmesg, "dmesg_xid_mixed.txt"),
    (joblog.parse_job_log, "train_plain_watchdog.log"),
]


@pytest.mark.parametrize(("parse", "name"), CASES, ids=[n for _, n in CASES])
def test_damaged_documents_raise_only_parse_error(
    parse: Callable[[str], object], name: str
) -> None:
    check_damaged_documents(parse, (FIX / name).read_text())
