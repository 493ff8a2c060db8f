"""Pasted command output, read: what it is, what it shows, what to do (issue 30).

A user pastes what a GPU node printed (into ``xyclaw diagnose`` or the chat). This module
recognises which command printed it, reads it with the same parsers the live collectors use,
and runs the same alert rules and nccl-tests verdicts on it as on a live node. The answer is
worded (:class:`~xyclaw.wording.Said`), so each face shows it in its language; text that is
none of the known outputs is refused with a word on what was expected, never guessed at.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from xyclaw.errors import ParseError, XyclawError
from xyclaw.parsers.ibparse import Hca, parse_ibstat, parse_ibv_devinfo, parse_show_gids
from xyclaw.parsers.joblog import (
    CudaErrorEvent,
    NcclErrorEvent,
    NcclTimeoutEvent,
    ProcessExitEvent,
    ProgressEvent,
    parse_job_log,
)
from xyclaw.parsers.kernel_log import parse_dmesg
from xyclaw.parsers.nccltests import parse_nccl_info, parse_nccl_tests_all
from xyclaw.parsers.nvsmi import (
    GpuDetails,
    GpuSample,
    parse_csv,
    parse_list,
    parse_query_details,
    parse_topology,
)
from xyclaw.parsers.nvsmi_table import looks_like_table, parse_table
from xyclaw.parsers.paste import Pasted, read_paste
from xyclaw.telemetry.pack import GpuSlots, pack
from xyclaw.telemetry.rules import (
    AlertThresholds,
    NodeRef,
    instant_findings,
    nccl_timeout_finding,
    xid_findings,
)
from xyclaw.tuning.verdict import judge
from xyclaw.wording import Said, said

#: The kinds of text diagnose reads, in the order it tries them.
KINDS = (
    "nvidia-smi",
    "nvidia-smi -q",
    "nvidia-smi csv",
    "nvidia-smi -L",
    "nvidia-smi topo -m",
    "ibstat",
    "ibv_devinfo",
    "show_gids",
    "dmesg",
    "nccl-tests",
    "training log",
)
MAX_CHARS = 4_000_000
_MAX_GPUS = 64  # a pasted log longer than this is cut (and said so)
_NODE = NodeRef(cluster_id=0, node_id=0, name="pasted", expected_gpus=0)


class DiagnoseError(ParseError):
    """Pasted text that diagnose cannot read."""


@dataclass(frozen=True)
class Point:
    """One thing the text shows: how serious, what, and what to do."""

    severity: str  # info, warning, error, critical
    what: Said
    do: Said | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "severity": self.severity,
            "what": str(self.what),
            "do": str(self.do) if self.do is not None else None,
        }


@dataclass(frozen=True)
class Diagnosis:
    """What a pasted text is and what it shows."""

    kind: str
    summary: tuple[Said, ...]
    points: tuple[Point, ...] = ()
    command: str | None = None  # the command the paste's prompt named, if any
    data: dict[str, Any] = field(default_factory=dict)

    @property
    def worst(self) -> str:
        order = ("info", "warning", "error", "critical")
        return max((p.severity for p in self.points), key=order.index, default="info")

    @property
    def healthy(self) -> bool:
        return self.worst == "info"

    def lines(self, language: str) -> list[str]:
        """The answer as plain lines in ``language`` (the CLI prints them)."""
        kind: Said | str = self.kind
        if self.kind in ("training log", "watchdog trace"):
            kind = Said(f"op.diag.kindname.{self.kind}")
        out = [said("op.diag.kind", kind=kind).in_language(language)]
        out += [s.in_language(language) for s in self.summary]
        if not self.points:
            out.append(said("op.diag.nothing_wrong").in_language(language))
        for p in self.points:
            head = said(
                "op.diag.point", severity=Said(f"op.diag.severity.{p.severity}"), what=p.what
            )
            out.append(head.in_language(language))
            if p.do is not None:
                out.append(said("op.diag.do", do=p.do).in_language(language))
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "command": self.command,
            "healthy": self.healthy,
            "worst": self.worst,
            "summary": [str(s) for s in self.summary],
            "points": [p.to_json() for p in self.points],
            "data": self.data,
        }


# --- recognising ---------------------------------------------------------------------------

_COMMAND_KINDS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"nvidia-smi\b.*\btopo\b.*(?:\s-m\b|--matrix)"), "nvidia-smi topo -m"),
    (re.compile(r"nvidia-smi\b.*--query-gpu"), "nvidia-smi csv"),
    (re.compile(r"nvidia-smi\b.*\s-L\b"), "nvidia-smi -L"),
    (re.compile(r"nvidia-smi\b.*\s-q\b"), "nvidia-smi -q"),
    (re.compile(r"nvidia-smi\s*$"), "nvidia-smi"),
    (re.compile(r"\bibstat\b"), "ibstat"),
    (re.compile(r"\bibv_devinfo\b"), "ibv_devinfo"),
    (re.compile(r"\bshow_gids\b"), "show_gids"),
    (re.compile(r"\b(?:dmesg|journalctl)\b"), "dmesg"),
    (re.compile(r"_perf\b"), "nccl-tests"),
)
_COMMAND_CHARS = 300
_NCCL_TESTS_RE = re.compile(
    r"^#?\s*(?:nThread\s+\d+\s+nGpus|nccl-tests version|size\s+count\s+type)", re.M
)
#: A result row pasted without its header: size, count, type, reduction op, then figures.
_NCCL_ROW_RE = re.compile(
    r"^\s*\d{1,15}\s+\d{1,15}\s+(?:float|double|half|bfloat16|u?int(?:8|32|64)|fp8_e\dm\d)"
    r"\s+(?:sum|prod|min|max|avg|none|premulsum)\s+-?\d",
    re.M,
)
_TEST_FAILURE_RE = re.compile(r"Test (?:NCCL |CUDA )?failure \S+:\d+")
_QUERY_RE = re.compile(r"NVSMI LOG|^GPU [0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:", re.M)
_TOPO_RE = re.compile(r"^\s*GPU0\s+(?:GPU1|NIC0|CPU Affinity|X)\b", re.M)
#: ``nvidia-smi topo -p2p r``: a capability matrix (OK, CNS, ...), not the link matrix of -m.
_P2P_RE = re.compile(r"^\s*GPU\d+\s+(?:X\s+)?(?:OK|CNS|GNS|TNS|NS|U)(?:\s|$)", re.M)
_LIST_RE = re.compile(r"^GPU \d+: .*\(UUID: ", re.M)
_CSV_RE = re.compile(
    r"^(?:index|name|timestamp|utilization\.gpu|memory\.used|uuid|pci\.bus_id)\b.*,", re.M
)
_IBSTAT_RE = re.compile(r"^CA '[^']+'\s*$", re.M)
_DEVINFO_RE = re.compile(r"^hca_id:\s*\S+", re.M)
_GIDS_RE = re.compile(r"^DEV\s+PORT\s+INDEX\s+GID\b", re.M)
_DMESG_RE = re.compile(r"NVRM: |fallen off the bus")
_LOG_RE = re.compile(
    r"Watchdog caught collective operation timeout|ProcessGroupNCCL|NCCL WARN|NCCL error|"
    r"CUDA error|CUDA out of memory|OutOfMemoryError|Traceback \(most recent call last\)|"
    r"NCCL INFO|\biteration\s+\d+\s*/|\{'loss': |\bstep[ =:]\s{0,8}\d{1,12}.{0,200}\bloss\b|"
    r"ChildFailedError|exitcode|\bstep=\d{1,12}, skipped=\d|"
    r"\[INFO\] \[(?:config|logging|engine|timer)\.py:\d{1,6}:",
    re.I,
)


def recognise(pasted: Pasted) -> str | None:
    """Which command printed the text: from its content first, the prompt's command second."""
    text = pasted.text
    if _NCCL_TESTS_RE.search(text) or _TEST_FAILURE_RE.search(text):
        return "nccl-tests"
    if len(_NCCL_ROW_RE.findall(text[:200_000])) >= 2:
        return "nccl-tests"
    if looks_like_table(text):
        return "nvidia-smi"
    if _QUERY_RE.search(text):
        return "nvidia-smi -q"
    if _TOPO_RE.search(text) and not _P2P_RE.search(text):
        return "nvidia-smi topo -m"
    if _LIST_RE.search(text):
        return "nvidia-smi -L"
    if _IBSTAT_RE.search(text):
        return "ibstat"
    if _DEVINFO_RE.search(text):
        return "ibv_devinfo"
    if _GIDS_RE.search(text):
        return "show_gids"
    if _DMESG_RE.search(text):
        return "dmesg"
    if _CSV_RE.search(text):
        return "nvidia-smi csv"
    if _LOG_RE.search(text):
        return "training log"
    if _P2P_RE.search(text):
        return None  # topo -p2p: not the link matrix, whatever the prompt says
    command = (pasted.command or "")[:_COMMAND_CHARS]  # bounded: the patterns hold ".*"
    for rx, kind in _COMMAND_KINDS:
        if command and rx.search(command):
            return kind
    return None


