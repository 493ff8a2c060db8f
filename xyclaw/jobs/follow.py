"""Following one process of a job on one node: its log streamed back and stored, and its end.

A :class:`LogFollower` runs ``watch_log`` on the node from the offset the store holds,
cuts the bytes into lines (:mod:`xyclaw.jobs.lines`), and stores each batch of whole
lines with the offset after them in one transaction, only if the stored offset is still
the one it read from. A dropped connection, a restarted app or a second follower
therefore never loses or repeats a line. When the connection drops it reconnects with
backoff and says since when the node has been silent; when the process ends it reads
the rest of the log and the exit status.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass

from xyclaw.errors import RemoteError
from xyclaw.jobs import node_commands as nc
from xyclaw.jobs.lines import CutLine, LineCutter, Taken, as_cut_lines
from xyclaw.jobs.node_status import (
    LogWatchDecoder,
    NodeProcessState,
    NodeProcessStatus,
    parse_log_chunk,
    parse_status,
)
from xyclaw.jobs.nodes import JobNode, NodeShell
from xyclaw.records.jobs import JobStore
from xyclaw.store.jobs import AppendOutcome, LogCap, LogRows

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Committed:
    """Lines just stored, as columns (``texts``, and the ``offsets`` and ``ranks`` that go
    with them), and bar redraws that were read but not stored."""

    job_id: int
    attempt: int
    stream: str
    node: JobNode
    texts: list[str]
    offsets: list[int]
    ranks: list[int | None]
    redraws: list[str]
    ts: float  # when the lines became readable in the store

    @property
    def lines(self) -> list[CutLine]:
        return as_cut_lines(self.offsets, self.texts, self.ranks)


OnCommitted = Callable[[Committed], None]


class _Resync(Exception):
    """The stored offset moved under us (another follower): start again from it."""


class LogFollower:
    """Streams one task's log into the store until the task ends or :meth:`stop`."""

    def __init__(
        self,
        *,
        jobs: JobStore,
        shell: NodeShell,
        node: JobNode,
        task: nc.NodeTask,
        job_id: int,
        nproc: int,
        cap: LogCap,
        on_committed: OnCommitted | None = None,
        poll_s: float = 0.2,
        backoff_s: float = 0.5,
        max_line_chars: int = 16_384,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.jobs = jobs
        self.shell = shell
        self.node = node
        self.task = task
        self.job_id = job_id
        self.stream_name = task.kind
        self.node_name = node.name
        self.cap = cap
        self.on_committed = on_committed
        self.poll_s = poll_s
        self.backoff_s = backoff_s
        self.clock = clock
        self.cutter = LineCutter(0, node_rank=node.rank, nproc=nproc, max_line_chars=max_line_chars)
        self.status: NodeProcessStatus | None = None  # set once the process ended
        self.silent_since: float | None = None  # the node has not answered since then
        self.reconnects = 0
        self.last_error: str | None = None
        self._stop = threading.Event()
        self._done = threading.Event()
        self._lock = threading.Lock()
        self._handle: object | None = None
        self._stored = 0  # the offset the store will hold once the queued batches are in
        self._pending: deque[tuple[Future[AppendOutcome], Taken]] = deque()
        self._thread = threading.Thread(
            target=self._run, name=f"job{job_id}-{task.stem}-a{task.attempt}", daemon=True
        )

    # -- control ---------------------------------------------------------------------------
    def start(self) -> LogFollower:
        self._thread.start()
        return self

    @property
    def done(self) -> bool:
        return self._done.is_set()

    def wait(self, timeout: float | None = None) -> bool:
        return self._done.wait(timeout)

    def stop(self, timeout: float = 10.0) -> None:
        """Stop following (the process on the node keeps running)."""
        self._stop.set()
        with self._lock:
            handle = self._handle
        cancel = getattr(handle, "cancel", None)
        if cancel is not None:
            try:
                cancel(grace_s=0.5)
            except Exception:
                log.debug("stopping the log stream of %s failed", self.node.name, exc_info=True)
        if threading.current_thread() is not self._thread and self._thread.is_alive():
            self._thread.join(timeout)

    # -- the loop --------------------------------------------------------------------------
    def _run(self) -> None:
        delay = self.backoff_s
        try:
            while not self._stop.is_set():
                self._settle()
                offset = self.jobs.log_offset(
                    self.job_id, self.task.attempt, self.stream_name, self.node.rank
                )
                self.cutter.reset(offset)
                self._stored = offset
                try:
                    ended = self._follow_once(offset)
                except _Resync:
                    continue
                except RemoteError as exc:
                    ended = False
                    self.last_error = exc.message
                    if self.silent_since is None:
                        self.silent_since = self.clock()
                    log.info("log stream of %s on %s: %s", self.task.stem, self.node.name, exc)
                if ended:
                    return
                if self._stop.wait(delay):
                    return
                self.reconnects += 1
                delay = min(8.0, delay * 2)
        except Exception:
            log.exception("following %s on %s crashed", self.task.stem, self.node.name)
            self.last_error = "the log follower crashed (see the log file)"
        finally:
            self._settle()
            self._done.set()

    def _follow_once(self, offset: int) -> bool:
        """One stream; True when the process ended and every byte was stored."""
        decoder = LogWatchDecoder(offset)

        def on_line(line: str) -> None:
            if self.silent_since is not None:
                self.silent_since = None
            for chunk in decoder.feed(line):
                self._commit(self.cutter.feed(chunk.data))

        command = nc.watch_log(self.task, offset, poll_s=self.poll_s)
        handle = self.shell.stream(self.node, command, on_line)
        if handle is None:
            return self._poll_locally(offset)
        with self._lock:
            self._handle = handle
        try:
            handle.wait()
        except _Resync:
            raise
        finally:
            with self._lock:
                self._handle = None
        self.silent_since = None
        if decoder.end is not None and decoder.error is None:
            self._commit(self.cutter.flush())
            self._drain(block=True)
            self.status = decoder.end
            return True
        if decoder.error is not None:
            self.last_error = decoder.error
            log.warning("log stream of %s on %s: %s", self.task.stem, self.node.name, decoder.error)
        return False

    def _poll_locally(self, offset: int) -> bool:
        """The node is this machine: read the log by offset until the process ends."""
        while not self._stop.is_set():
            read = self.shell.run(self.node, nc.read_log(self.task, offset))
            chunk = parse_log_chunk(read.stdout, offset)
            if chunk.data:
                self._commit(self.cutter.feed(chunk.data))
                offset = chunk.end
                continue
            status = parse_status(self.shell.run(self.node, nc.status(self.task)).stdout)
            if status.finished or status.state is NodeProcessState.LOST:
                again = parse_log_chunk(
                    self.shell.run(self.node, nc.read_log(self.task, offset)).stdout, offset
                )
                if again.data:
                    offset = again.end
                    self._commit(self.cutter.feed(again.data))
                    continue
                self._commit(self.cutter.flush())
                self._drain(block=True)
                self.status = status
                return True
            self._stop.wait(self.poll_s)
        return False

    def _commit(self, taken: Taken) -> None:
        """Queue the batch with the offset after it; the writer puts many batches in one
        transaction, and each is stored only if the offset before it is still stored."""
        expected = self._stored
        if not taken.texts and taken.end == expected:
            if taken.redraws and self.on_committed is not None and not self._pending:
                self._tell(taken, stored=False)
            return
        future = self.jobs.submit_log(
            self.job_id,
            self.task.attempt,
            self.stream_name,
            self.node.rank,
            expected_offset=expected,
            new_offset=taken.end,
            lines=LogRows(self.node_name, self.clock(), taken.offsets, taken.ranks, taken.texts),
            cap=self.cap,
        )
        self._stored = taken.end
        self._pending.append((future, taken))
        self._drain(block=len(self._pending) > 64)  # never far ahead of the store

    def _drain(self, *, block: bool) -> None:
        """Tell the listeners of the batches the store took, in order; a refused one (another
        follower stored those bytes) means: start again from the stored offset."""
        while self._pending:
            future, taken = self._pending[0]
            if not block and not future.done():
                return
            outcome = future.result(120.0)
            self._pending.popleft()
            if not outcome.stored:
                log.info(
                    "%s on %s: another follower stored up to %d; resyncing",
                    self.task.stem,
                    self.node.name,
                    outcome.offset,
                )
                self._settle()
                raise _Resync()
            self._tell(taken, at=outcome.stored_at)

    def _settle(self) -> None:
        """Wait for every queued batch (the stored offset is final after this); batches
        after a refused one are refused too, which is right: nothing is stored twice."""
        while self._pending:
            future, taken = self._pending.popleft()
            try:
                outcome = future.result(120.0)
                if outcome.stored:
                    self._tell(taken, at=outcome.stored_at)
            except Exception:
                log.exception("storing lines of %s on %s failed", self.task.stem, self.node.name)

    def _tell(self, taken: Taken, *, stored: bool = True, at: float | None = None) -> None:
        if self.on_committed is None:
            return
        try:
            self.on_committed(
                Committed(
                    self.job_id,
                    self.task.attempt,
                    self.stream_name,
                    self.node,
                    taken.texts if stored else [],
                    taken.offsets if stored else [],
                    taken.ranks if stored else [],
                    taken.redraws,
                    at if at is not None else self.clock(),
                )
            )
        except Exception:
            log.exception("a log listener failed")
