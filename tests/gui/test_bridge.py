"""The bridge: engine events reach widgets on the main thread, progress is coalesced,
blocking calls run on workers and fail as a message with a hint."""

from __future__ import annotations

import threading
import time

import pytest

pytest.importorskip("PySide6")

import shiboken6
from PySide6.QtCore import QObject, Qt, QThread
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from xyclaw.errors import ProviderError
from xyclaw.events import EventBus, Notice, OperationProgress
from xyclaw.gui.bridge import EngineBridge, ErrorInfo, Worker


def _progress(op: int, state: str = "running", subject: str | None = None, **kw: object):
    return OperationProgress(operation_id=op, title=f"op {op}", state=state, subject=subject, **kw)


def test_events_from_another_thread_arrive_on_the_main_thread(qtbot: QtBot) -> None:
    bus = EventBus()
    bridge = EngineBridge(bus.subscribe)
    seen: list[tuple[str, bool]] = []
    main = QApplication.instance().thread()
    bridge.notice.connect(lambda e: seen.append((e.message, QThread.currentThread() is main)))
    thread = threading.Thread(
        target=lambda: bus.publish(Notice(severity="warning", message="disk almost full"))
    )
    thread.start()
    thread.join()
    qtbot.waitUntil(lambda: len(seen) == 1, timeout=2000)
    assert seen == [("disk almost full", True)]
    bridge.close()
    bus.publish(Notice(severity="info", message="after close"))
    qtbot.wait(50)
    assert len(seen) == 1


def test_progress_is_coalesced_to_ten_a_second_and_the_final_state_is_never_lost(
    qtbot: QtBot,
) -> None:
    bus = EventBus()
    bridge = EngineBridge(bus.subscribe)
    got: list[OperationProgress] = []
    bridge.operation_progress.connect(got.append)

    def chatty() -> None:
        for i in range(3000):
            bus.publish(_progress(7, fraction=i / 3000, message=f"step {i}"))
            bus.publish(_progress(7, subject="node-0", step="ssh", message=f"n0 {i}"))
            bus.publish(_progress(7, subject="node-1", step="driver", message=f"n1 {i}"))
        bus.publish(_progress(7, subject="node-1", step="setup", message="n1 last"))
        bus.publish(_progress(7, state="succeeded", message="done"))

    started = time.monotonic()
    thread = threading.Thread(target=chatty)
    thread.start()
    thread.join()
    qtbot.waitUntil(lambda: bool(got) and got[-1].state == "succeeded", timeout=3000)
    elapsed = time.monotonic() - started
    # 9,002 updates in; per key at most one per 100 ms (plus the first) came out.
    per_key_limit = 3 * (int(elapsed / 0.1) + 2)
    assert len(got) <= per_key_limit, (len(got), elapsed)
    assert bridge.coalesced > 8000
    last_by_subject = {e.subject: e.message for e in got}
    assert last_by_subject == {None: "done", "node-0": "n0 2999", "node-1": "n1 last"}
    assert got[-1].state == "succeeded"  # the final state comes after its nodes' steps
    bridge.close()


def test_two_operations_are_kept_apart(qtbot: QtBot) -> None:
    bus = EventBus()
    bridge = EngineBridge(bus.subscribe)
    got: list[OperationProgress] = []
    bridge.operation_progress.connect(got.append)
    bus.publish(_progress(1, message="renting"))
    bus.publish(_progress(2, message="tuning"))
    bus.publish(_progress(1, state="failed", message="no capacity"))
    qtbot.waitUntil(lambda: (1, "failed") in {(e.operation_id, e.state) for e in got}, timeout=2000)
    qtbot.waitUntil(lambda: any(e.operation_id == 2 for e in got), timeout=2000)
    assert [e.message for e in got if e.operation_id == 1][-1] == "no capacity"
    bridge.close()


def test_worker_delivers_results_and_errors_on_the_main_thread(qtbot: QtBot) -> None:
    worker = Worker()
    main = QApplication.instance().thread()
    results: list[tuple[object, bool]] = []
    errors: list[ErrorInfo] = []
    ran_on: list[str] = []

    def slow() -> int:
        ran_on.append(threading.current_thread().name)
        time.sleep(0.05)
        return 42

    def fails() -> None:
        raise ProviderError("the simulated cloud is not answering", hint="xyclaw sim status")

    def crashes() -> None:
        raise KeyError("gpu")

    worker.submit(slow, on_done=lambda r: results.append((r, QThread.currentThread() is main)))
    worker.submit(fails, on_error=errors.append)
    worker.submit(crashes, on_error=errors.append)
    qtbot.waitUntil(lambda: worker.busy == 0 and len(errors) == 2, timeout=3000)
    assert results == [(42, True)]
    assert ran_on[0].startswith("gui-io")
    by_message = {e.message: e for e in errors}
    assert by_message["the simulated cloud is not answering"].hint == "xyclaw sim status"
    unexpected = next(e for e in errors if e.message.startswith("unexpected error"))
    assert "KeyError" in unexpected.message and "Traceback" not in str(unexpected)
    assert unexpected.hint
    worker.close()
    # After close nothing runs and nothing is delivered.
    task = worker.submit(slow, on_done=lambda r: results.append((r, False)))
    assert task.done()


@pytest.mark.parametrize("outcome", ["returns", "raises"])
def test_a_widget_held_only_by_a_background_call_is_destroyed_on_the_main_thread(
    qtbot: QtBot, outcome: str
) -> None:
    """A page closed while its call still runs: destroying it on the worker thread
    corrupted Qt's heap (a crash later, anywhere)."""
    worker = Worker()
    destroyed_on: list[int] = []
    release = threading.Event()

    class Page(QObject):
        def load(self) -> int:
            release.wait(5)
            if outcome == "raises":
                raise ProviderError("the provider did not answer", hint="try again")
            return 1

    page = Page()
    page.destroyed.connect(
        lambda: destroyed_on.append(threading.get_ident()), Qt.ConnectionType.DirectConnection
    )
    worker.submit(page.load)  # no callbacks: only the call holds the page
    del page
    release.set()
    qtbot.waitUntil(lambda: worker.busy == 0 and bool(destroyed_on), timeout=5000)
    assert destroyed_on == [threading.get_ident()]
    worker.close()


@pytest.mark.parametrize("callback", ["its method", "a closure over its label"])
def test_a_result_for_a_page_closed_meanwhile_is_dropped_without_an_error(
    qtbot: QtBot, caplog: pytest.LogCaptureFixture, callback: str
) -> None:
    """The user closed a page while its call ran: the result has nowhere to go. It is
    dropped quietly; it was logged as a failed callback, with a traceback, every time."""
    from PySide6.QtWidgets import QLabel, QWidget

    worker = Worker()
    release = threading.Event()

    class Page(QWidget):
        def __init__(self) -> None:
            super().__init__()
            self.label = QLabel("loading", self)

        def show_result(self, value: str) -> None:
            self.label.setText(value)

    page = Page()
    label = page.label
    on_done = page.show_result if callback == "its method" else (lambda v: label.setText(v))
    worker.submit(lambda: release.wait(5) and "ready", on_done=on_done)
    page.deleteLater()
    qtbot.waitUntil(lambda: not shiboken6.isValid(label), timeout=2000)
    with caplog.at_level("DEBUG", logger="xyclaw.gui.bridge"):
        release.set()
        qtbot.waitUntil(lambda: worker.busy == 0, timeout=5000)
        qtbot.wait(50)
    assert [r for r in caplog.records if r.levelname in ("ERROR", "WARNING")] == []
    worker.close()
