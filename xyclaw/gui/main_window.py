"""The main window: navigation on the left, one page per section, the operations panel,
the status bar, the tray, and what closing and quitting do.

Widgets here only show and forward: every engine or agent call runs on the
:class:`~xyclaw.gui.bridge.Worker`, every engine event arrives through the
:class:`~xyclaw.gui.bridge.EngineBridge`.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import QCoreApplication, QEvent, QObject, Qt
from PySide6.QtGui import QCloseEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QApplication,
    QDockWidget,
    QLabel,
    QListWidget,
    QMainWindow,
    QStackedWidget,
    QStatusBar,
    QVBoxLayout,
    QWidget,
)

from xyclaw.engine import Engine
from xyclaw.errors import XyclawError
from xyclaw.gui.bridge import EngineBridge, ErrorInfo, Worker
from xyclaw.gui.context import GuiContext
from xyclaw.gui.first_paint import after_first_paint
from xyclaw.gui.forms import child, icon, load_ui
from xyclaw.gui.operations_panel import OperationsPanel
from xyclaw.gui.pages import PAGES, PageInfo
from xyclaw.gui.quit_flow import QuitFlow
from xyclaw.gui.status import StatusBarController, StatusSnapshot, read_snapshot
from xyclaw.gui.tray import TrayController
from xyclaw.gui.widgets import plain_label, plain_tip

log = logging.getLogger(__name__)
translate = QCoreApplication.translate  # lupdate reads translate("Context", "text") calls

__all__ = ["GuiContext", "MainWindowController", "WindowContext", "load_ui"]


@dataclass
class WindowContext:
    """What every page gets (:class:`~xyclaw.gui.context.GuiContext`): the engine, the
    agents (once started), the bridge, the worker."""

    engine: Engine
    bridge: EngineBridge
    worker: Worker
    runtime: Any | None = None
    operations: OperationsPanel | None = None
    tray: TrayController | None = None
    pages: dict[str, QWidget] = field(default_factory=dict)
    monitor: Any | None = None  # the Monitor page's wiring, when it could be built

    def show_error(self, error: ErrorInfo) -> None:
        """Fallback for errors a page does not show itself: the status bar."""
        log.warning("%s", error.message)

    def show_page(self, key: str) -> None:
        """Replaced by the window with one that switches to the page."""


PageFactory = Callable[[GuiContext], QWidget]


class OperationGone(XyclawError):
    """Cancel came too late: the operation already ended."""

    def __init__(self, operation_id: int) -> None:
        super().__init__(
            f"operation {operation_id} has already finished",
            hint="the operations panel shows how it ended",
        )


def _placeholder_page(info: PageInfo) -> QWidget:
    page = QWidget()
    page.setObjectName(f"page_{info.key}")
    page.setProperty("placeholder", True)
    layout = QVBoxLayout(page)
    layout.setContentsMargins(32, 28, 32, 28)
    title = plain_label(info.title)
    title.setProperty("role", "title")
    body = plain_label(info.summary)
    body.setProperty("role", "body")
    body.setWordWrap(True)
    layout.addWidget(title)
    layout.addWidget(body)
    layout.addStretch(1)
    return page


def _chat_page(context: GuiContext) -> QWidget:
    from xyclaw.gui.chat.page import ChatPage

    return ChatPage(context)


def _monitor_page(context: GuiContext) -> QWidget | None:
    from xyclaw.gui.monitor_wiring import create_monitor_page

    return create_monitor_page(context)


def _plan_page(context: GuiContext) -> QWidget:
    from xyclaw.gui.plan_page import PlanPage

    return PlanPage(context)


def _clusters_page(context: GuiContext) -> QWidget:
    from xyclaw.gui.clusters_page import ClustersPage

    return ClustersPage(context)


def _jobs_page(context: GuiContext) -> QWidget:
    from xyclaw.gui.jobs_page import create_jobs_page

    return create_jobs_page(context)


def _history_page(context: GuiContext) -> QWidget:
    from xyclaw.gui.history_page import create_history_page

    return create_history_page(context)


def _settings_page(context: GuiContext) -> QWidget:
    from xyclaw.gui.settings_page import create_settings_page

    return create_settings_page(context)


DEFAULT_PAGES: dict[str, Callable[[GuiContext], QWidget | None]] = {
    "chat": _chat_page,
    "plan": _plan_page,
    "clusters": _clusters_page,
    "jobs": _jobs_page,
    "monitor": _monitor_page,
    "history": _history_page,
    "settings": _settings_page,
}


#: Pages built right after the window's first paint rather than when first shown.
BUILT_AFTER_FIRST_PAINT = ("clusters",)
# Built hidden once the start-up's imports are done (by the desktop app, not by every window
# a test makes), as their first open was too long: the Monitor's charts took 150-250 ms to
# build, the Jobs page 70-90 ms of the main thread's CPU (69-228 ms in wall time, Xvfb, 2
# cores). Each page built ahead adds to a theme switch (75 ms to about 110 with Jobs).
PREBUILT_PAGES = ("monitor", "jobs")


class _CloseFilter(QObject):
    """Turns the window's close into the controller's decision (tray or quit)."""

    def __init__(self, controller: MainWindowController) -> None:
        super().__init__(controller.window)
        self._controller = controller

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Close and isinstance(event, QCloseEvent):
            return self._controller._close_requested(event)
        if event.type() == QEvent.Type.LanguageChange and watched is self._controller.window:
            self._controller.retranslate()
        return False


class PageSet(dict[str, QWidget]):
    """The window's pages by key, built on first use: a key not built yet is built when it
    is looked up (``pages["jobs"]``, ``pages.get("jobs")``); ``key in pages`` and iterating
    see only the pages built so far."""

    def __init__(self, build: Callable[[str], QWidget | None]) -> None:
        super().__init__()
        self._build = build

    def __missing__(self, key: str) -> QWidget:
        widget = self._build(key)
        if widget is None:
            raise KeyError(key)
        return widget

    def get(self, key: str, default: Any = None) -> Any:
        try:
            return self[key]
        except KeyError:
            return default

    def built(self, key: str) -> QWidget | None:
        """The page if it is built already (never builds it)."""
        return dict.get(self, key)


def _clear_tooltip_with_message(bar: QStatusBar, message: str) -> None:
    """The status bar's tooltip (a long message's whole) goes with its message. Through the
    bar itself, never the window: the bar clears its message while the window that held it is
    being deleted (seen as "QMainWindow already deleted" when the app quit)."""
    import shiboken6

    if not message and shiboken6.isValid(bar):
        bar.setToolTip("")


class MainWindowController:
    """Builds the window from its form and keeps references to its parts."""

    def __init__(
        self,
        engine: Engine,
        runtime: Any | None = None,
        *,
        tray_available: bool | None = None,
        on_quit: Callable[[], None] | None = None,
        pages: dict[str, Callable[[GuiContext], QWidget | None]] | None = None,
        status_refresh_ms: int = 5000,
        import_in_steps: bool = False,
    ) -> None:
        self.engine = engine
        self._import_in_steps = import_in_steps
        window = load_ui("main_window.ui")
        assert isinstance(window, QMainWindow)
        self.window: QMainWindow = window
        self.window.setWindowIcon(icon("xyclaw"))
        self.worker = Worker(window)
        self.bridge = EngineBridge.for_engine(engine, window)
        # A cluster ready while the window is open is watched at once: its samples, alerts
        # and tray notices must not wait for the Monitor page (built when first shown).
        engine.watch_when_ready()
        self.context = WindowContext(engine=engine, bridge=self.bridge, worker=self.worker)
        self.context.show_error = self.show_error  # type: ignore[method-assign]
        self.context.show_page = self.show_page  # type: ignore[method-assign]
        self._on_quit = on_quit or QApplication.quit
        self._quitting = False
        self._announced: set[int] = set()
        self._data_said = ""  # the data folder's message on the status bar, as last shown
        self._data_shown = ""  # and as the bar shows it (elided to its room)
        self.closed_to_tray = False

        # Operations panel (bottom dock).
        self.operations = OperationsPanel(self._cancel_lookup)
        self.operations_dock = child(window, QDockWidget, "operationsDock")
        child(window, QWidget, "operationsHost").layout().addWidget(self.operations)
        self.operations_dock.hide()
        self.bridge.operation_progress.connect(self.operations.on_progress)
        self.bridge.operation_progress.connect(self._operation_seen)
        self.context.operations = self.operations

        # Tray.
        self.tray = TrayController(icon("xyclaw"), self.bridge, available=tray_available)
        self.tray.window_active = lambda: self.window.isVisible() and self.window.isActiveWindow()
        self.tray.show_requested.connect(self.show_window)
        self.tray.quit_requested.connect(self.request_quit)
        self.tray.notified.connect(
            lambda n: self.say_in_status_bar(f"{n.title}: {n.message}", 15000)
        )
        self.context.tray = self.tray
        # a message elided on the status bar has its whole in the bar's tooltip while shown
        bar = self.window.statusBar()
        bar.messageChanged.connect(functools.partial(_clear_tooltip_with_message, bar))
        from xyclaw.gui.replacement_flow import ReplacementApprovals

        # a followed job's lost node: its replacement's quote waits for a yes here
        self.replacements = ReplacementApprovals(engine, self.bridge, window)
        from xyclaw.gui.unlisted_flow import UnlistedApprovals

        # a cluster its provider no longer lists: "forget it?" waits for a yes here (issue 31)
        self.unlisted = UnlistedApprovals(engine, self.bridge, window, worker=self.worker)

        # Status bar.
        self.status = StatusBarController(
            window.statusBar(),
            self.worker,
            self.bridge,
            lambda known: read_snapshot(engine, self.context.runtime, known),
            refresh_ms=status_refresh_ms,
        )
        self.status.operations.clicked.connect(self.toggle_operations)
        self.operations.running_changed.connect(self.status.set_operations)
        self.status.on_snapshot = self._snapshot_shown

        # Pages: the sidebar lists them all; a page is built when it is first shown (or
        # first asked for), so the window paints after building only the first one.
        self.navigation: QListWidget = child(window, QListWidget, "navigation")
        self.pages: QStackedWidget = child(window, QStackedWidget, "pages")
        self.page_widgets: PageSet = PageSet(self._build_page)
        self.context.pages = self.page_widgets
        self._factories = dict(DEFAULT_PAGES if pages is None else pages)
        for info in PAGES:
            self.navigation.addItem(info.title)
            item = self.navigation.item(self.navigation.count() - 1)
            item.setIcon(icon(f"page-{info.key}"))
            item.setToolTip(plain_tip(info.summary))
            slot = QWidget()  # stands in for the page until it is built
            slot.setObjectName(f"slot_{info.key}")
            self.pages.addWidget(slot)
        self.navigation.currentRowChanged.connect(self._row_changed)
        self.navigation.setCurrentRow(0)
        self._row_changed(0)  # the first page is complete at the first paint
        # Built at once after the first paint, shown or not: what they keep from this
        # session's events (the Clusters page: bootstrap results, idle countdowns, and the
        # window's host-key questions) cannot be read back later.
        # With ``import_in_steps`` (the desktop app), first, a step per event-loop turn, the
        # imports of every page (all on this thread: PySide6's lazy types are not
        # thread-safe); what waits for them runs then (when_started). A window that a test
        # makes imports a page's code when the page is built, as it always did.
        self.started = False
        self._when_started: list[Callable[[], None]] = []
        after_first_paint(window, self._start_up)
        for row in range(min(9, len(PAGES))):
            shortcut = QShortcut(QKeySequence(f"Ctrl+{row + 1}"), window)
            shortcut.activated.connect(lambda r=row: self.navigation.setCurrentRow(r))
        from xyclaw.gui.shortcuts import install as install_shortcuts

        self.shortcuts = install_shortcuts(self)  # Ctrl+F, Ctrl+N, approve/reject keys
        from xyclaw.gui.tour import install_tour

        self.tour = install_tour(self)  # the first-run welcome on the chat, "Take the tour"

        self.quit_flow = QuitFlow(self)
        self._close_filter = _CloseFilter(self)
        window.installEventFilter(self._close_filter)
        self._show_data_folder()
        if runtime is not None:
            self.attach_runtime(runtime)
        self.status.refresh()

    def _data_folder_text(self) -> str:
        return translate("MainWindow", "Data: {folder}").format(folder=self.engine.paths.data_dir)

    def _show_data_folder(self) -> None:
        """Where the data is, for a few seconds at the start (again in a new language)."""
        self._data_said = self._data_folder_text()
        self._data_shown = self.say_in_status_bar(self._data_said, 8000)

    def retranslate(self) -> None:
        """The navigation's, status bar's, operations panel's and tray's words in the GUI's
        language (pages retranslate themselves)."""
        if self._quitting:
            return
        if self._data_said and self.window.statusBar().currentMessage() == self._data_shown:
            self._show_data_folder()
        self.status.retranslate()
        self.operations.retranslate()
        self.tray.retranslate()
        for row, info in enumerate(PAGES):
            item = self.navigation.item(row)
            if item is not None:
                item.setText(info.title)
                item.setToolTip(plain_tip(info.summary))
        for info in PAGES:
            page = self.page_widgets.built(info.key)
            if page is not None and page.property("placeholder"):
                labels = page.findChildren(QLabel)
                if len(labels) >= 2:
                    labels[0].setText(info.title)
                    labels[1].setText(info.summary)

    # -- agents ---------------------------------------------------------------------------------
    def attach_runtime(self, runtime: Any) -> None:
        """The agents are ready (they start on a worker after the window shows)."""
        self.context.runtime = runtime
        chat = self.page_widgets.get("chat")
        if chat is not None and hasattr(chat, "attach_runtime"):
            chat.attach_runtime(runtime)
            chat.turn_finished.connect(lambda _result: self.status.refresh())
        self.status.refresh()

    @property
    def chat(self) -> Any:
        return self.page_widgets["chat"]

    # -- pages ----------------------------------------------------------------------------------
    def show_page(self, key: str) -> None:
        for row, info in enumerate(PAGES):
            if info.key == key:
                self.navigation.setCurrentRow(row)
                return
        raise KeyError(key)

    def when_started(self, then: Callable[[], None]) -> None:
        """Run ``then`` on the main thread once the start-up's imports are done (at once if
        they are): workers that import started from it never import Qt-using code."""
        if self.started:
            then()
        else:
            self._when_started.append(then)

    def _start_up(self) -> None:
        if not self._import_in_steps:
            self._build_after_first_paint()
            self._started_up()
            return
        from xyclaw.gui.startup_imports import import_on_main_thread

        built = [("build the first pages", self._build_after_first_paint)]
        import_on_main_thread(self.window, self._started_up, builds=built)

    def build_pages_in_turns(self, keys: tuple[str, ...], then: Callable[[], None]) -> None:
        """Build the pages ``keys`` (those not built yet), hidden, one per turn of the event
        loop, then ``then``: such a page's first open only shows it. A page built hidden
        waits to be shown to refresh (the pages' timers start on show), but each built page
        makes a theme switch longer (Qt restyles every widget polished once), so the
        desktop app builds only the pages that take long (PREBUILT_PAGES)."""
        from xyclaw.gui.startup_imports import run_in_turns

        def build(key: str) -> Callable[[], None]:
            def step() -> None:
                self.page_widgets.get(key)

            return step

        def ahead(kind: str) -> Callable[[], None]:
            def step() -> None:
                from xyclaw.gui.monitor_page import make_charts_ahead

                make_charts_ahead(kind)

            return step

        steps: list[tuple[str, Callable[[], bool | None]]] = []
        for key in keys:
            if key == "monitor" and self.page_widgets.built(key) is None:
                # its heatmap, then its curves a plot each, a turn each: built in one go it
                # held the main thread for 150-250 ms
                from xyclaw.gui.charts.curves import METRICS

                parts = ["heatmap"] + ["curves"] * len(METRICS)
                steps += [(f"make the Monitor's {k}", ahead(k)) for k in parts]
            steps.append((f"build the {key} page", build(key)))
        run_in_turns(self.window, steps, then)

    def _started_up(self) -> None:
        self.started = True
        waiting, self._when_started = self._when_started, []
        for then in waiting:
            if not self._quitting:
                then()

    def _build_after_first_paint(self) -> None:
        for key in BUILT_AFTER_FIRST_PAINT:
            self.page_widgets.get(key)

    def _row_changed(self, row: int) -> None:
        if 0 <= row < len(PAGES):
            self.page_widgets.get(PAGES[row].key)  # builds it on its first show
        self.pages.setCurrentIndex(row)

    def _build_page(self, key: str) -> QWidget | None:
        """Build page ``key`` (once) in its place in the stack; a page that fails to build
        is replaced by its section's description. None for a key that is no page."""
        row = next((r for r, info in enumerate(PAGES) if info.key == key), None)
        if row is None or self._quitting:
            return None
        info = PAGES[row]
        widget: QWidget | None = None
        factory = self._factories.get(key)
        if factory is not None:
            from xyclaw.gui.startup_imports import finish_pending

            finish_pending()  # a page opened early finds pyqtgraph whole, not half imported
            try:
                widget = factory(self.context)
            except Exception:
                log.exception("the %s page failed to build", key)
        if key in self.page_widgets:  # its factory asked for itself: keep the first
            return self.page_widgets[key]
        if widget is None:
            widget = _placeholder_page(info)
        widget.setObjectName(f"page_{key}")
        self.page_widgets[key] = widget
        slot = self.pages.widget(row)
        was_current = self.pages.currentIndex() == row
        self.pages.insertWidget(row, widget)
        if slot is not None and slot.objectName() == f"slot_{key}":
            self.pages.removeWidget(slot)
            slot.deleteLater()
        if was_current:
            self.pages.setCurrentIndex(row)
        return widget

    def show_window(self) -> None:
        self.window.show()
        self.window.setWindowState(
            self.window.windowState() & ~Qt.WindowState.WindowMinimized
            | Qt.WindowState.WindowActive
        )
        self.window.raise_()
        self.window.activateWindow()
        self.closed_to_tray = False

    def show_error(self, error: ErrorInfo) -> None:
        self.say_in_status_bar(error.text(" — "), 20000)

    def say_in_status_bar(self, text: str, timeout_ms: int) -> str:
        """A message on the status bar's left, elided to the room the permanent parts leave
        it (it was cut mid-word), the whole of it in the bar's tooltip while it shows."""
        bar = self.window.statusBar()
        if not bar.isVisible():  # not laid out yet (the window's first message): as it is
            bar.setToolTip("")
            bar.showMessage(text, timeout_ms)
            return text
        room = bar.width() - 24
        for widget in bar.findChildren(QWidget):
            if widget.parentWidget() is bar and widget.isVisible():
                room -= widget.width() + 6
        shown = bar.fontMetrics().elidedText(text, Qt.TextElideMode.ElideRight, max(80, room))
        bar.setToolTip(plain_tip(text if shown != text else ""))
        bar.showMessage(shown, timeout_ms)
        return shown

    # -- operations -----------------------------------------------------------------------------
    def toggle_operations(self) -> None:
        if self.operations_dock.isVisible():
            self.operations_dock.hide()
        else:
            self.show_operations()

    def show_operations(self) -> None:
        """Open the operations panel at a height that leaves the page most of the window."""
        if self.operations_dock.isVisible():
            return
        self.operations_dock.show()
        height = max(120, min(200, self.window.height() // 5))
        self.window.resizeDocks([self.operations_dock], [height], Qt.Orientation.Vertical)

    def _operation_seen(self, event: Any) -> None:
        """A new long operation opens the panel once; the user may close it again."""
        if event.operation_id in self._announced or event.state != "running":
            return
        self._announced.add(event.operation_id)
        self.show_operations()

    def _cancel_lookup(self, operation_id: int) -> Callable[[], Any] | None:
        """Cancel an operation the GUI did not start (an agent's): find its handle first."""

        def cancel() -> None:
            for handle in self.engine.operations():
                if handle.id == operation_id:
                    handle.cancel()
                    return
            raise OperationGone(operation_id)

        return lambda: self.worker.submit(cancel, on_error=self.show_error, name="cancel")

    def _snapshot_shown(self, snapshot: StatusSnapshot) -> None:
        self.tray.set_spend_rate(snapshot.rate_text())

    # -- closing and quitting -------------------------------------------------------------------
    def _close_requested(self, event: QCloseEvent) -> bool:
        if self._quitting:
            return False
        event.ignore()
        if self.engine.config.gui.close_to_tray and self.tray.available:
            self.window.hide()
            if not self.closed_to_tray:
                self.tray.notify(
                    translate("MainWindow", "XyClaw is still running"),
                    translate(
                        "MainWindow",
                        "It keeps watching your clusters, budgets and idle machines. "
                        "Quit from the tray menu.",
                    ),
                )
            self.closed_to_tray = True
        else:
            self.request_quit()
        return True

    def request_quit(self) -> None:
        """Quit, first saying what keeps billing and offering to release it."""
        self.quit_flow.start()

    def quit_now(self) -> None:
        """Stop listening and working, close the window, and quit (once)."""
        if self._quitting:
            return
        self._quitting = True
        self.status.stop()
        self.bridge.close()
        self.tray.close()
        chat = self.page_widgets.built("chat")
        if chat is not None and hasattr(chat, "shutdown"):
            chat.shutdown()
        self.worker.close(wait=False)
        self.window.close()
        self.window.deleteLater()
        self._on_quit()
