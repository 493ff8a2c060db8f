"""A fixed-size FIFO of numpy rows whose last ``n`` rows are always one contiguous slice.

Every row is written twice, at ``i`` and ``i + capacity``, so the newest
``n`` rows are ``buf[head + capacity - n : head + capacity]`` whatever
``head`` is: a view costs a slice (about 2 microseconds), never a copy or an
``np.roll`` (0.5-4 ms for a live window). Views are live memory: a writer
that wraps around reuses the oldest slot, so a reader that keeps a view for
longer than the window should ``copy()`` it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt


class Ring:
    """Rows of ``dtype`` and ``shape``; appending past ``capacity`` drops the oldest."""

    __slots__ = ("_buf", "_capacity", "_count", "_head", "appended")

    def __init__(self, capacity: int, dtype: npt.DTypeLike, shape: tuple[int, ...] = ()) -> None:
        if capacity < 1:
            raise ValueError(f"a ring needs a capacity of at least 1, not {capacity}")
        self._capacity = capacity
        self._buf: npt.NDArray[Any] = np.zeros((2 * capacity, *shape), dtype=dtype)
        self._head = 0  # where the next row goes, in [0, capacity)
        self._count = 0
        self.appended = 0  # rows ever appended, to tell readers what is new

    @property
    def capacity(self) -> int:
        return self._capacity

    @property
    def dtype(self) -> np.dtype[Any]:
        return self._buf.dtype

    def __len__(self) -> int:
        return self._count

    def append(self, row: Any) -> None:
        head = self._head
        self._buf[head] = row
        self._buf[head + self._capacity] = row
        self._head = head + 1 if head + 1 < self._capacity else 0
        if self._count < self._capacity:
            self._count += 1
        self.appended += 1

    def view(self, last: int | None = None) -> npt.NDArray[Any]:
        """The newest ``last`` rows (all held rows when None), oldest first, without copying."""
        n = self._count if last is None else max(0, min(last, self._count))
        end = self._head + self._capacity
        return self._buf[end - n : end]

    def latest(self) -> npt.NDArray[Any] | None:
        """The newest row (a view), or None when empty."""
        if not self._count:
            return None
        row: npt.NDArray[Any] = self._buf[self._head + self._capacity - 1]
        return row

    def clear(self) -> None:
        self._head = 0
        self._count = 0
