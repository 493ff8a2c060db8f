"""The telemetry parsers against outputs captured on real machines
(../shared/fixtures/real, see its SOURCES.md); skipped where that folder is absent."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from xyclaw.parsers.joblog import (
    CheckpointEvent,
    CudaErrorEvent,
    EvalEvent,
    NcclErrorEvent,
    NcclTimeoutEvent,
    ProcessExitEvent,
    ProgressEvent,
    TrainEndEvent,
    parse_job_log,
)
from xyclaw.parsers.kernel_log import parse_dmesg
from xyclaw.parsers.nvsmi import NvsmiCsvParser, parse_csv, parse_query_details, parse_topology


def _text(root: Path, name: str) -> str:
    path = root / name
    if not path.is_file():
        pytest.skip(f"{name} is not among the real fixtures")
    return path.read_text()


def test_every_real_csv_parses_without_bad_lines(real_fixtures: Path) -> None:
    files = sorted(real_fixtures.glob("nvsmi_csv_*.csv"))
    assert files
    for f in files:
        parser = NvsmiCsvParser()
        samples = parser.feed_many(f.read_text().splitlines())
        assert samples and parser.bad_lines == 0, (f.name, parser.last_error)


def test_h100_all_fields_idle(real_fixtures: Path) -> None:
    (s,) = parse_csv(_text(real_fixtures, "nvsmi_csv_h100_590_idle_allfields.csv"))
    assert (s.index, s.name, s.pstate) == (0, "NVIDIA H100 80GB HBM3", "P0")
    assert s.timestamp == datetime(2026, 7, 14, 8, 12, 38, 696000, tzinfo=UTC).timestamp()
    assert (s.memory_used_mib, s.memory_total_mib, s.memory_free_mib) == (0, 81559, 81081)
    assert (s.power_draw_w, s.power_limit_w, s.temperature_c) == (69.85, 700.0, 41)
    assert (s.clocks_sm_mhz, s.clocks_mem_mhz) == (345, 2619)
    assert (s.utilization_gpu, s.utilization_memory, s.ecc_uncorrected) == (0, 0, 0)
    assert s.throttle_reason_names == ["gpu_idle"] and s.fan_speed is None
    assert s.pci_bus_id == "00000000:00:09.0"


def test_h200_mig_under_load(real_fixtures: Path) -> None:
    (s,) = parse_csv(_text(real_fixtures, "nvsmi_csv_h200mig_590_load_allfields.csv"))
    assert s.name == "NVIDIA H200" and s.utilization_gpu is None  # [N/A] under MIG
    assert (s.memory_used_mib, s.memory_total_mib) == (16959, 143771)
    assert (s.power_draw_w, s.clocks_sm_mhz, s.clocks_mem_mhz) == (295.01, 1980, 3201)
    assert s.throttle_reasons == 0 and s.temperature_c == 36


def test_a100_pcie_header_with_units(real_fixtures: Path) -> None:
    samples = parse_csv(_text(real_fixtures, "nvsmi_csv_2x_a100pcie_555_header_units.csv"))
    assert [s.pci_bus_id for s in samples] == ["00000000:12:00.0", "00000000:8A:00.0"]
    assert [s.temperature_c for s in samples] == [39, 37]
    assert {
        (s.name, s.memory_total_mib, s.memory_used_mib, s.utilization_gpu) for s in samples
    } == {("NVIDIA A100-PCIE-40GB", 40960, 1, 0)}
    assert samples[0].index is None  # not asked for


def test_query_h100_under_load(real_fixtures: Path) -> None:
    q = parse_query_details(_text(real_fixtures, "nvsmi_q_h100_590_load.txt"))
    assert (q.driver_version, q.cuda_version, q.attached_gpus) == ("590.48.01", "13.1", 1)
    (g,) = q.gpus
    assert g.pci_bus_id == "00000000:00:09.0" and g.ecc_mode == "Enabled"
    assert (g.ecc_uncorrected_volatile, g.ecc_uncorrected_aggregate) == (0, 0)
    assert g.throttle_reasons == 0 and len(g.clock_event_reasons) == 9
    assert (g.power_draw_w, g.power_limit_w) == (588.39, 700.0)
    assert (g.utilization_gpu, g.memory_used_mib, g.temperature_c) == (100, 19818, 59)
    assert (g.remapped_rows_pending, g.remapping_failure) == (False, False)


def test_query_h800_old_throttle_section(real_fixtures: Path) -> None:
    q = parse_query_details(_text(real_fixtures, "nvsmi_q_h800_525_gpu0.txt"))
    assert q.attached_gpus == 8 and len(q.gpus) == 1
    (g,) = q.gpus
    assert g.uuid == "GPU-34bf77d1-c686-6821-79a8-32d326c5039c"
    assert g.ecc_mode == "Disabled" and g.ecc_uncorrected_volatile is None
    assert g.throttle_reason_names == ["gpu_idle"] and g.clock_event_reasons["Idle"] is True
    assert (g.power_draw_w, g.temperature_c, g.minor_number) == (74.71, 35, 0)


def test_query_ecc_and_performance_sections(real_fixtures: Path) -> None:
    ecc = parse_query_details(_text(real_fixtures, "nvsmi_q_d_ecc_2x_a100pcie_555.txt"))
    assert [g.pci_bus_id for g in ecc.gpus] == ["00000000:12:00.0", "00000000:8A:00.0"]
    for g in ecc.gpus:
        assert g.ecc_mode == "Enabled"
        assert (g.ecc_uncorrected_volatile, g.ecc_corrected_aggregate) == (0, 0)
        assert g.ecc_volatile["SRAM Uncorrectable SEC-DED"] == 0
    perf = parse_query_details(_text(real_fixtures, "nvsmi_q_d_performance_2x_a100pcie_555.txt"))
    assert [(g.pstate, g.throttle_reasons) for g in perf.gpus] == [("P0", 1), ("P0", 1)]


def test_topology_a800_8_gpus_4_nics(real_fixtures: Path) -> None:
    t = parse_topology(_text(real_fixtures, "topo_a800_8gpu_4nic.txt"))
    assert t.gpus == [f"GPU{i}" for i in range(8)] and t.nics == ["NIC0", "NIC1", "NIC2", "NIC3"]
    assert all(t.nvlinks(a, b) == 8 for a in t.gpus for b in t.gpus if a != b)
    assert t.link("GPU1", "NIC0") == "PIX" and t.link("GPU0", "NIC0") == "NODE"
    assert t.link("GPU0", "NIC2") == "SYS" and t.link("NIC2", "NIC3") == "PIX"
    assert t.nearest_nics("GPU1") == ["NIC0"] and t.nearest_nics("GPU3") == ["NIC1"]
    assert t.nearest_nics("GPU7") == ["NIC2", "NIC3"]
    assert t.nic_names == {f"NIC{i}": f"mlx5_{i}" for i in range(4)}
    assert t.cpu_affinity["GPU0"] == "0-31,64-95" and t.numa_affinity["GPU4"] == "1"


def test_topology_pcie_nvlink_bridge_and_ansi_header(real_fixtures: Path) -> None:
    t = parse_topology(_text(real_fixtures, "topo_2x_h100pcie_nvlink_bridge_nv12.txt"))
    assert t.devices == ("GPU0", "GPU1") and t.nvlinks("GPU0", "GPU1") == 12
    assert t.numa_affinity == {"GPU0": "1", "GPU1": "1"}
    assert t.gpu_numa_id == {"GPU0": None, "GPU1": None}
    one = parse_topology(_text(real_fixtures, "topo_h100_1gpu_ansi_underline_header.txt"))
    assert one.devices == ("GPU0",) and one.link("GPU0", "GPU0") == "X"
    assert one.cpu_affinity == {"GPU0": "0-19"} and one.numa_affinity == {"GPU0": "0"}


def test_xid_119_gsp_timeouts(real_fixtures: Path) -> None:
    events = parse_dmesg(_text(real_fixtures, "xid_dmesg_T_xid119_gsp_timeout.txt"))
    assert [e.code for e in events] == [119] * 5
    assert {e.pci for e in events} == {"0000:9b:00"}
    assert {e.uuid for e in events} == {"GPU-509665ad-b600-ac93-3616-d754b23d636d"}
    assert (events[0].pid, events[0].process) == (2024380, "nvidia-smi")
    assert events[-1].process == "gpud" and events[-1].category == "gsp"
    assert events[0].time_text == "Sun Feb 23 16:24:18 2025"
    assert events[0].text.startswith("Timeout after 6s of waiting for RPC response from GPU4 GSP!")


def test_xid_13_burst_then_43(real_fixtures: Path) -> None:
    events = parse_dmesg(_text(real_fixtures, "xid_dmesg_decode_iso_xid13_xid43.txt"))
    assert [e.code for e in events] == [13] * 16 + [43]
    assert all(e.category == "application" and e.pid is None for e in events[:16])
    last = events[-1]
    assert (last.pid, last.process, last.text) == (2924364, "pt_main_thread", "Ch 00000008")
    assert events[0].timestamp == pytest.approx(
        datetime(2025, 1, 21, 4, 41, 44, 283302, tzinfo=UTC).timestamp()
    )


def test_xid_63_single_line(real_fixtures: Path) -> None:
    (e,) = parse_dmesg(_text(real_fixtures, "xid_single_line_xid63_row_remapper.txt"))
    assert (e.code, e.pci, e.pid, e.category) == (63, "0000:10:1c", 1896, "memory")
    assert e.text.startswith("Row Remapper: New row marked for remapping")


def test_watchdog_timeout(real_fixtures: Path) -> None:
    events = parse_job_log(_text(real_fixtures, "torch_watchdog_timeout_desync_report.txt"))
    (t,) = [e for e in events if isinstance(e, NcclTimeoutEvent)]
    assert (t.rank, t.seq_num, t.op_type, t.timeout_ms, t.ran_for_ms) == (
        0,
        2,
        "ALLREDUCE",
        8000,
        8097,
    )
    assert (t.numel_in, t.numel_out) == (4, 4)


def test_cuda_error_in_the_watchdog_thread(real_fixtures: Path) -> None:
    events = parse_job_log(
        _text(real_fixtures, "torch_nccl_cudaerror_workCleanupLoop_bloom176b.txt")
    )
    (e,) = events
    assert isinstance(e, CudaErrorEvent)
    assert (e.message, e.prefix, e.out_of_memory) == ("unknown error", "default3", False)


def test_nccl_completion_error(real_fixtures: Path) -> None:
    events = parse_job_log(
        _text(real_fixtures, "nccl_info_ib_roce_mixed_azure_completion_error.txt")
    )
    (e,) = events
    assert isinstance(e, NcclErrorEvent) and e.fatal and "error 12" in e.message


def test_hf_trainer_two_nodes(real_fixtures: Path) -> None:
    events = parse_job_log(_text(real_fixtures, "train_hf_trainer_esm2_2node_slurm.txt"))
    hf = [e for e in events if isinstance(e, ProgressEvent) and e.source == "hf"]
    assert [e.loss for e in hf] == [2.9859, 2.8209, 2.716, 2.6697, 2.6591]
    assert hf[0].grad_norm == pytest.approx(0.9704080820083618) and hf[0].prefix == "0"
    assert [e.epoch for e in hf] == [0.16, 0.33, 0.49, 0.66, 0.82]
    bars = [e for e in events if isinstance(e, ProgressEvent) and e.source == "tqdm"]
    assert [(b.step, b.total_steps) for b in bars] == [
        (18, 97),
        (35, 97),
        (50, 97),
        (65, 97),
        (80, 97),
    ]
    assert bars[0].elapsed_s == 110.0 and bars[0].iteration_time_s == 6.39


def test_hf_trainer_summary_and_exit(real_fixtures: Path) -> None:
    events = parse_job_log(
        _text(real_fixtures, "train_hf_trainer_deepspeed_final_summary_alpaca.txt")
    )
    kinds = [type(e).__name__ for e in events]
    assert kinds == ["ProgressEvent", "TrainEndEvent", "ProgressEvent", "ProcessExitEvent"]
    end = events[1]
    assert isinstance(end, TrainEndEvent)
    assert (end.runtime_s, end.samples_per_s, end.steps_per_s) == (5606.7798, 1.141, 0.143)
    bar = events[2]
    assert isinstance(bar, ProgressEvent) and (bar.step, bar.elapsed_s) == (800, 5606.0)
    done = events[3]
    assert isinstance(done, ProcessExitEvent) and (done.exit_code, done.pid) == (0, 57893)


def test_megatron_deepspeed_2_nodes(real_fixtures: Path) -> None:
    events = parse_job_log(_text(real_fixtures, "train_megatron_deepspeed_gpt6.7b_2node_16gpu.log"))
    mega = [e for e in events if isinstance(e, ProgressEvent) and e.source == "megatron"]
    assert [(e.step, e.total_steps) for e in mega] == [(i, 5) for i in range(1, 6)]
    assert [e.loss for e in mega] == [11.00492, 11.00421, 10.96316, 10.55474, 9.927882]
    assert mega[-1].samples_per_s == 27.492
    assert mega[-1].tokens_per_s == pytest.approx(27.492 * 2048)
    assert {e.prefix for e in mega} == {"vm-07-14"}
    ds = [e for e in events if isinstance(e, ProgressEvent) and e.source == "deepspeed"]
    assert sorted({e.step for e in ds if e.step is not None}) == [0, 1, 2, 3, 4, 5]
    (ck,) = [e for e in events if isinstance(e, CheckpointEvent)]
    assert ck.step == 5 and not ck.completed
    exits = [e for e in events if isinstance(e, ProcessExitEvent)]
    assert [e.exit_code for e in exits] == [1, 1]


def test_megatron_lm_gpt2(real_fixtures: Path) -> None:
    events = parse_job_log(_text(real_fixtures, "train_megatron_lm_gpt2_4dp_single_node.txt"))
    it = [e for e in events if isinstance(e, ProgressEvent)]
    assert len(it) == 13 and (it[0].step, it[0].loss) == (100, 9.729805)
    assert (it[-1].step, it[-1].loss) == (5000, 0.1350079)
    evals = [e for e in events if isinstance(e, EvalEvent)]
    assert [(e.step, e.split) for e in evals] == [
        (1000, "val"),
        (2000, "val"),
        (3000, "val"),
        (4000, "val"),
        (5000, "val"),
        (None, "val"),
        (None, "test"),
    ]
    assert evals[-1].loss == 8.428315
    done = [e for e in events if isinstance(e, CheckpointEvent) and e.completed]
    assert [(c.step, c.path) for c in done] == [
        (5000, "/workspace/model/megatron-models/345m-init")
    ]


def test_megatron_loss_spike(real_fixtures: Path) -> None:
    events = parse_job_log(_text(real_fixtures, "train_megatron_tr1_13B_loss_spike.txt"))
    it = [e for e in events if isinstance(e, ProgressEvent)]
    assert [e.step for e in it] == list(range(29020, 29100, 10))
    peak = max(it, key=lambda e: e.loss or 0)
    assert (peak.step, peak.loss) == (29060, 8.715872)
