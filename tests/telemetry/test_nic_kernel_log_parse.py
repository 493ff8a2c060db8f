"""NIC counters and rates; XID lines from the kernel log."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from xyclaw.errors import ParseError
from xyclaw.parsers.kernel_log import XID_TABLE, parse_dmesg, parse_xid_line, xid_info
from xyclaw.parsers.nic import (
    NicSample,
    counter_delta,
    nic_rate,
    nic_rates,
    parse_ib_counters,
    parse_proc_net_dev,
)

FIX = Path(__file__).parent / "fixtures"


def _read(name: str) -> str:
    return (FIX / name).read_text()


def test_proc_net_dev_samples_and_rates() -> None:
    t0 = parse_proc_net_dev(_read("proc_net_dev_t0.txt"), timestamp=100.0)
    t1 = parse_proc_net_dev(_read("proc_net_dev_t1.txt"), timestamp=101.0)
    assert [s.name for s in t0] == ["lo", "ens8f0", "docker0", "ib0"]
    eth = t0[1]
    assert (eth.rx_bytes, eth.rx_packets, eth.rx_dropped) == (7316592207113, 5038112237, 112)
    assert (eth.tx_bytes, eth.tx_packets) == (6925021847731, 4871200918)
    rates = {r.name: r for r in nic_rates(t0, t1)}
    assert rates["ens8f0"].rx_bytes_per_s == 2.5e9 and rates["ens8f0"].tx_gbit_per_s == 20.0
    assert rates["docker0"].rx_bytes_per_s == 0.0
    assert not any(r.reset or r.wrapped for r in rates.values())


def test_proc_net_dev_garbage() -> None:
    with pytest.raises(ParseError, match="/proc/net/dev"):
        parse_proc_net_dev("eth0: 1 2 3\n")
    with pytest.raises(ParseError, match="non-numeric"):
        parse_proc_net_dev("eth0: " + " ".join(["x"] * 16) + "\n")


def test_ib_counters_are_in_four_byte_words() -> None:
    t0 = parse_ib_counters(_read("ib_counters_t0.txt"), timestamp=10.0)
    t1 = parse_ib_counters(_read("ib_counters_t1.txt"), timestamp=11.0)
    assert [s.name for s in t0] == ["mlx5_0:1", "mlx5_1:1", "mlx5_2:1", "mlx5_3:1"]
    assert t0[0].tx_bytes == 981273645120 * 4 and t0[0].rx_bytes == 979182736451 * 4
    assert t0[2].counters["symbol_error"] == 3
    rates = nic_rates(t0, t1)
    assert [r.tx_gbit_per_s for r in rates] == [100.0, 100.0, 0.0, 0.0]
    with pytest.raises(ParseError, match="lacks port_xmit_data"):
        parse_ib_counters("/sys/class/infiniband/mlx5_0/ports/1/counters/port_rcv_data:5\n")
    with pytest.raises(ParseError, match="unreadable line"):
        parse_ib_counters("hello\n")


def test_counter_wrap_and_reset() -> None:
    # a 32-bit counter wrapping: counted through
    assert counter_delta(2**32 - 1000, 500, 1.0) == (1500, True)
    # a 64-bit one too
    assert counter_delta(2**64 - 10, 20, 1.0) == (30, True)
    # a large counter dropping to a small one: a reset (driver reload, reboot)
    assert counter_delta(7_000_000_000_000, 1234, 1.0) == (None, False)
    a = NicSample("eth0", rx_bytes=7_000_000_000_000, tx_bytes=5, timestamp=1.0)
    b = NicSample("eth0", rx_bytes=100, tx_bytes=10, timestamp=2.0)
    r = nic_rate(a, b)
    assert r.reset and r.rx_bytes_per_s is None and r.tx_bytes_per_s is None
    with pytest.raises(ValueError, match="interval"):
        nic_rate(a, NicSample("eth0", rx_bytes=1, tx_bytes=1))


def test_xid_table_follows_the_reference() -> None:
    cats = {code: info.category for code, info in XID_TABLE.items()}
    assert {c for c in (13, 31, 43) if cats[c] == "application"} == {13, 31, 43}
    assert {c for c in (48, 63, 64, 92, 94, 95) if cats[c] == "memory"} == {48, 63, 64, 92, 94, 95}
    assert (cats[74], cats[79], cats[119], cats[120]) == ("nvlink", "bus", "gsp", "gsp")
    assert xid_info(79).severity == "critical" and "replace" in xid_info(79).action
    listed = xid_info(154)  # in NVIDIA's catalog since issue 30, not in XyClaw's own words
    assert listed.mnemonic == "GPU_RECOVERY_ACTION_CHANGED" and listed.category != "unknown"
    unknown = xid_info(999)
    assert unknown.category == "unknown" and unknown.severity == "warning"


def test_dmesg_with_mixed_prefixes() -> None:
    events = parse_dmesg(_read("dmesg_xid_mixed.txt"))
    assert [e.code for e in events] == [79, 48, 95, 74, 31, 94, 92, 64, 154, 45]
    off_bus = events[0]
    assert off_bus.pci == "0000:3b:00" and off_bus.uptime_s == pytest.approx(8123.551911)
    assert off_bus.uuid == "GPU-2a4f6b8d-1c3e-5f70-8192-a3b4c5d6e7f8"
    assert off_bus.text == "GPU has fallen off the bus." and off_bus.category == "bus"
    dbe = events[1]
    assert (dbe.pid, dbe.process, dbe.severity) == (51234, "python", "critical")
    nvlink = events[3]
    assert nvlink.timestamp == datetime(2025, 3, 3, 10, 1, 2, tzinfo=UTC).timestamp()
    assert nvlink.category == "nvlink"
    assert events[5].time_text == "Mar 03 10:05:41" and events[5].timestamp is None
    assert events[6].pid is None and events[6].process is None
    iso = events[7]
    assert iso.timestamp == datetime(2025, 3, 3, 2, 9, 30, 123456, tzinfo=UTC).timestamp()
    assert events[8].category == "driver" and events[8].pid is None  # 154: NVIDIA catalog
    assert xid_info(154).bucket == "XID_154"
    assert events[9].pci == "0000:db:00" and events[9].severity == "info"


def test_non_xid_lines_are_ignored() -> None:
    assert (
        parse_xid_line("[ 8123.551960] NVRM: GPU 0000:3b:00.0: GPU has fallen off the bus.") is None
    )
    assert parse_xid_line("") is None
    assert parse_xid_line("NVRM: Xid (PCI:zz): nope") is None
