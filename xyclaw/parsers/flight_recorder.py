"""PyTorch Flight Recorder dumps, read in their JSON form only, and where ranks diverged.

A hung multi-node job leaves one dump per rank (``TORCH_NCCL_DEBUG_INFO_TEMP_FILE`` /
``TORCH_FR_DUMP_TEMP_FILE`` + rank, or ``_dump_fr_trace_json`` on demand). The default
dump is a pickle, and unpickling bytes from a rented host runs code on the desktop, so
this module never does: a pickle is refused with a hint, JSON is read with ``json``.
The format is versioned ("2.4" .. "2.10" so far, PyTorch 2.4 onwards); older dumps are
refused, newer minor versions are read for the fields this module knows.

:func:`diverged` does what PyTorch's ``fr_trace`` analyser does for the case that matters
to a renter: the first collective (group + sequence number) that not every member of
its group entered, the ranks that never arrived, and the ranks that left no dump at all
(a dead node writes none: that is evidence, not an error). Unlike ``fr_trace`` it needs
neither every rank's dump nor one version, and it reads gloo dumps, whose group table
names the default group ``""`` where the entries say ``"0"`` (``fr_trace`` of PyTorch
2.14 fails on them with ``KeyError: ('0', 3)``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from xyclaw.errors import ParseError
from xyclaw.parsers.guard import parse_guard
from xyclaw.wording import Said, said

#: The oldest dump version read: what PyTorch 2.4 writes.
OLDEST_VERSION = (2, 4)
#: The newest version this reader was checked against (PyTorch 2.14 writes "2.10").
NEWEST_KNOWN_VERSION = (2, 10)

_HINT = Said("error.parse.hint.flight_recorder")
_PICKLE_START = (b"\x80", b"(", b"}")  # protocol 2+ PROTO opcode; protocol 0/1 MARK, EMPTY_DICT
_RANK_RE = re.compile(r"(\d+)(?:\.json)?$")


@dataclass(frozen=True, slots=True)
class FrEntry:
    """One collective or point-to-point call in a rank's ring buffer."""

    record_id: int
    pg_name: str
    pg_desc: str
    collective_seq_id: int
    p2p_seq_id: int
    backend: str  # "nccl", "gloo", ...
    op: str  # "all_reduce", "send 1->2", ...
    state: str  # "scheduled" | "started" | "completed"
    retired: bool
    is_p2p: bool
    input_sizes: tuple[tuple[int, ...], ...] = ()
    input_dtypes: tuple[str, ...] = ()
    output_sizes: tuple[tuple[int, ...], ...] = ()
    output_dtypes: tuple[str, ...] = ()
    time_created_ns: int = 0
    timeout_ms: int | None = None
    duration_ms: float | None = None

    @property
    def finished(self) -> bool:
        """Done on this rank: NCCL marks it completed; gloo leaves "scheduled" and retires it."""
        return self.state == "completed" or self.retired

    @property
    def op_type(self) -> str:
        return self.op.split(" ", 1)[0]


@dataclass(frozen=True, slots=True)
class FrGroup:
    name: str
    desc: str
    ranks: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class FrDump:
    """One rank's dump: what it enqueued, in order, and the groups it knows."""

    rank: int
    version: str
    entries: tuple[FrEntry, ...]
    groups: Mapping[str, FrGroup]
    notes: tuple[str, ...] = ()

    def collectives(self, pg_name: str) -> list[FrEntry]:
        return [e for e in self.entries if e.pg_name == pg_name and not e.is_p2p]


def rank_of_file(name: str) -> int | None:
    """The rank a dump's file name ends with (``nccl_trace_rank_11``, ``rank_3.json``)."""
    m = _RANK_RE.search(name.rsplit("/", 1)[-1])
    return int(m.group(1)) if m else None


def _version(text: str) -> tuple[int, int]:
    major, _, minor = text.partition(".")
    return int(major), int(minor or 0)


def _sizes(value: Any) -> tuple[tuple[int, ...], ...]:
    return tuple(tuple(int(n) for n in shape) for shape in value or ())


def _ranks(value: Any) -> tuple[int, ...]:
    if isinstance(value, str):  # gloo and NCCL write the list as a string: "[0, 1, 2, 3]"
        value = json.loads(value) if value.strip() else []
    return tuple(int(r) for r in value)