# --- reading ---------------------------------------------------------------------------------


def _gpu_points(samples: list[GpuSample], *, th: AlertThresholds) -> list[Point]:
    """The live node's per-instant alert rules, over the GPUs the text shows."""
    samples = samples[:_MAX_GPUS]  # the rules' records hold slots 0-254; a node has <= 16
    if not samples:
        return []
    slots = GpuSlots(len(samples))
    records, present = pack(samples, slots)
    node = NodeRef(0, 0, "pasted", len(samples))
    found = instant_findings(node, records, present, slots, job_running=False, th=th)
    return [
        Point(f.severity, f.said or said("op.diag.raw", text=f.message), f.action_said)
        for f in found
    ]


def _gpu_summary(samples: list[GpuSample], driver: str | None, cuda: str | None) -> list[Said]:
    names = sorted({s.name or "?" for s in samples})
    out = [said("op.diag.gpus", count=len(samples), names=", ".join(names))]
    if driver or cuda:
        out.append(said("op.diag.driver", driver=driver or "?", cuda=cuda or "?"))
    return out


def _from_details(d: GpuDetails, index: int) -> GpuSample:
    return GpuSample(
        index=index,
        uuid=d.uuid,
        name=d.product_name,
        utilization_gpu=d.utilization_gpu,
        memory_used_mib=d.memory_used_mib,
        memory_total_mib=d.memory_total_mib,
        power_draw_w=d.power_draw_w,
        power_limit_w=d.power_limit_w,
        temperature_c=d.temperature_c,
        throttle_reasons=d.throttle_reasons,
        ecc_uncorrected=d.ecc_uncorrected_volatile,
        pstate=d.pstate,
        pci_bus_id=d.pci_bus_id,
    )


