"""Readers for what ``nvidia-smi`` prints on a GPU node.

The CSV reader is a line-stream parser: a collector feeds it every line of a
long-running ``nvidia-smi --query-gpu=... --format=csv,noheader,nounits -lms``
and it must survive anything a flaky node prints (``[N/A]``, units or none,
repeated headers, half lines, error messages). Bad lines are counted, never
raised. The other readers (``-L``, ``-q``, ``topo -m``) parse a whole document
and raise :class:`~xyclaw.errors.ParseError` when the text is not what they read.
"""

from __future__ import annotations

import functools
import logging
import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, tzinfo

from xyclaw.errors import ParseError
from xyclaw.parsers.guard import parse_guard
from xyclaw.parsers.paste import clean_paste
from xyclaw.wording import Said, said

log = logging.getLogger(__name__)


#: What the collector asks for, in this order. Every name is one the simulated
#: node and real drivers accept; ``clocks_throttle_reasons.active`` is the older
#: spelling that newer drivers still accept (they print ``clocks_event_reasons``).
QUERY_FIELDS: tuple[str, ...] = (
    "index",
    "uuid",
    "name",
    "timestamp",
    "utilization.gpu",
    "utilization.memory",
    "memory.used",
    "memory.total",
    "power.draw",
    "power.limit",
    "temperature.gpu",
    "clocks.sm",
    "clocks.mem",
    "clocks_throttle_reasons.active",
    "ecc.errors.uncorrected.volatile.total",
    "pstate",
    "fan.speed",
)

#: NVML clock throttle / event reason bits (nvml.h ``nvmlClocksEventReason*``).
THROTTLE_REASONS: Mapping[int, str] = {
    0x1: "gpu_idle",
    0x2: "applications_clocks_setting",
    0x4: "sw_power_cap",
    0x8: "hw_slowdown",
    0x10: "sync_boost",
    0x20: "sw_thermal_slowdown",
    0x40: "hw_thermal_slowdown",
    0x80: "hw_power_brake_slowdown",
    0x100: "display_clock_setting",
}
_REASON_BITS: dict[str, int] = {name: bit for bit, name in THROTTLE_REASONS.items()}
#: Reasons that mean the GPU runs slower than it could because of heat or power.
THROTTLE_SLOWDOWN_MASK = 0x4 | 0x8 | 0x20 | 0x40 | 0x80


def throttle_reason_names(mask: int | None) -> list[str]:
    """The names of the bits set in a throttle-reason mask, lowest bit first."""
    if not mask:
        return []
    names = [name for bit, name in THROTTLE_REASONS.items() if mask & bit]
    unknown = mask & ~sum(THROTTLE_REASONS)
    if unknown:
        names.append(f"unknown_0x{unknown:x}")
    return names


def query_command(
    fields: Sequence[str] = QUERY_FIELDS,
    *,
    interval_ms: int | None = None,
    header: bool = False,
    units: bool = False,
) -> str:
    """The ``nvidia-smi`` command line whose output :class:`NvsmiCsvParser` reads."""
    fmt = "csv" + ("" if header else ",noheader") + ("" if units else ",nounits")
    cmd = f"nvidia-smi --query-gpu={','.join(fields)} --format={fmt}"
    if interval_ms is not None:
        cmd += f" -lms {int(interval_ms)}"
    return cmd


@dataclass(frozen=True, slots=True)
class GpuSample:
    """One GPU's readings from one CSV line; ``None`` where the field was not
    asked for or nvidia-smi answered ``[N/A]``, ``[Not Supported]`` and the like."""

    index: int | None = None
    uuid: str | None = None
    name: str | None = None
    timestamp: float | None = None
    utilization_gpu: int | None = None
    utilization_memory: int | None = None
    memory_used_mib: int | None = None
    memory_total_mib: int | None = None
    power_draw_w: float | None = None
    power_limit_w: float | None = None
    temperature_c: int | None = None
    clocks_sm_mhz: int | None = None
    clocks_mem_mhz: int | None = None
    throttle_reasons: int | None = None
    ecc_uncorrected: int | None = None
    pstate: str | None = None
    fan_speed: int | None = None
    memory_free_mib: int | None = None
    pci_bus_id: str | None = None

    @property
    def throttle_reason_names(self) -> list[str]:
        return throttle_reason_names(self.throttle_reasons)

    @property
    def is_slowed_down(self) -> bool:
        """True when a power or thermal reason (not idle) holds the clocks down."""
        return bool(self.throttle_reasons and self.throttle_reasons & THROTTLE_SLOWDOWN_MASK)