def _entry(raw: Mapping[str, Any]) -> FrEntry:
    backend, _, op = str(raw["profiling_name"]).partition(":")
    pg = raw.get("process_group") or [str(raw.get("pg_id", "")), ""]
    duration = raw.get("duration_ms")
    timeout = raw.get("timeout_ms")
    return FrEntry(
        record_id=int(raw["record_id"]),
        pg_name=str(pg[0]),
        pg_desc=str(pg[1]) if len(pg) > 1 else "",
        collective_seq_id=int(raw["collective_seq_id"]),
        p2p_seq_id=int(raw.get("p2p_seq_id", 0)),
        backend=backend,
        op=op or backend,
        state=str(raw["state"]),
        retired=bool(raw.get("retired", False)),
        is_p2p=bool(raw.get("is_p2p", False)),
        input_sizes=_sizes(raw.get("input_sizes")),
        input_dtypes=tuple(str(d) for d in raw.get("input_dtypes") or ()),
        output_sizes=_sizes(raw.get("output_sizes")),
        output_dtypes=tuple(str(d) for d in raw.get("output_dtypes") or ()),
        time_created_ns=int(raw.get("time_created_ns") or 0),
        timeout_ms=None if timeout is None else int(timeout),
        duration_ms=None if duration is None else float(duration),
    )


@parse_guard("flight_recorder", _HINT)
def read_dump(data: bytes | str, rank: int) -> FrDump:
    """One rank's dump from its JSON bytes; a pickle is refused unread."""
    if isinstance(data, bytes):
        if data[:1] in _PICKLE_START:
            raise ParseError(said("error.parse.fr_pickle", rank=rank), hint=_HINT)
        data = data.decode("utf-8", errors="replace")
    try:
        doc = json.loads(data)
    except json.JSONDecodeError as exc:
        raise ParseError(
            said("error.parse.fr_not_json", rank=rank, error=str(exc)), hint=_HINT
        ) from exc
    if not isinstance(doc, dict) or "entries" not in doc or "version" not in doc:
        raise ParseError(said("error.parse.fr_no_entries", rank=rank), hint=_HINT)
    version = str(doc["version"])
    parsed = _version(version)
    if parsed < OLDEST_VERSION:
        raise ParseError(
            said("error.parse.fr_old", rank=rank, version=version),
            hint=said("error.parse.hint.pytorch_24"),
        )
    notes: list[str] = []
    if parsed > NEWEST_KNOWN_VERSION:
        notes.append(f"dump version {version} is newer than XyClaw knows; read what it knows")
    groups = {
        str(name): FrGroup(str(name), str(g.get("desc", "")), _ranks(g.get("ranks", ())))
        for name, g in (doc.get("pg_config") or {}).items()
    }
    entries = tuple(_entry(e) for e in doc["entries"] or ())
    return FrDump(rank=rank, version=version, entries=entries, groups=groups, notes=tuple(notes))


# -- the analysis ------------------------------------------------------------------------------


class Finding(StrEnum):
    NOT_ALL_JOINED = "not_all_joined"  # some members never entered the collective
    MISMATCH = "mismatch"  # all entered, but not the same call (op, sizes or dtypes)
    ALL_STUCK = "all_stuck"  # every member entered it and none finished: fabric or GPU
    NO_DUMPS = "no_dumps"  # nothing to read
    NONE = "none"  # every member finished everything it enqueued


@dataclass(frozen=True, slots=True)
class Divergence:
    """Where a job's ranks parted: the collective, and who was (not) there."""

    finding: Finding
    pg_name: str = ""
    pg_desc: str = ""
    seq: int | None = None  # the collective_seq_id in that group
    op: str = ""
    input_sizes: tuple[tuple[int, ...], ...] = ()
    waiting: tuple[int, ...] = ()  # ranks inside the collective, waiting
    absent: tuple[int, ...] = ()  # ranks with a dump that never entered it
    silent: tuple[int, ...] = ()  # ranks that left no dump (a dead process or node)
    behind_at: Mapping[int, int] = field(default_factory=dict)  # absent rank -> its last seq
    mismatched: tuple[int, ...] = ()
    notes: tuple[str, ...] = ()

    @property
    def culprits(self) -> tuple[int, ...]:
        """The ranks the others wait for: those that never arrived, then the silent ones."""
        return tuple(sorted({*self.absent, *self.silent})) or self.mismatched


