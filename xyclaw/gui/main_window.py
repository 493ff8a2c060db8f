"""The main window: navigation on the left, one page per section on the right."""

from __future__ import annotations

from PySide6.QtCore import QFile, QIODevice
from PySide6.QtUiTools import QUiLoader
from PySide6.QtWidgets import (
    QLabel,
    QListWidget,
    QMainWindow,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from xyclaw.engine import Engine
from xyclaw.errors import XyclawError
from xyclaw.gui.pages import PAGES, PageInfo
from xyclaw.paths import bundled


def load_ui(name: str) -> QWidget:
    """A Qt Designer form from the bundled ``ui/`` folder."""
    path = bundled("ui") / name
    file = QFile(str(path))
    if not file.open(QIODevice.OpenModeFlag.ReadOnly):
        raise XyclawError(f"cannot open the form {path}", hint="reinstall XyClaw")
    try:
        widget = QUiLoader().load(file)
    finally:
        file.close()
    if widget is None:
        raise XyclawError(f"the form {path} is broken", hint="reinstall XyClaw")
    return widget


def _placeholder_page(info: PageInfo) -> QWidget:
    page = QWidget()
    page.setObjectName(f"page_{info.key}")
    layout = QVBoxLayout(page)
    layout.setContentsMargins(32, 28, 32, 28)
    title = QLabel(info.title)
    title.setProperty("role", "title")
    body = QLabel(info.summary)
    body.setProperty("role", "body")
    body.setWordWrap(True)
    layout.addWidget(title)
    layout.addWidget(body)
    layout.addStretch(1)
    return page


class MainWindowController:
    """Builds the window from its form and keeps references to its parts."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        window = load_ui("main_window.ui")
        assert isinstance(window, QMainWindow)
        self.window: QMainWindow = window
        self.navigation: QListWidget = window.findChild(QListWidget, "navigation")
        self.pages: QStackedWidget = window.findChild(QStackedWidget, "pages")
        for info in PAGES:
            self.navigation.addItem(info.title)
            self.pages.addWidget(_placeholder_page(info))
        self.navigation.currentRowChanged.connect(self.pages.setCurrentIndex)
        self.navigation.setCurrentRow(0)
        info = engine.store_info()
        brain = engine.config.llm.preset
        self.window.statusBar().showMessage(
            f"Data: {info.path.parent}  ·  schema v{info.schema_version}  ·  brain: {brain}"
        )

    def show_page(self, key: str) -> None:
        for row, info in enumerate(PAGES):
            if info.key == key:
                self.navigation.setCurrentRow(row)
                return
        raise KeyError(key)
