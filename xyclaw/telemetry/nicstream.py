"""NIC counters read in a loop on the node, turned into rates per interface.

Each reading is one ``@<epoch seconds>`` line from the node's own clock,
which closes a block: InfiniBand and RoCE nodes put their HCA port counters
on that same line (``@ts PATH:VALUE PATH:VALUE ...``, one line and one packet
per reading however many ports), plain Ethernet nodes print
``/proc/net/dev`` before it. Rates come from two blocks and the node's
timestamps, so network delay never shows up as traffic.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from xyclaw.errors import ParseError
from xyclaw.parsers.nic import NicSample, nic_rates, parse_ib_counters, parse_proc_net_dev
from xyclaw.telemetry.fabric_fallback import ERROR_COUNTERS, PortCounterLog

log = logging.getLogger(__name__)

_IB_PORTS = "/sys/class/infiniband/*/ports/*/counters"
#: The data counters, and the error counters that tell a link flapping (``link_downed``,
#: ``link_error_recovery``), PFC pauses (``port_xmit_wait``) and a bad cable
#: (``symbol_error``) for the fabric-regression rule (issue 34).
IB_COUNTERS = (
    f"grep -H . {_IB_PORTS}/port_*_data"
    + "".join(f" {_IB_PORTS}/{name}" for name in ERROR_COUNTERS)
    + " 2>/dev/null"
)
NETDEV_COUNTERS = "cat /proc/net/dev"


def nic_source(fabric: str) -> str:
    """``ib`` for fabrics with RDMA ports (InfiniBand, RoCE), ``netdev`` otherwise."""
    return "ib" if fabric.startswith(("ib-", "roce")) else "netdev"


def read_once_command(source: str) -> str:
    """One reading, gathered first and printed at once (never half a block)."""
    if source == "ib":
        return f'echo "@$(date +%s.%N)" $({IB_COUNTERS})'
    return f'b=$({NETDEV_COUNTERS}; date +@%s.%N); echo "$b"'


def stream_command(source: str, interval_s: float) -> str:
    """A reading every ``interval_s`` for as long as the channel stays open."""
    return f"while true; do {read_once_command(source)}; sleep {interval_s:g}; done"


@dataclass(frozen=True)
class NicRates:
    """One interval's rates: ``rx[i]``/``tx[i]`` in bytes/s for ``names[i]`` (NaN: unknown)."""

    ts: float
    names: tuple[str, ...]
    rx: npt.NDArray[np.float64]
    tx: npt.NDArray[np.float64]

    @property
    def total(self) -> float:
        """Bytes per second in and out over all interfaces (NaN ones left out)."""
        return float(np.nansum(self.rx) + np.nansum(self.tx))


class NicBlockReader:
    """Feeds on the loop's lines; calls back once per block after the first."""

    def __init__(
        self, source: str, on_rates: Callable[[NicRates, float], None], clock: Callable[[], float]
    ) -> None:
        self.source = source
        self._on_rates = on_rates
        self._clock = clock
        self._lines: list[str] = []
        self._previous: list[NicSample] | None = None
        self.names: list[str] = []
        self.blocks = 0
        self.bad_blocks = 0
        self.errors = PortCounterLog()  # the RDMA ports' error counters, reading by reading

    def reset(self) -> None:
        """The stream ended: the next block starts a new pair (no rate across a gap)."""
        self._lines = []
        self._previous = None

    def feed(self, line: str) -> None:
        text = line.strip()
        if not text.startswith("@"):
            if text:
                self._lines.append(text)
                if len(self._lines) > 4096:  # a node printing garbage: keep memory bounded
                    self._lines = self._lines[-4096:]
            return
        stamp, *inline = text.split()
        lines, self._lines = self._lines + inline, []
        try:
            ts = float(stamp[1:])
            if not math.isfinite(ts):
                raise ValueError(text)
        except ValueError:
            self.bad_blocks += 1
            log.debug("NIC stream: unreadable timestamp line %r", text[:80])
            return
        try:
            body = "\n".join(lines)
            if self.source == "ib":
                samples = parse_ib_counters(body, timestamp=ts)
            else:
                samples = [s for s in parse_proc_net_dev(body, timestamp=ts) if s.name != "lo"]
        except ParseError as exc:
            self.bad_blocks += 1
            log.debug("NIC stream: unreadable block (%s)", exc.message)
            return
        self.blocks += 1
        if self.source == "ib":
            self.errors.add(ts, {s.name: s.counters for s in samples})
        previous, self._previous = self._previous, samples
        if previous is None or not samples:
            return
        prev_ts = previous[0].timestamp if previous else None
        if prev_ts is None or ts <= prev_ts:
            return
        for s in samples:
            if s.name not in self.names:
                self.names.append(s.name)
        rates = {r.name: r for r in nic_rates(previous, samples)}
        rx = np.full(len(self.names), np.nan)
        tx = np.full(len(self.names), np.nan)
        for i, name in enumerate(self.names):
            rate = rates.get(name)
            if rate is not None:
                rx[i] = np.nan if rate.rx_bytes_per_s is None else rate.rx_bytes_per_s
                tx[i] = np.nan if rate.tx_bytes_per_s is None else rate.tx_bytes_per_s
        self._on_rates(NicRates(ts, tuple(self.names), rx, tx), self._clock())
