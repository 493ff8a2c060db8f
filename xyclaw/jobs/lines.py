"""Cutting the bytes of a node's log into stored lines, each with the byte offset it starts at.

Only whole lines are taken: the bytes of a line still being written wait for its end, so
the offset kept with the stored lines is always at a line boundary and a reconnect or an
app restart resumes there, with no gap and no line stored twice. Two exceptions keep a
pending line from growing without bound: the redraws of a progress bar (``\\r`` without
``\\n``, tqdm's way) are read for progress and dropped, and a line longer than the limit
is stored cut.

The lines of a chunk come out as columns (offsets, texts, ranks), not as an object per
line: every line of every job passes here, and the common chunk (ASCII, lines behind
torchrun's or PyTorch's rank prefix or none) is cut by C calls alone, with no Python step
per line. Any other chunk takes the line-by-line path, which gives the same answer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from itertools import accumulate, repeat
from operator import add
from typing import NamedTuple

from xyclaw.parsers.joblog import split_prefix

MAX_LINE_CHARS = 16_384
_CUT_MARK = " [... line cut by XyClaw]"
_RANK_PREFIX = re.compile(r"\[([A-Za-z_]{0,32})(\d{1,6})\]:")  # [default3]: [rank3]:
# Per line of an ASCII chunk: its rank prefix (role, number), or else its first character.
_LINE_HEAD = re.compile(r"(?:\[([A-Za-z_]{0,32})(\d{1,6})\]:|([^\n]?))[^\n]*\n")
_MEMO_MAX = 4096  # distinct line heads remembered per cutter


class CutLine(NamedTuple):
    offset: int  # byte offset of the line's first byte in the node's log
    text: str
    rank: int | None  # the global rank it came from, when a launcher prefix says


def as_cut_lines(offsets: list[int], texts: list[str], ranks: list[int | None]) -> list[CutLine]:
    """Columns as CutLines (made by C calls: ``CutLine(...)`` runs Python per line)."""
    return list(map(tuple.__new__, repeat(CutLine), zip(offsets, texts, ranks, strict=True)))


@dataclass
class Taken:
    """What one chunk gave: whole lines to store (as columns: the offset each starts at,
    its text, its rank), bar redraws only to read, and the new offset."""

    offsets: list[int] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    ranks: list[int | None] = field(default_factory=list)
    redraws: list[str] = field(default_factory=list)
    end: int = 0  # offset after the last byte taken (the next read starts here)

    @property
    def lines(self) -> list[CutLine]:
        return as_cut_lines(self.offsets, self.texts, self.ranks)

    def add(self, line: CutLine) -> None:
        self.offsets.append(line.offset)
        self.texts.append(line.text)
        self.ranks.append(line.rank)


def global_rank(prefix: str | None, number: int | None, node_rank: int, nproc: int) -> int | None:
    """The global rank a launcher prefix names. torchrun's ``[default3]:`` (any role name)
    counts the node's local ranks; ``[rank3]:``, Open MPI's and srun's prefixes are global."""
    if number is None or prefix is None:
        return None
    if prefix.startswith("rank") or "," in prefix or prefix.isdigit():
        return number
    return node_rank * max(1, nproc) + number


class _SlowLine(Exception):
    """A line head the column path does not decide: the chunk goes line by line."""


class _RankOf(dict[tuple[str, str, str], int | None]):
    """Line head (role, number, first character) -> the line's rank; computed once per
    distinct head, so looking a line up is a C call. Raises :class:`_SlowLine` for a head
    that needs the line-by-line reader (a digit first: srun's ``0: ``; a ``[`` that is not
    a rank prefix: Open MPI's ``[1,0]<stdout>:``)."""

    def __init__(self, node_rank: int, nproc: int) -> None:
        super().__init__()
        self.base = node_rank * nproc
        self.default = node_rank if nproc == 1 else None

    def __missing__(self, key: tuple[str, str, str]) -> int | None:
        role, number, first = key
        rank: int | None
        if number:
            rank = int(number) if not role or role.startswith("rank") else self.base + int(number)
        elif first == "[" or first.isdigit():
            raise _SlowLine()
        else:
            rank = self.default
        if len(self) >= _MEMO_MAX:
            self.clear()
        self[key] = rank
        return rank


