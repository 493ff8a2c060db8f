"""GPU state and physics of a simulated node.

Values are integrated lazily from the node's clock whenever someone looks,
so a node with nobody watching costs nothing. Utilization follows the
workload within a fraction of a second, power follows utilization between
idle and the board limit, temperature follows power with a lag of tens of
seconds, and memory follows what the processes hold.
"""

from __future__ import annotations

import math
import random
import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field

from xyclaw.sim.specs import GpuModel

AMBIENT_C = 28.0
FULL_LOAD_RISE_C = 42.0  # temperature above ambient at the board power limit
THROTTLE_TEMP_C = 91.0

UTIL_TAU_S = 0.3
POWER_TAU_S = 0.5
TEMP_TAU_S = 25.0

# NVML clock event reasons (reference-figures.md)
REASON_GPU_IDLE = 0x1
REASON_APP_CLOCKS = 0x2
REASON_SW_POWER_CAP = 0x4
REASON_HW_SLOWDOWN = 0x8
REASON_SYNC_BOOST = 0x10
REASON_SW_THERMAL = 0x20
REASON_HW_THERMAL = 0x40
REASON_HW_POWER_BRAKE = 0x80
REASON_DISPLAY_CLOCK = 0x100
REASONS_SUPPORTED = 0x1FF

# Bus numbers of the GPUs in typical 8-GPU servers.
_BUSES_HGX_HOPPER = (0x18, 0x2A, 0x3A, 0x5D, 0x9A, 0xAB, 0xBA, 0xDB)
_BUSES_HGX_AMPERE = (0x07, 0x0F, 0x47, 0x4E, 0x87, 0x90, 0xB7, 0xBD)
_BUSES_PCIE = (0x1A, 0x1B, 0x3D, 0x3E, 0x88, 0x89, 0xB1, 0xB2)


@dataclass
class Load:
    """What one process asks of one GPU."""

    pid: int
    process_name: str
    util: float  # 0..100, how busy the GPU would be with this process alone
    mem_mib: int
    intensity: float = 0.9  # 0..1, how hard the kernels push power at full utilization
    mem_util: float = 35.0
    on_error: Callable[[int, str], None] | None = None  # (gpu index, CUDA error text)
    # DCGM's profiling view at full utilization (issue 34): the share of SMs with work and
    # of cycles the tensor pipe is busy. None: as hard as the kernels push power.
    sm_active: float | None = None
    tensor_active: float = 0.0


