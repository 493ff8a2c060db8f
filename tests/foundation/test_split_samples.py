"""GPU samples stored split (issue 35): half the bytes, read back exactly, old rows still read.

A row keeps each card's still fields once and the moving ones per sample; whatever cannot
be split (a still field that moved, a card that fell off) is kept whole, and a history
written before migration 14 reads as it did, also mixed with rows written after.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.support.gpu_samples import a_second, add_cluster
from xyclaw.store import Store, samples
from xyclaw.store.samples import (
    GPU_SAMPLE_DTYPE,
    MISSING,
    RAW,
    SPLIT,
    SPLIT_BYTES,
    SampleChunk,
    batch_chunks,
    empty_gpu_records,
    make_chunks,
    unpack_chunks,
)

DATA = Path(__file__).resolve().parent / "data"
T0 = 1_765_000_000_000


def _items(seconds: int, rng: np.random.Generator) -> list[tuple[int, np.ndarray]]:
    return [(T0 + s * 1000, a_second(rng)) for s in range(seconds)]


def _round_trip(items: list[tuple[int, np.ndarray]]) -> tuple[int, np.ndarray]:
    (chunk,) = make_chunks(3, items)
    block = unpack_chunks([_row(chunk)], T0, T0 + 10**9)
    return chunk.encoding, block.records


def test_a_row_is_stored_in_half_the_bytes_and_read_back_exactly() -> None:
    items = _items(10, np.random.default_rng(7))
    (chunk,) = make_chunks(3, items)
    assert chunk.encoding == SPLIT
    assert chunk.util is not None
    assert len(chunk.data) + len(chunk.util) == 10 * 8 * 13  # 13 bytes a sample, not 26
    assert len(chunk.util) == 10 * 8  # the utilization byte apart, the rest in 2-byte words
    assert chunk.still is not None and len(chunk.still) == 8 * 13  # once per card
    _, records = _round_trip(items)
    assert records.dtype == GPU_SAMPLE_DTYPE
    assert records.tobytes() == b"".join(rec.tobytes() for _, rec in items)


def test_missing_throttle_reasons_read_back_as_missing() -> None:
    items = _items(5, np.random.default_rng(8))
    for _, rec in items:
        rec["throttle"][2] = MISSING["throttle"]  # nvidia-smi printed [N/A] for card 2
    encoding, records = _round_trip(items)
    assert encoding == SPLIT
    assert records.tobytes() == b"".join(rec.tobytes() for _, rec in items)
    assert set(records["throttle"][records["gpu"] == 2].tolist()) == {MISSING["throttle"]}


@pytest.mark.parametrize(
    "change",
    ["pstate moves", "throttle goes missing", "a card falls off", "reasons past 16 bits"],
)
def test_a_row_that_cannot_be_split_is_kept_whole(change: str) -> None:
    rng = np.random.default_rng(9)
    items = _items(6, rng)
    if change == "pstate moves":
        items[4][1]["pstate"][1] = 2
    elif change == "throttle goes missing":
        items[3][1]["throttle"][0] = MISSING["throttle"]
    elif change == "a card falls off":
        items[5] = (items[5][0], items[5][1][:7])
    else:
        items[2][1]["throttle"][5] = 0x1_0004
    encoding, records = _round_trip(items)
    assert encoding == RAW
    assert records.tobytes() == b"".join(rec.tobytes() for _, rec in items)


def test_a_history_from_before_reads_its_old_rows_beside_new_ones(tmp_path: Path) -> None:
    """The v10 fixture's rows were written whole; after migrating, new rows are split, and
    one read over both gives every sample, in time order."""
    path = tmp_path / "history.db"
    conn = sqlite3.connect(path)
    conn.executescript((DATA / "store_v10.sql").read_text(encoding="utf-8"))
    (cluster_id, node_id), *_ = conn.execute(
        "SELECT cluster_id, node_id FROM gpu_samples ORDER BY id"
    ).fetchall()
    old_end = conn.execute("SELECT max(end_ms) FROM gpu_samples").fetchone()[0]
    conn.close()
    with Store(path) as store:
        old = store.gpu_samples(cluster_id, 0, 2**62, node_id)
        later = [(old_end + (s + 1) * 1000, a_second(np.random.default_rng(s))) for s in range(10)]
        store.add_gpu_samples(cluster_id, [(ts, node_id, rec) for ts, rec in later])
        store.writer.flush(30)
        encodings = {
            r["encoding"]
            for r in store.query(
                "SELECT encoding FROM gpu_samples WHERE cluster_id = ? AND node_id = ?",
                [cluster_id, node_id],
            )
        }
        both = store.gpu_samples(cluster_id, 0, 2**62, node_id)
    assert encodings == {RAW, SPLIT}
    assert len(both) == len(old) + 80
    assert both.records[: len(old)].tobytes() == old.records.tobytes()
    assert both.records[len(old) :].tobytes() == b"".join(rec.tobytes() for _, rec in later)
    assert bool((np.diff(both.ts_ms) >= 0).all())


def test_an_hour_of_eight_gpus_takes_about_half_the_disk(tmp_path: Path) -> None:
    """What a user sees as the history file's size: an hour of one 8-GPU node at 1 Hz."""
    rng = np.random.default_rng(11)
    with Store(tmp_path / "h.db") as store:
        add_cluster(store)
        for first in range(0, 3600, 10):
            store.add_gpu_samples(
                1, [(T0 + s * 1000, 1, a_second(rng)) for s in range(first, first + 10)]
            )
        store.writer.flush(60)
        stored = store.query(
            "SELECT sum(length(data) + coalesce(length(still), 0) + coalesce(length(util), 0)"
            " + length(times) + length(counts)) AS n FROM gpu_samples"
        )[0]["n"]
    samples = 3600 * 8
    assert stored / samples < 15  # 26 bytes a sample before issue 35


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
    )