# --- value conversion -----------------------------------------------------

_NUMBER_RE = re.compile(r"^([-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?)\s*([A-Za-z%]{0,4})$")
_MISSING_WORDS = frozenset({"", "n/a", "na", "not supported", "none", "unknown"})


def is_missing(value: str) -> bool:
    """True for the placeholders nvidia-smi prints instead of a value."""
    v = value.strip()
    if not v:
        return True
    if v[0] == "[":
        return v.endswith("]")
    if v[0] not in "nNuUrR":  # every placeholder word begins with one of these
        return False
    low = v.lower()
    return low in _MISSING_WORDS or low.startswith("requested functionality")


def _float(value: str) -> float | None:
    v = value.strip()
    if v and v[0] in "0123456789" and "_" not in v:
        try:  # the common case: a bare number (nounits)
            f = float(v)
        except ValueError:
            pass
        else:
            if math.isfinite(f):
                return f
            raise ValueError(f"not a finite number: {v[:40]!r}")
    if is_missing(v):
        return None
    m = _NUMBER_RE.match(v)
    if not m:
        raise ValueError(f"not a number: {v[:40]!r}")
    return float(m.group(1))


def _int(value: str) -> int | None:
    v = value.strip()
    if len(v) <= 15 and v.isdecimal() and v.isascii():  # the common case, exact as a float
        return int(v)
    f = _float(value)
    if f is None:
        return None
    if not math.isfinite(f):
        raise ValueError(f"not a finite number: {value.strip()[:40]!r}")
    return round(f)


def _str(value: str) -> str | None:
    v = value.strip()
    return None if is_missing(v) else v


_PSTATE_RE = re.compile(r"^P\d{1,2}$")


def _pstate(value: str) -> str | None:
    v = value.strip()
    if _PSTATE_RE.match(v):
        return v
    if is_missing(v):
        return None
    raise ValueError(f"not a performance state: {v[:40]!r}")


def _hexmask(value: str) -> int | None:
    v = value.strip()
    if is_missing(v):
        return None
    if v.lower().startswith("0x"):
        return int(v, 16)
    raise ValueError(f"not a hexadecimal bitmask: {v[:40]!r}")


def _active(value: str) -> bool | None:
    v = value.strip().lower()
    if is_missing(v):
        return None
    if v == "active":
        return True
    if v == "not active":
        return False
    raise ValueError(f"expected 'Active' or 'Not Active', got {value.strip()[:40]!r}")


_TS_RE = re.compile(r"^(\d{4})/(\d{2})/(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?$")


def _timestamp(value: str, tz: tzinfo) -> float | None:
    v = value.strip()
    m = _TS_RE.match(v)
    if not m:
        if is_missing(v):
            return None
        raise ValueError(f"not an nvidia-smi timestamp (YYYY/MM/DD HH:MM:SS.mmm): {v[:40]!r}")
    micro = int((m.group(7) or "0").ljust(6, "0"))
    # What datetime(..., micro, tzinfo=tz).timestamp() gives, to the bit: the lines of one
    # instant share their second, so its conversion is worked out once.
    return (_second_in_micros(m.group(1, 2, 3, 4, 5, 6), tz) + micro) / 10**6


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


@functools.lru_cache(maxsize=64)
def _second_in_micros(fields: tuple[str, ...], tz: tzinfo) -> int:
    y, mo, d, h, mi, sec = (int(f) for f in fields)
    since = datetime(y, mo, d, h, mi, sec, tzinfo=tz) - _EPOCH
    return (since.days * 86400 + since.seconds) * 10**6 + since.microseconds


# --- field names ----------------------------------------------------------

_ALIASES = {
    "gpu_name": "name",
    "gpu_uuid": "uuid",
    "gpu_bus_id": "pci.bus_id",
    "clocks.sm": "clocks.current.sm",
    "clocks.mem": "clocks.current.memory",
    "clocks.gr": "clocks.current.graphics",
    "clocks.video": "clocks.current.video",
    "clocks.current.mem": "clocks.current.memory",
}
_UNIT_SUFFIX_RE = re.compile(r"\s*\[[^\]]*\]\s*$")


