"""Line charts of a few picked GPUs: utilization, memory, power, temperature, NIC traffic.

Never one curve per GPU for a whole cluster (512 curves take 150-330 ms a
frame here): at most 16 GPUs, each a bare ``PlotCurveItem`` with fixed axis
ranges and ``skipFiniteCheck``. Samples are reduced to min/max pairs per
bucket, with buckets on multiples of ``bucket_s`` in absolute time, so a
curve keeps its shape as the window slides. A bucket without a sample, or
whose samples all lack the metric, is NaN: the line breaks there instead
of dropping to zero. The NIC chart has one curve per picked node (the
counters are per node).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt
import pyqtgraph as pg
import shiboken6
from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QEvent, QRectF
from PySide6.QtGui import QPainter, QPainterPath, QPaintEvent
from PySide6.QtWidgets import QGraphicsItem, QVBoxLayout, QWidget

from xyclaw.gui.charts.axes import SlidingDateAxis
from xyclaw.gui.charts.source import ClusterFrame, NodeSeries, shown_start_s
from xyclaw.gui.charts.theme import CURVE_COLORS, LIGHT, ChartTheme
from xyclaw.store.samples import MISSING

F64 = npt.NDArray[np.float64]
I64 = npt.NDArray[np.int64]

MAX_CURVES = 16
MIN_PLOT_PX = 124  # no chart drawn shorter (its title and axis inside): scrolled instead
CURVE_ROWS = 3  # the metric plots' rows (utilisation and memory; power and temperature; NIC)
#: The heatmap's least height: its plot MIN_PLOT_PX tall, with its time axis under it.
HEATMAP_MIN_PX = MIN_PLOT_PX + 64
NICE_BUCKETS_S = (1, 2, 3, 4, 5, 6, 10, 12, 15, 20, 30, 60, 120, 300, 600)

GpuKey = tuple[int, int]  # (node id, GPU slot)


def bucket_seconds(window_s: float, interval_s: float, width_px: int) -> int:
    """The bucket for a window drawn ``width_px`` wide: at least two sample intervals (so
    a late sample leaves no false gap) and at most one min/max pair per three pixels (each
    pair is a vertical stroke, so peaks stay; twice as many points cost 4 ms more a frame
    for 80 curves here and look the same)."""
    most = max(50, width_px // 3)
    need = max(2 * interval_s, window_s / most)
    for b in NICE_BUCKETS_S:
        if b >= need:
            return b
    return NICE_BUCKETS_S[-1]


@dataclass(frozen=True)
class BucketGrid:
    """``count`` buckets of ``bucket_ms`` from absolute bucket number ``first``; ``x`` holds
    each bucket's middle twice (epoch seconds), for its min and its max."""

    first: int
    count: int
    bucket_ms: int
    x: F64

    @property
    def start_s(self) -> float:
        return self.first * self.bucket_ms / 1000.0

    @property
    def end_s(self) -> float:
        return (self.first + self.count) * self.bucket_ms / 1000.0


def bucket_grid(now_s: float, window_s: float, bucket_s: int) -> BucketGrid:
    bucket_ms = int(bucket_s * 1000)
    last = int(now_s * 1000) // bucket_ms
    count = max(1, math.ceil(window_s / bucket_s))
    first = last - count + 1
    middles = (first + np.arange(count, dtype=np.float64) + 0.5) * (bucket_ms / 1000.0)
    return BucketGrid(first, count, bucket_ms, np.repeat(middles, 2))


def minmax_buckets(ts_ms: I64, values: F64, grid: BucketGrid) -> F64:
    """Per bucket the min and max of each column of ``values[instant, k]``, as ``(k, 2 *
    count)`` (min at even, max at odd positions); NaN where a bucket has no finite value.
    ``ts_ms`` is in time order (as the rings hold it)."""
    lo, hi = bucket_span(ts_ms, grid)
    return reduce_buckets(ts_ms[lo:hi], values[lo:hi], grid)


def bucket_span(ts_ms: I64, grid: BucketGrid) -> tuple[int, int]:
    """The slice of ``ts_ms`` inside the grid."""
    lo = int(np.searchsorted(ts_ms, grid.first * grid.bucket_ms, side="left"))
    hi = int(np.searchsorted(ts_ms, (grid.first + grid.count) * grid.bucket_ms, side="left"))
    return lo, hi


