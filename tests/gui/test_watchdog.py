"""The event-loop watchdog the end-to-end GUI tests rely on: it must fail on the app's own
stalls (a blocking call or busy work on the main thread) whatever the machine's load, and
it must not count a short pause."""

from __future__ import annotations

import time

import pytest

pytest.importorskip("PySide6")

from PySide6.QtCore import QTimer
from pytestqt.qtbot import QtBot

from tests.gui.conftest import LoopWatchdog


def run_with(qtbot: QtBot, dog: LoopWatchdog, work: object, seconds: float = 0.6) -> None:
    dog.start()
    QTimer.singleShot(50, work)  # type: ignore[arg-type]
    end = time.monotonic() + seconds
    while time.monotonic() < end or dog.beats < 3:
        qtbot.wait(20)
    dog.stop()


def busy(cpu_s: float) -> None:
    """Work on the main thread until it has used ``cpu_s`` of CPU itself."""
    start = time.thread_time()
    while time.thread_time() - start < cpu_s:
        pass


def test_a_blocking_call_on_the_main_thread_is_a_stall(qtbot: QtBot) -> None:
    dog = LoopWatchdog()
    run_with(qtbot, dog, lambda: time.sleep(0.4))
    assert len(dog.stalls) == 1 and dog.stalls[0][0] >= 390
    with pytest.raises(AssertionError, match="the event loop stalled"):
        dog.check()


def test_busy_work_on_the_main_thread_is_a_stall(qtbot: QtBot) -> None:
    dog = LoopWatchdog()
    run_with(qtbot, dog, lambda: busy(0.25))
    assert len(dog.stalls) == 1
    late_ms, ran_ms, _, phase = dog.stalls[0]
    assert late_ms >= 240 and ran_ms >= 240 and phase == "start"


def test_a_short_pause_is_not_a_stall(qtbot: QtBot) -> None:
    dog = LoopWatchdog()
    run_with(qtbot, dog, lambda: time.sleep(0.03))
    assert dog.stalls == [] and dog.beats >= 3
    dog.check()
