"""GUI fixtures: engines for the window, and a watchdog that fails a test if the event loop
stalls."""

from __future__ import annotations

import os
import threading
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


def main_thread_schedule_ms() -> tuple[float, float] | None:
    """(CPU ms, run-queue ms) of the calling thread so far, from Linux's schedstat: the
    time it ran, and the time it was ready to run but the machine gave it no CPU. None
    where the kernel does not keep them."""
    try:
        with open("/proc/thread-self/schedstat", encoding="ascii") as f:
            ran, waited, _ = f.read().split()
    except (OSError, ValueError):
        return None
    return int(ran) / 1e6, int(waited) / 1e6


def threads_queued_ms() -> dict[int, float] | None:
    """Run-queue ms so far of every thread of this process, by thread id."""
    queued: dict[int, float] = {}
    try:
        tids = os.listdir("/proc/self/task")
    except OSError:
        return None
    for tid in tids:
        try:
            with open(f"/proc/self/task/{tid}/schedstat", encoding="ascii") as f:
                queued[int(tid)] = int(f.read().split()[1]) / 1e6
        except (OSError, ValueError, IndexError):
            continue  # the thread ended meanwhile
    return queued


class LoopWatchdog:
    """A heartbeat QTimer; a beat more than ``limit_ms`` late is a stall of the app, unless
    the machine caused the lateness.

    The heartbeat only runs while the Qt event loop runs (qtbot.wait*, signals being
    waited for), which is exactly when a user would see a frozen window. Between two beats
    the main thread is running (the app's own work), blocked (a lock, the GIL held by one
    of the app's threads, a socket, a sleep: the app's doing too), or ready to run while
    the kernel gives its CPU to other processes: on a loaded 2-core CI machine that last
    part alone reached 100-400 ms here (load 10-12). The kernel counts it per thread
    (``/proc/thread-self/schedstat``), so a beat's lateness minus the main thread's
    run-queue wait is what the app itself cost, and that is held to ``limit_ms`` at any
    load: a main-thread sleep, blocking call or busy loop of 100 ms fails the test on an
    idle and on a loaded machine alike. One more part is the machine's: the main thread
    waiting for the GIL while the thread holding it waits for a CPU (seen: 90 ms blocked
    at load 4.7 while the collectors ran). So of the time the main thread was blocked, as
    much as the most-queued other thread of the process waited in the run queue is taken
    out too (the most, not the sum: one thread holds the GIL at a time; on an idle
    machine that is ~0, so nothing is excused there). Beats excused are kept in
    ``starved``.
    (Where schedstat is missing the watchdog falls back to process CPU time: a late beat
    during which the process used less than ``limit_ms`` of CPU is not counted.)
    """

    def __init__(self, interval_ms: int = 10, limit_ms: float = 100.0) -> None:
        self.interval_ms = interval_ms
        self.limit_ms = limit_ms
        # late ms, main-thread CPU ms, main-thread run-queue ms, phase
        self.stalls: list[tuple[float, float, float, str]] = []
        self.starved: list[tuple[float, float, float, str]] = []
        self.worst_ms = 0.0  # latest beat, run-queue wait included
        self.worst_own_ms = 0.0  # latest beat, run-queue wait taken out
        self.beats = 0
        self.phase = "start"
        self._last = 0.0
        self._last_cpu = 0.0
        self._last_sched: tuple[float, float] | None = None
        self._last_threads: dict[int, float] | None = None
        self._timer = QTimer()
        self._timer.setTimerType(Qt.TimerType.PreciseTimer)
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(self._beat)

    def start(self) -> None:
        self._last = time.perf_counter()
        self._last_cpu = time.process_time()
        self._last_sched = main_thread_schedule_ms()
        self._last_threads = threads_queued_ms()
        self._timer.start()

    def stop(self) -> None:
        self._timer.stop()

    def _beat(self) -> None:
        now = time.perf_counter()
        cpu = time.process_time()
        sched = main_thread_schedule_ms()
        threads = threads_queued_ms()
        gap_ms = (now - self._last) * 1000.0
        late_ms = gap_ms - self.interval_ms
        if sched is not None and self._last_sched is not None:
            ran_ms = sched[0] - self._last_sched[0]
            queued_ms = sched[1] - self._last_sched[1]
            blocked_ms = max(0.0, gap_ms - ran_ms - queued_ms)
            main_tid = threading.get_native_id()
            others = 0.0
            if threads is not None and self._last_threads is not None:
                others = max(
                    (
                        q - self._last_threads[tid]
                        for tid, q in threads.items()
                        if tid != main_tid and tid in self._last_threads
                    ),
                    default=0.0,
                )
            own_ms = late_ms - queued_ms - min(blocked_ms, others)
        else:  # no schedstat: excuse a beat only if the whole process hardly ran
            ran_ms = (cpu - self._last_cpu) * 1000.0
            queued_ms = float("nan")
            own_ms = late_ms if ran_ms >= self.limit_ms else 0.0
        self._last, self._last_cpu, self._last_sched = now, cpu, sched
        self._last_threads = threads
        self.beats += 1
        self.worst_ms = max(self.worst_ms, late_ms)
        self.worst_own_ms = max(self.worst_own_ms, own_ms)
        if late_ms > self.limit_ms:
            entry = (round(late_ms, 1), round(ran_ms, 1), round(queued_ms, 1), self.phase)
            (self.stalls if own_ms > self.limit_ms else self.starved).append(entry)

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
            "the event loop stalled (late ms, main-thread CPU ms, main-thread ms waiting for"
            f" a CPU, phase): {self.stalls}; worst {self.worst_own_ms:.0f} ms of the app's own"
            f" (load {os.getloadavg()[0]:.1f})"
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
    # A short provisioning time, as a real cloud has: the pages can show the states on the way.
    config = load_config(paths.config_file, environ={"XYCLAW_SIM_PROVISION_DELAY_S": "0.5"})
    engine = build_engine(paths, config, store=history_store)
    yield engine
    engine.close()
    launcher.stop(paths.data_dir / "sim")