def _table(text: str, th: AlertThresholds) -> Diagnosis:
    t = parse_table(text)
    samples = t.samples
    summary = _gpu_summary(samples, t.driver_version, t.cuda_version)
    if t.mig_devices:
        summary.append(said("op.diag.mig", count=len(t.mig_devices)))
    summary.append(
        said("op.diag.processes", count=len(t.processes))
        if t.processes or t.no_processes
        else said("op.diag.processes_not_shown")
    )
    data = {
        "driver_version": t.driver_version,
        "cuda_version": t.cuda_version,
        "gpus": [_sample_json(s) for s in samples],
        "mig_devices": len(t.mig_devices),
        "processes": [
            {"gpu": p.gpu, "pid": p.pid, "name": p.name, "memory_mib": p.memory_mib}
            for p in t.processes
        ],
    }
    return Diagnosis("nvidia-smi", tuple(summary), tuple(_gpu_points(samples, th=th)), data=data)


def _sample_json(s: GpuSample) -> dict[str, Any]:
    return {
        "index": s.index,
        "name": s.name,
        "pci_bus_id": s.pci_bus_id,
        "utilization_gpu": s.utilization_gpu,
        "memory_used_mib": s.memory_used_mib,
        "memory_total_mib": s.memory_total_mib,
        "temperature_c": s.temperature_c,
        "power_draw_w": s.power_draw_w,
        "power_limit_w": s.power_limit_w,
        "ecc_uncorrected": s.ecc_uncorrected,
    }


