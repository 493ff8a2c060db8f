"""After a watchdog timeout: every rank's Flight Recorder dump, fetched from every node,
and which rank on which node the others waited for (issue 34).

The dumps are read in their JSON form only (:mod:`xyclaw.parsers.flight_recorder`). PyTorch
writes a pickle on timeout; the command below turns it into JSON *on the node that wrote
it*, with that node's own Python (the file never leaves the host as a pickle, and nothing
is unpickled here). A node that does not answer, or a rank with no file, is a silent rank:
evidence for the verdict, not an error.
"""

from __future__ import annotations

import shlex
import statistics
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from xyclaw.errors import RemoteError
from xyclaw.jobs.nodes import JobNode, NodeShell
from xyclaw.parsers.flight_recorder import Divergence, Finding, diverged, read_dumps
from xyclaw.parsers.kernel_log import XID_TABLE, parse_dmesg, xid_info
from xyclaw.wording import Said, said

_MARK = "XYCLAW-FR-FILE "
# On the node, with the node's own Python: a pickle dump (PyTorch's default) as JSON.
_TO_JSON = (
    "import json,pickle,sys\nprint(json.dumps(pickle.load(open(sys.argv[1],'rb')),default=str))"
)


def dumps_command(prefix: str) -> str:
    """Print every ``<prefix><rank>`` dump, each after a marker line, as JSON."""
    return (
        f'for f in {shlex.quote(prefix)}*; do [ -f "$f" ] || continue; echo "{_MARK}$f"; '
        'if [ "$(head -c 1 "$f")" = "{" ]; then cat "$f"; '
        f'else python3 -c {shlex.quote(_TO_JSON)} "$f" 2>/dev/null || echo; fi; echo; done'
    )


_POKED = "XYCLAW-FR-POKED "


def poke_command(prefix: str, pipe_stem: str) -> str:
    """Ask every rank on a node for its dump now, through PyTorch's debug pipe: the old
    dumps go first (so that what comes back is this moment's), then one byte into each
    ``<stem><rank>.pipe``. A pipe no process reads (a dead rank) would block the writer:
    ``timeout`` ends it, and that rank stays silent, which is evidence, not an error."""
    return (
        f"rm -f {shlex.quote(prefix)}* 2>/dev/null; "
        f'for f in {shlex.quote(pipe_stem)}*.pipe; do [ -e "$f" ] || continue; '
        f'if timeout 3 sh -c \'printf x > "$1"\' xyclaw-poke "$f" 2>/dev/null; '
        f'then echo "{_POKED}$f"; fi; done; true'
    )


def poked_pipes(text: str) -> int:
    """How many pipes :func:`poke_command` wrote to."""
    return sum(1 for line in text.splitlines() if line.startswith(_POKED))


def split_dumps(text: str) -> dict[str, bytes]:
    """``{file name: its JSON}`` from what :func:`dumps_command` printed."""
    out: dict[str, bytes] = {}
    name: str | None = None
    body: list[str] = []
    for line in [*text.splitlines(), _MARK]:
        if line.startswith(_MARK):
            if name is not None:
                out[name] = "\n".join(body).strip().encode()
            name, body = line[len(_MARK) :].strip(), []
        elif name is not None:
            body.append(line)
    return out


def _keep_readable(files: dict[str, bytes], fresh: Mapping[str, bytes]) -> None:
    """Take the newly read dumps into ``files``, except where a readable one would give way
    to one that is not: PyTorch writes a dump in place, not atomically, so a read in the
    middle of the write sees an empty or cut file, which the next read gets whole."""
    for name, data in fresh.items():
        old = files.get(name)
        if old is None or not read_dumps({name: data})[1] or read_dumps({name: old})[1]:
            files[name] = data


@dataclass(frozen=True)
class HangReport:
    """What the dumps say, with the ranks tied to the job's nodes."""

    divergence: Divergence
    world: int
    ranks_per_node: int
    node_names: tuple[str, ...]
    unreadable: tuple[str, ...] = ()
    unreachable: tuple[str, ...] = ()
    waited_s: float = 0.0
    files: int = 0
    extra: Mapping[str, str] = field(default_factory=dict)

    def node_of(self, rank: int) -> str:
        index = rank // max(self.ranks_per_node, 1)
        return self.node_names[index] if index < len(self.node_names) else f"node {index}"

    @property
    def culprit_nodes(self) -> tuple[str, ...]:
        """The nodes of the ranks the others waited for, in node order."""
        names = {self.node_of(r) for r in self.divergence.culprits}
        return tuple(n for n in self.node_names if n in names)

    @property
    def blames(self) -> bool:
        return self.divergence.finding in (Finding.NOT_ALL_JOINED, Finding.MISMATCH) and bool(
            self.divergence.culprits
        )


