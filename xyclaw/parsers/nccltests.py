"""Reader for NVIDIA nccl-tests output (``all_reduce_perf`` and friends).

Text layout (``src/util.cu``): ``#`` header lines (version, ``nThread ...``,
one ``Rank`` line per rank), a column header, one row per message size with
an out-of-place and an in-place group (time, algbw, busbw, #wrong), then the
footer (``Out of bounds values``, ``Avg bus bandwidth``). Older builds print an
``error`` column and no ``root``; ``-S`` appends a timestamp; MPI may prefix
every line with ``[1,0]<stdout>:``. ``-J`` writes the same as JSON.

NCCL's own ``NCCL INFO`` lines, interleaved when ``NCCL_DEBUG=INFO``, tell the
transport: ``NET/IB : Using [0]mlx5_0:1/IB`` (or ``/RoCE``) is RDMA;
``NET/Socket : Using`` means NCCL fell back to TCP sockets.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from xyclaw.errors import ParseError
from xyclaw.parsers.guard import parse_guard
from xyclaw.parsers.paste import clean_paste
from xyclaw.wording import Said, said

# --- bus bandwidth ------------------------------------------------------------


def _factor_all_reduce(n: int) -> float:
    return 2 * (n - 1) / n


def _factor_n_minus_1(n: int) -> float:
    return (n - 1) / n


def _factor_one(n: int) -> float:
    return 1.0


#: busbw = algbw x factor(n) (nccl-tests ``src/*.cu`` and ``doc/PERFORMANCE.md``).
BUS_FACTORS = {
    "all_reduce": _factor_all_reduce,
    "reduce_scatter": _factor_n_minus_1,
    "all_gather": _factor_n_minus_1,
    "alltoall": _factor_n_minus_1,
    "gather": _factor_n_minus_1,
    "scatter": _factor_n_minus_1,
    "broadcast": _factor_one,
    "reduce": _factor_one,
    "sendrecv": _factor_one,
    "hypercube": _factor_one,
}
_COLLECTIVE_ALIASES = {name.replace("_", ""): name for name in BUS_FACTORS}


def normalize_collective(name: str) -> str:
    """``all_reduce_perf``, ``AllReduce``, ``allreduce`` -> ``all_reduce``."""
    key = name.strip().rsplit("/", 1)[-1].lower()
    key = key.removesuffix("_perf").removesuffix("_mpi").replace("_", "").replace("-", "")
    try:
        return _COLLECTIVE_ALIASES[key]
    except KeyError:
        raise ValueError(
            f"unknown collective {name!r}; expected one of {', '.join(BUS_FACTORS)}"
        ) from None


def bus_factor(n_ranks: int, collective: str = "all_reduce") -> float:
    if n_ranks < 1:
        raise ValueError(f"n_ranks must be at least 1, got {n_ranks}")
    return BUS_FACTORS[normalize_collective(collective)](n_ranks)


def bus_bandwidth(algbw: float, n_ranks: int, collective: str = "all_reduce") -> float:
    """Bus bandwidth from algorithm bandwidth: 2(n-1)/n for all-reduce, (n-1)/n
    for reduce-scatter/all-gather/alltoall, 1 for broadcast/reduce."""
    return algbw * bus_factor(n_ranks, collective)


# --- records ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class NcclRank:
    rank: int
    group: int | None
    pid: int
    host: str
    device: int
    bus_id: str
    name: str


@dataclass(frozen=True, slots=True)
class NcclTestRow:
    """One message size. ``*_wrong`` is the ``#wrong`` count (or the ``error``
    value of older builds); None when validation was off (``N/A``). The
    out-of-place values are None when the build printed only in-place."""

    size: int
    count: int
    type: str
    redop: str | None
    root: int | None
    out_time_us: float | None
    out_algbw: float | None
    out_busbw: float | None
    out_wrong: float | None
    in_time_us: float
    in_algbw: float
    in_busbw: float
    in_wrong: float | None
    timestamp: str | None = None

    @property
    def busbw_values(self) -> list[float]:
        return [v for v in (self.out_busbw, self.in_busbw) if v is not None]

    @property
    def peak_busbw(self) -> float:
        return max(self.busbw_values)

    @property
    def peak_algbw(self) -> float:
        return max(v for v in (self.out_algbw, self.in_algbw) if v is not None)

    @property
    def wrong(self) -> float | None:
        vals = [v for v in (self.out_wrong, self.in_wrong) if v is not None]
        return max(vals) if vals else None


def average_bus_bandwidth(rows: Iterable[NcclTestRow]) -> float | None:
    """What nccl-tests prints as ``# Avg bus bandwidth``: the plain mean of every
    busbw value, out-of-place and in-place, over all sizes (None if no rows)."""
    values = [v for row in rows for v in row.busbw_values]
    return sum(values) / len(values) if values else None


@dataclass(frozen=True, slots=True)
class NcclNetDevice:
    index: int
    name: str
    port: int | None
    link: str  # "IB", "RoCE", "Socket"


@dataclass(frozen=True)
class NcclNetInfo:
    """What ``NCCL_DEBUG=INFO`` lines say about the network NCCL used."""

    transports: tuple[str, ...] = ()  # sorted subset of ib, roce, socket, ofi
    devices: tuple[NcclNetDevice, ...] = ()
    network: str | None = None  # from "Using network X"
    oob_interface: str | None = None
    gdr: bool | None = None  # GPUDirect RDMA seen on NET channels
    nccl_version: str | None = None
    warnings: tuple[str, ...] = ()
    info_lines: int = 0
    comm_ranks: int | None = None  # the largest "nranks N" of NCCL's communicator lines

    @property
    def transport(self) -> str | None:
        """``ib``, ``roce``, ``socket``, ``ofi``; ``mixed`` if several; None if unseen."""
        if not self.transports:
            return None
        return self.transports[0] if len(self.transports) == 1 else "mixed"

    @property
    def socket_fallback(self) -> bool:
        """NCCL moved inter-node data over TCP sockets, not RDMA: slow."""
        return "socket" in self.transports or (self.network or "").lower() == "socket"


@dataclass(frozen=True)
class NcclTestRun:
    collective: str | None
    rows: tuple[NcclTestRow, ...]
    avg_busbw: float | None = None
    out_of_bounds: int | None = None
    out_of_bounds_ok: bool | None = None
    truncated: bool = False
    version: str | None = None
    nccl_version: str | None = None
    params: dict[str, str] = field(default_factory=dict)
    n_threads: int | None = None
    n_gpus: int | None = None
    min_bytes: int | None = None
    max_bytes: int | None = None
    ranks: tuple[NcclRank, ...] = ()
    wrong_column: str = "#wrong"
    net: NcclNetInfo = field(default_factory=NcclNetInfo)
    notes: tuple[str, ...] = ()
    errors: tuple[str, ...] = ()
    skipped_lines: int = 0
    #: ``Test NCCL failure common.cu:1005 'unhandled system error ...'``: the test stopped on
    #: an error, each as "NCCL failure at common.cu:1005: unhandled system error ..."
    failures: tuple[str, ...] = ()
    #: rank lines that were damaged (unreadable) or had lost their ``#``, and ranks missing
    #: from the list, each said in a short line: never silently dropped
    rank_problems: tuple[str, ...] = ()

    @property
    def failed(self) -> bool:
        """The test itself reported a failure (an NCCL, CUDA or test error)."""
        return bool(self.failures)

    @property
    def missing_ranks(self) -> tuple[int, ...]:
        """Ranks the communicator has (NCCL's nranks, else the highest listed) but the rank
        list lacks."""
        if not self.ranks:
            return ()
        size = max(self.net.comm_ranks or 0, max(r.rank for r in self.ranks) + 1)
        listed = {r.rank for r in self.ranks}
        return tuple(i for i in range(size) if i not in listed)

    @property
    def n_ranks(self) -> int | None:
        """The communicator's size: NCCL's own "nranks N" where it says more than the listed
        ranks (each process of a run may list only itself)."""
        listed = len(self.ranks)
        if self.net.comm_ranks and self.net.comm_ranks > listed:
            return self.net.comm_ranks
        if self.ranks:
            return listed
        if self.n_threads and self.n_gpus:
            return self.n_threads * self.n_gpus
        return None

    @property
    def hosts(self) -> list[str]:
        return list(dict.fromkeys(r.host for r in self.ranks))

    @property
    def n_nodes(self) -> int | None:
        return len(self.hosts) if self.ranks else None

    @property
    def peak_busbw(self) -> float | None:
        return max((r.peak_busbw for r in self.rows), default=None)

    @property
    def peak_algbw(self) -> float | None:
        return max((r.peak_algbw for r in self.rows), default=None)

    @property
    def recomputed_avg_busbw(self) -> float | None:
        return average_bus_bandwidth(self.rows)

    @property
    def validation_failed(self) -> bool:
        return self.out_of_bounds_ok is False or any((r.wrong or 0) > 0 for r in self.rows)


# --- NCCL INFO lines -------------------------------------------------------------

_NET_IB_RE = re.compile(r"NET/IB : Using (.*?)(?:\s*;\s*OOB (\S+))?\s*$")
_NET_IB_DEV_RE = re.compile(r"\[(\d+)\]([^\s:\[\]]+):(\d+)/(IB|RoCE)\b")
_NET_SOCKET_RE = re.compile(r"NET/Socket : Using (.*)$")
_NET_SOCKET_DEV_RE = re.compile(r"\[(\d+)\]([^\s:\[\]<]+)")
_USING_NETWORK_RE = re.compile(r"NCCL INFO Using network (\S+)")
_CHANNEL_NET_RE = re.compile(r"via NET/(\w+)/\d+(/GDRDMA)?")
_NCCL_VERSION_RE = re.compile(r"(?:^|NCCL INFO )NCCL version (\d\S*)")
_NCCL_WARN_RE = re.compile(r"NCCL WARN (.*)$")
_NRANKS_RE = re.compile(r" rank \d{1,7} nranks (\d{1,7}) ")


class _NetCollector:
    def __init__(self) -> None:
        self.kinds: set[str] = set()
        self.devices: dict[tuple[str, int | None, str], NcclNetDevice] = {}
        self.network: str | None = None
        self.oob: str | None = None
        self.gdr: bool | None = None
        self.version: str | None = None
        self.warnings: list[str] = []
        self.info_lines = 0
        self.comm_ranks: int | None = None

    def feed(self, line: str) -> bool:
        """Take one line; True if it was an NCCL INFO/WARN line."""
        if "NCCL " not in line:
            return False
        m = _NCCL_VERSION_RE.search(line)
        if m:
            self.version = m.group(1)
            return True
        if "NCCL WARN" in line:
            m = _NCCL_WARN_RE.search(line)
            if m:
                self.warnings.append(m.group(1).strip())
            return True
        if "NCCL INFO" not in line:
            return False
        self.info_lines += 1
        m = _NET_IB_RE.search(line)
        if m:
            if m.group(2):
                self.oob = m.group(2).split(":", 1)[0]
            for idx, name, port, link in _NET_IB_DEV_RE.findall(m.group(1)):
                self.kinds.add(link.lower())
                self.devices[(name, int(port), link)] = NcclNetDevice(
                    int(idx), name, int(port), link
                )
            return True
        m = _NET_SOCKET_RE.search(line)
        if m:
            self.kinds.add("socket")
            for idx, name in _NET_SOCKET_DEV_RE.findall(m.group(1)):
                self.devices[(name, None, "Socket")] = NcclNetDevice(int(idx), name, None, "Socket")
            return True
        if "NET/OFI" in line:
            self.kinds.add("ofi")
            return True
        m = _USING_NETWORK_RE.search(line)
        if m:
            self.network = m.group(1)
            return True
        m = _NRANKS_RE.search(line)
        if m:
            self.comm_ranks = max(self.comm_ranks or 0, int(m.group(1)))
            return True
        m = _CHANNEL_NET_RE.search(line)
        if m:
            if m.group(1) == "Socket":  # a ring over NET/Socket moves its data over TCP
                self.kinds.add("socket")
            if m.group(2):
                self.gdr = True
            elif self.gdr is None and m.group(1) == "IB":
                self.gdr = False
            return True
        return True

    def result(self) -> NcclNetInfo:
        return NcclNetInfo(
            transports=tuple(sorted(self.kinds)),
            devices=tuple(sorted(self.devices.values(), key=lambda d: (d.link, d.index))),
            network=self.network,
            oob_interface=self.oob,
            gdr=self.gdr,
            nccl_version=self.version,
            warnings=tuple(self.warnings),
            info_lines=self.info_lines,
            comm_ranks=self.comm_ranks,
        )


def parse_nccl_info(text: str | Iterable[str]) -> NcclNetInfo:
    """The transport NCCL chose, from any log with ``NCCL_DEBUG=INFO`` lines."""
    lines = text.splitlines() if isinstance(text, str) else text
    net = _NetCollector()
    for line in lines:
        net.feed(line)
    return net.result()


# --- text format ------------------------------------------------------------------

_MPI_PREFIX_RE = re.compile(r"^\[\d+,\d+\]<std(?:out|err)>:|^\d+: ")
_VERSION_RE = re.compile(
    r"^nccl-tests version (\S+)(?:.*?nccl-headers=(\d+))?(?:.*?nccl-library=(\d+))?"
)
_STARTING_RE = re.compile(r"^Collective test (?:starting|concluded):\s*(\S+)")
_NTHREAD_RE = re.compile(r"^nThread\s+\d+")
_PARAM_RE = re.compile(
    r"(nThread|nGpus|minBytes|maxBytes)\s+(-?\d+)|([a-zA-Z][a-zA-Z ]*?):\s*(\S+)"
)
_RANK_RE = re.compile(
    r"^Rank\s+(\d+)\s+(?:Group\s+(\d+)\s+)?Pid\s+(\d+)\s+on\s+(\S+)\s+device\s+(\d+)\s+"
    r"\[([^\]]*)\]\s*(.*)$"
)
_TEST_FAILURE_RE = re.compile(
    r"Test (?P<kind>NCCL|CUDA|) ?failure (?P<where>[\w./-]{1,200}:\d{1,7})\s*(?:'(?P<msg>[^']*)'?)?"
)
_LOOSE_RANK_RE = re.compile(r"^#?\s*Rank\s+\d")
#: Header lines some builds and pastes print without their leading ``#`` (the nccl-tests of
#: AWS's images, a terminal's copy that dropped it): read as header lines all the same.
_BARE_HEADER_RE = re.compile(
    r"^(?:nThread\s+\d|nccl-tests version|Using devices|Blocking Enabled|Collective test "
    r"|out-of-place\s+in-place|size\s+count\s+type|\(B\)\s+\(elements\)"
    r"|Out of bounds values|Avg bus bandwidth)"
)
_OOB_RE = re.compile(r"^Out of bounds values\s*:\s*(\d+)\s*(OK|FAILED)?", re.IGNORECASE)
_AVG_RE = re.compile(r"^Avg bus bandwidth\s*:\s*(\S+)")
_TS_DATE_RE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_TS_TIME_RE = re.compile(r"^\d{2}:\d{2}:\d{2}$")
_TYPE_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")


def _nccl_version_from_code(code: str | None) -> str | None:
    """NCCL_VERSION_CODE (``22902``) -> ``2.29.2``."""
    if not code:
        return None
    n = int(code)
    if n >= 10000:
        return f"{n // 10000}.{(n % 10000) // 100}.{n % 100}"
    return f"{n // 1000}.{(n % 1000) // 100}.{n % 100}"


def _is_number(tok: str) -> bool:
    try:
        float(tok)
    except ValueError:
        return False
    return True


def _opt_float(tok: str) -> float | None:
    return None if tok.upper() == "N/A" else float(tok)


@dataclass
class _Layout:
    """What the column header said; None where it was not seen."""

    has_root: bool | None = None
    group: int = 4
    wrong_column: str = "#wrong"


def _parse_row(tokens: list[str], layout: _Layout) -> NcclTestRow:
    ts = None
    if len(tokens) >= 2 and _TS_DATE_RE.match(tokens[-2]) and _TS_TIME_RE.match(tokens[-1]):
        ts = f"{tokens[-2]} {tokens[-1]}"
        tokens = tokens[:-2]
    if len(tokens) < 3 + 4:
        raise ValueError(f"{len(tokens)} columns is too few for a result row")
    size, count = int(tokens[0]), int(tokens[1])
    dtype = tokens[2]
    if not _TYPE_RE.match(dtype):
        raise ValueError(f"{dtype!r} is not a data type")
    i = 3
    redop = None
    if not _is_number(tokens[i]) and tokens[i].upper() != "N/A":
        redop = tokens[i]
        i += 1
    rest = tokens[i:]
    group = layout.group
    if layout.group == 4 and len(rest) in (16, 17):
        group = 8
    root = None
    if len(rest) % group == 1:
        root = int(rest[0])
        rest = rest[1:]
    if len(rest) == 2 * group:
        out, inp = rest[:group], rest[group:]
    elif len(rest) == group:
        out, inp = None, rest
    else:
        raise ValueError(f"{len(tokens)} columns do not match the out-of-place/in-place layout")
    return NcclTestRow(
        size=size,
        count=count,
        type=dtype,
        redop=redop,
        root=root,
        out_time_us=float(out[0]) if out else None,
        out_algbw=float(out[1]) if out else None,
        out_busbw=float(out[2]) if out else None,
        out_wrong=_opt_float(out[3]) if out else None,
        in_time_us=float(inp[0]),
        in_algbw=float(inp[1]),
        in_busbw=float(inp[2]),
        in_wrong=_opt_float(inp[3]),
        timestamp=ts,
    )


class _RunBuilder:
    def __init__(self) -> None:
        self.collective: str | None = None
        self.version: str | None = None
        self.nccl_version: str | None = None
        self.params: dict[str, str] = {}
        self.ranks: list[NcclRank] = []
        self.rows: list[NcclTestRow] = []
        self.layout = _Layout()
        self.saw_header = False
        self.saw_columns = False
        self.oob: int | None = None
        self.oob_ok: bool | None = None
        self.avg: float | None = None
        self.notes: list[str] = []
        self.errors: list[str] = []
        self.skipped = 0
        self.net = _NetCollector()
        self.last_bad_row = False
        self.failures: list[str] = []
        self.rank_problems: list[str] = []
        self.bare_headers = False  # this run's header lines came without their "#"

    @property
    def started(self) -> bool:
        return self.saw_header or self.saw_columns or bool(self.rows) or bool(self.failures)

    def _rank(self, m: re.Match[str]) -> None:
        self.ranks.append(
            NcclRank(
                rank=int(m.group(1)),
                group=int(m.group(2)) if m.group(2) is not None else None,
                pid=int(m.group(3)),
                host=m.group(4),
                device=int(m.group(5)),
                bus_id=m.group(6),
                name=m.group(7).strip(),
            )
        )

    @property
    def finished(self) -> bool:
        return self.avg is not None

    def header_line(self, body: str) -> None:
        m = _VERSION_RE.match(body)
        if m:
            self.version = m.group(1)
            self.nccl_version = _nccl_version_from_code(m.group(3) or m.group(2))
            self.saw_header = True
            return
        m = _STARTING_RE.match(body)
        if m:
            self.collective = _collective_or_none(m.group(1)) or self.collective
            return
        if _NTHREAD_RE.match(body):
            self.saw_header = True
            for k1, v1, k2, v2 in _PARAM_RE.findall(body):
                self.params[(k1 or k2).strip()] = v1 or v2
            return
        m = _RANK_RE.match(body)
        if m:
            self._rank(m)
            return
        if _LOOSE_RANK_RE.match(body):
            self.rank_problems.append(f"unreadable rank line: {body[:160]}")
            return
        tokens = body.split()
        if "size" in tokens and ("busbw" in tokens or "algbw" in tokens):
            self.saw_columns = True
            self.layout = _Layout(
                has_root="root" in tokens,
                group=8 if "i_min" in tokens else 4,
                wrong_column="error" if "error" in tokens else "#wrong",
            )
            return
        m = _OOB_RE.match(body)
        if m:
            self.oob = int(m.group(1))
            self.oob_ok = (m.group(2) or "").upper() != "FAILED" and self.oob == 0
            return
        m = _AVG_RE.match(body)
        if m:
            try:
                self.avg = float(m.group(1))
            except ValueError:
                self.errors.append(f"unreadable average: {body}")
            return
        if body.lower().startswith("error:"):
            self.errors.append(body[6:].strip())
            return
        if body and not body.startswith(("(B)", "Using devices")) and "out-of-place" not in body:
            self.notes.append(body)

    def data_line(self, line: str) -> None:
        m = _TEST_FAILURE_RE.search(line)
        if m:
            kind = m.group("kind") or "test"
            msg = (m.group("msg") or "").strip().rstrip("/ ").strip()
            self.failures.append(
                f"{kind} failure at {m.group('where')}" + (f": {msg}" if msg else "")
            )
            return
        if self.net.feed(line):
            return
        m = _RANK_RE.match(line)
        if m:  # a rank line that lost its "#" (a paste, a wrapped terminal): kept, and said
            self._rank(m)
            if not self.bare_headers:  # a run printed without "#" lost nothing
                self.rank_problems.append(f"rank {m.group(1)}'s line had lost its '#'")
            return
        if _LOOSE_RANK_RE.match(line):
            self.rank_problems.append(f"unreadable rank line: {line[:160]}")
            return
        tokens = line.split()
        if tokens and tokens[0].isdigit():
            try:
                self.rows.append(_parse_row(tokens, self.layout))
                self.last_bad_row = False
                return
            except (ValueError, IndexError):
                self.last_bad_row = True
        self.skipped += 1

    def build(self) -> NcclTestRun:
        p = self.params
        return NcclTestRun(
            collective=self.collective or _infer_collective(self),
            rows=tuple(self.rows),
            avg_busbw=self.avg,
            out_of_bounds=self.oob,
            out_of_bounds_ok=self.oob_ok,
            truncated=self.avg is None,
            version=self.version,
            nccl_version=self.nccl_version or self.net.version,
            params=dict(p),
            n_threads=_opt_int(p.get("nThread")),
            n_gpus=_opt_int(p.get("nGpus")),
            min_bytes=_opt_int(p.get("minBytes")),
            max_bytes=_opt_int(p.get("maxBytes")),
            ranks=tuple(self.ranks),
            wrong_column=self.layout.wrong_column,
            net=self.net.result(),
            notes=tuple(self.notes),
            errors=tuple(self.errors),
            skipped_lines=self.skipped,
            failures=tuple(self.failures),
            rank_problems=tuple(self.rank_problems) + _missing(self.ranks, self.net.result()),
        )


def _missing(ranks: Sequence[NcclRank], net: NcclNetInfo) -> tuple[str, ...]:
    if not ranks:
        return ()
    size = max(net.comm_ranks or 0, max(r.rank for r in ranks) + 1)
    listed = {r.rank for r in ranks}
    gone = [i for i in range(size) if i not in listed]
    if not gone:
        return ()
    shown = ", ".join(str(i) for i in gone[:16]) + (" ..." if len(gone) > 16 else "")
    return (f"{len(gone)} of {size} ranks missing from the rank list: {shown}",)


def _opt_int(v: str | None) -> int | None:
    try:
        return int(v) if v is not None else None
    except ValueError:
        return None


def _collective_or_none(name: str) -> str | None:
    try:
        return normalize_collective(name)
    except ValueError:
        return None


def _infer_collective(b: _RunBuilder) -> str | None:
    """All-reduce is the one collective whose busbw/algbw ratio is 2(n-1)/n."""
    n = len(b.ranks) or None
    if n is None or n < 2 or not b.rows:
        return None
    want = _factor_all_reduce(n)
    ratios = [r.in_busbw / r.in_algbw for r in b.rows if r.in_algbw >= 1.0]
    if ratios and all(abs(x - want) < 0.02 * want for x in ratios):
        return "all_reduce"
    return None


def _strip_prefix(line: str) -> str:
    return _MPI_PREFIX_RE.sub("", line.rstrip("\r\n"), count=1)


@parse_guard("nccl_tests", Said("error.parse.hint.nccl_stdout"))
def parse_nccl_tests_all(text: str) -> list[NcclTestRun]:
    """Every run in a text (a log may hold several tests one after the other)."""
    runs: list[_RunBuilder] = [_RunBuilder()]
    for raw in clean_paste(text).splitlines():
        line = _strip_prefix(raw)
        stripped = line.strip()
        if not stripped:
            continue
        cur = runs[-1]
        bare = not stripped.startswith("#") and bool(_BARE_HEADER_RE.match(stripped))
        if stripped.startswith("#") or bare:
            body = stripped.lstrip("#").strip()
            starts_run = bool(
                _VERSION_RE.match(body)
                or _NTHREAD_RE.match(body)
                or body.startswith("Collective test starting")
            )
            if starts_run and (cur.finished or cur.rows):
                cur = _RunBuilder()
                runs.append(cur)
            cur.bare_headers = cur.bare_headers or bare
            cur.header_line(body)
        else:
            cur.data_line(stripped)
    found = [r for r in runs if r.started]
    if not found:
        raise ParseError(
            said("error.parse.nccl_none"), hint=said("error.parse.hint.nccl_stdout_long")
        )
    return [r.build() for r in found]


def parse_nccl_tests(text: str) -> NcclTestRun:
    """The first nccl-tests run in a text; a run cut before its footer comes
    back with the rows read so far and ``truncated=True``."""
    stripped = text.lstrip()
    if stripped.startswith("{"):
        return parse_nccl_tests_json(text)
    return parse_nccl_tests_all(text)[0]


# --- JSON (-J) ----------------------------------------------------------------------


def _jfloat(v: Any) -> float | None:
    if v is None:
        return None
    if isinstance(v, bool):
        raise ValueError("boolean where a number was expected")
    if isinstance(v, int | float):
        return float(v)
    if isinstance(v, str):
        s = v.strip()
        if s.upper() == "N/A" or not s:
            return None
        return float(s)
    raise ValueError(f"{type(v).__name__} where a number was expected")


def _jbool(v: Any) -> bool | None:
    if isinstance(v, bool):
        return v
    if isinstance(v, str) and v.lower() in ("true", "false"):
        return v.lower() == "true"
    return None


def _json_row(r: Any) -> NcclTestRow:
    if not isinstance(r, dict):
        raise ValueError("a result is not an object")
    out = r.get("out_of_place")
    inp = r.get("in_place")
    if not isinstance(inp, dict):
        raise ValueError("a result has no in_place object")

    def time_of(d: dict[str, Any]) -> float | None:
        return _jfloat(d.get("time", d.get("cpu_time")))

    in_time = time_of(inp)
    in_alg = _jfloat(inp.get("alg_bw"))
    in_bus = _jfloat(inp.get("bus_bw"))
    if in_time is None or in_alg is None or in_bus is None:
        raise ValueError("in_place lacks time, alg_bw or bus_bw")
    root = r.get("root")
    redop = r.get("redop")
    return NcclTestRow(
        size=int(r["size"]),
        count=int(r["count"]),
        type=str(r.get("type", "")).strip(),
        redop=(str(redop).strip() or None) if redop is not None else None,
        root=int(str(root).strip()) if root is not None and str(root).strip() else None,
        out_time_us=time_of(out) if isinstance(out, dict) else None,
        out_algbw=_jfloat(out.get("alg_bw")) if isinstance(out, dict) else None,
        out_busbw=_jfloat(out.get("bus_bw")) if isinstance(out, dict) else None,
        out_wrong=_jfloat(out.get("nwrong")) if isinstance(out, dict) else None,
        in_time_us=in_time,
        in_algbw=in_alg,
        in_busbw=in_bus,
        in_wrong=_jfloat(inp.get("nwrong")),
    )


def _recover_results(text: str) -> list[Any]:
    """Complete result objects from a JSON file cut mid-write."""
    decoder = json.JSONDecoder()
    found = []
    for m in re.finditer(r'\{\s*"size"\s*:', text):
        try:
            obj, _end = decoder.raw_decode(text, m.start())
        except json.JSONDecodeError:
            continue
        found.append(obj)
    return found


@parse_guard("nccl_tests_json", Said("error.parse.hint.nccl_json"))
def parse_nccl_tests_json(text: str) -> NcclTestRun:
    """The file written by ``-J``: the same figures as the text format."""
    truncated = False
    doc: Any
    try:
        doc = json.loads(text)
    except RecursionError as exc:  # "[[[[..." deeper than Python's stack
        raise ParseError(
            said("error.parse.nccl_json_deep"), hint=said("error.parse.hint.nccl_json")
        ) from exc
    except json.JSONDecodeError as exc:
        results = _recover_results(text)
        if not results:
            raise ParseError(
                said("error.parse.nccl_json_bad", error=exc.msg, lineno=exc.lineno),
                hint=said("error.parse.hint.nccl_json"),
            ) from exc
        doc = {"results": results}
        m = re.search(r'"args"\s*:\s*\[\s*"([^"]+)"', text)
        if m:
            doc["args"] = [m.group(1)]
        truncated = True
    if not isinstance(doc, dict) or not isinstance(doc.get("results"), list):
        raise ParseError(
            said("error.parse.nccl_json_no_results"), hint=said("error.parse.hint.nccl_json")
        )
    try:
        rows = tuple(_json_row(r) for r in doc["results"])
    except (ValueError, KeyError, TypeError) as exc:
        raise ParseError(
            said("error.parse.nccl_json_result", error=str(exc)),
            hint=said("error.parse.hint.nccl_json_again"),
        ) from exc
    config: dict[str, Any] = doc["config"] if isinstance(doc.get("config"), dict) else {}
    ranks: list[NcclRank] = []
    for d in config.get("devices", []) or []:
        if isinstance(d, dict):
            ranks.append(
                NcclRank(
                    rank=int(d.get("rank", len(ranks))),
                    group=_opt_int(str(d.get("group"))) if d.get("group") is not None else None,
                    pid=int(d.get("pid", 0)),
                    host=str(d.get("hostname", "")),
                    device=int(d.get("device", 0)),
                    bus_id=str(d.get("device_hex", "")),
                    name=str(d.get("device_info", "")).strip(),
                )
            )
    oob: dict[str, Any] = doc["out_of_bounds"] if isinstance(doc.get("out_of_bounds"), dict) else {}
    avg = doc.get("average_bus_bandwidth")
    avg_bw = _jfloat(avg.get("bandwidth")) if isinstance(avg, dict) else _jfloat(avg)
    args: list[Any] = doc["args"] if isinstance(doc.get("args"), list) else []
    collective = _collective_or_none(str(args[0])) if args else None
    if collective is None and doc["results"]:
        first = doc["results"][0]
        if isinstance(first, dict) and first.get("experiment_name"):
            collective = _collective_or_none(str(first["experiment_name"]))
    nccl_code = doc.get("nccl_version")
    params = {
        k: str(v) for k, v in config.items() if k != "devices" and not isinstance(v, list | dict)
    }
    if "version" in doc:
        params["json_version"] = str(doc["version"])
    errors: list[Any] = doc["errors"] if isinstance(doc.get("errors"), list) else []
    return NcclTestRun(
        collective=collective,
        rows=rows,
        avg_busbw=avg_bw,
        out_of_bounds=_opt_int(str(oob["count"])) if "count" in oob else None,
        out_of_bounds_ok=_jbool(oob.get("okay")),
        truncated=truncated or avg_bw is None,
        version=None,  # the JSON carries its own format version, not the nccl-tests one
        nccl_version=_nccl_version_from_code(str(nccl_code)) if nccl_code else None,
        params=params,
        n_threads=_opt_int(params.get("nthreads")),
        n_gpus=_opt_int(params.get("ngpus")),
        min_bytes=_opt_int(params.get("minimum_bytes")),
        max_bytes=_opt_int(params.get("maximum_bytes")),
        ranks=tuple(ranks),
        errors=tuple(str(e) for e in errors),
    )


def rows_table(rows: Sequence[NcclTestRow]) -> list[dict[str, object]]:
    """Rows as plain dicts (for ``--json`` output and the store)."""
    return [
        {
            "size": r.size,
            "count": r.count,
            "type": r.type,
            "redop": r.redop,
            "root": r.root,
            "out_time_us": r.out_time_us,
            "out_algbw": r.out_algbw,
            "out_busbw": r.out_busbw,
            "out_wrong": r.out_wrong,
            "in_time_us": r.in_time_us,
            "in_algbw": r.in_algbw,
            "in_busbw": r.in_busbw,
            "in_wrong": r.in_wrong,
        }
        for r in rows
    ]
