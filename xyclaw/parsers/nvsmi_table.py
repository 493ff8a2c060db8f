"""The plain ``nvidia-smi`` table: what people paste most.

Three boxes, each optional but the first: the GPUs (two or three lines a GPU, three cells a
line), the MIG devices (two lines each), and the processes. Both layouts read the same way: the
one drivers before 530 print (79 columns) and the wider one of 530 and later (91 columns), with
or without the ``MIG M.`` line, from Windows (WDDM/TCC in the persistence column) and from
consumer cards (a fan speed, a display attached). Values nvidia-smi cannot give (``N/A``,
``ERR!``) come back as None; a cell it cuts (``Tesla V100-SXM2...``) is kept as printed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from xyclaw.errors import ParseError
from xyclaw.parsers.guard import parse_guard
from xyclaw.parsers.nvsmi import GpuSample, version_of
from xyclaw.parsers.paste import clean_paste
from xyclaw.wording import Said, said

_BANNER_RE = re.compile(r"NVIDIA-SMI\s+(?P<smi>\S+)")
_DRIVER_RE = re.compile(r"(?:Driver|KMD) Version:\s*(?P<v>\S+)")
_CUDA_RE = re.compile(r"CUDA (?:UMD )?Version:\s*(?P<v>\S+)")
_INT_UNIT_RE = re.compile(r"^(?P<n>\d+)\s*(?P<u>MiB|GiB|C|W|%)$")
_GPU_LINE1_RE = re.compile(r"^(?P<index>\d+)\s+(?P<name>.*?)\s+(?P<pers>On|Off|WDDM|TCC|N/A)$")
_POWER_RE = re.compile(r"(?P<draw>\S+?)W?\s*/\s*(?P<cap>\S+?)W?$")
_MEM_RE = re.compile(r"(?P<used>\d+)\s*MiB\s*/\s*(?P<total>\d+)\s*MiB")
_BUS_RE = re.compile(
    r"^(?P<bus>[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-7])\s+(?P<disp>\S+)"
)
_NO_PROC_RE = re.compile(r"No running processes found", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class TableGpu:
    """One GPU's box: the readings (as a :class:`GpuSample`, so the alert rules read it like a
    live sample) and what only the table shows."""

    sample: GpuSample
    persistence: str | None = None
    display_active: str | None = None
    compute_mode: str | None = None
    mig_mode: str | None = None


@dataclass(frozen=True, slots=True)
class TableMig:
    gpu: int
    gi: int | None
    ci: int | None
    device: int | None
    memory_used_mib: int | None
    memory_total_mib: int | None
    sm_count: int | None


@dataclass(frozen=True, slots=True)
class TableProcess:
    gpu: int | None
    gi: int | None
    ci: int | None
    pid: int | None
    kind: str | None  # C (compute), G (graphics), C+G
    name: str
    memory_mib: int | None


@dataclass(frozen=True)
class NvsmiTable:
    timestamp_text: str | None
    smi_version: str | None
    driver_version: str | None
    cuda_version: str | None
    gpus: tuple[TableGpu, ...]
    mig_devices: tuple[TableMig, ...] = ()
    processes: tuple[TableProcess, ...] = ()
    #: the processes box was there and said "No running processes found"
    no_processes: bool = False

    @property
    def samples(self) -> list[GpuSample]:
        return [g.sample for g in self.gpus]


def _cells(line: str) -> list[str] | None:
    s = line.strip()
    if not s.startswith("|") or not s.endswith("|"):
        return None
    return [c.strip() for c in s[1:-1].split("|")]


def _num(text: str) -> int | None:
    m = _INT_UNIT_RE.match(text.strip())
    return int(m.group("n")) if m else None


def _float_w(text: str) -> float | None:
    t = text.strip().removesuffix("W").strip()
    try:
        return float(t)
    except ValueError:
        return None


def _opt_int(text: str) -> int | None:
    t = text.strip()
    return int(t) if t.isdigit() else None


def _gpu(lines: list[list[str]]) -> TableGpu | None:
    """A GPU box: line 1 index/name/persistence | bus/display | ECC; line 2 fan/temp/perf/power
    | memory | utilisation/compute mode; line 3 (newer drivers) | | MIG mode."""
    if len(lines) < 2 or len(lines[0]) < 3 or len(lines[1]) < 3:
        return None
    m = _GPU_LINE1_RE.match(lines[0][0])
    if not m:
        return None
    bus = _BUS_RE.match(lines[0][1])
    ecc_text = lines[0][2]
    tokens = lines[1][0].split()
    fan = _num(tokens[0]) if tokens else None
    temp = _num(tokens[1]) if len(tokens) > 1 else None
    perf = tokens[2] if len(tokens) > 2 and re.match(r"^P\d{1,2}$", tokens[2]) else None
    power = _POWER_RE.search(" ".join(tokens[3:])) if len(tokens) > 3 else None
    mem = _MEM_RE.search(lines[1][1])
    util_tokens = lines[1][2].split()
    util = _num(util_tokens[0]) if util_tokens else None
    compute = " ".join(util_tokens[1:]) or None
    mig = lines[2][2] or None if len(lines) > 2 and len(lines[2]) > 2 else None
    used = int(mem.group("used")) if mem else None
    total = int(mem.group("total")) if mem else None
    sample = GpuSample(
        index=int(m.group("index")),
        name=m.group("name").strip(),
        utilization_gpu=util,
        memory_used_mib=used,
        memory_total_mib=total,
        memory_free_mib=total - used if used is not None and total is not None else None,
        power_draw_w=_float_w(power.group("draw")) if power else None,
        power_limit_w=_float_w(power.group("cap")) if power else None,
        temperature_c=temp,
        ecc_uncorrected=_opt_int(ecc_text),
        pstate=perf,
        fan_speed=fan,
        pci_bus_id=bus.group("bus") if bus else None,
    )
    return TableGpu(
        sample=sample,
        persistence=m.group("pers"),
        display_active=bus.group("disp") if bus else None,
        compute_mode=compute,
        mig_mode=mig if mig not in ("N/A",) else None,
    )


def _mig(lines: list[list[str]]) -> TableMig | None:
    if not lines or len(lines[0]) < 3:
        return None
    ids = lines[0][0].split()
    if len(ids) < 4 or not ids[0].isdigit():
        return None
    mem = _MEM_RE.search(lines[0][1])
    sm = lines[0][2].split()
    return TableMig(
        gpu=int(ids[0]),
        gi=_opt_int(ids[1]),
        ci=_opt_int(ids[2]),
        device=_opt_int(ids[3]),
        memory_used_mib=int(mem.group("used")) if mem else None,
        memory_total_mib=int(mem.group("total")) if mem else None,
        sm_count=_opt_int(sm[0]) if sm else None,
    )


_PROC_RE = re.compile(
    r"^(?P<gpu>\d+|N/A)\s+(?:(?P<gi>\d+|N/A)\s+(?P<ci>\d+|N/A)\s+)?(?P<pid>\d+)\s+"
    r"(?P<kind>C\+G|C|G|M|M\+C)\s+(?P<name>.*?)\s+(?P<mem>\d+\s*MiB|N/A)$"
)


def _process(cell: str) -> TableProcess | None:
    m = _PROC_RE.match(cell)
    if not m:
        return None
    mem = m.group("mem")
    return TableProcess(
        gpu=_opt_int(m.group("gpu")),
        gi=_opt_int(m.group("gi") or ""),
        ci=_opt_int(m.group("ci") or ""),
        pid=int(m.group("pid")),
        kind=m.group("kind"),
        name=m.group("name"),
        memory_mib=int(mem.split()[0].removesuffix("MiB")) if mem != "N/A" else None,
    )


def looks_like_table(text: str) -> bool:
    """The banner line or the GPU box header of the plain table is there."""
    return bool(_BANNER_RE.search(text)) or ("Persistence-M" in text and "Memory-Usage" in text)


@parse_guard("nvsmi_table", Said("error.parse.hint.nvsmi_plain"))
def parse_table(text: str) -> NvsmiTable:
    """The plain ``nvidia-smi`` output: banner versions, GPUs, MIG devices, processes."""
    lines = clean_paste(text).splitlines()
    timestamp = None
    smi = driver = cuda = None
    gpus: list[TableGpu] = []
    migs: list[TableMig] = []
    procs: list[TableProcess] = []
    no_procs = False
    section = "head"
    block: list[list[str]] = []
    in_body = False

    def flush() -> None:
        nonlocal block
        if block:
            if section == "gpus":
                g = _gpu(block)
                if g is not None:
                    gpus.append(g)
            elif section == "mig":
                mg = _mig(block)
                if mg is not None:
                    migs.append(mg)
        block = []

    for raw in lines:
        line = raw.strip()
        if not line:
            continue
        if timestamp is None and section == "head" and not line.startswith(("|", "+")):
            timestamp = line
            continue
        if "NVIDIA-SMI" in line and smi is None:
            bm = _BANNER_RE.search(line)
            smi = bm.group("smi") if bm else None
            dm = _DRIVER_RE.search(line)
            driver = version_of(dm.group("v")) if dm else None
            cm = _CUDA_RE.search(line)
            cuda = version_of(cm.group("v")) if cm else None
            continue
        if line.startswith("+") or (line.startswith("|") and set(line[1:-1]) <= {"-", "+"}):
            flush()  # a border ends a GPU's or a MIG device's box
            continue
        if set(line.strip("|")) <= {"=", "+", "|"}:
            in_body = True
            continue
        cells = _cells(line)
        if cells is None:
            continue
        joined = " ".join(cells)
        if "Persistence-M" in joined or ("GPU" in cells[0] and "Name" in cells[0]):
            flush()
            section, in_body = "gpus", False
            continue
        if joined.startswith("MIG devices"):
            flush()
            section, in_body = "mig", False
            continue
        if joined.startswith("Processes"):
            flush()
            section, in_body = "procs", False
            continue
        if not in_body:
            continue
        if section == "procs":
            if _NO_PROC_RE.search(joined):
                no_procs = True
                continue
            p = _process(cells[0])
            if p is not None:
                procs.append(p)
            continue
        if section in ("gpus", "mig"):
            block.append(cells)
    flush()
    if not gpus:
        raise ParseError(
            said("error.parse.table_none"), hint=said("error.parse.hint.nvsmi_plain_whole")
        )
    return NvsmiTable(
        timestamp_text=timestamp,
        smi_version=smi,
        driver_version=driver,
        cuda_version=cuda,
        gpus=tuple(gpus),
        mig_devices=tuple(migs),
        processes=tuple(procs),
        no_processes=no_procs,
    )
