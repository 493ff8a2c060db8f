"""A lab's Slurm cluster, reached over SSH at its login node: partitions as offers.

XyClaw never schedules on a Slurm cluster itself: it asks Slurm (``sinfo``, ``scontrol``,
``squeue``) what is there and submits through ``sbatch`` (:mod:`xyclaw.jobs.slurm_jobs`).
A site is a ``[[slurm]]`` table in ``hosts.toml``:

```toml
[[slurm]]
name = "lab"                 # the provider's name: `xyclaw offers --provider lab`
login = "me@login.lab.edu"   # an ~/.ssh/config alias or user@host:port (jump hosts as today)
account = "proj42"           # optional: sbatch --account
qos = "normal"               # optional: sbatch --qos
partitions = ["gpu", "a100"] # optional: only these (default: every partition)
gpu = "A100-80G"             # optional: the model when the site's GRES has no type
price_per_gpu_hour = 0       # optional: a lab's GPUs are not billed, their hours are counted
currency = "CNY"
```

Everything read from Slurm goes through ``--format``/``--Format``/``-o`` or ``scontrol
show -o`` (one record a line, key=value): the default tables differ between 22.05 and 25.x.
"""

from __future__ import annotations

import dataclasses
import re
import threading
import time
import tomllib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from xyclaw.catalog import Offer, normalise_gpu_name, parse_amount, parse_fabric
from xyclaw.errors import ConfigError, ProviderError
from xyclaw.providers.base import Capabilities, ClusterInfo, ClusterOrder, LedgerEntry
from xyclaw.wording import Said, said, said_of

#: The keys of a [[slurm]] table, with what each takes.
#: What each key of a [[slurm]] table takes, worded (``SLURM_KEYS`` is the English).
SLURM_KEY_WORDS: dict[str, Said] = {
    key: said(f"error.slurm.about_{key}")
    for key in ("name", "login", "account", "qos", "partitions", "gpu", "price_per_gpu_hour",
                "currency", "fabric", "login_shell")
}  # fmt: skip
SLURM_KEYS: dict[str, str] = {key: str(words) for key, words in SLURM_KEY_WORDS.items()}
_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_-]{0,31}$")
_CURRENCY = re.compile(r"^[A-Za-z]{3}$")
_PARTITION = re.compile(r"^[A-Za-z0-9_.-]+$")
#: How long the answer of ``squeue --me`` is reused: a shared login node is not polled harder.
SQUEUE_EVERY_S = 30.0
#: A site that does not say what links its nodes is taken as plain Ethernet.
DEFAULT_FABRIC = "eth-25"


@dataclass(frozen=True)
class SlurmSite:
    """One ``[[slurm]]`` table of hosts.toml."""

    name: str
    login: str
    account: str = ""
    qos: str = ""
    partitions: tuple[str, ...] = ()
    gpu: str = ""
    price_per_gpu_hour_micros: int = 0
    currency: str = "CNY"
    login_shell: bool = True
    fabric: str = DEFAULT_FABRIC


def _text(where: str | Said, raw: dict[str, Any], key: str, pattern: re.Pattern[str] | None) -> str:
    value = raw.get(key, "")
    if not isinstance(value, str) or (value and pattern is not None and not pattern.match(value)):
        raise ConfigError(
            said("error.slurm.value", where=where, key=key, value=repr(value)), hint=_about(key)
        )
    return value


def _about(key: str) -> Said:
    return said("error.slurm.about", key=key, about=SLURM_KEY_WORDS[key])


