"""GPU rows of several nodes (issue 35, migration 20): a cluster's flush in a few rows sized
to the database's pages, every node's samples read back exactly, alone or beside older rows.

The page counts are SQLite's own (its ``dbstat`` table), not the store's estimate.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.support.gpu_samples import a_second, add_cluster
from xyclaw.store import Store, replay, samples
from xyclaw.store.page_fill import PageFill
from xyclaw.store.samples import (
    GROUPED,
    MAX_SPAN_MS,
    RAW,
    SPLIT,
    SPLIT_BYTES,
    SampleChunk,
    batch_chunks,
    pack_rows,
    unpack_chunks,
)

T0 = 1_765_000_000_000


Sample = tuple[int, int, np.ndarray]  # (ts_ms, node, records)


def _flushes(
    rng: np.random.Generator, nodes: int, seconds: int, every: int = 10
) -> list[list[Sample]]:
    """What the collector hands the store: every ``every`` seconds, each node's seconds."""
    return [
        [
            (T0 + s * 1000 + node, node, a_second(rng))  # each node's clock a little apart
            for s in range(first, min(first + every, seconds))
            for node in range(1, nodes + 1)
        ]
        for first in range(0, seconds, every)
    ]


def _records_of(samples: list[Sample], node: int | None = None) -> bytes:
    return b"".join(rec.tobytes() for ts, n, rec in samples if node is None or n == node)


def _sorted_samples(block: Any) -> list[tuple[int, int, bytes]]:
    return sorted(
        (int(ts), int(node), rec.tobytes())
        for ts, node, rec in zip(block.ts_ms, block.node_id, block.records, strict=True)
    )


def _expected(samples: list[Sample]) -> list[tuple[int, int, bytes]]:
    return sorted(
        (ts, node, rec[g : g + 1].tobytes()) for ts, node, rec in samples for g in range(len(rec))
    )


def _leaf_pages(path: Path) -> tuple[int, int, int]:
    """SQLite's count of the GPU table's leaf pages, their unused bytes and overflow pages."""
    conn = sqlite3.connect(path)
    try:
        rows = dict(
            (kind, (pages, unused))
            for kind, pages, unused in conn.execute(
                "SELECT pagetype, count(*), sum(unused) FROM dbstat WHERE name = 'gpu_samples'"
                " GROUP BY pagetype"
            )
        )
    finally:
        conn.close()
    leaves, unused = rows.get("leaf", (0, 0))
    return leaves, unused, rows.get("overflow", (0, 0))[0]


def test_an_hour_of_a_cluster_is_a_few_rows_a_flush_on_full_pages(tmp_path: Path) -> None:
    """An hour of 8 nodes of 8 GPUs, flushed every 10 s: a few rows a flush instead of one a
    node, SQLite's leaf pages near full and no row spilled, and every node's samples read
    back exactly: the cluster's, one node's, and the replay's node by node."""
    flushes = _flushes(np.random.default_rng(1), nodes=8, seconds=3600)
    everything = [s for flush in flushes for s in flush]
    path = tmp_path / "h.db"
    with Store(path) as store:
        add_cluster(store)
        for flush in flushes:
            store.add_gpu_samples(1, flush)
        store.writer.flush(120)
        layouts = store.query("SELECT encoding, count(*) AS n FROM gpu_samples GROUP BY encoding")
        block = store.gpu_samples(1, T0, T0 + 3600 * 1000 + 100)
        node_5 = store.gpu_samples(1, T0, T0 + 3600 * 1000 + 100, 5)
        by_node = replay.gpu_samples_by_node(store, 1, T0, T0 + 3600 * 1000 + 100)
        store.writer.checkpoint()
    rows = sum(r["n"] for r in layouts)
    assert {r["encoding"] for r in layouts} <= {GROUPED, SPLIT}
    assert rows < len(flushes) * 8 / 4  # 2,880 rows of one node each before
    leaves, unused, overflow = _leaf_pages(path)
    assert overflow == 0
    assert unused / (leaves * 16384) < 0.08  # a row of one node's flush is 1.2 KB: 7% of a page
    assert leaves * 16384 / (3600 * 64) < 16.8  # bytes a sample on the leaves (issue 35)

    assert len(block) == 3600 * 64
    assert _sorted_samples(block) == _expected(everything)
    assert node_5.node_id.tolist() == [5] * 3600 * 8
    assert node_5.records.tobytes() == _records_of(everything, 5)
    assert sorted(by_node) == list(range(1, 9))
    for node, part in by_node.items():
        assert bool((np.diff(part.ts_ms) >= 0).all())
        assert part.records.tobytes() == _records_of(everything, node)