def canonical_field(name: str) -> str:
    """The name nvidia-smi itself prints for a query field, lower case, no unit."""
    n = _UNIT_SUFFIX_RE.sub("", name.strip()).strip().lower()
    if n.startswith("clocks_throttle_reasons"):
        n = "clocks_event_reasons" + n[len("clocks_throttle_reasons") :]
    return _ALIASES.get(n, n)


# Where each canonical field goes: (attribute, converter, priority). A lower
# priority number wins when several columns feed one attribute.
_Conv = Callable[[str], object]
_FIELD_MAP: dict[str, tuple[str, _Conv, int]] = {
    "index": ("index", _int, 0),
    "uuid": ("uuid", _str, 0),
    "name": ("name", _str, 0),
    "pci.bus_id": ("pci_bus_id", _str, 0),
    "utilization.gpu": ("utilization_gpu", _int, 0),
    "utilization.memory": ("utilization_memory", _int, 0),
    "memory.used": ("memory_used_mib", _int, 0),
    "memory.total": ("memory_total_mib", _int, 0),
    "memory.free": ("memory_free_mib", _int, 0),
    "power.draw": ("power_draw_w", _float, 0),
    "power.draw.instant": ("power_draw_w", _float, 1),
    "power.draw.average": ("power_draw_w", _float, 2),
    "power.limit": ("power_limit_w", _float, 0),
    "enforced.power.limit": ("power_limit_w", _float, 1),
    "temperature.gpu": ("temperature_c", _int, 0),
    "clocks.current.sm": ("clocks_sm_mhz", _int, 0),
    "clocks.current.memory": ("clocks_mem_mhz", _int, 0),
    "clocks_event_reasons.active": ("throttle_reasons", _hexmask, 0),
    "ecc.errors.uncorrected.volatile.total": ("ecc_uncorrected", _int, 0),
    "pstate": ("pstate", _pstate, 0),
    "fan.speed": ("fan_speed", _int, 0),
}
_REASON_FIELDS = {f"clocks_event_reasons.{name}": bit for name, bit in _REASON_BITS.items()}
_KNOWN_FIELDS = frozenset(_FIELD_MAP) | frozenset(_REASON_FIELDS) | {"timestamp"}
_HEADER_CELL_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_.]*(?: \[[^\]]*\])?$")


def _looks_like_header(cells: Sequence[str]) -> bool:
    if not all(_HEADER_CELL_RE.match(c) for c in cells):
        return False
    return any(canonical_field(c) in _KNOWN_FIELDS for c in cells)


@dataclass(frozen=True, slots=True)
class _Plan:
    """Per column layout, worked out once per header so each line is cheap."""

    n_columns: int
    setters: tuple[tuple[int, str, _Conv, int], ...]
    reasons: tuple[tuple[int, int], ...]
    timestamp_col: int | None


def _plan(columns: Sequence[str]) -> _Plan:
    setters: list[tuple[int, str, _Conv, int]] = []
    reasons: list[tuple[int, int]] = []
    ts: int | None = None
    for i, col in enumerate(columns):
        c = canonical_field(col)
        if c in _FIELD_MAP:
            attr, conv, prio = _FIELD_MAP[c]
            setters.append((i, attr, conv, prio))
        elif c in _REASON_FIELDS:
            reasons.append((i, _REASON_FIELDS[c]))
        elif c == "timestamp":
            ts = i
    setters.sort(key=lambda s: -s[3])  # lowest priority number applied last, so it wins
    return _Plan(len(columns), tuple(setters), tuple(reasons), ts)