def collect(
    shell: NodeShell,
    nodes: Sequence[JobNode],
    prefix: str,
    ranks_per_node: int,
    *,
    wait_s: float,
    poll_s: float = 0.5,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
    pipe_stem: str | None = None,
) -> HangReport:
    """Fetch every node's dumps (again, until every rank's file is there or ``wait_s``
    passed: PyTorch writes them just after the timeout line) and analyse them. With
    ``pipe_stem``, every rank is asked for a dump through its debug pipe first (a job
    that is stuck with no watchdog line yet, or the user's "why is it stuck")."""
    world = ranks_per_node * len(nodes)
    command = dumps_command(prefix)
    start = clock()
    if pipe_stem is not None:
        poke = poke_command(prefix, pipe_stem)
        shell.run_all(nodes, lambda jn: shell.run(jn, poke, 15.0))
    files: dict[str, bytes] = {}
    unreachable: list[str] = []
    while True:
        unreachable = []
        # a node that hangs must not hold the verdict past its deadline: a short timeout
        results = shell.run_all(nodes, lambda jn: shell.run(jn, command, max(wait_s, 5.0)))
        for jn, result in zip(nodes, results, strict=True):
            if isinstance(result, RemoteError):
                unreachable.append(jn.name)
                continue
            _keep_readable(files, split_dumps(result.stdout))
        dumps, problems = read_dumps(files)
        if len(dumps) >= world or clock() - start >= wait_s:
            break
        sleep(poll_s)
    return HangReport(
        divergence=diverged(dumps, world),
        world=world,
        ranks_per_node=ranks_per_node,
        node_names=tuple(jn.name for jn in nodes),
        unreadable=tuple(problems),
        unreachable=tuple(unreachable),
        waited_s=clock() - start,
        files=len(files),
    )


#: The node's uptime, then the GPU driver's kernel log lines (dmesg may need sudo): the same
#: lines the telemetry reads, read again here because its alerts merge an XID with its
#: symptoms (XID 79 and the GPU missing from the count are one alert, titled by the first).
KERNEL_XIDS_COMMAND = (
    "cat /proc/uptime; { dmesg 2>/dev/null || sudo -n dmesg 2>/dev/null; } | grep -F 'NVRM: '"
)


@dataclass(frozen=True)
class NodeXid:
    """One XID a node's driver logged, with when on this machine's clock."""

    node: str
    code: int
    at: float  # epoch seconds on the desktop's clock


def node_xids(node: str, output: str, now: float, since: float | None = None) -> list[NodeXid]:
    """The XIDs in :data:`KERNEL_XIDS_COMMAND`'s output, oldest first, each placed on the
    desktop's clock through the node's uptime (so a node's wrong wall clock does not move
    them); benign ones (XID 45) and those logged before ``since`` (another attempt's) left
    out. A log with no uptime line places nothing: an XID with no time is not tied in."""
    lines = output.splitlines()
    try:
        uptime = float(lines[0].split()[0]) if lines else None
    except (ValueError, IndexError):
        uptime = None
    if uptime is None:
        return []
    found: list[NodeXid] = []
    for ev in parse_dmesg(lines[1:]):
        if ev.severity == "info" or ev.uptime_s is None:
            continue
        at = now - (uptime - ev.uptime_s)
        if since is not None and at < since - 5:
            continue
        found.append(NodeXid(node, ev.code, at))
    return sorted(found, key=lambda x: x.at)


def xid_meaning(code: int) -> Said:
    """What an XID means, worded (the reference table's meaning, else NVIDIA's catalog's)."""
    if code in XID_TABLE:
        return said(f"alert.xid.{code}.what")
    if xid_info(code).mnemonic:  # in NVIDIA's catalog: its description
        return said("alert.xid.catalog.what", description=Said(f"alert.xid.desc.{code}"))
    return said("alert.xid.unknown.what")


def local_time(ts: float) -> str:
    """A moment as the user's local wall-clock time."""
    return time.strftime("%H:%M:%S", time.localtime(ts))


def _ranks(ranks: Sequence[int]) -> str:
    return ", ".join(str(r) for r in ranks)


