"""Parsed nvidia-smi readings to the store's packed records, and back to numbers for people.

A GPU keeps its slot (its position when the collector first saw the node)
for as long as its UUID (or, where the output has none, its PCI bus id) is
known: nvidia-smi renumbers the GPUs when one falls off the bus, and a chart
must not swap two cards' histories.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
import numpy.typing as npt

from xyclaw.parsers.nvsmi import GpuSample
from xyclaw.store.samples import GPU_SAMPLE_DTYPE, MISSING, GpuRecords, empty_gpu_records

#: Fields of the packed record as people read them: (record field, scale, unit).
DISPLAY_FIELDS: dict[str, tuple[str, float, str]] = {
    "util": ("util", 1.0, "%"),
    "mem_util": ("mem_util", 1.0, "%"),
    "temp_c": ("temp_c", 1.0, "C"),
    "fan": ("fan", 1.0, "%"),
    "power_w": ("power_dw", 0.1, "W"),
    "power_limit_w": ("power_limit_w", 1.0, "W"),
    "sm_mhz": ("sm_mhz", 1.0, "MHz"),
    "mem_used_mib": ("mem_used_mib", 1.0, "MiB"),
    "mem_total_mib": ("mem_total_mib", 1.0, "MiB"),
    "ecc_uncorrected": ("ecc_uncorrected", 1.0, ""),
}

_INF = float("inf")
_MAX = {name: MISSING[name] - 1 for name in MISSING}
_TEMPLATE = empty_gpu_records(1)[0]


def _clamp(value: float | None, missing: int, top: int) -> int:
    if value is None or value != value or value in (_INF, -_INF):
        return missing  # NaN or infinite (1e308 W x 10): not a reading, and round() would raise
    v = round(value)
    return 0 if v < 0 else top if v > top else v


_U1, _U2, _U4 = MISSING["util"], MISSING["power_dw"], MISSING["mem_used_mib"]
_MISSING_TAIL = tuple(MISSING[name] for name in (GPU_SAMPLE_DTYPE.names or ())[1:])


def _pstate(text: str | None) -> int:
    if not text or len(text) < 2:
        return _U1
    try:
        return min(int(text[1:]), _U1 - 1)
    except ValueError:
        return _U1


def record_tuple(slot: int, s: GpuSample) -> tuple[int, ...]:
    """One GPU's reading in GPU_SAMPLE_DTYPE's field order, missing values as the type's max
    (called for every GPU every second: constants are positional, not looked up)."""
    power = s.power_draw_w
    throttle = s.throttle_reasons
    return (
        slot,
        _clamp(s.utilization_gpu, _U1, _U1 - 1),
        _clamp(s.utilization_memory, _U1, _U1 - 1),
        _clamp(s.temperature_c, _U1, _U1 - 1),
        _clamp(s.fan_speed, _U1, _U1 - 1),
        _pstate(s.pstate),
        _clamp(None if power is None else power * 10.0, _U2, _U2 - 1),
        _clamp(s.power_limit_w, _U2, _U2 - 1),
        _clamp(s.clocks_sm_mhz, _U2, _U2 - 1),
        _clamp(s.memory_used_mib, _U4, _U4 - 1),
        _clamp(s.memory_total_mib, _U4, _U4 - 1),
        _U4 if throttle is None else min(throttle & 0xFFFFFFFF, _U4 - 1),
        _clamp(s.ecc_uncorrected, _U2, _U2 - 1),
    )


_EMPTY: dict[int, GpuRecords] = {}


def empty_slots(count: int) -> GpuRecords:
    """``count`` records, each missing but numbered with its slot."""
    template = _EMPTY.get(count)
    if template is None:
        template = np.empty(count, dtype=GPU_SAMPLE_DTYPE)
        template[:] = _TEMPLATE
        template["gpu"] = np.arange(count, dtype=np.uint8)
        _EMPTY[count] = template
    return template.copy()


class GpuSlots:
    """Stable slot numbers for a node's GPUs, by UUID (by index when there is none)."""

    def __init__(self, expected: int) -> None:
        self.expected = expected
        self._by_uuid: dict[str, int] = {}
        self.pci_by_slot: dict[int, str] = {}
        self.default_power_limit: dict[int, float] = {}

    @property
    def known(self) -> int:
        return max(self.expected, len(self._by_uuid))

    def learn(self, uuid: str, pci: str | None = None, power_limit: float | None = None) -> int:
        """The slot of a GPU, giving it the next free one the first time it is seen."""
        slot = self._by_uuid.get(uuid)
        if slot is None:
            slot = len(self._by_uuid)
            self._by_uuid[uuid] = slot
        if pci:
            self.pci_by_slot[slot] = pci_key(pci)
        if power_limit:
            self.default_power_limit[slot] = power_limit
        return slot

    def uuid_of(self, slot: int | None) -> str | None:
        """The UUID of the GPU in ``slot`` (None when the node never said it): what the
        memory of hosts keys a GPU's faults by across rentals (issue 36)."""
        if slot is None:
            return None
        return next(
            (u for u, s in self._by_uuid.items() if s == slot and not u.startswith("pci:")), None
        )

    def slot_of(self, sample: GpuSample, position: int | None = None) -> int | None:
        """A GPU's slot by whatever the output has: UUID, index, PCI bus id, else its row
        ``position`` in the instant (a parsing gap must never look like a lost GPU)."""
        if sample.uuid is not None:
            slot = self._by_uuid.get(sample.uuid)
            if slot is None:
                slot = self.learn(sample.uuid, sample.pci_bus_id)
            return slot
        if sample.index is not None:
            return sample.index
        if sample.pci_bus_id:
            slot = self.slot_of_pci(sample.pci_bus_id)
            if slot is None:
                slot = self.learn("pci:" + pci_key(sample.pci_bus_id), sample.pci_bus_id)
            return slot
        return position

    def slot_of_pci(self, pci: str | None) -> int | None:
        if not pci:
            return None
        key = pci_key(pci)
        for slot, known in self.pci_by_slot.items():
            if known == key:
                return slot
        return None