class NvsmiCsvParser:
    """Reads ``nvidia-smi --query-gpu`` CSV one line at a time.

    ``fields`` is the list the command asked for; it is needed only when the
    output has no header (``noheader``). A header line, wherever it appears
    (``-l`` repeats it), sets the columns from then on. Naive nvidia-smi
    timestamps are read in ``tz`` (the node's zone; UTC unless told).
    """

    def __init__(
        self,
        fields: Sequence[str] | None = None,
        *,
        tz: tzinfo = UTC,
    ) -> None:
        self._tz = tz
        self._columns: tuple[str, ...] | None = tuple(fields) if fields else None
        self._plan: _Plan | None = _plan(self._columns) if self._columns else None
        self.lines = 0
        self.samples = 0
        self.headers = 0
        self.bad_lines = 0
        self.last_error: str | None = None

    @property
    def columns(self) -> tuple[str, ...] | None:
        return self._columns

    def _bad(self, line: str, why: str) -> None:
        self.bad_lines += 1
        self.last_error = f"{why}: {line[:120]!r}"
        log.debug("nvidia-smi CSV: skipped line (%s)", self.last_error)

    def feed(self, line: str) -> GpuSample | None:
        """One line in; a sample out, or ``None`` for a header, blank or bad line."""
        self.lines += 1
        try:
            return self._feed(line)
        except Exception as exc:  # a garbled line must never stop a collector
            self._bad(line, f"{type(exc).__name__}: {exc}")
            return None

    def _feed(self, line: str) -> GpuSample | None:
        text = line.strip().strip("\x00")
        if not text:
            return None
        cells = [c.strip() for c in text.split(",")]
        if _looks_like_header(cells):
            self.headers += 1
            self._columns = tuple(cells)
            self._plan = _plan(cells)
            return None
        plan = self._plan
        if plan is None:
            self._bad(line, "no header seen and no field list given")
            return None
        if len(cells) != plan.n_columns:
            self._bad(line, f"expected {plan.n_columns} values, got {len(cells)}")
            return None
        values: dict[str, object] = {}
        try:
            for i, attr, conv, _prio in plan.setters:
                v = conv(cells[i])
                if v is not None:
                    values[attr] = v
            if plan.timestamp_col is not None:
                values["timestamp"] = _timestamp(cells[plan.timestamp_col], self._tz)
            if "throttle_reasons" not in values and plan.reasons:
                mask: int | None = None
                for i, bit in plan.reasons:
                    state = _active(cells[i])
                    if state is not None:
                        mask = (mask or 0) | (bit if state else 0)
                if mask is not None:
                    values["throttle_reasons"] = mask
        except ValueError as exc:
            self._bad(line, str(exc))
            return None
        if "memory_total_mib" not in values:  # older drivers (a P100) may give used and free only
            used, free = values.get("memory_used_mib"), values.get("memory_free_mib")
            if isinstance(used, int) and isinstance(free, int):
                values["memory_total_mib"] = used + free
        self.samples += 1
        return GpuSample(**values)  # type: ignore[arg-type]

    def feed_many(self, lines: Iterable[str]) -> list[GpuSample]:
        out = []
        for line in lines:
            s = self.feed(line)
            if s is not None:
                out.append(s)
        return out


_NO_DEVICES_RE = re.compile(r"^No devices were found\s*$", re.MULTILINE)


def parse_csv(
    text: str, fields: Sequence[str] | None = None, *, tz: tzinfo = UTC
) -> list[GpuSample]:
    """A whole ``--query-gpu`` CSV document; bad lines are skipped, but a text
    with no readable line at all is not nvidia-smi CSV and raises ParseError."""
    parser = NvsmiCsvParser(fields, tz=tz)
    text = clean_paste(text)
    samples = parser.feed_many(text.splitlines())
    if not samples and parser.bad_lines:
        if _NO_DEVICES_RE.search(text):
            return []
        raise ParseError(
            said("error.parse.nvsmi_csv", count=parser.bad_lines, last=str(parser.last_error)),
            hint=said("error.parse.hint.nvsmi_csv"),
        )
    return samples


# --- nvidia-smi -L --------------------------------------------------------


@dataclass(frozen=True, slots=True)
class MigDevice:
    profile: str
    device: int
    uuid: str


@dataclass(frozen=True, slots=True)
class GpuListEntry:
    index: int
    name: str
    uuid: str
    mig_devices: tuple[MigDevice, ...] = ()


_L_GPU_RE = re.compile(r"^GPU\s+(\d+):\s+(.*?)\s*\(UUID:\s*([^)\s]+)\s*\)\s*$")
_L_MIG_RE = re.compile(r"^MIG\s+(\S+)\s+Device\s+(\d+):\s*\(UUID:\s*([^)\s]+)\s*\)\s*$")


