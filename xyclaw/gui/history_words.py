"""The History page's words: states, causes, timeline items and the comparison table's rows,
marked for translation here and translated when shown (so a language switch re-words them).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication

from xyclaw.gui import i18n


class TimelineItem(Protocol):
    """What :func:`describe` reads of a :class:`~xyclaw.gui.history_data.TimelineItem`.

    A Protocol, not an import: history_data draws through the charts, whose alert strips
    word their states here, so an import of history_data from here closed a circle
    (issue 35; it was only ever a type)."""

    @property
    def kind(self) -> str: ...

    @property
    def params(self) -> dict[str, Any]: ...


CTX = "History"

STATES = {
    # jobs
    "queued": QT_TRANSLATE_NOOP("History", "queued"),
    "setting-up": QT_TRANSLATE_NOOP("History", "setting up"),
    "starting": QT_TRANSLATE_NOOP("History", "starting"),
    "running": QT_TRANSLATE_NOOP("History", "running"),
    "succeeded": QT_TRANSLATE_NOOP("History", "succeeded"),
    "failed": QT_TRANSLATE_NOOP("History", "failed"),
    "cancelled": QT_TRANSLATE_NOOP("History", "cancelled"),
    "recovering": QT_TRANSLATE_NOOP("History", "recovering"),
    "lost-contact": QT_TRANSLATE_NOOP("History", "lost contact"),
    # clusters
    "requested": QT_TRANSLATE_NOOP("History", "requested"),
    "provisioning": QT_TRANSLATE_NOOP("History", "provisioning"),
    "bootstrapping": QT_TRANSLATE_NOOP("History", "bootstrapping"),
    "ready": QT_TRANSLATE_NOOP("History", "ready"),
    "releasing": QT_TRANSLATE_NOOP("History", "releasing"),
    "released": QT_TRANSLATE_NOOP("History", "released"),
    "gone": QT_TRANSLATE_NOOP("History", "gone"),
    # nodes
    "pending": QT_TRANSLATE_NOOP("History", "pending"),
    "terminating": QT_TRANSLATE_NOOP("History", "terminating"),
    "terminated": QT_TRANSLATE_NOOP("History", "terminated"),
    "unknown": QT_TRANSLATE_NOOP("History", "unknown"),
}

CAUSES = {
    "exit_nonzero": QT_TRANSLATE_NOOP("History", "a non-zero exit"),
    "node_lost": QT_TRANSLATE_NOOP("History", "a lost node"),
    "xid": QT_TRANSLATE_NOOP("History", "a GPU error (XID)"),
    "nccl_timeout": QT_TRANSLATE_NOOP("History", "an NCCL timeout"),
    "nccl_error": QT_TRANSLATE_NOOP("History", "an NCCL error"),
    "cuda_error": QT_TRANSLATE_NOOP("History", "a CUDA error"),
    "oom": QT_TRANSLATE_NOOP("History", "running out of GPU memory"),
    "cancelled": QT_TRANSLATE_NOOP("History", "a cancel"),
    "unreachable": QT_TRANSLATE_NOOP("History", "an unreachable node"),
    "budget": QT_TRANSLATE_NOOP("History", "the budget"),
    "max_runtime": QT_TRANSLATE_NOOP("History", "the time limit"),
}

SEVERITIES = {
    "info": QT_TRANSLATE_NOOP("History", "info"),
    "warning": QT_TRANSLATE_NOOP("History", "warning"),
    "error": QT_TRANSLATE_NOOP("History", "error"),
    "critical": QT_TRANSLATE_NOOP("History", "critical"),
}

PHASES = {
    "baseline": QT_TRANSLATE_NOOP("History", "before tuning"),
    "candidate": QT_TRANSLATE_NOOP("History", "with the new settings"),
    "tuned": QT_TRANSLATE_NOOP("History", "with the new settings"),
    "verify": QT_TRANSLATE_NOOP("History", "check"),
}

SOURCES = {
    "recommended": QT_TRANSLATE_NOOP("History", "recommended from the fabric probe"),
    "kept": QT_TRANSLATE_NOOP("History", "kept as they were (already healthy)"),
    "measured": QT_TRANSLATE_NOOP("History", "chosen by measuring"),
    "tuned": QT_TRANSLATE_NOOP("History", "chosen by measuring"),
    "user": QT_TRANSLATE_NOOP("History", "set by you"),
}

TIMELINE = {
    "rented": QT_TRANSLATE_NOOP("History", "Rented"),
    "node_up": QT_TRANSLATE_NOOP("History", "Node up"),
    "node_error": QT_TRANSLATE_NOOP("History", "Node failed"),
    "ready": QT_TRANSLATE_NOOP("History", "Bootstrapped"),
    "fabric": QT_TRANSLATE_NOOP("History", "Fabric probed"),
    "nccl_test": QT_TRANSLATE_NOOP("History", "Bus bandwidth measured"),
    "tuned": QT_TRANSLATE_NOOP("History", "NCCL settings"),
    "alert": QT_TRANSLATE_NOOP("History", "Alert"),
    "budget": QT_TRANSLATE_NOOP("History", "Budget"),
    "failover": QT_TRANSLATE_NOOP("History", "Failover"),
    "checkpoint": QT_TRANSLATE_NOOP("History", "Checkpoint"),
    "recovery": QT_TRANSLATE_NOOP("History", "Recovery"),
    "job_created": QT_TRANSLATE_NOOP("History", "Job created"),
    "attempt_started": QT_TRANSLATE_NOOP("History", "Attempt started"),
    "attempt_ended": QT_TRANSLATE_NOOP("History", "Attempt ended"),
    "job_finished": QT_TRANSLATE_NOOP("History", "Job ended"),
    "release_requested": QT_TRANSLATE_NOOP("History", "Release requested"),
    "released": QT_TRANSLATE_NOOP("History", "Released"),
    "event": QT_TRANSLATE_NOOP("History", "Event"),
}

ROWS = {
    "cluster.provider": QT_TRANSLATE_NOOP("History", "Provider"),
    "cluster.region": QT_TRANSLATE_NOOP("History", "Region"),
    "cluster.gpu": QT_TRANSLATE_NOOP("History", "GPU model"),
    "cluster.shape": QT_TRANSLATE_NOOP("History", "Nodes x GPUs per node"),
    "cluster.fabric": QT_TRANSLATE_NOOP("History", "Fabric"),
    "cluster.price": QT_TRANSLATE_NOOP("History", "Price per GPU-hour"),
    "result.state": QT_TRANSLATE_NOOP("History", "Outcome"),
    "result.attempts": QT_TRANSLATE_NOOP("History", "Attempts"),
    "result.duration_s": QT_TRANSLATE_NOOP("History", "Duration (s)"),
    "result.cost": QT_TRANSLATE_NOOP("History", "Cost"),
    "result.steps": QT_TRANSLATE_NOOP("History", "Steps"),
    "result.final_loss": QT_TRANSLATE_NOOP("History", "Final loss"),
    "result.min_loss": QT_TRANSLATE_NOOP("History", "Lowest loss"),
    "result.tokens_per_s": QT_TRANSLATE_NOOP("History", "Tokens/s after warm-up"),
    "result.mfu": QT_TRANSLATE_NOOP("History", "MFU (estimated)"),
    "result.cost_per_m_tokens": QT_TRANSLATE_NOOP("History", "Cost per M tokens"),
    "result.cost_per_epoch": QT_TRANSLATE_NOOP("History", "Cost per epoch"),
    "result.cost_per_1k_requests": QT_TRANSLATE_NOOP("History", "Cost per 1k requests"),
    "result.method": QT_TRANSLATE_NOOP("History", "Training method"),
    "result.busbw": QT_TRANSLATE_NOOP("History", "All-reduce bus bandwidth"),
    "result.jobs": QT_TRANSLATE_NOOP("History", "Jobs"),
}

RULES = {
    "gpu.ecc_uncorrectable": QT_TRANSLATE_NOOP("History", "uncorrectable ECC error"),
    "gpu.idle_during_job": QT_TRANSLATE_NOOP("History", "GPUs idle while a job runs"),
    "gpu.memory_full": QT_TRANSLATE_NOOP("History", "GPU memory full"),
    "gpu.missing": QT_TRANSLATE_NOOP("History", "a GPU went missing"),
    "gpu.power_throttle": QT_TRANSLATE_NOOP("History", "power throttling"),
    "gpu.straggler": QT_TRANSLATE_NOOP("History", "a slow GPU"),
    "gpu.thermal_throttle": QT_TRANSLATE_NOOP("History", "thermal throttling"),
    "gpu.xid": QT_TRANSLATE_NOOP("History", "GPU driver error (XID)"),
    "job.nccl_timeout": QT_TRANSLATE_NOOP("History", "NCCL timeout"),
    "net.traffic_collapse": QT_TRANSLATE_NOOP("History", "network traffic collapsed"),
    "node.straggler": QT_TRANSLATE_NOOP("History", "a slow node"),
    "node.unreachable": QT_TRANSLATE_NOOP("History", "a node stopped answering"),
    # issue 34
    "gpu.underused": QT_TRANSLATE_NOOP("History", "GPUs busy but doing little"),
    "job.rank_straggler": QT_TRANSLATE_NOOP("History", "a slow rank"),
    "net.link_regression": QT_TRANSLATE_NOOP("History", "a slow network link"),
    "job.hang_forensics": QT_TRANSLATE_NOOP("History", "where a hung job's ranks parted"),
    "net.fabric_regression": QT_TRANSLATE_NOOP("History", "the fabric slower than when tuned"),
}

EVENT_KINDS = {
    "cluster": QT_TRANSLATE_NOOP("History", "cluster"),
    "tuning": QT_TRANSLATE_NOOP("History", "tuning"),
    "reconcile": QT_TRANSLATE_NOOP("History", "reconciliation"),
    "guard": QT_TRANSLATE_NOOP("History", "budget and idle guard"),
    "idle": QT_TRANSLATE_NOOP("History", "idle release"),
    "job": QT_TRANSLATE_NOOP("History", "job"),
    "orphan": QT_TRANSLATE_NOOP("History", "orphan"),
    "billing": QT_TRANSLATE_NOOP("History", "billing"),
}

GROUPS = {
    "spec": QT_TRANSLATE_NOOP("History", "Spec"),
    "cluster": QT_TRANSLATE_NOOP("History", "Cluster"),
    "nccl": QT_TRANSLATE_NOOP("History", "NCCL environment"),
    "result": QT_TRANSLATE_NOOP("History", "Result"),
}


def t(text: str) -> str:
    return QCoreApplication.translate(CTX, text)


def word(table: Mapping[str, str], key: Any) -> str:
    """The translated word for a stored value, or the value itself when it has none."""
    if key is None:
        return "–"
    text = table.get(str(key))
    return t(text) if text else str(key)


def state(value: Any) -> str:
    return word(STATES, value)


def row_label(key: str) -> tuple[str, str, bool]:
    """(group, label, translated) of a comparison row: spec fields and NCCL variables are
    shown by their names (what the spec file and the environment call them)."""
    group, _, rest = key.partition(".")
    label = ROWS.get(key)
    return word(GROUPS, group), (t(label) if label else rest), label is not None


def row_value(key: str, value: str | None) -> str:
    if value is None:
        return "–"
    if key == "result.state":
        return state(value)
    return value


def _gbs(value: Any) -> str:
    return "–" if value is None else i18n.number(float(value), 2)


def describe(item: TimelineItem) -> tuple[str, str]:
    """(what, details) of a timeline item in the GUI's language."""
    p = item.params
    title = word(TIMELINE, item.kind)
    k = item.kind
    if k == "rented":
        detail = QCoreApplication.translate(
            "History",
            "{nodes} x {per} {gpu} from {provider} in {region}, {fabric}, {price} per GPU-hour",
        )
        detail = detail.format(
            nodes=p.get("nodes"), per=p.get("gpus_per_node"), gpu=p.get("gpu"),
            provider=p.get("provider"), region=p.get("region") or "–",
            fabric=p.get("fabric"), price=p.get("price"),
        )  # fmt: skip
    elif k in ("node_up", "node_error"):
        detail = str(p.get("node"))
    elif k == "ready":
        detail = (
            QCoreApplication.translate("History", "the node answers SSH and passed its checks")
            if p.get("nodes") == 1
            else QCoreApplication.translate(
                "History", "{n} nodes answer SSH and passed their checks"
            ).format(n=p.get("nodes"))
        )
    elif k == "fabric":
        if p.get("nic_count"):
            detail = QCoreApplication.translate(
                "History", "{fabric} over {transport}, {active} of {total} NICs active"
            ).format(
                fabric=p.get("fabric"),
                transport=p.get("transport"),
                active=p.get("nics"),
                total=p.get("nic_count"),
            )
        else:
            detail = QCoreApplication.translate("History", "{fabric} over {transport}").format(
                fabric=p.get("fabric"), transport=p.get("transport")
            )
    elif k == "nccl_test":
        detail = QCoreApplication.translate(
            "History", "{collective} {phase}: {avg} GB/s average, {peak} GB/s peak ({transport})"
        )
        detail = detail.format(
            collective=p.get("collective") or "all_reduce",
            phase=word(PHASES, p.get("phase")),
            avg=_gbs(p.get("busbw")),
            peak=_gbs(p.get("peak_busbw")),
            transport=p.get("transport") or "–",
        )
    elif k == "tuned":
        variables = p.get("vars") or {}
        shown = "; ".join(f"{n}={v}" for n, v in sorted(variables.items()))
        how = word(SOURCES, p.get("source"))
        if p.get("applied"):
            detail = QCoreApplication.translate("History", "applied, {how}").format(how=how)
        else:
            detail = QCoreApplication.translate("History", "proposed, {how}").format(how=how)
        if shown:
            detail += ": " + shown
    elif k == "alert":
        cleared = p.get("cleared_at")
        detail = (
            QCoreApplication.translate("History", "cleared at {time}").format(
                time=i18n.clock_time(cleared)
            )
            if cleared
            else QCoreApplication.translate("History", "still open when the history ends")
        )
        if p.get("rule"):
            detail = f"{word(RULES, p['rule'])} · {detail}"
    elif k == "recovery":
        if "attempt" in p:
            detail = QCoreApplication.translate("History", "attempt {n} after {cause}").format(
                n=p["attempt"], cause=word(CAUSES, p.get("cause"))
            )
            if p.get("resume_step") is not None:
                detail += ", " + QCoreApplication.translate(
                    "History", "resumed from step {step}"
                ).format(step=p["resume_step"])
        else:
            detail = ""
    elif k == "attempt_started":
        detail = QCoreApplication.translate("History", "attempt {n}").format(n=p.get("attempt"))
    elif k == "attempt_ended":
        detail = QCoreApplication.translate("History", "attempt {n}: {state}").format(
            n=p.get("attempt"), state=state(p.get("state"))
        )
        if p.get("cause"):
            detail += ", " + QCoreApplication.translate("History", "because of {cause}").format(
                cause=word(CAUSES, p["cause"])
            )
        if p.get("exit_code") not in (None, 0):
            detail += ", " + QCoreApplication.translate("History", "exit code {code}").format(
                code=p["exit_code"]
            )
    elif k == "job_finished":
        detail = state(p.get("state"))
    elif k == "job_created":
        detail = str(p.get("name") or "")
    elif k == "event":
        detail = word(EVENT_KINDS, p.get("event"))
    else:
        detail = word(RULES, p["rule"]) if p.get("rule") else ""
    return title, detail


def progress_text(job: Any) -> str:
    """A job's step of its total with the whole percent ("7 / 200 (3%)"), as the Jobs
    page's table and the chat's job line show it; "–" before the first step."""
    p = job.progress
    if p.step is None:
        return "–"
    if p.total_steps:
        # whole percent, rounded down as the detail's progress bar (%p) rounds it
        pct = int(100 * int(p.step) // int(p.total_steps))
        return f"{i18n.number(p.step)} / {i18n.number(p.total_steps)} ({i18n.number(pct)}%)"
    return i18n.number(p.step)
