"""Per-rank step timings, one line per rank and step, as XyClaw's timing hook prints them.

Most training logs print rank 0 only, and rank 0's step time is every rank's in a
synchronous job (they wait for each other). What tells a slow rank is the time each rank
spends *before* it waits: its compute. The hook prints
``xyclaw-step rank=<R> step=<S> compute_s=<seconds>`` (after any launcher prefix such as
torchrun's ``[default3]:``); issue 34.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_LINE = re.compile(r"xyclaw-step rank=(\d+) step=(\d+) compute_s=(\d+(?:\.\d+)?(?:[eE]-?\d+)?)")


@dataclass(frozen=True, slots=True)
class StepTime:
    rank: int
    step: int
    seconds: float


def parse_step_time(line: str) -> StepTime | None:
    """The timing in ``line``, or None for any other line (never raises)."""
    if "xyclaw-step" not in line:
        return None
    m = _LINE.search(line)
    if m is None:
        return None
    return StepTime(int(m.group(1)), int(m.group(2)), float(m.group(3)))