def test_a_row_never_spans_more_than_the_readers_look_back(tmp_path: Path) -> None:
    """A node that sends its backlog (five minutes late) is not grouped with the others'
    newer seconds: a read of a window that starts after the backlog's start still finds the
    newer seconds, and a read of the backlog's time finds it."""
    rng = np.random.default_rng(2)
    late = [(T0 + s * 1000, 9, a_second(rng)) for s in range(0, 10)]
    now = [(T0 + 300_000 + s * 1000, n, a_second(rng)) for s in range(10) for n in (1, 2, 3)]
    with Store(tmp_path / "h.db") as store:
        add_cluster(store)
        store.add_gpu_samples(1, late + now)
        store.writer.flush(30)
        spans = store.query("SELECT start_ms, end_ms FROM gpu_samples")
        newer = store.gpu_samples(1, T0 + 300_000, T0 + 310_000)
        backlog = store.gpu_samples(1, T0, T0 + 10_000)
    assert all(r["end_ms"] - r["start_ms"] < MAX_SPAN_MS for r in spans)
    assert _sorted_samples(newer) == _expected(now)
    assert _sorted_samples(backlog) == _expected(late)


def test_nodes_of_different_cards_and_a_moved_still_field_in_one_flush(tmp_path: Path) -> None:
    """Nodes of 8, 4 and 2 cards grouped together; a node whose power limit moved is kept
    whole between them; each node read alone gets exactly its samples."""
    rng = np.random.default_rng(3)
    cards = {1: 8, 2: 4, 3: 8, 4: 2, 5: 8, 6: 8}
    flush = [(T0 + s * 1000 + n, n, a_second(rng, c)) for s in range(10) for n, c in cards.items()]
    flush[4 * 6 + 2][2]["power_limit_w"][1] = 350  # node 3 capped at second 4
    with Store(tmp_path / "h.db") as store:
        add_cluster(store)
        store.add_gpu_samples(1, flush)
        store.writer.flush(30)
        layouts = [
            (r["encoding"], r["nodes"] is not None)
            for r in store.query("SELECT encoding, nodes FROM gpu_samples ORDER BY id")
        ]
        alone = {n: store.gpu_samples(1, T0, T0 + 10**6, n) for n in cards}
        together = store.gpu_samples(1, T0, T0 + 10**6)
    assert layouts == [(GROUPED, True), (RAW, False), (GROUPED, True)]
    for node, block in alone.items():
        assert block.records.tobytes() == _records_of(flush, node)
    assert _sorted_samples(together) == _expected(flush)


def test_a_node_larger_than_a_page_is_a_row_of_its_own(tmp_path: Path) -> None:
    """Two minutes of a node of 64 cards (100 KB) spill onto overflow pages as one row, as
    rows always could; the small nodes beside it are grouped and all read back."""
    rng = np.random.default_rng(4)
    big = [(T0 + s * 1000, 1, a_second(rng, 64)) for s in range(110)]
    small = [(T0 + s * 1000, n, a_second(rng)) for s in range(110) for n in (2, 3)]
    path = tmp_path / "h.db"
    with Store(path) as store:
        add_cluster(store)
        store.add_gpu_samples(1, big + small)
        store.writer.flush(30)
        block = store.gpu_samples(1, T0, T0 + 10**6)
        rows = store.query("SELECT node_id, encoding FROM gpu_samples ORDER BY id")
        store.writer.checkpoint()
    assert rows[0] == {"node_id": 1, "encoding": SPLIT}
    assert _sorted_samples(block) == _expected(big + small)
    assert _leaf_pages(path)[2] > 0


def _row(chunk: SampleChunk) -> tuple[Any, ...]:
    return (
        chunk.start_ms,
        chunk.node_id,
        chunk.instants,
        chunk.times,
        chunk.counts,
        chunk.data,
        chunk.encoding,
        chunk.still,
        chunk.util,
        chunk.nodes,
    )


def _members(row: tuple[Any, ...]) -> list[int]:
    """The nodes of a row, in its order: its directory's, or its own."""
    return [row[1]] if row[9] is None else np.frombuffer(row[9], "<i8,<u4")["f0"].tolist()


def _split_bytes_row(node: int, items: list[tuple[int, np.ndarray]]) -> tuple[Any, ...]:
    """A row as XyClaw wrote SPLIT rows before migration 19 (encoding 1): the 13 moving
    bytes of every sample one after another, the still ones once per card."""
    whole = np.frombuffer(b"".join(rec.tobytes() for _, rec in items), np.uint8).reshape(-1, 26)
    cards = len(items[0][1])
    times = np.array([ts - items[0][0] for ts, _ in items], dtype="<u4").tobytes()
    moving, still = samples._MOVING, samples._STILL
    counts = bytes([cards] * len(items))
    data, kept = whole[:, moving].tobytes(), whole[:cards, still].tobytes()
    return (items[0][0], node, len(items), times, counts, data, SPLIT_BYTES, kept, None, None)


