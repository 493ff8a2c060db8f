"""Readers for NIC traffic counters: ``/proc/net/dev`` and InfiniBand sysfs.

Counters only ever grow until they wrap or the driver resets them, so rates
come from two samples; :func:`nic_rate` tells a wrap (counted through) from a
reset (no rate for that interval) so a reboot never shows as a traffic spike.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from xyclaw.errors import ParseError
from xyclaw.parsers.guard import parse_guard
from xyclaw.wording import Said, said

#: InfiniBand ``port_xmit_data`` / ``port_rcv_data`` count 4-byte words
#: (IBA spec, PortCounters: "divided by 4").
IB_DATA_WORD_BYTES = 4

#: Above this a "delta" is not traffic but a counter reset (800 Gb/s = 100 GB/s).
DEFAULT_MAX_RATE_BYTES_PER_S = 200e9


@dataclass(frozen=True, slots=True)
class NicSample:
    """Cumulative counters of one interface or one IB port at one moment.

    ``name`` is the interface (``eth0``) or ``HCA:port`` (``mlx5_0:1``)."""

    name: str
    rx_bytes: int
    tx_bytes: int
    rx_packets: int | None = None
    tx_packets: int | None = None
    rx_errors: int | None = None
    tx_errors: int | None = None
    rx_dropped: int | None = None
    tx_dropped: int | None = None
    kind: str = "netdev"  # "netdev" or "ib"
    timestamp: float | None = None
    counters: dict[str, int] = field(default_factory=dict, compare=False)


@dataclass(frozen=True, slots=True)
class NicRate:
    name: str
    interval_s: float
    rx_bytes_per_s: float | None
    tx_bytes_per_s: float | None
    reset: bool = False
    wrapped: bool = False

    @property
    def rx_gbit_per_s(self) -> float | None:
        return None if self.rx_bytes_per_s is None else self.rx_bytes_per_s * 8 / 1e9

    @property
    def tx_gbit_per_s(self) -> float | None:
        return None if self.tx_bytes_per_s is None else self.tx_bytes_per_s * 8 / 1e9


# --- /proc/net/dev ---------------------------------------------------------

_NETDEV_FIELDS = 16


@parse_guard("proc_net_dev", Said("error.parse.hint.pass", {"command": "cat /proc/net/dev"}))
def parse_proc_net_dev(text: str, timestamp: float | None = None) -> list[NicSample]:
    """``cat /proc/net/dev``: one sample per interface (header lines optional)."""
    out: list[NicSample] = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith(("Inter-", "face")):
            continue
        name, sep, rest = line.partition(":")
        values = rest.split()
        if not sep or not name.strip() or len(values) != _NETDEV_FIELDS:
            raise ParseError(
                said("error.parse.netdev_line", line=repr(line[:120])),
                hint=said("error.parse.hint.proc_net_dev_lines"),
            )
        try:
            n = [int(v) for v in values]
        except ValueError as exc:
            raise ParseError(
                said("error.parse.netdev_number", line=repr(line[:120])),
                hint=said("error.parse.hint.proc_net_dev_lines"),
            ) from exc
        out.append(
            NicSample(
                name=name.strip(),
                rx_bytes=n[0],
                rx_packets=n[1],
                rx_errors=n[2],
                rx_dropped=n[3],
                tx_bytes=n[8],
                tx_packets=n[9],
                tx_errors=n[10],
                tx_dropped=n[11],
                kind="netdev",
                timestamp=timestamp,
            )
        )
    if not out and text.strip():
        raise ParseError(
            said("error.parse.netdev_none"),
            hint=said("error.parse.hint.pass", command="cat /proc/net/dev"),
        )
    return out


# --- InfiniBand sysfs counters ------------------------------------------------

_IB_PATH_RE = re.compile(
    r"(?:^|/)(?P<dev>[^/\s:]+)/ports/(?P<port>\d+)/(?:hw_)?counters(?:_ext)?/(?P<name>[A-Za-z0-9_]+)"
    r"\s*[:=\s]\s*(?P<value>\S+)\s*$"
)


_IB_TAIL_RE = re.compile(_IB_PATH_RE.pattern.removeprefix("(?:^|/)"))


def _ib_line(line: str) -> tuple[str, int, str, str]:
    """(device, port, counter, value text) of one ``PATH:VALUE`` line.

    The pattern is tried once, where the device's name begins (after the last ``/`` before
    the only ``/ports/``), rather than searched for from every character: the telemetry
    stream reads 48 of these lines a node every second. That start is the only one a
    search could match at, so the parts are the same."""
    at = line.find("/ports/")
    m = None
    if at >= 0 and at == line.rfind("/ports/"):
        m = _IB_TAIL_RE.match(line, line.rfind("/", 0, at) + 1)
    if m is None:
        m = _IB_PATH_RE.search(line)
    if m is None:
        raise ParseError(
            said("error.parse.ib_line", line=repr(line[:120])),
            hint=said("error.parse.hint.ib_counter_lines"),
        )
    dev, port, name, value = m.group("dev", "port", "name", "value")
    return dev, int(port), name, value


@parse_guard("ib_counters", Said("error.parse.hint.ib_counters"))
def parse_ib_counters(text: str, timestamp: float | None = None) -> list[NicSample]:
    """IB port counters as ``grep -H . /sys/class/infiniband/*/ports/*/counters/*``
    prints them (``PATH:VALUE``; ``PATH VALUE`` also works). Data counters are
    converted from 4-byte words to bytes."""
    ports: dict[tuple[str, int], dict[str, int]] = {}
    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            continue
        dev, port, name, cell = _ib_line(line)
        try:
            value = int(cell, 0)
        except ValueError as exc:
            raise ParseError(
                said("error.parse.ib_number", name=name, line=repr(line[:120])),
                hint=said("error.parse.hint.ib_counter_lines"),
            ) from exc
        ports.setdefault((dev, port), {})[name] = value
    out = []
    for (dev, port), c in ports.items():
        xmit = c.get("port_xmit_data_64", c.get("port_xmit_data"))
        rcv = c.get("port_rcv_data_64", c.get("port_rcv_data"))
        if xmit is None or rcv is None:
            raise ParseError(
                said("error.parse.ib_data", dev=dev, port=port),
                hint=said("error.parse.hint.ib_both_counters"),
            )
        out.append(
            NicSample(
                name=f"{dev}:{port}",
                rx_bytes=rcv * IB_DATA_WORD_BYTES,
                tx_bytes=xmit * IB_DATA_WORD_BYTES,
                rx_packets=c.get("port_rcv_packets_64", c.get("port_rcv_packets")),
                tx_packets=c.get("port_xmit_packets_64", c.get("port_xmit_packets")),
                rx_errors=c.get("port_rcv_errors"),
                tx_errors=c.get("port_xmit_discards"),
                kind="ib",
                timestamp=timestamp,
                counters=dict(c),
            )
        )
    return out


# --- rates -----------------------------------------------------------------

_WIDTHS = (32, 64)


def counter_delta(
    prev: int, cur: int, interval_s: float, max_rate: float = DEFAULT_MAX_RATE_BYTES_PER_S
) -> tuple[int | None, bool]:
    """How much a counter grew: ``(delta, wrapped)``; ``(None, False)`` on a reset.

    A smaller value is a wrap when counting on through the 32- or 64-bit limit
    gives a rate no faster than ``max_rate``; otherwise the counter was reset.
    """
    if cur >= prev:
        return cur - prev, False
    for bits in _WIDTHS:
        limit = 1 << bits
        if prev < limit:
            delta = limit - prev + cur
            if delta <= max_rate * max(interval_s, 1e-9):
                return delta, True
    return None, False


def nic_rate(
    prev: NicSample,
    cur: NicSample,
    interval_s: float | None = None,
    *,
    max_rate: float = DEFAULT_MAX_RATE_BYTES_PER_S,
) -> NicRate:
    """Bytes per second between two samples of one interface."""
    if interval_s is None:
        if prev.timestamp is None or cur.timestamp is None:
            raise ValueError("nic_rate needs interval_s or two samples with timestamps")
        interval_s = cur.timestamp - prev.timestamp
    if interval_s <= 0:
        raise ValueError(f"interval must be positive, got {interval_s}")
    rx, rx_wrap = counter_delta(prev.rx_bytes, cur.rx_bytes, interval_s, max_rate)
    tx, tx_wrap = counter_delta(prev.tx_bytes, cur.tx_bytes, interval_s, max_rate)
    if rx is not None and rx > max_rate * interval_s:
        rx = None
    if tx is not None and tx > max_rate * interval_s:
        tx = None
    reset = rx is None or tx is None
    return NicRate(
        name=cur.name,
        interval_s=interval_s,
        rx_bytes_per_s=None if reset or rx is None else rx / interval_s,
        tx_bytes_per_s=None if reset or tx is None else tx / interval_s,
        reset=reset,
        wrapped=rx_wrap or tx_wrap,
    )


def nic_rates(
    prev: Iterable[NicSample],
    cur: Sequence[NicSample],
    interval_s: float | None = None,
    *,
    max_rate: float = DEFAULT_MAX_RATE_BYTES_PER_S,
) -> list[NicRate]:
    """Rates for every interface present in both samples, in ``cur``'s order."""
    before = {s.name: s for s in prev}
    return [
        nic_rate(before[s.name], s, interval_s, max_rate=max_rate) for s in cur if s.name in before
    ]