def _members(dumps: Mapping[int, FrDump], pg_name: str, world: int) -> tuple[int, ...]:
    for d in dumps.values():
        if pg_name in d.groups and d.groups[pg_name].ranks:
            return d.groups[pg_name].ranks
    # gloo names the default group "" in pg_config and "0" in its entries
    for d in dumps.values():
        if len(d.groups) == 1:
            (only,) = d.groups.values()
            if only.ranks and (pg_name == "0" or only.name in ("", "0", "default_pg")):
                return only.ranks
    return tuple(range(world))


def _same_call(a: FrEntry, b: FrEntry) -> bool:
    return (a.op_type, a.input_sizes, a.input_dtypes) == (b.op_type, b.input_sizes, b.input_dtypes)


def diverged(dumps: Mapping[int, FrDump], world: int) -> Divergence:
    """The first collective of any group that its members did not all finish, and why.

    ``dumps`` maps a rank to its dump (ranks missing from it left none); ``world`` is the
    job's number of ranks. Collectives older than a rank's ring buffer (wrapped) count as
    entered by it. The earliest unfinished collective, by the time it was created, wins:
    a later hang is usually a consequence."""
    silent_all = tuple(r for r in range(world) if r not in dumps)
    if not dumps:
        return Divergence(Finding.NO_DUMPS, silent=silent_all)
    notes = tuple(n for d in dumps.values() for n in d.notes)
    pg_names = sorted({e.pg_name for d in dumps.values() for e in d.entries if not e.is_p2p})
    found: list[tuple[int, Divergence]] = []
    for pg in pg_names:
        members = _members(dumps, pg, world)
        have = {r: dumps[r].collectives(pg) for r in members if r in dumps}
        silent = tuple(r for r in members if r not in dumps)
        by_seq: dict[int, dict[int, FrEntry]] = {}
        for r, entries in have.items():
            for e in entries:
                by_seq.setdefault(e.collective_seq_id, {})[r] = e
        oldest = {r: min((e.collective_seq_id for e in es), default=0) for r, es in have.items()}
        last = {r: max((e.collective_seq_id for e in es), default=0) for r, es in have.items()}
        for seq in sorted(by_seq):
            at = by_seq[seq]
            if all(e.finished for e in at.values()) and (len(at) == len(have)):
                continue
            absent = tuple(r for r in have if r not in at and oldest[r] <= seq)
            first = min(at.values(), key=lambda e: e.time_created_ns)
            waiting = tuple(sorted(r for r, e in at.items() if not e.finished))
            if not absent and not waiting:
                continue  # finished by every rank that still remembers it
            mismatched = tuple(sorted(r for r, e in at.items() if not _same_call(e, first)))
            if absent or silent:
                finding = Finding.NOT_ALL_JOINED
            elif mismatched:
                finding = Finding.MISMATCH
            else:
                finding = Finding.ALL_STUCK
            found.append(
                (
                    first.time_created_ns,
                    Divergence(
                        finding,
                        pg_name=pg,
                        pg_desc=first.pg_desc,
                        seq=seq,
                        op=first.op,
                        input_sizes=first.input_sizes,
                        waiting=waiting,
                        absent=absent,
                        silent=silent,
                        behind_at={r: last[r] for r in absent},
                        mismatched=mismatched,
                        notes=notes,
                    ),
                )
            )
            break
    if not found:
        return Divergence(Finding.NONE, silent=silent_all, notes=notes)
    found.sort(key=lambda pair: pair[0])
    return found[0][1]


def read_dumps(files: Mapping[str, bytes]) -> tuple[dict[int, FrDump], list[str]]:
    """Dumps by rank from ``{file name: bytes}``; what could not be read, as sentences."""
    out: dict[int, FrDump] = {}
    problems: list[str] = []
    for name, data in sorted(files.items()):
        rank = rank_of_file(name)
        if rank is None:
            problems.append(f"{name}: no rank at the end of the file name")
            continue
        try:
            out[rank] = read_dump(data, rank)
        except ParseError as exc:
            problems.append(f"{name}: {exc}")
    return out, problems


def node_of_rank(rank: int, nodes: Sequence[str], ranks_per_node: int) -> str:
    """torchrun's placement: node ``rank // nproc_per_node`` of the job's node list."""
    index = rank // max(ranks_per_node, 1)
    return nodes[index] if index < len(nodes) else f"node {index}"
