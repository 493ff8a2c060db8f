"""Loading the Qt Designer forms of ``ui/`` and finding their parts by name."""

from __future__ import annotations

from functools import cache
from typing import TypeVar

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, Qt
from PySide6.QtGui import QIcon
from PySide6.QtUiTools import QUiLoader
from PySide6.QtWidgets import QLabel, QWidget

from xyclaw.errors import XyclawError
from xyclaw.paths import bundled

W = TypeVar("W", bound=QWidget)


@cache
def _form_bytes(name: str) -> bytes:
    path = bundled("ui") / name
    try:
        return path.read_bytes()
    except OSError as exc:
        raise XyclawError(f"cannot open the form {path}", hint="reinstall XyClaw") from exc


def load_ui(name: str, parent: QWidget | None = None) -> QWidget:
    """A form from the bundled ``ui/`` folder (read once, built as often as needed).

    Its labels show plain text: a label the code fills with a name, a message or a
    model's words must not render them as HTML when they look like it. A label that
    shows HTML the app builds says so itself (``setTextFormat(Qt.TextFormat.RichText)``,
    its data escaped with ``widgets.html_text``).
    """
    buffer = QBuffer()
    buffer.setData(QByteArray(_form_bytes(name)))
    buffer.open(QIODevice.OpenModeFlag.ReadOnly)
    loader = QUiLoader()
    loader.setLanguageChangeEnabled(True)  # the form re-reads its words when the language changes
    try:
        widget = loader.load(buffer, parent)
    finally:
        buffer.close()
    if widget is None:
        raise XyclawError(f"the form ui/{name} is broken", hint="reinstall XyClaw")
    for label in widget.findChildren(QLabel):
        if label.textFormat() == Qt.TextFormat.AutoText:
            label.setTextFormat(Qt.TextFormat.PlainText)
    return widget


def child(form: QWidget, kind: type[W], name: str) -> W:
    """The named part of a form; a missing one is a broken install, said plainly."""
    found = form.findChild(kind, name)
    if found is None:
        raise XyclawError(
            f"the form {form.objectName()} has no {kind.__name__} {name!r}",
            hint="reinstall XyClaw",
        )
    return found


@cache
def icon(name: str) -> QIcon:
    """An SVG icon from ``resources/icons``."""
    return QIcon(str(bundled("resources") / "icons" / f"{name}.svg"))
