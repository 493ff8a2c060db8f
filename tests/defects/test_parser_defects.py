"""Issue 11: readers of remote output that were slow, raised foreign errors or read wrong."""

from __future__ import annotations

import contextlib
import time

import pytest

from xyclaw.errors import ParseError
from xyclaw.parsers import ibparse, nccltests


def _cpu(fn: object, *args: object) -> float:
    start = time.process_time()
    with contextlib.suppress(ParseError):
        fn(*args)  # type: ignore[operator]
    return time.process_time() - start


def test_gid_sysfs_reads_one_long_line_in_linear_time() -> None:
    """Defect 6: one 40,000-character line took 14 s (an unanchored search)."""
    line = "a" * 40_000
    spent = _cpu(ibparse.parse_gid_sysfs, line)
    assert spent < 0.5, f"{spent:.2f} s for one 40,000-character line"
    # ... and a junk line is refused with the project's error, not skipped silently.
    with pytest.raises(ParseError, match="unreadable line"):
        ibparse.parse_gid_sysfs(line)
    spaced = "/sys/class/infiniband/mlx5_0/ports/1/gids/0:" + " " * 40_000 + "x"
    assert _cpu(ibparse.parse_gid_sysfs, spaced) < 0.5


def test_gid_sysfs_still_reads_what_grep_prints() -> None:
    text = (
        "/sys/class/infiniband/mlx5_0/ports/1/gids/3:0000:0000:0000:0000:0000:ffff:0a01:000b\n"
        "/sys/class/infiniband/mlx5_0/ports/1/gid_attrs/types/3:RoCE v2\n"
        "/sys/class/infiniband/mlx5_0/ports/1/gid_attrs/ndevs/3:ens1f0np0  \n"
        "grep: /sys/class/infiniband/mlx5_0/ports/1/gid_attrs/types/4: Invalid argument\n"
        "/sys/x/ports/y/mlx5_1/ports/2/gids/7 fe80:0000:0000:0000:0e42:a1ff:feb1:c2d1\n"
    )
    first, second = ibparse.parse_gid_sysfs(text)
    assert (first.hca, first.port, first.index) == ("mlx5_0", 1, 3)
    assert first.ipv4 == "10.1.0.11" and first.is_roce_v2 and first.netdev == "ens1f0np0"
    assert (second.hca, second.port, second.index) == ("mlx5_1", 2, 7)
    assert second.gid == "fe80:0000:0000:0000:0e42:a1ff:feb1:c2d1"


def test_deeply_nested_json_is_a_parse_error() -> None:
    """Found by the fuzz test: json's RecursionError escaped the nccl-tests JSON reader."""
    with pytest.raises(ParseError):
        nccltests.parse_nccl_tests_json("[" * 100_000)


def test_a_huge_ssh_command_from_the_provider_is_refused_quickly() -> None:
    """Found by the fuzz test: shlex takes quadratic time on one long word (10 s at 500 KB)."""
    from xyclaw.providers.autodl import parse_ssh_command

    assert parse_ssh_command("ssh -p 38076 root@region-41.seetacloud.com") == (
        "region-41.seetacloud.com",
        38076,
        "root",
    )
    assert _cpu(parse_ssh_command, "ssh " + "x" * 500_000) < 0.2
    assert parse_ssh_command("ssh " + "x" * 500_000) is None


# -- defect 10: small ones in the readers --------------------------------------------------


def test_power_draw_of_1e308_keeps_the_instant() -> None:
    """nvidia-smi printing ``power.draw = 1e308`` overflowed pack._clamp: the instant was lost."""
    from xyclaw.parsers.nvsmi import GpuSample
    from xyclaw.telemetry.pack import GpuSlots, pack, record_dict

    sample = GpuSample(index=0, uuid="GPU-a", utilization_gpu=97, power_draw_w=1e308)
    records, present = pack([sample], GpuSlots(1))
    shown = record_dict(records[0])
    assert present.tolist() == [True]
    assert shown["util"] == 97 and shown["power_w"] is None  # not a reading: unavailable


def test_total_memory_from_used_and_free_when_the_driver_gives_no_total() -> None:
    """A P100 CSV without memory.total showed no total although used and free were known."""
    from xyclaw.parsers.nvsmi import parse_csv

    text = (
        "index, name, memory.used [MiB], memory.free [MiB]\n"
        "0, Tesla P100-PCIE-16GB, 2000 MiB, 14280 MiB\n"
    )
    [sample] = parse_csv(text)
    assert sample.memory_total_mib == 16280
    [with_total] = parse_csv(
        "index, memory.used [MiB], memory.free [MiB], memory.total [MiB]\n0, 1, 2, 16384\n"
    )
    assert with_total.memory_total_mib == 16384  # a total printed wins


def test_fallen_off_the_bus_without_an_xid_number_is_detected() -> None:
    from xyclaw.parsers.kernel_log import parse_dmesg

    text = (
        "[ 1234.5] NVRM: GPU at PCI:0000:3b:00: GPU-7a8b9c0d-1111-2222-3333-444455556666\n"
        "[ 1234.6] NVRM: GPU 0000:3b:00.0: GPU has fallen off the bus.\n"
        "[ 1300.0] NVRM: The NVIDIA GPU 0000:5e:00.0 (PCI ID: 10de:20b0) installed in this "
        "system has fallen off the bus and is not responding to commands.\n"
    )
    first, second = parse_dmesg(text)
    assert (first.code, first.pci, first.severity) == (79, "0000:3b:00", "critical")
    assert first.uuid == "GPU-7a8b9c0d-1111-2222-3333-444455556666"
    assert first.uptime_s == 1234.6
    assert (second.code, second.pci) == (79, "0000:5e:00")
    # With the Xid line as well, it is one event, not two.
    both = text.splitlines()[0] + "\n" + text.splitlines()[1] + "\n"
    both += "[ 1234.7] NVRM: Xid (PCI:0000:3b:00): 79, pid=0, GPU has fallen off the bus.\n"
    assert [e.code for e in parse_dmesg(both)] == [79]


