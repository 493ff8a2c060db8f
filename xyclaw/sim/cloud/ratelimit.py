"""A token bucket: the cloud's request rate limit."""

from __future__ import annotations

import threading
from collections.abc import Callable


class TokenBucket:
    """``rate`` requests per second on average, bursts up to ``max(1, rate)``; 0 turns it off."""

    def __init__(self, rate: float, clock: Callable[[], float]) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._rate = 0.0
        self._tokens = 0.0
        self._last = clock()
        self.set_rate(rate)

    @property
    def rate(self) -> float:
        return self._rate

    def set_rate(self, rate: float) -> None:
        with self._lock:
            self._rate = max(0.0, rate)
            self._tokens = self._burst
            self._last = self._clock()

    @property
    def _burst(self) -> float:
        return max(1.0, self._rate)

    def take(self) -> float | None:
        """None if the request may pass; otherwise seconds until a token is free."""
        with self._lock:
            if self._rate <= 0:
                return None
            now = self._clock()
            self._tokens = min(self._burst, self._tokens + (now - self._last) * self._rate)
            self._last = now
            if self._tokens >= 1.0:
                self._tokens -= 1.0
                return None
            return (1.0 - self._tokens) / self._rate
