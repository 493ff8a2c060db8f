"""Every reader of what a remote machine prints, with the real outputs it is fed.

Each target is a function of one text (a whole command output); readers that
take lines are fed the text line by line, as the collectors do. The seeds are
the real command outputs in ``../shared/fixtures/real`` plus the project's own
fixtures for formats no real capture covers.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tests.conftest import SHARED_FIXTURES
from xyclaw.engine.diagnose import diagnose_text
from xyclaw.jobs import node_status
from xyclaw.parsers import ibparse, joblog, kernel_log, nccltests, nic, nvsmi
from xyclaw.parsers.nvsmi_table import parse_table
from xyclaw.parsers.paste import read_paste
from xyclaw.providers.autodl import parse_ssh_command
from xyclaw.remote.known_hosts import parse_known_hosts
from xyclaw.telemetry.assemble import InstantAssembler
from xyclaw.telemetry.collector import GPU_FIELDS
from xyclaw.telemetry.nicstream import NicBlockReader
from xyclaw.telemetry.pack import GpuSlots, pack
from xyclaw.telemetry.rules import AlertThresholds, NodeRef, instant_findings, xid_findings
from xyclaw.tuning.analyze import analyze_log
from xyclaw.tuning.probe import parse_node_probe

TESTS = Path(__file__).resolve().parents[1]
OWN = {"tel": TESTS / "telemetry" / "fixtures", "tun": TESTS / "tuning" / "fixtures"}


def seed_text(name: str) -> str | None:
    """``real:FILE`` from the shared captures, ``tel:``/``tun:`` from the project's fixtures."""
    where, _, file = name.partition(":")
    if where == "inline":
        return INLINE[file]
    folder = SHARED_FIXTURES if where == "real" else OWN[where]
    path = folder / file
    return path.read_text(encoding="utf-8", errors="replace") if path.is_file() else None


#: Outputs of XyClaw's own node scripts (jobs), as xyclaw.jobs.node_commands prints them.
INLINE = {
    "job_status": (
        "state=running pgid=4242 started=1700000000\n"
        "state=exited code=0 ended=1700000100 pgid=4242 started=1700000000 cancelled=1\n"
        "state=dead pgid=4242 started=1700000000\nstate=lost reason=bad-pid\n"
        "started pgid=4242 started=1700000000\nerror=no-pid\n"
        "cancel signal=TERM left=3\ncancel state=lost left=0\n"
        "checkpoint step=1200 complete=marker path=/ckpt/checkpoint-1200\n"
        "checkpoint none reason=no-dir\n"
    ),
    "log_watch": "@0+12\naGVsbG8gd29ybGQK\n@12+0\nend state=exited code=0 ended=1 pgid=2\n",
    "log_chunk": "log size=12\naGVsbG8gd29ybGQK\n",
    # What AutoDL's API gives as an instance's SSH command.
    "ssh_commands": (
        "ssh -p 38076 root@region-41.seetacloud.com\n"
        "ssh -p38076 -o StrictHostKeyChecking=no root@connect.westb.seetacloud.com\n"
        "ssh 'root@region-9.autodl.pro' -p 22\n"
    ),
}


# -- adapters: line readers fed a whole text, pipelines as the collector runs them -------------


def _csv_stream(text: str) -> object:
    return nvsmi.NvsmiCsvParser(nvsmi.QUERY_FIELDS).feed_many(text.splitlines())


def _csv_headed(text: str) -> object:
    return nvsmi.NvsmiCsvParser().feed_many(text.splitlines())


_REF = NodeRef(1, 1, "node-0", 8)
_TH = AlertThresholds()


def _collector_gpu_path(text: str) -> object:
    """What a node's GPU stream goes through: assembled into instants, packed, judged."""
    slots = GpuSlots(8)
    findings: list[object] = []

    def on_instant(ts: float | None, samples: list[nvsmi.GpuSample], arrival: float) -> None:
        records, present = pack(samples, slots)
        findings.extend(instant_findings(_REF, records, present, slots, job_running=True, th=_TH))

    assemblers = [
        InstantAssembler(fields, 8, on_instant, clock=lambda: 0.0)
        for fields in (GPU_FIELDS, nvsmi.QUERY_FIELDS, ())
    ]
    for line in text.splitlines():
        for assembler in assemblers:
            assembler.feed(line)
    for assembler in assemblers:
        assembler.sweep(0.0)
    return findings


def _nic_stream(source: str) -> Callable[[str], object]:
    def run(text: str) -> object:
        reader = NicBlockReader(source, lambda rates, at: None, lambda: 0.0)
        for i, line in enumerate(text.splitlines()):
            reader.feed(line)
            if i % 7 == 6:
                reader.feed(f"@{1_700_000_000 + i}.5")
        reader.feed("@1800000000.0")
        return reader.blocks

    return run


