"""Reading what the commands of :mod:`xyclaw.jobs.node_commands` print on a node.

Every parser takes the command's stdout as text and never raises: output it
cannot read (a node that printed junk, a cut connection) comes back as an
``unknown`` value carrying the raw text, for the caller to log and retry.
"""

from __future__ import annotations

import binascii
import re
from dataclasses import dataclass, field
from enum import StrEnum

_WORD = re.compile(r"([a-z_]+)=(\S*)")
_FRAME = re.compile(r"@(\d+)\+(\d+)\Z")
_B64_JUNK = re.compile(r"[^A-Za-z0-9+/=]")
_B64_ALPHABET = str.maketrans(
    "", "", "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/="
)
_RAW_KEEP = 500  # characters of unreadable output kept for messages


class NodeProcessState(StrEnum):
    """What a job's process on one node is doing, as the node's files say."""

    RUNNING = "running"
    EXITED = "exited"  # ended; its exit code is known
    DEAD = "dead"  # its process group is gone without an exit code (SIGKILL, reboot)
    LOST = "lost"  # no pid file: never launched there, or the files are gone
    UNKNOWN = "unknown"  # the output could not be read


@dataclass(frozen=True)
class NodeProcessStatus:
    state: NodeProcessState
    pgid: int | None = None
    exit_code: int | None = None
    started_at: int | None = None  # UTC epoch seconds, from the node's clock
    ended_at: float | None = None  # the exit record's time (to the nanosecond where GNU date)
    cancelled: bool = False  # XyClaw asked it to stop
    reason: str | None = None
    raw: str = ""

    @property
    def finished(self) -> bool:
        return self.state in (NodeProcessState.EXITED, NodeProcessState.DEAD)


def _words(line: str) -> dict[str, str]:
    return {m.group(1): m.group(2) for m in _WORD.finditer(line)}


def _int(text: str | None) -> int | None:
    if text is None:
        return None
    try:
        return int(text)
    except ValueError:
        return None


_EPOCH = re.compile(r"(\d+)(\.\d+)?")


def _epoch(text: str | None) -> float | None:
    """``date +%s.%N`` as seconds; whole seconds where ``date`` has no ``%N`` (it prints
    ``N`` or ``%N`` after the dot)."""
    found = _EPOCH.match(text or "")
    if found is None:
        return None
    return int(found.group(1)) + (float(found.group(2)) if found.group(2) else 0.0)


def _unknown(text: str, reason: str) -> NodeProcessStatus:
    return NodeProcessStatus(NodeProcessState.UNKNOWN, reason=reason, raw=text[-_RAW_KEEP:])


def _status_from_words(words: dict[str, str], raw: str) -> NodeProcessStatus:
    try:
        state = NodeProcessState(words.get("state", ""))
    except ValueError:
        return _unknown(raw, "no state in the output")
    if state is NodeProcessState.UNKNOWN:
        return _unknown(raw, "no state in the output")
    code = _int(words.get("code"))
    if state is NodeProcessState.EXITED and code is None:
        return _unknown(raw, "exit code file is unreadable")
    pgid = _int(words.get("pgid"))
    if state in (NodeProcessState.RUNNING, NodeProcessState.DEAD) and pgid is None:
        return _unknown(raw, "process group id is unreadable")
    return NodeProcessStatus(
        state,
        pgid=pgid,
        exit_code=code,
        started_at=_int(words.get("started")),
        ended_at=_epoch(words.get("ended")),
        cancelled=words.get("cancelled") == "1",
        reason=words.get("reason"),
        raw=raw[-_RAW_KEEP:],
    )


def _last_line(text: str, lead: str | None) -> str | None:
    for line in reversed(text.splitlines()):
        line = line.strip()
        if not line:
            continue
        if lead is None:
            if line.startswith("state="):
                return line
        elif line.startswith(lead + " ") or line == lead:
            return line
    return None