def pci_key(pci: str) -> str:
    """``00000000:07:00.0`` and ``0000:07:00`` both as ``07:00``: bus and device, lower case."""
    text = pci.strip().lower()
    if "." in text:
        text = text.rsplit(".", 1)[0]
    parts = text.split(":")
    return ":".join(parts[-2:])


def pack(samples: Iterable[GpuSample], slots: GpuSlots) -> tuple[GpuRecords, npt.NDArray[np.bool_]]:
    """One instant of a node: records for every slot (missing where no line came) and
    which slots reported."""
    rows: list[tuple[int, ...] | None] = [None] * slots.known
    for position, s in enumerate(samples):
        slot = slots.slot_of(s, position)
        if slot is None or slot >= 255:
            continue
        if slot >= len(rows):
            rows.extend([None] * (slot + 1 - len(rows)))
        rows[slot] = record_tuple(slot, s)
    shown = np.array([row is not None for row in rows], dtype=bool)
    full = [row if row is not None else (i, *_MISSING_TAIL) for i, row in enumerate(rows)]
    return np.array(full, dtype=GPU_SAMPLE_DTYPE), shown


def values(records: GpuRecords, name: str) -> npt.NDArray[np.float64]:
    """A display field (see DISPLAY_FIELDS) as floats, NaN where missing."""
    field, scale, _ = DISPLAY_FIELDS[name]
    raw = records[field]
    out = raw.astype(np.float64)
    out[raw == MISSING[field]] = np.nan
    if scale != 1.0:
        out *= scale
    return out


def record_dict(record: Any) -> dict[str, Any]:
    """One packed record as a JSON-ready dict (None where missing)."""
    out: dict[str, Any] = {"gpu": int(record["gpu"])}
    for name, (field, scale, _) in DISPLAY_FIELDS.items():
        raw = int(record[field])
        out[name] = None if raw == MISSING[field] else (raw * scale if scale != 1.0 else raw)
    pstate = int(record["pstate"])
    out["pstate"] = None if pstate == MISSING["pstate"] else f"P{pstate}"
    throttle = int(record["throttle"])
    out["throttle"] = None if throttle == MISSING["throttle"] else throttle
    return out