@dataclass
class Gpu:
    """One board: identity, physical state and fault flags."""

    index: int
    model: GpuModel
    uuid: str
    bus: int
    serial: str
    power_limit_w: float
    util: float = 0.0
    mem_util: float = 0.0
    power_w: float = 0.0
    temp_c: float = AMBIENT_C + 6.0
    lost: bool = False
    thermal_fault: bool = False
    straggler: bool = False
    persistence: bool = True
    ecc_corrected_volatile: int = 0
    ecc_corrected_aggregate: int = 0
    ecc_uncorrected_volatile: int = 0
    ecc_uncorrected_aggregate: int = 0
    remap_correctable: int = 0
    remap_uncorrectable: int = 0
    remap_pending: bool = False
    remap_failure: bool = False
    power_cap_active: bool = False
    counter_sw_power_us: float = 0.0
    counter_sw_thermal_us: float = 0.0
    counter_hw_thermal_us: float = 0.0
    # DCGM profiling fields (ratios 0..1): SM active (1002), tensor pipe (1004), DRAM (1005)
    sm_active: float = 0.0
    tensor_active: float = 0.0
    dram_active: float = 0.0
    loads: dict[int, Load] = field(default_factory=dict)

    @property
    def bus_id(self) -> str:
        """The bus id as nvidia-smi prints it: 00000000:07:00.0."""
        return f"00000000:{self.bus:02X}:00.0"

    @property
    def pci_short(self) -> str:
        """The bus id as the kernel log and nccl-tests print it: 0000:07:00."""
        return f"0000:{self.bus:02x}:00"

    @property
    def memory_reserved_mib(self) -> int:
        return round(self.model.memory_mib * 0.0059)

    @property
    def memory_used_mib(self) -> int:
        return min(
            self.model.memory_mib - self.memory_reserved_mib,
            sum(load.mem_mib for load in self.loads.values()),
        )

    @property
    def memory_free_mib(self) -> int:
        return self.model.memory_mib - self.memory_reserved_mib - self.memory_used_mib

    @property
    def busy(self) -> bool:
        return bool(self.loads)

    def reasons(self) -> int:
        """The active clock event reasons as the NVML bitmask."""
        bits = 0
        if not self.loads and self.util < 1.0:
            bits |= REASON_GPU_IDLE
        if self.power_cap_active:
            bits |= REASON_SW_POWER_CAP
        if self.thermal_fault:
            bits |= REASON_HW_SLOWDOWN | REASON_SW_THERMAL | REASON_HW_THERMAL
        return bits

    def sm_clock(self) -> int:
        if not self.loads and self.util < 1.0:
            return self.model.sm_clock_idle
        clock = float(self.model.sm_clock_max)
        if self.power_cap_active:
            clock *= 0.92
        if self.thermal_fault:
            clock *= 0.6
        return int(round(clock / 15.0) * 15)

    def mem_clock(self) -> int:
        if not self.loads and self.util < 1.0:
            return self.model.mem_clock_idle
        return self.model.mem_clock

    def perf_factor(self) -> float:
        """How fast this GPU computes compared with a healthy one (1.0)."""
        factor = self.sm_clock() / self.model.sm_clock_max if self.loads else 1.0
        if self.straggler:
            factor *= 0.6
        return max(0.05, factor)

    def pstate(self) -> str:
        if self.model.consumer:
            return "P2" if self.loads else "P8"
        return "P0"

    def fan_percent(self) -> int | None:
        if not self.model.has_fan:
            return None
        return int(min(100.0, max(30.0, 30.0 + (self.temp_c - 40.0) * 1.6)))

    def temp_memory_c(self) -> int | None:
        return round(self.temp_c + 4.0) if self.model.hbm else None


def _approach(value: float, target: float, dt: float, tau: float) -> float:
    if dt <= 0:
        return value
    return target + (value - target) * math.exp(-dt / tau)


