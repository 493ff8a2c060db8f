"""Streamed nvidia-smi lines grouped into instants; NIC counter blocks turned into rates."""

from __future__ import annotations

from xyclaw.parsers.nvsmi import GpuSample
from xyclaw.telemetry.assemble import InstantAssembler
from xyclaw.telemetry.collector import GPU_FIELDS
from xyclaw.telemetry.nicstream import NicBlockReader, NicRates, stream_command


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def line(index: int, stamp: str, util: int = 50) -> str:
    values = {
        "index": str(index),
        "uuid": f"GPU-{index:08d}-0000-0000-0000-000000000000",
        "name": "NVIDIA A800-SXM4-80GB",
        "timestamp": stamp,
        "utilization.gpu": str(util),
        "utilization.memory": "10",
        "memory.used": "1000",
        "memory.total": "81920",
        "power.draw": "250.50",
        "power.limit": "400.00",
        "temperature.gpu": "50",
        "clocks.sm": "1410",
        "clocks.mem": "1593",
        "clocks_throttle_reasons.active": "0x0000000000000000",
        "ecc.errors.uncorrected.volatile.total": "0",
        "pstate": "P0",
        "fan.speed": "[N/A]",
    }
    return ", ".join(values[f] for f in GPU_FIELDS)


def collect(expected: int) -> tuple[InstantAssembler, list[tuple[float | None, list[GpuSample]]]]:
    got: list[tuple[float | None, list[GpuSample]]] = []
    asm = InstantAssembler(
        GPU_FIELDS, expected, lambda ts, s, at: got.append((ts, s)), split_s=0.5, clock=Clock()
    )
    return asm, got


def test_an_instant_is_handed_on_as_soon_as_every_gpu_reported() -> None:
    asm, got = collect(2)
    asm.feed(line(0, "2025/01/02 03:04:05.100"))
    assert got == []
    asm.feed(line(1, "2025/01/02 03:04:05.103"))  # stamps of one instant differ by ms
    assert len(got) == 1 and [s.index for s in got[0][1]] == [0, 1]
    assert got[0][0] is not None and abs(got[0][0] - 1735787045.1) < 1e-6


def test_a_missing_gpu_closes_the_instant_at_the_next_one_or_on_sweep() -> None:
    asm, got = collect(3)
    asm.feed(line(0, "2025/01/02 03:04:05.100"))
    asm.feed(line(1, "2025/01/02 03:04:05.101"))
    asm.feed(line(0, "2025/01/02 03:04:06.100"))  # GPU 0 again: a new instant began
    assert len(got) == 1 and len(got[0][1]) == 2
    asm.sweep(0.0)
    assert len(got) == 2 and asm.partial_instants == 2


def test_garbled_lines_are_counted_and_never_break_the_stream() -> None:
    asm, got = collect(1)
    for bad in ("", "garbage,,,", "0, GPU-x, A800", "\x00\x00", line(0, "2025/13/40 99:99:99")):
        asm.feed(bad)
    asm.feed(line(0, "2025/01/02 03:04:05.100"))
    assert len(got) == 1
    assert asm.bad_lines == 3  # blank lines are not bad, only skipped


IB_BLOCK = """/sys/class/infiniband/mlx5_0/ports/1/counters/port_rcv_data:{rx}
/sys/class/infiniband/mlx5_0/ports/1/counters/port_xmit_data:{tx}"""


def test_nic_rates_come_from_two_blocks_and_the_nodes_own_clock() -> None:
    got: list[NicRates] = []
    reader = NicBlockReader("ib", lambda r, at: got.append(r), Clock())
    for text in IB_BLOCK.format(rx=1000, tx=2000).splitlines():
        reader.feed(text)
    reader.feed("@1000.0")
    assert got == []  # one reading has no rate yet
    # The stream's own form: the stamp and every port's counters on one line.
    reader.feed("@1002.0 " + " ".join(IB_BLOCK.format(rx=251_000, tx=502_000).splitlines()))
    assert len(got) == 1
    assert got[0].names == ("mlx5_0:1",)
    assert got[0].rx.tolist() == [500_000.0]  # 250,000 words of 4 bytes over 2 s
    assert got[0].tx.tolist() == [1_000_000.0]
    reader.feed("not a counter line")
    reader.feed("@1003.0")
    assert reader.bad_blocks == 1 and len(got) == 1


def test_ethernet_nodes_are_read_from_proc_net_dev_without_loopback() -> None:
    got: list[NicRates] = []
    reader = NicBlockReader("netdev", lambda r, at: got.append(r), Clock())
    for rx in (0, 1_000_000):
        reader.feed("    lo: 5 1 0 0 0 0 0 0 5 1 0 0 0 0 0 0")
        reader.feed(f"  eth0: {rx} 10 0 0 0 0 0 0 {rx // 2} 5 0 0 0 0 0 0")
        reader.feed(f"@{2000 + rx / 1_000_000}")
    assert got[0].names == ("eth0",) and got[0].rx.tolist() == [1_000_000.0]
    assert "sleep 0.2" in stream_command("netdev", 0.2)
    assert stream_command("ib", 1.0).count("echo") == 1  # one line per reading


def test_the_local_node_streams_through_a_subprocess() -> None:
    import time

    from xyclaw.telemetry.link import LocalStream

    lines: list[str] = []
    stream = LocalStream("printf 'a\\nb\\n'; exit 3", lines.append).start()
    deadline = time.monotonic() + 10
    while not stream.done and time.monotonic() < deadline:
        time.sleep(0.01)
    assert lines == ["a", "b"] and stream.exit_code == 3
    endless = LocalStream("while true; do echo x; sleep 0.05; done", lambda line: None).start()
    started = time.monotonic()
    endless.cancel(0.5)
    assert endless.done and time.monotonic() - started < 5