@parse_guard("nvsmi_list", Said("error.parse.hint.pass", {"command": "nvidia-smi -L"}))
def parse_list(text: str) -> list[GpuListEntry]:
    """``nvidia-smi -L``: one entry per GPU, with its MIG devices."""
    gpus: list[GpuListEntry] = []
    for raw in clean_paste(text).splitlines():
        line = raw.strip()
        if not line:
            continue
        m = _L_GPU_RE.match(line)
        if m:
            gpus.append(GpuListEntry(int(m.group(1)), m.group(2), m.group(3)))
            continue
        m = _L_MIG_RE.match(line)
        if m and gpus:
            last = gpus[-1]
            mig = MigDevice(m.group(1), int(m.group(2)), m.group(3))
            gpus[-1] = replace(last, mig_devices=(*last.mig_devices, mig))
            continue
        if line.startswith("No devices were found"):
            return []
        if line.startswith(("GPU ", "MIG ")):
            raise ParseError(
                said("error.parse.nvsmi_list_line", line=repr(line[:120])),
                hint=said("error.parse.hint.nvsmi_list_lines"),
            )
    if not gpus and text.strip():
        raise ParseError(
            said("error.parse.nvsmi_list_none"),
            hint=said("error.parse.hint.pass", command="nvidia-smi -L"),
        )
    return gpus


# --- nvidia-smi -q --------------------------------------------------------


@dataclass
class _Node:
    key: str
    value: str | None
    indent: int
    children: list[_Node] = field(default_factory=list)

    def child(self, *names: str) -> _Node | None:
        wanted = {n.lower() for n in names}
        for c in self.children:
            if c.key.lower() in wanted:
                return c
        return None

    def get(self, *path: str) -> str | None:
        node: _Node | None = self
        for part in path:
            node = node.child(*part.split("|")) if node else None
        return node.value if node else None


_KV_RE = re.compile(r"^(\s*)(\S.*?)\s+:(?:\s(.*))?$")
_GPU_SECTION_RE = re.compile(
    r"^GPU\s+([0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-9A-Fa-f])\s*$"
)


def _tree(text: str) -> _Node:
    root = _Node("", None, -1)
    stack = [root]
    for raw in text.splitlines():
        line = raw.rstrip()
        if not line.strip() or line.strip().startswith("===="):
            continue
        m = _KV_RE.match(line)
        if m:
            indent, key, value = len(m.group(1)), m.group(2), (m.group(3) or "").strip()
        else:
            indent = len(line) - len(line.lstrip())
            key, value = line.strip(), ""
        node = _Node(key, value or None, indent)
        while stack[-1].indent >= indent:
            stack.pop()
        stack[-1].children.append(node)
        stack.append(node)
    return root


_REASON_LABELS = {
    "idle": 0x1,
    "gpu idle": 0x1,
    "applications clocks setting": 0x2,
    "sw power cap": 0x4,
    "hw slowdown": 0x8,
    "sync boost": 0x10,
    "sw thermal slowdown": 0x20,
    "hw thermal slowdown": 0x40,
    "hw power brake slowdown": 0x80,
    "display clock setting": 0x100,
}


@dataclass(frozen=True)
class GpuDetails:
    """The parts of one GPU's ``nvidia-smi -q`` section that monitoring needs."""

    pci_bus_id: str
    product_name: str | None = None
    uuid: str | None = None
    minor_number: int | None = None
    pstate: str | None = None
    ecc_mode: str | None = None
    ecc_volatile: dict[str, int | None] = field(default_factory=dict)
    ecc_aggregate: dict[str, int | None] = field(default_factory=dict)
    ecc_uncorrected_volatile: int | None = None
    ecc_uncorrected_aggregate: int | None = None
    ecc_corrected_volatile: int | None = None
    ecc_corrected_aggregate: int | None = None
    clock_event_reasons: dict[str, bool] = field(default_factory=dict)
    throttle_reasons: int | None = None
    remapped_rows_correctable: int | None = None
    remapped_rows_uncorrectable: int | None = None
    remapped_rows_pending: bool | None = None
    remapping_failure: bool | None = None
    retired_pages_double_bit: int | None = None
    temperature_c: int | None = None
    power_draw_w: float | None = None
    power_limit_w: float | None = None
    memory_used_mib: int | None = None
    memory_total_mib: int | None = None
    utilization_gpu: int | None = None
    clocks_sm_mhz: int | None = None
    clocks_mem_mhz: int | None = None

    @property
    def throttle_reason_names(self) -> list[str]:
        return throttle_reason_names(self.throttle_reasons)


@dataclass(frozen=True)
class NvsmiQuery:
    timestamp_text: str | None
    driver_version: str | None
    cuda_version: str | None
    attached_gpus: int | None
    gpus: list[GpuDetails]
    #: 610 and later drivers split the version: the kernel-mode driver's and the CUDA user-mode
    #: driver's (``driver_version``/``cuda_version`` hold them too, so older callers read on)
    kmd_version: str | None = None
    cuda_umd_version: str | None = None