def test_grouped_rows_read_beside_rows_of_every_older_layout() -> None:
    """One read over GROUPED, SPLIT, RAW and SPLIT_BYTES (before migration 19) rows in any
    order gives each row's samples, of its nodes and times, in row order."""
    rng = np.random.default_rng(5)
    items = {n: [(T0 + s * 1000, a_second(rng)) for s in range(5)] for n in range(1, 7)}
    items[4][2][1]["pstate"][0] = 2  # node 4 stays RAW
    rows = [_row(c) for c in pack_rows(batch_chunks(items), PageFill(16384), 1)]
    assert [r[6] for r in rows] == [GROUPED, RAW, GROUPED]
    items[7] = [(T0 + s * 1000, a_second(rng, 4)) for s in range(3)]
    (lone,) = [_row(c) for c in batch_chunks({7: items[7]})]
    assert lone[6] == SPLIT
    items[8] = [(T0 + s * 1000, a_second(rng)) for s in range(4)]
    old = _split_bytes_row(8, items[8])
    for some in (
        [rows[0]],
        [rows[1], rows[0]],
        [rows[2], lone, rows[1], rows[0]],
        [old, rows[0], old, rows[1], lone, rows[2]],
    ):
        block = unpack_chunks(some, T0, T0 + 10**6)
        order = [
            (ts, node, rec) for row in some for node in _members(row) for ts, rec in items[node]
        ]
        assert block.records.tobytes() == b"".join(rec.tobytes() for _, _, rec in order)
        assert block.node_id.tolist() == [n for _, n, rec in order for _ in range(len(rec))]
        assert block.ts_ms.tolist() == [ts for ts, _, rec in order for _ in range(len(rec))]


def test_a_row_in_a_layout_from_a_newer_version_is_refused_with_what_to_do() -> None:
    rng = np.random.default_rng(6)
    by_node = {n: [(T0 + s * 1000, a_second(rng)) for s in range(3)] for n in (1, 2)}
    (row,) = [_row(c) for c in pack_rows(batch_chunks(by_node), PageFill(16384), 1)]
    with pytest.raises(Exception, match="cannot read") as caught:
        unpack_chunks([row[:9]], T0, T0 + 10**6)  # read without its directory
    assert "update XyClaw" in str(getattr(caught.value, "hint", ""))


def test_a_node_s_seconds_written_twice_take_no_other_node_s_samples(tmp_path: Path) -> None:
    """A row of several nodes is keyed by its earliest node's chunk. When that node's seconds
    come again (a mirror that read them twice), the other nodes' samples in the row stay."""
    rng = np.random.default_rng(7)
    flush = [(T0 + s * 1000, n, a_second(rng)) for s in range(10) for n in (1, 2, 3)]
    with Store(tmp_path / "h.db") as store:
        add_cluster(store)
        store.add_gpu_samples(1, flush)
        store.add_gpu_samples(1, [s for s in flush if s[1] == 1])
        store.writer.flush(30)
        block = store.gpu_samples(1, T0, T0 + 10**6)
    for node in (2, 3):
        assert block.of_node(node).records.tobytes() == _records_of(flush, node)
    assert len(block.of_node(1)) == 2 * 10 * 8  # kept twice: nothing is deleted to dedupe


@pytest.mark.parametrize("page_size", [4096, 16384])
def test_the_page_count_is_sqlite_s_own(tmp_path: Path, page_size: int) -> None:
    """PageFill counts each row's cell as SQLite lays it out: on every leaf page SQLite wrote,
    the bytes used are the cells PageFill counts for the rows on it (its rowid aside, which
    PageFill counts at its longest), rows spilling onto overflow pages included."""
    rng = np.random.default_rng(8)
    conn = sqlite3.connect(tmp_path / "t.db")
    conn.execute(f"PRAGMA page_size={page_size}")
    conn.execute(
        "CREATE TABLE t (id INTEGER PRIMARY KEY, cluster_id INTEGER, node_id INTEGER,"
        " start_ms INTEGER, end_ms INTEGER, instants INTEGER, times BLOB, counts BLOB,"
        " data BLOB, encoding INTEGER, still BLOB, util BLOB, nodes BLOB)"
    )
    page = PageFill(page_size)
    rows, cells = [], []
    for i in range(400):
        size = int(rng.choice([40, 900, 3000, page_size // 2, 3 * page_size]))
        ints = [1, int(rng.integers(1, 70_000)), T0 + i * 10_000, T0 + i * 10_000 + 9_000, 10]
        blobs = [
            bytes(40),
            bytes(10),
            bytes(size),
            None if i % 3 else bytes(104),
            None if i % 3 else bytes(80),
            None if i % 2 else bytes(24),
        ]
        encoding = int(rng.choice([0, 2, 3]))
        rows.append((*ints, blobs[0], blobs[1], blobs[2], encoding, *blobs[3:]))
        lengths = [None if b is None else len(b) for b in blobs]
        rowid_bytes = 1 if i + 1 < 128 else 2  # the rowid as SQLite stores it
        cells.append(page.cell_size([*ints, encoding], lengths) - 9 + rowid_bytes)
    conn.executemany(
        "INSERT INTO t (cluster_id, node_id, start_ms, end_ms, instants, times, counts, data,"
        " encoding, still, util, nodes) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        rows,
    )
    conn.commit()
    leaves = conn.execute(
        "SELECT ncell, unused FROM dbstat WHERE name = 't' AND pagetype = 'leaf' ORDER BY path"
    ).fetchall()
    conn.close()
    assert sum(n for n, _ in leaves) == len(rows)
    at = 0
    for ncell, unused in leaves:
        assert page_size - 8 - unused == sum(cells[at : at + ncell])
        at += ncell
