"""The verdict on nccl-tests runs: how close to the fabric's figure, and why not closer.

Peak bus bandwidth (the median of the runs' peaks, so one lucky run does not
decide) over the expected ceiling gives the ratio. Jitter is the spread of the
large-message bus bandwidth between repeated runs: RoCE without PFC/ECN on
the switches drops packets under load and shows exactly that.
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
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
    # the wording of title, detail and fix, for a view in another language (not stored)
    title_said: Said | None = field(default=None, compare=False)
    detail_said: Said | None = field(default=None, compare=False)
    fix_said: Said | None = field(default=None, compare=False)

    @classmethod
    def of(cls, code: str, title: Said, detail: Said | str, fix: Said | str) -> Cause:
        """A cause from its wording (the English forms are its text)."""
        return cls(
            code,
            str(title),
            str(detail),
            str(fix),
            title,
            detail if isinstance(detail, Said) else None,
            fix if isinstance(fix, Said) else None,
        )

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
    #: The notes worded (issue 35): a view shows them in its language; ``notes`` is English.
    notes_said: tuple[Said | str, ...] = field(default=(), compare=False)

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
            "headline_said": self.headline_said().to_json(),  # a view's own language (a35)
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
            Cause.of(
                "ib_disabled",
                said("op.cause.ib_disabled"),
                said("op.cause.ib_disabled.detail", value=env["NCCL_IB_DISABLE"]),
                said("op.cause.ib_disabled.fix"),
            )
        )
    hcas = list(report.summary.hcas) if report is not None else []
    if "NCCL_IB_HCA" in env and hcas and not match_list(env["NCCL_IB_HCA"], hcas):
        causes.append(
            Cause.of(
                "wrong_hca",
                said("op.cause.hca_none"),
                said("op.cause.hca_none.detail", value=env["NCCL_IB_HCA"], hcas=", ".join(hcas)),
                said("op.cause.set", setting="NCCL_IB_HCA==" + ",".join(hcas)),
            )
        )
    warned = [m.group(1) for r in runs for w in r.net.warnings if (m := _NO_GID_RE.search(w))]
    gid = env.get("NCCL_IB_GID_INDEX")
    good = report.summary.roce_gid_index if report is not None else None
    roce = report is not None and report.summary.transport == "roce"
    if (gid is not None and roce and good is not None and gid != str(good)) or warned:
        shown = gid if gid is not None else warned[0]
        causes.append(
            Cause.of(
                "wrong_gid_index",
                said("op.cause.gid"),
                said(
                    "op.cause.gid.detail",
                    value=shown,
                    good=said("op.cause.gid.good", good=good) if good is not None else "",
                    ignored=said("op.cause.gid.ignored") if warned else "",
                ),
                said("op.cause.set", setting=f"NCCL_IB_GID_INDEX={good}")
                if good is not None
                else said("op.cause.gid.find"),
            )
        )
    if report is not None and report.summary.transport in ("ib", "roce") and not hcas:
        causes.append(
            Cause.of(
                "no_active_hca",
                said("op.cause.no_active_hca"),
                _semicolons(_findings(report, lambda f: "port" in f))
                or said("op.cause.no_active_hca.detail"),
                said("op.cause.no_active_hca.fix"),
            )
        )
    return causes


def _findings(report: FabricReport, wanted: Callable[[str], bool]) -> list[Said | str]:
    """The probe's findings whose English is ``wanted``, each as said where it is."""
    summary = report.summary
    pairs = zip(summary.findings, summary.worded_findings(), strict=True)
    return [worded for english, worded in pairs if wanted(english)]


