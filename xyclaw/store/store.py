"""The Store: one writer thread, a read connection per thread, and the common queries."""

from __future__ import annotations

import logging
import os
import sqlite3
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from xyclaw.errors import StoreError, UsageError
from xyclaw.store.connection import Database
from xyclaw.store.database import connect, corruption_guard, inspect_version, open_for_writing
from xyclaw.store.migrations import LATEST_VERSION
from xyclaw.store.page_fill import PageFill
from xyclaw.store.writer import StoreWriter
from xyclaw.wording import said

if TYPE_CHECKING:  # numpy is imported with the samples, not with the store
    import numpy as np
    import numpy.typing as npt

    from xyclaw.store.samples import DcgmRecords, GpuRecords, NicRecords, SampleBlock

log = logging.getLogger(__name__)
SampleTable = Literal["gpu_samples", "nic_samples", "dcgm_samples"]
#: How long close() waits for a thread's read in progress before leaving its connection open.
READ_DRAIN_S = 10.0


def _dtype(table: SampleTable) -> np.dtype[Any]:
    from xyclaw.store.samples import DCGM_SAMPLE_DTYPE, GPU_SAMPLE_DTYPE, NIC_SAMPLE_DTYPE

    if table == "dcgm_samples":
        return DCGM_SAMPLE_DTYPE
    return GPU_SAMPLE_DTYPE if table == "gpu_samples" else NIC_SAMPLE_DTYPE


def _groups_nodes(table: str) -> bool:
    """Whether the table's split rows keep their utilization bytes apart (migration 19) and
    hold several nodes each (migration 20)."""
    return table == "gpu_samples"


def stored_columns(table: str) -> str:
    """The columns a sample row is read back with, in :func:`~xyclaw.store.samples.unpack_chunks`'s
    order."""
    columns = "start_ms, node_id, instants, times, counts, data, encoding, still"
    return columns + ", util, nodes" if _groups_nodes(table) else columns


def _of_node(table: str) -> str:
    """SQL that keeps a table's rows holding a node's samples (``?``: the node): its own, and
    rows of several nodes (a read then keeps only that node's samples)."""
    if _groups_nodes(table):
        from xyclaw.store.samples import GROUPED

        return f"(node_id = ? OR encoding = {GROUPED})"
    return "node_id = ?"


@dataclass(frozen=True)
class StoreInfo:
    path: Path
    schema_version: int
    latest_version: int
    size_bytes: int
    row_counts: dict[str, int]

    def to_json(self) -> dict[str, Any]:
        return {
            "path": str(self.path),
            "schema_version": self.schema_version,
            "latest_version": self.latest_version,
            "size_bytes": self.size_bytes,
            "row_counts": self.row_counts,
        }


