"""The kernel log of a simulated node and the NVRM Xid lines the GPU driver writes there."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from xyclaw.sim.specs import DRIVER_VERSION, KERNEL_RELEASE

# What the driver says after "NVRM: Xid (PCI:...): <code>, pid=..., " (reference-figures.md).
XID_TEXT: dict[int, str] = {
    13: "Graphics SM Warp Exception on (GPC 4, TPC 1, SM 0): Out Of Range Address",
    31: "Ch 00000008, intr 00000000. MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_0 faulted @ "
    "0x7f3a_6c000000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ",
    43: "Ch 00000008",
    45: "Ch 00000010",
    48: "An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer "
    "at partition 6, subpartition 0.",
    63: "Row Remapper: New row marked for remapping, reset gpu to activate.",
    64: "Row Remapper: Failed to remap a row, reset gpu to activate.",
    74: "NVLink: fatal error detected on link 3(0x0, 0x0, 0x10000, 0x0, 0x0, 0x0, 0x0)",
    79: "GPU has fallen off the bus.",
    92: "High single-bit ECC error rate detected.",
    94: "Contained: SM (0x1). RST: No, D-RST: No",
    95: "Uncontained: FBHUB. RST: Yes, D-RST: No",
    119: "Timeout after 6s of waiting for RPC response from GPU GSP! Expected function 76 "
    "(GSP_RM_CONTROL) (0x20800a4c 0x4).",
    120: "GSP task timeout @ pc:0x1c8e8e4, task: 1",
}
# Xids whose line names the process (the others carry only a pid).
_XID_WITH_NAME = frozenset({13, 31, 43, 45, 48, 74, 94, 95, 119, 120})

# What a CUDA program sees when its GPU hits the Xid (None: the program keeps running).
XID_CUDA_ERROR: dict[int, str | None] = {
    13: "CUDA error: an illegal instruction was encountered",
    31: "CUDA error: an illegal memory access was encountered",
    43: "CUDA error: unspecified launch failure",
    45: None,
    48: "CUDA error: uncorrectable ECC error encountered",
    63: None,
    64: None,
    74: "CUDA error: unspecified launch failure",
    79: "CUDA error: unknown error",
    92: None,
    94: "CUDA error: uncorrectable ECC error encountered",
    95: "CUDA error: uncorrectable ECC error encountered",
    119: "CUDA error: unknown error",
    120: "CUDA error: unknown error",
}


def xid_line(pci_short: str, code: int, pid: int | None, process: str | None) -> str:
    """`NVRM: Xid (PCI:0000:07:00): 79, pid=1234, GPU has fallen off the bus.`"""
    text = XID_TEXT.get(code, "Unknown Xid")
    pid_text = str(pid) if pid is not None else "'<unknown>'"
    if code in _XID_WITH_NAME:
        name = process if process else "<unknown>"
        return f"NVRM: Xid (PCI:{pci_short}): {code}, pid={pid_text}, name={name}, {text}"
    return f"NVRM: Xid (PCI:{pci_short}): {code}, pid={pid_text}, {text}"


@dataclass(frozen=True)
class LogLine:
    uptime: float
    level: str  # err, warn, info
    text: str


class KernelLog:
    """dmesg: lines stamped with seconds since boot."""

    def __init__(self, clock: Callable[[], float], boot_time: float, hostname: str) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self.boot_time = boot_time
        self._lines: list[LogLine] = []
        self._boot_lines(hostname)

    def _boot_lines(self, hostname: str) -> None:
        for uptime, level, text in (
            (
                0.0,
                "info",
                f"Linux version {KERNEL_RELEASE} (buildd@lcy02-amd64-034) (gcc (Ubuntu "
                "11.4.0-1ubuntu1~22.04) 11.4.0, GNU ld (GNU Binutils for Ubuntu) 2.38) "
                "#132-Ubuntu SMP Thu Aug 29 13:45:52 UTC 2024",
            ),
            (
                0.0,
                "info",
                f"Command line: BOOT_IMAGE=/vmlinuz-{KERNEL_RELEASE} root=/dev/nvme0n1p2"
                " ro iommu=pt",
            ),
            (4.118304, "info", "nvidia: loading out-of-tree module taints kernel."),
            (
                4.372111,
                "info",
                f"NVRM: loading NVIDIA UNIX x86_64 Kernel Module  {DRIVER_VERSION}"
                "  Tue Oct  1 21:03:56 UTC 2024",
            ),
            (6.902417, "info", "mlx5_core: mlx5_core loaded"),
            (9.514092, "info", f"systemd[1]: Set hostname to <{hostname}>."),
        ):
            self._lines.append(LogLine(uptime, level, text))

    def write(self, text: str, level: str = "warn") -> None:
        with self._lock:
            self._lines.append(LogLine(self._clock() - self.boot_time, level, text))

    def clear(self) -> None:
        with self._lock:
            self._lines.clear()

    def lines(self) -> list[LogLine]:
        with self._lock:
            return list(self._lines)

    def render(self, *, human_time: bool = False, iso: bool = False, levels: bool = False) -> str:
        out = [
            self.render_line(line, human_time=human_time, iso=iso, levels=levels)
            for line in self.lines()
        ]
        return "\n".join(out) + ("\n" if out else "")

    def render_line(
        self, line: LogLine, *, human_time: bool = False, iso: bool = False, levels: bool = False
    ) -> str:
        """One line as `dmesg` prints it: `[  123.456789] text`, or with -T / --time-format iso."""
        prefix = f"kern  :{line.level:<6}: " if levels else ""
        when = self.boot_time + line.uptime
        if human_time:
            return (
                f"{prefix}[{time.strftime('%a %b %d %H:%M:%S %Y', time.gmtime(when))}] {line.text}"
            )
        if iso:
            stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(when))
            return f"{prefix}{stamp},{int((when % 1) * 1e6):06d}+00:00 {line.text}"
        secs = int(line.uptime)
        micros = round((line.uptime - secs) * 1e6) % 1000000
        return f"{prefix}[{secs:5d}.{micros:06d}] {line.text}"