def _nccl_log_one_rank_line(nranks: int) -> str:
    rows = "".join(
        f"  {size:>12} {size // 4:>12}  float  sum  -1  100.0  {size / 1e5:.2f}  {size / 1e5:.2f}"
        f"  0  100.0  {size / 1e5:.2f}  {size / 1e5:.2f}  0\n"
        for size in (1048576, 2097152, 4194304)
    )
    return (
        "# nccl-tests version 2.17.6 nccl-headers=22105 nccl-library=22105\n"
        "# nThread 1 nGpus 1 minBytes 1048576 maxBytes 4194304 step: 2(factor) warmup iters: 5 "
        "iters: 20 agg iters: 1 validation: 1 graph: 0\n#\n# Using devices\n"
        "#  Rank  0 Group  0 Pid  31000 on    gpu-a01 device  0 [0000:18:00] NVIDIA H100 80GB"
        " HBM3\n"
        f"gpu-a01:31000:31010 [0] NCCL INFO comm 0x55d1 rank 0 nranks {nranks} cudaDev 0 "
        "nvmlDev 0 busId 18000 commId 0x9f - Init COMPLETE\n"
        "#\n#                                                   out-of-place"
        "                       in-place\n"
        "#       size         count      type   redop    root     time   algbw   busbw  #wrong"
        "     time   algbw   busbw  #wrong\n"
        "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)"
        "             (us)  (GB/s)  (GB/s)\n" + rows + "# Out of bounds values : 0 OK\n"
        "# Avg bus bandwidth    : 20.97\n#\n"
    )


def test_nccl_analyze_counts_the_ranks_nccl_reports() -> None:
    """nccl analyze said "1 rank(s)" for a log whose NCCL lines say nranks 2."""
    from xyclaw.parsers.nccltests import parse_nccl_tests
    from xyclaw.tuning.analyze import analyze_log

    run = parse_nccl_tests(_nccl_log_one_rank_line(2))
    assert len(run.ranks) == 1 and run.n_ranks == 2
    assert analyze_log(_nccl_log_one_rank_line(2)).to_json()["ranks"] == 2
    assert parse_nccl_tests(_nccl_log_one_rank_line(1)).n_ranks == 1


# -- defect 8: GPUs told apart by whatever the output has ------------------------------------

RTX2060_HEADED = (
    "name, pci.bus_id, driver_version, pstate, temperature.gpu, utilization.gpu [%], "
    "utilization.memory [%], memory.total [MiB], memory.free [MiB], memory.used [MiB]\n"
    "NVIDIA GeForce RTX 2060, 00000000:01:00.0, 470.82.01, P8, 45, 3 %, 5 %, 5934 MiB, "
    "5600 MiB, 334 MiB\n"
)


def _through_the_collector_path(lines: list[str], expected: int) -> list[tuple[object, ...]]:
    """Lines -> instants -> packed records -> findings, as a node collector does."""
    from xyclaw.telemetry.assemble import InstantAssembler
    from xyclaw.telemetry.pack import GpuSlots, pack, record_dict
    from xyclaw.telemetry.rules import AlertThresholds, NodeRef, instant_findings

    slots = GpuSlots(expected)
    out: list[tuple[object, ...]] = []

    def on_instant(ts: float | None, samples: list[object], arrival: float) -> None:
        records, present = pack(samples, slots)  # type: ignore[arg-type]
        findings = instant_findings(
            NodeRef(1, 1, "box", expected),
            records,
            present,
            slots,
            job_running=False,
            th=AlertThresholds(),
        )
        out.append(([record_dict(r) for r in records], present.tolist(), findings))

    assembler = InstantAssembler((), expected, on_instant, clock=lambda: 0.0)
    for line in lines:
        assembler.feed(line)
    assembler.sweep(0.0)
    return out


def test_a_csv_without_uuid_or_index_is_not_a_gpu_fallen_off_the_bus() -> None:
    [(records, present, findings)] = _through_the_collector_path(
        RTX2060_HEADED.splitlines(), expected=1
    )
    assert present == [True]
    assert records[0]["util"] == 3 and records[0]["mem_total_mib"] == 5934
    assert not [f for f in findings if "missing" in str(f)]


def test_gpus_without_ids_keep_their_slots_by_pci_bus_id_then_row_order() -> None:
    head = "pci.bus_id, utilization.gpu\n"
    first = [head, "00000000:01:00.0, 10\n", "00000000:02:00.0, 20\n"]
    swapped = [head, "00000000:02:00.0, 21\n", "00000000:01:00.0, 11\n"]
    by_pci = _through_the_collector_path([*first, *swapped], expected=2)
    assert [[r["util"] for r in recs] for recs, _, _ in by_pci] == [[10, 20], [11, 21]]
    by_row = _through_the_collector_path(["utilization.gpu\n", "30\n", "40\n"], expected=2)
    [(records, present, findings)] = by_row
    assert [r["util"] for r in records] == [30, 40] and present == [True, True]
    assert not findings