def test_a_batch_splits_each_node_s_rows_on_their_own() -> None:
    """The nodes of one batch are split together; a node whose pstate moved, or whose card
    fell off, stays whole, and the nodes after it still split and read back exactly."""
    rng = np.random.default_rng(12)
    by_node = {node: _items(6, rng) for node in (1, 2, 3, 4, 5)}
    by_node[2][3][1]["pstate"][4] = 8
    by_node[3][5] = (by_node[3][5][0], by_node[3][5][1][:7])
    by_node[5] = [(ts, rec[:4]) for ts, rec in by_node[5]]  # a node of four cards
    chunks = batch_chunks(by_node)
    assert [c.encoding for c in chunks] == [SPLIT, RAW, RAW, SPLIT, SPLIT]
    for chunk, (node, items) in zip(chunks, by_node.items(), strict=True):
        assert chunk.node_id == node
        block = unpack_chunks([_row(chunk)], T0, T0 + 10**9)
        assert block.records.tobytes() == b"".join(rec.tobytes() for _, rec in items)


def test_a_row_of_instants_without_cards_is_kept_whole() -> None:
    items = [(T0 + s * 1000, empty_gpu_records(0)) for s in range(3)]
    encoding, records = _round_trip(items)
    assert encoding == RAW
    assert len(records) == 0


def test_rows_of_different_cards_and_instants_read_back_in_one_read() -> None:
    """One read over SPLIT rows of 8 cards for 10 s, 8 for 3 s, 4 for 5 s and 2 for 1 s, and
    (mixed) a RAW row among them: every sample, of its node and time."""
    rng = np.random.default_rng(13)
    shapes = {1: (8, 10), 2: (8, 3), 3: (4, 5), 4: (2, 1), 5: (8, 2)}
    by_node = {
        node: [(T0 + s * 1000, a_second(rng)[:cards]) for s in range(seconds)]
        for node, (cards, seconds) in shapes.items()
    }
    by_node[5][1][1]["ecc_uncorrected"][0] = 1  # node 5's row stays RAW
    rows = [_row(c) for c in batch_chunks(by_node)]
    assert [r[6] for r in rows] == [SPLIT, SPLIT, SPLIT, SPLIT, RAW]
    mixed = [rows[0], rows[4], rows[1], rows[4], rows[2], rows[3]]  # RAW among SPLIT rows
    for some in (rows[:2], rows[:4], mixed):  # one kind of row, cards alike or not, mixed
        block = unpack_chunks(some, T0, T0 + 10**9)
        nodes = [r[1] for r in some]
        expected = [(ts, node, rec) for node in nodes for ts, rec in by_node[node]]
        assert block.records.tobytes() == b"".join(rec.tobytes() for _, _, rec in expected)
        assert block.node_id.tolist() == [n for _, n, rec in expected for _ in range(len(rec))]
        assert block.ts_ms.tolist() == [ts for ts, _, rec in expected for _ in range(len(rec))]