def _query(text: str, th: AlertThresholds) -> Diagnosis:
    q = parse_query_details(text)
    samples = [_from_details(d, i) for i, d in enumerate(q.gpus)]
    summary = _gpu_summary(samples, q.driver_version, q.cuda_version)
    points = _gpu_points(samples, th=th)
    for i, d in enumerate(q.gpus):
        if d.remapping_failure:
            points.append(
                Point("critical", said("op.diag.remap_failed", gpu=i), said("op.diag.do_rma"))
            )
        elif d.remapped_rows_pending:
            points.append(
                Point("warning", said("op.diag.remap_pending", gpu=i), said("op.diag.do_reset"))
            )
    data = {
        "driver_version": q.driver_version,
        "cuda_version": q.cuda_version,
        "kmd_version": q.kmd_version,
        "cuda_umd_version": q.cuda_umd_version,
        "gpus": [_sample_json(s) for s in samples],
    }
    return Diagnosis("nvidia-smi -q", tuple(summary), tuple(points), data=data)


def _csv(text: str, th: AlertThresholds) -> Diagnosis:
    samples = parse_csv(text)
    latest: dict[int, GpuSample] = {}
    for i, s in enumerate(samples):
        latest[s.index if s.index is not None else i] = s
    shown = list(latest.values())
    if not shown:
        raise DiagnoseError(said("op.diag.no_gpus"), hint=said("op.diag.expected"))
    points = _gpu_points(shown, th=th)
    data = {"gpus": [_sample_json(s) for s in shown], "lines": len(samples)}
    return Diagnosis(
        "nvidia-smi csv", tuple(_gpu_summary(shown, None, None)), tuple(points), data=data
    )


def _list(text: str, th: AlertThresholds) -> Diagnosis:
    gpus = parse_list(text)
    names = sorted({g.name for g in gpus})
    migs = sum(len(g.mig_devices) for g in gpus)
    summary = [said("op.diag.gpus", count=len(gpus), names=", ".join(names))]
    if migs:
        summary.append(said("op.diag.mig", count=migs))
    return Diagnosis("nvidia-smi -L", tuple(summary), data={"gpus": len(gpus), "mig_devices": migs})


def _topology(text: str, th: AlertThresholds) -> Diagnosis:
    topo = parse_topology(text)
    gpus = topo.gpus
    rows = [g for g in gpus if (g, g) in topo.links]  # a paste cut mid-matrix lacks the rest
    pairs = [(a, b) for i, a in enumerate(gpus) for b in gpus[i + 1 :] if (a, b) in topo.links]
    nvlinked = sum(1 for a, b in pairs if topo.link(a, b).startswith("NV"))
    summary = [
        said(
            "op.diag.topo", gpus=len(gpus), nics=len(topo.nics), nvlinked=nvlinked, pairs=len(pairs)
        )
    ]
    points: list[Point] = []
    if len(rows) < len(gpus):
        points.append(Point("info", said("op.diag.topo_cut", rows=len(rows), gpus=len(gpus))))
    far = [f"{a}-{b}" for a, b in pairs if topo.link(a, b) in ("SYS", "SOC")]
    if pairs and nvlinked == 0 and len(gpus) > 1:
        points.append(Point("warning", said("op.diag.no_nvlink"), said("op.diag.do_no_nvlink")))
    if far and nvlinked < len(pairs):
        points.append(Point("info", said("op.diag.cross_socket", pairs=", ".join(far[:8]))))
    data = {"gpus": len(gpus), "nics": dict(topo.nic_names), "nvlinked_pairs": nvlinked}
    return Diagnosis("nvidia-smi topo -m", tuple(summary), tuple(points), data=data)


def _hcas(kind: str, hcas: list[Hca]) -> Diagnosis:
    ports = [p for h in hcas for p in h.ports]
    active = [p for p in ports if p.is_active]
    roce = [p for p in ports if p.is_roce]
    summary = [
        said("op.diag.hcas", hcas=len(hcas), ports=len(ports), active=len(active), roce=len(roce))
    ]
    points = [
        Point(
            "warning",
            said("op.diag.port_down", port=p.name, state=p.state or "?", phys=p.phys_state or "?"),
            said("op.diag.do_port_down"),
        )
        for p in ports
        if not p.is_active
    ]
    rates = sorted({p.rate_gbps for p in active if p.rate_gbps})
    if len(rates) > 1:
        points.append(
            Point(
                "warning",
                said("op.diag.mixed_rates", rates=", ".join(f"{r:g}" for r in rates)),
                said("op.diag.do_mixed_rates"),
            )
        )
    data = {
        "hcas": [
            {
                "name": h.name,
                "ports": [
                    {
                        "port": p.port,
                        "state": p.state,
                        "rate_gbps": p.rate_gbps,
                        "link_layer": p.link_layer,
                    }
                    for p in h.ports
                ],
            }
            for h in hcas
        ]
    }
    return Diagnosis(kind, tuple(summary), tuple(points), data=data)


