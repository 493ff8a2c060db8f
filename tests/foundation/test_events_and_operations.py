from __future__ import annotations

import threading
from dataclasses import dataclass

import pytest

from xyclaw.engine.operations import OperationRunner, Progress
from xyclaw.errors import OperationCancelled
from xyclaw.events import Event, EventBus, Notice, OperationProgress


@dataclass(frozen=True, kw_only=True)
class Ping(Event):
    n: int


def test_failing_subscriber_is_logged_and_others_still_get_the_event(
    caplog: pytest.LogCaptureFixture,
) -> None:
    bus = EventBus()
    got: list[int] = []

    def broken(event: Ping) -> None:
        raise RuntimeError("subscriber bug")

    bus.subscribe(Ping, broken)
    bus.subscribe(Ping, lambda e: got.append(e.n))
    bus.publish(Ping(n=1))
    assert got == [1]
    assert bus.delivery_errors == 1
    assert "subscriber failed" in caplog.text


def test_subscribe_by_base_class_and_unsubscribe() -> None:
    bus = EventBus()
    seen: list[Event] = []
    sub = bus.subscribe(Event, seen.append)
    bus.publish(Ping(n=1))
    bus.publish(Notice(severity="info", message="hi"))
    sub.unsubscribe()
    bus.publish(Ping(n=2))
    assert [type(e).__name__ for e in seen] == ["Ping", "Notice"]


def test_publish_from_many_threads() -> None:
    bus = EventBus()
    count = [0]
    lock = threading.Lock()

    def inc(event: Ping) -> None:
        with lock:
            count[0] += 1

    bus.subscribe(Ping, inc)
    threads = [
        threading.Thread(target=lambda: [bus.publish(Ping(n=i)) for i in range(500)])
        for _ in range(4)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert count[0] == 2000


def test_operation_reports_progress_and_result() -> None:
    bus = EventBus()
    events: list[OperationProgress] = []
    bus.subscribe(OperationProgress, events.append)
    runner = OperationRunner(bus)

    def work(progress: Progress) -> str:
        for i in range(3):
            progress.update(f"step {i}", (i + 1) / 3, subject=f"node-{i}")
        return "ready"

    handle = runner.start("provision", work)
    assert handle.result(5) == "ready"
    runner.close()
    assert events[-1].state == "succeeded"
    assert [e.subject for e in events if e.subject] == ["node-0", "node-1", "node-2"]


def test_operation_cancel_stops_at_the_next_check() -> None:
    bus = EventBus()
    states: list[str] = []
    bus.subscribe(OperationProgress, lambda e: states.append(e.state))
    runner = OperationRunner(bus)
    started = threading.Event()

    def work(progress: Progress) -> None:
        started.set()
        while True:
            progress.check_cancelled()
            threading.Event().wait(0.01)

    handle = runner.start("bootstrap", work)
    started.wait(5)
    handle.cancel()
    with pytest.raises(OperationCancelled):
        handle.result(5)
    runner.close()
    assert states[-1] == "cancelled"