def _safe_int(v: str | None) -> int | None:
    if v is None:
        return None
    try:
        return _int(v)
    except ValueError:
        return None


def _safe_float(v: str | None) -> float | None:
    if v is None:
        return None
    try:
        return _float(v)
    except ValueError:
        return None


def _yes_no(v: str | None) -> bool | None:
    if v is None:
        return None
    low = v.strip().lower()
    return True if low == "yes" else False if low == "no" else None


def _ecc_counts(node: _Node | None) -> dict[str, int | None]:
    """Flatten one ECC Volatile/Aggregate block (Ampere+ SRAM/DRAM keys, or the
    older Single Bit / Double Bit sub-blocks)."""
    out: dict[str, int | None] = {}
    if node is None:
        return out
    for c in node.children:
        if c.children:
            for g in c.children:
                out[f"{c.key} {g.key}"] = _safe_int(g.value)
        elif c.value is not None and c.value.lower() not in ("yes", "no"):
            out[c.key] = _safe_int(c.value)
    return out


def _ecc_sum(counts: Mapping[str, int | None], uncorrectable: bool) -> int | None:
    total: int | None = None
    for key, val in counts.items():
        k = key.lower()
        if k.startswith(("double bit", "single bit")):
            if not k.endswith("total"):
                continue
            hit = k.startswith("double bit") == uncorrectable
        else:
            hit = ("uncorrectable" in k) == uncorrectable and "correctable" in k
        if hit and val is not None:
            total = (total or 0) + val
    return total


def _reasons(node: _Node | None) -> tuple[dict[str, bool], int | None]:
    states: dict[str, bool] = {}
    mask: int | None = None
    if node is None:
        return states, mask
    todo = list(node.children)
    while todo:
        c = todo.pop(0)
        todo.extend(c.children)
        if c.value is None:
            continue
        low = c.value.strip().lower()
        if low not in ("active", "not active"):
            continue
        active = low == "active"
        states[c.key] = active
        bit = _REASON_LABELS.get(c.key.lower())
        if bit is not None:
            mask = (mask or 0) | (bit if active else 0)
    return states, mask


def _gpu_details(bus_id: str, g: _Node) -> GpuDetails:
    ecc = g.child("ECC Errors")
    vol = _ecc_counts(ecc.child("Volatile") if ecc else None)
    agg = _ecc_counts(ecc.child("Aggregate") if ecc else None)
    states, mask = _reasons(g.child("Clocks Event Reasons", "Clocks Throttle Reasons"))
    power = g.child("GPU Power Readings", "Power Readings")
    draw = limit = None
    if power is not None:
        draw = _safe_float(power.get("Power Draw|Instantaneous Power Draw"))
        if draw is None:
            draw = _safe_float(power.get("Average Power Draw"))
        limit = _safe_float(power.get("Power Limit|Current Power Limit|Enforced Power Limit"))
    return GpuDetails(
        pci_bus_id=bus_id,
        product_name=_str(g.get("Product Name") or ""),
        uuid=_str(g.get("GPU UUID") or ""),
        minor_number=_safe_int(g.get("Minor Number")),
        pstate=g.get("Performance State"),
        ecc_mode=g.get("ECC Mode|Ecc Mode", "Current"),
        ecc_volatile=vol,
        ecc_aggregate=agg,
        ecc_uncorrected_volatile=_ecc_sum(vol, True),
        ecc_uncorrected_aggregate=_ecc_sum(agg, True),
        ecc_corrected_volatile=_ecc_sum(vol, False),
        ecc_corrected_aggregate=_ecc_sum(agg, False),
        clock_event_reasons=states,
        throttle_reasons=mask,
        remapped_rows_correctable=_safe_int(g.get("Remapped Rows", "Correctable Error")),
        remapped_rows_uncorrectable=_safe_int(g.get("Remapped Rows", "Uncorrectable Error")),
        remapped_rows_pending=_yes_no(g.get("Remapped Rows", "Pending")),
        remapping_failure=_yes_no(g.get("Remapped Rows", "Remapping Failure Occurred")),
        retired_pages_double_bit=_safe_int(g.get("Retired Pages", "Double Bit ECC")),
        temperature_c=_safe_int(g.get("Temperature", "GPU Current Temp")),
        power_draw_w=draw,
        power_limit_w=limit,
        memory_used_mib=_safe_int(g.get("FB Memory Usage", "Used")),
        memory_total_mib=_safe_int(g.get("FB Memory Usage", "Total")),
        utilization_gpu=_safe_int(g.get("Utilization", "Gpu|GPU")),
        clocks_sm_mhz=_safe_int(g.get("Clocks", "SM")),
        clocks_mem_mhz=_safe_int(g.get("Clocks", "Memory")),
    )


