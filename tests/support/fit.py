"""What a user sees cut off: every visible label and button whose text is wider than the
room it has, and every chart squeezed under a readable height (issue 28, "How well").

A label or button fits when ``fontMetrics().horizontalAdvance(text)`` is at most its
``contentsRect().width()`` (a button's icon and a label's indent taken off too); a text
elided on purpose (it holds "…") and showing the whole in a tooltip counts as fitting, as
does a word-wrapped label (it wraps; each of its words must fit). A chart is a pyqtgraph
plot: each visible one is at least ``MIN_PLOT_PX`` tall.
"""

from __future__ import annotations

import re

from PySide6.QtCore import Qt
from PySide6.QtGui import Qt as GuiQt
from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import QHeaderView, QLabel, QPushButton, QStyle, QWidget

MIN_PLOT_PX = 120


def _plain(label: QLabel) -> str:
    text = label.text()
    rich = label.textFormat() == Qt.TextFormat.RichText or (
        label.textFormat() == Qt.TextFormat.AutoText and GuiQt.mightBeRichText(text)  # type: ignore[attr-defined]
    )
    if rich:
        doc = QTextDocument()
        doc.setHtml(text)
        return doc.toPlainText()
    return text


def _shown(widget: QWidget) -> bool:
    return widget.isVisible() and widget.width() > 0 and widget.height() > 0


def _where(widget: QWidget) -> str:
    names = []
    w: QWidget | None = widget
    while w is not None and len(names) < 4:
        names.append(w.objectName() or type(w).__name__)
        w = w.parentWidget()
    return "/".join(reversed(names))


def _too_wide(widget: QWidget, text: str, room: int) -> list[str]:
    metrics = widget.fontMetrics()
    out = []
    for line in text.splitlines():
        need = metrics.horizontalAdvance(line)
        if need > room:
            out.append(f"{_where(widget)}: {line!r} needs {need} px, has {room}")
    return out


def _elided_on_purpose(widget: QWidget, text: str) -> bool:
    return "…" in text and bool(widget.toolTip())


def misfits(root: QWidget) -> list[str]:
    """Every visible label or button under ``root`` whose text does not fit its width."""
    found: list[str] = []
    for label in root.findChildren(QLabel):
        if not _shown(label) or not label.text() or _elided_on_purpose(label, label.text()):
            continue
        text = _plain(label)
        room = label.contentsRect().width() - max(label.indent(), 0) - 2 * label.margin()
        if label.wordWrap():  # it wraps: each word must fit (CJK text breaks anywhere)
            words = [
                w for w in re.split(r"\s+", text) if w and not re.search(r"[\u3000-\u9fff]", w)
            ]
            for word in words:
                found += _too_wide(label, word, room)
            continue
        found += _too_wide(label, text, room)
    for button in root.findChildren(QPushButton):
        if not _shown(button) or not button.text():
            continue
        text = button.text().replace("&&", "\0").replace("&", "").replace("\0", "&")
        if _elided_on_purpose(button, text):
            continue
        room = button.contentsRect().width()
        if not button.icon().isNull():
            room -= button.iconSize().width() + 4
        found += _too_wide(button, text, room)
        if button.width() < button.minimumSizeHint().width():
            found.append(
                f"{_where(button)}: {text!r} is {button.width()} px wide, "
                f"its style needs {button.minimumSizeHint().width()}"
            )
    for header in root.findChildren(QHeaderView):
        found += _header_misfits(header)
    return found


def _header_misfits(header: QHeaderView) -> list[str]:
    """A table's column titles: each fits its column, sort arrow included, and none is
    pushed out of sight (the last column cut at the table's right edge)."""
    if not _shown(header) or header.orientation() != Qt.Orientation.Horizontal:
        return []
    model = header.model()
    if model is None:
        return []
    found: list[str] = []
    metrics = header.fontMetrics()
    margin = header.style().pixelMetric(QStyle.PixelMetric.PM_HeaderMargin, None, header)
    arrow = header.style().pixelMetric(QStyle.PixelMetric.PM_HeaderMarkSize, None, header)
    width = header.viewport().width()
    for section in range(header.count()):
        if header.isSectionHidden(section):
            continue
        text = str(model.headerData(section, Qt.Orientation.Horizontal) or "")
        size = header.sectionSize(section)
        if not text or size <= 0:
            continue
        need = metrics.horizontalAdvance(text) + 2 * margin
        if header.isSortIndicatorShown() and header.sortIndicatorSection() == section:
            need += arrow + margin
        if need > size:
            found.append(f"{_where(header)}: column {text!r} needs {need} px, has {size}")
        right = header.sectionViewportPosition(section) + size
        if right > width + 1 and header.offset() == 0:
            found.append(
                f"{_where(header)}: column {text!r} ends at {right} px, the table shows {width}"
            )
    return found


def squeezed_plots(root: QWidget) -> list[str]:
    """Every visible pyqtgraph plot under ``root`` shorter than MIN_PLOT_PX."""
    import pyqtgraph as pg

    found: list[str] = []
    for view in root.findChildren(pg.GraphicsView):
        if not _shown(view):
            continue
        for item in view.scene().items():
            if isinstance(item, pg.PlotItem) and item.isVisible():
                height = round(item.geometry().height())
                if height < MIN_PLOT_PX:
                    found.append(f"{_where(view)}: a plot {height} px tall")
    return found


__all__ = ["MIN_PLOT_PX", "misfits", "squeezed_plots"]
