"""The store's one writer: a thread that drains a queue and commits in batches.

Every write in the app goes through here, so SQLite never sees two writers
and nobody gets "database is locked". Callers that need the outcome get a
Future; fire-and-forget writes (samples) are only logged if they fail.
"""

from __future__ import annotations

import logging
import queue
import sqlite3
import threading
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future
from pathlib import Path
from typing import Any, TypeVar

from xyclaw.errors import StoreCorruptError, StoreError
from xyclaw.store.connection import Database
from xyclaw.store.database import damage_of, translated

log = logging.getLogger(__name__)

T = TypeVar("T")
WriteFn = Callable[[Database], Any]

_STOP = object()
_MAX_BATCH = 2000


class _Item:
    __slots__ = ("bare", "fn", "future")

    def __init__(self, fn: WriteFn, future: Future[Any] | None, bare: bool = False) -> None:
        self.fn = fn
        self.future = future
        self.bare = bare


class StoreWriter:
    """Owns the only writing connection; runs submitted functions in batched transactions."""

    def __init__(
        self, conn: sqlite3.Connection, *, max_queue: int = 100_000, path: Path | None = None
    ) -> None:
        self._conn = conn
        self._path = path  # the file: once it is known damaged, nothing more is written
        self._db = Database(conn)
        self._queue: queue.Queue[Any] = queue.Queue(maxsize=max_queue)
        self._closed = False
        self.batches = 0
        self.failures = 0
        self._thread = threading.Thread(target=self._loop, name="store-writer", daemon=True)
        self._thread.start()

    # -- submitting ---------------------------------------------------------------
    def submit(self, fn: Callable[[Database], T]) -> Future[T]:
        """Run ``fn(db)`` inside the writer's next transaction; the Future holds its result."""
        future: Future[T] = Future()
        self._put(_Item(fn, future))
        return future

    def call(self, fn: Callable[[Database], T], timeout: float = 60.0) -> T:
        """Submit and wait: for writes whose result (an id) the caller needs."""
        return self.submit(fn).result(timeout)

    def post(self, fn: WriteFn) -> None:
        """Fire and forget: for high-rate writes such as samples."""
        self._put(_Item(fn, None))

    def execute_many(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        rows = list(rows)
        self.post(lambda db: db.conn.executemany(sql, rows))

    def checkpoint(self, timeout: float = 600.0) -> None:
        """Fold the WAL back into the database file (outside any transaction)."""
        future: Future[Any] = Future()
        self._put(
            _Item(lambda db: db.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)"), future, True)
        )
        future.result(timeout)

    def flush(self, timeout: float = 60.0) -> None:
        """Wait until everything submitted so far is committed."""
        self.submit(lambda db: None).result(timeout)

    def _damage(self) -> StoreCorruptError | None:
        """The file's damage, if this process found any: then nothing more is written."""
        return None if self._path is None else damage_of(self._path)

    def _put(self, item: _Item) -> None:
        if self._closed:
            raise StoreError("the store is closed", hint="this is a bug: report it with the log")
        damage = self._damage()
        if damage is not None:
            raise damage
        self._queue.put(item)

    def _rollback(self) -> None:
        try:
            if self._conn.in_transaction:
                self._conn.execute("ROLLBACK")
        except Exception as exc:  # a damaged file may refuse even that
            log.debug("rollback failed: %s", exc)

    # -- the thread ----------------------------------------------------------------
    def _loop(self) -> None:
        while True:
            first = self._queue.get()
            if first is _STOP:
                return
            if first.bare:
                self._run_bare(first)
                continue
            batch: list[_Item] = [first]
            pending: Any = None
            while len(batch) < _MAX_BATCH:
                try:
                    nxt = self._queue.get_nowait()
                except queue.Empty:
                    break
                if nxt is _STOP or nxt.bare:
                    pending = nxt
                    break
                batch.append(nxt)
            self._run_batch(batch)
            if pending is _STOP:
                return
            if pending is not None:
                self._run_bare(pending)

    def _run_bare(self, item: _Item) -> None:
        try:
            damage = self._damage()
            if damage is not None:
                raise damage
            result = item.fn(self._db)
        except Exception as exc:
            if item.future is not None:
                item.future.set_exception(translated(self._path, exc))
            return
        if item.future is not None:
            item.future.set_result(result)

    def _run_batch(self, batch: list[_Item]) -> None:
        results: list[Any] = []
        try:
            self._conn.execute("BEGIN IMMEDIATE")
            for item in batch:
                results.append(item.fn(self._db))
            self._conn.execute("COMMIT")
        except Exception as exc:
            translated(self._path, exc)  # remembers damage, so the replay writes nothing
            self._rollback()
            # One bad write must not lose the others: replay them one by one (unless the
            # file turned out damaged: then none of them is written).
            for item in batch:
                self._run_one(item)
            return
        self.batches += 1
        for item, result in zip(batch, results, strict=True):
            if item.future is not None:
                item.future.set_result(result)

    def _run_one(self, item: _Item) -> None:
        try:
            damage = self._damage()
            if damage is not None:
                raise damage
            self._conn.execute("BEGIN IMMEDIATE")
            result = item.fn(self._db)
            self._conn.execute("COMMIT")
        except Exception as exc:
            self._rollback()
            self.failures += 1
            error = translated(self._path, exc)
            if item.future is not None:
                item.future.set_exception(error)
            else:
                log.error("a background write failed and was dropped: %s", error)
            return
        if item.future is not None:
            item.future.set_result(result)

    def close(self, timeout: float = 60.0) -> None:
        if self._closed:
            return
        self._closed = True
        self._queue.put(_STOP)
        self._thread.join(timeout)
        self._conn.close()
