"""Cutting the bytes of a node's log into stored lines, each with the byte offset it starts at.

Only whole lines are taken: the bytes of a line still being written wait for its end, so
the offset kept with the stored lines is always at a line boundary and a reconnect or an
app restart resumes there, with no gap and no line stored twice. Two exceptions keep a
pending line from growing without bound: the redraws of a progress bar (``\\r`` without
``\\n``, tqdm's way) are read for progress and dropped, and a line longer than the limit
is stored cut.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import NamedTuple

from xyclaw.parsers.joblog import split_prefix

MAX_LINE_CHARS = 16_384
_CUT_MARK = " [... line cut by XyClaw]"
_RANK_PREFIX = re.compile(r"\[([A-Za-z_]{0,32})(\d{1,6})\]:")  # [default3]: [rank3]:


class CutLine(NamedTuple):
    """A named tuple: made once per line, so it must be cheap to make."""

    offset: int  # byte offset of the line's first byte in the node's log
    text: str
    rank: int | None  # the global rank it came from, when a launcher prefix says


@dataclass
class Taken:
    """What one chunk gave: whole lines to store, bar redraws only to read, the new offset."""

    lines: list[CutLine]
    redraws: list[str]
    end: int  # offset after the last byte taken (the next read starts here)


def global_rank(prefix: str | None, number: int | None, node_rank: int, nproc: int) -> int | None:
    """The global rank a launcher prefix names. torchrun's ``[default3]:`` (any role name)
    counts the node's local ranks; ``[rank3]:``, Open MPI's and srun's prefixes are global."""
    if number is None or prefix is None:
        return None
    if prefix.startswith("rank") or "," in prefix or prefix.isdigit():
        return number
    return node_rank * max(1, nproc) + number


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

    def reset(self, offset: int) -> None:
        self.offset = offset
        self.pending = b""

    def feed(self, data: bytes) -> Taken:
        buf = self.pending + data if self.pending else data
        start = self.offset
        lines: list[CutLine] = []
        redraws: list[str] = []
        cut = buf.rfind(b"\n")
        pos = 0
        if cut >= 0:
            whole = buf[: cut + 1]
            if whole.isascii():  # the common case: one decode, and a byte is a character
                pos = self._ascii_lines(whole.decode("ascii"), start, lines)
            else:
                for raw in whole.split(b"\n")[:-1]:
                    lines.append(self._line(start + pos, raw))
                    pos += len(raw) + 1
        rest = buf[pos:]
        if rest:
            bar = rest.rfind(b"\r")
            if bar >= 0 and bar < len(rest) - 1:
                # redraws of a bar still on its line: read them, keep the newest drawing
                redraws.append(rest[:bar].decode("utf-8", errors="replace"))
                pos += bar
                rest = rest[bar:]
            if len(rest) > self.max_bytes:
                lines.append(self._line(start + pos, rest))
                pos += len(rest)
                rest = b""
        self.pending = bytes(rest)
        self.offset = start + pos
        return Taken(lines, redraws, self.offset)

    def flush(self) -> Taken:
        """The process ended: a last line without its newline is a line too."""
        if not self.pending:
            return Taken([], [], self.offset)
        line = self._line(self.offset, self.pending)
        self.offset += len(self.pending)
        self.pending = b""
        return Taken([line], [], self.offset)

    def _ascii_lines(self, whole: str, start: int, lines: list[CutLine]) -> int:
        """The lines of ``whole`` (ASCII, ending in a newline): the loop of _text_line
        written out, since it runs once per line of every job."""
        add = lines.append
        match = _RANK_PREFIX.match
        max_chars = self.max_chars
        base = self.node_rank * self.nproc
        default = self.node_rank if self.nproc == 1 else None
        pos = 0
        for text in whole.split("\n")[:-1]:
            size = len(text)
            if size and (text[-1] == "\r" or size > max_chars or text[0].isdigit()):
                add(self._text_line(start + pos, text))
            elif size and text[0] == "[":
                m = match(text)
                if m is None:
                    add(self._text_line(start + pos, text))
                else:
                    number = int(m.group(2))
                    role = m.group(1)
                    rank = number if not role or role.startswith("rank") else base + number
                    add(CutLine(start + pos, text, rank))
            else:
                add(CutLine(start + pos, text, default))
            pos += size + 1
        return pos

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
