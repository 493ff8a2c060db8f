"""GUI fixtures: engines for the window, and a watchdog that fails a test if the event loop
stalls."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("PySide6")

from PySide6.QtCore import Qt, QTimer
from pytestqt.qtbot import QtBot

from xyclaw.config import load_config
from xyclaw.engine import Engine
from xyclaw.engine.compose import build_engine
from xyclaw.gui.main_window import MainWindowController
from xyclaw.paths import AppPaths
from xyclaw.providers import ProviderRegistry
from xyclaw.providers.local import LocalProvider
from xyclaw.store import Store


class LoopWatchdog:
    """A heartbeat QTimer; a beat later than ``limit_ms`` past its due time is a stall.

    The heartbeat only runs while the Qt event loop runs (qtbot.wait*, signals
    being waited for), which is exactly when a user would see a frozen window.
    A late beat counts as a stall of the app only if this process used at least
    ``limit_ms`` of CPU during it: the main thread was busy, or another thread
    held the GIL. A beat that is late because the shared machine gave the
    process no CPU at all is recorded in ``starved`` and reported, not failed.
    """

    def __init__(self, interval_ms: int = 10, limit_ms: float = 100.0) -> None:
        self.interval_ms = interval_ms
        self.limit_ms = limit_ms
        self.stalls: list[tuple[float, str]] = []
        self.starved: list[tuple[float, float, str]] = []  # late ms, CPU ms, phase
        self.worst_ms = 0.0
        self.beats = 0
        self.phase = "start"
        self._last = 0.0
        self._last_cpu = 0.0
        self._timer = QTimer()
        self._timer.setTimerType(Qt.TimerType.PreciseTimer)
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(self._beat)

    def start(self) -> None:
        self._last = time.perf_counter()
        self._last_cpu = time.process_time()
        self._timer.start()

    def stop(self) -> None:
        self._timer.stop()

    def _beat(self) -> None:
        now = time.perf_counter()
        cpu = time.process_time()
        late_ms = (now - self._last) * 1000.0 - self.interval_ms
        cpu_ms = (cpu - self._last_cpu) * 1000.0
        self._last, self._last_cpu = now, cpu
        self.beats += 1
        self.worst_ms = max(self.worst_ms, late_ms)
        if late_ms > self.limit_ms:
            if cpu_ms >= self.limit_ms:
                self.stalls.append((late_ms, self.phase))
            else:
                self.starved.append((late_ms, cpu_ms, self.phase))

    @contextmanager
    def paused(self) -> Iterator[None]:
        """For a test's own blocking checks (reading the store to assert): not the app's."""
        self._timer.stop()
        try:
            yield
        finally:
            self.start()

    def check(self) -> None:
        assert self.beats > 0, "the event loop never ran while watched"
        assert not self.stalls, (
            f"the event loop stalled: {self.stalls} (worst {self.worst_ms:.0f} ms)"
        )


@pytest.fixture
def loop_watchdog() -> Iterator[LoopWatchdog]:
    dog = LoopWatchdog()
    yield dog
    dog.stop()
    dog.check()


MakeWindow = Callable[..., MainWindowController]


@pytest.fixture
def make_window(qtbot: QtBot) -> Iterator[MakeWindow]:
    """Main windows on an engine (and a runtime); each is quit at the end of the test."""
    made: list[MainWindowController] = []

    def make(engine: Engine, runtime: Any | None = None, **options: Any) -> MainWindowController:
        options.setdefault("tray_available", False)
        options.setdefault("on_quit", lambda: None)
        ctl = MainWindowController(engine, runtime, **options)
        ctl.window.resize(1280, 820)
        ctl.window.show()
        ctl.window.activateWindow()  # shortcuts go to the active window
        qtbot.waitUntil(ctl.window.isActiveWindow, timeout=3000)
        made.append(ctl)
        return ctl

    yield make
    for ctl in made:
        ctl.quit_now()
    qtbot.wait(20)  # let deleteLater run


@pytest.fixture
def history_store(xyclaw_home: Path) -> Store:
    """The history database of the test's engine (it closes it), for parts it is handed to."""
    return Store(AppPaths.from_environment().database)


@pytest.fixture
def local_engine(history_store: Store) -> Iterator[Engine]:
    """An engine whose only provider is this machine: no simulated cloud is started."""
    paths = AppPaths.from_environment()
    registry = ProviderRegistry()
    registry.add(LocalProvider(paths.state_dir / "local.json"))
    engine = build_engine(
        paths, load_config(paths.config_file), providers=registry, store=history_store
    )
    yield engine
    engine.close()


@pytest.fixture
def sim_engine(history_store: Store) -> Iterator[Engine]:
    """An engine renting from the simulated cloud (its own process, started on first use)."""
    from xyclaw.sim.cloud import launcher

    paths = AppPaths.from_environment()
    config = load_config(paths.config_file, environ={"XYCLAW_SIM_PROVISION_DELAY_S": "0"})
    engine = build_engine(paths, config, store=history_store)
    yield engine
    engine.close()
    launcher.stop(paths.data_dir / "sim")
