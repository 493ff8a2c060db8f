"""Printing an operation's progress on the terminal while the command waits for it."""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from typing import IO, TypeVar

from xyclaw.engine import Engine, OperationHandle
from xyclaw.events import OperationProgress

T = TypeVar("T")


def follow(
    engine: Engine,
    start: Callable[[], OperationHandle[T]],
    out: IO[str] | None = None,
) -> T:
    """Start the operation and wait for it, printing each new progress message.

    The subscription is made before the operation starts, so its first
    messages are not lost. Ctrl-C cancels it and waits for the clean-up.
    """
    stream = out or sys.stderr
    lock = threading.Lock()
    early: list[OperationProgress] = []
    handle_box: list[OperationHandle[T]] = []
    last = [""]

    def show(event: OperationProgress) -> None:
        if event.state != "running" or event.message == last[0]:
            return  # the end is reported by the command; a poll that changed nothing is noise
        last[0] = event.message
        prefix = f"[{event.fraction:4.0%}] " if event.fraction is not None else "       "
        print(f"{prefix}{event.message}", file=stream, flush=True)

    def on_event(event: OperationProgress) -> None:
        with lock:
            if not handle_box:
                early.append(event)
                return
            if event.operation_id == handle_box[0].id:
                show(event)

    sub = engine.bus.subscribe(OperationProgress, on_event)
    try:
        handle = start()
        with lock:
            handle_box.append(handle)
            for event in early:
                if event.operation_id == handle.id:
                    show(event)
            early.clear()
        while True:
            try:
                return handle.result(timeout=0.5)
            except TimeoutError:
                continue
            except KeyboardInterrupt:
                print("cancelling (cleaning up what was started)...", file=stream, flush=True)
                handle.cancel()
                return handle.result()
    finally:
        sub.unsubscribe()
