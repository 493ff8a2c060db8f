"""A coloured dot per state, the same in every table and the status bar: green for a
cluster or job at work (ready, running) and a connected provider, amber on the way
(requested, provisioning, queued, releasing, recovering), red for failed or unreachable,
grey once over (released, ended). The tones sit mid-way so they keep a 3:1 contrast on the
light and the dark theme's backgrounds alike (issue 28 item 8: the dots had no colour)."""

from __future__ import annotations

from functools import cache

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QIcon, QPainter, QPixmap

GREEN = "#15803d"
AMBER = "#b45309"
RED = "#dc2626"
GREY = "#7b8794"

DOT_COLORS = {
    # clusters
    "ready": GREEN,
    "requested": AMBER,
    "provisioning": AMBER,
    "bootstrapping": AMBER,
    "releasing": AMBER,
    "failed": RED,
    "released": GREY,
    "gone": GREY,
    # jobs
    "running": GREEN,
    "queued": AMBER,
    "setting-up": AMBER,
    "recovering": AMBER,
    "lost-contact": AMBER,
    "succeeded": GREY,
    "cancelled": GREY,
    # providers (the status bar)
    "connected": GREEN,
    "unreachable": RED,
}


def dot_color(state: str) -> str:
    """The dot's colour for a state's value; grey for one this table does not know."""
    return DOT_COLORS.get(str(state), GREY)


@cache
def _dot_icon(color: str, size: int) -> QIcon:
    pixmap = QPixmap(size, size)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(QColor(color))
    painter.drawEllipse(1, 1, size - 2, size - 2)
    painter.end()
    return QIcon(pixmap)


def dot_icon(state: str, size: int = 10) -> QIcon:
    """A table cell's dot for ``state`` (drawn once per colour)."""
    return _dot_icon(dot_color(state), size)
