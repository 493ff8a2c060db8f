"""Start the desktop app on an Engine the caller built."""

from __future__ import annotations

import logging
import os
import sys
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QTimer
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication

from xyclaw.engine import Engine
from xyclaw.gui.main_window import PREBUILT_PAGES, MainWindowController
from xyclaw.paths import bundled

if TYPE_CHECKING:
    from xyclaw.engine.values import Store

log = logging.getLogger(__name__)

# packaging/smoke.sh: save a screenshot of the window once it is drawn, then quit.
SMOKE_SCREENSHOT_ENV = "XYCLAW_SMOKE_SCREENSHOT"


def apply_theme(app: QApplication, theme: str) -> None:
    """Light, dark, or "system" (follows the desktop's colour scheme, also when it changes)."""
    from xyclaw.gui.themes import apply_theme as apply

    apply(app, theme)


def create_app() -> QApplication:
    existing = QApplication.instance()
    if isinstance(existing, QApplication):
        return existing
    app = QApplication(sys.argv[:1])
    app.setApplicationName("XyClaw")
    app.setOrganizationName("XyClaw")
    app.setWindowIcon(QIcon(str(bundled("resources") / "icons" / "xyclaw.svg")))
    return app


# Modules a first turn would import lazily, from a worker, in the middle of the chat:
# unmarshalling a big module holds the GIL, which froze the window for 100-250 ms
# (numpy.unique imports numpy.ma, 330 kB of bytecode, on its first call).
WARM_UP_MODULES = ("numpy.ma",)


def build_runtime(engine: Engine, store: Store) -> Any:
    """The agents (imports LangGraph: slow, so it runs on a worker after the window shows),
    keeping their conversations in ``store``, the history database the engine writes."""
    import importlib

    from xyclaw.agent.runtime import AgentRuntime

    for name in WARM_UP_MODULES:
        importlib.import_module(name)
    return AgentRuntime(engine, store=store, paths=engine.paths, config=engine.config)


def start_heartbeat(controller: MainWindowController, runtime: Any) -> Any:
    """The monitor's heartbeat while the window runs: each new alert becomes a message in the
    Monitor conversation, and its suggested action an approval card there (answered in the
    chat, or from a terminal); the chat page reloads what it shows when one is posted."""
    from xyclaw.agent.heartbeat import Heartbeat

    def show(found: list[Any]) -> None:  # the main thread
        chat = controller.page_widgets.get("chat")
        if chat is not None and hasattr(chat, "monitor_posted"):
            chat.monitor_posted(found)

    def posted(found: list[Any]) -> None:  # the heartbeat's thread
        controller.worker.post(show, found)

    beat = Heartbeat(runtime, on_posted=posted)
    beat.start()
    return beat


def host_key_prompter() -> Any:
    """The callback that asks about an unknown SSH host key in the window."""
    from xyclaw.gui.host_keys import default_prompter

    return default_prompter()


def run_app(engine: Engine, store: Store) -> int:
    """The desktop app over ``engine``; ``store`` is the history database it writes."""
    app = create_app()
    # Quitting stops the simulated cloud the app started, unless a simulated cluster is
    # left live for the background guard (the quit dialog says so then).
    engine.stop_sim_cloud_on_close()
    # The window may close to the tray; quitting is always explicit (tray menu, Quit flow).
    app.setQuitOnLastWindowClosed(False)
    from xyclaw.gui import i18n

    i18n.install(engine.config.gui.language)
    apply_theme(app, engine.config.gui.theme)
    controller = MainWindowController(engine, import_in_steps=True)
    controller.window.show()
    runtimes: list[Any] = []
    beats: list[Any] = []

    def started(runtime: Any) -> None:
        runtimes.append(runtime)
        controller.attach_runtime(runtime)
        beats.append(start_heartbeat(controller, runtime))

    chat = controller.page_widgets.get("chat")

    def start_background() -> None:
        controller.worker.submit(
            lambda: build_runtime(engine, store),
            on_done=started,
            on_error=getattr(chat, "show_runtime_error", controller.show_error),
            lane="agent",
            name="start the agents",
        )
        # While the app runs: reconcile, meter, budgets, idle release and telemetry, every
        # minute. Started on a worker: taking the guard over (building it, waiting for a
        # background guard to hand its lock over) froze the new window for about a second.
        controller.worker.submit(
            engine.start_maintenance,
            on_error=lambda error: log.warning("starting the guard failed: %s", error.message),
            name="start the guard",
        )

    # Threads that import (the agents) hold the interpreter in turns with the main thread:
    # started before the first paint they delayed it by about a second. They start once the
    # main thread has imported, a step per event-loop turn, everything Qt-using (pyqtgraph,
    # the pages: PySide6's lazy types are not thread-safe) and the modules both sides use.
    # Then the Monitor page, hidden (its first open then only shows it), then the workers:
    # a page built while a worker imports waits for the interpreter in turns.
    controller.when_started(
        lambda: controller.build_pages_in_turns(PREBUILT_PAGES, start_background)
    )
    shot = os.environ.get(SMOKE_SCREENSHOT_ENV, "").strip()
    if shot:
        window = controller.window
        QTimer.singleShot(800, lambda: app.exit(0 if window.grab().save(shot) else 1))
    code = int(app.exec())
    for beat in beats:
        beat.stop()
    for runtime in runtimes:
        try:
            runtime.close()
        except Exception:
            log.exception("closing the agents failed")
    return code
