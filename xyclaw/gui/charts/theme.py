"""Chart colours that follow the app's theme (ui/themes/light.qss and dark.qss).

The themes are style sheets, which pyqtgraph does not read; a chart asks its
widget's palette (set from the style sheet once polished) whether it sits on a
dark background and picks the matching colours here.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QWidget

#: The heatmap's value for "no sample" (the packed records' missing uint8).
MISSING_U8 = 255


@dataclass(frozen=True)
class ChartTheme:
    dark: bool
    background: str
    foreground: str
    muted: str
    grid_alpha: float
    missing: str  # heatmap cells without a sample
    separator: str  # lines between nodes on the heatmap


LIGHT = ChartTheme(
    dark=False,
    background="#ffffff",
    foreground="#374151",
    muted="#6b7280",
    grid_alpha=0.25,
    missing="#e5e7eb",
    separator="#ffffff",
)
DARK = ChartTheme(
    dark=True,
    background="#111827",
    foreground="#d1d5db",
    muted="#9ca3af",
    grid_alpha=0.2,
    missing="#1f2937",
    separator="#111827",
)

#: Sixteen curve colours that stay apart on white and on #111827 (Tableau 10, then six more).
CURVE_COLORS: tuple[str, ...] = (
    "#4e79a7",
    "#f28e2b",
    "#e15759",
    "#76b7b2",
    "#59a14f",
    "#edc948",
    "#b07aa1",
    "#ff9da7",
    "#9c755f",
    "#8c8c8c",
    "#1f77b4",
    "#d62728",
    "#2ca02c",
    "#9467bd",
    "#17becf",
    "#bcbd22",
)

SEVERITY_COLORS = {
    "critical": "#dc2626",
    "error": "#ea580c",
    "warning": "#d97706",
    "info": "#2563eb",
}


def theme_for(widget: QWidget) -> ChartTheme:
    """DARK when the widget's (style-sheet) background is dark, else LIGHT."""
    widget.ensurePolished()
    window = widget.palette().color(QPalette.ColorRole.Window)
    return DARK if window.lightness() < 110 else LIGHT


def heatmap_lut(theme: ChartTheme) -> npt.NDArray[np.uint8]:
    """256 RGB rows for uint8 utilization: 0-100 along viridis, above 100 as 100, and
    MISSING_U8 in the theme's "no data" grey, so the image is drawn as an indexed QImage
    with no per-pixel work."""
    import pyqtgraph as pg

    cmap = pg.colormap.get("viridis")
    ramp = np.asarray(cmap.getLookupTable(0.0, 1.0, 101, alpha=False), dtype=np.uint8)
    lut = np.empty((256, 3), dtype=np.uint8)
    lut[:101] = ramp
    lut[101:] = ramp[-1]
    missing = theme.missing.lstrip("#")
    lut[MISSING_U8] = [int(missing[i : i + 2], 16) for i in (0, 2, 4)]
    return lut
