"""GPU samples packed as numpy records, stored in rows of one or more nodes' span of time.

Packing in rows keeps reading an hour of a cluster to a few hundred rows instead of one
row per GPU and second (one row per node and second reads 230,400 samples in ~60 ms here,
one row per node and 10 s in a few ms). Missing values ([N/A] on the node) are stored as
the type's maximum; the uncorrected-ECC count saturates at 65,534. The memory clock is not
stored: it moves only with pstate.

A GPU row is written split (``SPLIT``, issue 35) where it can be: the fields that hold still
on a card for a row's span (its slot, fan, pstate, power limit, memory size, ECC count) once
per card, the moving ones (utilization, temperature, power, clocks, memory used, the low half of the
throttle reasons) per instant. That is 13 bytes a sample instead of 26, read back exactly
with no compressor to run on every read. The moving bytes are kept as the six 2-byte words of
the record they fill (``data``) and the utilization byte apart (``util``, migration 19), so a
read puts them back with aligned 2-byte copies, twice as fast as the 13 single bytes of the
rows written before (``SPLIT_BYTES``), which still read. A row where a still field moved, or
where the cards per instant differ, is written whole (``RAW``), as every row was before
migration 14.

The SPLIT rows of one write (the nodes of a cluster's flush) are grouped (``GROUPED``,
migration 20) into rows sized to fill the table's pages (:mod:`xyclaw.store.page_fill`), with
a directory of the nodes in each: reading an hour then fetches a few hundred rows instead of
one per node and flush, which cost more than the samples' bytes (about 3 µs a row here).
"""

from __future__ import annotations

import struct
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from xyclaw.errors import StoreError
from xyclaw.store.page_fill import PageFill

GPU_SAMPLE_DTYPE = np.dtype(
    [
        ("gpu", "u1"),
        ("util", "u1"),
        ("mem_util", "u1"),
        ("temp_c", "u1"),
        ("fan", "u1"),
        ("pstate", "u1"),
        ("power_dw", "<u2"),
        ("power_limit_w", "<u2"),
        ("sm_mhz", "<u2"),
        ("mem_used_mib", "<u4"),
        ("mem_total_mib", "<u4"),
        ("throttle", "<u4"),
        ("ecc_uncorrected", "<u2"),
    ]
)

MISSING: dict[str, int] = {
    name: int(np.iinfo(GPU_SAMPLE_DTYPE[name]).max) for name in GPU_SAMPLE_DTYPE.names or ()
}

#: The longest span one stored row may cover; readers widen their search by it.
MAX_SPAN_MS = 120_000

GpuRecords = npt.NDArray[Any]


@dataclass(frozen=True)
class SampleBlock:
    """Samples read back: ``records[i]`` was taken at ``ts_ms[i]`` on ``node_id[i]``."""

    ts_ms: npt.NDArray[np.int64]
    node_id: npt.NDArray[np.int64]
    records: npt.NDArray[Any]

    def __len__(self) -> int:
        return int(self.records.shape[0])

    def of_node(self, node_id: int) -> SampleBlock:
        """The samples of one node (a row can hold several nodes')."""
        mine = self.node_id == node_id
        if bool(mine.all()):
            return self
        return SampleBlock(self.ts_ms[mine], self.node_id[mine], self.records[mine])


GpuSampleBlock = SampleBlock


@dataclass(frozen=True)
class SampleChunk:
    """One stored row: a node's samples from ``start_ms`` to ``end_ms`` inclusive."""

    node_id: int
    start_ms: int
    end_ms: int
    instants: int
    times: bytes
    counts: bytes
    data: bytes
    encoding: int = 0
    still: bytes | None = None  # SPLIT: each card's still fields, once
    util: bytes | None = None  # SPLIT: each sample's utilization byte (data holds the rest)
    nodes: bytes | None = None  # GROUPED: the directory of the row's nodes (_DIRECTORY)


def empty_gpu_records(count: int) -> GpuRecords:
    """Records with every field missing, to be filled from a parsed sample."""
    records = np.zeros(count, dtype=GPU_SAMPLE_DTYPE)
    for name, value in MISSING.items():
        records[name] = value
    return records


