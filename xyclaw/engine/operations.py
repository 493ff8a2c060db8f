"""Long work (provision, bootstrap, tune, launch) on worker threads, with progress and cancel."""

from __future__ import annotations

import itertools
import logging
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from enum import StrEnum
from typing import Any, Generic, TypeVar

from xyclaw.errors import OperationCancelled, XyclawError
from xyclaw.events import EventBus, OperationProgress
from xyclaw.wording import Said, said

log = logging.getLogger(__name__)
T = TypeVar("T")


def step_said(step: str) -> Said | str:
    """A step's name (``driver``, ``ssh``...) as a :class:`Said`; one the catalogue does not
    know stays as it is."""
    return _known(f"op.step.{step}") or step


def state_said(state: str) -> Said | str:
    """A provider's node state (``provisioning``, ``running``...) as a :class:`Said`."""
    return _known(f"op.pstate.{state}") or state


def semi_joined(parts: Sequence[Said | str]) -> Said | str:
    """``"a; b; c"`` as one message, each part worded in the view's language."""
    if not parts:
        return ""
    joined: Said | str = parts[0]
    for part in parts[1:]:
        joined = said("op.semi_join", first=joined, then=part)
    return joined


def _known(key: str) -> Said | None:
    from xyclaw.wording.catalogue import CATALOGUE

    return Said(key) if key in CATALOGUE else None


class OperationState(StrEnum):
    RUNNING = "running"
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    CANCELLED = "cancelled"


class Progress:
    """Handed to the work function: report how far it is, and check for a cancel."""

    def __init__(self, bus: EventBus, operation_id: int, title: str | Said) -> None:
        self._bus = bus
        self.operation_id = operation_id
        self.title = str(title)  # English: logs, the CLI in English
        self.title_said = title if isinstance(title, Said) else None
        self._cancel = threading.Event()
        self.state = OperationState.RUNNING

    @property
    def cancelled(self) -> bool:
        return self._cancel.is_set()

    def check_cancelled(self) -> None:
        if self._cancel.is_set():
            raise OperationCancelled(said("op.cancelled", title=self.title_said or self.title))

    def update(
        self,
        message: str | Said,
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
                message=str(message),
                step=step,
                subject=subject,
                title_said=self.title_said,
                said=message if isinstance(message, Said) else None,
            )
        )

    def _finish(self, state: OperationState, message: str | Said) -> None:
        self.state = state
        self._bus.publish(
            OperationProgress(
                operation_id=self.operation_id,
                title=self.title,
                state=state,
                fraction=1.0 if state is OperationState.SUCCEEDED else None,
                message=str(message),
                title_said=self.title_said,
                said=message if isinstance(message, Said) else None,
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

    def start(self, title: str | Said, work: Callable[[Progress], T]) -> OperationHandle[T]:
        """Run ``work`` on a worker thread; ``title`` is best a :class:`Said` (a Chinese
        window words it), its English form is the handle's ``title``."""
        progress = Progress(self._bus, next(self._ids), title)

        def run() -> T:
            progress.update(said("op.started"), 0.0)
            try:
                result = work(progress)
            except OperationCancelled as exc:
                progress._finish(OperationState.CANCELLED, exc.said or exc.message)
                raise
            except XyclawError as exc:
                progress._finish(OperationState.FAILED, exc.said or exc.message)
                raise
            except Exception as exc:
                log.exception("operation %r failed", progress.title)
                progress._finish(
                    OperationState.FAILED,
                    said("op.unexpected", kind=type(exc).__name__, text=str(exc)),
                )
                raise
            progress._finish(OperationState.SUCCEEDED, said("op.done"))
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