class GpuBoard:
    """All GPUs of one node, integrated together under one lock."""

    def __init__(
        self,
        model: GpuModel,
        count: int,
        *,
        hostname: str,
        clock: Callable[[], float],
    ) -> None:
        self.model = model
        self._clock = clock
        self._lock = threading.RLock()
        self._rng = random.Random(f"{hostname}/gpus")
        if model.nvlink and model.hbm:
            buses = _BUSES_HGX_HOPPER if model.architecture == "Hopper" else _BUSES_HGX_AMPERE
        else:
            buses = _BUSES_PCIE
        self.gpus: list[Gpu] = []
        for i in range(count):
            bus = buses[i] if i < len(buses) else 0xC0 + i
            ident = uuid.uuid5(uuid.NAMESPACE_DNS, f"{hostname}.gpu{i}.xyclaw-sim")
            gpu = Gpu(
                index=i,
                model=model,
                uuid=f"GPU-{ident}",
                bus=bus,
                serial=str(1650000000000 + (int(ident.hex[:8], 16) % 999999999)),
                power_limit_w=model.power_limit_w,
            )
            gpu.power_w = model.idle_power_w
            self.gpus.append(gpu)
        self._last = clock()

    @property
    def lock(self) -> threading.RLock:
        return self._lock

    def now(self) -> float:
        return self._clock()

    def visible(self) -> list[Gpu]:
        """The GPUs the driver still sees (a GPU that fell off the bus is gone)."""
        return [g for g in self.gpus if not g.lost]

    def advance(self) -> None:
        """Integrate every GPU up to the clock's now."""
        with self._lock:
            now = self._clock()
            dt = now - self._last
            if dt <= 0:
                return
            self._last = now
            for gpu in self.gpus:
                self._step(gpu, dt)

    def _step(self, gpu: Gpu, dt: float) -> None:
        if gpu.lost:
            return
        model = gpu.model
        target_util = min(100.0, sum(load.util for load in gpu.loads.values()))
        intensity = max((load.intensity for load in gpu.loads.values()), default=0.0)
        target_mem_util = min(100.0, sum(load.mem_util for load in gpu.loads.values()))
        if gpu.straggler and gpu.loads:
            target_util *= 0.6
            target_mem_util *= 0.6
        gpu.util = _approach(gpu.util, target_util, dt, UTIL_TAU_S)
        gpu.mem_util = _approach(gpu.mem_util, target_mem_util, dt, UTIL_TAU_S)
        self._step_profile(gpu, dt)
        demand = model.idle_power_w + (model.power_limit_w - model.idle_power_w) * intensity * (
            gpu.util / 100.0
        )
        if gpu.thermal_fault:
            demand = model.idle_power_w + (demand - model.idle_power_w) * 0.7
        cap = gpu.power_limit_w * 0.985
        gpu.power_cap_active = bool(gpu.loads) and demand > cap
        target_power = min(demand, cap)
        gpu.power_w = _approach(gpu.power_w, target_power, dt, POWER_TAU_S)
        target_temp = AMBIENT_C + FULL_LOAD_RISE_C * gpu.power_w / model.power_limit_w
        if gpu.thermal_fault:
            target_temp = THROTTLE_TEMP_C
        gpu.temp_c = _approach(gpu.temp_c, target_temp, dt, TEMP_TAU_S)
        micro = dt * 1e6
        if gpu.power_cap_active:
            gpu.counter_sw_power_us += micro
        if gpu.thermal_fault:
            gpu.counter_sw_thermal_us += micro
            gpu.counter_hw_thermal_us += micro

    def _step_profile(self, gpu: Gpu, dt: float) -> None:
        """DCGM's view follows the work, not the kernel count: a busy loop keeps nvidia-smi's
        utilization at 100% with a few SMs busy and the tensor pipe idle."""
        loads = gpu.loads.values()
        sm = sum(
            ld.util / 100 * (0.9 * ld.intensity if ld.sm_active is None else ld.sm_active)
            for ld in loads
        )
        tensor = sum(ld.util / 100 * ld.tensor_active for ld in loads)
        dram = sum(ld.mem_util / 100 * 0.8 for ld in loads)
        slow = 0.6 if gpu.straggler and gpu.loads else 1.0
        gpu.sm_active = _approach(gpu.sm_active, min(1.0, sm) * slow, dt, UTIL_TAU_S)
        gpu.tensor_active = _approach(gpu.tensor_active, min(1.0, tensor) * slow, dt, UTIL_TAU_S)
        gpu.dram_active = _approach(gpu.dram_active, min(1.0, dram) * slow, dt, UTIL_TAU_S)

    def jitter(self, value: float, spread: float) -> float:
        """A reading with measurement noise (deterministic per node)."""
        with self._lock:
            return value + self._rng.uniform(-spread, spread)

    def add_load(self, index: int, load: Load) -> None:
        with self._lock:
            self.advance()
            self.gpus[index].loads[load.pid] = load

    def remove_pid(self, pid: int) -> None:
        """Free everything a process held (it exited or was killed)."""
        with self._lock:
            self.advance()
            for gpu in self.gpus:
                gpu.loads.pop(pid, None)

    def fail_processes(self, index: int, message: str) -> list[int]:
        """Tell every process on a GPU that its CUDA context died; returns their pids."""
        with self._lock:
            loads = list(self.gpus[index].loads.values())
        for load in loads:
            if load.on_error is not None:
                load.on_error(index, message)
        return [load.pid for load in loads]

    def reset(self) -> None:
        """What a reboot does: every GPU back, volatile counters and faults cleared."""
        with self._lock:
            self.advance()
            for gpu in self.gpus:
                gpu.loads.clear()
                gpu.lost = False
                gpu.thermal_fault = False
                gpu.straggler = False
                gpu.util = 0.0
                gpu.mem_util = 0.0
                gpu.power_cap_active = False
                gpu.ecc_corrected_volatile = 0
                gpu.ecc_uncorrected_volatile = 0
                gpu.remap_pending = False
                gpu.power_limit_w = gpu.model.power_limit_w
