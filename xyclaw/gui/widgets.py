"""Small widgets the pages share: Markdown that sizes to its text, a flow layout for chips,
a badge, slots that do not keep their page alive, and the ways to show untrusted text.

Text from a model, a remote machine, a provider or a name is data: a QLabel or a tooltip
renders it as HTML when it looks like HTML (``Qt.mightBeRichText``), so
``<font color="#fff">rm -rf /workspace;</font> nvidia-smi -L`` would hide its own first half.
Such text goes through :func:`plain_label` / :func:`set_plain` (a plain-text label, the text
drawn through :mod:`xyclaw.wording.display`), :func:`plain_tip` (a tooltip Qt cannot read as
HTML) or :class:`MarkdownView` (Markdown with raw HTML shown as text).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QPoint, QRect, QSize, Qt, QTimer
from PySide6.QtGui import (
    QColor,
    QResizeEvent,
    QTextBlockFormat,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextFormat,
    QTextOption,
)
from PySide6.QtWidgets import (
    QFrame,
    QLabel,
    QLayout,
    QLayoutItem,
    QSizePolicy,
    QTextBrowser,
    QWidget,
)


def _shown(text: object, multiline: bool) -> str:
    from xyclaw.wording import display

    return display.text(text) if multiline else display.line(text)


def plain_label(
    text: object = "", *, multiline: bool = False, parent: QWidget | None = None
) -> QLabel:
    """A label for data: plain text (never HTML), controls, escapes, bidi and invisible
    characters made visible; ``multiline`` keeps the text's own newlines (a log's lines),
    else a newline shows as ``␊`` (a field: a command on a card)."""
    label = QLabel(parent)
    set_plain(label, text, multiline=multiline)
    return label


def set_plain(label: QLabel, text: object, *, multiline: bool = False) -> None:
    """Show data in ``label`` (one built elsewhere, a form's): as :func:`plain_label` does."""
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setText(_shown(text, multiline))


def plain_tip(text: object) -> str:
    """A tooltip that shows ``text`` literally: a tooltip is rendered as HTML when it looks
    like HTML, so such text is escaped (and its lines kept) for Qt to render as written."""
    import html

    from PySide6 import QtGui

    shown = _shown(text, True)
    if not QtGui.Qt.mightBeRichText(shown):
        return shown
    escaped = html.escape(shown, quote=False).replace("\n", "<br>")
    return f"<p style='white-space:pre-wrap'>{escaped}</p>"


def html_text(text: object, *, multiline: bool = False) -> str:
    """Data inside HTML the app builds (a node's details, an alert's head): drawn through
    :mod:`xyclaw.wording.display`, then escaped."""
    import html

    return html.escape(_shown(text, multiline), quote=False)


#: Marks a table or tree cell whose text the GUI wrote (and translated), for tests.
TRANSLATED_ROLE = int(Qt.ItemDataRole.UserRole) + 41
#: Marks a cell that shows data as it is in every language (a name, a command, a node's words).
DATA_ROLE = int(Qt.ItemDataRole.UserRole) + 42


_MARKDOWN = (
    QTextDocument.MarkdownFeature.MarkdownDialectGitHub
    | QTextDocument.MarkdownFeature.MarkdownNoHTML
)


class MarkdownView(QTextBrowser):
    """Read-only Markdown (code blocks, tables, lists) as tall as its text, no scroll bar.

    ``set_markdown`` renders at once; ``append_streamed`` collects streamed tokens
    and renders at most every ``render_ms`` so long replies stay cheap.
    """

    def __init__(self, text: str = "", parent: QWidget | None = None, *, render_ms: int = 40):
        super().__init__(parent)
        self.setObjectName("markdown")
        self.setOpenExternalLinks(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setWordWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
        self.document().setDocumentMargin(2)
        self.viewport().setAutoFillBackground(False)
        self._text = ""
        self._render = QTimer(self)
        self._render.setSingleShot(True)
        self._render.setInterval(render_ms)
        self._render.timeout.connect(self._render_now)
        self.document().contentsChanged.connect(self._fit)
        if text:
            self.set_markdown(text)
        else:
            self._fit()

    @property
    def markdown(self) -> str:
        return self._text

    def set_markdown(self, text: str) -> None:
        self._text = text
        self._render.stop()
        self._render_now()

    def append_streamed(self, text: str) -> None:
        self._text += text
        if not self._render.isActive():
            self._render.start()

    def flush(self) -> None:
        if self._render.isActive():
            self._render.stop()
            self._render_now()

    def _render_now(self) -> None:
        # Raw HTML in the text (a model's reply may hold some) is shown as the text it is,
        # never rendered: no hidden or recoloured words, no image fetched.
        from xyclaw.wording import display

        self.document().setMarkdown(display.text(self._text), _MARKDOWN)
        _shade_code(self.document())
        self._fit()

    def _fit(self) -> None:
        width = self.viewport().width()
        if width > 0:
            self.document().setTextWidth(width)
        height = int(self.document().size().height()) + 2 * self.frameWidth() + 2
        if self.height() != height:
            self.setFixedHeight(max(height, 20))

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if event.size().width() != event.oldSize().width():
            self._fit()


_CODE_BACKGROUND = QColor(127, 127, 127, 40)  # readable on the light and the dark theme


def _shade_code(document: QTextDocument) -> None:
    """Give code blocks and inline code a background (Markdown import sets none)."""
    cursor = QTextCursor(document)
    block = document.begin()
    while block.isValid():
        fmt = block.blockFormat()
        if fmt.hasProperty(QTextFormat.Property.BlockCodeLanguage) or fmt.nonBreakableLines():
            shade = QTextBlockFormat()
            shade.setBackground(_CODE_BACKGROUND)
            cursor.setPosition(block.position())
            cursor.mergeBlockFormat(shade)
        else:
            it = block.begin()
            while not it.atEnd():
                fragment = it.fragment()
                if fragment.charFormat().fontFixedPitch():
                    cursor.setPosition(fragment.position())
                    cursor.setPosition(
                        fragment.position() + fragment.length(), QTextCursor.MoveMode.KeepAnchor
                    )
                    inline = QTextCharFormat()
                    inline.setBackground(_CODE_BACKGROUND)
                    cursor.mergeCharFormat(inline)
                it += 1
        block = block.next()


class Badge(QLabel):
    """A small coloured label; its colour comes from the theme by ``kind`` and ``value``."""

    def __init__(self, text: str, kind: str, value: str, parent: QWidget | None = None):
        super().__init__(text, parent)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setProperty("badge", kind)
        self.setProperty(kind, value)
        self.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)


class FlowLayout(QLayout):
    """Children left to right, wrapping to the next line (Qt's flow layout example)."""

    def __init__(self, parent: QWidget | None = None, spacing: int = 8) -> None:
        super().__init__(parent)
        self._items: list[QLayoutItem] = []
        self._spacing = spacing
        self.setContentsMargins(0, 0, 0, 0)

    def addItem(self, item: QLayoutItem) -> None:
        self._items.append(item)

    def count(self) -> int:
        return len(self._items)

    def itemAt(self, index: int) -> QLayoutItem | None:
        return self._items[index] if 0 <= index < len(self._items) else None

    def takeAt(self, index: int) -> QLayoutItem | None:
        return self._items.pop(index) if 0 <= index < len(self._items) else None

    def expandingDirections(self) -> Qt.Orientation:
        return Qt.Orientation(0)

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        return self._arrange(QRect(0, 0, width, 0), apply=False)

    def setGeometry(self, rect: QRect) -> None:
        super().setGeometry(rect)
        self._arrange(rect, apply=True)

    def sizeHint(self) -> QSize:
        return self.minimumSize()

    def minimumSize(self) -> QSize:
        size = QSize()
        for item in self._items:
            size = size.expandedTo(item.minimumSize())
        margins = self.contentsMargins()
        return size + QSize(margins.left() + margins.right(), margins.top() + margins.bottom())

    def _arrange(self, rect: QRect, *, apply: bool) -> int:
        margins = self.contentsMargins()
        area = rect.adjusted(margins.left(), margins.top(), -margins.right(), -margins.bottom())
        x, y, line = area.x(), area.y(), 0
        for item in self._items:
            hint = item.sizeHint()
            if x + hint.width() > area.right() + 1 and line > 0:
                x = area.x()
                y += line + self._spacing
                line = 0
            if apply:
                item.setGeometry(QRect(QPoint(x, y), hint))
            x += hint.width() + self._spacing
            line = max(line, hint.height())
        return y + line - rect.y() + margins.bottom()


def weak_slot(method: Callable[..., Any], *args: Any) -> Callable[..., None]:
    """A slot for a child deleted on its own (a row's button, a chip, a card) that calls
    ``method(*args)`` while ``method``'s object lives, without holding that object.

    A lambda over ``self`` connected to such a child is held by the child's connection;
    where nothing else holds the page (a page or panel without a Qt parent), Qt's deletion
    of the child drops the page's last reference, and the page is destroyed from inside
    the child's destructor, deleting that child a second time: heap corruption
    ("malloc_consolidate(): unaligned fastbin chunk"). The signal's own arguments are
    dropped."""
    ref = weakref.WeakMethod(method)

    def call(*_signal_args: Any) -> None:
        bound = ref()
        if bound is not None:
            bound(*args)

    return call
