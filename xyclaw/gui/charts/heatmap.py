"""Every GPU's utilization over time as one image: a row per GPU, grouped by node.

The image is row-major uint8 (0-100 %, 255 = no sample) drawn through a fixed
256-entry lookup table, the fastest way measured here (512 GPUs x 3,600 s in
5.5 ms; float64 costs 12.7 ms). Columns are aligned to absolute time, one per
sample interval, and a column shows the newest sample taken before its end
unless that sample is older than two intervals (then the cell is a gap).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QCursor, QFontMetrics, QImage, qRgb
from PySide6.QtWidgets import QGraphicsItem, QToolTip, QVBoxLayout, QWidget

from xyclaw.gui import i18n
from xyclaw.gui.charts.axes import SlidingDateAxis
from xyclaw.gui.charts.source import ClusterFrame, short_node_name, shown_start_s
from xyclaw.gui.charts.theme import LIGHT, MISSING_U8, ChartTheme, heatmap_lut
from xyclaw.gui.widgets import plain_tip

I64 = npt.NDArray[np.int64]
U8 = npt.NDArray[np.uint8]


@dataclass(frozen=True)
class TimeGrid:
    """Columns of ``step_ms`` ending at ``ends_ms`` (exclusive), oldest first."""

    ends_ms: I64
    step_ms: int

    @property
    def start_s(self) -> float:
        return float(self.ends_ms[0] - self.step_ms) / 1000.0

    @property
    def end_s(self) -> float:
        return float(self.ends_ms[-1]) / 1000.0

    @property
    def columns(self) -> int:
        return int(self.ends_ms.shape[0])

    def column_at(self, t_s: float) -> int | None:
        col = math.floor((t_s - self.start_s) * 1000.0 / self.step_ms)
        return col if 0 <= col < self.columns else None


def time_grid(now_s: float, interval_s: float, window_s: float) -> TimeGrid:
    """The heatmap's columns for a window ending with the column that holds ``now_s``."""
    step = max(1, round(interval_s * 1000))
    count = max(1, round(window_s / interval_s))
    last_end = (int(now_s * 1000) // step + 1) * step
    ends = last_end - step * np.arange(count - 1, -1, -1, dtype=np.int64)
    return TimeGrid(ends, step)


@dataclass(frozen=True)
class RowMap:
    """Which GPU each image row is: ``node_index[r]``, ``gpu[r]``; node ``i`` starts at
    ``starts[i]`` and has ``counts[i]`` rows."""

    node_ids: tuple[int, ...]
    names: tuple[str, ...]
    labels: tuple[str, ...]
    starts: tuple[int, ...]
    counts: tuple[int, ...]
    node_index: npt.NDArray[np.int32]
    gpu: npt.NDArray[np.int32]

    @property
    def rows(self) -> int:
        return int(self.gpu.shape[0])

    @classmethod
    def of(cls, frame: ClusterFrame) -> RowMap:
        starts: list[int] = []
        counts: list[int] = []
        index: list[int] = []
        gpu: list[int] = []
        row = 0
        for i, node in enumerate(frame.nodes):
            starts.append(row)
            counts.append(node.gpus)
            index.extend([i] * node.gpus)
            gpu.extend(range(node.gpus))
            row += node.gpus
        return cls(
            tuple(n.node_id for n in frame.nodes),
            tuple(n.name for n in frame.nodes),
            tuple(short_node_name(n.name, frame.name) for n in frame.nodes),
            tuple(starts),
            tuple(counts),
            np.asarray(index, dtype=np.int32),
            np.asarray(gpu, dtype=np.int32),
        )

    def row_of(self, node_id: int, gpu: int) -> int | None:
        for i, nid in enumerate(self.node_ids):
            if nid == node_id:
                return self.starts[i] + gpu if gpu < self.counts[i] else None
        return None


def fill_node(block: U8, ts: I64, util: U8, ends: I64, stale_ms: int) -> None:
    """One node's rows for columns ending at ``ends``: the newest sample before each end,
    a gap (255) where there is none within ``stale_ms``. ``util[instant, gpu]``."""
    n = ts.shape[0]
    if not n:
        block[:] = MISSING_U8
        return
    idx = np.searchsorted(ts, ends, side="left") - 1
    ok = idx >= 0
    np.clip(idx, 0, n - 1, out=idx)
    ok &= ts[idx] >= ends - stale_ms
    block[:] = util[idx].T
    block[:, ~ok] = MISSING_U8


def fill_columns(block: U8, ts: I64, util: U8, ends: I64, first: int, stale_ms: int) -> None:
    """``fill_node`` for columns ``first:`` of ``block`` when they are only a few (the
    columns a frame adds): a lookup per column, a dozen array calls fewer per node."""
    for c in range(first, int(ends.shape[0])):
        end = int(ends[c])
        i = int(ts.searchsorted(end)) - 1
        if i >= 0 and int(ts[i]) >= end - stale_ms:
            block[:, c] = util[i]
        else:
            block[:, c] = MISSING_U8


def fill_heatmap(image: U8, frame: ClusterFrame, grid: TimeGrid, stale_ms: int) -> None:
    """Write every node's utilization into ``image[rows, columns]`` (uint8, 255 = gap)."""
    row = 0
    for node in frame.nodes:
        g = node.gpus
        if g:
            fill_node(
                image[row : row + g], node.ts_ms, node.records["util"], grid.ends_ms, stale_ms
            )
        row += g
    image[row:] = MISSING_U8


def pool_rows(image: U8, factor: int) -> U8:
    """Every ``factor`` rows as one, the worst of them winning (a gap, else the lowest
    utilization): drawn smaller than a row per pixel, an idle or silent GPU must still show
    instead of falling between two screen lines."""
    if factor <= 1:
        return image
    rows, cols = image.shape
    groups = -(-rows // factor)
    # +1 wraps 255 (a gap) to 0, so the minimum picks gaps first, then the lowest value
    v = np.empty((groups * factor, cols), dtype=np.uint8)
    np.add(image, 1, out=v[:rows])
    v[rows:] = v[rows - 1]  # padding repeats the last real row
    pooled = v.reshape(groups, factor, cols).min(axis=1)
    pooled -= 1
    return pooled


class IndexedImage(pg.ImageItem):
    """An ``ImageItem`` for a row-major uint8 image drawn through a fixed 256-colour table:
    the QImage is an indexed view of the array itself (no copy, no levels applied, the
    colour table made once per theme instead of at every render). Any other image goes
    the ``ImageItem`` way."""

    def __init__(self) -> None:
        super().__init__(axisOrder="row-major")
        self._table: list[int] = []
        #: the image's colours as 0xffRRGGBB, kept up to date by whoever sets the image
        #: (column by column as it moves): drawn as they are, which costs a seventh of
        #: drawing the indexed image (Qt converts that at every paint); None: indexed
        self.colored: npt.NDArray[np.uint32] | None = None

    def set_table(self, lut: U8) -> None:
        """The colours of values 0-255 (``lut[v] = (r, g, b)``), also given as the item's
        lookup table with levels (0, 255), which is what this draws."""
        self._table = [qRgb(*rgb) for rgb in lut.tolist()]
        self.setOpts(update=False, lut=lut, levels=(0, 255))
        self._renderRequired = True
        self.update()

    def render(self) -> None:
        image = self.image
        if (
            image is None
            or image.size == 0
            or image.dtype != np.uint8
            or image.ndim != 2
            or not image.flags.c_contiguous
            or len(self._table) != 256
        ):
            super().render()
            return
        colored = self.colored
        if (
            colored is not None
            and colored.shape == image.shape
            and colored.dtype == np.uint32
            and colored.flags.c_contiguous
        ):
            qimage = pg.functions.ndarray_to_qimage(colored, QImage.Format.Format_RGB32)
        else:
            qimage = pg.functions.ndarray_to_qimage(image, QImage.Format.Format_Indexed8)
            qimage.setColorTable(self._table)
        self.qimage = qimage
        self._renderRequired = False
        self._unrenderable = False


class _NodeAxis(pg.AxisItem):
    """The left axis: node names at the middle of their rows, as many as fit."""

    def __init__(self) -> None:
        super().__init__("left")
        self.rowmap: RowMap | None = None
        self.setWidth(92)
        self.enableAutoSIPrefix(False)

    def relabel(self, pixel_height: float) -> None:
        rm = self.rowmap
        if rm is None or not rm.rows:
            self.setTicks([[], []])
            return
        per_row = pixel_height / rm.rows
        ticks: list[tuple[float, str]] = []
        last = -1e9
        # a label wider than the axis is not drawn at all: elide it to fit, keeping its end
        metrics = QFontMetrics(self.style["tickFont"] or self.font())
        room = self.width() - self.style["tickTextOffset"][0] - max(0, self.style["tickLength"]) - 4
        for start, count, label in zip(rm.starts, rm.counts, rm.labels, strict=True):
            middle = start + count / 2
            if (middle - last) * per_row >= 15:  # leave room for a line of text
                shown = metrics.elidedText(label, Qt.TextElideMode.ElideLeft, int(room))
                ticks.append((middle, shown))
                last = middle
        self.setTicks([ticks, []])


class GpuHeatmap(QWidget):
    """The utilization heatmap. Emits ``gpu_clicked(node_id, gpu)`` when a row is clicked
    and ``node_clicked(node_id)`` when a node's name is clicked."""

    gpu_clicked = Signal(int, int)
    node_clicked = Signal(int)

    def __init__(self, parent: QWidget | None = None, *, theme: ChartTheme = LIGHT) -> None:
        super().__init__(parent)
        self.theme = theme
        self.rowmap = RowMap((), (), (), (), (), np.zeros(0, np.int32), np.zeros(0, np.int32))
        self.grid: TimeGrid | None = None
        self.shown_start_s: float | None = None  # where the x axis starts (the view's)
        self.image: U8 = np.full((0, 0), MISSING_U8, dtype=np.uint8)
        self._drawn: tuple[int, int, int] | None = None  # (frame version, last column, rows)
        self._highlight: dict[tuple[int, int], str] = {}  # charted GPU -> its curve colour
        self._marked: object = None  # what the marks were made for
        self._pool = 1  # image rows per drawn row (see pool_rows)
        self._shown: U8 = self.image  # what is drawn: the image, its rows pooled by _pool
        self._shown_pool = 1  # the pooling _shown was made with
        self._lut32 = np.zeros(256, dtype=np.uint32)  # the theme's colours as 0xffRRGGBB
        self._colored: npt.NDArray[np.uint32] | None = None  # _shown in those colours
        self._last_ts: dict[int, int] = {}  # newest sample drawn, per node
        self._layout: tuple[tuple[int, int, str], ...] = ()  # (node id, GPUs, name) per node

        self.view = pg.GraphicsLayoutWidget()
        self.view.setMinimumHeight(140)
        self.view.ci.setContentsMargins(4, 4, 4, 2)
        self.axis = _NodeAxis()
        self.time_axis = SlidingDateAxis("bottom")
        self.plot: pg.PlotItem = self.view.addPlot(  # no context menu: ~30 ms less to make
            axisItems={"left": self.axis, "bottom": self.time_axis}, enableMenu=False
        )
        self.plot.hideButtons()
        for hidden in ("top", "right"):  # follow the view, but no label to re-render per move
            self.plot.getAxis(hidden).enableAutoSIPrefix(False)
        self.plot.setMenuEnabled(False)
        self.plot.setMouseEnabled(x=False, y=False)
        # the node names change with the cluster, not with the frame: a pixmap, blitted
        self.axis.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        self.plot.vb.invertY(True)
        self.plot.vb.disableAutoRange()
        self.item = IndexedImage()
        self.item.setAutoDownsample(False)
        self.plot.addItem(self.item)
        self.separators = pg.PlotCurveItem(connect="pairs", skipFiniteCheck=True)
        self.plot.addItem(self.separators)
        # a triangle in the curve's colour at the right end of each charted GPU's row
        self.marks = pg.ScatterPlotItem(symbol="t3", size=9, pxMode=True)
        # they move with the window, which leaves them where they are on the screen: their
        # picture is kept and blitted again under the new column (not drawn each frame)
        self.marks.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        self.plot.addItem(self.marks)
        self.colorbar = pg.ColorBarItem(
            values=(0, 100),
            colorMap=pg.colormap.get("viridis"),
            width=12,
            interactive=False,
            colorMapMenu=False,
        )
        self.plot.layout.addItem(self.colorbar, 2, 5)
        self.plot.layout.setColumnFixedWidth(4, 6)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.view)
        self.plot.vb.sigResized.connect(lambda _vb: self._relabel())
        self.view.scene().sigMouseMoved.connect(self._hover)
        self.view.scene().sigMouseClicked.connect(self._click)
        self.apply_theme(theme)

    # -- look --------------------------------------------------------------------------------
    def apply_theme(self, theme: ChartTheme) -> None:
        self.theme = theme
        self.view.setBackground(theme.background)
        for axis in (self.axis, self.time_axis):
            axis.setPen(theme.muted)
            axis.setTextPen(theme.foreground)
        self.colorbar.axis.setPen(theme.muted)
        self.colorbar.axis.setTextPen(theme.foreground)
        self.colorbar.axis.setLabel(
            i18n.translate("GpuHeatmap", "utilization %"), color=theme.foreground
        )
        self.lut = heatmap_lut(theme)
        self.item.set_table(self.lut)
        rgb = self.lut.astype(np.uint32)
        self._lut32 = 0xFF000000 | (rgb[:, 0] << 16) | (rgb[:, 1] << 8) | rgb[:, 2]
        self._colored = None  # coloured again at the next frame
        self._relabel()
        self.marks.setPen(pg.mkPen(theme.background, width=1))
        self._drawn = None

    def _relabel(self) -> None:
        """Node names that fit, and node separators only where a node is tall enough that
        a line between nodes does not hide its rows."""
        height = self.plot.vb.height() or self.height()
        self.axis.relabel(height)
        rm = self.rowmap
        pool = max(1, math.ceil(rm.rows / max(1.0, height)))
        if pool != self._pool:
            self._pool = pool
            self._drawn = None  # drawn again at the next frame
        band = height / max(1, rm.rows) * (min(rm.counts) if rm.counts else 0)
        shown = band >= 8
        if shown and not self.separators.isVisible():
            self.separators.setVisible(True)
            self._draw_separators()  # not kept up to date while hidden
        elif not shown:
            self.separators.setVisible(False)
        self.separators.setPen(pg.mkPen(self.theme.separator, width=1 if band < 20 else 2))

    # -- data --------------------------------------------------------------------------------
    def set_frame(self, frame: ClusterFrame, now_s: float | None = None) -> bool:
        """Redraw from a frame if anything changed (new samples, the clock moved a column,
        other nodes). Returns whether the image was rebuilt."""
        now_s = time.time() if now_s is None else now_s
        grid = time_grid(now_s, frame.interval_s, frame.window_s)
        key = (frame.version, int(grid.ends_ms[-1]), frame.gpu_count)
        if key == self._drawn:
            return False
        layout = tuple((n.node_id, n.gpus, n.name) for n in frame.nodes)
        layout_changed = layout != self._layout
        if layout_changed:
            self._layout = layout
            self.rowmap = RowMap.of(frame)
            self.axis.rowmap = self.rowmap
            self._relabel()
        rows = max(1, self.rowmap.rows)
        full = layout_changed or self.grid is None or self.grid.step_ms != grid.step_ms
        if self.image.shape != (rows, grid.columns):
            self.image = np.full((rows, grid.columns), MISSING_U8, dtype=np.uint8)
            full = True
        shift = None if full else self._shift(self.grid, grid)  # None: nothing is kept
        if shift is None:
            fill_heatmap(self.image, frame, grid, stale_ms=2 * grid.step_ms)
            changed = 0  # the first column that changed
        else:
            changed = self._fill_new(frame, grid, shift)
        self._last_ts = {n.node_id: int(n.ts_ms[-1]) for n in frame.nodes if n.ts_ms.shape[0]}
        rebuilt = self._pool_shown(changed, shift)
        self._color(changed, None if rebuilt else shift)
        self.item.colored = self._colored
        self.item.setImage(self._shown, autoLevels=False)
        x0 = shown_start_s(frame, grid.start_s, grid.end_s)
        moved = (
            self.grid is None
            or self.grid.ends_ms[-1] != grid.ends_ms[-1]
            or layout_changed
            or x0 != self.shown_start_s
        )
        self.grid = grid
        if moved:
            width = grid.end_s - grid.start_s
            self.shown_start_s = x0
            self.item.setRect(QRectF(grid.start_s, 0.0, width, float(rows)))
            self.plot.vb.setRange(
                xRange=(x0, grid.end_s), yRange=(0, rows), padding=0, update=False
            )
            # apply the new range now: deferred to the paint, it asks for a second paint
            self.plot.vb.updateMatrix()
            if self.separators.isVisible():  # too close together to show for large clusters
                self._draw_separators()
            self._draw_marks()
        self._drawn = key
        return True

    @staticmethod
    def _shift(old: TimeGrid | None, grid: TimeGrid) -> int | None:
        """Columns the clock moved from ``old`` to ``grid``; None when nothing is kept."""
        if old is None or old.step_ms != grid.step_ms or old.columns != grid.columns:
            return None
        shift = int(grid.ends_ms[-1] - old.ends_ms[-1]) // grid.step_ms
        return shift if 0 <= shift < grid.columns else None

    def _fill_new(self, frame: ClusterFrame, grid: TimeGrid, shift: int) -> int:
        """Move the image by the ``shift`` columns the clock has moved and redraw only the
        columns that samples newer than the last frame's can change (those ending after the
        first new one): a column shows the newest sample before its end, so no other can
        change. Returns the first column redrawn (``grid.columns`` when none was)."""
        width = grid.columns
        if shift:
            self.image[:, : width - shift] = self.image[:, shift:]
        ends = grid.ends_ms
        stale = 2 * grid.step_ms
        changed = width
        row = 0
        for node in frame.nodes:
            g = node.gpus
            ts = node.ts_ms
            first = width - shift
            last = self._last_ts.get(node.node_id)
            if last is None:
                first = 0
            elif ts.shape[0] and ts[-1] > last:
                newest = ts[int(ts.searchsorted(last, side="right"))]
                first = min(first, int(ends.searchsorted(newest, side="right")))
            if g and first < width:
                util = node.records["util"]
                block = self.image[row : row + g]
                if width - first <= 4:  # the usual frame: a column or two
                    fill_columns(block, ts, util, ends, first, stale)
                else:
                    fill_node(block[:, first:], ts, util, ends[first:], stale)
                changed = min(changed, first)
            row += g
        return changed

    def _color(self, changed: int, shift: int | None) -> None:
        """Bring the drawn image's colours up to date: moved by ``shift`` columns and the
        columns from ``changed`` on looked up again (None: all of them)."""
        shown, colored = self._shown, self._colored
        if shift is None or colored is None or colored.shape != shown.shape:
            self._colored = self._lut32.take(shown)
            return
        width = shown.shape[1]
        if shift:
            colored[:, : width - shift] = colored[:, shift:]
        if changed < width:
            self._lut32.take(shown[:, changed:], out=colored[:, changed:])

    def _pool_shown(self, changed: int, shift: int | None) -> bool:
        """Bring the drawn image up to date: the image itself, or its rows pooled (see
        pool_rows), of which only the columns from ``changed`` on are pooled again after
        moving the rest by ``shift`` columns (None: pool it all). Returns whether it is
        a new array (not the last one moved and updated)."""
        pool = self._pool
        if pool <= 1:
            new = self._shown is not self.image
            self._shown, self._shown_pool = self.image, 1
            return new or shift is None
        rows = -(-self.image.shape[0] // pool)
        shown = self._shown
        if (
            shift is None
            or pool != self._shown_pool
            or shown is self.image
            or shown.shape != (rows, self.image.shape[1])
        ):
            self._shown, self._shown_pool = pool_rows(self.image, pool), pool
            return True
        width = shown.shape[1]
        if shift:
            shown[:, : width - shift] = shown[:, shift:]
        if changed < width:
            shown[:, changed:] = pool_rows(self.image[:, changed:], self._pool)
        return False

    def clear(self) -> None:
        self.rowmap = RowMap((), (), (), (), (), np.zeros(0, np.int32), np.zeros(0, np.int32))
        self._layout = ()
        self.axis.rowmap = self.rowmap
        self._relabel()
        self.image = np.full((0, 0), MISSING_U8, dtype=np.uint8)
        self._colored = self.item.colored = None
        self.item.clear()
        self.separators.setData([], [])
        self.marks.setData([], [])
        self.grid = None
        self._drawn = None

    def set_highlight(self, keys: dict[tuple[int, int], str]) -> None:
        """Mark the rows of the GPUs charted below, each in its curve's colour."""
        self._highlight = dict(keys)
        self._draw_marks()

    def _draw_separators(self) -> None:
        if self.grid is None or len(self.rowmap.starts) < 2:
            self.separators.setData([], [])
            return
        ys = np.repeat(np.asarray(self.rowmap.starts[1:], dtype=np.float64), 2)
        xs = np.tile([self.grid.start_s, self.grid.end_s], len(self.rowmap.starts) - 1)
        self.separators.setData(xs, ys)

    def _draw_marks(self) -> None:
        if self.grid is None or not self._highlight:
            self.marks.setData([], [])
            self._marked = None
            return
        key = (tuple(self._highlight.items()), self.rowmap.node_ids, self.rowmap.counts)
        if key != self._marked:  # new marks: made once, at x = 0
            self._marked = key
            spots = []
            for (node_id, gpu), color in self._highlight.items():
                row = self.rowmap.row_of(node_id, gpu)
                if row is not None:
                    spots.append({"pos": (0.0, row + 0.5), "brush": pg.mkBrush(color)})
            self.marks.setData(spots)
        # then only moved along with the window (a transform, not new points)
        self.marks.setPos(self.grid.end_s - (self.grid.end_s - self.grid.start_s) * 0.006, 0)

    # -- reading back ------------------------------------------------------------------------
    def gpu_at(self, row: int) -> tuple[int, str, int] | None:
        """(node id, node name, GPU slot) of an image row."""
        if not 0 <= row < self.rowmap.rows:
            return None
        i = int(self.rowmap.node_index[row])
        return self.rowmap.node_ids[i], self.rowmap.names[i], int(self.rowmap.gpu[row])

    def value_at(self, row: int, t_s: float) -> int | None:
        """The utilization shown at an image row and time, None for a gap or outside."""
        if self.grid is None or not 0 <= row < self.image.shape[0]:
            return None
        col = self.grid.column_at(t_s)
        if col is None:
            return None
        value = int(self.image[row, col])
        return None if value == MISSING_U8 else value

    def describe(self, row: int, t_s: float) -> str | None:
        """The hover text: ``node-3 GPU 5: 87% at 12:03:04`` (local time)."""
        gpu = self.gpu_at(row)
        if gpu is None or self.grid is None:
            return None
        col = self.grid.column_at(t_s)
        if col is None:
            return None
        _, name, slot = gpu
        at = time.strftime("%H:%M:%S", time.localtime(int(self.grid.ends_ms[col] - 1) // 1000))
        value = self.value_at(row, t_s)
        shown = f"{value}%" if value is not None else i18n.translate("GpuHeatmap", "no data")
        return i18n.translate("GpuHeatmap", "{name} GPU {slot}: {value} at {time}").format(
            name=name, slot=slot, value=shown, time=at
        )

    def scene_to_data(self, pos: QPointF) -> tuple[int, float] | None:
        """(row, time in epoch seconds) under a scene position inside the image."""
        vb = self.plot.vb
        if not vb.sceneBoundingRect().contains(pos):
            return None
        p = vb.mapSceneToView(pos)
        return math.floor(p.y()), float(p.x())

    def node_under_axis(self, pos: QPointF) -> int | None:
        if not self.axis.sceneBoundingRect().contains(pos):
            return None
        y = self.plot.vb.mapSceneToView(QPointF(self.plot.vb.sceneBoundingRect().left(), pos.y()))
        gpu = self.gpu_at(math.floor(y.y()))
        return None if gpu is None else gpu[0]

    def _hover(self, pos: QPointF) -> None:
        hit = self.scene_to_data(pos)
        text = None
        if hit is not None:
            text = self.describe(*hit)
        else:
            node = self.node_under_axis(pos)
            if node is not None:
                text = i18n.translate("GpuHeatmap", "{node}: click to chart its GPUs").format(
                    node=self._name_of(node)
                )
        if text:
            QToolTip.showText(QCursor.pos(), plain_tip(text), self.view)  # a node's name
        else:
            QToolTip.hideText()

    def _name_of(self, node_id: int) -> str:
        for nid, name in zip(self.rowmap.node_ids, self.rowmap.names, strict=True):
            if nid == node_id:
                return name
        return f"node {node_id}"

    def _click(self, event: object) -> None:
        button = event.button()  # type: ignore[attr-defined]
        if button != Qt.MouseButton.LeftButton:
            return
        pos = event.scenePos()  # type: ignore[attr-defined]
        hit = self.scene_to_data(pos)
        if hit is not None:
            gpu = self.gpu_at(hit[0])
            if gpu is not None:
                self.gpu_clicked.emit(gpu[0], gpu[2])
            return
        node = self.node_under_axis(pos)
        if node is not None:
            self.node_clicked.emit(node)
