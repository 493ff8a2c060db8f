"""DCGM's profiling fields, read from `dcgmi dmon` or a DCGM exporter's /metrics (issue 34).

nvidia-smi's utilization counts the time any kernel runs, so a busy loop reads
100%. DCGM's profiling fields say how much work is done: SM active (field
1002, ``DCGM_FI_PROF_SM_ACTIVE``), tensor pipe active (1004,
``DCGM_FI_PROF_PIPE_TENSOR_ACTIVE``) and DRAM active (1005,
``DCGM_FI_PROF_DRAM_ACTIVE``), each a ratio 0..1.

Shapes (sources in docs/telemetry.md): ``dcgmi dmon -e 1002,1004,1005 -c 1``
prints a ``#Entity   SMACT  TENSO  DRAMA`` header, an ``ID`` line and one
``GPU 0   0.912  0.521  0.301`` row per GPU (``N/A`` where a value is
missing); the exporter prints Prometheus text such as
``DCGM_FI_PROF_SM_ACTIVE{gpu="0",UUID="GPU-...",...} 0.912``. Read without
ever raising: anything else gives no reading.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

FIELD_IDS = (1002, 1004, 1005)
#: One sample of the three fields; the exporter where dcgmi is missing (its default port).
DCGM_COMMAND = (
    "dcgmi dmon -e 1002,1004,1005 -c 1 2>/dev/null"
    " || curl -sf --max-time 2 http://localhost:9400/metrics"
)

_COLUMNS = {"SMACT": "sm_active", "TENSO": "tensor_active", "DRAMA": "dram_active"}
_METRICS = {
    "DCGM_FI_PROF_SM_ACTIVE": "sm_active",
    "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE": "tensor_active",
    "DCGM_FI_PROF_DRAM_ACTIVE": "dram_active",
}
_ROW_RE = re.compile(r"^GPU\s+(\d+)\s+(.*)$")
_METRIC_RE = re.compile(r"^(DCGM_FI_PROF_\w+)\{([^}]*)\}\s+(\S+)")
_GPU_LABEL_RE = re.compile(r'(?:^|,)\s*gpu="(\d+)"')


@dataclass(frozen=True)
class DcgmGpu:
    """One GPU's profiling ratios (0..1; NaN where the node gave none)."""

    gpu: int
    sm_active: float = math.nan
    tensor_active: float = math.nan
    dram_active: float = math.nan

    @property
    def complete(self) -> bool:
        return not (math.isnan(self.sm_active) or math.isnan(self.tensor_active))


def _ratio(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        return math.nan
    if math.isnan(value) or value < 0:
        return math.nan
    return value / 100 if value > 1.0 else value  # a few builds print percent


def parse_dmon(text: str) -> list[DcgmGpu]:
    """The last row of each GPU from `dcgmi dmon` output."""
    columns: list[str] = []
    found: dict[int, DcgmGpu] = {}
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("#Entity"):
            columns = line.split()[1:]
            continue
        match = _ROW_RE.match(line)
        if match is None or not columns:
            continue
        cells = match.group(2).split()
        values = {
            _COLUMNS[name]: _ratio(cell)
            for name, cell in zip(columns, cells, strict=False)
            if name in _COLUMNS
        }
        gpu = int(match.group(1))
        found[gpu] = DcgmGpu(gpu, **values)
    return [found[g] for g in sorted(found)]


def parse_exporter(text: str) -> list[DcgmGpu]:
    """The profiling gauges of a DCGM exporter's /metrics page, by GPU."""
    values: dict[int, dict[str, float]] = {}
    for raw in text.splitlines():
        match = _METRIC_RE.match(raw.strip())
        if match is None or match.group(1) not in _METRICS:
            continue
        gpu = _GPU_LABEL_RE.search(match.group(2))
        if gpu is None:
            continue
        values.setdefault(int(gpu.group(1)), {})[_METRICS[match.group(1)]] = _ratio(match.group(3))
    return [DcgmGpu(g, **values[g]) for g in sorted(values)]


def parse_dcgm(text: str) -> list[DcgmGpu]:
    """Whichever of the two shapes the node printed; [] when neither (no DCGM there)."""
    if "#Entity" in text:
        return parse_dmon(text)
    return parse_exporter(text)