def reduce_buckets(ts_ms: I64, values: F64, grid: BucketGrid) -> F64:
    """minmax_buckets for samples already cut to the grid."""
    vals = values.reshape(values.shape[0], int(np.prod(values.shape[1:], dtype=np.int64)))
    out = np.full((vals.shape[1], 2 * grid.count), np.nan)
    if not ts_ms.shape[0]:
        return out
    rel = ts_ms // grid.bucket_ms - grid.first
    starts = np.flatnonzero(rel[1:] != rel[:-1]) + 1
    starts = np.concatenate((np.zeros(1, dtype=starts.dtype), starts))
    slots = rel[starts]
    with np.errstate(invalid="ignore"):
        out[:, 2 * slots] = np.fmin.reduceat(vals, starts, axis=0).T
        out[:, 2 * slots + 1] = np.fmax.reduceat(vals, starts, axis=0).T
    return out


class BucketCache:
    """One series' min/max buckets, kept from frame to frame: when the window slides, the
    buckets move along, and only those that samples newer than the last frame's fall in
    are worked out again (a few samples instead of the whole window)."""

    def __init__(self) -> None:
        self.y: F64 | None = None
        self.first = 0
        self.count = 0
        self.bucket_ms = 0
        self.last_ts: int | None = None  # newest sample already in the buckets

    def update(
        self, ts_ms: I64, read: Callable[[int, int], F64], rows: int, grid: BucketGrid
    ) -> int | None:
        """Bring the buckets to ``grid``; ``read(lo, hi)`` gives samples ``lo:hi`` as
        ``(hi - lo, rows)``. Returns the first bucket that changed (0: all of them moved or
        were worked out again), None when nothing did."""
        y = self.y
        shift = grid.first - self.first
        reuse = (
            y is not None
            and y.shape[0] == rows
            and self.count == grid.count
            and self.bucket_ms == grid.bucket_ms
            and 0 <= shift < grid.count
        )
        end_ms = (grid.first + grid.count) * grid.bucket_ms
        hi = int(np.searchsorted(ts_ms, end_ms, side="left"))  # samples past "now" wait
        newest = int(ts_ms[hi - 1]) if hi else None
        if not reuse or y is None:
            lo = int(np.searchsorted(ts_ms, grid.first * grid.bucket_ms, side="left"))
            self.y = reduce_buckets(ts_ms[lo:hi], read(lo, hi).reshape(hi - lo, rows), grid)
            changed: int | None = 0
        else:
            changed = 0 if shift > 0 else None
            if shift:
                keep = 2 * (grid.count - shift)
                y[:, :keep] = y[:, 2 * shift :]
                y[:, keep:] = np.nan
            if newest is not None and (self.last_ts is None or newest > self.last_ts):
                start = (
                    0
                    if self.last_ts is None
                    else int(np.searchsorted(ts_ms, self.last_ts, side="right"))
                )
                b = max(0, int(ts_ms[start]) // grid.bucket_ms - grid.first)
                lo = int(ts_ms.searchsorted((grid.first + b) * grid.bucket_ms, side="left"))
                if b == grid.count - 1:  # the usual frame: only the newest bucket
                    vals = read(lo, hi).reshape(hi - lo, rows)
                    y[:, 2 * b] = np.fmin.reduce(vals, axis=0)
                    y[:, 2 * b + 1] = np.fmax.reduce(vals, axis=0)
                else:
                    sub = BucketGrid(grid.first + b, grid.count - b, grid.bucket_ms, grid.x[:0])
                    y[:, 2 * b :] = reduce_buckets(
                        ts_ms[lo:hi], read(lo, hi).reshape(hi - lo, rows), sub
                    )
                changed = b if changed is None else min(changed, b)
        self.first, self.count, self.bucket_ms = grid.first, grid.count, grid.bucket_ms
        self.last_ts = newest if newest is not None else self.last_ts
        return changed


def _field(records: npt.NDArray[Any], name: str, cols: Sequence[int]) -> F64:
    raw = records[name][:, cols]
    out = raw.astype(np.float64)
    out[raw == MISSING[name]] = np.nan
    return out


def gpu_util(node: NodeSeries, cols: Sequence[int]) -> F64:
    return _field(node.records, "util", cols)


def gpu_memory_percent(node: NodeSeries, cols: Sequence[int]) -> F64:
    used = _field(node.records, "mem_used_mib", cols)
    total = _field(node.records, "mem_total_mib", cols)
    total[total <= 0] = np.nan
    return 100.0 * used / total


def gpu_power_w(node: NodeSeries, cols: Sequence[int]) -> F64:
    return _field(node.records, "power_dw", cols) * 0.1


def gpu_temp_c(node: NodeSeries, cols: Sequence[int]) -> F64:
    return _field(node.records, "temp_c", cols)


def gpu_metrics(records: npt.NDArray[Any], cols: Sequence[int]) -> F64:
    """Every GPU metric of ``METRICS`` (utilization, memory, power, temperature, in that
    order) of GPU slots ``cols`` as one ``(instants, 4 * len(cols))`` matrix, metric-major:
    the same numbers as the four readers' columns side by side, in a third of the array
    calls (a frame reads a few instants of 16 nodes, so the calls are the cost)."""
    part = records[:, cols]
    k = len(cols)
    out = np.empty((part.shape[0], 4, k))
    for m, name in ((0, "util"), (2, "power_dw"), (3, "temp_c")):
        raw = part[name]
        out[:, m] = raw
        out[:, m][raw == MISSING[name]] = np.nan
    out[:, 2] *= 0.1
    used = part["mem_used_mib"].astype(np.float64)
    used[part["mem_used_mib"] == MISSING["mem_used_mib"]] = np.nan
    total = part["mem_total_mib"].astype(np.float64)
    total[(part["mem_total_mib"] == MISSING["mem_total_mib"]) | (total <= 0)] = np.nan
    out[:, 1] = 100.0 * used / total
    return out.reshape(part.shape[0], 4 * k)


def nic_gbit_s(node: NodeSeries, lo: int = 0, hi: int | None = None) -> F64:
    """Receive + transmit over every interface for readings ``lo:hi``, Gbit/s, as
    ``(readings, 1)``; NaN where no interface had a rate."""
    rates = node.nic_rates[lo:hi]
    n = rates.shape[0]
    if not n or rates.ndim != 3 or not rates.shape[1]:
        return np.full((n, 1), np.nan)
    flat = rates.reshape(n, -1)
    total = np.asarray(np.nansum(flat, axis=1, dtype=np.float64) * 8e-9, dtype=np.float64)
    total[np.isnan(flat).all(axis=1)] = np.nan
    return total.reshape(-1, 1)


@dataclass(frozen=True)
class MetricSpec:
    key: str
    title: str
    unit: str
    y_range: tuple[float, float]
    per_node: bool = False
    read: Callable[[NodeSeries, Sequence[int]], F64] | None = None


METRICS: tuple[MetricSpec, ...] = (
    MetricSpec(
        "util", QT_TRANSLATE_NOOP("MetricCurves", "GPU utilization"), "%", (0, 100), read=gpu_util
    ),
    MetricSpec(
        "memory",
        QT_TRANSLATE_NOOP("MetricCurves", "Memory used"),
        "%",
        (0, 100),
        read=gpu_memory_percent,
    ),
    MetricSpec(
        "power", QT_TRANSLATE_NOOP("MetricCurves", "Power"), "W", (0, 500), read=gpu_power_w
    ),
    MetricSpec(
        "temperature",
        QT_TRANSLATE_NOOP("MetricCurves", "Temperature"),
        "°C",
        (20, 100),
        read=gpu_temp_c,
    ),
    MetricSpec(
        "nic",
        QT_TRANSLATE_NOOP("MetricCurves", "NIC throughput (per node, in + out)"),
        "Gbit/s",
        (0, 10),
        per_node=True,
    ),
)

_NICE_TOPS = (1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 400, 500, 800, 1000, 1600, 2000, 4000)


#: The lowest top of a memory axis that follows its data (``MetricCurves(fit_memory=True)``).
MEMORY_TOP_MIN = 10.0


def nice_top(value: float) -> float:
    """The next round number above ``value`` (the upper end of a fixed axis)."""
    for top in _NICE_TOPS:
        if value <= top * 0.95:
            return float(top)
    return float(math.ceil(value / 1000.0) * 1000.0)


class Exposure:
    """One plot's strips: ``left``, the left end (x in data units) of what the paint under
    way exposes of the plot (None outside a paint of ``CurvesView``: draw everything); and
    while a frame is taken in (``collecting``), ``dirty``, the left end of what its curves
    asked to repaint (-inf: all of it), asked for once for all of them at the end."""

    __slots__ = ("collecting", "dirty", "left")

    def __init__(self) -> None:
        self.left: float | None = None
        self.collecting = False
        self.dirty: float | None = None


class CurvesView(pg.GraphicsLayoutWidget):
    """The curves' view, which tells each plot's curves what part of the plot a paint
    exposes: Qt gives an item only the bounding rectangle of the whole exposed region, and
    with a new sample's strip at the right end of each of five plots that is most of the
    view, so every line would be drawn whole."""

    def __init__(self) -> None:
        super().__init__()
        self.exposures: list[tuple[pg.ViewBox, Exposure]] = []

    def paintEvent(self, event: QPaintEvent) -> None:
        region = event.region()
        for vb, exposure in self.exposures:
            shown = self.mapFromScene(vb.sceneBoundingRect()).boundingRect()
            part = region.intersected(shown).boundingRect()
            if part.isEmpty():
                exposure.left = math.inf  # nothing of this plot is painted
            else:
                exposure.left = float(vb.mapSceneToView(self.mapToScene(part.topLeft())).x())
        try:
            super().paintEvent(event)
        finally:
            for _, exposure in self.exposures:
                exposure.left = None


class FixedCurve(pg.PlotCurveItem):
    """A curve whose bounds are given (the plot's fixed view, with room around it) instead of
    worked out with nanmin/nanmax over its data after every change and every pan: with 80
    curves that was a third of a frame. The view box clips what lies outside."""

    #: the newest points drawn on their own when only their strip is exposed (see paint)
    TAIL = 16

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self._fixed = QRectF()
        self._tail: int | None = None  # see set_series
        self._tail_path: QPainterPath | None = None  # the last TAIL + 1 points' line
        self.exposure: Exposure | None = None  # what a paint exposes of the plot (see paint)

    def set_bounds(self, x0: float, x1: float, y0: float, y1: float) -> None:
        """The view's rectangle: what lies outside is clipped by the view box anyway, and a
        larger rectangle would make every frame repaint the axes and titles around it."""
        rect = QRectF(x0, y0, max(1e-9, x1 - x0), max(1e-9, y1 - y0))
        if rect != self._fixed:
            self.prepareGeometryChange()
            self._fixed = rect

    def set_series(self, x: F64, y: F64, connect: str, first: int | None = None) -> None:
        """``setData`` for this case: 1-D float arrays of one length, fixed bounds, nobody
        listening to ``sigPlotChanged`` (setData's checks and signals cost ~30 us a curve,
        this ~2 us). ``first``: only points from there on changed, and x did not: only
        their strip of the plot is repainted (drawing 80 lines clipped to a strip costs a
        third of drawing them whole); see also ``edit_tail``."""
        n = int(x.shape[0])
        self.xData = x
        self.yData = y
        self.opts["connect"] = connect
        self.path = None
        self._tail_path = None
        self.fillPath = None
        self._fillPathList = None
        self._mouseShape = None
        self._lineSegmentsRendered = False
        # the points the path's last polygon holds: from after the last gap on
        gaps = np.flatnonzero(np.isnan(y)) if connect != "all" else ()
        tail = int(gaps[-1]) + 1 if len(gaps) else 0
        self._tail = tail if n - tail >= 2 else None
        self._update_from(x, first)

    def edit_tail(self, x: F64, y: F64, first: int) -> bool:
        """Points ``first:`` of ``y`` changed and are finite, x is the same array: move them
        in the line's path instead of building it again (a few points instead of a path of
        the whole window), gaps before them or not. False (nothing done) when the path
        does not hold them as its last points (not built yet, a gap among them before)."""
        path = self.path
        tail = self._tail
        n = int(x.shape[0])
        if path is None or tail is None or first < tail or self.xData is not x:
            return False
        offset = path.elementCount() - n
        if offset + tail < 0:
            return False
        line = self._tail_path  # points n - TAIL - 1 on, if made (see paint)
        start = n - self.TAIL - 1
        if line is not None and (first < start or line.elementCount() != self.TAIL + 1):
            line = self._tail_path = None
        points = zip(x[first:].tolist(), y[first:].tolist(), strict=True)
        for i, (a, b) in enumerate(points, first):
            path.setElementPositionAt(offset + i, a, b)
            if line is not None:
                line.setElementPositionAt(i - start, a, b)
        self.yData = y
        self._mouseShape = None
        self._update_from(x, first)
        return True

    def _update_from(self, x: F64, first: int | None) -> None:
        """Repaint the strip from point ``first`` on (two points before it: the segment
        that leads in), or all of the curve."""
        r = self._fixed
        left = float(x[max(0, first - 2)]) if first is not None and x.shape[0] else r.left()
        exposure = self.exposure
        if exposure is not None and exposure.collecting and self.isVisible():
            # one update for the plot's curves: each repaint paints every curve in the strip
            far = left if left > r.left() else -math.inf
            exposure.dirty = far if exposure.dirty is None else min(exposure.dirty, far)
            return
        if left > r.left():
            self.update(QRectF(left, r.top(), r.right() - left, r.height()))
        else:
            self.update()

    def boundingRect(self) -> QRectF:
        return self._fixed

    def paint(self, p: QPainter, opt: object, widget: object) -> None:
        """What ``PlotCurveItem.paint`` comes down to for this curve (no fill, no shadow, no
        OpenGL, a 1-pixel pen, no antialiasing) without its checks and profiler: 80 curves
        are painted every frame, even those of which only a strip is exposed."""
        x = self.xData
        if x is None or not x.shape[0]:
            return
        p.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        p.setPen(self.opts["pen"])
        path = self.getPath()
        n, tail, k = int(x.shape[0]), self._tail, self.TAIL
        left = self.exposure.left if self.exposure is not None else None
        if (
            left is not None
            and tail is not None
            and n > k + 1
            and tail <= n - k - 1
            and left >= float(x[n - k + 4])
        ):
            # only the newest points' strip is exposed: draw their part of the line (a
            # path of the whole window clipped to a strip costs 30 times as much), which
            # starts two buckets left of the strip, so no segment reaching into it is left out
            if self._tail_path is None:
                self._tail_path = self._make_tail_path(n, k)
            p.drawPath(self._tail_path)
            return
        p.drawPath(path)

    def _make_tail_path(self, n: int, k: int) -> QPainterPath:
        """The line through points ``n - k - 1`` to ``n - 1`` (all finite: after the
        last gap), the same segments the whole path has there."""
        assert self.xData is not None and self.yData is not None
        points = pg.functions.create_qpolygonf(k + 1)  # filled in place, as pyqtgraph does
        xy = pg.functions.ndarray_from_qpolygonf(points)
        xy[:, 0] = self.xData[n - k - 1 :]
        xy[:, 1] = self.yData[n - k - 1 :]
        line = QPainterPath()
        line.addPolygon(points)
        return line

    def dataBounds(
        self,
        ax: int,
        frac: float = 1.0,
        orthoRange: object = None,
    ) -> tuple[float, float]:
        r = self._fixed
        return (r.left(), r.right()) if ax == 0 else (r.top(), r.bottom())


class MetricCurves(QWidget):
    """One plot per metric for the picked GPUs (``set_selection``), redrawn from frames."""

    def __init__(
        self,
        parent: QWidget | None = None,
        *,
        theme: ChartTheme = LIGHT,
        in_steps: bool = False,
        fit_memory: bool = False,
    ) -> None:
        super().__init__(parent)
        self.theme = theme
        #: The memory axis' top follows the data (10 to 100 %): a replay of a small model
        #: (2 % of an 80 GB card) drew a line flat on the floor of a 0-100 % axis.
        self.fit_memory = fit_memory
        self.selection: list[GpuKey] = []
        self.colors: dict[GpuKey, int] = {}
        self._drawn: tuple[object, ...] | None = None
        self.grid: BucketGrid | None = None
        self.shown_start_s: float | None = None  # where the x axis starts (the view's)
        self.tops: dict[str, float] = {m.key: m.y_range[1] for m in METRICS}
        self._caches: dict[tuple[object, ...], BucketCache] = {}
        self._series: dict[tuple[str, int], object] = {}  # what each curve shows
        self._exposures: dict[str, Exposure] = {}

        self.view = CurvesView()
        self.view.ci.setContentsMargins(2, 2, 2, 2)
        self.view.ci.setSpacing(2)
        self.plots: dict[str, pg.PlotItem] = {}
        self.curves: dict[str, list[FixedCurve]] = {}
        self.hlines: dict[str, list[pg.InfiniteLine]] = {}
        self._to_add = list(METRICS)
        self._in_steps = in_steps
        while not in_steps and self.add_next_plot():
            pass
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.view)
        if not in_steps:
            self.apply_theme(theme)

    _POSITIONS: ClassVar[dict[str, tuple[int, int]]] = {
        "util": (0, 0),
        "memory": (0, 1),
        "power": (1, 0),
        "temperature": (1, 1),
    }

    def add_next_plot(self) -> bool:
        """Add the next metric's plot; False once all are there. ``in_steps=True`` leaves
        them to the caller, a plot per call (the desktop's start-up, a turn of the event
        loop each: the five in one go held the main thread 100-200 ms)."""
        if not self._to_add:
            return False
        spec = self._to_add.pop(0)
        positions = self._POSITIONS
        row, col = positions.get(spec.key, (2, 0))
        span = 1 if spec.key in positions else 2
        plot = self.view.addPlot(  # no context menu (made with one, ~30 ms more a plot)
            row=row,
            col=col,
            colspan=span,
            axisItems={"bottom": SlidingDateAxis("bottom")},
            enableMenu=False,
        )
        plot.hideButtons()
        for hidden in ("top", "right"):  # follow the view, but no label to re-render per move
            plot.getAxis(hidden).enableAutoSIPrefix(False)
        plot.setMenuEnabled(False)
        plot.setMouseEnabled(x=False, y=False)
        plot.vb.disableAutoRange()
        plot.getAxis("left").setWidth(44)
        plot.getAxis("bottom").setHeight(22)
        for name in ("left", "bottom"):
            # drawn into a pixmap when they change (the range moved), blitted otherwise:
            # the bottom axis draws the time grid over the whole plot, so every strip a
            # new sample repaints exposes it, and replaying its picture of tick labels
            # five times a frame cost ~3 ms
            plot.getAxis(name).setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        plot.setClipToView(False)
        curves = []
        exposure = self._exposures[spec.key] = Exposure()
        self.view.exposures.append((plot.vb, exposure))
        for i in range(MAX_CURVES):
            curve = FixedCurve(connect="finite", skipFiniteCheck=True, antialias=False)
            curve.exposure = exposure
            # a 1-pixel cosmetic pen: wider pens cost 5-10 times as much to draw here
            curve.setPen(pg.mkPen(CURVE_COLORS[i], width=1))
            curve.setVisible(False)
            plot.addItem(curve)
            curves.append(curve)
        self.plots[spec.key] = plot
        self.curves[spec.key] = curves
        self.hlines[spec.key] = []
        plot.vb.sigResized.connect(lambda _vb, key=spec.key: self._draw_hlines(key))
        if not self._to_add and self._in_steps:
            self.apply_theme(self.theme)  # the last one: titles, pens, ranges
        return True

    # -- look --------------------------------------------------------------------------------
    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange and shiboken6.isValid(self.view):
            self.apply_theme(self.theme)  # the titles, in the new language

    def apply_theme(self, theme: ChartTheme) -> None:
        self.theme = theme
        self.view.setBackground(theme.background)
        for spec in METRICS:
            plot = self.plots[spec.key]
            plot.setTitle(
                f"{QCoreApplication.translate('MetricCurves', spec.title)}"
                f" <span style='color:{theme.muted}'>({spec.unit})</span>",
                color=theme.foreground,
                size="9pt",
            )
            for name in ("left", "bottom"):
                axis = plot.getAxis(name)
                axis.setPen(theme.muted)
                axis.setTextPen(theme.foreground)
            # vertical grid lines from the time axis; horizontal ones as a few lines of our own
            # (the value axis' own grid costs ~8 ms a frame for five plots here)
            plot.showGrid(x=True, y=False, alpha=theme.grid_alpha)
            self._set_y(spec.key)
        self._drawn = None

    def _set_y(self, key: str) -> None:
        spec = next(m for m in METRICS if m.key == key)
        self.plots[key].vb.setYRange(spec.y_range[0], self.tops[key], padding=0)
        self._draw_hlines(key)
        self._bound(key)

    def _bound(self, key: str) -> None:
        if self.grid is None:
            return
        spec = next(m for m in METRICS if m.key == key)
        for curve in self.curves[key]:
            curve.set_bounds(self.grid.start_s, self.grid.end_s, spec.y_range[0], self.tops[key])

    def _draw_hlines(self, key: str) -> None:
        """Horizontal grid lines at the value axis' major ticks."""
        plot = self.plots[key]
        lo, hi = plot.vb.viewRange()[1]
        height = max(40.0, float(plot.vb.height()))
        levels = plot.getAxis("left").tickValues(lo, hi, height)
        values = [v for v in (levels[0][1] if levels else []) if lo < v < hi]
        lines = self.hlines[key]
        color = pg.mkColor(self.theme.foreground)
        color.setAlphaF(self.theme.grid_alpha)
        pen = pg.mkPen(color, width=1)
        while len(lines) < len(values):
            line = pg.InfiniteLine(angle=0, movable=False)
            line.setZValue(-10)
            plot.addItem(line)
            lines.append(line)
        for i, line in enumerate(lines):
            if i < len(values):
                line.setPen(pen)
                line.setPos(values[i])
                line.setVisible(True)
            else:
                line.setVisible(False)

    # -- selection ---------------------------------------------------------------------------
    def set_selection(self, keys: Sequence[GpuKey]) -> None:
        """Chart these GPUs (the first 16). A GPU keeps its colour while it stays picked."""
        keys = list(dict.fromkeys(keys))[:MAX_CURVES]
        self.colors = {k: c for k, c in self.colors.items() if k in keys}
        free = [i for i in range(MAX_CURVES) if i not in self.colors.values()]
        for k in keys:
            if k not in self.colors:
                self.colors[k] = free.pop(0)
        self.selection = keys
        self._drawn = None

    def color_of(self, key: GpuKey) -> str:
        return CURVE_COLORS[self.colors[key]]

    def node_color(self, node_id: int) -> str | None:
        for k in self.selection:
            if k[0] == node_id:
                return self.color_of(k)
        return None

    # -- data --------------------------------------------------------------------------------
    def set_frame(self, frame: ClusterFrame, now_s: float | None = None) -> bool:
        """Redraw the picked GPUs' curves if the frame or the selection changed."""
        now_s = time.time() if now_s is None else now_s
        width = max(200, int(self.plots["util"].vb.width() or self.width()))
        bucket_s = bucket_seconds(frame.window_s, frame.interval_s, width)
        grid = bucket_grid(now_s, frame.window_s, bucket_s)
        old = self.grid
        if old is not None and (old.first, old.count, old.bucket_ms) == (
            grid.first,
            grid.count,
            grid.bucket_ms,
        ):
            grid = old  # the same x array: curves can tell their points did not move
        key = (frame.version, grid.first, grid.count, grid.bucket_ms, tuple(self.selection))
        if key == self._drawn:
            return False
        for exposure in self._exposures.values():
            exposure.collecting = True
        try:
            self._take(frame, grid)
        finally:
            self._repaint_strips()
        self._drawn = key
        return True

    def _repaint_strips(self) -> None:
        """The repaints the curves asked for while a frame was taken in, one per plot."""
        for name, exposure in self._exposures.items():
            dirty, exposure.dirty, exposure.collecting = exposure.dirty, None, False
            if dirty is None:
                continue
            curve = next((c for c in self.curves[name] if c.isVisible()), None)
            if curve is None:
                continue
            r = curve.boundingRect()
            if dirty > r.left():
                curve.update(QRectF(dirty, r.top(), r.right() - dirty, r.height()))
            else:
                curve.update()

    def _take(self, frame: ClusterFrame, grid: BucketGrid) -> None:
        """The picked GPUs' buckets into their curves, the axes moved along."""
        by_node: dict[int, list[GpuKey]] = {}
        for k in self.selection:
            by_node.setdefault(k[0], []).append(k)
        nodes = {n.node_id: n for n in frame.nodes}
        gpu_specs = [m for m in METRICS if not m.per_node and m.read is not None]
        nic_spec = next(m for m in METRICS if m.per_node)
        used: dict[str, set[int]] = {m.key: set() for m in METRICS}
        caches: dict[tuple[object, ...], BucketCache] = {}
        for node_id, keys in by_node.items():
            node = nodes.get(node_id)
            if node is None:
                continue
            present = [k for k in keys if k[1] < node.gpus]
            if present:
                # every metric of this node's picked GPUs in one matrix: one pass of buckets
                cols = [k[1] for k in present]
                ckey: tuple[object, ...] = (node_id, tuple(cols))
                cache = caches[ckey] = self._caches.get(ckey) or BucketCache()

                def read(lo: int, hi: int, node: NodeSeries = node, cols: list[int] = cols) -> F64:
                    return gpu_metrics(node.records[lo:hi], cols)  # gpu_specs' columns

                changed = cache.update(node.ts_ms, read, len(gpu_specs) * len(cols), grid)
                assert cache.y is not None
                for m_i, spec in enumerate(gpu_specs):
                    for j, k in enumerate(present):
                        slot = self.colors[k]
                        row = m_i * len(cols) + j
                        self._put(spec.key, slot, (ckey, row), changed, grid.x, cache.y[row])
                        used[spec.key].add(slot)
            slot = self.colors[keys[0]]
            nkey: tuple[object, ...] = (node_id, "nic")
            cache = caches[nkey] = self._caches.get(nkey) or BucketCache()

            def read_nic(lo: int, hi: int, node: NodeSeries = node) -> F64:
                return nic_gbit_s(node, lo, hi)

            changed = cache.update(node.nic_ts_ms, read_nic, 1, grid)
            assert cache.y is not None
            self._put(nic_spec.key, slot, (nkey, 0), changed, grid.x, cache.y[0])
            used[nic_spec.key].add(slot)
        self._caches = caches
        for spec in METRICS:
            for i, curve in enumerate(self.curves[spec.key]):
                if i not in used[spec.key] and curve.isVisible():
                    curve.setVisible(False)
            self._grow_axis(spec, used[spec.key])
        x0 = shown_start_s(frame, grid.start_s, grid.end_s)
        if (
            self.grid is None
            or (self.grid.first, self.grid.count) != (grid.first, grid.count)
            or x0 != self.shown_start_s
        ):
            # the same range on each plot (an X link would align them by pixels instead, and
            # the NIC plot is twice as wide)
            self.grid = grid
            self.shown_start_s = x0
            for name, plot in self.plots.items():
                plot.vb.setXRange(x0, grid.end_s, padding=0)
                plot.vb.updateMatrix()  # now, not at the paint (which would then paint twice)
                self._bound(name)
        self.grid = grid

    def _put(
        self, metric: str, slot: int, series: object, changed: int | None, x: F64, y: F64
    ) -> None:
        """Give a curve its series' buckets, unless it shows them already and they did not
        change (most curves between two grid moves when only a few nodes reported). When
        only the newest buckets changed, only their strip of the plot is repainted: the
        rest of the line is where it was (x is absolute time), and drawing 80 lines
        clipped to a strip costs a third of drawing them whole."""
        curve = self.curves[metric][slot]
        same = self._series.get((metric, slot)) == series and curve.isVisible()
        if same and changed is None:
            return
        self._series[(metric, slot)] = series
        strip = changed if same and changed else None
        self._show(curve, x, y, None if strip is None else 2 * strip)

    def _show(self, curve: FixedCurve, x: F64, y: F64, first: int | None = None) -> None:
        if first is not None and not np.isnan(y[first:]).any() and curve.edit_tail(x, y, first):
            return  # the usual frame: the newest points of a line that stays as it was
        gaps = np.isnan(y)
        if gaps.all():  # nothing to draw: a gap over the whole window
            curve.setData(x[:0], y[:0])
            curve.setVisible(False)
            return
        # "finite" breaks the line at NaN; "all" (no gap in view) builds the path 3x faster
        curve.set_series(x, y, "finite" if gaps.any() else "all", first)
        if not curve.isVisible():
            curve.setVisible(True)

    def _grow_axis(self, spec: MetricSpec, slots: set[int]) -> None:
        """Fixed ranges, except power and NIC traffic, whose top is the next round number
        above the largest value shown (changed only when the data outgrow it), and memory
        with ``fit_memory``, whose top is that number between 10 and 100 %."""
        fit = spec.key == "memory" and self.fit_memory
        if (spec.key not in ("power", "nic") and not fit) or not slots:
            return
        peak = 0.0
        for i in slots:
            y = self.curves[spec.key][i].yData
            if y is not None and y.size:
                top = float(np.fmax.reduce(y))  # NaN (gaps) left out; NaN when all are gaps
                if top > peak:
                    peak = top
        if fit:
            top = min(spec.y_range[1], max(MEMORY_TOP_MIN, nice_top(peak)))
        else:
            top = max(nice_top(peak), spec.y_range[1])
        if top != self.tops[spec.key]:
            self.tops[spec.key] = top
            self._set_y(spec.key)

    def curve_data(self, metric: str, key: GpuKey | int) -> tuple[F64, F64] | None:
        """The x and y a curve draws now (a GPU key, or a node id for the NIC chart)."""
        if isinstance(key, int):
            color = self.node_color(key)
            slot = CURVE_COLORS.index(color) if color else None
        else:
            slot = self.colors.get(key)
        if slot is None:
            return None
        curve = self.curves[metric][slot]
        if not curve.isVisible() or curve.xData is None:
            return None
        return curve.xData, curve.yData
