"""Tuning readers given damaged text: a ParseError or a result, nothing else."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from xyclaw.errors import ParseError
from xyclaw.tuning import ibparse, nccltests

FIX = Path(__file__).parent / "fixtures"

CASES: list[tuple[Callable[[str], object], str]] = [
    (nccltests.parse_nccl_tests, "nccl_allreduce_2node_16gpu_ib.txt"),
    (nccltests.parse_nccl_tests, "nccl_allreduce_oldformat_v100.txt"),
    (nccltests.parse_nccl_tests, "nccl_allgather_timestamps.txt"),
    (nccltests.parse_nccl_tests_json, "nccl_allreduce_1node.json"),
    (ibparse.parse_ibstat, "ibstat_ib_ndr.txt"),
    (ibparse.parse_ibv_devinfo, "ibv_devinfo_v_roce.txt"),
    (ibparse.parse_show_gids, "show_gids_roce.txt"),
    (ibparse.parse_gid_sysfs, "gid_sysfs_roce.txt"),
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
