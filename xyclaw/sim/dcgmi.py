"""`dcgmi dmon` of a simulated data-centre node: DCGM's profiling fields beside nvidia-smi.

The shape follows DCGM's own documentation and outputs collected from real
nodes (docs/telemetry.md cites them): a ``#Entity`` header of short column
names, an ``ID`` line, then one row per GPU and sample (``GPU 0  0.912 ...``);
profiling fields are ratios 0..1. Installed where the node's spec says so
(by default on data-centre GPUs, not on GeForce boards).
"""

from __future__ import annotations

from xyclaw.sim.context import Ctx
from xyclaw.sim.gpu import Gpu

#: Field id -> (short column name, reading). Only what the simulated GPU models.
FIELDS: dict[int, tuple[str, str]] = {
    150: ("TMPTR", "temp"),
    155: ("POWER", "power"),
    203: ("GPUTL", "util"),
    1002: ("SMACT", "sm_active"),
    1004: ("TENSO", "tensor_active"),
    1005: ("DRAMA", "dram_active"),
}


def _value(gpu: Gpu, what: str, jitter: float) -> str:
    if what == "temp":
        return f"{round(gpu.temp_c)}"
    if what == "power":
        return f"{gpu.power_w:.3f}"
    if what == "util":
        return f"{round(gpu.util)}"
    ratio = max(0.0, min(1.0, float(getattr(gpu, what)) + jitter))
    return f"{ratio:.3f}"


def dcgmi(ctx: Ctx) -> int:
    args = ctx.args
    if not args or args[0] != "dmon":
        ctx.out("Usage: dcgmi [subsystem] [options]\n  (the simulated dcgmi has only dmon)\n")
        return 1 if args else 0
    ids: list[int] = []
    delay_ms = 1000.0
    count: int | None = None
    i = 1
    try:
        while i < len(args):
            key = args[i]
            value = args[i + 1] if i + 1 < len(args) else ""
            if key in ("-e", "--field-id"):
                ids = [int(x) for x in value.split(",") if x]
            elif key in ("-d", "--delay"):
                delay_ms = float(value)
            elif key in ("-c", "--count"):
                count = int(value)
            elif key in ("-i", "--entity-id", "-g", "--group-id"):
                pass
            else:
                raise ValueError(key)
            i += 2
    except ValueError:
        ctx.err("Error: invalid arguments to dcgmi dmon.\n")
        return 1
    if not ids:
        ctx.err("Error: no field ids were given (-e).\n")
        return 1
    unknown = [f for f in ids if f not in FIELDS]
    if unknown:
        ctx.err(f"Error: field id {unknown[0]} is not supported by this dcgmi.\n")
        return 1
    board = ctx.machine.gpus
    header = "#Entity   " + "".join(f"{FIELDS[f][0]:<13}" for f in ids)
    ctx.out(header.rstrip() + "\nID\n")
    done = 0
    while count is None or done < count:
        board.advance()
        rows = []
        for n, gpu in enumerate(board.visible()):
            cells = "".join(
                f"{_value(gpu, FIELDS[f][1], board.jitter(0.0, 0.01)):<13}" for f in ids
            )
            rows.append(f"GPU {n:<6}{cells}".rstrip())
        ctx.out("\n".join(rows) + "\n")
        done += 1
        if (count is None or done < count) and ctx.wait(max(0.01, delay_ms / 1000.0)):
            return 0
    return 0


COMMANDS = {"dcgmi": dcgmi}
