"""Lines of a streamed ``nvidia-smi --query-gpu ... -lms`` grouped into instants.

nvidia-smi prints one line per GPU, all of one instant together; each line
carries the time that GPU was read, so the stamps of one instant differ by a
few milliseconds. An instant is handed on as soon as every expected GPU has
reported (so the delay from the node to the ring buffer is one line's worth),
when a GPU it already holds reports again or a stamp lies half an interval
later (the next instant has begun), or, for an instant that lost a GPU, when
the collector's sweep finds it waiting too long.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from datetime import UTC, tzinfo

from xyclaw.parsers.nvsmi import GpuSample, NvsmiCsvParser

#: Called with (node timestamp or None, the instant's samples, local arrival time).
InstantCallback = Callable[[float | None, list[GpuSample], float], None]


class InstantAssembler:
    def __init__(
        self,
        fields: Sequence[str],
        expected: int,
        on_instant: InstantCallback,
        *,
        split_s: float = 0.5,
        tz: tzinfo = UTC,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.parser = NvsmiCsvParser(fields, tz=tz)
        self.expected = expected
        self.split_s = split_s
        self._on_instant = on_instant
        self._clock = clock
        self._lock = threading.Lock()
        self._pending: list[GpuSample] = []
        self._pending_ids: set[object] = set()
        self._pending_ts: float | None = None
        self._pending_since = 0.0
        self.instants = 0
        self.partial_instants = 0

    @property
    def bad_lines(self) -> int:
        return self.parser.bad_lines

    def feed(self, line: str) -> None:
        sample = self.parser.feed(line)
        if sample is None:
            return
        ready: list[tuple[float | None, list[GpuSample]]] = []
        ident: object = sample.uuid if sample.uuid is not None else sample.index
        if ident is None:
            ident = sample.pci_bus_id
        with self._lock:
            if self._pending and (
                (ident is not None and ident in self._pending_ids) or self._later(sample.timestamp)
            ):
                ready.append(self._take())
            if not self._pending:
                self._pending_ts = sample.timestamp
                self._pending_since = self._clock()
            self._pending.append(sample)
            if ident is not None:
                self._pending_ids.add(ident)
            if len(self._pending) >= self.expected:
                ready.append(self._take())
        for ts, samples in ready:
            self._emit(ts, samples)

    def _later(self, ts: float | None) -> bool:
        first = self._pending_ts
        if ts is None or first is None:
            return ts is not first
        return abs(ts - first) >= self.split_s

    def sweep(self, older_than_s: float) -> None:
        """Hand on an instant that has waited ``older_than_s`` for its missing GPUs."""
        with self._lock:
            if not self._pending or self._clock() - self._pending_since < older_than_s:
                return
            ts, samples = self._take()
        self._emit(ts, samples)

    def reset(self) -> None:
        """Forget a half-read instant (the stream it came from ended)."""
        with self._lock:
            self._take()

    def _take(self) -> tuple[float | None, list[GpuSample]]:
        samples, ts = self._pending, self._pending_ts
        self._pending = []
        self._pending_ids = set()
        self._pending_ts = None
        return ts, samples

    def _emit(self, ts: float | None, samples: list[GpuSample]) -> None:
        self.instants += 1
        if len(samples) < self.expected:
            self.partial_instants += 1
        self._on_instant(ts, samples, self._clock())
