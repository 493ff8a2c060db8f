"""The verdict on nccl-tests runs: how close to the fabric's figure, and why not closer.

Peak bus bandwidth (the median of the runs' peaks, so one lucky run does not
decide) over the expected ceiling gives the ratio. Jitter is the spread of the
large-message bus bandwidth between repeated runs: RoCE without PFC/ECN on
the switches drops packets under load and shows exactly that.
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from xyclaw.parsers.nccltests import NcclTestRun
from xyclaw.tuning.expect import Expectation
from xyclaw.tuning.fabric import FabricReport
from xyclaw.tuning.settings import match_list
from xyclaw.wording import Said, said

JITTER_LIMIT = 0.025  # coefficient of variation between runs; IB stays well under 1%
LOW_ENOUGH_TO_STOP = 0.5  # a first run this far below the ceiling needs no repeats

HEALTHY = "healthy"
LOW = "low"
UNSTABLE = "unstable"
FAILED = "failed"
UNKNOWN = "unknown"

_NO_GID_RE = re.compile(r"no GID at index (\S+)", re.IGNORECASE)


@dataclass(frozen=True)
class Cause:
    code: str  # socket_fallback, wrong_gid_index, wrong_hca, gdr_off, pfc_ecn_jitter, ...
    title: str
    detail: str
    fix: str

    def to_json(self) -> dict[str, str]:
        return {"code": self.code, "title": self.title, "detail": self.detail, "fix": self.fix}


@dataclass(frozen=True)
class Verdict:
    status: str  # healthy, low, unstable, failed, unknown
    peak_busbw: float | None
    avg_busbw: float | None
    expectation: Expectation | None
    ratio: float | None
    jitter: float | None
    transport: str | None
    runs: int
    causes: tuple[Cause, ...] = ()
    notes: tuple[str, ...] = ()

    @property
    def healthy(self) -> bool:
        return self.status == HEALTHY

    @property
    def cause_codes(self) -> list[str]:
        return [c.code for c in self.causes]

    def headline(self) -> str:
        return self.headline_said().english

    def headline_said(self) -> Said:
        """The verdict in one line, as a :class:`Said` (a view words it in its language)."""
        known = self.status in (HEALTHY, LOW, UNSTABLE, FAILED, UNKNOWN)
        status: Said | str = Said(f"op.tune.status.{self.status}") if known else self.status
        if self.peak_busbw is None:
            return said("op.tune.no_busbw", status=status)
        text = said("op.tune.peak", status=status, peak=f"{self.peak_busbw:.1f}")
        if self.expectation is not None and self.ratio is not None:
            text = said(
                "op.tune.of_expected",
                head=text,
                ratio=f"{self.ratio:.0%}",
                expected=f"{self.expectation.busbw_gbs:.1f}",
                healthy=f"{self.expectation.healthy_fraction:.0%}",
            )
        if self.jitter is not None:
            text = said("op.tune.jitter", head=text, jitter=f"{self.jitter:.1%}", runs=self.runs)
        return text

    def to_json(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "healthy": self.healthy,
            "peak_busbw_gbs": _round(self.peak_busbw),
            "avg_busbw_gbs": _round(self.avg_busbw),
            "expected": self.expectation.to_json() if self.expectation else None,
            "ratio": _round(self.ratio, 4),
            "jitter": _round(self.jitter, 4),
            "transport": self.transport,
            "runs": self.runs,
            "causes": [c.to_json() for c in self.causes],
            "notes": list(self.notes),
            "headline": self.headline(),
        }


def _round(value: float | None, digits: int = 3) -> float | None:
    return None if value is None else round(value, digits)


def run_jitter(runs: Sequence[NcclTestRun]) -> float | None:
    """Mean coefficient of variation of busbw per message size, over the largest sizes
    that every run measured (both placements); None with fewer than two runs."""
    done = [r for r in runs if r.rows]
    if len(done) < 2:
        return None
    sizes = set.intersection(*({row.size for row in r.rows} for r in done))
    if not sizes:
        return None
    top = sorted(sizes)[-3:]
    cvs = []
    for size in top:
        values = [v for r in done for row in r.rows if row.size == size for v in row.busbw_values]
        if len(values) < 2:
            continue
        mean = statistics.fmean(values)
        if mean > 0:
            cvs.append(statistics.stdev(values) / mean)
    return statistics.fmean(cvs) if cvs else None


def _transport(runs: Sequence[NcclTestRun]) -> str | None:
    kinds = {r.net.transport for r in runs if r.net.transport}
    if not kinds:
        return None
    return kinds.pop() if len(kinds) == 1 else "mixed"


def _used_devices(runs: Sequence[NcclTestRun]) -> set[str]:
    return {d.name for r in runs for d in r.net.devices if d.link in ("IB", "RoCE")}


def _cause_fallback_reasons(
    env: Mapping[str, str], report: FabricReport | None, runs: Sequence[NcclTestRun]
) -> list[Cause]:
    causes: list[Cause] = []
    if env.get("NCCL_IB_DISABLE", "0") not in ("0", ""):
        causes.append(
            Cause(
                "ib_disabled",
                "InfiniBand verbs are switched off",
                f"NCCL_IB_DISABLE={env['NCCL_IB_DISABLE']} in the environment",
                "unset it or set NCCL_IB_DISABLE=0",
            )
        )
    hcas = list(report.summary.hcas) if report is not None else []
    if "NCCL_IB_HCA" in env and hcas and not match_list(env["NCCL_IB_HCA"], hcas):
        causes.append(
            Cause(
                "wrong_hca",
                "NCCL_IB_HCA names no HCA these nodes have",
                f"NCCL_IB_HCA={env['NCCL_IB_HCA']}, but the active HCAs are {', '.join(hcas)}",
                "set NCCL_IB_HCA==" + ",".join(hcas),
            )
        )
    warned = [m.group(1) for r in runs for w in r.net.warnings if (m := _NO_GID_RE.search(w))]
    gid = env.get("NCCL_IB_GID_INDEX")
    good = report.summary.roce_gid_index if report is not None else None
    roce = report is not None and report.summary.transport == "roce"
    if (gid is not None and roce and good is not None and gid != str(good)) or warned:
        shown = gid if gid is not None else warned[0]
        causes.append(
            Cause(
                "wrong_gid_index",
                "wrong RoCE GID index",
                f"NCCL_IB_GID_INDEX={shown}"
                + (
                    f", but RoCE v2 on IPv4 is GID {good} on these ports"
                    if good is not None
                    else ""
                )
                + ("; NCCL ignored every HCA for it" if warned else ""),
                f"set NCCL_IB_GID_INDEX={good}"
                if good is not None
                else "find the RoCE v2 GID with show_gids and set NCCL_IB_GID_INDEX to it",
            )
        )
    if report is not None and report.summary.transport in ("ib", "roce") and not hcas:
        causes.append(
            Cause(
                "no_active_hca",
                "no HCA port is active on every node",
                "; ".join(f for f in report.summary.findings if "port" in f) or "ibstat shows none",
                "check cables and the subnet manager (ibstat: State Active, LinkUp)",
            )
        )
    return causes


def judge(
    runs: Sequence[NcclTestRun],
    expectation: Expectation | None,
    *,
    env: Mapping[str, str] | None = None,
    report: FabricReport | None = None,
    rdma_expected: bool | None = None,
    nodes: int | None = None,
) -> Verdict:
    """Status, ratio and likely causes for runs of one configuration.

    ``env`` is the NCCL environment the runs had (the image's and ours);
    ``report`` the fabric probe, when there is one, which names what the nodes have;
    ``nodes`` how many nodes ran the test, when the log's host names cannot tell.
    """
    env = dict(env or {})
    notes: list[str] = []
    with_rows = [r for r in runs if r.rows]
    transport = _transport(runs)
    if rdma_expected is None:
        if report is not None:
            rdma_expected = report.summary.transport in ("ib", "roce", "mixed")
        else:
            rdma_expected = expectation is not None and expectation.path == "rdma"
    if not with_rows:
        errors = [e for r in runs for e in r.errors]
        return Verdict(
            FAILED,
            None,
            None,
            expectation,
            None,
            None,
            transport,
            len(runs),
            (
                Cause(
                    "no_results",
                    "the test printed no result rows",
                    "; ".join(errors) or "the output ends before the first message size",
                    "run it by hand with NCCL_DEBUG=INFO and read the first error",
                ),
            ),
        )
    peaks = [p for r in with_rows if (p := r.peak_busbw) is not None]
    peak = statistics.median(peaks)
    avgs = [a for r in with_rows if (a := r.avg_busbw or r.recomputed_avg_busbw) is not None]
    avg = statistics.median(avgs) if avgs else None
    jitter = run_jitter(with_rows)
    ratio = peak / expectation.busbw_gbs if expectation and expectation.busbw_gbs > 0 else None
    causes: list[Cause] = []
    fallback = any(r.net.socket_fallback for r in runs)
    if nodes is not None:
        multi_node = nodes > 1
    else:
        multi_node = any((r.n_nodes or 0) > 1 for r in runs) or (
            report is not None and report.node_count > 1
        )
    if fallback and rdma_expected and multi_node:
        socket_line = next(
            (f"{d.name}" for r in runs for d in r.net.devices if d.link == "Socket"), None
        )
        causes.append(
            Cause(
                "socket_fallback",
                "NCCL fell back to TCP sockets",
                "NCCL INFO says NET/Socket"
                + (f" (over {socket_line})" if socket_line else "")
                + ": the HCAs carried nothing",
                "NCCL_DEBUG=INFO prints why NET/IB found no device; check NCCL_IB_HCA, "
                "NCCL_IB_GID_INDEX (RoCE) and NCCL_IB_DISABLE",
            )
        )
        causes += _cause_fallback_reasons(env, report, runs)
    elif rdma_expected and multi_node:
        causes += [
            c for c in _cause_fallback_reasons(env, report, runs) if c.code != "no_active_hca"
        ]
        hcas = list(report.summary.hcas) if report is not None else []
        used = _used_devices(runs)
        if hcas and used and len(used & set(hcas)) < len(hcas):
            causes.append(
                Cause(
                    "wrong_hca",
                    "NCCL used fewer HCAs than the nodes have",
                    f"NCCL used {', '.join(sorted(used))} of {', '.join(hcas)}",
                    "set NCCL_IB_HCA==" + ",".join(hcas),
                )
            )
        elif hcas and "NCCL_IB_HCA" in env and not used:
            chosen = match_list(env["NCCL_IB_HCA"], hcas)
            if 0 < len(chosen) < len(hcas):
                causes.append(
                    Cause(
                        "wrong_hca",
                        "NCCL_IB_HCA leaves HCAs out",
                        f"NCCL_IB_HCA={env['NCCL_IB_HCA']} selects {', '.join(chosen)} of "
                        f"{', '.join(hcas)}",
                        "set NCCL_IB_HCA==" + ",".join(hcas),
                    )
                )
    if rdma_expected and multi_node and not fallback:
        gdr_level = env.get("NCCL_NET_GDR_LEVEL", "").upper()
        gdr_seen_off = any(r.net.gdr is False for r in runs)
        peermem_off = report is not None and report.summary.peermem is False
        if gdr_level in ("LOC", "0") or env.get("NCCL_NET_GDR_DISABLE") == "1" or gdr_seen_off:
            causes.append(
                Cause(
                    "gdr_off",
                    "GPUDirect RDMA is off",
                    (
                        f"NCCL_NET_GDR_LEVEL={env['NCCL_NET_GDR_LEVEL']}"
                        if gdr_level in ("LOC", "0")
                        else "NCCL's channels run over NET/IB without GDRDMA"
                    )
                    + ": data bounces through host memory",
                    "set NCCL_NET_GDR_LEVEL=PXB (or PHB) and load nvidia_peermem",
                )
            )
        elif peermem_off:
            causes.append(
                Cause(
                    "gdr_off",
                    "GPUDirect RDMA may be off",
                    "nvidia_peermem is not loaded on every node",
                    "run `modprobe nvidia_peermem` on every node",
                )
            )
    roce = (report is not None and report.summary.transport == "roce") or transport == "roce"
    over_sockets = transport == "socket" or (
        expectation is not None and expectation.path == "socket"
    )
    jittery = jitter is not None and jitter > JITTER_LIMIT and not over_sockets
    if jitter is not None and jitter > JITTER_LIMIT and over_sockets:
        notes.append(f"TCP sockets: bus bandwidth varied by {jitter:.1%} between runs")
    if jitter is not None and jittery:
        if roce:
            tc = env.get("NCCL_IB_TC")
            causes.append(
                Cause(
                    "pfc_ecn_jitter",
                    "RoCE without PFC/ECN: bus bandwidth jitters between runs",
                    f"large messages varied by {jitter:.1%} between {len(with_rows)} runs "
                    f"(healthy fabrics stay under {JITTER_LIMIT:.1%})"
                    + (
                        f"; NCCL_IB_TC={tc}"
                        if tc
                        else "; no NCCL_IB_TC is set, so RoCE rides the lossy default class"
                    ),
                    "set NCCL_IB_TC to the lossless class (e.g. 106) and check PFC/ECN on the "
                    "switches",
                )
            )
        else:
            causes.append(
                Cause(
                    "jitter",
                    "bus bandwidth jitters between runs",
                    f"large messages varied by {jitter:.1%} between {len(with_rows)} runs",
                    "look for other jobs on the nodes or the fabric, and for congestion",
                )
            )
    if report is not None and multi_node and rdma_expected:
        down = [f for f in report.summary.findings if " is DOWN" in f or "not active" in f]
        slow = [f for f in report.summary.findings if f.startswith("ports below")]
        if down:
            causes.append(
                Cause(
                    "port_down",
                    "HCA ports are down",
                    "; ".join(down[:4]),
                    "reseat or replace the cable; ask the provider",
                )
            )
        if slow:
            causes.append(
                Cause(
                    "link_rate_low",
                    "ports run below the fabric's rate",
                    slow[0],
                    "check cables and transceivers; ask the provider",
                )
            )
    if any(r.validation_failed for r in runs):
        causes.insert(
            0,
            Cause(
                "wrong_results",
                "the test found wrong values",
                "#wrong is not zero or out-of-bounds values were reported",
                "do not trust this cluster for training until a rerun passes; drain the node",
            ),
        )
    if any(r.truncated for r in runs):
        notes.append("a run ended before its footer; its rows are counted as far as they go")
    if expectation is not None and expectation.assumptions:
        notes += list(expectation.assumptions)
    if ratio is not None and ratio > 1.05:
        notes.append(
            "above the ceiling: two-node runs use Tree and NVLS can exceed the link figure; "
            "NCCL_ALGO=RING measures the network alone"
        )
    if any(c.code == "wrong_results" for c in causes):
        status = FAILED
    elif expectation is None:
        status = LOW if any(c.code == "socket_fallback" for c in causes) else UNKNOWN
    elif (ratio is not None and ratio < expectation.healthy_fraction) or any(
        c.code == "socket_fallback" for c in causes
    ):
        status = LOW
    elif jittery:
        status = UNSTABLE
    else:
        status = HEALTHY
    if status == LOW and not causes and all(r.truncated for r in with_rows):
        status = UNKNOWN
        largest = max(row.size for r in with_rows for row in r.rows)
        notes.append(
            f"the run was cut off at {largest} bytes, before the large messages where bus "
            "bandwidth peaks; run it to the end to judge it"
        )
    if status == LOW and not causes:
        causes.append(
            Cause(
                "unexplained",
                "slower than the fabric allows, for no reason the tests can see",
                f"{peak:.1f} GB/s against {expectation.busbw_gbs:.1f} GB/s" if expectation else "",
                "rerun with NCCL_ALGO=RING to measure the network alone; check for other jobs "
                "on the nodes and for errors in the HCA counters",
            )
        )
    if status == HEALTHY:
        # Only what is worth knowing on a good cluster survives (e.g. a wrong GID that still works).
        causes = [c for c in causes if c.code in ("wrong_gid_index", "gdr_off", "link_rate_low")]
    return Verdict(
        status=status,
        peak_busbw=peak,
        avg_busbw=avg,
        expectation=expectation,
        ratio=ratio,
        jitter=jitter,
        transport=transport,
        runs=len(runs),
        causes=tuple(causes),
        notes=tuple(notes),
    )