#: A row's ``data`` layout (the sample tables' ``encoding`` column, migration 14).
RAW = 0  # the records one after another
SPLIT_BYTES = 1  # GPU rows: ``data`` the 13 moving bytes per sample, ``still`` the rest per card
SPLIT = 2  # as SPLIT_BYTES, ``data`` the moving 2-byte words per sample and ``util`` the last byte
GROUPED = 3  # GPU rows: SPLIT rows of several nodes one after another, ``nodes`` their directory

#: A GROUPED row's directory: each of its nodes' parts in order, and the instants it holds.
#: The part's cards, times and bytes follow from them (a SPLIT part has as many cards at
#: every instant as at its first).
_DIRECTORY = np.dtype([("node", "<i8"), ("instants", "<u4")])
_DIRECTORY_ENTRY = struct.Struct("<qI")
assert _DIRECTORY_ENTRY.size == _DIRECTORY.itemsize
#: Layouts of moving 2-byte words and utilization bytes, read back together.
_WORD_LAYOUTS = frozenset({SPLIT, GROUPED})

_STILL_FIELDS = ("gpu", "fan", "pstate", "power_limit_w", "mem_total_mib", "ecc_uncorrected")
_MOVING_FIELDS = ("util", "mem_util", "temp_c", "power_dw", "sm_mhz", "mem_used_mib")


def _byte_columns(names: Sequence[str], dtype: np.dtype[Any] = GPU_SAMPLE_DTYPE) -> list[int]:
    columns: list[int] = []
    for name in names:
        field_dtype, offset = dtype.fields[name][:2]  # type: ignore[index]
        columns += range(offset, offset + field_dtype.itemsize)
    return columns


