"""Issue 30 point 1: the plain ``nvidia-smi`` table, the output people paste most."""

from __future__ import annotations

from pathlib import Path

import pytest

from xyclaw.errors import ParseError
from xyclaw.parsers.nvsmi_table import NvsmiTable, looks_like_table, parse_table

_DIR = Path(__file__).parent / "fixtures" / "pasted"


def _table(name: str) -> NvsmiTable:
    return parse_table((_DIR / name).read_text())


def test_the_79_column_table_of_older_drivers() -> None:
    t = _table("nvsmi_table_470_4x_v100.txt")
    assert (t.smi_version, t.driver_version, t.cuda_version) == ("470.182.03", "470.182.03", "11.4")
    assert t.timestamp_text == "Mon Mar  4 11:20:05 2024"
    assert [g.sample.index for g in t.gpus] == [0, 1, 2, 3]
    busy = t.gpus[0].sample
    assert (busy.name, busy.pci_bus_id, busy.pstate) == (
        "Tesla V100-SXM2...",
        "00000000:00:1B.0",
        "P0",
    )
    assert (busy.memory_used_mib, busy.memory_total_mib, busy.utilization_gpu) == (14301, 16160, 97)
    assert (busy.power_draw_w, busy.power_limit_w, busy.temperature_c) == (162.0, 300.0, 44)
    assert t.gpus[2].sample.ecc_uncorrected == 2 and t.gpus[2].sample.utilization_gpu == 0
    assert [(p.gpu, p.pid, p.name, p.memory_mib) for p in t.processes] == [
        (0, 23411, "python", 14298),
        (1, 23412, "python", 14298),
        (3, 23414, "python", 14298),
    ]
    assert t.gpus[0].persistence == "On" and t.gpus[0].compute_mode == "Default"


def test_a_consumer_card_on_windows_with_the_418_process_box() -> None:
    t = _table("nvsmi_table_418_rtx_windows.txt")
    g = t.gpus[0]
    assert g.persistence == "WDDM" and g.display_active == "On"
    assert (g.sample.fan_speed, g.sample.temperature_c, g.sample.ecc_uncorrected) == (41, 67, None)
    assert [(p.pid, p.kind, p.memory_mib) for p in t.processes] == [
        (1208, "C+G", None),
        (9920, "C", None),
    ]
    assert t.timestamp_text == "Wed Jan 15 20:41:09 2020"  # the PowerShell prompt is not it


def test_mig_devices_and_their_processes() -> None:
    t = _table("nvsmi_table_575_h100_mig.txt")
    g = t.gpus[0]
    assert g.mig_mode == "Enabled" and g.sample.utilization_gpu is None
    assert g.sample.ecc_uncorrected is None  # "On" there is the ECC mode, not a count
    assert [
        (m.gi, m.device, m.memory_used_mib, m.memory_total_mib, m.sm_count) for m in t.mig_devices
    ] == [
        (1, 0, 4160, 40192, 60),
        (5, 1, 15, 19968, 32),
    ]
    (p,) = t.processes
    assert (p.gi, p.ci, p.pid, p.name, p.memory_mib) == (
        1,
        0,
        88012,
        "python -m vllm.entrypoints.openai",
        4120,
    )
    assert not t.no_processes


def test_no_running_processes_and_crlf() -> None:
    text = (_DIR / "nvsmi_table_470_4x_v100.txt").read_text()
    head = text[: text.index("| Processes")].rstrip("\n").rsplit("\n", 1)[0] + "\n"
    box = (
        "+----------------------------------+\n| Processes:                       |\n"
        "|==================================|\n|  No running processes found      |\n"
        "+----------------------------------+\n"
    )
    t = parse_table((head + box).replace("\n", "\r\n"))
    assert t.no_processes and not t.processes and len(t.gpus) == 4


def test_text_without_a_gpu_box_says_what_it_expected() -> None:
    assert not looks_like_table("hca_id:\tmlx5_0\n")
    with pytest.raises(ParseError, match="no GPU box"):
        parse_table("+------+\n| NVIDIA-SMI 550.54.15  Driver Version: 550.54.15 |\n+------+\n")