def parse_status(text: str) -> NodeProcessStatus:
    """The output of :func:`~xyclaw.jobs.node_commands.status`."""
    line = _last_line(text, None)
    if line is None:
        return _unknown(text, "no status line")
    return _status_from_words(_words(line), text)


@dataclass(frozen=True)
class LaunchOutcome:
    """What :func:`~xyclaw.jobs.node_commands.launch` did."""

    started: bool  # a new process group was started now
    status: NodeProcessStatus  # running with its pgid when started; else what was there
    error: str | None = None

    @property
    def pgid(self) -> int | None:
        return self.status.pgid


def parse_launch(text: str) -> LaunchOutcome:
    started = _last_line(text, "started")
    if started is not None:
        words = _words(started)
        pgid = _int(words.get("pgid"))
        if pgid is not None:
            status = NodeProcessStatus(
                NodeProcessState.RUNNING,
                pgid=pgid,
                started_at=_int(words.get("started")),
                raw=text[-_RAW_KEEP:],
            )
            return LaunchOutcome(True, status)
    existing = _last_line(text, "existing")
    if existing is not None:
        return LaunchOutcome(False, _status_from_words(_words(existing), text))
    error = (
        next((m.group(1) for m in re.finditer(r"(?m)^error=(\S+)", text)), None)
        or "no launch line in the output"
    )
    return LaunchOutcome(False, _unknown(text, error), error=error)


@dataclass(frozen=True)
class LogChunk:
    """Bytes of a node's log: ``data`` is exactly the bytes at ``[offset, end)``."""

    offset: int
    data: bytes
    size: int | None = None  # the log's size on the node when it was read
    missing: bool = False  # there is no log file (yet)
    error: str | None = None  # the output could not be read; nothing was taken

    @property
    def end(self) -> int:
        """Where the next read starts."""
        return self.offset + len(self.data)

    @property
    def shrunk(self) -> bool:
        """The log is shorter than the offset: it was replaced, offsets are meaningless."""
        return self.size is not None and self.size < self.offset

    @property
    def line_end(self) -> int:
        """The offset just after the last complete line (to resume on a line boundary)."""
        cut = self.data.rfind(b"\n")
        return self.offset + cut + 1 if cut >= 0 else self.offset

    def lines(self) -> list[str]:
        """The complete lines in ``data`` (a partial last line is left for the next read)."""
        cut = self.data.rfind(b"\n")
        if cut < 0:
            return []
        return self.data[:cut].decode("utf-8", errors="replace").split("\n")


def _clean_b64(text: str) -> str:
    """The base64 characters of ``text`` (a C pass first: the junk regex only on junk)."""
    return _B64_JUNK.sub("", text) if text.translate(_B64_ALPHABET) else text


def _b64(text: str, *, cleaned: bool = False) -> bytes | None:
    try:
        return binascii.a2b_base64(text if cleaned else _clean_b64(text), strict_mode=True)
    except (binascii.Error, ValueError):
        return None


def parse_log_chunk(text: str, offset: int) -> LogChunk:
    """The output of :func:`~xyclaw.jobs.node_commands.read_log` asked from ``offset``."""
    head, _, body = text.partition("\n")
    head = head.strip()
    if head == "log missing":
        return LogChunk(offset, b"", missing=True)
    if not head.startswith("log "):
        return LogChunk(offset, b"", error=f"no log header in {head[:80]!r}")
    size = _int(_words(head).get("size"))
    if size is None:
        return LogChunk(offset, b"", error="the log size is unreadable")
    data = _b64(body)
    if data is None:
        return LogChunk(offset, b"", size=size, error="the log bytes are not valid base64")
    return LogChunk(offset, data, size=size)


