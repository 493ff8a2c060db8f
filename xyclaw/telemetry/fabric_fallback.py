"""Fabric regression without NCCL's Inspector, and the likely causes of any (issue 34).

Where the job does not load the Inspector, what the fabric delivers is estimated from
what XyClaw reads anyway: the step time from the training log and the bytes the node's
NICs moved (the port counters the telemetry streams). A data-parallel job moves the same
bytes every step, and for a ring all-reduce across nodes what a node's NICs send during
the collective, divided by its time, is the bus bandwidth nccl-tests reports. So::

    bytes per step   = the node's NIC transmit rate x the step time
    comm at baseline = bytes per step / the tuned bus bandwidth
    comm now         = comm at baseline + (the step time - the job's fastest step - noise)
    delivered (GB/s) = bytes per step / comm now

The job's fastest pace (a median of five steps) is taken as its pace at the tuned
bandwidth, so only a regression that came during the job shows, and the step-to-step
spread is taken off the slowdown first. Communication that DDP hides under the backward
pass does not slow the step and is not seen: the estimate is an upper bound of what the
fabric delivers, never below it. A step can also slow for reasons of its own (a hot
GPU, the data loader), so without the Inspector a warning needs a fabric cause on top:
a port's counters, a port below its siblings, or a changed NCCL variable; and the
per-rank timing hook (:mod:`xyclaw.jobs.step_hook`), where it runs, vetoes a slowdown
its compute times explain.

The cause is read from the node's port counters (a ``link_downed`` that grew: a link
flapping; ``port_xmit_wait`` that grew: PFC pauses or congestion; a port that carries
nothing: a NIC down; a port well below its siblings: a link trained down) and from the
job's NCCL variables against those tuned at rent time (what ``NCCL_DEBUG=INFO`` prints
at init, ``NCCL_IB_HCA set by environment to mlx5_0``).
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from xyclaw.telemetry.live import NicWindow

#: NCCL's own line when it reads a variable (src/misc/param.cc, INFO NCCL_ENV), after any
#: ``host:pid:tid [dev] NCCL INFO`` prefix.
_NCCL_ENV_LINE = re.compile(r"NCCL INFO (NCCL_[A-Z0-9_]+) set by environment to (\S*)")

#: Variables that change what NCCL reports or loads, not how the fabric is used.
_NOT_FABRIC = ("NCCL_DEBUG", "NCCL_PROFILER_PLUGIN", "NCCL_INSPECTOR_", "NCCL_ASYNC_ERROR")


def parse_nccl_env_line(line: str) -> tuple[str, str] | None:
    """``(NCCL_IB_HCA, "mlx5_0,mlx5_1")`` from NCCL's init line, else None (never raises)."""
    if "set by environment" not in line:
        return None
    m = _NCCL_ENV_LINE.search(line)
    return (m.group(1), m.group(2)) if m else None


def _fabric_variable(name: str) -> bool:
    return not name.startswith(_NOT_FABRIC)


def env_changes(
    tuned: Mapping[str, str], seen: Mapping[str, str], *, complete: bool = True
) -> list[str]:
    """The tuned NCCL variables the job runs without or with another value, and the
    fabric variables it sets that the tuning did not: ``NCCL_IB_HCA=mlx5_0 (tuned:
    =mlx5_0,mlx5_1)``. Empty when the job's variables are unknown (``seen`` empty); a
    missing one counts only when ``seen`` is ``complete`` (the launch environment: NCCL's
    log names only the variables it happened to read)."""
    if not seen:
        return []
    out: list[str] = []
    for name, value in tuned.items():
        if not _fabric_variable(name):
            continue
        if name not in seen:
            if complete:
                out.append(f"{name} unset (tuned: {value})")
        elif seen[name] != value:
            out.append(f"{name}={seen[name]} (tuned: {value})")
    for name, value in seen.items():
        if name not in tuned and _fabric_variable(name):
            out.append(f"{name}={value} (not tuned)")
    return out


@dataclass
class JobPace:
    """One cluster's running job as its log tells it: step times, the hook's per-rank
    compute times and the NCCL variables NCCL said it read. Thread-safe use is the
    caller's (the service holds its lock)."""

    steps: deque[tuple[float, float]] = field(default_factory=lambda: deque(maxlen=512))
    compute: dict[int, dict[int, float]] = field(default_factory=dict)  # step -> rank -> s
    compute_at: dict[int, float] = field(default_factory=dict)  # step -> arrival
    env: dict[str, str] = field(default_factory=dict)  # what NCCL said it read
    launch_env: dict[str, str] | None = None  # the NCCL variables XyClaw launched it with
    best_step_s: float | None = None

    def job_env(self) -> dict[str, str]:
        """The job's NCCL variables: as launched, and as NCCL itself said it read them."""
        return {**(self.launch_env or {}), **self.env}

    def add_step_time(self, at: float, seconds: float) -> None:
        if not seconds > 0:
            return
        self.steps.append((at, seconds))
        recent = [s for _, s in list(self.steps)[-5:]]
        if len(recent) == 5:  # the fastest pace seen: a median of five, not one lucky step
            median = float(np.median(recent))
            if self.best_step_s is None or median < self.best_step_s:
                self.best_step_s = median

    def add_compute(self, at: float, step: int, rank: int, seconds: float) -> None:
        self.compute.setdefault(step, {})[rank] = seconds
        self.compute_at[step] = at
        if len(self.compute) > 64:
            oldest = min(self.compute)
            self.compute.pop(oldest, None)
            self.compute_at.pop(oldest, None)

    def add_env_line(self, line: str) -> bool:
        found = parse_nccl_env_line(line)
        if found is None:
            return False
        self.env[found[0]] = found[1]
        return True

    def step_s(self, now: float, max_age_s: float, count: int = 9) -> tuple[float, float] | None:
        """The median of the newest ``count`` step times logged within ``max_age_s`` and their
        spread (the median absolute deviation scaled to a standard deviation); None with
        fewer than five."""
        values = np.array([s for at, s in list(self.steps)[-count:] if at >= now - max_age_s])
        if values.size < 5:
            return None
        median = float(np.median(values))
        return median, 1.4826 * float(np.median(np.abs(values - median)))

    def compute_grew(self, now: float, window_s: float, share: float = 0.1) -> bool:
        """True when the hook's slowest-rank compute lately is ``share`` above its best: the
        step slowed in the GPUs, not in the fabric."""
        by_step = sorted(self.compute.items())
        slowest = [(self.compute_at.get(step, 0.0), max(r.values())) for step, r in by_step if r]
        recent = [s for at, s in slowest if at >= now - window_s]
        if not recent or len(slowest) < 2:
            return False
        best = min(s for _, s in slowest)
        return float(np.median(recent)) > (1 + share) * best


