"""nvidia-smi -L, -q and topo -m: whole documents, and what is not one."""

from __future__ import annotations

from pathlib import Path

import pytest

from xyclaw.errors import ParseError
from xyclaw.parsers.nvsmi import parse_list, parse_query_details, parse_topology

FIX = Path(__file__).parent / "fixtures"


def _read(name: str) -> str:
    return (FIX / name).read_text()


def test_list_gpus() -> None:
    gpus = parse_list(_read("nvsmi_L_8gpu.txt"))
    assert [g.index for g in gpus] == list(range(8))
    assert gpus[7].uuid == "GPU-6d1c2e3f-8a41-4b7c-9e15-0f3a7c2b9d07"
    assert {g.name for g in gpus} == {"NVIDIA H100 80GB HBM3"}
    assert all(g.mig_devices == () for g in gpus)


def test_list_with_mig_devices() -> None:
    gpus = parse_list(_read("nvsmi_L_mig.txt"))
    assert len(gpus) == 2
    assert [(m.profile, m.device) for m in gpus[0].mig_devices] == [
        ("3g.40gb", 0),
        ("2g.20gb", 1),
        ("1g.10gb", 2),
    ]
    assert gpus[0].mig_devices[0].uuid == "MIG-8a7b6c5d-4e3f-5a2b-9c1d-0e1f2a3b4c5d"
    assert gpus[1].mig_devices == ()


def test_list_errors() -> None:
    assert parse_list("No devices were found\n") == []
    with pytest.raises(ParseError, match="not nvidia-smi -L output"):
        parse_list("bash: nvidia-smi: command not found\n")
    with pytest.raises(ParseError, match="unreadable line"):
        parse_list("GPU 0: NVIDIA H100 (UUID: GPU-1)\nGPU one: broken\n")


def test_query_old_ecc_layout_and_active_throttle_reasons() -> None:
    q = parse_query_details(_read("nvsmi_q_v100_ecc_throttle.txt"))
    assert (q.driver_version, q.cuda_version, q.attached_gpus) == ("470.223.02", "11.4", 2)
    g0, g1 = q.gpus
    assert g0.pci_bus_id == "00000000:06:00.0" and g0.product_name == "Tesla V100-SXM2-32GB"
    assert g0.uuid == "GPU-3b8f1a2c-7d4e-5f60-8192-a3b4c5d6e7f8"
    assert (g0.ecc_uncorrected_volatile, g0.ecc_uncorrected_aggregate) == (1, 2)
    assert (g0.ecc_corrected_volatile, g0.ecc_corrected_aggregate) == (3, 17)
    assert g0.ecc_volatile["Double Bit Device Memory"] == 1
    assert g0.retired_pages_double_bit == 2
    assert g0.throttle_reason_names == ["sw_power_cap"]
    assert g0.clock_event_reasons["SW Power Cap"] is True
    assert (g0.power_draw_w, g0.power_limit_w, g0.temperature_c) == (299.41, 300.0, 74)
    assert (g0.memory_used_mib, g0.memory_total_mib, g0.utilization_gpu) == (30122, 32510, 99)
    assert (g0.clocks_sm_mhz, g0.clocks_mem_mhz) == (1312, 877)
    assert g1.ecc_uncorrected_volatile == 0
    assert g1.throttle_reason_names == ["hw_slowdown", "sw_thermal_slowdown", "hw_thermal_slowdown"]
    assert g1.clock_event_reasons["HW Thermal Slowdown"] is True


def test_query_ampere_ecc_layout_with_dram_errors() -> None:
    (g,) = parse_query_details(_read("nvsmi_q_d_ecc_perf_h100_dram_error.txt")).gpus
    assert g.ecc_mode == "Enabled"
    assert (g.ecc_uncorrected_volatile, g.ecc_corrected_volatile) == (2, 12)
    assert (g.ecc_uncorrected_aggregate, g.ecc_corrected_aggregate) == (2, 40)
    assert g.throttle_reasons == 0 and g.pstate == "P0"
    assert (g.remapped_rows_uncorrectable, g.remapped_rows_pending) == (2, True)
    assert g.remapping_failure is False
    assert g.power_draw_w is None  # not in a -d ECC,PERFORMANCE excerpt


def test_query_rejects_other_text() -> None:
    with pytest.raises(ParseError, match="not nvidia-smi -q output"):
        parse_query_details("Tue Mar  4 10:00:00 2025\n+-----+\n| NVIDIA-SMI 550 |\n")


@pytest.mark.parametrize("name", ["topo_h100_8gpu_4nic.txt", "topo_h100_8gpu_4nic_ansi.txt"])
def test_topology_8_gpus_4_nics(name: str) -> None:
    t = parse_topology(_read(name))
    assert t.gpus == [f"GPU{i}" for i in range(8)]
    assert t.nics == ["NIC0", "NIC1", "NIC2", "NIC3"]
    assert t.link("GPU0", "GPU0") == "X"
    assert all(t.nvlinks(a, b) == 18 for a in t.gpus for b in t.gpus if a != b)
    assert t.link("GPU0", "NIC0") == "PXB" and t.link("GPU0", "NIC1") == "NODE"
    assert t.link("GPU0", "NIC2") == "SYS" and t.link("NIC3", "NIC2") == "NODE"
    assert [t.nearest_nics(g) for g in t.gpus] == [
        ["NIC0"],
        ["NIC0"],
        ["NIC1"],
        ["NIC1"],
        ["NIC2"],
        ["NIC2"],
        ["NIC3"],
        ["NIC3"],
    ]
    assert t.nic_name("NIC2") == "mlx5_2"
    assert t.cpu_affinity["GPU5"] == "56-111,168-223" and t.numa_affinity["GPU5"] == "1"
    assert t.gpu_numa_id["GPU0"] is None
    assert "NIC0" not in t.cpu_affinity


def test_topology_errors() -> None:
    with pytest.raises(ParseError, match="no column header with GPU0"):
        parse_topology("nvidia-smi: command not found\n")
    text = _read("topo_h100_8gpu_4nic.txt").replace("NV18", "0-55,112", 1)
    with pytest.raises(ParseError, match="row GPU0, column GPU1"):
        parse_topology(text)
    cut = "\n".join(_read("topo_h100_8gpu_4nic.txt").splitlines()[:3])[:-40]
    with pytest.raises(ParseError, match="cells, expected 12"):
        parse_topology(cut)
