"""NVIDIA XID errors from the kernel log (``dmesg``, ``dmesg -T``, journalctl).

An XID is the driver's report that something went wrong on a GPU; the code
says whether the application, the memory, NVLink or the board is at fault and
so what the user should do. The table follows the NVIDIA XID catalog and
dcgm-exporter's ``xid_errors.go`` (see docs/reference-figures.md).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import UTC, datetime, tzinfo
from typing import Literal

from xyclaw.parsers.paste import clean_paste
from xyclaw.parsers.xid_catalog import XID_CATALOG

Severity = Literal["info", "warning", "error", "critical"]
Category = Literal["application", "memory", "nvlink", "bus", "gsp", "driver", "unknown"]


@dataclass(frozen=True, slots=True)
class XidInfo:
    code: int
    description: str
    severity: Severity
    category: Category
    action: str
    mnemonic: str = ""
    #: NVIDIA's immediate resolution bucket (``RESTART_APP``, ``RESET_GPU``...), "" if none
    bucket: str = ""


_APP_ACTION = "application bug: fix or restart the application; the GPU itself is fine"
_DRAIN_RESET = "drain the node and reset the GPU before reuse"

XID_TABLE: dict[int, XidInfo] = {
    info.code: info
    for info in (
        XidInfo(13, "graphics engine exception", "warning", "application", _APP_ACTION),
        XidInfo(31, "GPU memory page fault", "warning", "application", _APP_ACTION),
        XidInfo(43, "GPU stopped processing", "warning", "application", "restart the application"),
        XidInfo(45, "preemptive cleanup", "info", "application", "usually benign: none needed"),
        XidInfo(48, "double-bit ECC error", "critical", "memory", _DRAIN_RESET),
        XidInfo(
            63,
            "ECC page retirement or row remap recorded",
            "warning",
            "memory",
            "watch the GPU; the remap takes effect after the next GPU reset",
        ),
        XidInfo(
            64,
            "ECC page retirement or row remap failure",
            "critical",
            "memory",
            "drain the node; ask for a replacement (RMA) if it repeats",
        ),
        XidInfo(74, "NVLink error", "critical", "nvlink", "drain the node and check NVLink"),
        XidInfo(
            79,
            "GPU has fallen off the bus",
            "critical",
            "bus",
            "node unusable: replace the node (or reboot and inspect the GPU)",
        ),
        XidInfo(
            92, "high single-bit ECC error rate", "warning", "memory", "watch the GPU's ECC counts"
        ),
        XidInfo(
            94,
            "contained ECC error",
            "error",
            "memory",
            "restart the affected application; the GPU can keep working",
        ),
        XidInfo(95, "uncontained ECC error", "critical", "memory", _DRAIN_RESET),
        XidInfo(119, "GSP RPC timeout", "critical", "gsp", "reset the GPU (or reboot the node)"),
        XidInfo(120, "GSP error", "critical", "gsp", "reset the GPU (or reboot the node)"),
    )
}


#: NVIDIA's immediate resolution bucket -> severity and what the user should do.
XID_BUCKETS: dict[str, tuple[Severity, str]] = {
    "RESTART_APP": ("warning", "restart the application"),
    "RESET_GPU": ("critical", "reset the GPU (or reboot the node) before reuse"),
    "RESTART_BM": ("critical", "reboot the node; replace it if the XID comes back"),
    "RESTART_VM": ("error", "restart the virtual machine"),
    "IGNORE": ("info", "none needed on its own; read the XIDs logged around it"),
    "CONTACT_SUPPORT": ("warning", "contact the provider's or NVIDIA's support if it repeats"),
    "CHECK_MECHANICALS": ("error", "check the GPU board's power cables and seating"),
    "UPDATE_SWFW": ("error", "update the driver and firmware"),
    "CHECK_UVM": ("warning", "check the application's unified-memory use"),
    "XID_154": ("warning", "do the recovery action the XID names (a GPU reset or a node reboot)"),
}


def _category(mnemonic: str, bucket: str) -> Category:
    words = set(mnemonic.upper().replace("/", "_").split("_"))
    if "NVLINK" in words or "ALI" in words:
        return "nvlink"
    if words & {"ECC", "DBE", "DRAM", "SRAM", "SBE", "MEMORY", "RETIREMENT"}:
        return "memory"
    if "GSP" in words:
        return "gsp"
    if words & {"BUS", "PCIE"}:
        return "bus"
    if bucket == "RESTART_APP":
        return "application"
    return "driver"


def _from_catalog(code: int) -> XidInfo | None:
    row = XID_CATALOG.get(code)
    if row is None:
        return None
    mnemonic, description, bucket = row
    if bucket.startswith("WORKFLOW_"):
        severity: Severity = "error"
        action = f"follow NVIDIA's {bucket} procedure in the XID catalog"
    else:
        severity, action = XID_BUCKETS.get(
            bucket, ("warning", f"look up XID {code} in NVIDIA's XID catalog; watch the GPU")
        )
    return XidInfo(
        code, description, severity, _category(mnemonic, bucket), action, mnemonic, bucket
    )


def xid_info(code: int) -> XidInfo:
    """What an XID code means: XyClaw's own words for the common ones, NVIDIA's catalog
    (:mod:`xyclaw.parsers.xid_catalog`) for every other listed code, and a generic
    warning entry for a code newer than both."""
    known = XID_TABLE.get(code)
    if known is not None:
        row = XID_CATALOG.get(code)
        return replace(known, mnemonic=row[0], bucket=row[2]) if row else known
    listed = _from_catalog(code)
    if listed is not None:
        return listed
    return XidInfo(
        code,
        "XID not in NVIDIA's catalog as XyClaw knows it",
        "warning",
        "unknown",
        f"look up XID {code} in NVIDIA's XID catalog; watch the GPU",
    )


@dataclass(frozen=True, slots=True)
class XidEvent:
    code: int
    pci: str | None
    pid: int | None
    process: str | None
    text: str
    severity: Severity
    category: Category
    action: str
    description: str
    line: str
    time_text: str | None = None
    timestamp: float | None = None
    uptime_s: float | None = None
    uuid: str | None = None


_XID_RE = re.compile(
    r"NVRM: Xid \((?:PCI:)?(?P<pci>[0-9A-Fa-f:.]+)\): (?P<code>\d+)(?:,\s*(?P<rest>.*))?$"
)
_PID_RE = re.compile(r"^pid=(?P<pid>'?<unknown>'?|-?\d+|'[^']*'),\s*")
_NAME_RE = re.compile(r"^name=(?P<name>[^,]*),\s*")
_UPTIME_RE = re.compile(r"^\[\s*(?P<s>\d+\.\d+)\]")
_CTIME_RE = re.compile(r"^\[(?P<t>[A-Z][a-z]{2} [A-Z][a-z]{2} +\d{1,2} \d{2}:\d{2}:\d{2} \d{4})\]")
_SYSLOG_RE = re.compile(r"^(?P<t>[A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2}) ")
_ISO_RE = re.compile(
    r"(?P<t>\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:[+-]\d{2}:?\d{2}|Z)?)\s"
)
_GPU_UUID_RE = re.compile(r"NVRM: GPU at PCI:(?P<pci>[0-9A-Fa-f:.]+): (?P<uuid>GPU-[0-9a-fA-F-]+)")


def _times(prefix: str, tz: tzinfo) -> tuple[str | None, float | None, float | None]:
    m = _UPTIME_RE.match(prefix)
    if m:
        return m.group(0), None, float(m.group("s"))
    m = _CTIME_RE.match(prefix)
    if m:
        try:
            dt = datetime.strptime(m.group("t"), "%a %b %d %H:%M:%S %Y").replace(tzinfo=tz)
        except ValueError:
            return m.group("t"), None, None
        return m.group("t"), dt.timestamp(), None
    m = _SYSLOG_RE.match(prefix)
    if m:
        return m.group("t"), None, None  # syslog times carry no year
    m = _ISO_RE.search(prefix)
    if m:
        text = m.group("t")
        try:
            dt = datetime.fromisoformat(text.replace(",", "."))
        except ValueError:
            return text, None, None
        if dt.tzinfo is None:
            dt = dt.replace(tzinfo=tz)
        return text, dt.timestamp(), None
    return None, None, None


def parse_xid_line(line: str, *, tz: tzinfo = UTC) -> XidEvent | None:
    """One kernel log line; an event if it is an ``NVRM: Xid`` line, else None.

    Any prefix works (``[  123.4]``, ``dmesg -T``'s ``[Sun Feb 23 ...]``,
    ``--time-format=iso``, syslog); ``tz`` is the zone of a ``dmesg -T`` time."""
    text = line.rstrip("\r\n")
    m = _XID_RE.search(text)
    if not m:
        return None
    code = int(m.group("code"))
    rest = (m.group("rest") or "").strip()
    pid: int | None = None
    process: str | None = None
    pm = _PID_RE.match(rest)
    if pm:
        raw = pm.group("pid").strip("'")
        pid = int(raw) if raw.lstrip("-").isdigit() else None
        rest = rest[pm.end() :]
    nm = _NAME_RE.match(rest)
    if nm:
        name = nm.group("name").strip()
        process = None if name in ("", "<unknown>") else name
        rest = rest[nm.end() :]
    info = xid_info(code)
    time_text, ts, uptime = _times(text[: m.start()], tz)
    return XidEvent(
        code=code,
        pci=m.group("pci"),
        pid=pid,
        process=process,
        text=rest,
        severity=info.severity,
        category=info.category,
        action=info.action,
        description=info.description,
        line=text,
        time_text=time_text,
        timestamp=ts,
        uptime_s=uptime,
    )


_FALLEN = "fallen off the bus"
_BARE_LOSS = "GPU has fallen off the bus (the log gives no Xid number)"
#: ``GPU 0000:3b:00.0`` or ``GPU at PCI:0000:3b:00``; starts with a literal and has bounded
#: repeats, so a search costs time in proportion to the line.
_FALLEN_PCI_RE = re.compile(
    r"GPU (?:at )?(?:PCI:)?(?P<pci>[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2})(?:\.[0-7])?"
)


def _fallen_off_line(text: str, tz: tzinfo) -> XidEvent | None:
    """The driver's "GPU has fallen off the bus" line without an Xid number, read as the
    XID it stands for (79), so it is never missed."""
    if _FALLEN not in text:
        return None
    start = text.find("NVRM: ")
    if start < 0:
        return None
    m = _FALLEN_PCI_RE.search(text, start)
    info = xid_info(79)
    time_text, ts, uptime = _times(text[:start], tz)
    return XidEvent(
        code=79,
        pci=m.group("pci").lower() if m else None,
        pid=None,
        process=None,
        text=_BARE_LOSS,
        severity=info.severity,
        category=info.category,
        action=info.action,
        description=info.description,
        line=text,
        time_text=time_text,
        timestamp=ts,
        uptime_s=uptime,
    )


_ANY_PCI_RE = re.compile(
    r"\b(?:PCI:)?(?P<pci>[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2})(?:\.[0-7])?\b"
)


def _neighbour_pci(lines: list[str], i: int) -> str | None:
    """The GPU address a driver message split over lines gives on the line after (or before)
    the one that says what happened: ``NVRM: GPU has fallen off the bus.`` then
    ``NVRM: GPU 0000:3b:00.0: ...``, or ``The NVIDIA GPU 0000:02:00.0 ...`` then
    ``... has fallen off the bus``."""
    for j in (i + 1, i - 1, i - 2, i - 3):  # "The NVIDIA GPU ..." may open a 3-line message
        if 0 <= j < len(lines) and "NVRM: " in lines[j] and "Xid" not in lines[j]:
            m = _ANY_PCI_RE.search(lines[j], lines[j].find("NVRM: "))
            if m:
                return m.group("pci").lower()
    return None


def parse_dmesg(lines: str | Iterable[str], *, tz: tzinfo = UTC) -> list[XidEvent]:
    """Every XID event in a kernel log, each with the GPU UUID when the log
    named it earlier (``NVRM: GPU at PCI:...: GPU-...``). A "GPU has fallen off the bus"
    line without an Xid number counts as XID 79."""
    uuids: dict[str, str] = {}
    events: list[XidEvent] = []
    bare_losses: dict[str, int] = {}  # PCI -> index of a "fallen off the bus" line's event
    real_losses: set[str] = set()
    lines = clean_paste(lines).splitlines()
    for i, line in enumerate(lines):
        um = _GPU_UUID_RE.search(line)
        if um:
            uuids[um.group("pci").lower()] = um.group("uuid")
            continue
        ev = parse_xid_line(line, tz=tz) or _fallen_off_line(line, tz)
        if ev is None:
            continue
        if ev.pci is None:
            pci = _neighbour_pci(lines, i)
            if pci is not None:
                ev = replace(ev, pci=pci)
        uuid = uuids.get((ev.pci or "").lower())
        if uuid is not None:
            ev = replace(ev, uuid=uuid)
        if ev.code == 79:
            # The driver often logs the Xid and a plain "fallen off the bus" line for one
            # loss: one event, the Xid line's where there is one.
            pci = (ev.pci or "").lower()
            bare = pci in bare_losses
            if ev.text == _BARE_LOSS:
                if pci in real_losses or bare:
                    continue
                bare_losses[pci] = len(events)
            else:
                real_losses.add(pci)
                if bare:
                    events[bare_losses.pop(pci)] = ev
                    continue
        events.append(ev)
    return events