_THROTTLE_OFFSET = GPU_SAMPLE_DTYPE.fields["throttle"][1]  # type: ignore[index]
#: Byte columns of a GPU record: the still part (with the throttle reasons' high half, 0
#: or, when missing, 0xFFFF) and the moving part (with their low half).
_STILL = [*_byte_columns(_STILL_FIELDS), _THROTTLE_OFFSET + 2, _THROTTLE_OFFSET + 3]
_MOVING = [*_byte_columns(_MOVING_FIELDS), _THROTTLE_OFFSET, _THROTTLE_OFFSET + 1]
STILL_BYTES, MOVING_BYTES = len(_STILL), len(_MOVING)
# Between them every byte of a record: a SPLIT row's records are built in uninitialized memory.
assert sorted(_STILL + _MOVING) == list(range(GPU_SAMPLE_DTYPE.itemsize))
_UTIL = GPU_SAMPLE_DTYPE.fields["util"][1]  # type: ignore[index]
#: The record's 2-byte words of moving bytes only (a SPLIT row's ``data``, per sample): with
#: the utilization byte, whose word it shares with the card's slot, every moving byte.
_WORDS = np.array(
    [w for w in range(GPU_SAMPLE_DTYPE.itemsize // 2) if {2 * w, 2 * w + 1} <= {*_MOVING}]
)
assert sorted([*(2 * _WORDS), *(2 * _WORDS + 1), _UTIL]) == sorted(_MOVING)


def _split(rows: Sequence[_Row]) -> dict[int, tuple[bytes, bytes, bytes]] | None:
    """GPU rows (cut whole) as SPLIT: by index, the (still, words, util) parts of each row that
    splits; a row whose cards per instant differ, or where a still field (or the high half of
    the throttle reasons) moved, stays RAW. None where no row can split.

    One pass of numpy calls for every row of a batch together: a row is a node's few seconds,
    so numpy calls row by row cost more than the bytes they move."""
    alike = [i for i, row in enumerate(rows) if _cards_alike(row[5])]
    if not alike:
        return None
    whole = np.frombuffer(b"".join(rows[i][6] for i in alike), np.uint8).reshape(-1, _RECORD_SIZE)
    still = np.empty((whole.shape[0], STILL_BYTES), np.uint8)
    _copy_columns(still, _STILL_IN_PART, whole, _STILL_IN_RECORD)
    still_bytes = still.tobytes()
    word_bytes = whole.view(np.uint16)[:, _WORDS].tobytes()
    util_bytes = whole[:, _UTIL].tobytes()
    per_sample = 2 * len(_WORDS)
    parts: dict[int, tuple[bytes, bytes, bytes]] = {}
    at = 0  # the row's first record
    for i in alike:
        instants, counts = rows[i][3], rows[i][5]
        size = counts[0] * instants
        each_instant = still_bytes[at * STILL_BYTES : (at + size) * STILL_BYTES]
        per_card = each_instant[: counts[0] * STILL_BYTES]
        if each_instant == per_card * instants:
            words = word_bytes[at * per_sample : (at + size) * per_sample]
            parts[i] = (per_card, words, util_bytes[at : at + size])
        at += size
    return parts


def _cards_alike(counts: bytes) -> bool:
    """Whether a row has cards, as many at every instant as at its first."""
    return counts[0] > 0 and counts.count(counts[0]) == len(counts)


#: A row cut whole: (node_id, start_ms, end_ms, instants, times, counts, data).
_Row = tuple[int, int, int, int, bytes, bytes, bytes]


def _cut(
    node_id: int, items: Sequence[tuple[int, npt.NDArray[Any]]], dtype: np.dtype[Any]
) -> list[_Row]:
    """A node's (ts_ms, records) in time order, cut into rows of at most MAX_SPAN_MS."""
    rows: list[_Row] = []
    start = 0
    while start < len(items):
        first_ts = items[start][0]
        end = start
        while end < len(items) and items[end][0] - first_ts < MAX_SPAN_MS:
            if end > start and items[end][0] < items[end - 1][0]:
                raise StoreError("samples of one node must be given in time order")
            end += 1
        part = items[start:end]
        offsets = np.fromiter((ts - first_ts for ts, _ in part), dtype="<u4", count=len(part))
        counts = bytes(len(rec) for _, rec in part)  # uint8: at most 255 GPUs or NICs a node
        # tobytes() copies in C order whatever the strides: only another dtype needs a cast.
        data = b"".join(
            (rec if rec.dtype is dtype or rec.dtype == dtype else rec.astype(dtype)).tobytes()
            for _, rec in part
        )
        rows.append((node_id, first_ts, part[-1][0], len(part), offsets.tobytes(), counts, data))
        start = end
    return rows


def make_chunks(
    node_id: int,
    items: Sequence[tuple[int, npt.NDArray[Any]]],
    dtype: np.dtype[Any] = GPU_SAMPLE_DTYPE,
) -> list[SampleChunk]:
    """A node's (ts_ms, records) in time order, cut into rows of at most MAX_SPAN_MS."""
    return batch_chunks({node_id: items}, dtype)


def batch_chunks(
    by_node: Mapping[int, Sequence[tuple[int, npt.NDArray[Any]]]],
    dtype: np.dtype[Any] = GPU_SAMPLE_DTYPE,
) -> list[SampleChunk]:
    """The rows of a batch: each node's (ts_ms, records) in time order, cut as by
    :func:`make_chunks`, GPU rows split together."""
    rows = [row for node_id, items in by_node.items() for row in _cut(node_id, items, dtype)]
    parts = (_split(rows) if dtype is GPU_SAMPLE_DTYPE else None) or {}
    return [
        SampleChunk(*row)
        if i not in parts
        else SampleChunk(*row[:6], parts[i][1], SPLIT, parts[i][0], parts[i][2])
        for i, row in enumerate(rows)
    ]


def pack_rows(chunks: Sequence[SampleChunk], page: PageFill, cluster_id: int) -> list[SampleChunk]:
    """The rows to write for a batch's GPU chunks, in order: SPLIT chunks one after another
    grouped (GROUPED) into rows that fill the room left on the table's last page, or a page,
    a chunk of its own where it alone fits; other chunks (RAW) a row each. ``page`` counts
    every row placed.

    A row spans less than MAX_SPAN_MS, as the readers expect. Its (start, node) is that of its
    earliest chunk (the table does not hold it unique since migration 20)."""
    rows: list[SampleChunk] = []
    group: list[SampleChunk] = []
    budget = total = start = end = 0  # the group's blob bytes: the most it may hold, and held

    def close() -> None:
        if len(group) == 1:
            page.place(_cell(page, cluster_id, group[0]))
            rows.append(group[0])
        elif group:
            page.place(page.cell_at_most(_INTS, _BLOBS, total))
            rows.append(_grouped(group))
        group.clear()

    for chunk in chunks:
        if chunk.encoding != SPLIT:
            close()
            page.place(_cell(page, cluster_id, chunk))
            rows.append(chunk)
            continue
        size = _blob_bytes(chunk)
        if group:
            first, last = min(start, chunk.start_ms), max(end, chunk.end_ms)
            if last - first < MAX_SPAN_MS and total + size <= budget:
                group.append(chunk)
                total, start, end = total + size, first, last
                continue
            close()
        group.append(chunk)
        total, start, end = size, chunk.start_ms, chunk.end_ms
        room = page.room if page.fits(_cell(page, cluster_id, chunk)) else page.page_room
        budget = page.blob_budget(room, _INTS, _BLOBS)
    close()
    return rows


#: A GROUPED row's integer columns (cluster, node, start, end, instants, encoding) and blobs
#: (times, counts, data, still, util, nodes).
_INTS, _BLOBS = 6, 6


def _cell(page: PageFill, cluster_id: int, chunk: SampleChunk) -> int:
    """The cell of a chunk's own row, counted exactly."""
    blobs = (chunk.times, chunk.counts, chunk.data, chunk.still, chunk.util, chunk.nodes)
    ints = [cluster_id, chunk.node_id, chunk.start_ms, chunk.end_ms, chunk.instants]
    return page.cell_size([*ints, chunk.encoding], [None if b is None else len(b) for b in blobs])


def _blob_bytes(chunk: SampleChunk) -> int:
    """What a chunk adds to a GROUPED row's blobs: its parts and its directory entry."""
    return (
        len(chunk.times)
        + len(chunk.counts)
        + len(chunk.data)
        + len(chunk.still or b"")
        + len(chunk.util or b"")
        + _DIRECTORY.itemsize
    )


def _grouped(members: Sequence[SampleChunk]) -> SampleChunk:
    """One GROUPED row of SPLIT chunks: their parts one after another, times from the
    earliest start."""
    key = min(members, key=lambda c: (c.start_ms, c.node_id))
    instants = [c.instants for c in members]
    later = np.array([c.start_ms - key.start_ms for c in members], np.int64)
    offsets = np.frombuffer(b"".join(c.times for c in members), "<u4") + np.repeat(later, instants)
    return SampleChunk(
        key.node_id,
        key.start_ms,
        max(c.end_ms for c in members),
        sum(instants),
        offsets.astype("<u4").tobytes(),
        b"".join(c.counts for c in members),
        b"".join(c.data for c in members),
        GROUPED,
        b"".join(c.still or b"" for c in members),
        b"".join(c.util or b"" for c in members),
        b"".join(_DIRECTORY_ENTRY.pack(c.node_id, c.instants) for c in members),
    )


#: The shortest run of adjacent bytes copied as one opaque field: numpy copies a one-byte
#: field in a tight pass (about 0.4 ns a record here) and an opaque field with a memmove a
#: record (about 2 ns), which pays from about six bytes on.
_WHOLE_RUN = 6


def _views(columns: Sequence[int], itemsize: int) -> tuple[np.dtype[Any], np.dtype[Any]]:
    """Views naming, field for field, a record's byte ``columns`` and the same bytes laid end
    to end (a SPLIT row's part): a run of at least _WHOLE_RUN adjacent columns as one opaque
    field, the others a byte a field. Copying field by field between them moves the bytes
    in a few tight passes, where 2-D byte-column slices crawl."""
    runs: list[tuple[int, int, int]] = []  # (offset in the record, in the part, length)
    for at, column in enumerate(columns):
        if runs and runs[-1][0] + runs[-1][2] == column:
            offset, start, length = runs[-1]
            runs[-1] = (offset, start, length + 1)
        else:
            runs.append((column, at, 1))
    fields = [
        piece
        for offset, at, length in runs
        for piece in (
            [(offset, at, length)]
            if length >= _WHOLE_RUN
            else [(offset + i, at + i, 1) for i in range(length)]
        )
    ]

    def view(offsets: list[int], size: int) -> np.dtype[Any]:
        return np.dtype(
            {
                "names": [f"f{i}" for i in range(len(fields))],
                "formats": ["u1" if length == 1 else f"V{length}" for *_, length in fields],
                "offsets": offsets,
                "itemsize": size,
            }
        )

    return view([f[0] for f in fields], itemsize), view([f[1] for f in fields], len(columns))


_RECORD_SIZE = GPU_SAMPLE_DTYPE.itemsize
_STILL_IN_RECORD, _STILL_IN_PART = _views(_STILL, _RECORD_SIZE)
_MOVING_IN_RECORD, _MOVING_IN_PART = _views(_MOVING, _RECORD_SIZE)


def _copy_columns(
    target: npt.NDArray[np.uint8],
    target_view: np.dtype[Any],
    source: npt.NDArray[np.uint8],
    source_view: np.dtype[Any],
) -> None:
    """Copy the fields of ``source_view`` in ``source`` to those of ``target_view`` in
    ``target``, field by field in order."""
    into, out_of = target.view(target_view).reshape(-1), source.view(source_view).reshape(-1)
    for name in target_view.names or ():
        into[name] = out_of[name]


def _unsplit(
    stills: Sequence[bytes],
    movings: Sequence[bytes],
    utils: Sequence[bytes] | None,
    n_instants: npt.NDArray[np.int64],
    cards: npt.NDArray[np.int64],
) -> GpuRecords:
    """GPU records of rows of one split layout, given as their ``still``, ``data`` and
    ``util`` columns (``utils`` None: SPLIT_BYTES rows).

    Bytes, not fields: each row's still bytes are laid into whole records (one per card),
    repeated for every instant, and the moving words and bytes copied over them in a few
    tight passes; that keeps a read of an hour near reading it whole.
    """
    # Joined first, below the records in the heap: freed last-made, it trimmed the heap's top,
    # and a loop of reads page-faulted both again every time (10 ms a read against 7).
    moving = b"".join(movings)
    still = np.frombuffer(b"".join(stills), np.uint8).reshape(-1, STILL_BYTES)
    template = np.empty((still.shape[0], _RECORD_SIZE), dtype=np.uint8)
    _copy_columns(template, _STILL_IN_RECORD, still, _STILL_IN_PART)
    if bool((cards == cards[0]).all()):
        k = int(cards[0])  # the usual case: one row of k cards' still fields per instant
        out = np.repeat(template.reshape(-1, k * template.shape[1]), n_instants, axis=0)
        out = out.reshape(-1, template.shape[1])
    else:
        sizes = cards * n_instants
        place = np.arange(int(sizes.sum()), dtype=np.int64) - np.repeat(
            np.cumsum(sizes) - sizes, sizes
        )
        card = place % np.repeat(cards, sizes)
        out = template[np.repeat(np.cumsum(cards) - cards, sizes) + card]
    if utils is not None:
        words = np.frombuffer(moving, np.uint16).reshape(-1, len(_WORDS))
        out.view(np.uint16)[:, _WORDS] = words
        out[:, _UTIL] = np.frombuffer(b"".join(utils), np.uint8)
    else:
        single = np.frombuffer(moving, np.uint8).reshape(-1, MOVING_BYTES)
        _copy_columns(out, _MOVING_IN_RECORD, single, _MOVING_IN_PART)
    return out.reshape(-1).view(GPU_SAMPLE_DTYPE)


def unpack_chunks(
    rows: Sequence[tuple[Any, ...]],
    start_ms: int,
    end_ms: int,
    dtype: np.dtype[Any] = GPU_SAMPLE_DTYPE,
    *,
    by_node: bool = False,
) -> SampleBlock:
    """Rows of (start_ms, node_id, instants, times, counts, data[, encoding, still[, util[,
    nodes]]]), cut to [start_ms, end_ms); rows of one query, all with the same columns. A row
    without its encoding is RAW (as every row of a database from before migration 14 is).

    The samples come in row order; ``by_node``: node by node, each node's in row order (so
    rows read in time order give each node's samples in time order)."""
    if not rows:
        return SampleBlock(np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, dtype))
    columns = list(zip(*rows, strict=True))
    starts, nodes, instants, times, counts, data = columns[:6]
    n_instants = np.asarray(instants, dtype=np.int64)
    offsets = np.frombuffer(b"".join(times), dtype="<u4").astype(np.int64)
    per_instant = np.frombuffer(b"".join(counts), dtype="u1").astype(np.int64)
    instant_ts = np.repeat(np.asarray(starts, dtype=np.int64), n_instants) + offsets
    encodings = set(columns[6]) if len(columns) > 6 else {RAW}
    if not encodings <= {RAW, SPLIT_BYTES, SPLIT, GROUPED} or (
        encodings != {RAW}
        and (
            dtype is not GPU_SAMPLE_DTYPE
            or (encodings & _WORD_LAYOUTS and len(columns) < 9)
            or (GROUPED in encodings and len(columns) < 10)
        )
    ):
        raise StoreError(
            "a stored sample row has a layout this version of XyClaw cannot read",
            hint="update XyClaw: a newer version wrote these samples",
        )
    # Each row's parts, a node's instants each: a GROUPED row has several, any other row one.
    if GROUPED in encodings:
        entries = [
            entry if entry is not None else _DIRECTORY_ENTRY.pack(node, count)
            for entry, node, count in zip(columns[9], nodes, instants, strict=True)
        ]
        directory = np.frombuffer(b"".join(entries), _DIRECTORY)
        part_node = directory["node"].astype(np.int64)
        part_instants = directory["instants"].astype(np.int64)
        parts_of_row = np.fromiter(
            (len(e) // _DIRECTORY.itemsize for e in entries), np.int64, len(entries)
        )
    else:
        part_node, part_instants = np.asarray(nodes, dtype=np.int64), n_instants
        parts_of_row = np.ones(len(rows), np.int64)
    if encodings == {RAW}:
        records = np.frombuffer(b"".join(data), dtype=dtype)
    else:
        # A split part has as many cards at every instant as at its first.
        cards = per_instant[np.cumsum(part_instants) - part_instants]
        if encodings <= _WORD_LAYOUTS:
            records = _unsplit(columns[7], data, columns[8], part_instants, cards)
        elif encodings == {SPLIT_BYTES}:
            records = _unsplit(columns[7], data, None, part_instants, cards)
        else:
            records = _records_of_mixed(rows, part_instants, cards, parts_of_row)
    ts = np.repeat(instant_ts, per_instant)
    node = np.repeat(np.repeat(part_node, part_instants), per_instant)
    if by_node:
        ts, node, records = _node_major(ts, node, records, part_node, part_instants, per_instant)
    keep = (ts >= start_ms) & (ts < end_ms)
    if not keep.all():
        ts, node, records = ts[keep], node[keep], records[keep]
    return SampleBlock(ts, node, records)


def _node_major(
    ts: npt.NDArray[np.int64],
    node: npt.NDArray[np.int64],
    records: npt.NDArray[Any],
    part_node: npt.NDArray[np.int64],
    part_instants: npt.NDArray[np.int64],
    per_instant: npt.NDArray[np.int64],
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[Any]]:
    """The samples put node by node, each node's parts in their order: the parts (a few
    thousand an hour) are sorted, not the samples."""
    order = np.argsort(part_node, kind="stable")
    if bool((order[1:] > order[:-1]).all()):
        return ts, node, records
    samples = np.add.reduceat(per_instant, np.cumsum(part_instants) - part_instants)
    first = np.cumsum(samples) - samples
    sizes = samples[order]
    moved = np.repeat(first[order] - (np.cumsum(sizes) - sizes), sizes)
    take = moved + np.arange(int(sizes.sum()), dtype=np.int64)
    # Taken as opaque bytes: field by field, a structured record took 15x as long.
    whole = np.take(records.view(f"V{records.dtype.itemsize}"), take).view(records.dtype)
    return ts[take], node[take], whole


def _records_of_mixed(
    rows: Sequence[tuple[Any, ...]],
    part_instants: npt.NDArray[np.int64],
    cards: npt.NDArray[np.int64],
    parts_of_row: npt.NDArray[np.int64],
) -> GpuRecords:
    """GPU records of rows of several layouts (a database written before and after migration
    14, 19 or 20), in row order: the rows of each split layout unsplit together, then each
    row's bytes taken in turn (row by row, and joined as records, not bytes, an hour took
    60 ms)."""
    layouts = np.fromiter((row[6] for row in rows), dtype=np.int64, count=len(rows))
    part_row = np.repeat(np.arange(len(rows)), parts_of_row)
    row_samples = np.add.reduceat(cards * part_instants, np.cumsum(parts_of_row) - parts_of_row)
    pieces: dict[int, Iterator[npt.NDArray[np.uint8]]] = {}
    for kind in (frozenset({SPLIT_BYTES}), _WORD_LAYOUTS):
        mine = np.isin(layouts, list(kind))
        if not mine.any():
            continue
        these = [rows[i] for i in np.flatnonzero(mine).tolist()]
        theirs = mine[part_row]
        unsplit = _unsplit(
            [row[7] for row in these],
            [row[5] for row in these],
            [row[8] for row in these] if kind == _WORD_LAYOUTS else None,
            part_instants[theirs],
            cards[theirs],
        ).view(np.uint8)
        ends = (np.cumsum(row_samples[mine]) * _RECORD_SIZE).tolist()
        in_row_order = iter(np.split(unsplit, ends[:-1]))  # one for the kind's layouts
        for layout in kind:
            pieces[layout] = in_row_order
    parts = [
        next(pieces[row[6]]) if row[6] != RAW else np.frombuffer(row[5], dtype=np.uint8)
        for row in rows
    ]
    return np.concatenate(parts).view(GPU_SAMPLE_DTYPE)


# --- NIC samples ------------------------------------------------------------------
# Same row layout as the GPU samples (one row per node and span of time), with
# one record per interface or InfiniBand port at each instant: its receive and
# transmit rates in bytes per second over the interval that ended then. Rates
# are stored rather than counters so a reader never has to know about wraps or
# resets; a rate that could not be worked out (the first reading, a counter
# reset) is NaN.

NIC_SAMPLE_DTYPE = np.dtype(
    [
        ("nic", "u1"),
        ("rx_bytes_s", "<f4"),
        ("tx_bytes_s", "<f4"),
    ]
)

NicRecords = npt.NDArray[Any]


NicSampleBlock = SampleBlock


def empty_nic_records(count: int) -> NicRecords:
    """Records with NaN rates, to be filled from measured rates."""
    records = np.zeros(count, dtype=NIC_SAMPLE_DTYPE)
    records["rx_bytes_s"] = np.nan
    records["tx_bytes_s"] = np.nan
    return records


# --- DCGM profiling samples (issue 34) ---------------------------------------------
# Same row layout again, one record per GPU at each reading: DCGM's SM active,
# tensor pipe active and DRAM active ratios in thousandths (0..1000), the
# type's maximum where the node gave no value. Read every few seconds, only on
# nodes that have dcgmi or a DCGM exporter.

DCGM_SAMPLE_DTYPE = np.dtype(
    [
        ("gpu", "u1"),
        ("sm_active", "<u2"),
        ("tensor_active", "<u2"),
        ("dram_active", "<u2"),
    ]
)
DCGM_MISSING = 0xFFFF
DCGM_FIELDS = ("sm_active", "tensor_active", "dram_active")

DcgmRecords = npt.NDArray[Any]


def empty_dcgm_records(count: int) -> DcgmRecords:
    """Records with every ratio missing."""
    records = np.zeros(count, dtype=DCGM_SAMPLE_DTYPE)
    records["gpu"] = np.arange(count, dtype=np.uint8)
    for name in DCGM_FIELDS:
        records[name] = DCGM_MISSING
    return records


def dcgm_ratios(records: DcgmRecords, field: str) -> npt.NDArray[np.float64]:
    """One field as ratios 0..1, NaN where missing."""
    raw = np.asarray(records[field])
    return np.where(raw == DCGM_MISSING, np.nan, raw / 1000.0)