def _xid_path(text: str) -> object:
    return xid_findings(_REF, "12345.6 100.0\n" + text, GpuSlots(8), None, _TH)


def _xid_lines(text: str) -> object:
    return [kernel_log.parse_xid_line(line) for line in text.splitlines()]


def _job_lines(text: str) -> object:
    return joblog.JobLogParser().feed_many(text.splitlines())


def _job_events(text: str) -> object:
    return [joblog.parse_job_events(line) for line in text.splitlines()]


def _probe(text: str) -> object:
    """The fabric probe's fenced output, each part holding a slice of the text."""
    lines = text.splitlines()
    names = (
        "hostname",
        "gpus",
        "topo",
        "ibstat",
        "ibv_devinfo",
        "gids",
        "ibdev2netdev",
        "ip_addr",
        "ip_route",
        "netdev",
        "nccl_env",
        "modules",
    )
    out = []
    step = max(1, len(lines) // len(names))
    for i, name in enumerate(names):
        out.append(f"@@xyclaw-begin {name}")
        out.extend(lines[i * step : (i + 1) * step])
        out.append(f"@@xyclaw-end {name} 0")
    return parse_node_probe("node-0", "\n".join(out))


def _log_watch(text: str) -> object:
    decoder = node_status.LogWatchDecoder(0)
    return [decoder.feed(line) for line in text.splitlines()]


def _per_line(fn: Callable[[str], object]) -> Callable[[str], object]:
    def run(text: str) -> object:
        return [fn(line) for line in text.splitlines()]

    return run


@dataclass(frozen=True)
class Target:
    name: str
    parse: Callable[[str], object]
    seeds: tuple[str, ...]


_CSV = (
    "real:nvsmi_csv_2x_a100pcie_555_header_units.csv",
    "real:nvsmi_csv_h100_590_idle_allfields.csv",
    "real:nvsmi_csv_h200mig_590_load_allfields.csv",
    "tel:nvsmi_noheader_nounits_stream.csv",
    "tel:nvsmi_repeated_header_stream.csv",
    "tel:nvsmi_throttle_reasons_a100_525.csv",
)
_Q = (
    "real:nvsmi_q_h100_590_load.txt",
    "real:nvsmi_q_h800_525_gpu0.txt",
    "real:nvsmi_q_d_ecc_2x_a100pcie_555.txt",
    "real:nvsmi_q_d_performance_2x_a100pcie_555.txt",
)
_TOPO = (
    "real:topo_a800_8gpu_4nic.txt",
    "real:topo_2x_h100pcie_nvlink_bridge_nv12.txt",
    "real:topo_h100_1gpu_ansi_underline_header.txt",
)
_IB = (
    "real:ibv_devinfo_cx3_mlx4_ib_2hca.txt",
    "real:ibv_devinfo_v_cx3_mlx4_port2.txt",
    "tun:ibstat_ib_ndr.txt",
    "tun:ibstat_roce.txt",
)
_NCCL = (
    "real:nccltests_allreduce_a100_1node_8gpu_oldformat.txt",
    "real:nccltests_allreduce_h100_10node_80gpu.txt",
    "real:nccltests_allreduce_h100_1node_8gpu.txt",
    "real:nccl_info_ib_roce_mixed_azure_completion_error.txt",
    "real:nccl_info_torch_allreduce_a100_4node_omnipath.log",
)
_DMESG = (
    "real:xid_dmesg_T_xid119_gsp_timeout.txt",
    "real:xid_dmesg_decode_iso_xid13_xid43.txt",
    "real:xid_single_line_xid63_row_remapper.txt",
)
_TRAIN = (
    "real:train_hf_trainer_esm2_2node_slurm.txt",
    "real:train_hf_trainer_deepspeed_final_summary_alpaca.txt",
    "real:train_megatron_lm_gpt2_4dp_single_node.txt",
    "real:train_megatron_tr1_13B_loss_spike.txt",
    "real:torch_nccl_cudaerror_workCleanupLoop_bloom176b.txt",
    "real:torch_watchdog_timeout_desync_report.txt",
)
_JOBS = ("inline:job_status", "inline:log_watch", "inline:log_chunk", *_TRAIN[:2])
_NET = ("tel:proc_net_dev_t0.txt", "tel:ib_counters_t0.txt", "tun:gid_sysfs_roce.txt")
_LIST = ("tel:nvsmi_L_8gpu.txt", "tel:nvsmi_L_mig.txt")
_TABLE = (
    "real:nvsmi_table_2x_a100pcie_555.txt",
    "real:nvsmi_table_h100_590_load.txt",
    "real:nvsmi_table_h100mig_590_load.txt",
)

#: Issue 30's pastes: prompts, traces, MPI prefixes, CRLF, indentation, 610 fields, split XIDs.
_PASTED_TABLES = (
    "tel:pasted/nvsmi_table_470_4x_v100.txt",
    "tel:pasted/nvsmi_table_418_rtx_windows.txt",
    "tel:pasted/nvsmi_table_575_h100_mig.txt",
)
_PASTED = (
    *_PASTED_TABLES,
    "tel:pasted/ibstat_prompt_crlf.txt",
    "tel:pasted/ibv_devinfo_root_prompt_indented.txt",
    "tel:pasted/nccltests_mpi_lost_hash_failure.txt",
    "tel:pasted/nvsmi_q_610_banner.txt",
    "tel:pasted/dmesg_xid_pci_next_line.txt",
)

TARGETS: tuple[Target, ...] = (
    Target("nvsmi.csv_stream", _csv_stream, _CSV),
    Target("nvsmi.csv_headed", _csv_headed, _CSV),
    Target("nvsmi.parse_csv", nvsmi.parse_csv, _CSV),
    Target("collector.gpu_path", _collector_gpu_path, _CSV),
    Target("nvsmi.parse_list", nvsmi.parse_list, _LIST + _TABLE),
    Target("nvsmi_table.parse_table", parse_table, _TABLE + _PASTED_TABLES),
    Target("paste.read_paste", read_paste, _PASTED + _NCCL[:1] + _IB),
    Target("nvsmi.parse_query_details", nvsmi.parse_query_details, _Q),
    Target("nvsmi.parse_query_header", nvsmi.parse_query_header, _Q),
    Target("nvsmi.parse_topology", nvsmi.parse_topology, _TOPO),
    Target("ibparse.parse_ibstat", ibparse.parse_ibstat, _IB),
    Target("ibparse.parse_ibv_devinfo", ibparse.parse_ibv_devinfo, _IB),
    Target("ibparse.parse_show_gids", ibparse.parse_show_gids, ("tun:show_gids_roce.txt",)),
    Target("ibparse.parse_gid_sysfs", ibparse.parse_gid_sysfs, ("tun:gid_sysfs_roce.txt",)),
    Target("nic.parse_proc_net_dev", nic.parse_proc_net_dev, _NET),
    Target("nic.parse_ib_counters", nic.parse_ib_counters, _NET),
    Target("nicstream.netdev", _nic_stream("netdev"), _NET),
    Target("nicstream.ib", _nic_stream("ib"), _NET),
    Target("kernel_log.parse_dmesg", kernel_log.parse_dmesg, _DMESG),
    Target("kernel_log.parse_xid_line", _xid_lines, _DMESG),
    Target("rules.xid_findings", _xid_path, _DMESG),
    Target("nccltests.parse_nccl_tests", nccltests.parse_nccl_tests, _NCCL),
    Target("nccltests.parse_nccl_tests_all", nccltests.parse_nccl_tests_all, _NCCL),
    Target("nccltests.parse_nccl_info", nccltests.parse_nccl_info, _NCCL),
    Target(
        "nccltests.parse_nccl_tests_json",
        nccltests.parse_nccl_tests_json,
        ("tun:nccl_allreduce_1node.json", "tun:nccl_allreduce_1node_cut.json"),
    ),
    Target("analyze.analyze_log", analyze_log, _NCCL),
    Target("diagnose.diagnose_text", diagnose_text, _PASTED + _TABLE + _Q[:1] + _DMESG + _NCCL),
    Target("joblog.parse_job_log", joblog.parse_job_log, _TRAIN),
    Target("joblog.JobLogParser", _job_lines, _TRAIN),
    Target("joblog.parse_job_events", _job_events, _TRAIN),
    Target("probe.parse_node_probe", _probe, _IB + _TOPO + _LIST + _NET),
    Target("node_status.parse_status", node_status.parse_status, _JOBS),
    Target("node_status.parse_launch", node_status.parse_launch, _JOBS),
    Target("node_status.parse_log_chunk", lambda t: node_status.parse_log_chunk(t, 0), _JOBS),
    Target("node_status.LogWatchDecoder", _log_watch, _JOBS),
    Target("node_status.parse_cancel", node_status.parse_cancel, _JOBS),
    Target("node_status.parse_checkpoint", node_status.parse_checkpoint, _JOBS),
    Target("known_hosts.parse_known_hosts", parse_known_hosts, _NET),
    Target(
        "autodl.parse_ssh_command",
        _per_line(parse_ssh_command),
        ("inline:ssh_commands", "real:train_hf_trainer_deepspeed_final_summary_alpaca.txt"),
    ),
)
