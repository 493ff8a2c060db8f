"""The alert rules: what each one looks for, how sure it must be, and what to tell the user.

Every rule has an id, a severity, a message and a suggested action. The
per-instant rules look at one node's newest readings as they arrive; the
peer rules (stragglers) and the network rule look at the live window on
each tick; XIDs come from the kernel log and NCCL timeouts from job logs.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np
import numpy.typing as npt

from xyclaw.parsers.dcgm import DcgmGpu
from xyclaw.parsers.joblog import NcclTimeoutEvent
from xyclaw.parsers.kernel_log import XID_BUCKETS, XID_TABLE, parse_dmesg, xid_info
from xyclaw.parsers.nvsmi import THROTTLE_SLOWDOWN_MASK
from xyclaw.store.samples import GPU_SAMPLE_DTYPE, MISSING, GpuRecords
from xyclaw.telemetry.alerts import AlertKey, Finding
from xyclaw.telemetry.fabric_fallback import Estimate, env_changes, worst_counters
from xyclaw.telemetry.live import GpuWindow, NicWindow
from xyclaw.telemetry.pack import GpuSlots, pci_key, values
from xyclaw.wording import Said, said


@dataclass(frozen=True)
class Rule:
    id: str
    severity: str
    title: str
    action: str

    @property
    def title_said(self) -> Said:
        return said(f"alert.title.{self.id}")

    @property
    def action_said(self) -> Said:
        return said(f"alert.action.{self.id}")


RULES: dict[str, Rule] = {
    r.id: r
    for r in (
        Rule(
            "node.unreachable",
            "critical",
            "node not answering",
            "check the node in the provider's console; if it does not come back, release it and"
            " rent a replacement (jobs resume from their last checkpoint)",
        ),
        Rule(
            "gpu.missing",
            "critical",
            "GPU missing",
            "the driver lost the GPU (fallen off the bus): drain the node and reboot it, or"
            " replace the node",
        ),
        Rule(
            "gpu.xid",
            "warning",
            "XID error",
            "each XID says what to do: restart the application, drain and reset the GPU, or"
            " replace the node",
        ),
        Rule(
            "gpu.ecc_uncorrectable",
            "critical",
            "uncorrectable ECC error",
            "drain the node and reset the GPU before reuse (the job on it has lost its data);"
            " ask for a replacement if it repeats",
        ),
        Rule(
            "gpu.thermal_throttle",
            "warning",
            "thermal throttling",
            "the GPU is slowed to cool down: ask the provider to check the node's cooling, and"
            " move the job if it persists",
        ),
        Rule(
            "gpu.power_throttle",
            "warning",
            "power throttling",
            "the GPU is held below its default power limit: restore it (nvidia-smi -pl) or ask"
            " the provider why it is capped",
        ),
        Rule(
            "gpu.memory_full",
            "warning",
            "GPU memory nearly full",
            "the next allocation may fail with CUDA out of memory: lower the batch size or"
            " sequence length, or turn on activation checkpointing",
        ),
        Rule(
            "gpu.idle_during_job",
            "warning",
            "GPU idle while a job runs",
            "you are paying for an idle GPU: check the job log (stuck data loading, a hung or"
            " crashed rank); stop the job and release the GPUs if it has ended",
        ),
        Rule(
            "gpu.underused",
            "warning",
            "GPU busy but doing little",
            "utilization counts any kernel running, not work done: look for a rank spinning in"
            " a hung collective or a busy-wait; stop the job if it does not recover",
        ),
        Rule(
            "gpu.straggler",
            "warning",
            "straggler GPU",
            "a slow GPU holds back every synchronous step: check its clocks and temperature"
            " (nvidia-smi -q -d PERFORMANCE); exclude or replace the node if it persists",
        ),
        Rule(
            "node.straggler",
            "warning",
            "straggler node",
            "a slow node holds back the whole job: check its GPUs, CPU load and data loading;"
            " replace the node if it persists",
        ),
        Rule(
            "job.rank_straggler",
            "warning",
            "straggler rank",
            "one rank computes slower than its peers and every synchronous step waits for it:"
            " check its GPU's clocks and temperature; exclude or replace its node if it persists",
        ),
        Rule(
            "net.traffic_collapse",
            "error",
            "network traffic collapsed",
            "the job may be stuck in a collective: look for NCCL errors in the job log and ports"
            " down in `ibstat`; restart from the last checkpoint if it does not recover",
        ),
        Rule(
            "net.fabric_regression",
            "warning",
            "job's bus bandwidth below the tuned baseline",
            "the fabric gives the job less than nccl-tests proved when the cluster was tuned:"
            " check the named link (`ibstat`, port errors, PFC pauses) and that the job runs"
            " with the tuned NCCL variables; move the job off a bad node if it persists",
        ),
        Rule(
            "net.link_regression",
            "warning",
            "network link slower than its siblings",
            "one RDMA link of the node carries much less of the job's traffic than the others:"
            " check it with `ibstat` and the port counters (errors, PFC pauses, a lower rate);"
            " move the job off the node if it persists",
        ),
        Rule(
            "job.nccl_timeout",
            "critical",
            "NCCL watchdog timeout",
            "a rank died or hung, or the network stalled: read the other ranks' logs and the"
            " node alerts, then restart from the last checkpoint without the faulty node",
        ),
    )
}


def rule_title(rule: str, language: str) -> str:
    """A rule's title in ``language`` (``gpu.thermal_throttle`` -> 过热降频); the id itself
    for a rule this XyClaw does not know (an older or newer one's stored alert)."""
    known = RULES.get(rule)
    return known.title_said.in_language(language) if known else rule


def severity_word(severity: str, language: str) -> str:
    """``critical`` -> 严重 in Chinese; as it is in English, and for an unknown one."""
    if severity not in ("info", "warning", "error", "critical"):
        return severity
    return said(f"alert.severity.{severity}").in_language(language)


#: Throttle bits that mean heat: SW/HW thermal slowdown (HW slowdown counts when hot).
THERMAL_MASK = 0x20 | 0x40
HW_SLOWDOWN = 0x8
SW_POWER_CAP = 0x4
HW_POWER_BRAKE = 0x80


@dataclass(frozen=True)
class AlertThresholds:
    """How sure each rule must be before it raises, and how long a cause must be gone
    before its alert clears. Seconds unless named otherwise."""

    clear_s: float = 15.0
    idle_util_percent: float = 5.0
    idle_for_s: float = 300.0
    throttle_for_s: float = 30.0
    throttle_hot_c: float = 85.0
    power_cap_fraction: float = 0.9
    power_min_util_percent: float = 30.0
    memory_full_fraction: float = 0.97
    memory_full_for_s: float = 60.0
    missing_for_s: float = 0.0
    ecc_for_s: float = 0.0
    straggler_window_s: float = 60.0
    straggler_for_s: float = 60.0
    straggler_util_ratio: float = 0.75
    straggler_power_ratio: float = 0.7
    straggler_min_peer_util: float = 50.0
    nic_baseline_s: float = 120.0
    nic_recent_s: float = 15.0
    nic_collapse_ratio: float = 0.1
    nic_min_baseline_bytes_s: float = 10e6
    nic_collapse_for_s: float = 15.0
    busy_util_percent: float = 50.0
    # issue 34: nvidia-smi's utilization with the power of a busy loop (no DCGM fields)
    underuse_util_percent: float = 90.0
    underuse_power_fraction: float = 0.4  # of the board's default power limit
    underuse_for_s: float = 600.0
    # issue 34: with DCGM's profiling fields, work is SMs and the tensor pipe actually busy
    underuse_sm_ratio: float = 0.3  # DCGM_FI_PROF_SM_ACTIVE below this ...
    underuse_tensor_ratio: float = 0.05  # ... and DCGM_FI_PROF_PIPE_TENSOR_ACTIVE below this
    link_regression_share: float = 0.3  # a link this far below its siblings' median
    link_regression_for_s: float = 30.0
    # issue 34: the job's bus bandwidth (NCCL Inspector) against the tune-time nccl-tests
    fabric_regression_share: float = 0.25  # this far below the baseline warns
    fabric_window_s: float = 20.0  # the collectives measured over this long, per node
    fabric_regression_for_s: float = 15.0
    # without the Inspector (b34): the step times the estimate reads, and how far back a
    # port's error counters count as grown (the cause)
    fabric_steps_s: float = 60.0
    fabric_counters_s: float = 30.0
    rank_straggler_score: float = 0.8  # below: slower than the best rank or its own best
    rank_straggler_for_s: float = 60.0
    unreachable_after_s: float = 30.0
    xid_hold_s: float = 600.0

    def timing(self, rule: str) -> tuple[float, float]:
        """(hold before raising, absence before clearing) of a rule."""
        hold = {
            "gpu.idle_during_job": self.idle_for_s,
            "gpu.underused": self.underuse_for_s,
            "job.rank_straggler": self.rank_straggler_for_s,
            "net.link_regression": self.link_regression_for_s,
            "net.fabric_regression": self.fabric_regression_for_s,
            "gpu.thermal_throttle": self.throttle_for_s,
            "gpu.power_throttle": self.throttle_for_s,
            "gpu.memory_full": self.memory_full_for_s,
            "gpu.missing": self.missing_for_s,
            "gpu.ecc_uncorrectable": self.ecc_for_s,
            "gpu.straggler": self.straggler_for_s,
            "node.straggler": self.straggler_for_s,
            "net.traffic_collapse": self.nic_collapse_for_s,
        }.get(rule, 0.0)
        return hold, self.clear_s

    def scaled(self, factor: float) -> AlertThresholds:
        """Every duration times ``factor`` (tests run the rules at a faster clock)."""
        values_ = {
            f.name: getattr(self, f.name) * factor
            if f.name.endswith("_s") and f.name != "nic_min_baseline_bytes_s"
            else getattr(self, f.name)
            for f in fields(self)
        }
        return AlertThresholds(**values_)


@dataclass(frozen=True)
class NodeRef:
    cluster_id: int
    node_id: int
    name: str
    expected_gpus: int


def _finding(
    rule_id: str,
    node: NodeRef,
    message: Said,
    *,
    gpu: int | None = None,
    detail: str | None = None,
    severity: str | None = None,
    action: Said | None = None,
    cause: tuple[object, ...] | None = None,
    data: dict[str, object] | None = None,
    node_level: bool = True,
) -> Finding:
    rule = RULES[rule_id]
    action = action or rule.action_said
    return Finding(
        key=AlertKey(rule_id, node.cluster_id, node.node_id if node_level else None, gpu, detail),
        severity=severity or rule.severity,
        message=str(message),
        action=str(action),
        node=node.name,
        cause=cause,
        data=data or {},
        said=message,
        action_said=action,
    )


def _slots(mask: npt.NDArray[np.bool_]) -> list[int]:
    return [int(i) for i in np.flatnonzero(mask)]


def _ok(raw: npt.NDArray[np.generic], field: str) -> npt.NDArray[np.bool_]:
    return np.asarray(raw != MISSING[field])


# --- per instant -----------------------------------------------------------------------------


_F = {name: i for i, name in enumerate(GPU_SAMPLE_DTYPE.names or ())}
_M = MISSING


def instant_findings(
    node: NodeRef,
    records: GpuRecords,
    present: npt.NDArray[np.bool_],
    slots: GpuSlots,
    *,
    job_running: bool,
    th: AlertThresholds,
    dcgm: Mapping[int, DcgmGpu] | None = None,
) -> list[Finding]:
    """What one node's newest readings show, GPU by GPU; ``dcgm``: the node's fresh DCGM
    profiling ratios by slot, where it has DCGM (the underuse rule then trusts them).

    Plain Python over the instant's few rows: at one instant per node per
    second this runs far more often than anything else here, and numpy's
    per-call cost on eight values is more than the work itself."""
    out: list[Finding] = []
    shown = present.tolist()
    rows = records.tolist()
    n = len(rows)
    expected = node.expected_gpus
    visible = sum(shown[:expected])
    for slot in range(n):
        if not shown[slot]:
            if slot < expected:
                message = said(
                    "alert.gpu_missing_count",
                    node=node.name,
                    gpu=slot,
                    visible=visible,
                    expected=expected,
                )
                data: dict[str, object] = {"visible": visible, "expected": expected}
            else:  # a GPU seen once and gone since
                message, data = said("alert.gpu_missing", node=node.name, gpu=slot), {}
            out.append(
                _finding(
                    "gpu.missing",
                    node,
                    message,
                    gpu=slot,
                    cause=("gpu-lost", node.cluster_id, node.node_id, slot),
                    data=data,
                )
            )
            continue
        row = rows[slot]
        util = row[_F["util"]]
        thr = row[_F["throttle"]]
        temp = row[_F["temp_c"]]
        has_util = util != _M["util"]
        has_thr = thr != _M["throttle"]
        if job_running and has_util and util <= th.idle_util_percent:
            out.append(
                _finding(
                    "gpu.idle_during_job",
                    node,
                    said("alert.gpu_idle", node=node.name, gpu=slot, util=util),
                    gpu=slot,
                    cause=("job-idle", node.cluster_id),  # one alert however many GPUs idle
                )
            )
        if job_running and has_util and util >= th.underuse_util_percent:
            reading = dcgm.get(slot) if dcgm else None
            if reading is not None and reading.complete:
                found = _underused_dcgm(node, slot, row, reading, th)
            else:
                found = _underused(node, slot, row, slots, th)
            if found is not None:
                out.append(found)
        if has_thr and thr:
            hot = temp != _M["temp_c"] and temp >= th.throttle_hot_c
            if thr & THERMAL_MASK or (thr & HW_SLOWDOWN and hot):
                t = None if temp == _M["temp_c"] else temp
                out.append(
                    _finding(
                        "gpu.thermal_throttle",
                        node,
                        said(
                            "alert.thermal" if t is None else "alert.thermal_at",
                            node=node.name,
                            gpu=slot,
                            mhz=row[_F["sm_mhz"]],
                            **({} if t is None else {"temp": t}),
                        ),
                        gpu=slot,
                        cause=("gpu-slow", node.cluster_id, node.node_id, slot),
                        data={"temp_c": t, "throttle": thr},
                    )
                )
            if (
                thr & (SW_POWER_CAP | HW_POWER_BRAKE)
                and has_util
                and util >= th.power_min_util_percent
            ):
                limit = row[_F["power_limit_w"]]
                default = slots.default_power_limit.get(slot)
                brake = bool(thr & HW_POWER_BRAKE)
                capped_low = (
                    default is not None
                    and limit != _M["power_limit_w"]
                    and limit < th.power_cap_fraction * default
                )
                if brake or capped_low:
                    what = (
                        said("alert.power_brake", node=node.name, gpu=slot)
                        if brake
                        else said(
                            "alert.power_capped",
                            node=node.name,
                            gpu=slot,
                            limit=limit,
                            default=float(default or 0),
                        )
                    )
                    out.append(
                        _finding(
                            "gpu.power_throttle",
                            node,
                            what,
                            gpu=slot,
                            cause=("gpu-slow", node.cluster_id, node.node_id, slot),
                            data={"power_limit_w": limit, "default_limit_w": default},
                        )
                    )
        ecc = row[_F["ecc_uncorrected"]]
        if ecc != _M["ecc_uncorrected"] and ecc > 0:
            out.append(
                _finding(
                    "gpu.ecc_uncorrectable",
                    node,
                    said("alert.ecc", node=node.name, gpu=slot, count=ecc),
                    gpu=slot,
                    cause=("gpu-memory", node.cluster_id, node.node_id, slot),
                    data=_with_uuid({"count": ecc}, slots, slot),
                )
            )
        used = row[_F["mem_used_mib"]]
        total = row[_F["mem_total_mib"]]
        if (
            used != _M["mem_used_mib"]
            and total != _M["mem_total_mib"]
            and total > 0
            and used >= th.memory_full_fraction * total
        ):
            out.append(
                _finding(
                    "gpu.memory_full",
                    node,
                    said(
                        "alert.memory_full",
                        node=node.name,
                        gpu=slot,
                        percent=used / total * 100,
                        used=used,
                        total=total,
                    ),
                    gpu=slot,
                    data={"used_mib": used, "total_mib": total},
                )
            )
    return out


def _underused_dcgm(
    node: NodeRef, slot: int, row: tuple[int, ...], reading: DcgmGpu, th: AlertThresholds
) -> Finding | None:
    """DCGM's profiling fields (issue 34): busy by nvidia-smi's count while few SMs have
    work and the tensor pipe is idle is a spin, whatever the power; where the node has
    DCGM its fields decide, and the power proxy is not asked."""
    if reading.sm_active >= th.underuse_sm_ratio or reading.tensor_active >= (
        th.underuse_tensor_ratio
    ):
        return None
    util = row[_F["util"]]
    sm, tensor = reading.sm_active * 100, reading.tensor_active * 100
    dram = None if math.isnan(reading.dram_active) else reading.dram_active * 100
    return _finding(
        "gpu.underused",
        node,
        said("alert.underused_dcgm", node=node.name, gpu=slot, util=util, sm=sm, tensor=tensor),
        gpu=slot,
        cause=("job-underused", node.cluster_id),
        data={
            "source": "dcgm",
            "util": util,
            "sm_active": round(sm, 1),
            "tensor_active": round(tensor, 1),
            "dram_active": None if dram is None else round(dram, 1),
        },
    )


def _underused(
    node: NodeRef, slot: int, row: tuple[int, ...], slots: GpuSlots, th: AlertThresholds
) -> Finding | None:
    """The power proxy (issue 34): busy by nvidia-smi's count, yet drawing less than a
    share of the board's power, as a kernel that spins (a rank waiting in a hung
    collective, a busy loop) does; real work at that utilization draws far more."""
    power_dw = row[_F["power_dw"]]
    if power_dw == _M["power_dw"]:
        return None
    board = slots.default_power_limit.get(slot)
    limit = row[_F["power_limit_w"]]
    if board is None and limit != _M["power_limit_w"]:
        board = float(limit)
    if not board:
        return None
    power = power_dw / 10
    if power >= th.underuse_power_fraction * board:
        return None
    return _finding(
        "gpu.underused",
        node,
        said(
            "alert.underused_power",
            node=node.name,
            gpu=slot,
            util=row[_F["util"]],
            power=power,
            board=board,
        ),
        gpu=slot,
        cause=("job-underused", node.cluster_id),  # one alert however many GPUs spin
        data={"source": "power", "util": row[_F["util"]], "power_w": power, "board_w": board},
    )


# --- on each tick: peers and network ----------------------------------------------------------


@dataclass(frozen=True)
class NodeStats:
    """One node's window, reduced: per GPU the median utilization and power, how busy it
    was at its least busy (the lower quartile), and throttling.

    Medians and the quartile, not means: a window of a few readings that spans a change
    every GPU goes through (the job's start-up, its last step, a checkpoint pause) has
    means set by where each GPU's few readings happen to fall, and one reading more or
    less on the slow side made a healthy GPU a straggler (issue 34's healthy runs)."""

    node: NodeRef
    util: npt.NDArray[np.float64]
    power: npt.NDArray[np.float64]
    slowed: npt.NDArray[np.bool_]
    util_low: npt.NDArray[np.float64] | None = None  # None: the medians stand for it

    @property
    def mean_util(self) -> float:
        ok = ~np.isnan(self.util)
        return float(self.util[ok].mean()) if ok.any() else float("nan")

    @property
    def mean_low(self) -> float:
        """The node's GPUs at their least busy in the window, on average."""
        low = self.util if self.util_low is None else self.util_low
        ok = ~np.isnan(low)
        return float(low[ok].mean()) if ok.any() else float("nan")


def _column_quantiles(
    a: npt.NDArray[np.float64], qs: tuple[float, ...]
) -> list[npt.NDArray[np.float64]]:
    """Each column's quantiles over its known values; NaN for a column with none.

    The same figures as ``np.quantile`` per column (its default "linear" rule, worked out
    by hand after one sort of every column, NaN last): the rules run this for every node
    every few seconds, and a call of ``np.quantile`` per column was most of their time
    (at 128 nodes, 5% of a core)."""
    if a.shape[0] == 0:
        return [np.full(a.shape[1], np.nan) for _ in qs]
    ordered = np.sort(a, axis=0)
    known = np.count_nonzero(~np.isnan(a), axis=0)
    columns = np.arange(a.shape[1])
    last = np.maximum(known - 1, 0)
    out: list[npt.NDArray[np.float64]] = []
    for q in qs:
        virtual = (known - 1) * q
        below = np.clip(np.floor(virtual), 0, last).astype(np.intp)
        above = np.minimum(below + 1, last)
        gamma = virtual - below
        low, high = ordered[below, columns], ordered[above, columns]
        step = high - low
        value = low + step * gamma
        np.subtract(high, step * (1 - gamma), out=value, where=gamma >= 0.5)  # numpy's lerp
        value[known == 0] = np.nan
        out.append(value)
    return out


def node_stats(node: NodeRef, window: GpuWindow) -> NodeStats | None:
    if not len(window):
        return None
    util, util_low = _column_quantiles(values(window.records, "util"), (0.5, 0.25))
    (power,) = _column_quantiles(values(window.records, "power_w"), (0.5,))
    thr = window.records["throttle"]
    slowed = np.any((thr != MISSING["throttle"]) & ((thr & THROTTLE_SLOWDOWN_MASK) != 0), axis=0)
    return NodeStats(node, util, power, slowed, util_low)


def medians_of_others(v: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """For each value, the median of all the other known values (NaN where none), in one
    sort: removing the value at rank ``r`` shifts the ranks above it down by one."""
    out: npt.NDArray[np.float64] = np.full(v.shape, np.nan)
    known = np.flatnonzero(~np.isnan(v))
    n = known.size
    if n < 2:
        return out
    vals = v[known]
    order = np.argsort(vals, kind="stable")
    s = vals[order]
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n)
    m = n - 1
    lo, hi = (m - 1) // 2, m // 2
    at_lo = np.where(lo < rank, s[lo], s[min(lo + 1, n - 1)])
    at_hi = np.where(hi < rank, s[hi], s[min(hi + 1, n - 1)])
    out[known] = (at_lo + at_hi) / 2
    return out


def straggler_findings(stats: Sequence[NodeStats], th: AlertThresholds) -> list[Finding]:
    """GPUs and nodes far below their peers while the peers are busy."""
    out: list[Finding] = []
    if not stats:
        return out
    util = np.concatenate([s.util for s in stats])
    low = np.concatenate([s.util if s.util_low is None else s.util_low for s in stats])
    power = np.concatenate([s.power for s in stats])
    slowed = np.concatenate([s.slowed for s in stats])
    owner = [(s, g) for s in stats for g in range(s.util.shape[0])]
    peer_util = medians_of_others(util)
    peer_low = medians_of_others(low)
    peer_power = medians_of_others(power)
    if util.shape[0] >= 3:
        for i, (s, g) in enumerate(owner):
            if np.isnan(util[i]) or slowed[i]:
                continue
            med_u = float(peer_util[i])
            med_p = float(peer_power[i])
            # the peers busy through the window, not only on the whole: a window across
            # the start-up, the last step or a checkpoint pause judges nobody
            if not (
                med_u >= th.straggler_min_peer_util and peer_low[i] >= th.straggler_min_peer_util
            ):
                continue
            low_util = util[i] < th.straggler_util_ratio * med_u
            # Low power counts only when the GPU is not busier than its peers: a GPU spinning
            # at full utilization on little power waits in a collective, it is not slow.
            low_power = (
                not np.isnan(power[i])
                and med_p > 0
                and power[i] < th.straggler_power_ratio * med_p
                and util[i] <= med_u
            )
            if low_util or low_power:
                out.append(
                    _finding(
                        "gpu.straggler",
                        s.node,
                        said(
                            "alert.gpu_straggler",
                            node=s.node.name,
                            gpu=g,
                            util=float(util[i]),
                            power=float(power[i]),
                            peer_util=med_u,
                            peer_power=med_p,
                        ),
                        gpu=g,
                        cause=("node-slow", s.node.cluster_id, s.node.node_id),
                        data={"util": round(float(util[i]), 1), "peer_util": round(med_u, 1)},
                    )
                )
    node_util = np.array([s.mean_util for s in stats])
    node_low = np.array([s.mean_low for s in stats])
    peer_nodes = medians_of_others(node_util)
    peer_nodes_low = medians_of_others(node_low)
    if len(stats) >= 2:
        for i, s in enumerate(stats):
            med = float(peer_nodes[i])
            if np.isnan(node_util[i]) or not (
                med >= th.straggler_min_peer_util
                and peer_nodes_low[i] >= th.straggler_min_peer_util
            ):
                continue
            if node_util[i] < th.straggler_util_ratio * med:
                out.append(
                    _finding(
                        "node.straggler",
                        s.node,
                        said(
                            "alert.node_straggler",
                            node=s.node.name,
                            util=float(node_util[i]),
                            peer_util=med,
                        ),
                        cause=("node-slow", s.node.cluster_id, s.node.node_id),
                        data={"util": round(float(node_util[i]), 1), "peer_util": round(med, 1)},
                    )
                )
    return out


class TrafficWatch:
    """Per node: the traffic a training job normally moves, kept while it has collapsed.

    A collapse is a stall only while the node's GPUs stay busy: ranks stuck in a collective
    spin at full utilization with nothing on the wire. Traffic gone with the GPUs idle is
    the job's processes gone from the node (it ended, the runner has yet to notice, or a
    rank crashed): no stall, and the idle-GPU rule speaks for it if it lasts."""

    def __init__(self) -> None:
        self._baseline: dict[int, float] = {}

    def findings(
        self,
        node: NodeRef,
        window: NicWindow,
        now_ms: int,
        *,
        training: bool,
        gpu_util: float,
        th: AlertThresholds,
    ) -> list[Finding]:
        """``gpu_util``: the node's mean GPU utilization over the last ``nic_recent_s``
        (NaN without readings: then the traffic alone decides)."""
        totals = window.totals()
        if not training or not len(totals) or gpu_util < th.busy_util_percent:
            self._baseline.pop(node.node_id, None)
            return []
        recent_from = now_ms - int(th.nic_recent_s * 1000)
        recent = totals[window.ts_ms >= recent_from]
        older = totals[window.ts_ms < recent_from]
        if not recent.size:
            return []
        current = float(recent.mean())
        baseline = self._baseline.get(node.node_id)
        if baseline is None:
            if older.size < 3:
                return []
            baseline = float(np.percentile(older, 75))
        if baseline < th.nic_min_baseline_bytes_s or current >= th.nic_collapse_ratio * baseline:
            self._baseline.pop(node.node_id, None)
            return []
        self._baseline[node.node_id] = baseline
        return [
            _finding(
                "net.traffic_collapse",
                node,
                said(
                    "alert.traffic",
                    node=node.name,
                    rate=_rate(current),
                    baseline=_rate(baseline),
                ),
                cause=("stall", node.cluster_id),  # a stalled collective stalls every node
                data={"bytes_s": current, "baseline_bytes_s": baseline},
            )
        ]

    def forget(self, node_id: int) -> None:
        self._baseline.pop(node_id, None)


def link_regression_findings(
    node: NodeRef, window: NicWindow, now_ms: int, *, training: bool, th: AlertThresholds
) -> list[Finding]:
    """Fabric regression by rail (issue 34): during a job, an RDMA port (``mlx5_2:1``) whose
    recent traffic is more than ``link_regression_share`` below the median of the node's
    other ports. NCCL spreads a job's traffic evenly over the rails it was tuned with, so a
    link that trained down, pauses or drops shows as the one that carries less."""
    if not training or not len(window):
        return []
    ports = [i for i, name in enumerate(window.names) if ":" in name]
    if len(ports) < 2:
        return []
    recent = window.ts_ms >= now_ms - int(th.nic_recent_s * 1000)
    if not recent.any():
        return []
    rates = np.nansum(window.rates[recent][:, ports, :], axis=2).mean(axis=0)
    out = []
    for k, index in enumerate(ports):
        others = np.delete(rates, k)
        typical = float(np.median(others))
        mine = float(rates[k])
        if (
            typical < th.nic_min_baseline_bytes_s
            or mine >= (1 - th.link_regression_share) * typical
        ):
            continue
        name = window.names[index]
        out.append(
            _finding(
                "net.link_regression",
                node,
                said(
                    "alert.link_regression",
                    node=node.name,
                    link=name,
                    rate=_rate(mine),
                    typical=_rate(typical),
                    percent=mine / typical * 100,
                ),
                detail=name,
                cause=("link-slow", node.cluster_id, node.node_id, name),
                data={"link": name, "bytes_s": mine, "siblings_bytes_s": typical},
            )
        )
    return out


@dataclass(frozen=True)
class FabricBaseline:
    """What nccl-tests proved when the cluster was tuned: its peak bus bandwidth (GB/s) and
    the NCCL variables jobs were given then."""

    busbw_gbs: float
    env: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class NodeFabric:
    """One node's part: the bus bandwidth its ranks' collectives got lately (the median of
    the Inspector's records, or the estimate from step times and NIC counters; None
    without them), its ports' rates, and how much each port's error counters grew lately
    (``{"mlx5_2:1": {"link_downed": 3}}``)."""

    node: NodeRef
    busbw_gbs: float | None
    nic: NicWindow | None
    errors: Mapping[str, Mapping[str, int]] = field(default_factory=dict)


def _worst_port(fabric: NodeFabric, now_ms: int, th: AlertThresholds) -> tuple[str, float] | None:
    """The RDMA port of a node that carries least against its siblings' median, with its
    share of it, when it is below ``1 - link_regression_share`` (0.0: carries nothing)."""
    window = fabric.nic
    if window is None or not len(window):
        return None
    ports = [i for i, name in enumerate(window.names) if ":" in name]
    if len(ports) < 2:
        return None
    recent = window.ts_ms >= now_ms - int(th.nic_recent_s * 1000)
    if not recent.any():
        return None
    rates = np.nansum(window.rates[recent][:, ports, :], axis=2).mean(axis=0)
    worst: tuple[str, float] | None = None
    for k, index in enumerate(ports):
        typical = float(np.median(np.delete(rates, k)))
        if typical < th.nic_min_baseline_bytes_s:
            continue
        share = float(rates[k]) / typical
        if share < 1 - th.link_regression_share and (worst is None or share < worst[1]):
            worst = (window.names[index], share)
    return worst


def _likely_cause(
    nodes: Sequence[NodeFabric],
    slowest: NodeFabric,
    baseline: FabricBaseline,
    job_env: Mapping[str, str],
    now_ms: int,
    th: AlertThresholds,
    env_complete: bool = False,
) -> tuple[str, NodeFabric, str | None, dict[str, Any]]:
    """(cause, node, link, figures) of a regression, most telling first: a tuned NCCL
    variable the job changed or dropped; a port that carries nothing (a NIC down); a port
    whose ``link_downed`` grew (flapping) or ``port_xmit_wait`` grew (PFC pauses); a port
    well below its siblings (trained down); an NCCL variable the job added; else unknown.
    The slowest node is looked at first (a collective goes at its pace)."""
    tuned = dict(baseline.env)
    changes = env_changes(tuned, job_env, complete=env_complete)
    changed_tuned = [c for c in changes if not c.endswith("(not tuned)")]
    if changed_tuned:
        return "nccl-env", slowest, None, {"changes": "; ".join(changed_tuned)}
    ordered = sorted(nodes, key=lambda n: n is not slowest)  # the slowest node first
    ports: list[tuple[NodeFabric, str, float]] = []
    for fabric in ordered:
        port = _worst_port(fabric, now_ms, th)
        if port is not None:
            ports.append((fabric, port[0], port[1]))
    down = [p for p in ports if p[2] < 0.05]
    if down:
        fabric, link, share = min(down, key=lambda p: p[2])
        return "nic-down", fabric, link, {"percent": share * 100}
    for fabric in ordered:
        worst = worst_counters(fabric.errors)
        if worst is not None:
            link, cause, grew = worst
            figures = {
                "downs": grew.get("link_downed", 0) + grew.get("link_error_recovery", 0),
                "wait": grew.get("port_xmit_wait", 0),
            }
            return cause, fabric, link, figures
    if ports:
        fabric, link, share = min(ports, key=lambda p: p[2])
        return "slow-link", fabric, link, {"percent": share * 100}
    if changes:
        return "nccl-env", slowest, None, {"changes": "; ".join(changes)}
    return "unknown", slowest, None, {}


_CAUSE_KEYS = {
    "nccl-env": "alert.fabric_regression_env",
    "nic-down": "alert.fabric_regression_down",
    "flapping": "alert.fabric_regression_flapping",
    "pfc-pauses": "alert.fabric_regression_pauses",
    "slow-link": "alert.fabric_regression_link",
    "unknown": "alert.fabric_regression",
}


def fabric_regression_findings(
    nodes: Sequence[NodeFabric],
    baseline: FabricBaseline | None,
    now_ms: int,
    *,
    training: bool,
    th: AlertThresholds,
    job_env: Mapping[str, str] | None = None,
    env_complete: bool = False,
    estimates: Mapping[int, Estimate] | None = None,
) -> list[Finding]:
    """Fabric regression against the tune-time baseline (issue 34): while a job runs, the
    bus bandwidth its collectives get more than ``fabric_regression_share`` below the peak
    nccl-tests proved at tuning, with the likely cause (:func:`_likely_cause`). The
    bandwidth is NCCL's Inspector's, or, with ``estimates`` (by node id), the one worked
    out from step times and NIC counters (:mod:`xyclaw.telemetry.fabric_fallback`); an
    estimate warns only with a fabric cause found, since a step also slows for reasons of
    its own. ``job_env``: the job's NCCL variables (``env_complete``: all of them, as
    launched, so a tuned one missing from them was dropped)."""
    if not training or baseline is None or baseline.busbw_gbs <= 0:
        return []
    measured = [n for n in nodes if n.busbw_gbs is not None]
    if not measured:
        return []
    slowest = min(measured, key=lambda n: n.busbw_gbs or 0.0)
    got = float(slowest.busbw_gbs or 0.0)
    if got >= (1 - th.fabric_regression_share) * baseline.busbw_gbs:
        return []
    below = (1 - got / baseline.busbw_gbs) * 100
    cause, culprit, link, extra = _likely_cause(
        nodes, slowest, baseline, job_env or {}, now_ms, th, env_complete
    )
    estimated = estimates is not None
    if estimated and cause == "unknown":
        return []  # a slower step with no fabric cause: the GPUs or the input, not the fabric
    node = culprit.node
    figures: dict[str, Any] = {
        "got": got,
        "baseline": baseline.busbw_gbs,
        "below": below,
        "node": node.name,
        "link": link,
        **extra,
    }
    if cause == "unknown":
        figures["tuned"] = ", ".join(f"{k}={v}" for k, v in baseline.env) or "-"
    message = said(_CAUSE_KEYS[cause], **figures)
    data: dict[str, Any] = {
        "busbw_gbs": round(got, 2),
        "baseline_gbs": round(baseline.busbw_gbs, 2),
        "below_percent": round(below, 1),
        "likely_cause": cause,
        "link": link,
        "source": "nccl-inspector",
    }
    if "changes" in extra:
        data["nccl_changes"] = extra["changes"]
    estimate = (estimates or {}).get(slowest.node.node_id)
    if estimate is not None:
        message = said(
            "alert.fabric_estimated",
            message=message,
            gb=estimate.bytes_per_step / 1e9,
            comm=estimate.comm_s,
            step=estimate.step_s,
            best=estimate.best_step_s,
        )
        data.update(
            source="step-time-and-nic-counters",
            step_s=round(estimate.step_s, 4),
            best_step_s=round(estimate.best_step_s, 4),
            bytes_per_step=round(estimate.bytes_per_step),
        )
    return [
        _finding(
            "net.fabric_regression",
            node,
            message,
            detail=link,
            cause=("fabric-regression", node.cluster_id),  # one alert for the job's fabric
            data=data,
        )
    ]


def _rate(bytes_s: float) -> str:
    gbit = bytes_s * 8 / 1e9
    return f"{gbit:.2f} Gb/s" if gbit >= 0.1 else f"{bytes_s * 8 / 1e6:.1f} Mb/s"


def unreachable_finding(node: NodeRef, silent_s: float, reason: str | Said | None) -> Finding:
    """``reason``: why its telemetry stopped, worded (a :class:`Said`) or a remote's text."""
    message = (
        said("alert.unreachable_why", node=node.name, silent=silent_s, why=reason)
        if reason
        else said("alert.unreachable", node=node.name, silent=silent_s)
    )
    return _finding(
        "node.unreachable",
        node,
        message,
        cause=("node-down", node.cluster_id, node.node_id),
        data={"silent_s": round(silent_s, 1)},
    )


# --- the job log ------------------------------------------------------------------------------


def nccl_timeout_finding(cluster_id: int, job_id: int | None, ev: NcclTimeoutEvent) -> Finding:
    """What a job log's NCCL watchdog timeout tells the user (one per job)."""
    rule = RULES["job.nccl_timeout"]
    message = said(
        "alert.nccl_timeout",
        rank=said("alert.nccl.rank", rank=ev.rank)
        if ev.rank is not None
        else said("alert.nccl.a_rank"),
        op=ev.op_type or said("alert.nccl.a_collective"),
        seq=ev.seq_num,
        after=said("alert.nccl.after", seconds=ev.ran_for_ms / 1000) if ev.ran_for_ms else "",
        job=said("alert.nccl.in_job", job=job_id) if job_id is not None else "",
    )
    return Finding(
        key=AlertKey(rule.id, cluster_id, None, None, f"job{job_id}"),
        severity=rule.severity,
        message=str(message),
        action=rule.action,
        said=message,
        action_said=rule.action_said,
        cause=("stall", cluster_id),  # the job's verdict on a stall the network may show
        data={"rank": ev.rank, "seq_num": ev.seq_num, "op": ev.op_type, "job_id": job_id},
    )


def rank_straggler_finding(
    cluster_id: int, job_id: int | None, rank: int, seconds: float, relative: float,
    individual: float,
) -> Finding:  # fmt: skip
    """A rank slower than the best one, or than its own best (issue 34), by its step times."""
    rule = RULES["job.rank_straggler"]
    message = said(
        "alert.rank_straggler",
        rank=rank,
        seconds=seconds,
        relative=relative * 100,
        individual=individual * 100,
    )
    return Finding(
        key=AlertKey(rule.id, cluster_id, None, None, f"job{job_id}/rank{rank}"),
        severity=rule.severity,
        message=str(message),
        action=rule.action,
        said=message,
        action_said=rule.action_said,
        data={"rank": rank, "seconds": seconds, "relative": relative, "individual": individual},
    )


# --- the kernel log --------------------------------------------------------------------------

#: XIDs whose cause can be seen going away in the readings; the others hold for xid_hold_s.
_XID_EVIDENCE: dict[int, Callable[[int, GpuRecords, npt.NDArray[np.bool_]], bool]] = {
    79: lambda slot, rec, present: slot >= present.shape[0] or not present[slot],
    48: lambda slot, rec, present: bool(
        slot < rec.shape[0] and MISSING["ecc_uncorrected"] > rec["ecc_uncorrected"][slot] > 0
    ),
    94: lambda slot, rec, present: bool(
        slot < rec.shape[0] and MISSING["ecc_uncorrected"] > rec["ecc_uncorrected"][slot] > 0
    ),
    95: lambda slot, rec, present: bool(
        slot < rec.shape[0] and MISSING["ecc_uncorrected"] > rec["ecc_uncorrected"][slot] > 0
    ),
}
_CAUSE_OF_CATEGORY = {"bus": "gpu-lost", "memory": "gpu-memory"}


def _shown(present: npt.NDArray[np.bool_], slot: int) -> bool:
    return slot < present.shape[0] and bool(present[slot])


def xid_wording(code: int) -> tuple[Said, Said]:
    """What an XID means and what to do about it, worded (the kernel log parser's table in
    English, :mod:`xyclaw.wording.alerts` in both languages)."""
    if code in XID_TABLE:
        return said(f"alert.xid.{code}.what"), said(f"alert.xid.{code}.do")
    info = xid_info(code)
    if info.mnemonic:  # in NVIDIA's catalog: its description, and its resolution bucket worded
        what = said("alert.xid.catalog.what", description=Said(f"alert.xid.desc.{code}"))
        if info.bucket.startswith("WORKFLOW_"):
            return what, said("alert.xid.bucket.workflow", bucket=info.bucket, code=code)
        if info.bucket in XID_BUCKETS:
            return what, said(f"alert.xid.bucket.{info.bucket.lower()}", code=code)
        return what, said("alert.xid.unknown.do", code=code)
    return said("alert.xid.unknown.what"), said("alert.xid.unknown.do", code=code)


def xid_command() -> str:
    """The node's uptime, then the driver's kernel log lines (dmesg may need sudo)."""
    return (
        "cat /proc/uptime; { dmesg 2>/dev/null || sudo -n dmesg 2>/dev/null; } | grep -F 'NVRM: '"
    )


def _with_uuid(data: dict[str, Any], slots: GpuSlots, slot: int | None) -> dict[str, Any]:
    """An alert's figures with its GPU's UUID where the node gave one, so the memory of
    hosts can follow one GPU across rentals (issue 36)."""
    uuid = slots.uuid_of(slot)
    return {**data, "uuid": uuid} if uuid is not None else data


def xid_findings(
    node: NodeRef,
    output: str,
    slots: GpuSlots,
    latest: tuple[GpuRecords, npt.NDArray[np.bool_]] | None,
    th: AlertThresholds,
) -> list[Finding]:
    """XIDs in the kernel log whose cause still holds: seen in the readings for those that
    show there, else logged less than ``xid_hold_s`` ago."""
    lines = output.splitlines()
    uptime: float | None = None
    if lines:
        try:
            uptime = float(lines[0].split()[0])
            lines = lines[1:]
        except (ValueError, IndexError):
            uptime = None
    found: dict[AlertKey, Finding] = {}
    for ev in parse_dmesg(lines):
        if ev.severity == "info":
            continue
        slot = slots.slot_of_pci(ev.pci)
        if slot is None and ev.code == 79 and latest is not None:
            # Lost before the collector first looked: if exactly one slot is dark, it is that.
            dark = [i for i in range(node.expected_gpus) if not _shown(latest[1], i)]
            if len(dark) == 1 and ev.pci:
                slot = dark[0]
                slots.pci_by_slot[slot] = pci_key(ev.pci)
        evidence = _XID_EVIDENCE.get(ev.code)
        if evidence is not None and slot is not None and latest is not None:
            holds = evidence(slot, latest[0], latest[1])
        else:
            age = None if uptime is None or ev.uptime_s is None else uptime - ev.uptime_s
            holds = age is None or age < th.xid_hold_s
        if not holds:
            continue
        what, do = xid_wording(ev.code)
        message = (
            said("alert.xid", node=node.name, gpu=slot, code=ev.code, what=what)
            if slot is not None
            else said("alert.xid_at_pci", node=node.name, pci=ev.pci, code=ev.code, what=what)
        )
        category = _CAUSE_OF_CATEGORY.get(ev.category, f"xid-{ev.category}")
        finding = _finding(
            "gpu.xid",
            node,
            message,
            gpu=slot,
            detail=f"xid{ev.code}:{ev.pci}",
            severity=ev.severity,
            action=do,
            cause=(category, node.cluster_id, node.node_id, slot if slot is not None else ev.pci),
            data=_with_uuid(
                {"xid": ev.code, "pci": ev.pci, "category": ev.category, "pid": ev.pid},
                slots,
                slot,
            ),
        )
        found[finding.key] = finding
    return list(found.values())
