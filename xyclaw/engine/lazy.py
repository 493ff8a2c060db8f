"""A part of the engine built on first use.

The composition function wires every part, but builds the costly ones (SSH, telemetry,
tuning, the job runtime: each imports libraries that take a tenth of a second or more)
only when a method first needs them, so ``xyclaw clusters`` or ``--version`` never pays
for them.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, TypeVar, cast

T = TypeVar("T")


class Lazy(Generic[T]):
    """``part()`` builds the part once (thread-safe) and returns it after that."""

    __slots__ = ("_build", "_lock", "_value")

    def __init__(self, build: Callable[[], T]) -> None:
        self._build: Callable[[], T] | None = build
        self._value: T | None = None
        self._lock = threading.Lock()

    @classmethod
    def of(cls, value: T) -> Lazy[T]:
        """A part that is already built."""
        part: Lazy[T] = cls(lambda: value)
        part()
        return part

    def __call__(self) -> T:
        build = self._build
        if build is None:
            return cast(T, self._value)
        with self._lock:
            if self._build is not None:
                self._value = self._build()
                self._build = None
        return cast(T, self._value)

    @property
    def built(self) -> bool:
        return self._build is None

    def if_built(self) -> T | None:
        """The part if something has built it already, else None (builds nothing)."""
        return self._value if self._build is None else None