@dataclass
class LogWatchDecoder:
    """Turns the lines of :func:`~xyclaw.jobs.node_commands.watch_log` into log chunks.

    Feed it every stdout line in order; :meth:`feed` returns the chunks that
    became complete. ``end`` is set once the node said the process ended and
    every byte was sent; ``error`` when the stream stopped making sense (then
    reconnect from :attr:`offset`, which only ever moves over whole chunks).
    """

    offset: int
    end: NodeProcessStatus | None = None
    error: str | None = None
    _want: int = 0
    _length: int = 0
    _pending: list[str] = field(default_factory=list)
    _have: int = 0

    def feed(self, line: str) -> list[LogChunk]:
        if self.error is not None or self.end is not None:
            return []
        line = line.strip()
        if not line:
            return []
        if self._want:
            if line.startswith("@") or line.startswith("end"):
                self.error = "a log chunk ended early"
                return []
            self._pending.append(line)  # cleaned only if it does not decode as it is
            self._have += len(line)
            if self._have < self._want:
                return []
            return self._finish()
        frame = _FRAME.match(line)
        if frame is not None:
            start, length = int(frame.group(1)), int(frame.group(2))
            if start != self.offset:
                self.error = f"a chunk starts at {start}, expected {self.offset}"
                return []
            if length == 0:
                return []
            self._length = length
            self._want = 4 * ((length + 2) // 3)
            self._pending, self._have = [], 0
            return []
        if line == "end" or line.startswith("end "):
            words = _words(line)
            self.end = _status_from_words(words, line) if words else _unknown(line, "no state")
            return []
        self.error = f"unexpected line {line[:80]!r}"
        return []

    def _finish(self) -> list[LogChunk]:
        text = "".join(self._pending)
        data = _b64(text, cleaned=True)
        if data is None or len(data) != self._length:
            cleaned = _clean_b64(text)  # stray characters in the stream: count without them
            if len(cleaned) < self._want:
                self._pending, self._have = [cleaned], len(cleaned)
                return []
            data = _b64(cleaned, cleaned=True)
        self._want, self._pending, self._have = 0, [], 0
        if data is None or len(data) != self._length:
            self.error = "a log chunk is not valid base64"
            return []
        chunk = LogChunk(self.offset, data)
        self.offset = chunk.end
        return [chunk]


@dataclass(frozen=True)
class CancelOutcome:
    """What :func:`~xyclaw.jobs.node_commands.cancel` did."""

    signal: str | None  # TERM, KILL, none; None when there was nothing to signal or unreadable
    left: int | None  # processes of the group still there; None when unreadable
    lost: bool = False  # there was no pid file
    raw: str = ""

    @property
    def clean(self) -> bool:
        """Verified: no process of the group is left."""
        return self.left == 0


def parse_cancel(text: str) -> CancelOutcome:
    line = _last_line(text, "cancel")
    if line is None:
        return CancelOutcome(None, None, raw=text[-_RAW_KEEP:])
    words = _words(line)
    return CancelOutcome(
        words.get("signal"),
        _int(words.get("left")),
        lost=words.get("state") == "lost",
        raw=text[-_RAW_KEEP:],
    )


@dataclass(frozen=True)
class CheckpointFound:
    """A complete checkpoint of a job."""

    step: int
    path: str
    by_marker: bool  # it holds a completion marker (else: a later folder exists)


@dataclass(frozen=True)
class CheckpointListing:
    """The output of :func:`~xyclaw.jobs.node_commands.latest_checkpoint`."""

    latest: CheckpointFound | None  # None: no complete checkpoint (or unreadable output)
    no_dir: bool = False  # the checkpoint folder does not exist
    error: str | None = None  # the output could not be read: do not conclude "none"


def parse_checkpoint(text: str) -> CheckpointListing:
    line = _last_line(text, "checkpoint")
    if line is None:
        return CheckpointListing(None, error="no checkpoint line in the output")
    if line == "checkpoint none" or line.startswith("checkpoint none "):
        return CheckpointListing(None, no_dir=_words(line).get("reason") == "no-dir")
    head, sep, path = line.partition(" path=")
    step = _int(_words(head).get("step"))
    if not sep or not path or step is None or step < 0:
        return CheckpointListing(None, error=f"unreadable checkpoint line {line[:80]!r}")
    return CheckpointListing(CheckpointFound(step, path, _words(head).get("complete") == "marker"))
