"""`nvidia-smi` of a simulated node: --query-gpu CSV, -l/-lms loops, -L, topo -m, -q and the table.

Field names, units and the missing-value markers follow real nvidia-smi
(reference-figures.md); the header carries the canonical field name and
its unit (`clocks.sm` is printed as `clocks.current.sm [MHz]`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from xyclaw.sim.context import Ctx
from xyclaw.sim.gpu import (
    REASON_APP_CLOCKS,
    REASON_DISPLAY_CLOCK,
    REASON_GPU_IDLE,
    REASON_HW_POWER_BRAKE,
    REASON_HW_SLOWDOWN,
    REASON_HW_THERMAL,
    REASON_SW_POWER_CAP,
    REASON_SW_THERMAL,
    REASON_SYNC_BOOST,
    REASONS_SUPPORTED,
    Gpu,
    GpuBoard,
)
from xyclaw.sim.specs import CUDA_VERSION, DRIVER_VERSION

NA = "[N/A]"
NOT_SUPPORTED = "[Not Supported]"
Value = str | int | float | None  # None prints as [N/A]; floats print with 2 decimals


@dataclass(frozen=True)
class Field:
    unit: str | None
    get: Callable[[Gpu, GpuBoard], Value]


def _ecc(gpu: Gpu, value: int) -> Value:
    return value if gpu.model.ecc else None


def _ecc_counter(attr: str) -> Callable[[Gpu, GpuBoard], Value]:
    def get(gpu: Gpu, board: GpuBoard) -> Value:
        return _ecc(gpu, int(getattr(gpu, attr)))

    return get


def _remap(gpu: Gpu, value: Value) -> Value:
    return value if gpu.model.ecc else None


def _reason(bit: int) -> Field:
    return Field(None, lambda g, b: "Active" if g.reasons() & bit else "Not Active")


def _inforom(gpu: Gpu) -> str:
    return {"Hopper": "G520.0200.00.05", "Ampere": "G506.0212.00.01"}.get(
        gpu.model.architecture, "G002.0000.00.03"
    )


def _pcie_gen(gpu: Gpu) -> int:
    return 5 if gpu.model.architecture == "Hopper" else 4


def _mig(gpu: Gpu) -> Value:
    return "Disabled" if gpu.model.hbm else None


_REASON_FIELDS = {
    "supported": Field(None, lambda g, b: f"0x{REASONS_SUPPORTED:016X}"),
    "active": Field(None, lambda g, b: f"0x{g.reasons():016X}"),
    "gpu_idle": _reason(REASON_GPU_IDLE),
    "applications_clocks_setting": _reason(REASON_APP_CLOCKS),
    "sw_power_cap": _reason(REASON_SW_POWER_CAP),
    "hw_slowdown": _reason(REASON_HW_SLOWDOWN),
    "hw_thermal_slowdown": _reason(REASON_HW_THERMAL),
    "hw_power_brake_slowdown": _reason(REASON_HW_POWER_BRAKE),
    "sw_thermal_slowdown": _reason(REASON_SW_THERMAL),
    "sync_boost": _reason(REASON_SYNC_BOOST),
    "display_clock_setting": _reason(REASON_DISPLAY_CLOCK),
}

FIELDS: dict[str, Field] = {
    "timestamp": Field(None, lambda g, b: _timestamp(b.now())),
    "driver_version": Field(None, lambda g, b: DRIVER_VERSION),
    "count": Field(None, lambda g, b: len(b.visible())),
    "name": Field(None, lambda g, b: g.model.name),
    "serial": Field(None, lambda g, b: g.serial),
    "uuid": Field(None, lambda g, b: g.uuid),
    "pci.bus_id": Field(None, lambda g, b: g.bus_id),
    "pci.domain": Field(None, lambda g, b: "0x0000"),
    "pci.bus": Field(None, lambda g, b: f"0x{g.bus:02X}"),
    "pci.device": Field(None, lambda g, b: "0x00"),
    "pci.device_id": Field(None, lambda g, b: g.model.pci_device_id),
    "pci.sub_device_id": Field(None, lambda g, b: "0x147E10DE"),
    "pcie.link.gen.current": Field(None, lambda g, b: _pcie_gen(g) if g.busy else 1),
    "pcie.link.gen.gpucurrent": Field(None, lambda g, b: _pcie_gen(g) if g.busy else 1),
    "pcie.link.gen.max": Field(None, lambda g, b: _pcie_gen(g)),
    "pcie.link.gen.gpumax": Field(None, lambda g, b: _pcie_gen(g)),
    "pcie.link.gen.hostmax": Field(None, lambda g, b: _pcie_gen(g)),
    "pcie.link.width.current": Field(None, lambda g, b: 16),
    "pcie.link.width.max": Field(None, lambda g, b: 16),
    "index": Field(None, lambda g, b: b.visible().index(g)),
    "display_mode": Field(None, lambda g, b: "Disabled"),
    "display_active": Field(None, lambda g, b: "Disabled"),
    "persistence_mode": Field(None, lambda g, b: "Enabled" if g.persistence else "Disabled"),
    "accounting.mode": Field(None, lambda g, b: "Disabled"),
    "accounting.buffer_size": Field(None, lambda g, b: 4000),
    "driver_model.current": Field(None, lambda g, b: None),
    "driver_model.pending": Field(None, lambda g, b: None),
    "vbios_version": Field(None, lambda g, b: g.model.vbios),
    "inforom.img": Field(None, lambda g, b: _inforom(g)),
    "inforom.oem": Field(None, lambda g, b: "2.1"),
    "inforom.ecc": Field(None, lambda g, b: "7.16" if g.model.ecc else None),
    "inforom.pwr": Field(None, lambda g, b: None),
    "gom.current": Field(None, lambda g, b: None),
    "gom.pending": Field(None, lambda g, b: None),
    "fan.speed": Field("%", lambda g, b: g.fan_percent()),
    "pstate": Field(None, lambda g, b: g.pstate()),
    "clocks_event_reasons_counters.sw_power_cap": Field(
        "us", lambda g, b: int(g.counter_sw_power_us)
    ),
    "clocks_event_reasons_counters.sync_boost": Field("us", lambda g, b: 0),
    "clocks_event_reasons_counters.sw_thermal_slowdown": Field(
        "us", lambda g, b: int(g.counter_sw_thermal_us)
    ),
    "clocks_event_reasons_counters.hw_thermal_slowdown": Field(
        "us", lambda g, b: int(g.counter_hw_thermal_us)
    ),
    "clocks_event_reasons_counters.hw_power_brake_slowdown": Field("us", lambda g, b: 0),
    "memory.total": Field("MiB", lambda g, b: g.model.memory_mib),
    "memory.reserved": Field("MiB", lambda g, b: g.memory_reserved_mib),
    "memory.used": Field("MiB", lambda g, b: g.memory_used_mib),
    "memory.free": Field("MiB", lambda g, b: g.memory_free_mib),
    "compute_mode": Field(None, lambda g, b: "Default"),
    "compute_cap": Field(None, lambda g, b: g.model.compute_cap),
    "utilization.gpu": Field("%", lambda g, b: _pct(b.jitter(g.util, 1.5) if g.busy else g.util)),
    "utilization.memory": Field(
        "%", lambda g, b: _pct(b.jitter(g.mem_util, 1.0) if g.busy else g.mem_util)
    ),
    "utilization.encoder": Field("%", lambda g, b: 0),
    "utilization.decoder": Field("%", lambda g, b: 0),
    "encoder.stats.sessionCount": Field(None, lambda g, b: 0),
    "encoder.stats.averageFps": Field(None, lambda g, b: 0),
    "encoder.stats.averageLatency": Field(None, lambda g, b: 0),
    "ecc.mode.current": Field(None, lambda g, b: "Enabled" if g.model.ecc else None),
    "ecc.mode.pending": Field(None, lambda g, b: "Enabled" if g.model.ecc else None),
    "temperature.gpu": Field(None, lambda g, b: round(g.temp_c)),
    "temperature.gpu.tlimit": Field(None, lambda g, b: max(0, 87 - round(g.temp_c))),
    "temperature.memory": Field(None, lambda g, b: g.temp_memory_c()),
    "power.management": Field(None, lambda g, b: "Enabled"),
    "power.draw": Field("W", lambda g, b: _watts(b.jitter(g.power_w, g.power_w * 0.01))),
    "power.draw.average": Field("W", lambda g, b: _watts(g.power_w)),
    "power.draw.instant": Field("W", lambda g, b: _watts(b.jitter(g.power_w, g.power_w * 0.02))),
    "power.limit": Field("W", lambda g, b: float(g.power_limit_w)),
    "enforced.power.limit": Field("W", lambda g, b: float(g.power_limit_w)),
    "power.default_limit": Field("W", lambda g, b: float(g.model.power_limit_w)),
    "power.min_limit": Field("W", lambda g, b: float(g.model.power_min_w)),
    "power.max_limit": Field("W", lambda g, b: float(g.model.power_limit_w)),
    "clocks.current.graphics": Field("MHz", lambda g, b: g.sm_clock()),
    "clocks.current.sm": Field("MHz", lambda g, b: g.sm_clock()),
    "clocks.current.memory": Field("MHz", lambda g, b: g.mem_clock()),
    "clocks.current.video": Field("MHz", lambda g, b: 1545 if g.busy else 765),
    "clocks.applications.graphics": Field("MHz", lambda g, b: g.model.sm_clock_max),
    "clocks.applications.memory": Field("MHz", lambda g, b: g.model.mem_clock),
    "clocks.default_applications.graphics": Field("MHz", lambda g, b: g.model.sm_clock_max),
    "clocks.default_applications.memory": Field("MHz", lambda g, b: g.model.mem_clock),
    "clocks.max.graphics": Field("MHz", lambda g, b: g.model.sm_clock_max),
    "clocks.max.sm": Field("MHz", lambda g, b: g.model.sm_clock_max),
    "clocks.max.memory": Field("MHz", lambda g, b: g.model.mem_clock),
    "mig.mode.current": Field(None, lambda g, b: _mig(g)),
    "mig.mode.pending": Field(None, lambda g, b: _mig(g)),
    "retired_pages.single_bit_ecc.count": Field(None, lambda g, b: None),
    "retired_pages.double_bit.count": Field(None, lambda g, b: None),
    "retired_pages.pending": Field(None, lambda g, b: None),
    "remapped_rows.correctable": Field(None, lambda g, b: _remap(g, g.remap_correctable)),
    "remapped_rows.uncorrectable": Field(None, lambda g, b: _remap(g, g.remap_uncorrectable)),
    "remapped_rows.pending": Field(
        None, lambda g, b: _remap(g, "Yes" if g.remap_pending else "No")
    ),
    "remapped_rows.failure": Field(
        None, lambda g, b: _remap(g, "Yes" if g.remap_failure else "No")
    ),
}
for _prefix in ("clocks_event_reasons", "clocks_throttle_reasons"):
    for _key, _field in _REASON_FIELDS.items():
        FIELDS[f"{_prefix}.{_key}"] = _field
for _kind in ("corrected", "uncorrected"):
    for _when in ("volatile", "aggregate"):
        for _where in ("total", "device_memory", "dram"):
            FIELDS[f"ecc.errors.{_kind}.{_when}.{_where}"] = Field(
                None, _ecc_counter(f"ecc_{_kind}_{_when}")
            )
        FIELDS[f"ecc.errors.{_kind}.{_when}.sram"] = Field(None, lambda g, b: _ecc(g, 0))
        for _where in ("register_file", "l1_cache", "l2_cache", "texture_memory", "cbu"):
            FIELDS[f"ecc.errors.{_kind}.{_when}.{_where}"] = Field(None, lambda g, b: None)

ALIASES = {
    "gpu_name": "name",
    "gpu_bus_id": "pci.bus_id",
    "gpu_serial": "serial",
    "gpu_uuid": "uuid",
    "clocks.gr": "clocks.current.graphics",
    "clocks.sm": "clocks.current.sm",
    "clocks.mem": "clocks.current.memory",
    "clocks.video": "clocks.current.video",
    "clocks.applications.gr": "clocks.applications.graphics",
    "clocks.applications.mem": "clocks.applications.memory",
    "clocks.default_applications.gr": "clocks.default_applications.graphics",
    "clocks.default_applications.mem": "clocks.default_applications.memory",
    "clocks.max.gr": "clocks.max.graphics",
    "clocks.max.mem": "clocks.max.memory",
    "pstate": "pstate",
}

APP_FIELDS: dict[str, tuple[str | None, Callable[[Gpu, int, str, int], Value]]] = {
    "timestamp": (None, lambda g, pid, name, mem: None),
    "gpu_name": (None, lambda g, pid, name, mem: g.model.name),
    "gpu_bus_id": (None, lambda g, pid, name, mem: g.bus_id),
    "gpu_serial": (None, lambda g, pid, name, mem: g.serial),
    "gpu_uuid": (None, lambda g, pid, name, mem: g.uuid),
    "pid": (None, lambda g, pid, name, mem: pid),
    "process_name": (None, lambda g, pid, name, mem: name),
    "name": (None, lambda g, pid, name, mem: name),
    "used_gpu_memory": ("MiB", lambda g, pid, name, mem: mem),
    "used_memory": ("MiB", lambda g, pid, name, mem: mem),
}


def _pct(value: float) -> int:
    return round(min(100.0, max(0.0, value)))


def _watts(value: float) -> float:
    return max(0.0, value)


def _timestamp(now: float) -> str:
    return time.strftime("%Y/%m/%d %H:%M:%S", time.gmtime(now)) + f".{int((now % 1) * 1000):03d}"


def _render(value: Value, unit: str | None, with_units: bool) -> str:
    if value is None:
        return NA
    if isinstance(value, str):
        return value
    text = f"{value:.2f}" if isinstance(value, float) else str(value)
    return f"{text} {unit}" if unit and with_units else text


@dataclass
class _Options:
    query: list[str] | None = None
    apps: list[str] | None = None
    fmt: set[str] | None = None
    ids: list[str] | None = None
    loop_s: float | None = None
    list_gpus: bool = False
    full: bool = False
    display: set[str] | None = None
    topo: bool = False
    version: bool = False
    persistence: str | None = None
    power_limit: float | None = None


class _UsageError(Exception):
    pass


def _parse(args: list[str]) -> _Options:
    opts = _Options()
    i = 0

    def value(flag: str) -> str:
        nonlocal i
        if "=" in flag:
            return flag.split("=", 1)[1]
        i += 1
        if i >= len(args):
            raise _UsageError
        return args[i]

    while i < len(args):
        arg = args[i]
        key = arg.split("=", 1)[0]
        if key in ("--query-gpu",):
            opts.query = [f.strip() for f in value(arg).split(",") if f.strip()]
        elif key == "--query-compute-apps":
            opts.apps = [f.strip() for f in value(arg).split(",") if f.strip()]
        elif key == "--format":
            opts.fmt = {f.strip() for f in value(arg).split(",")}
        elif key in ("-i", "--id"):
            opts.ids = [x.strip() for x in value(arg).split(",")]
        elif key in ("-l", "--loop"):
            raw = value(arg) if (i + 1 < len(args) and args[i + 1].isdigit()) or "=" in arg else "5"
            opts.loop_s = float(raw)
        elif key in ("-lms", "--loop-ms"):
            opts.loop_s = float(value(arg)) / 1000.0
        elif key in ("-L", "--list-gpus"):
            opts.list_gpus = True
        elif key in ("-q", "--query"):
            opts.full = True
        elif key in ("-d", "--display"):
            opts.display = {d.strip().upper() for d in value(arg).split(",")}
        elif key == "topo":
            opts.topo = True
        elif key in ("-m", "--matrix") and opts.topo:
            pass
        elif key in ("--version",):
            opts.version = True
        elif key in ("-pm", "--persistence-mode"):
            opts.persistence = value(arg)
        elif key in ("-pl", "--power-limit"):
            opts.power_limit = float(value(arg))
        elif key == "-a":
            opts.full = True
        else:
            raise _UsageError
        i += 1
    return opts


def nvidia_smi(ctx: Ctx) -> int:
    try:
        opts = _parse(ctx.args)
    except (_UsageError, ValueError):
        ctx.out("Invalid combination of input arguments. Please run 'nvidia-smi -h' for help.\n\n")
        return 2
    board = ctx.machine.gpus
    board.advance()
    if opts.version:
        ctx.out(
            f"NVIDIA-SMI version  : {DRIVER_VERSION}\n"
            f"NVML version        : {DRIVER_VERSION.rsplit('.', 1)[0]}\n"
            f"DRIVER version      : {DRIVER_VERSION}\nCUDA Version        : {CUDA_VERSION}\n"
        )
        return 0
    if opts.topo:
        return _topo(ctx)
    selected = _select(board, opts.ids)
    if selected is None or (not selected and board.gpus):
        ctx.out("No devices were found\n")
        return 6
    if opts.persistence is not None:
        return _set_persistence(ctx, selected, opts.persistence)
    if opts.power_limit is not None:
        return _set_power_limit(ctx, selected, opts.power_limit)
    if opts.query is not None or opts.apps is not None:
        if opts.fmt is None or "csv" not in opts.fmt:
            ctx.out("\"--format=\" switch is missing. Please run 'nvidia-smi -h' for help.\n")
            return 2
        fields = opts.query if opts.query is not None else opts.apps
        assert fields is not None
        known = FIELDS if opts.query is not None else APP_FIELDS
        for name in fields:
            if ALIASES.get(name, name) not in known:
                ctx.out(f'Field "{name}" is not a valid field to query.\n\n')
                return 2
    if opts.list_gpus:
        for gpu in board.visible():
            ctx.out(f"GPU {board.visible().index(gpu)}: {gpu.model.name} (UUID: {gpu.uuid})\n")
        return _lost_report(ctx, board, quiet=False)
    first = True
    while True:
        board.advance()
        selected = _select(board, opts.ids) or []
        if opts.query is not None:
            _csv_gpus(ctx, board, selected, opts.query, opts.fmt or set(), header=first)
        elif opts.apps is not None:
            _csv_apps(ctx, board, selected, opts.apps, opts.fmt or set(), header=first)
        elif opts.full:
            ctx.out(_full_query(board, selected, opts.display))
        else:
            ctx.out(_table(ctx, board, selected))
        status = _lost_report(ctx, board, quiet=False)
        first = False
        if opts.loop_s is None:
            return status
        if ctx.wait(max(0.01, opts.loop_s)):
            return ctx.killed_status()


def _lost_report(ctx: Ctx, board: GpuBoard, *, quiet: bool) -> int:
    lost = [g for g in board.gpus if g.lost]
    for gpu in lost:
        ctx.err(
            f"Unable to determine the device handle for GPU 0000:{gpu.bus:02X}:00.0: GPU is lost."
            "  Reboot the system to recover this GPU\n"
        )
    return 15 if lost else 0


def _select(board: GpuBoard, ids: list[str] | None) -> list[Gpu] | None:
    visible = board.visible()
    if not ids:
        return visible
    chosen: list[Gpu] = []
    for ident in ids:
        match: Gpu | None = None
        if ident.isdigit() and int(ident) < len(visible):
            match = visible[int(ident)]
        else:
            for gpu in visible:
                if ident in (gpu.uuid, gpu.bus_id, gpu.bus_id[4:], gpu.serial):
                    match = gpu
        if match is None:
            return None
        chosen.append(match)
    return chosen


def _csv_gpus(
    ctx: Ctx, board: GpuBoard, gpus: list[Gpu], names: list[str], fmt: set[str], *, header: bool
) -> None:
    with_units = "nounits" not in fmt
    fields = [(ALIASES.get(n, n), FIELDS[ALIASES.get(n, n)]) for n in names]
    if header and "noheader" not in fmt:
        ctx.out(", ".join(f"{key} [{f.unit}]" if f.unit else key for key, f in fields) + "\n")
    lines = []
    with board.lock:
        for gpu in gpus:
            lines.append(
                ", ".join(_render(f.get(gpu, board), f.unit, with_units) for _, f in fields)
            )
    ctx.out("".join(line + "\n" for line in lines))


def _csv_apps(
    ctx: Ctx, board: GpuBoard, gpus: list[Gpu], names: list[str], fmt: set[str], *, header: bool
) -> None:
    with_units = "nounits" not in fmt
    if header and "noheader" not in fmt:
        cols = []
        for name in names:
            unit = APP_FIELDS[name][0]
            cols.append(f"{name} [{unit}]" if unit else name)
        ctx.out(", ".join(cols) + "\n")
    with board.lock:
        for gpu in gpus:
            for load in gpu.loads.values():
                cells = []
                for name in names:
                    unit, get = APP_FIELDS[name]
                    value = get(gpu, load.pid, load.process_name, load.mem_mib)
                    if name == "timestamp":
                        value = _timestamp(board.now())
                    cells.append(_render(value, unit, with_units))
                ctx.out(", ".join(cells) + "\n")


def _set_persistence(ctx: Ctx, gpus: list[Gpu], mode: str) -> int:
    on = mode.strip() in ("1", "ENABLED", "Enabled", "enabled")
    for gpu in gpus:
        gpu.persistence = on
        state = "Enabled" if on else "Disabled"
        ctx.out(f"{state} persistence mode for GPU {gpu.bus_id}.\n")
    ctx.out("All done.\n")
    return 0


def _set_power_limit(ctx: Ctx, gpus: list[Gpu], watts: float) -> int:
    for gpu in gpus:
        low, high = gpu.model.power_min_w, gpu.model.power_limit_w
        if not low <= watts <= high:
            ctx.out(
                f"Provided power limit {watts:.2f} W is not a valid power limit which should be "
                f"between {low:.2f} W and {high:.2f} W for GPU {gpu.bus_id}\n"
                "Terminating early due to previous errors.\n"
            )
            return 2
    board = ctx.machine.gpus
    with board.lock:
        board.advance()
        for gpu in gpus:
            old = gpu.power_limit_w
            gpu.power_limit_w = watts
            ctx.out(
                f"Power limit for GPU {gpu.bus_id} was set to {watts:.2f} W from {old:.2f} W.\n"
            )
    ctx.out("All done.\n")
    return 0


# -- topology ----------------------------------------------------------------------------------


def _numa_of(index: int, count: int) -> int:
    return 0 if index < max(1, count // 2) else 1


def _topo(ctx: Ctx) -> int:
    machine = ctx.machine
    gpus = machine.gpus.visible()
    nics = [n.name for n in machine.net.nics]
    total = len(machine.gpus.gpus)
    cpus = machine.shape.cpus
    quarter = max(1, cpus // 4)
    affinity = [
        f"0-{quarter - 1},{2 * quarter}-{3 * quarter - 1}",
        f"{quarter}-{2 * quarter - 1},{3 * quarter}-{cpus - 1}",
    ]
    labels = [f"GPU{i}" for i in range(len(gpus))] + [f"NIC{j}" for j in range(len(nics))]
    nodes: list[tuple[str, int, int]] = [("gpu", g.index, _numa_of(g.index, total)) for g in gpus]
    for j in range(len(nics)):
        near_gpu = min(total - 1, j * max(1, total // max(1, len(nics))))
        nodes.append(("nic", near_gpu, _numa_of(near_gpu, total)))
    nvlink = machine.gpus.model.nvlink

    def link(a: tuple[str, int, int], b: tuple[str, int, int]) -> str:
        if a == b:
            return " X "
        if a[0] == "gpu" and b[0] == "gpu":
            if nvlink:
                return f"NV{nvlink}"
            return "NODE" if a[2] == b[2] else "SYS"
        if a[2] != b[2]:
            return "SYS"
        if a[0] != b[0] and a[1] // 2 == b[1] // 2:
            return "PIX"
        return "NODE"

    header = "\t" + "\t".join(labels) + "\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID"
    lines = [header]
    for label, node in zip(labels, nodes, strict=True):
        cells = [link(node, other) for other in nodes]
        row = f"{label}\t" + "\t".join(cells)
        if node[0] == "gpu":
            row += f"\t{affinity[node[2]]}\t{node[2]}\t\tN/A"
        lines.append(row)
    lines += [
        "",
        "Legend:",
        "",
        "  X    = Self",
        "  SYS  = Connection traversing PCIe as well as the SMP interconnect between NUMA nodes "
        "(e.g., QPI/UPI)",
        "  NODE = Connection traversing PCIe as well as the interconnect between PCIe Host Bridges "
        "within a NUMA node",
        "  PHB  = Connection traversing PCIe as well as a PCIe Host Bridge (typically the CPU)",
        "  PXB  = Connection traversing multiple PCIe bridges (without traversing the PCIe Host "
        "Bridge)",
        "  PIX  = Connection traversing at most a single PCIe bridge",
        "  NV#  = Connection traversing a bonded set of # NVLinks",
    ]
    if nics:
        lines += ["", "NIC Legend:", ""] + [f"  NIC{j}: {name}" for j, name in enumerate(nics)]
    ctx.out("\n".join(lines) + "\n")
    return 0


# -- nvidia-smi -q -----------------------------------------------------------------------------


def _kv(level: int, key: str, value: object | None = None) -> str:
    pad = "    " * level + key
    if value is None:
        return pad
    return f"{pad:<42}: {value}"


def _full_query(board: GpuBoard, gpus: list[Gpu], display: set[str] | None) -> str:
    now = board.now()
    want = display or set()

    def show(section: str) -> bool:
        return not want or section in want

    lines = [
        "",
        "==============NVSMI LOG==============",
        "",
        _kv(0, "Timestamp", time.strftime("%a %b %d %H:%M:%S %Y", time.gmtime(now))),
        _kv(0, "Driver Version", DRIVER_VERSION),
        _kv(0, "CUDA Version", CUDA_VERSION),
        "",
        _kv(0, "Attached GPUs", len(board.visible())),
    ]
    for gpu in gpus:
        m = gpu.model
        lines.append(f"GPU {gpu.bus_id}")
        if not want:
            lines += [
                _kv(1, "Product Name", m.name),
                _kv(1, "Product Brand", "GeForce" if m.consumer else "NVIDIA"),
                _kv(1, "Product Architecture", m.architecture),
                _kv(1, "Display Mode", "Disabled"),
                _kv(1, "Display Active", "Disabled"),
                _kv(1, "Persistence Mode", "Enabled" if gpu.persistence else "Disabled"),
                _kv(1, "MIG Mode"),
                _kv(2, "Current", "Disabled" if m.hbm else "N/A"),
                _kv(2, "Pending", "Disabled" if m.hbm else "N/A"),
                _kv(1, "Accounting Mode", "Disabled"),
                _kv(1, "Accounting Mode Buffer Size", 4000),
                _kv(1, "Serial Number", gpu.serial),
                _kv(1, "GPU UUID", gpu.uuid),
                _kv(1, "Minor Number", gpu.index),
                _kv(1, "VBIOS Version", m.vbios),
                _kv(1, "MultiGPU Board", "No"),
                _kv(1, "Board ID", f"0x{gpu.bus:x}00"),
                _kv(1, "PCI"),
                _kv(2, "Bus", f"0x{gpu.bus:02X}"),
                _kv(2, "Device", "0x00"),
                _kv(2, "Domain", "0x0000"),
                _kv(2, "Device Id", m.pci_device_id),
                _kv(2, "Bus Id", gpu.bus_id),
                _kv(1, "Fan Speed", f"{gpu.fan_percent()} %" if m.has_fan else "N/A"),
            ]
        if show("PERFORMANCE"):
            reasons = gpu.reasons()

            def state(bit: int, reasons: int = reasons) -> str:
                return "Active" if reasons & bit else "Not Active"

            lines += [
                _kv(1, "Performance State", gpu.pstate()),
                _kv(1, "Clocks Event Reasons"),
                _kv(2, "Idle", state(REASON_GPU_IDLE)),
                _kv(2, "Applications Clocks Setting", state(REASON_APP_CLOCKS)),
                _kv(2, "SW Power Cap", state(REASON_SW_POWER_CAP)),
                _kv(2, "HW Slowdown", state(REASON_HW_SLOWDOWN)),
                _kv(3, "HW Thermal Slowdown", state(REASON_HW_THERMAL)),
                _kv(3, "HW Power Brake Slowdown", state(REASON_HW_POWER_BRAKE)),
                _kv(2, "Sync Boost", state(REASON_SYNC_BOOST)),
                _kv(2, "SW Thermal Slowdown", state(REASON_SW_THERMAL)),
                _kv(2, "Display Clock Setting", state(REASON_DISPLAY_CLOCK)),
                _kv(1, "Clocks Event Reasons Counters"),
                _kv(2, "SW Power Capping", f"{int(gpu.counter_sw_power_us)} us"),
                _kv(2, "Sync Boost", "0 us"),
                _kv(2, "SW Thermal Slowdown", f"{int(gpu.counter_sw_thermal_us)} us"),
                _kv(2, "HW Thermal Slowdown", f"{int(gpu.counter_hw_thermal_us)} us"),
                _kv(2, "HW Power Braking", "0 us"),
                _kv(1, "Sparse Operation Mode", "N/A"),
            ]
        if show("MEMORY"):
            lines += [
                _kv(1, "FB Memory Usage"),
                _kv(2, "Total", f"{m.memory_mib} MiB"),
                _kv(2, "Reserved", f"{gpu.memory_reserved_mib} MiB"),
                _kv(2, "Used", f"{gpu.memory_used_mib} MiB"),
                _kv(2, "Free", f"{gpu.memory_free_mib} MiB"),
            ]
        if not want:
            lines.append(_kv(1, "Compute Mode", "Default"))
        if show("UTILIZATION"):
            lines += [
                _kv(1, "Utilization"),
                _kv(2, "Gpu", f"{_pct(gpu.util)} %"),
                _kv(2, "Memory", f"{_pct(gpu.mem_util)} %"),
                _kv(2, "Encoder", "0 %"),
                _kv(2, "Decoder", "0 %"),
            ]
        if show("ECC"):
            lines += _ecc_section(gpu)
        if not want or "PAGE_RETIREMENT" in want or "ROW_REMAPPER" in want:
            lines += [
                _kv(1, "Retired Pages"),
                _kv(2, "Single Bit ECC", "N/A"),
                _kv(2, "Double Bit ECC", "N/A"),
                _kv(2, "Pending Page Blacklist", "N/A"),
                _kv(1, "Remapped Rows", None if m.ecc else "N/A"),
            ]
            if m.ecc:
                lines += [
                    _kv(2, "Correctable Error", gpu.remap_correctable),
                    _kv(2, "Uncorrectable Error", gpu.remap_uncorrectable),
                    _kv(2, "Pending", "Yes" if gpu.remap_pending else "No"),
                    _kv(2, "Remapping Failure Occurred", "Yes" if gpu.remap_failure else "No"),
                ]
        if show("TEMPERATURE"):
            mem_temp = gpu.temp_memory_c()
            lines += [
                _kv(1, "Temperature"),
                _kv(2, "GPU Current Temp", f"{round(gpu.temp_c)} C"),
                _kv(2, "GPU T.Limit Temp", f"{max(0, 87 - round(gpu.temp_c))} C"),
                _kv(2, "GPU Shutdown Temp", "92 C"),
                _kv(2, "GPU Slowdown Temp", "89 C"),
                _kv(2, "GPU Max Operating Temp", "87 C"),
                _kv(2, "GPU Target Temperature", "N/A"),
                _kv(2, "Memory Current Temp", f"{mem_temp} C" if mem_temp is not None else "N/A"),
                _kv(2, "Memory Max Operating Temp", "95 C" if m.hbm else "N/A"),
            ]
        if show("POWER"):
            lines += [
                _kv(1, "GPU Power Readings"),
                _kv(2, "Power Draw", f"{gpu.power_w:.2f} W"),
                _kv(2, "Current Power Limit", f"{gpu.power_limit_w:.2f} W"),
                _kv(2, "Requested Power Limit", f"{gpu.power_limit_w:.2f} W"),
                _kv(2, "Default Power Limit", f"{m.power_limit_w:.2f} W"),
                _kv(2, "Min Power Limit", f"{m.power_min_w:.2f} W"),
                _kv(2, "Max Power Limit", f"{m.power_limit_w:.2f} W"),
            ]
        if show("CLOCK"):
            lines += [
                _kv(1, "Clocks"),
                _kv(2, "Graphics", f"{gpu.sm_clock()} MHz"),
                _kv(2, "SM", f"{gpu.sm_clock()} MHz"),
                _kv(2, "Memory", f"{gpu.mem_clock()} MHz"),
                _kv(2, "Video", f"{1545 if gpu.busy else 765} MHz"),
                _kv(1, "Max Clocks"),
                _kv(2, "Graphics", f"{m.sm_clock_max} MHz"),
                _kv(2, "SM", f"{m.sm_clock_max} MHz"),
                _kv(2, "Memory", f"{m.mem_clock} MHz"),
                _kv(2, "Video", "1545 MHz"),
            ]
        if not want or "PIDS" in want:
            if gpu.loads:
                lines.append(_kv(1, "Processes"))
                for load in gpu.loads.values():
                    lines += [
                        _kv(2, "GPU instance ID", "N/A"),
                        _kv(2, "Compute instance ID", "N/A"),
                        _kv(2, "Process ID", load.pid),
                        _kv(3, "Type", "C"),
                        _kv(3, "Name", load.process_name),
                        _kv(3, "Used GPU Memory", f"{load.mem_mib} MiB"),
                    ]
            else:
                lines.append(_kv(1, "Processes", "None"))
        lines.append("")
    return "\n".join(lines) + "\n"


def _ecc_section(gpu: Gpu) -> list[str]:
    if not gpu.model.ecc:
        return [
            _kv(1, "ECC Mode"),
            _kv(2, "Current", "N/A"),
            _kv(2, "Pending", "N/A"),
            _kv(1, "ECC Errors", "N/A"),
        ]
    return [
        _kv(1, "ECC Mode"),
        _kv(2, "Current", "Enabled"),
        _kv(2, "Pending", "Enabled"),
        _kv(1, "ECC Errors"),
        _kv(2, "Volatile"),
        _kv(3, "SRAM Correctable", 0),
        _kv(3, "SRAM Uncorrectable Parity", 0),
        _kv(3, "SRAM Uncorrectable SEC-DED", 0),
        _kv(3, "DRAM Correctable", gpu.ecc_corrected_volatile),
        _kv(3, "DRAM Uncorrectable", gpu.ecc_uncorrected_volatile),
        _kv(2, "Aggregate"),
        _kv(3, "SRAM Correctable", 0),
        _kv(3, "SRAM Uncorrectable Parity", 0),
        _kv(3, "SRAM Uncorrectable SEC-DED", 0),
        _kv(3, "DRAM Correctable", gpu.ecc_corrected_aggregate),
        _kv(3, "DRAM Uncorrectable", gpu.ecc_uncorrected_aggregate),
        _kv(3, "SRAM Threshold Exceeded", "No"),
        _kv(2, "Aggregate Uncorrectable SRAM Sources"),
        _kv(3, "SRAM L2", 0),
        _kv(3, "SRAM SM", 0),
        _kv(3, "SRAM Microcontroller", 0),
        _kv(3, "SRAM PCIE", 0),
        _kv(3, "SRAM Other", 0),
    ]


# -- the default table -------------------------------------------------------------------------

_RULE = "+" + "-" * 41 + "+" + "-" * 24 + "+" + "-" * 22 + "+"


def _row(first: str, second: str, third: str) -> str:
    return f"|{first:<41}|{second:<24}|{third:<22}|"


def _table(ctx: Ctx, board: GpuBoard, gpus: list[Gpu]) -> str:
    now = board.now()
    out = [
        time.strftime("%a %b %d %H:%M:%S %Y", time.gmtime(now)) + "       ",
        "+" + "-" * 89 + "+",
        f"| NVIDIA-SMI {DRIVER_VERSION:<23}Driver Version: {DRIVER_VERSION:<15}"
        f"CUDA Version: {CUDA_VERSION:<9}|",
        "|" + _RULE[1:],
        _row(
            " GPU  Name                 Persistence-M ",
            " Bus-Id          Disp.A ",
            " Volatile Uncorr. ECC ",
        ),
        _row(
            " Fan  Temp   Perf          Pwr:Usage/Cap ",
            "           Memory-Usage ",
            " GPU-Util  Compute M. ",
        ),
        _row("", "", "               MIG M. "),
        "|" + _RULE[1:-1].replace("-", "=") + "|",
    ]
    visible = board.visible()
    for gpu in gpus:
        m = gpu.model
        left = f"{visible.index(gpu):>4}  {m.name[:25]}"
        cell1 = left + f"{'On' if gpu.persistence else 'Off'} ".rjust(41 - len(left))
        ecc = str(gpu.ecc_uncorrected_volatile) if m.ecc else "N/A"
        out.append(f"|{cell1}|{gpu.bus_id:>19} Off |{ecc:>21} |")
        fan = f"{gpu.fan_percent()}%" if m.has_fan else "N/A"
        head = f" {fan:>3}  {round(gpu.temp_c):>3}C    {gpu.pstate()}"
        power = f"{round(gpu.power_w)}W / {int(gpu.power_limit_w):>4}W "
        mem = f"{gpu.memory_used_mib:>8}MiB / {m.memory_mib:>6}MiB "
        util = f"{_pct(gpu.util):>7}%{'Default':>13} "
        out.append(f"|{head}{power.rjust(41 - len(head))}|{mem:>24}|{util:>22}|")
        mig = "Disabled" if m.hbm else "N/A"
        out.append(f"|{'':41}|{'':24}|{mig:>21} |")
        out.append(_RULE)
    out += [
        "",
        "+" + "-" * 89 + "+",
        "| Processes:" + " " * 78 + "|",
        "|  GPU   GI   CI        PID   Type   Process name" + " " * 30 + "GPU Memory |",
        "|        ID   ID" + " " * 63 + "Usage      |",
        "|" + "=" * 89 + "|",
    ]
    rows = 0
    for gpu in gpus:
        for load in gpu.loads.values():
            left = (
                f"  {visible.index(gpu):>3}   N/A  N/A  {load.pid:>9}      C   {load.process_name}"
            )
            right = f"{load.mem_mib}MiB |"
            out.append("|" + left.ljust(89 - len(right) + 1) + right)
            rows += 1
    if not rows:
        out.append("|  No running processes found" + " " * 61 + "|")
    out.append("+" + "-" * 89 + "+")
    return "\n".join(out) + "\n"


COMMANDS = {"nvidia-smi": nvidia_smi}
