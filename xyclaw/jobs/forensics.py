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
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from xyclaw.errors import RemoteError
from xyclaw.jobs.nodes import JobNode, NodeShell
from xyclaw.parsers.flight_recorder import Divergence, Finding, diverged, read_dumps
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
) -> HangReport:
    """Fetch every node's dumps (again, until every rank's file is there or ``wait_s``
    passed: PyTorch writes them just after the timeout line) and analyse them."""
    world = ranks_per_node * len(nodes)
    command = dumps_command(prefix)
    start = clock()
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
            files.update(split_dumps(result.stdout))
        if len(files) >= world or clock() - start >= wait_s:
            break
        sleep(poll_s)
    dumps, problems = read_dumps(files)
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


def _ranks(ranks: Sequence[int]) -> str:
    return ", ".join(str(r) for r in ranks)


def verdict(report: HangReport, alerts: Mapping[str, tuple[Said | str, str]] | None = None) -> Said:
    """The sentence for the job's history: which rank, which node, which collective; with
    the first alert of the blamed node (an XID, a link down) and when it came."""
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
    else:
        out = said("job.hang.unknown", files=report.files, world=report.world)
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