def _show_gids(text: str, th: AlertThresholds) -> Diagnosis:
    gids = parse_show_gids(text)
    v2 = [g for g in gids if g.is_roce_v2]
    summary = [said("op.diag.gids", count=len(gids), v2=len(v2))]
    points: list[Point] = []
    if gids and not v2:
        points.append(Point("warning", said("op.diag.no_roce_v2"), said("op.diag.do_no_roce_v2")))
    data = {"gids": len(gids), "roce_v2_indices": sorted({g.index for g in v2})}
    return Diagnosis("show_gids", tuple(summary), tuple(points), data=data)


def _dmesg(text: str, th: AlertThresholds) -> Diagnosis:
    events = parse_dmesg(text)
    if not events:
        if "NVRM: " in text:  # the driver's messages, none of them an XID: that is the answer
            return Diagnosis("dmesg", (said("op.diag.nvrm_no_xid"),), data={"xids": []})
        raise DiagnoseError(said("op.diag.no_xid"), hint=said("op.diag.expected"))
    found = xid_findings(_NODE, text, GpuSlots(0), None, AlertThresholds(xid_hold_s=float("inf")))
    codes = sorted({e.code for e in events})
    summary = [said("op.diag.xids", count=len(events), codes=", ".join(str(c) for c in codes))]
    pcis = sorted({e.pci for e in events if e.pci})
    if pcis:
        shown = ", ".join(pcis[:8]) + (" ..." if len(pcis) > 8 else "")
        summary.append(said("op.diag.xid_gpus", count=len(pcis), pcis=shown))
    points = [
        Point(f.severity, f.said or said("op.diag.raw", text=f.message), f.action_said)
        for f in found
    ]
    info = [e for e in events if e.severity == "info"]
    points += [
        Point("info", said("op.diag.xid_info", code=e.code, what=e.description)) for e in info[:8]
    ]
    data = {
        "xids": [
            {"code": e.code, "pci": e.pci, "pid": e.pid, "severity": e.severity} for e in events
        ]
    }
    return Diagnosis("dmesg", tuple(summary), tuple(points), data=data)


def _nccl_tests(text: str, th: AlertThresholds) -> Diagnosis:
    runs = parse_nccl_tests_all(text)
    verdict = judge(runs, None)
    run = runs[0]
    summary = [verdict.headline_said()]
    if run.n_ranks:
        summary.append(said("op.diag.nccl_ranks", ranks=run.n_ranks, nodes=run.n_nodes or "?"))
    severity = {"failed": "error", "low": "warning", "unstable": "warning"}.get(
        verdict.status, "info"
    )
    points = [
        Point(
            severity,
            c.title_said or said("op.diag.raw", text=c.title),
            c.fix_said or said("op.diag.raw", text=c.fix),
        )
        for c in verdict.causes
    ]
    points += [
        Point("warning" if "missing" in n or "rank" in n else "info", said("op.diag.raw", text=n))
        for n in verdict.notes
    ]
    for c in verdict.causes:
        if c.detail and not c.detail_said:
            points.append(Point(severity, said("op.diag.detail", text=c.detail)))
    return Diagnosis("nccl-tests", tuple(summary), tuple(points), data=verdict.to_json())