def test_a_store_batch_with_one_node_s_still_field_moved(tmp_path: Path) -> None:
    """Through the store: the moved node's row is RAW, the others' SPLIT, all read back."""
    rng = np.random.default_rng(14)
    seconds = [[(T0 + s * 1000, node, a_second(rng)) for node in (1, 2, 3)] for s in range(10)]
    seconds[6][1][2]["power_limit_w"][3] = 350  # node 2 was capped at second 6
    with Store(tmp_path / "h.db") as store:
        add_cluster(store)
        store.add_gpu_samples(1, [item for second in seconds for item in second])
        store.writer.flush(30)
        encodings = {
            r["node_id"]: r["encoding"]
            for r in store.query("SELECT node_id, encoding FROM gpu_samples")
        }
        for node in (1, 2, 3):
            block = store.gpu_samples(1, T0, T0 + 10**9, node)
            assert block.records.tobytes() == b"".join(
                rec.tobytes() for second in seconds for _, n, rec in second if n == node
            )
    assert encodings == {1: SPLIT, 2: RAW, 3: SPLIT}


def _split_bytes_row(node: int, items: list[tuple[int, np.ndarray]]) -> tuple[Any, ...]:
    """A row as XyClaw wrote SPLIT rows before migration 19 (encoding 1): the 13 moving
    bytes of every sample one after another, the still ones once per card."""
    whole = np.frombuffer(b"".join(rec.tobytes() for _, rec in items), np.uint8).reshape(-1, 26)
    cards = len(items[0][1])
    times = np.array([ts - items[0][0] for ts, _ in items], dtype="<u4").tobytes()
    return (
        items[0][0],
        node,
        len(items),
        times,
        bytes([cards] * len(items)),
        whole[:, samples._MOVING].tobytes(),
        SPLIT_BYTES,
        whole[:cards, samples._STILL].tobytes(),
        None,
    )


def test_rows_split_before_migration_19_still_read_alone_and_beside_newer_rows(
    tmp_path: Path,
) -> None:
    """A history written with the 13-byte moving part (XyClaw before migration 19) reads
    back exactly, by itself and in one read with rows of both later layouts."""
    rng = np.random.default_rng(15)
    old = {node: _items(10, rng) for node in (1, 2)}
    new = {node: [(ts + 10_000, rec) for ts, rec in _items(10, rng)] for node in (1, 2)}
    new[2][4][1]["fan"][0] = 40  # node 2's newer row stays RAW
    with Store(tmp_path / "h.db") as store:
        add_cluster(store)
        legacy = [(1, *_split_bytes_row(node, items)) for node, items in old.items()]
        store.writer.call(
            lambda db: db.conn.executemany(
                "INSERT INTO gpu_samples (cluster_id, start_ms, node_id, instants, times,"
                " counts, data, encoding, still, util, end_ms)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0)",
                legacy,
            )
        )
        for node in (1, 2):
            alone = store.gpu_samples(1, T0, T0 + 10_000, node)
            assert alone.records.tobytes() == b"".join(rec.tobytes() for _, rec in old[node])
        store.add_gpu_samples(1, [(ts, n, rec) for n, items in new.items() for ts, rec in items])
        store.writer.flush(30)
        layouts = {(r["node_id"], r["encoding"]) for r in store.query("SELECT * FROM gpu_samples")}
        assert layouts == {(1, SPLIT_BYTES), (2, SPLIT_BYTES), (1, SPLIT), (2, RAW)}
        for node in (1, 2):
            both = store.gpu_samples(1, T0, T0 + 10**9, node)
            want = [rec for _, rec in old[node] + new[node]]
            assert both.records.tobytes() == b"".join(rec.tobytes() for rec in want)
        everything = store.gpu_samples(1, T0, T0 + 10**9)  # one read, three layouts
        assert len(everything) == 4 * 10 * 8
        assert sorted(everything.records.tobytes()[i : i + 26] for i in range(0, 26 * 320, 26)) == (
            sorted(
                rec[g].tobytes()
                for items in (*old.values(), *new.values())
                for _, rec in items
                for g in range(8)
            )
        )
