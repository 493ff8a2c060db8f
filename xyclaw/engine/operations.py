"""Long work (provision, bootstrap, tune, launch) on worker threads, with progress and cancel."""

from __future__ import annotations

import itertools
import logging
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from enum import StrEnum
from typing import Any, Generic, TypeVar

from xyclaw.errors import OperationCancelled, XyclawError
from xyclaw.events import EventBus, OperationProgress

log = logging.getLogger(__name__)
T = TypeVar("T")


class OperationState(StrEnum):
    RUNNING = "running"
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    CANCELLED = "cancelled"


class Progress:
    """Handed to the work function: report how far it is, and check for a cancel."""

    def __init__(self, bus: EventBus, operation_id: int, title: str) -> None:
        self._bus = bus
        self.operation_id = operation_id
        self.title = title
        self._cancel = threading.Event()
        self.state = OperationState.RUNNING

    @property
    def cancelled(self) -> bool:
        return self._cancel.is_set()

    def check_cancelled(self) -> None:
        if self._cancel.is_set():
            raise OperationCancelled(f"{self.title} was cancelled")

    def update(
        self,
        message: str,
        fraction: float | None = None,
        *,
        step: str | None = None,
        subject: str | None = None,
    ) -> None:
        self._bus.publish(
            OperationProgress(
                operation_id=self.operation_id,
                title=self.title,
                state=OperationState.RUNNING,
                fraction=None if fraction is None else max(0.0, min(1.0, fraction)),
                message=message,
                step=step,
                subject=subject,
            )
        )

    def _finish(self, state: OperationState, message: str) -> None:
        self.state = state
        self._bus.publish(
            OperationProgress(
                operation_id=self.operation_id,
                title=self.title,
                state=state,
                fraction=1.0 if state is OperationState.SUCCEEDED else None,
                message=message,
            )
        )


class OperationHandle(Generic[T]):
    def __init__(self, progress: Progress, future: Future[T]) -> None:
        self.progress = progress
        self.future = future

    @property
    def id(self) -> int:
        return self.progress.operation_id

    @property
    def title(self) -> str:
        return self.progress.title

    @property
    def state(self) -> OperationState:
        return self.progress.state

    def cancel(self) -> None:
        """Ask the work to stop at its next check; it cleans up what it started."""
        self.progress._cancel.set()

    def result(self, timeout: float | None = None) -> T:
        return self.future.result(timeout)

    def done(self) -> bool:
        return self.future.done()


class OperationRunner:
    """A bounded pool of worker threads; every operation ends with a final progress event."""

    def __init__(self, bus: EventBus, max_workers: int = 8) -> None:
        self._bus = bus
        self._pool = ThreadPoolExecutor(max_workers=max_workers, thread_name_prefix="operation")
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._handles: list[OperationHandle[Any]] = []

    def start(self, title: str, work: Callable[[Progress], T]) -> OperationHandle[T]:
        progress = Progress(self._bus, next(self._ids), title)

        def run() -> T:
            progress.update("started", 0.0)
            try:
                result = work(progress)
            except OperationCancelled as exc:
                progress._finish(OperationState.CANCELLED, str(exc))
                raise
            except XyclawError as exc:
                progress._finish(OperationState.FAILED, exc.message)
                raise
            except Exception as exc:
                log.exception("operation %r failed", title)
                progress._finish(OperationState.FAILED, f"{type(exc).__name__}: {exc}")
                raise
            progress._finish(OperationState.SUCCEEDED, "done")
            return result

        handle = OperationHandle(progress, self._pool.submit(run))
        with self._lock:
            self._handles = [h for h in self._handles if not h.done()] + [handle]
        return handle

    def running(self) -> list[OperationHandle[Any]]:
        """Operations not finished yet, oldest first (what an operations panel lists)."""
        with self._lock:
            return [h for h in self._handles if not h.done()]

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)