class LineCutter:
    """Feed it the bytes that follow ``offset``, in order; it keeps a partial last line."""

    def __init__(
        self,
        offset: int,
        *,
        node_rank: int = 0,
        nproc: int = 1,
        max_line_chars: int = MAX_LINE_CHARS,
    ) -> None:
        self.offset = offset  # where the pending bytes start
        self.pending = b""
        self.node_rank = node_rank
        self.nproc = max(1, nproc)
        self.max_bytes = max(64, max_line_chars) * 4
        self.max_chars = max(64, max_line_chars)
        self._rank_of = _RankOf(node_rank, self.nproc)

    def reset(self, offset: int) -> None:
        self.offset = offset
        self.pending = b""

    def feed(self, data: bytes) -> Taken:
        buf = self.pending + data if self.pending else data
        start = self.offset
        taken = Taken()
        cut = buf.rfind(b"\n")
        pos = 0
        if cut >= 0:
            whole = buf[: cut + 1]
            if whole.isascii():  # the common case: one decode, and a byte is a character
                text = whole.decode("ascii")
                if not self._columns(text, start, taken):
                    self._ascii_lines(text, start, taken)
                pos = cut + 1
            else:
                for raw in whole.split(b"\n")[:-1]:
                    taken.add(self._line(start + pos, raw))
                    pos += len(raw) + 1
        rest = buf[pos:]
        if rest:
            bar = rest.rfind(b"\r")
            if bar >= 0 and bar < len(rest) - 1:
                # redraws of a bar still on its line: read them, keep the newest drawing
                taken.redraws.append(rest[:bar].decode("utf-8", errors="replace"))
                pos += bar
                rest = rest[bar:]
            if len(rest) > self.max_bytes:
                taken.add(self._line(start + pos, rest))
                pos += len(rest)
                rest = b""
        self.pending = bytes(rest)
        self.offset = taken.end = start + pos
        return taken

    def flush(self) -> Taken:
        """The process ended: a last line without its newline is a line too."""
        if not self.pending:
            return Taken(end=self.offset)
        taken = Taken()
        taken.add(self._line(self.offset, self.pending))
        self.offset += len(self.pending)
        self.pending = b""
        taken.end = self.offset
        return taken

    def _columns(self, whole: str, start: int, taken: Taken) -> bool:
        """The lines of ``whole`` (ASCII, ending in a newline) by C calls alone; False
        (nothing added) when a line needs more: a carriage return before its newline, over
        the length limit, or a head the rank table does not decide."""
        if "\r\n" in whole:
            return False
        texts = whole.split("\n")
        texts.pop()
        if max(map(len, texts)) > self.max_chars:
            return False
        try:
            ranks = list(map(self._rank_of.__getitem__, _LINE_HEAD.findall(whole)))
        except _SlowLine:
            return False
        if len(ranks) != len(texts):  # cannot happen: each match takes one whole line
            return False
        offsets = list(accumulate(map(add, map(len, texts), repeat(1)), initial=start))
        offsets.pop()
        taken.offsets, taken.texts, taken.ranks = offsets, texts, ranks
        return True

    def _ascii_lines(self, whole: str, start: int, taken: Taken) -> None:
        """The lines of ``whole`` (ASCII, ending in a newline), one at a time."""
        pos = 0
        default = self.node_rank if self.nproc == 1 else None
        for text in whole.split("\n")[:-1]:
            size = len(text)
            if size and (text[-1] == "\r" or size > self.max_chars or text[0] in "[0123456789"):
                taken.add(self._text_line(start + pos, text))
            else:
                taken.add(CutLine(start + pos, text, default))
            pos += size + 1

    def _line(self, offset: int, raw: bytes) -> CutLine:
        return self._text_line(offset, raw.decode("utf-8", errors="replace"))

    def _text_line(self, offset: int, text: str) -> CutLine:
        if text.endswith("\r"):
            text = text[:-1]
        if len(text) > self.max_chars:
            text = text[: self.max_chars] + _CUT_MARK
        rank: int | None = None
        first = text[:1]
        if first == "[":
            m = _RANK_PREFIX.match(text)  # torchrun's and PyTorch's: most lines, so first
            if m is not None:
                number = int(m.group(2))
                rank = global_rank(m.group(1) + m.group(2), number, self.node_rank, self.nproc)
            else:
                prefix, found, _ = split_prefix(text[:200])
                rank = global_rank(prefix, found, self.node_rank, self.nproc)
        elif first.isdigit():
            prefix, found, _ = split_prefix(text[:200])
            rank = global_rank(prefix, found, self.node_rank, self.nproc)
        if rank is None and self.nproc == 1:
            rank = self.node_rank
        return CutLine(offset, text, rank)