class Store:
    """The local history. Writes go through :attr:`writer`; reads use per-thread connections."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.writer = StoreWriter(open_for_writing(path), path=path)
        self._local = threading.local()
        self._readers: list[tuple[sqlite3.Connection, threading.RLock]] = []
        self._readers_lock = threading.Lock()
        self._closed = False
        self._page_lock = threading.Lock()
        self._gpu_page_fill: PageFill | None = None

    # -- reading ---------------------------------------------------------------------
    @contextmanager
    def reading(self) -> Iterator[Database]:
        """This thread's read-only connection (WAL lets it read while the writer writes),
        held for the read: :meth:`close` waits for a read in progress instead of closing
        (and unmapping) the connection under it, which crashed the process when the window
        quit while a worker thread still read. A read after close is a StoreError."""
        db: Database | None = getattr(self._local, "db", None)
        if db is None:
            with self._readers_lock:
                if self._closed:
                    raise _closed_error(self.path)
                conn = connect(self.path, readonly=True)
                lock = threading.RLock()
                self._readers.append((conn, lock))
            db = Database(conn)
            self._local.db, self._local.lock = db, lock
        with self._local.lock:
            if self._closed:
                raise _closed_error(self.path)
            with corruption_guard(self.path):
                yield db

    def query(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> list[dict[str, Any]]:
        with self.reading() as db:
            return list(db.query(sql, params))

    # -- samples -------------------------------------------------------------------------
    def add_gpu_samples(
        self, cluster_id: int, items: Iterable[tuple[int, int, GpuRecords]]
    ) -> None:
        """Queue (ts_ms, node_id, records) for writing; returns at once.

        The telemetry writer calls this with a few seconds of samples at a time; each
        call's samples of one node become a part of a row (a new part past two minutes),
        and the parts are grouped into rows that fill the database's pages.
        """
        self._add_samples("gpu_samples", cluster_id, items)

    def gpu_samples(
        self, cluster_id: int, start_ms: int, end_ms: int, node_id: int | None = None
    ) -> SampleBlock:
        """Samples of a cluster in [start_ms, end_ms), one record per GPU and instant."""
        return self._samples("gpu_samples", cluster_id, start_ms, end_ms, node_id)

    def add_nic_samples(
        self, cluster_id: int, items: Iterable[tuple[int, int, NicRecords]]
    ) -> None:
        """Queue (ts_ms, node_id, NIC records) for writing, one row per node; returns at once."""
        self._add_samples("nic_samples", cluster_id, items)

    def nic_samples(
        self, cluster_id: int, start_ms: int, end_ms: int, node_id: int | None = None
    ) -> SampleBlock:
        """NIC rates of a cluster in [start_ms, end_ms), one record per interface and instant."""
        return self._samples("nic_samples", cluster_id, start_ms, end_ms, node_id)

    def add_dcgm_samples(
        self, cluster_id: int, items: Iterable[tuple[int, int, DcgmRecords]]
    ) -> None:
        """Queue (ts_ms, node_id, DCGM records) for writing (issue 34); returns at once."""
        self._add_samples("dcgm_samples", cluster_id, items)

    def dcgm_samples(
        self, cluster_id: int, start_ms: int, end_ms: int, node_id: int | None = None
    ) -> SampleBlock:
        """DCGM profiling ratios of a cluster in [start_ms, end_ms), one record per GPU and
        reading; empty where no node had DCGM."""
        return self._samples("dcgm_samples", cluster_id, start_ms, end_ms, node_id)

    def _add_samples(
        self,
        table: SampleTable,
        cluster_id: int,
        items: Iterable[tuple[int, int, npt.NDArray[Any]]],
    ) -> None:
        from xyclaw.store.samples import batch_chunks, pack_rows

        by_node: dict[int, list[tuple[int, npt.NDArray[Any]]]] = {}
        for ts_ms, node_id, records in items:
            by_node.setdefault(node_id, []).append((ts_ms, records))
        chunks = batch_chunks(by_node, _dtype(table))
        if not chunks:
            return
        grouped = _groups_nodes(table)
        columns = "cluster_id, node_id, start_ms, end_ms, instants, times, counts, data, encoding"
        columns += ", still, util, nodes" if grouped else ", still"
        marks = ", ".join("?" * len(columns.split(",")))
        sql = f"INSERT OR REPLACE INTO {table} ({columns}) VALUES ({marks})"
        # Rows are counted onto pages in the order the writer appends them.
        with self._page_lock:
            if grouped:
                chunks = pack_rows(chunks, self._gpu_page(), cluster_id)
            rows = [
                (
                    cluster_id,
                    c.node_id,
                    c.start_ms,
                    c.end_ms,
                    c.instants,
                    c.times,
                    c.counts,
                    c.data,
                    c.encoding,
                    c.still,
                    *((c.util, c.nodes) if grouped else ()),
                )
                for c in chunks
            ]
            self.writer.execute_many(sql, rows)

    def _gpu_page(self) -> PageFill:
        if self._gpu_page_fill is None:
            with self.reading() as db:
                page_size = int(db.conn.execute("PRAGMA page_size").fetchone()[0])
            self._gpu_page_fill = PageFill(page_size)
        return self._gpu_page_fill

    def _samples(
        self,
        table: SampleTable,
        cluster_id: int,
        start_ms: int,
        end_ms: int,
        node_id: int | None,
    ) -> SampleBlock:
        from xyclaw.store.samples import MAX_SPAN_MS, unpack_chunks

        sql = (
            f"SELECT {stored_columns(table)} FROM {table}"
            " WHERE cluster_id = ? AND start_ms > ? AND start_ms < ?"
        )
        params: list[Any] = [cluster_id, start_ms - MAX_SPAN_MS, end_ms]
        if node_id is not None:
            sql += f" AND {_of_node(table)}"
            params.append(node_id)
        with self.reading() as db:
            rows = db.conn.execute(sql + " ORDER BY start_ms, node_id", params).fetchall()
        block = unpack_chunks(rows, start_ms, end_ms, _dtype(table))
        return block if node_id is None else block.of_node(node_id)

    # -- maintenance ------------------------------------------------------------------------
    def info(self) -> StoreInfo:
        with self.reading() as db:
            version = int(db.conn.execute("PRAGMA user_version").fetchone()[0])
            counts = {
                table: int(db.conn.execute(f'SELECT count(*) FROM "{table}"').fetchone()[0])
                for table in db.table_names()
            }
        size = sum(p.stat().st_size for p in (self.path, Path(f"{self.path}-wal")) if p.exists())
        return StoreInfo(self.path, version, LATEST_VERSION, size, counts)

    def backup(self, target: Path, *, overwrite: bool = False) -> Path:
        """An online copy with SQLite's backup API: consistent while the app keeps writing.

        The copy is made in a temporary file beside ``target`` and moved into place whole, so
        a reader of ``target`` sees the old file or the complete copy. The live file, its
        ``-wal``, ``-shm`` and ``-journal`` are refused as targets: only SQLite opens those."""
        target = target.expanduser()
        if target.is_dir():
            target = target / self.path.name
        if target.exists() and not overwrite:
            raise UsageError(
                said("error.backup.exists", path=str(target)), hint=said("error.backup.exists_hint")
            )
        live = self.path.resolve()
        if target.resolve() == live:
            raise UsageError(said("error.backup.live"))
        if target.resolve().parent == live.parent and target.name in {
            f"{live.name}{suffix}" for suffix in ("-wal", "-shm", "-journal")
        }:
            raise UsageError(said("error.backup.live_part", path=str(target)))
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(f".{target.name}.{os.getpid()}.{threading.get_ident()}.tmp")
        src = connect(self.path, readonly=True)
        try:
            dest = sqlite3.connect(tmp)
            try:
                with corruption_guard(self.path):
                    src.backup(dest)
            finally:
                dest.close()
            os.replace(tmp, target)
        except (sqlite3.Error, StoreError, OSError) as exc:
            tmp.unlink(missing_ok=True)  # no half-written copy left behind
            if isinstance(exc, StoreError):
                raise
            raise StoreError(
                said("error.backup.failed", path=str(target), reason=str(exc))
            ) from exc
        finally:
            src.close()
        return target

    def close(self) -> None:
        # Readers first: the writer, closing last, folds the WAL back into the file and
        # removes the -wal and -shm files, so a closed store is one file again. A reader in
        # the middle of a read is waited for; one that never finishes is left open (the
        # process is ending) rather than closed under the thread still using it.
        self._close_readers()
        self.writer.close()

    def _close_readers(self) -> None:
        with self._readers_lock:
            self._closed = True
            readers, self._readers = self._readers, []
        for conn, lock in readers:
            if lock.acquire(timeout=READ_DRAIN_S):
                try:
                    conn.close()
                finally:
                    lock.release()
            else:
                log.warning("a read of %s did not finish in %.0f s; left open", self.path,
                            READ_DRAIN_S)  # fmt: skip

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _closed_error(path: Path) -> StoreError:
    return StoreError(
        f"the local history {path} is closed", hint="XyClaw is shutting down; start it again"
    )


def peek_schema_version(path: Path, *, check: bool = False) -> int:
    """The schema version of a database file, read without changing it; ``check`` also reads
    every page and raises StoreCorruptError for damage anywhere in the file."""
    return inspect_version(path, check=check)