def _training_log(text: str, th: AlertThresholds) -> Diagnosis:
    events = parse_job_log(text)
    points: list[Point] = []
    progress = [e for e in events if isinstance(e, ProgressEvent)]
    seen: set[tuple[str, str]] = set()
    for e in events:
        if isinstance(e, NcclTimeoutEvent):
            f = nccl_timeout_finding(0, None, e)
            key = ("timeout", str(e.seq_num))
            if key not in seen:
                seen.add(key)
                points.append(
                    Point(f.severity, f.said or said("op.diag.raw", text=f.message), f.action_said)
                )
        elif isinstance(e, NcclErrorEvent) and ("nccl", e.message) not in seen:
            seen.add(("nccl", e.message))
            points.append(
                Point(
                    "error" if e.fatal else "warning",
                    said("op.diag.nccl_error", text=e.message[:300]),
                    said("op.diag.do_nccl_error"),
                )
            )
        elif isinstance(e, CudaErrorEvent) and ("cuda", e.message) not in seen:
            seen.add(("cuda", e.message))
            points.append(
                Point(
                    "error",
                    said(
                        "op.diag.cuda_oom" if e.out_of_memory else "op.diag.cuda_error",
                        text=e.message[:300],
                    ),
                    said("op.diag.do_oom") if e.out_of_memory else said("op.diag.do_cuda_error"),
                )
            )
        elif (
            isinstance(e, ProcessExitEvent)
            and e.exit_code != 0
            and ("exit", str(e.exit_code)) not in seen
        ):
            seen.add(("exit", str(e.exit_code)))
            points.append(Point("error", said("op.diag.exit", code=e.exit_code)))
    net = parse_nccl_info(text)
    if not events and not net.info_lines:
        raise DiagnoseError(said("op.diag.log_unread"), hint=said("op.diag.expected"))
    summary: list[Said] = []
    if net.transport is not None:
        summary.append(
            said("op.diag.nccl_net", transport=net.transport, version=net.nccl_version or "?")
        )
        if net.socket_fallback:
            points.append(
                Point(
                    "warning", said("op.diag.socket_fallback"), said("op.diag.do_socket_fallback")
                )
            )
    if progress:
        # the last step and the last loss each from the last line that gave one: DeepSpeed's
        # "step=N" and the Trainer's loss dicts come on different lines
        step = next((e.step for e in reversed(progress) if e.step is not None), None)
        loss = next((e.loss for e in reversed(progress) if e.loss is not None), None)
        summary.append(
            said(
                "op.diag.progress",
                step=step if step is not None else "?",
                loss=f"{loss:.4g}" if loss is not None else "?",
            )
        )
    else:
        summary.append(said("op.diag.no_progress"))
    kind = (
        "watchdog trace" if any(isinstance(e, NcclTimeoutEvent) for e in events) else "training log"
    )
    data = {"events": len(events), "progress_lines": len(progress)}
    return Diagnosis(kind, tuple(summary), tuple(points), data=data)


_READERS: dict[str, Callable[[str, AlertThresholds], Diagnosis]] = {
    "nvidia-smi": _table,
    "nvidia-smi -q": _query,
    "nvidia-smi csv": _csv,
    "nvidia-smi -L": _list,
    "nvidia-smi topo -m": _topology,
    "ibstat": lambda text, th: _hcas("ibstat", parse_ibstat(text)),
    "ibv_devinfo": lambda text, th: _hcas("ibv_devinfo", parse_ibv_devinfo(text)),
    "show_gids": _show_gids,
    "dmesg": _dmesg,
    "nccl-tests": _nccl_tests,
    "training log": _training_log,
}


def diagnose_text(text: str, *, th: AlertThresholds | None = None) -> Diagnosis:
    """Recognise, read and judge pasted output; :class:`DiagnoseError` when it is none of
    :data:`KINDS` or its kind's reader finds nothing in it."""
    th = th or AlertThresholds()
    if not text.strip():
        raise DiagnoseError(said("op.diag.empty"), hint=said("op.diag.expected"))
    cut = len(text) > MAX_CHARS
    pasted = read_paste(text[:MAX_CHARS])
    kind = recognise(pasted)
    if kind is None:
        raise DiagnoseError(said("op.diag.unknown"), hint=said("op.diag.expected"))
    try:
        found = _READERS[kind](pasted.text, th)
    except DiagnoseError:
        raise
    except XyclawError as exc:
        raise DiagnoseError(
            said("op.diag.unreadable", kind=kind, why=exc.said or exc.message),
            hint=exc.hint_said or exc.hint or said("op.diag.expected"),
        ) from exc
    except (ValueError, KeyError, IndexError, TypeError, OverflowError) as exc:
        # what slips past a reader's own checks (a matrix with a hole, a number out of
        # range) is still a refusal, never a traceback
        raise DiagnoseError(
            said("op.diag.unreadable", kind=kind, why=f"{type(exc).__name__}: {exc}"[:200]),
            hint=said("op.diag.expected"),
        ) from exc
    summary = found.summary + ((said("op.diag.cut", chars=MAX_CHARS),) if cut else ())
    return Diagnosis(found.kind, summary, found.points, pasted.command, found.data)
