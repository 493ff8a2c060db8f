"""GPU samples stored split (issue 35): half the bytes, read back exactly, old rows still read.

A row keeps each card's still fields once and the moving ones per sample; whatever cannot
be split (a still field that moved, a card that fell off) is kept whole, and a history
written before migration 14 reads as it did, also mixed with rows written after.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np
import pytest

from xyclaw.store import Store
from xyclaw.store.samples import (
    GPU_SAMPLE_DTYPE,
    MISSING,
    RAW,
    SPLIT,
    empty_gpu_records,
    make_chunks,
    unpack_chunks,
)

DATA = Path(__file__).resolve().parent / "data"
T0 = 1_765_000_000_000


def _second(rng: np.random.Generator, cards: int = 8) -> np.ndarray:
    rec = empty_gpu_records(cards)
    rec["gpu"] = np.arange(cards)
    rec["util"] = rng.integers(0, 101, cards)
    rec["mem_util"] = rng.integers(0, 101, cards)
    rec["temp_c"] = rng.integers(30, 90, cards)
    rec["pstate"] = 0
    rec["power_dw"] = rng.integers(600, 7000, cards)
    rec["power_limit_w"] = 700
    rec["sm_mhz"] = rng.integers(1000, 1981, cards)
    rec["mem_used_mib"] = rng.integers(0, 196_608, cards)  # a B200's memory needs 32 bits
    rec["mem_total_mib"] = 196_608
    rec["throttle"] = rng.choice([0, 0x4, 0x20, 0x104], cards)
    rec["ecc_uncorrected"] = 0
    # fan stays [N/A] (missing), as on every datacenter card
    return rec


def _items(seconds: int, rng: np.random.Generator) -> list[tuple[int, np.ndarray]]:
    return [(T0 + s * 1000, _second(rng)) for s in range(seconds)]


def _round_trip(items: list[tuple[int, np.ndarray]]) -> tuple[int, np.ndarray]:
    (chunk,) = make_chunks(3, items)
    row = (
        chunk.start_ms,
        3,
        chunk.instants,
        chunk.times,
        chunk.counts,
        chunk.data,
        chunk.encoding,
        chunk.still,
    )
    block = unpack_chunks([row], T0, T0 + 10**9)
    return chunk.encoding, block.records


def test_a_row_is_stored_in_half_the_bytes_and_read_back_exactly() -> None:
    items = _items(10, np.random.default_rng(7))
    (chunk,) = make_chunks(3, items)
    assert chunk.encoding == SPLIT
    assert len(chunk.data) == 10 * 8 * 13  # 13 bytes a sample, not 26
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
        later = [(old_end + (s + 1) * 1000, _second(np.random.default_rng(s))) for s in range(10)]
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
        store.writer.call(
            lambda db: db.conn.execute(
                "INSERT INTO providers (id, kind, name, created_at) VALUES ('sim', 'sim', 'sim', 0)"
            )
        )
        store.writer.call(
            lambda db: db.conn.execute(
                "INSERT INTO clusters (id, provider_id, name, state, gpu, gpu_count,"
                " gpus_per_node, fabric, currency, price_per_gpu_hour_micros, created_at)"
                " VALUES (1, 'sim', 'c', 'running', 'H100', 8, 8, 'none', 'USD', 1, 0)"
            )
        )
        for first in range(0, 3600, 10):
            store.add_gpu_samples(
                1, [(T0 + s * 1000, 1, _second(rng)) for s in range(first, first + 10)]
            )
        store.writer.flush(60)
        stored = store.query(
            "SELECT sum(length(data) + coalesce(length(still), 0) + length(times)"
            " + length(counts)) AS n FROM gpu_samples"
        )[0]["n"]
    samples = 3600 * 8
    assert stored / samples < 15  # 26 bytes a sample before issue 35
