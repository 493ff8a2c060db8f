"""What the pages and flows are handed by the window, as Protocols that import no page.

The window (``main_window``) builds every page; if the pages imported the window's own
classes to name what they are handed, each page and the window would import each other
(issue 35: eleven modules in one circle). So the pages name these shapes instead, and
``main_window``'s :class:`~xyclaw.gui.main_window.WindowContext` and
:class:`~xyclaw.gui.main_window.MainWindowController` have them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from PySide6.QtWidgets import QMainWindow, QWidget

    from xyclaw.engine import Engine
    from xyclaw.gui.bridge import EngineBridge, ErrorInfo, Worker
    from xyclaw.gui.operations_panel import OperationsPanel
    from xyclaw.gui.tray import TrayController


class GuiContext(Protocol):
    """What every page gets: the engine, the agents (once started), the bridge, the worker."""

    engine: Engine
    bridge: EngineBridge
    worker: Worker
    runtime: Any | None
    operations: OperationsPanel | None
    tray: TrayController | None
    pages: dict[str, QWidget]
    monitor: Any | None  # the Monitor page's wiring, when it could be built

    def show_error(self, error: ErrorInfo) -> None:
        """Show an error a page does not show itself."""

    def show_page(self, key: str) -> None:
        """Switch the window to the page ``key``."""


class WindowController(Protocol):
    """The window as the quit flow and the tour drive it (read, never replaced)."""

    @property
    def engine(self) -> Engine: ...

    @property
    def worker(self) -> Worker: ...

    @property
    def window(self) -> QMainWindow: ...

    @property
    def context(self) -> GuiContext: ...

    @property
    def operations(self) -> OperationsPanel: ...

    @property
    def page_widgets(self) -> dict[str, QWidget]: ...

    def show_page(self, key: str) -> None: ...

    def show_error(self, error: ErrorInfo) -> None: ...

    def show_operations(self) -> None: ...

    def quit_now(self) -> None: ...