def _semicolons(items: Sequence[Said | str]) -> Said | str:
    """``a; b; c`` in English, ``a；b；c`` in Chinese (none: "")."""
    if len(items) <= 1:
        return items[0] if items else ""
    return said("common.semicolons", first=items[0], rest=_semicolons(items[1:]))


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
    notes: list[Said | str] = []
    with_rows = [r for r in runs if r.rows]
    transport = _transport(runs)
    if rdma_expected is None:
        if report is not None:
            rdma_expected = report.summary.transport in ("ib", "roce", "mixed")
        else:
            rdma_expected = expectation is not None and expectation.path == "rdma"
    failures = [f for r in runs for f in r.failures]
    if failures:  # "Test NCCL failure common.cu:..." : whatever rows came before, it failed
        return Verdict(
            FAILED,
            max((p for r in with_rows if (p := r.peak_busbw) is not None), default=None),
            None,
            expectation,
            None,
            None,
            transport,
            len(runs),
            (
                Cause.of(
                    "test_failure",
                    said("op.cause.test_failure"),
                    "; ".join(dict.fromkeys(failures)),
                    said("op.cause.test_failure.fix"),
                ),
            ),
            tuple(p for r in runs for p in r.rank_problems),
        )
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
                Cause.of(
                    "no_results",
                    said("op.cause.no_results"),
                    "; ".join(errors) or said("op.cause.no_results.detail"),
                    said("op.cause.no_results.fix"),
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
            Cause.of(
                "socket_fallback",
                said("op.cause.socket_fallback"),
                said(
                    "op.cause.socket_fallback.detail",
                    over=said("op.cause.over", what=socket_line) if socket_line else "",
                ),
                said("op.cause.socket_fallback.fix"),
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
                Cause.of(
                    "wrong_hca",
                    said("op.cause.hca_fewer"),
                    said(
                        "op.cause.hca_fewer.detail",
                        used=", ".join(sorted(used)),
                        hcas=", ".join(hcas),
                    ),
                    said("op.cause.set", setting="NCCL_IB_HCA==" + ",".join(hcas)),
                )
            )
        elif hcas and "NCCL_IB_HCA" in env and not used:
            chosen = match_list(env["NCCL_IB_HCA"], hcas)
            if 0 < len(chosen) < len(hcas):
                causes.append(
                    Cause.of(
                        "wrong_hca",
                        said("op.cause.hca_left_out"),
                        said(
                            "op.cause.hca_left_out.detail",
                            value=env["NCCL_IB_HCA"],
                            chosen=", ".join(chosen),
                            hcas=", ".join(hcas),
                        ),
                        said("op.cause.set", setting="NCCL_IB_HCA==" + ",".join(hcas)),
                    )
                )
    if rdma_expected and multi_node and not fallback:
        gdr_level = env.get("NCCL_NET_GDR_LEVEL", "").upper()
        gdr_seen_off = any(r.net.gdr is False for r in runs)
        peermem_off = report is not None and report.summary.peermem is False
        if gdr_level in ("LOC", "0") or env.get("NCCL_NET_GDR_DISABLE") == "1" or gdr_seen_off:
            causes.append(
                Cause.of(
                    "gdr_off",
                    said("op.cause.gdr_off"),
                    said(
                        "op.cause.gdr_off.detail",
                        why=(
                            f"NCCL_NET_GDR_LEVEL={env['NCCL_NET_GDR_LEVEL']}"
                            if gdr_level in ("LOC", "0")
                            else said("op.cause.gdr_off.channels")
                        ),
                    ),
                    said("op.cause.gdr_off.fix"),
                )
            )
        elif peermem_off:
            causes.append(
                Cause.of(
                    "gdr_off",
                    said("op.cause.gdr_maybe_off"),
                    said("op.cause.gdr_maybe_off.detail"),
                    said("op.cause.gdr_maybe_off.fix"),
                )
            )
    roce = (report is not None and report.summary.transport == "roce") or transport == "roce"
    over_sockets = transport == "socket" or (
        expectation is not None and expectation.path == "socket"
    )
    jittery = jitter is not None and jitter > JITTER_LIMIT and not over_sockets
    if jitter is not None and jitter > JITTER_LIMIT and over_sockets:
        notes.append(said("op.note.socket_jitter", jitter=f"{jitter:.1%}"))
    if jitter is not None and jittery:
        if roce:
            tc = env.get("NCCL_IB_TC")
            causes.append(
                Cause.of(
                    "pfc_ecn_jitter",
                    said("op.cause.pfc_ecn_jitter"),
                    said(
                        "op.cause.pfc_ecn_jitter.detail",
                        jitter=f"{jitter:.1%}",
                        runs=len(with_rows),
                        limit=f"{JITTER_LIMIT:.1%}",
                        tc=f"; NCCL_IB_TC={tc}" if tc else said("op.cause.no_tc"),
                    ),
                    said("op.cause.pfc_ecn_jitter.fix"),
                )
            )
        else:
            causes.append(
                Cause.of(
                    "jitter",
                    said("op.cause.jitter"),
                    said("op.cause.jitter.detail", jitter=f"{jitter:.1%}", runs=len(with_rows)),
                    said("op.cause.jitter.fix"),
                )
            )
    if report is not None and multi_node and rdma_expected:
        down = _findings(report, lambda f: " is DOWN" in f or "not active" in f)
        slow = _findings(report, lambda f: f.startswith("ports below"))
        if down:
            causes.append(
                Cause.of(
                    "port_down",
                    said("op.cause.port_down"),
                    _semicolons(down[:4]),
                    said("op.cause.port_down.fix"),
                )
            )
        if slow:
            causes.append(
                Cause.of(
                    "link_rate_low",
                    said("op.cause.link_rate_low"),
                    slow[0],
                    said("op.cause.link_rate_low.fix"),
                )
            )
    if any(r.validation_failed for r in runs):
        causes.insert(
            0,
            Cause.of(
                "wrong_results",
                said("op.cause.wrong_results"),
                said("op.cause.wrong_results.detail"),
                said("op.cause.wrong_results.fix"),
            ),
        )
    notes += [p for r in runs for p in r.rank_problems]
    if any(r.truncated for r in runs):
        notes.append(said("op.note.truncated"))
    if expectation is not None and expectation.assumptions:
        notes += list(expectation.assumptions_said or expectation.assumptions)
    if ratio is not None and ratio > 1.05:
        notes.append(said("op.note.above_ceiling"))
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
        notes.append(said("op.note.cut_off", size=largest))
    if status == LOW and not causes:
        causes.append(
            Cause.of(
                "unexplained",
                said("op.cause.unexplained"),
                said(
                    "op.cause.unexplained.detail",
                    peak=f"{peak:.1f}",
                    expected=f"{expectation.busbw_gbs:.1f}",
                )
                if expectation
                else "",
                said("op.cause.unexplained.fix"),
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
        notes=tuple(str(note) for note in notes),
        notes_said=tuple(notes),
    )
