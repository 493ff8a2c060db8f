"""Where the next row of a sample table lands: the room left on the table's last page.

SQLite appends a row with a new largest rowid to the table's last leaf page, or, where the
row does not fit there, to a new page of its own (``balance_quick`` in btree.c); the room it
did not fit in stays empty. Rows of a few KB waste much of a page that way: a flush of eight
nodes (10 KB) filled a 16 KB page alone, 25.8 bytes a GPU sample against 15.6 for a row per
node. So the store sizes the rows it groups (:func:`xyclaw.store.samples.pack_rows`) to the
room left, counting each row's cell as SQLite lays it out
(https://www.sqlite.org/fileformat2.html, "B-tree Pages" and "Record Format").

The count is this process's estimate, and errs high (a rowid is counted at its longest). Where
it is wrong (another process wrote rows, the process started on a part-filled page, SQLite
rebalanced pages) a row opens a page early: that costs some space, never a sample.
"""

from __future__ import annotations

from collections.abc import Sequence

#: A leaf page's header; the rest of the page holds the cells and a 2-byte pointer to each.
_LEAF_HEADER = 8
_CELL_POINTER = 2
_LONGEST_VARINT = 9


def _varint_size(value: int) -> int:
    size = 1
    while value >= 0x80 and size < _LONGEST_VARINT:
        value >>= 7
        size += 1
    return size


def _int_size(value: int) -> int:
    """Bytes of an integer in a record (0 and 1 take none: schema format 4)."""
    if value in (0, 1):
        return 0
    for size, bound in ((1, 1 << 7), (2, 1 << 15), (3, 1 << 23), (4, 1 << 31), (6, 1 << 47)):
        if -bound <= value < bound:
            return size
    return 8


#: Around a cell's payload: its length (under 2 MiB) and rowid as varints, and its pointer.
_CELL_AROUND = 3 + _LONGEST_VARINT + _CELL_POINTER


def _header_and_ints(ints: int, blobs: int) -> int:
    """A record's header (its length, one type per column and the primary key's NULL) and its
    integers' bytes, at their longest."""
    return 2 + 1 + ints * (1 + 8) + blobs * 3


class PageFill:
    """The room left on a table's last page, as the rows this process appended left it."""

    def __init__(self, page_size: int) -> None:
        self.page_size = page_size
        self.room = 0  # not known yet: the first row is counted on a page of its own
        self._page_room = page_size - _LEAF_HEADER
        # Payloads larger than this keep only part of themselves on the leaf page.
        self._most_local = page_size - 35
        self._least_local = (page_size - 12) * 32 // 255 - 23

    @property
    def page_room(self) -> int:
        """Room for cells on an empty page."""
        return self._page_room

    def cell_size(self, ints: Sequence[int], blobs: Sequence[int | None], nulls: int = 1) -> int:
        """The leaf-page bytes of a row of these integers, blobs (their lengths; None for
        NULL) and further NULLs (an INTEGER PRIMARY KEY is stored as one), with its pointer.
        Of a row too long for a page, the part kept on the leaf."""
        payload = self._payload(ints, blobs, nulls)
        local = payload
        if payload > self._most_local:
            spill = self._least_local + (payload - self._least_local) % (self.page_size - 4)
            local = (spill if spill <= self._most_local else self._least_local) + 4
        return _varint_size(payload) + _LONGEST_VARINT + local + _CELL_POINTER

    def blob_budget(self, room: int, ints: int, blobs: int) -> int:
        """The most bytes the blobs of a row of ``ints`` integers and ``blobs`` blobs (and
        its primary key) may hold for the row to fit ``room`` whole on its leaf, counted
        quickly (see :meth:`cell_at_most`)."""
        return min(room - _CELL_AROUND, self._most_local) - _header_and_ints(ints, blobs)

    def cell_at_most(self, ints: int, blobs: int, blob_bytes: int) -> int:
        """A bound on the cell of a row kept whole on its leaf, quick to work out from its
        blobs' bytes alone: each integer counted at its longest, each blob's length under
        1 MiB. It errs high by a few dozen bytes a row, which a row of several KB can spare."""
        return blob_bytes + _header_and_ints(ints, blobs) + _CELL_AROUND

    def _payload(self, ints: Sequence[int], blobs: Sequence[int | None], nulls: int) -> int:
        types = len(ints) + nulls
        body = sum(_int_size(v) for v in ints)
        for length in blobs:
            if length is None:
                types += 1
            else:
                types += _varint_size(2 * length + 12)
                body += length
        return types + _varint_size(types + 1) + body

    def fits(self, cell: int) -> bool:
        return cell <= self.room

    def place(self, cell: int) -> None:
        """Count a row appended: on this page if it fits, else on a new one."""
        if cell > self.room:
            self.room = self._page_room
        self.room = max(0, self.room - cell)
