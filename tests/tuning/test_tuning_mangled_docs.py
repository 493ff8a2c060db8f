"""Tuning readers given damaged text: a ParseError or a result, nothing else."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support.mangle import check_damaged_documents
from xyclaw.parsers import ibparse, nccltests

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


@pytest.mark.parametrize(("parse", "name"), CASES, ids=[n for _, n in CASES])
def test_damaged_documents_raise_only_parse_error(
    parse: Callable[[str], object], name: str
) -> None:
    check_damaged_documents(parse, (FIX / name).read_text())
