"""A time axis for windows that slide: its ticks and labels are moved, not worked out again.

The Monitor's heatmap slides by a column every second and its curves by a bucket every few
seconds. pyqtgraph's ``DateAxisItem`` then lays its ticks and labels out from scratch (tick
values, label strings, text measurements: 1-2 ms a time here, the largest part of a
frame's paint). When only the range moved (the same span, size, style and tick values),
every tick and label is where it was, moved by the same number of pixels, so that is what
this axis does; anything else is laid out the ``DateAxisItem`` way.
"""

from __future__ import annotations

import math
from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF

_Specs = tuple[Any, list[Any], list[Any]]


class SlidingDateAxis(pg.DateAxisItem):
    """A horizontal ``DateAxisItem`` that moves its last layout when its range slid."""

    def __init__(self, orientation: str = "bottom", **kwargs: Any) -> None:
        super().__init__(orientation, **kwargs)
        self._unbounded = False
        # (key, tick values, range start, axis spec, tick specs, label candidates)
        self._laid: tuple[Any, ...] | None = None
        self.layouts = 0  # layouts worked out from scratch (the rest were moved)

    def boundingRect(self) -> QRectF:
        if self._unbounded:  # while laying out: every label is a candidate (see below)
            return QRectF(-1e9, -1e9, 2e9, 2e9)
        rect: QRectF = super().boundingRect()
        return rect

    def _length_px(self, bounds: QRectF) -> float | None:
        """The axis' length in device pixels, measured as ``AxisItem`` measures it."""
        if self.orientation == "top":
            span = (bounds.bottomLeft() + QPointF(-1, -1), bounds.bottomRight() + QPointF(1, -1))
        else:
            span = (bounds.topLeft() + QPointF(-1, 1), bounds.topRight() + QPointF(1, 1))
        points = [self.mapToDevice(s) for s in span]
        if points[0] is None or points[1] is None:
            return None
        d = points[1] - points[0]
        length = math.hypot(d.x(), d.y())
        return length or None

    def generateDrawSpecs(self, p: Any) -> _Specs | None:
        if (
            self.orientation not in ("bottom", "top")
            or self._tickLevels is not None
            or any(self.style["stopAxisAtTick"])
        ):
            self._laid = None
            specs: _Specs | None = super().generateDrawSpecs(p)
            return specs
        lo, hi = (float(v) for v in self.range)
        bounds = self.mapRectFromParent(self.geometry())
        length = self._length_px(bounds)
        if hi <= lo or length is None or bounds.width() <= 0:
            self._laid = None
            specs = super().generateDrawSpecs(p)
            return specs
        view = self.linkedView()
        ticks_to = None
        if view is not None and self.grid is not False:
            ticks_to = view.mapRectToItem(self, view.boundingRect())
        key = (
            hi - lo,
            length,
            (bounds.x(), bounds.y(), bounds.width(), bounds.height()),
            None if ticks_to is None else (ticks_to.top(), ticks_to.bottom()),
            self.grid,
            self.pen(),
            self.tickPen(),
            self.textPen(),
            self.style["tickFont"],
            self.font(),
            self.scale,
            self.autoSIPrefixScale,
            # values, not the lists setStyle edits in place
            tuple((k, tuple(v) if isinstance(v, list) else v) for k, v in self.style.items()),
        )
        if self.style["tickFont"] is not None:  # as DateAxisItem does before its tick values
            p.setFont(self.style["tickFont"])
        self.fontMetrics = p.fontMetrics()
        levels = self.tickValues(lo, hi, length)
        key = (*key, id(self.zoomLevel))
        # positions as AxisItem works them out: x = v * scale - offset, in [0, right]
        x_scale = bounds.width() / (hi - lo)
        offset = lo * x_scale
        right = hi * x_scale - offset
        inside = sum(1 for _, vs in levels for v in vs if 0.0 <= v * x_scale - offset <= right)
        laid = self._laid
        if laid is not None and laid[0] == key and laid[1] == levels:
            moved = self._moved(laid, lo, x_scale, right, inside)
            if moved is not None:
                return moved
        self._unbounded = True
        try:
            specs = super().generateDrawSpecs(p)
        finally:
            self._unbounded = False
        self.layouts += 1
        if specs is None:
            self._laid = None
            return None
        axis_spec, tick_specs, candidates = specs
        self._laid = (key, levels, lo, axis_spec, tick_specs, candidates)
        return axis_spec, tick_specs, self._fitting(candidates)

    def _moved(
        self, laid: tuple[Any, ...], lo: float, x_scale: float, right: float, inside: int
    ) -> _Specs | None:
        """The last layout moved to a range starting at ``lo``; None when a tick would enter
        or leave the axis (then it is laid out again)."""
        _, _, lo0, axis_spec, tick_specs, candidates = laid
        dx = (lo0 - lo) * x_scale
        if inside != len(tick_specs):
            return None
        ticks = []
        for pen, p1, p2 in tick_specs:
            x = p1.x() + dx
            if not 0.0 <= x <= right:
                return None
            ticks.append((pen, QPointF(x, p1.y()), QPointF(x, p2.y())))
        texts = [(rect.translated(dx, 0.0), flags, text) for rect, flags, text in candidates]
        return axis_spec, ticks, self._fitting(texts)

    def _fitting(self, texts: list[Any]) -> list[Any]:
        """The labels that fit in the axis, as ``AxisItem`` keeps them."""
        br = self.boundingRect()
        return [t for t in texts if br & t[0] == t[0]]