def check_slurm_entry(where: str | Said, raw: dict[str, Any]) -> SlurmSite:
    """One [[slurm]] table, checked: errors name the entry, the key and what it takes."""
    unknown = sorted(set(raw) - set(SLURM_KEYS))
    if unknown:
        raise ConfigError(
            said("error.slurm.unknown_key", where=where, key=repr(unknown[0])),
            hint=said("error.slurm.keys", keys=", ".join(SLURM_KEYS)),
        )
    for needed in ("name", "login"):
        if not raw.get(needed):
            raise ConfigError(
                said("error.slurm.missing", where=where, key=needed), hint=_about(needed)
            )
    name = _text(where, raw, "name", _NAME)
    login = _text(where, raw, "login", re.compile(r"^\S+$"))
    partitions = raw.get("partitions", [])
    if not isinstance(partitions, list) or not all(
        isinstance(p, str) and _PARTITION.match(p) for p in partitions
    ):
        raise ConfigError(
            said("error.slurm.value", where=where, key="partitions", value=repr(partitions)),
            hint=_about("partitions"),
        )
    price = raw.get("price_per_gpu_hour", 0)
    try:
        if isinstance(price, bool) or not isinstance(price, int | float | str):
            raise ValueError("not a number")
        micros = parse_amount(str(price))
    except ValueError:
        raise ConfigError(
            said("error.slurm.value", where=where, key="price_per_gpu_hour", value=repr(price)),
            hint=_about("price_per_gpu_hour"),
        ) from None
    currency = _text(where, raw, "currency", _CURRENCY) or "CNY"
    login_shell = raw.get("login_shell", True)
    if not isinstance(login_shell, bool):
        raise ConfigError(
            said("error.slurm.value", where=where, key="login_shell", value=repr(login_shell)),
            hint=_about("login_shell"),
        )
    gpu = _text(where, raw, "gpu", None).strip()
    try:
        fabric = parse_fabric(_text(where, raw, "fabric", None) or DEFAULT_FABRIC).name
    except ValueError as exc:
        raise ConfigError(
            said("error.slurm.fabric", where=where, reason=said_of(exc)), hint=_about("fabric")
        ) from None
    return SlurmSite(
        name=name,
        login=login,
        account=_text(where, raw, "account", _PARTITION),
        qos=_text(where, raw, "qos", _PARTITION),
        partitions=tuple(partitions),
        gpu=normalise_gpu_name(gpu) if gpu else "",
        price_per_gpu_hour_micros=micros,
        currency=currency.upper(),
        login_shell=login_shell,
        fabric=fabric,
    )


def slurm_sites(data: dict[str, Any], path: str) -> list[SlurmSite]:
    """The [[slurm]] tables of a parsed hosts.toml (none: an empty list)."""
    entries = data.get("slurm", [])
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        raise ConfigError(
            said("error.slurm.not_tables", path=path, value=repr(entries)),
            hint=said("error.slurm.not_tables_hint"),
        )
    sites: list[SlurmSite] = []
    for index, raw in enumerate(entries, start=1):
        where = said("error.slurm.entry", path=path, index=index)
        site = check_slurm_entry(where, raw)
        if any(s.name == site.name for s in sites):
            raise ConfigError(
                said("error.slurm.twice", where=where, name=repr(site.name)),
                hint=said("error.slurm.twice_hint"),
            )
        sites.append(site)
    return sites