def node_tx_rate(window: NicWindow | None, now_ms: int, recent_s: float) -> float | None:
    """Bytes per second the node sent over its RDMA ports lately (its interfaces other than
    loopback where it has none); None without readings."""
    if window is None or not len(window):
        return None
    ports = [i for i, name in enumerate(window.names) if ":" in name]
    if not ports:
        ports = [i for i, name in enumerate(window.names) if name != "lo"]
    recent = window.ts_ms >= now_ms - int(recent_s * 1000)
    if not ports or not recent.any():
        return None
    return float(np.nansum(window.rates[recent][:, ports, 1], axis=1).mean())


@dataclass(frozen=True)
class Estimate:
    """What the fabric delivered to one node's collectives, and the figures behind it."""

    busbw_gbs: float
    step_s: float
    best_step_s: float
    bytes_per_step: float
    comm_s: float


def estimate_busbw(
    tx_bytes_s: float | None,
    step: tuple[float, float] | None,
    best_step_s: float | None,
    baseline_gbs: float,
) -> Estimate | None:
    """The bus bandwidth a node's NICs gave the job's collectives (see the module's
    docstring), or None when the numbers do not say: no traffic, too few steps, or a step
    no slower than the job's fastest beyond its own spread."""
    if tx_bytes_s is None or step is None or best_step_s is None or baseline_gbs <= 0:
        return None
    step_s, spread_s = step
    if tx_bytes_s <= 0 or step_s <= 0:
        return None
    slower = step_s - best_step_s - 2.0 * spread_s
    if slower <= 0:
        return None
    per_step = tx_bytes_s * step_s
    comm_s = per_step / (baseline_gbs * 1e9) + slower
    return Estimate(per_step / comm_s / 1e9, step_s, best_step_s, per_step, comm_s)


# -- the port counters -------------------------------------------------------------------------

#: Error counters the NIC stream reads besides the data counters (sysfs names).
ERROR_COUNTERS = ("link_downed", "link_error_recovery", "port_xmit_wait", "symbol_error")


class PortCounterLog:
    """The cumulative error counters of a node's RDMA ports, reading by reading, so a rule
    can ask which grew lately. Thread-safe enough: appends and copies of a deque."""

    def __init__(self, keep: int = 600) -> None:
        self._readings: deque[tuple[float, dict[str, dict[str, int]]]] = deque(maxlen=keep)

    def add(self, ts: float, ports: Mapping[str, Mapping[str, int]]) -> None:
        picked = {
            port: {k: int(v) for k, v in counters.items() if k in ERROR_COUNTERS}
            for port, counters in ports.items()
        }
        self._readings.append((ts, picked))

    def growth(self, recent_s: float) -> dict[str, dict[str, int]]:
        """How much each port's error counters grew over the last ``recent_s`` of the node's
        own clock (a counter that went back, a reset, counts from zero)."""
        readings = list(self._readings)
        if len(readings) < 2:
            return {}
        newest_ts, newest = readings[-1]
        older = [r for r in readings if r[0] <= newest_ts - recent_s]
        _, first = older[-1] if older else readings[0]
        out: dict[str, dict[str, int]] = {}
        for port, counters in newest.items():
            before = first.get(port, {})
            grew = {}
            for name, value in counters.items():
                delta = value - before.get(name, value)
                if delta < 0:
                    delta = value
                if delta > 0:
                    grew[name] = delta
            if grew:
                out[port] = grew
        return out


def port_cause(grew: Mapping[str, int]) -> str | None:
    """The likely cause a port's grown counters tell: a flapping link, PFC pauses."""
    if grew.get("link_downed", 0) > 0 or grew.get("link_error_recovery", 0) > 0:
        return "flapping"
    if grew.get("port_xmit_wait", 0) > 0:
        return "pfc-pauses"
    return None


def worst_counters(
    growth: Mapping[str, Mapping[str, int]], ports: Sequence[str] | None = None
) -> tuple[str, str, dict[str, Any]] | None:
    """The port whose counters say most (flapping before pauses, then the largest
    growth): (port, cause, the counters that grew)."""
    best: tuple[int, int, str, str, dict[str, Any]] | None = None
    for port, grew in growth.items():
        if ports is not None and port not in ports:
            continue
        cause = port_cause(grew)
        if cause is None:
            continue
        rank = 2 if cause == "flapping" else 1
        size = sum(grew.values())
        if best is None or (rank, size) > (best[0], best[1]):
            best = (rank, size, port, cause, dict(grew))
    return None if best is None else (best[2], best[3], best[4])
