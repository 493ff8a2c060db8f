"""Work that waits until a window was drawn for the first time."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QApplication, QWidget


class _FirstPaint(QObject):
    """Calls ``then`` once, at the turn of the event loop after ``window`` was first drawn."""

    def __init__(self, window: QWidget, then: Callable[[], None]) -> None:
        super().__init__(window)
        self._window = window
        self._then: Callable[[], None] | None = then
        app = QApplication.instance()
        if app is not None:
            app.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if (
            self._then is not None
            and event.type() == QEvent.Type.Paint
            and isinstance(watched, QWidget)
            and watched.window() is self._window
        ):
            then, self._then = self._then, None
            app = QApplication.instance()
            if app is not None:
                app.removeEventFilter(self)
            QTimer.singleShot(0, then)
        return False


def after_first_paint(window: QWidget, then: Callable[[], None]) -> None:
    """Run ``then`` on the main thread once ``window`` has been drawn for the first time."""
    _FirstPaint(window, then)
