"""Whole-document readers given damaged text: a ParseError or a result, nothing else."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from xyclaw.errors import ParseError
from xyclaw.telemetry import joblog, kernel_log, nic, nvsmi

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
_NOISE = "0123456789abcdefXN/A[]:,. \t\n-#{}\"'|x=()%"


@st.composite
def mangled(draw: st.DrawFn, text: str) -> str:
    for _ in range(draw(st.integers(1, 8))):
        i = draw(st.integers(0, len(text)))
        op = draw(st.sampled_from(["cut", "insert", "delete"]))
        if op == "cut":
            text = text[:i]
        elif op == "insert":
            text = text[:i] + draw(st.text(_NOISE, min_size=1, max_size=12)) + text[i:]
        else:
            text = text[:i] + text[i + draw(st.integers(1, 40)) :]
    return text


@pytest.mark.parametrize(("parse", "name"), CASES, ids=[n for _, n in CASES])
def test_damaged_documents_raise_only_parse_error(
    parse: Callable[[str], object], name: str
) -> None:
    original = (FIX / name).read_text()

    @settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(mangled(original))
    def check(text: str) -> None:
        try:
            parse(text)
        except ParseError as exc:
            assert exc.message

    check()