def verdict(
    report: HangReport,
    alerts: Mapping[str, tuple[Said | str, str]] | None = None,
    xids: Mapping[str, NodeXid] | None = None,
) -> Said:
    """The sentence for the job's history: which rank, which node, which collective; with
    the first XID the blamed node logged (its code, meaning and time, read from the node's
    kernel log), else the node's first alert (a link down) and when it came."""
    d = report.divergence
    group = d.pg_desc or d.pg_name
    nodes = ", ".join(report.culprit_nodes)
    if d.finding is Finding.NOT_ALL_JOINED and d.culprits:
        waiting = len(d.waiting)
        out = said(
            "job.hang.not_joined",
            ranks=_ranks(d.culprits),
            nodes=nodes,
            op=d.op,
            seq=d.seq,
            group=group,
            waiting=waiting,
        )
        if d.silent:
            out = said("job.hang.silent", verdict=out, ranks=_ranks(d.silent))
    elif d.finding is Finding.MISMATCH:
        out = said(
            "job.hang.mismatch", ranks=_ranks(d.culprits), nodes=nodes, op=d.op, seq=d.seq,
            group=group,
        )  # fmt: skip
    elif d.finding is Finding.ALL_STUCK:
        out = said("job.hang.all_stuck", op=d.op, seq=d.seq, group=group)
    elif d.finding is Finding.NONE and report.files:
        out = said("job.hang.none", files=report.files, world=report.world)
    else:
        out = said("job.hang.unknown", files=report.files, world=report.world)
    for node in report.culprit_nodes:
        xid = (xids or {}).get(node)
        if xid is not None:
            return said(
                "job.hang.with_xid",
                verdict=out,
                node=node,
                code=xid.code,
                what=xid_meaning(xid.code),
                at=local_time(xid.at),
            )
    for node in report.culprit_nodes:
        if alerts and node in alerts:
            alert, at = alerts[node]
            out = said("job.hang.with_alert", verdict=out, node=node, alert=alert, at=at)
            break
    return out


def action(report: HangReport) -> Said | None:
    """What to do about it, when the dumps blame nodes: replace them and resume."""
    if not report.blames or not report.culprit_nodes:
        return None
    return said("job.hang.action", nodes=", ".join(report.culprit_nodes))


class StallWatch:
    """A stall of progress past the job's usual step time (issue 34): the time between the
    log's progress lines (a step, or the log's every Nth) is learned as the job runs; a
    gap ``factor`` times its median (and at least ``floor_s``) with no new step is a stall.
    Said once per stall: it fires again only after progress resumed."""

    def __init__(self, *, factor: float, floor_s: float, min_samples: int = 3) -> None:
        self.factor = factor
        self.floor_s = floor_s
        self.min_samples = min_samples
        self._gaps: deque[float] = deque(maxlen=50)
        self._step: int | None = None
        self._at: float | None = None
        self._fired = False

    def see(self, step: int | None, now: float) -> None:
        """The newest step the log showed, at ``now``."""
        if step is None or step == self._step:
            return
        if self._at is not None and self._step is not None and step > self._step:
            self._gaps.append(max(0.0, now - self._at))
        self._step, self._at, self._fired = step, now, False

    @property
    def usual_s(self) -> float | None:
        """The usual time between progress lines, once enough were seen."""
        if len(self._gaps) < self.min_samples:
            return None
        return statistics.median(self._gaps)

    def limit_s(self) -> float | None:
        usual = self.usual_s
        return None if usual is None else max(self.floor_s, self.factor * usual)

    def stalled(self, now: float) -> float | None:
        """Seconds without progress when that is a new stall, else None."""
        limit = self.limit_s()
        if limit is None or self._at is None or self._fired:
            return None
        quiet = now - self._at
        if quiet < limit:
            return None
        self._fired = True
        return quiet


@dataclass(frozen=True)
class HangAnswer:
    """The answer to "why is it stuck" (Engine.why_stuck): the verdict, the action it asks
    for (None: nothing to replace), the ranks and nodes it blames, the collective, whether
    the dumps were read just now (``fresh``) or are the job's last recorded ones."""

    job: str
    verdict: Said | str
    action: Said | str | None
    ranks: tuple[int, ...] = ()
    nodes: tuple[str, ...] = ()
    op: str | None = None
    seq: int | None = None
    fresh: bool = True
    at: float = 0.0
