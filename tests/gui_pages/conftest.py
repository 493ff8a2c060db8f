"""Fixtures for the Plan and Clusters pages: the window's fixtures (engines on the simulated
cloud or this machine, the main window, the event-loop watchdog) and helpers to wait for the
pages' background work."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pyqtgraph")

from pytestqt.qtbot import QtBot

from tests.gui.conftest import (  # noqa: F401  (fixtures used by the tests here)
    LoopWatchdog,
    MakeWindow,
    history_store,
    local_engine,
    loop_watchdog,
    make_window,
    sim_engine,
)
from tests.remote.conftest import (  # noqa: F401  (the real OpenSSH server for host keys)
    keys,
    sshd,
    sshd_factory,
)
from xyclaw.gui.main_window import MainWindowController

LORA_13B = {"task": "finetune-lora", "model_size": "13B", "gpus": "8", "budget": "500"}
# 16 GPUs of 13B pretraining: multi-node options on InfiniBand and on RoCE.
PRETRAIN_16 = {"task": "pretrain", "model_size": "13B", "tokens": "5B", "gpus": "16"}


def settle(qtbot: QtBot, ctl: MainWindowController, timeout: int = 30000) -> None:
    """Wait until the window's worker has no call in flight."""
    qtbot.waitUntil(lambda: ctl.worker.busy == 0, timeout=timeout)


def wait_for(qtbot: QtBot, condition: Callable[[], object], timeout: int = 30000) -> None:
    qtbot.waitUntil(lambda: bool(condition()), timeout=timeout)


def pause(qtbot: QtBot, seconds: float) -> None:
    """Let the event loop run for a while (the clock columns move)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        qtbot.wait(50)