@parse_guard("nvsmi_query", Said("error.parse.hint.pass", {"command": "nvidia-smi -q"}))
def parse_query_details(text: str) -> NvsmiQuery:
    """``nvidia-smi -q`` (or ``-q -d ECC,PERFORMANCE,...``): per GPU, ECC
    counters, clock event / throttle reasons and the main readings."""
    text = clean_paste(text)
    root = _tree(text)
    gpus = []
    for node in root.children:
        m = _GPU_SECTION_RE.match(node.key)
        if m and node.value is None:
            gpus.append(_gpu_details(m.group(1), node))
    return _query(root, gpus, valid=bool(gpus) or "NVSMI LOG" in text)


_FIRST_GPU_RE = re.compile(_GPU_SECTION_RE.pattern, re.MULTILINE)


@parse_guard("nvsmi_query", Said("error.parse.hint.pass", {"command": "nvidia-smi -q"}))
def parse_query_header(text: str) -> NvsmiQuery:
    """Only the banner part of ``nvidia-smi -q``, before the first GPU section: timestamp,
    driver and CUDA versions, attached GPUs (``gpus`` is empty). What a driver check needs,
    without reading the hundreds of lines each GPU adds."""
    text = clean_paste(text)
    first = _FIRST_GPU_RE.search(text)
    head = text[: first.start()] if first else text
    return _query(_tree(head), [], valid=first is not None or "NVSMI LOG" in text)


def _query(root: _Node, gpus: list[GpuDetails], *, valid: bool) -> NvsmiQuery:
    if not valid:
        raise ParseError(
            said("error.parse.nvsmi_query_none"),
            hint=said("error.parse.hint.pass", command="nvidia-smi -q"),
        )
    kmd = version_of(root.get("KMD Version"))
    umd = version_of(root.get("CUDA UMD Version"))
    return NvsmiQuery(
        timestamp_text=root.get("Timestamp"),
        driver_version=kmd or version_of(root.get("Driver Version")),
        cuda_version=version_of(root.get("CUDA Version")) or umd,
        attached_gpus=_safe_int(root.get("Attached GPUs")),
        gpus=gpus,
        kmd_version=kmd,
        cuda_umd_version=umd,
    )


_VERSION_NUMBER_RE = re.compile(r"\d{1,4}(?:\.\d{1,6}){1,3}")


def version_of(value: str | None) -> str | None:
    """The version number in a field, without what newer drivers add after it
    (``610.57.04 [Deprecated; use KMD Version]`` -> ``610.57.04``); None if it has none."""
    if value is None:
        return None
    m = _VERSION_NUMBER_RE.search(value.split("[", 1)[0]) or _VERSION_NUMBER_RE.search(value)
    return m.group(0) if m else None


# --- nvidia-smi topo -m ---------------------------------------------------

_ANSI_RE = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")
_LINK_RE = re.compile(r"^(X|NV\d+|[A-Z][A-Z0-9]*)$")
_KIND_RE = re.compile(r"^(X|NV\d+|PIX|PXB|PHB|NODE|SYS|SOC)$")
_NV_RE = re.compile(r"^NV(\d+)$")
_NIC_LEGEND_RE = re.compile(r"^\s*(NIC\d+)\s*:\s*(\S+)\s*$")
_EXTRA_COLUMNS = ("CPU Affinity", "NUMA Affinity", "GPU NUMA ID")
#: PCIe/SMP link kinds from nearest to farthest (NV# is better than all of them).
LINK_ORDER: tuple[str, ...] = ("X", "PIX", "PXB", "PHB", "NODE", "SYS", "SOC")


def strip_ansi(text: str) -> str:
    return _ANSI_RE.sub("", text)