def load_slurm_sites(path: Path) -> list[SlurmSite]:
    """The [[slurm]] tables of hosts.toml (no file: none)."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return []
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(
            said("error.slurm.unreadable", path=str(path), reason=str(exc)),
            hint=said("error.slurm.unreadable_hint"),
        ) from None
    return slurm_sites(data, str(path))


# -- what Slurm says, parsed ------------------------------------------------------------------


@dataclass(frozen=True)
class SlurmNode:
    """One node in one partition, as ``sinfo --Node --Format`` lists it."""

    name: str
    partition: str
    state: str  # Slurm's long state: idle, mixed, allocated, drained, down*, ...
    gpu_type: str
    gpus: int
    gpus_used: int

    @property
    def usable(self) -> bool:
        """Takes new work: not down, drained, draining, failing or not responding (``*``)."""
        bad = ("down", "drain", "fail", "maint", "reserved", "inval", "unknown", "future")
        return not self.state.endswith("*") and not any(b in self.state for b in bad)

    @property
    def free_gpus(self) -> int:
        return max(0, self.gpus - self.gpus_used) if self.usable else 0


@dataclass(frozen=True)
class Partition:
    """A partition with the nodes Slurm lists for it and its time limits (minutes)."""

    name: str
    nodes: tuple[SlurmNode, ...]
    max_time_min: int | None  # None: UNLIMITED
    default_time_min: int | None
    up: bool = True

    @property
    def gpu_type(self) -> str:
        types = sorted({n.gpu_type for n in self.nodes if n.gpu_type})
        return types[0] if types else ""

    @property
    def gpus_per_node(self) -> int:
        return max((n.gpus for n in self.nodes), default=0)

    def count(self, *words: str) -> int:
        """Nodes whose state starts with one of ``words`` (idle, mixed, allocated)."""
        return sum(1 for n in self.nodes if n.state.rstrip("*~#!%$@^-").startswith(words))

    @property
    def free_gpus(self) -> int:
        return sum(n.free_gpus for n in self.nodes)

    @property
    def free_nodes(self) -> int:
        """Nodes with every GPU free now (what a whole-node multi-node job needs)."""
        return sum(1 for n in self.nodes if n.gpus and n.free_gpus == n.gpus)

    def time_limit_min(self) -> int | None:
        """What a job asks for when the spec gives no limit: never UNLIMITED (a job asking
        for it waits forever behind a maintenance reservation: SkyPilot #9370)."""
        return self.max_time_min or self.default_time_min


_GRES = re.compile(r"gpu(?::([A-Za-z0-9_.-]+))?:(\d+)")


def parse_gres(text: str) -> tuple[str, int]:
    """``gpu:a800:8(S:0-1),shard:4`` -> ("a800", 8); no GPU: ("", 0). Counts add up when
    a node lists several types."""
    kind, total = "", 0
    for part in re.split(r",(?![^(]*\))", text):
        match = _GRES.match(part.strip())
        if match:
            kind = kind or (match.group(1) or "")
            total += int(match.group(2))
    return kind, total


def parse_sinfo_nodes(text: str) -> list[SlurmNode]:
    """The lines of ``sinfo --noheader --Node --Format=NodeList:|,Partition:|,StateLong:|,
    Gres:|,GresUsed:|``."""
    nodes = []
    for line in text.splitlines():
        fields_ = line.split("|")
        if len(fields_) < 5 or not fields_[0].strip():
            continue
        name, partition, state, gres, used = (f.strip() for f in fields_[:5])
        gpu_type, gpus = parse_gres(gres)
        _, gpus_used = parse_gres(used)
        nodes.append(
            SlurmNode(
                name=name,
                partition=partition.rstrip("*"),
                state=state.lower(),
                gpu_type=gpu_type,
                gpus=gpus,
                gpus_used=min(gpus_used, gpus),
            )
        )
    return nodes


def parse_key_values(line: str) -> dict[str, str]:
    """One record of ``scontrol show -o ...``: ``Key=Value`` pairs split on spaces (a value
    with spaces, such as a node's Reason, is kept whole up to the next ``Key=``)."""
    out: dict[str, str] = {}
    key = ""
    for token in line.split(" "):
        name, eq, value = token.partition("=")
        if eq and re.match(r"^[A-Za-z][A-Za-z0-9_:/]*$", name):
            key = name
            out[key] = value
        elif key and token:
            out[key] += " " + token
    return out


def parse_minutes(text: str) -> int | None:
    """Slurm's time ``[days-]hours:minutes:seconds`` (or ``minutes``) in whole minutes, rounded
    up; UNLIMITED, NONE, INFINITE and N/A are None."""
    text = text.strip()
    if not text or text.upper() in ("UNLIMITED", "NONE", "INFINITE", "N/A", "(NULL)"):
        return None
    days = 0
    if "-" in text:
        head, _, text = text.partition("-")
        days = int(head)
    parts = [int(p) for p in text.split(":")]
    if len(parts) == 1:
        seconds = parts[0] * 60
    elif len(parts) == 2:
        seconds = parts[0] * 60 + parts[1]
    else:
        seconds = parts[0] * 3600 + parts[1] * 60 + parts[2]
    return days * 1440 + -(-seconds // 60)


def parse_partitions(scontrol: str, nodes: Iterable[SlurmNode]) -> list[Partition]:
    """``scontrol show -o partition`` joined with the nodes sinfo listed."""
    by_partition: dict[str, list[SlurmNode]] = {}
    for node in nodes:
        by_partition.setdefault(node.partition, []).append(node)
    out = []
    for line in scontrol.splitlines():
        record = parse_key_values(line.strip())
        name = record.get("PartitionName")
        if not name:
            continue
        out.append(
            Partition(
                name=name,
                nodes=tuple(by_partition.get(name, ())),
                max_time_min=parse_minutes(record.get("MaxTime", "")),
                default_time_min=parse_minutes(record.get("DefaultTime", "")),
                up=record.get("State", "UP").upper() == "UP",
            )
        )
    return out


@dataclass(frozen=True)
class QueuedJob:
    """One of the user's own jobs as ``squeue --me`` lists it."""

    job_id: str
    state: str  # PENDING, RUNNING, COMPLETING, ...
    reason: str  # Slurm's reason: Resources, Priority, QOSMaxGRESPerUser, None, ...
    partition: str
    name: str
    nodes: int
    node_list: str
    start: str  # the expected start of a pending job (ISO time), or when it started
    time_limit: str


SQUEUE_FORMAT = "%i|%T|%r|%P|%j|%D|%N|%S|%l"


def parse_squeue(text: str) -> list[QueuedJob]:
    """Lines of ``squeue --me --noheader --format=SQUEUE_FORMAT``."""
    jobs = []
    for line in text.splitlines():
        parts = line.strip().split("|")
        if len(parts) < 9 or not parts[0]:
            continue
        nodes = int(parts[5]) if parts[5].isdigit() else 0
        jobs.append(QueuedJob(parts[0], parts[1], parts[2], parts[3], parts[4], nodes, *parts[6:9]))
    return jobs


def expand_hostlist(text: str) -> list[str]:
    """Slurm's host list ``n[1-2],gpu[01-03,07]`` as names (``scontrol show hostnames``)."""
    names: list[str] = []
    for part in re.findall(r"[^,\[]+(?:\[[^\]]*\])?[^,]*", text):
        match = re.match(r"^(.*?)\[([^\]]*)\](.*)$", part)
        if not match:
            names.append(part)
            continue
        head, ranges, tail = match.groups()
        for piece in ranges.split(","):
            low, _, high = piece.partition("-")
            for n in range(int(low), int(high or low) + 1):
                names.append(f"{head}{str(n).zfill(len(low))}{tail}")
    return names


@dataclass(frozen=True)
class NodeProblem:
    """A node that is down, drained or draining, with the admin's or Slurm's reason."""

    node: str
    state: str
    reason: str

    @property
    def words(self) -> str:
        return f"{self.node} {self.state}" + (f": {self.reason}" if self.reason else "")


_TROUBLE = ("down", "drain", "fail", "not_responding", "maint")


def parse_node_problems(text: str) -> dict[str, NodeProblem]:
    """Lines of ``sinfo --noheader --Node --Format=NodeList:|,StateLong:|,Reason:|``: the
    nodes in trouble (a node listed once per partition is kept once)."""
    out: dict[str, NodeProblem] = {}
    for line in text.splitlines():
        name, _, rest = line.partition("|")
        state, _, reason = rest.partition("|")
        state = state.strip().lower()
        if name.strip() and (state.endswith("*") or any(t in state for t in _TROUBLE)):
            reason = reason.rstrip("|").strip()
            out[name.strip()] = NodeProblem(name.strip(), state, "" if reason == "none" else reason)
    return out


# -- the login node ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ShellResult:
    exit_code: int
    stdout: str
    stderr: str


#: Runs one command line at the login node (over the pooled SSH connection) with a timeout.
LoginShell = Callable[[str, float], ShellResult]
#: Copies a local file to a path on the login node (SFTP over the same connection).
LoginUpload = Callable[[Path, str], None]


def quote(text: str) -> str:
    return "'" + text.replace("'", "'\"'\"'") + "'"


@dataclass
class SlurmClient:
    """Slurm's commands at one site's login node; every answer is Slurm's own words."""

    site: SlurmSite
    shell: LoginShell
    clock: Callable[[], float] = time.monotonic
    timeout_s: float = 60.0
    send: LoginUpload | None = None
    _queue: tuple[float, list[QueuedJob]] | None = field(default=None, init=False, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)

    def run(self, command: str, *, check: bool = True) -> ShellResult:
        line = f"bash -lc {quote(command)}" if self.site.login_shell else command
        result = self.shell(line, self.timeout_s)
        if check and result.exit_code != 0:
            answer = (result.stderr.strip() or result.stdout.strip()).splitlines()
            raise ProviderError(
                said(
                    "error.slurm.refused",
                    site=self.site.name,
                    command=command.split()[0],
                    answer=answer[-1]
                    if answer
                    else said("error.slurm.exit_code", code=result.exit_code),
                ),
                hint=said("error.slurm.refused_hint"),
            )
        return result

    def nodes(self) -> list[SlurmNode]:
        text = self.run(
            "sinfo --noheader --Node --Format=NodeList:'|',Partition:'|',StateLong:'|',"
            "Gres:'|',GresUsed:'|'"
        ).stdout
        return parse_sinfo_nodes(text)

    def partitions(self) -> list[Partition]:
        nodes = self.nodes()
        parts = parse_partitions(self.run("scontrol show -o partition").stdout, nodes)
        wanted = self.site.partitions
        return [p for p in parts if not wanted or p.name in wanted]

    def my_jobs(self, *, fresh: bool = False) -> list[QueuedJob]:
        """The user's own jobs (``squeue --me``: Slurm filters by the login's uid), asked at
        most every ``SQUEUE_EVERY_S`` unless ``fresh``."""
        with self._lock:
            now = self.clock()
            if not fresh and self._queue is not None and now - self._queue[0] < SQUEUE_EVERY_S:
                return list(self._queue[1])
            text = self.run(f"squeue --me --noheader --format={quote(SQUEUE_FORMAT)}").stdout
            jobs = parse_squeue(text)
            self._queue = (now, jobs)
            return list(jobs)

    def limits(self, partition: Partition) -> list[Said]:
        """What bounds a job here, read before submitting: the partition's own limits, and
        the user's association and QoS limits where the site keeps them (``sacctmgr``
        answers only with slurmdbd; said so when it does not)."""
        out: list[Said] = []
        record = {}
        for line in self.run("scontrol show -o partition").stdout.splitlines():
            fields_ = parse_key_values(line.strip())
            if fields_.get("PartitionName") == partition.name:
                record = fields_
        for key in ("MaxTime", "DefaultTime", "MaxNodes", "MaxCPUsPerNode", "QoS"):
            value = record.get(key, "")
            if value and value not in ("N/A", "UNLIMITED", "NONE"):
                out.append(
                    said("op.slurm_limit.partition", name=partition.name, key=key, value=value)
                )
        assoc = self.run(
            "sacctmgr --noheader --parsable2 show assoc where user=$USER"
            " format=Account,Partition,QOS,MaxTRES,GrpTRES,MaxJobs,MaxSubmit,MaxWall",
            check=False,
        )
        if assoc.exit_code != 0:
            out.append(said("op.slurm_limit.unknown"))
            return out
        names = ("account", "partition", "qos", "MaxTRES", "GrpTRES", "MaxJobs", "MaxSubmit",
                 "MaxWall")  # fmt: skip
        for line in assoc.stdout.splitlines():
            values = line.split("|")
            if len(values) < len(names):
                continue
            if values[1] and values[1] != partition.name:
                continue
            shown = [f"{n}={v}" for n, v in zip(names, values, strict=False) if v]
            if shown:
                out.append(said("op.slurm_limit.association", shown=" ".join(shown)))
        if self.site.qos:
            qos = self.run(
                "sacctmgr --noheader --parsable2 show qos where name="
                f"{self.site.qos} format=Name,MaxTRESPU,MaxJobsPU,MaxSubmitPU,MaxWall",
                check=False,
            )
            for line in qos.stdout.splitlines():
                out.append(said("op.slurm_limit.qos", line=line.replace("|", " ").strip()))
        return out

    def running(self) -> list[Allocation]:
        """The running jobs' time left, nodes and GPUs per node (``squeue``, no ids, users
        or names): what the wait of a full partition is estimated from."""
        text = self.run(
            f"squeue --noheader --states=RUNNING --format={quote(RUNNING_FORMAT)}"
        ).stdout
        return parse_running(text)

    def forget_queue(self) -> None:
        """Drop the remembered ``squeue --me`` answer (after a submit or a cancel)."""
        with self._lock:
            self._queue = None

    def node_problems(self) -> dict[str, NodeProblem]:
        """Nodes down, drained or draining now, with their reasons."""
        text = self.run(
            "sinfo --noheader --Node --Format=NodeList:'|',StateLong:'|',Reason:'|'"
        ).stdout
        return parse_node_problems(text)


@dataclass(frozen=True)
class QueueWait:
    """How long a shape would wait in a partition now, by Slurm's own estimate."""

    partition: str
    nodes: int
    gpus_per_node: int
    free_gpus: int
    wait_s: int | None  # 0: runs now; None: the site does not say

    @property
    def words(self) -> str:
        return self.words_said.english

    @property
    def words_said(self) -> Said:
        """The wait as said, so a view words it in its language (issue 35)."""
        if self.wait_s is None:
            return said("op.slurm_wait.unknown")
        if self.wait_s <= 60:
            return said("op.slurm_wait.now")
        return said("op.slurm_wait.about", minutes=-(-self.wait_s // 60))


_TEST_START = re.compile(r"to start at (\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)")


def wait_from_test_only(answer: str, now: str) -> int | None:
    """Seconds from the login node's ``now`` to the start ``sbatch --test-only`` expects
    (both the login node's local time, so no time zone is needed); None when it did not say."""
    from datetime import datetime

    match = _TEST_START.search(answer)
    if not match:
        return None
    try:
        start = datetime.fromisoformat(match.group(1))
        then = datetime.fromisoformat(now.strip())
    except ValueError:
        return None
    return max(0, int((start - then).total_seconds()))


@dataclass(frozen=True)
class Allocation:
    """A running job's hold on nodes, as the queue shows it to anyone (``squeue``'s time left,
    nodes and GPUs per node): no id, user or name is read, so nobody's job is seen."""

    partition: str
    nodes: tuple[str, ...]
    gpus_per_node: int | None  # None: the job asked for GPUs in a way squeue does not say
    left_s: float  # inf: no time limit


RUNNING_FORMAT = "%P|%L|%N|%b"


def parse_running(text: str) -> list[Allocation]:
    """Lines of ``squeue --noheader --states=RUNNING --format=RUNNING_FORMAT``."""
    out = []
    for line in text.splitlines():
        parts = line.strip().split("|")
        if len(parts) < 4 or not parts[0]:
            continue
        minutes = parse_minutes(parts[1])
        _, gpus = parse_gres(parts[3].replace("gres:", "").replace("gres/", ""))
        out.append(
            Allocation(
                partition=parts[0],
                nodes=tuple(expand_hostlist(parts[2])) if parts[2] else (),
                gpus_per_node=gpus if "gpu" in parts[3] else None,
                left_s=float("inf") if minutes is None else minutes * 60.0,
            )
        )
    return out


def wait_from_running(
    part: Partition, running: Iterable[Allocation], nodes: int, per_node: int
) -> int | None:
    """When ``nodes`` of the partition's nodes would each have ``per_node`` GPUs free, from the
    running jobs' end times (their time left): the estimate where Slurm does not give its own.
    Jobs pending ahead are not counted, so it is a lower bound ("about"). None: never (too few
    nodes up, or a job without a time limit holds them)."""
    holds: dict[str, list[tuple[float, int | None]]] = {}
    for job in running:
        for name in job.nodes:
            holds.setdefault(name, []).append((job.left_s, job.gpus_per_node))
    ready: list[float] = []
    for node in part.nodes:
        if node.gpus < per_node or not node.usable:
            continue
        free, used = node.free_gpus, node.gpus_used
        when = 0.0 if free >= per_node else float("inf")
        for left, gpus in sorted(holds.get(node.name, ()), key=lambda h: h[0]):
            if when < float("inf"):
                break
            freed = used if gpus is None else min(gpus, used)
            free, used = free + freed, used - freed
            if free >= per_node:
                when = left
        ready.append(when)
    ready.sort()
    if len(ready) < nodes or ready[nodes - 1] == float("inf"):
        return None
    return int(ready[nodes - 1])


#: Slurm's own estimate (``sbatch --test-only``, one call each) is asked for shapes of up to
#: this many nodes; bigger ones are estimated from the running jobs' end times.
ASK_SLURM_UP_TO_NODES = 4


def queue_waits(
    client: SlurmClient, part: Partition, running: list[Allocation]
) -> tuple[tuple[int, int | None], ...]:
    """The expected wait of whole-node shapes of 1..N nodes in ``part``: Slurm's own estimate
    where the site answers it, else from the running jobs' end times."""
    per_node = part.gpus_per_node
    out = []
    for count in range(1, len(part.nodes) + 1):
        wait = None
        if count <= ASK_SLURM_UP_TO_NODES:
            wait = _wait_for(client, part, count, per_node).wait_s
        if wait is None:
            wait = wait_from_running(part, running, count, per_node)
        out.append((count, wait))
    return tuple(out)


def _wait_for(client: SlurmClient, part: Partition, nodes: int, per_node: int) -> QueueWait:
    free = part.free_gpus
    limit = part.time_limit_min()
    line = (
        f"sbatch --test-only --nodes={nodes} --ntasks-per-node=1 --partition={part.name}"
        + (f" --gres=gpu:{per_node}" if per_node else "")
        + (f" --time={limit}" if limit else "")
        + (f" --account={client.site.account}" if client.site.account else "")
        + (f" --qos={client.site.qos}" if client.site.qos else "")
        + " --wrap=true 2>&1; date +%Y-%m-%dT%H:%M:%S"
    )
    lines = client.run(line, check=False).stdout.strip().splitlines()
    wait = wait_from_test_only("\n".join(lines[:-1]), lines[-1]) if lines else None
    return QueueWait(part.name, nodes, per_node, free, wait)


def expected_waits(
    client: SlurmClient, nodes: int, gpus_per_node: int, gpu: str | None = None
) -> list[QueueWait]:
    """Each partition that has the shape: its free GPUs now and the wait Slurm expects for
    ``nodes`` x ``gpus_per_node`` (``sbatch --test-only``: nothing is submitted)."""
    want = normalise_gpu_name(gpu) if gpu else ""
    out = []
    running: list[Allocation] | None = None
    for part in client.partitions():
        model = client.site.gpu or normalise_gpu_name(part.gpu_type or "GPU")
        if want and model != want:
            continue
        if not part.up or len(part.nodes) < nodes or part.gpus_per_node < gpus_per_node:
            continue
        wait = _wait_for(client, part, nodes, gpus_per_node)
        if wait.wait_s is None:  # the site gives no estimate: from the running jobs' ends
            running = client.running() if running is None else running
            estimate = wait_from_running(part, running, nodes, gpus_per_node)
            wait = dataclasses.replace(wait, wait_s=estimate)
        out.append(wait)
    return out


# -- the provider: partitions as offers -------------------------------------------------------


def partition_offers(
    site: SlurmSite,
    partitions: Iterable[Partition],
    waits: dict[str, QueueWait] | None = None,
    queues: dict[str, tuple[tuple[int, int | None], ...]] | None = None,
) -> list[Offer]:
    """One offer per partition with GPUs: its model and GPUs per node, the node counts it
    has, its free GPUs now, the site's price (0: counted, not billed), and in its note the
    nodes idle / mixed / allocated, the time limit and the wait for one whole node."""
    offers = []
    for part in partitions:
        wait = (waits or {}).get(part.name)
        per_node = part.gpus_per_node
        if per_node < 1 or not part.up:
            continue
        gpu = site.gpu or part.gpu_type or "GPU"
        idle, mixed, busy = part.count("idle"), part.count("mix"), part.count("alloc")
        limit = part.time_limit_min()
        offers.append(
            Offer(
                provider=site.name,
                offer_id=f"slurm-{site.name}-{part.name}",
                region=part.name,
                gpu=gpu,
                gpus_per_node=per_node,
                node_counts=tuple(range(1, len(part.nodes) + 1)),
                fabric=site.fabric if len(part.nodes) > 1 else "none",
                price_micro=site.price_per_gpu_hour_micros,
                currency=site.currency,
                kind="cluster" if len(part.nodes) > 1 else "node",
                available_gpus=part.free_gpus,
                # a queue, not a rental: a shape needing more than is free now waits
                queue_waits=(queues or {}).get(part.name)
                or tuple((n, None) for n in range(1, len(part.nodes) + 1)),
                note=(
                    f"partition {part.name}: {idle} idle, {mixed} mixed, {busy} allocated; "
                    f"time limit {f'{limit} min' if limit else 'none'}"
                    + (f"; one node {wait.words}" if wait else "")
                ),
            )
        )
    return offers


class SlurmProvider:
    """A Slurm site as a provider: its partitions are offers. Nothing is rented: jobs go to
    the scheduler through ``sbatch`` (:class:`xyclaw.jobs.slurm_jobs.SlurmJobs`), never onto
    nodes XyClaw would pick itself."""

    kind = "slurm"
    capabilities = Capabilities(
        rents=False,
        multi_node=True,
        why_not={
            "custom-image": said("provider.slurm.why_not.custom_image"),
            "host-keys": said("provider.slurm.why_not.host_keys"),
        },
    )

    def __init__(self, client: SlurmClient) -> None:
        self.client = client
        self.name = client.site.name
        self._on_close: list[Callable[[], None]] = []

    def on_close(self, fn: Callable[[], None]) -> None:
        """Something to close with the provider (the SSH pool to the login node)."""
        self._on_close.append(fn)

    def offers(self) -> list[Offer]:
        """Each partition with GPUs, with its free GPUs now and, per node count, the wait
        Slurm expects (or an estimate from the running jobs' end times)."""
        parts = [p for p in self.client.partitions() if p.up and p.gpus_per_node]
        running = self.client.running() if parts else []
        queues = {p.name: queue_waits(self.client, p, running) for p in parts}
        waits = {
            p.name: QueueWait(p.name, 1, p.gpus_per_node, p.free_gpus, dict(queues[p.name])[1])
            for p in parts
        }
        return partition_offers(self.client.site, parts, waits, queues)

    def create(self, order: ClusterOrder) -> ClusterInfo:
        raise ProviderError(
            said("error.slurm.not_rented", name=self.name),
            hint=said("error.slurm.not_rented_hint", name=self.name),
        )

    def get(self, external_id: str) -> ClusterInfo | None:
        return None

    def clusters(self) -> list[ClusterInfo]:
        return []

    def terminate(self, external_id: str) -> ClusterInfo:
        raise ProviderError(
            said("error.slurm.nothing_rented", name=self.name),
            hint=said("error.slurm.nothing_rented_hint"),
        )

    def billing(self) -> list[LedgerEntry]:
        return []

    def close(self) -> None:
        for fn in self._on_close:
            fn()
        self._on_close.clear()
