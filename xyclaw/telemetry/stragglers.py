"""Stragglers by time (issue 34): per-rank compute times scored the way NVIDIA's straggler
detector does, against the best rank (relative) and against the rank's own best
(individual). A GPU-utilization straggler rule sees a slow GPU only when it idles; a rank
that computes slower than its peers shows here at once, whatever nvidia-smi says.
"""

from __future__ import annotations

import statistics
from collections import deque
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class RankScore:
    rank: int
    seconds: float  # the median of its recent steps
    relative: float  # best rank's median / this rank's (1.0: the best)
    individual: float  # this rank's best median so far / its current one (1.0: as good)


class RankTimes:
    """The recent step times of every rank of one job."""

    def __init__(self, window: int = 20, min_samples: int = 5) -> None:
        self.window = window
        self.min_samples = min_samples
        self._times: dict[int, deque[float]] = {}
        self._best: dict[int, float] = {}

    def add(self, rank: int, seconds: float) -> None:
        if seconds <= 0:
            return
        times = self._times.setdefault(rank, deque(maxlen=self.window))
        times.append(seconds)
        if len(times) >= self.min_samples:
            current = statistics.median(times)
            self._best[rank] = min(self._best.get(rank, current), current)

    def scores(self) -> list[RankScore]:
        """Scores of the ranks with enough samples; empty until two ranks have them."""
        medians = {
            r: statistics.median(t) for r, t in self._times.items() if len(t) >= self.min_samples
        }
        if len(medians) < 2:
            return []
        best = min(medians.values())
        return [
            RankScore(r, m, best / m, self._best.get(r, m) / m) for r, m in sorted(medians.items())
        ]

    def stragglers(self, threshold: float = 0.8) -> list[RankScore]:
        """Ranks below ``threshold`` against the best rank or against their own best."""
        return [s for s in self.scores() if s.relative < threshold or s.individual < threshold]