@dataclass(frozen=True)
class Topology:
    """The GPU/NIC connection matrix of ``nvidia-smi topo -m``."""

    devices: tuple[str, ...]
    links: dict[tuple[str, str], str]
    cpu_affinity: dict[str, str | None]
    numa_affinity: dict[str, str | None]
    gpu_numa_id: dict[str, str | None]
    nic_names: dict[str, str]

    @property
    def gpus(self) -> list[str]:
        return [d for d in self.devices if d.startswith("GPU")]

    @property
    def nics(self) -> list[str]:
        return [d for d in self.devices if not d.startswith("GPU")]

    def link(self, a: str, b: str) -> str:
        try:
            return self.links[(a, b)]
        except KeyError:
            raise KeyError(f"no link {a} -> {b} in the topology") from None

    def nvlinks(self, a: str, b: str) -> int:
        """Number of bonded NVLinks between two GPUs (0 when they talk over PCIe)."""
        m = _NV_RE.match(self.link(a, b))
        return int(m.group(1)) if m else 0

    def nic_name(self, label: str) -> str:
        return self.nic_names.get(label, label)

    def nearest_nics(self, gpu: str) -> list[str]:
        """The NICs closest to a GPU over PCIe (PIX before PXB before PHB ...)."""
        ranked = []
        for nic in self.nics:
            kind = self.links.get((gpu, nic))
            if kind in LINK_ORDER:
                ranked.append((LINK_ORDER.index(kind), nic))
        if not ranked:
            return []
        best = min(r for r, _ in ranked)
        return [nic for r, nic in ranked if r == best]


@parse_guard("nvsmi_topo", Said("error.parse.hint.pass", {"command": "nvidia-smi topo -m"}))
def parse_topology(text: str) -> Topology:
    """``nvidia-smi topo -m``: the matrix, CPU/NUMA affinity and NIC legend."""
    lines = [strip_ansi(raw).rstrip() for raw in clean_paste(text).splitlines()]
    header_at = None
    for i, line in enumerate(lines):
        tokens = line.split()
        if "GPU0" in tokens and not (len(tokens) > 1 and _KIND_RE.match(tokens[1])):
            header_at = i
            break
    if header_at is None:
        raise ParseError(
            said("error.parse.topo_no_header"),
            hint=said("error.parse.hint.pass", command="nvidia-smi topo -m"),
        )
    header = lines[header_at]
    for extra in _EXTRA_COLUMNS:
        header = header.replace(extra, extra.replace(" ", "_"))
    cols = header.split()
    extras = [c.replace("_", " ") for c in cols if c.replace("_", " ") in _EXTRA_COLUMNS]
    devices = tuple(c for c in cols if c.replace("_", " ") not in _EXTRA_COLUMNS)
    links: dict[tuple[str, str], str] = {}
    cpu: dict[str, str | None] = {}
    numa: dict[str, str | None] = {}
    gpu_numa: dict[str, str | None] = {}
    nic_names: dict[str, str] = {}
    in_legend = False
    for line in lines[header_at + 1 :]:
        stripped = line.strip()
        if not stripped:
            continue
        if stripped.startswith(("Legend", "NIC Legend")):
            in_legend = True
            continue
        if in_legend:
            m = _NIC_LEGEND_RE.match(line)
            if m:
                nic_names[m.group(1)] = m.group(2)
            continue
        tokens = stripped.split()
        label = tokens[0]
        if label not in devices:
            raise ParseError(
                said(
                    "error.parse.topo_row_label", label=repr(label[:40]), columns=", ".join(devices)
                ),
                hint=said("error.parse.hint.topo_garbled"),
            )
        cells = tokens[1:]
        if len(cells) < len(devices):
            raise ParseError(
                said(
                    "error.parse.topo_row_short",
                    label=label,
                    cells=len(cells),
                    expected=len(devices),
                ),
                hint=said("error.parse.hint.topo_garbled"),
            )
        for dev, cell in zip(devices, cells, strict=False):
            if not _LINK_RE.match(cell):
                raise ParseError(
                    said("error.parse.topo_cell", label=label, dev=dev, cell=repr(cell[:40])),
                    hint=said("error.parse.hint.topo_garbled"),
                )
            links[(label, dev)] = cell
        rest = cells[len(devices) :]
        values = dict(zip(extras, rest, strict=False))
        if extras and (rest or label.startswith("GPU")):
            cpu[label] = _str(values.get("CPU Affinity", ""))
            numa[label] = _str(values.get("NUMA Affinity", ""))
            if "GPU NUMA ID" in extras:
                gpu_numa[label] = _str(values.get("GPU NUMA ID", ""))
    if not links:
        raise ParseError(said("error.parse.topo_no_rows"), hint=said("error.parse.hint.topo_cut"))
    return Topology(devices, links, cpu, numa, gpu_numa, nic_names)
