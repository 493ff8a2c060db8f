"""The job spec's model: a frozen :class:`JobSpec` and the rules its values obey.

Everything here is pure (no files, no YAML): the value parsers (durations,
budgets, accelerators) are shared by the spec reader, the CLI and the agents;
the JSON form is what the history keeps; the resume helpers build the run
command of a recovered attempt. Import it from :mod:`xyclaw.jobs.spec`.
"""

from __future__ import annotations

import json
import math
import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from enum import StrEnum
from types import MappingProxyType
from typing import Any, Literal

from xyclaw.catalog.money import format_amount, parse_amount
from xyclaw.catalog.names import normalise_gpu_name
from xyclaw.jobs.skypilot import SKYPILOT_ENV
from xyclaw.jobs.specoutputs import OutputsSpec, outputs_from_dict
from xyclaw.jobs.specyaml import SpecError, SpecWarning
from xyclaw.wording import Said, said

SPEC_JSON_VERSION = 1
DEFAULT_CURRENCY = "CNY"
DEFAULT_MAX_RESTARTS = 3
DEFAULT_READINESS_TIMEOUT_S = 1200  # loading a large model's weights takes minutes
LATEST = "{latest}"
MAX_NODES = 1024
MAX_GPUS_PER_NODE = 64
MAX_RESTARTS = 100


class JobKind(StrEnum):
    TRAIN = "train"  # runs to an end; progress, checkpoints, recovery
    SERVICE = "service"  # runs until stopped; readiness, a forwarded port


class RecoveryCause(StrEnum):
    """Why an attempt ended, as far as the recovery policy cares."""

    NODE_LOST = "node_lost"  # a node stopped answering or the provider took it back
    XID = "xid"  # a fatal GPU error (XID 48, 79, ...) on a GPU the job uses
    NCCL_TIMEOUT = "nccl_timeout"  # PyTorch's NCCL watchdog gave up on a collective
    EXIT_NONZERO = "exit_nonzero"  # the user's command failed: retried only if listed


INFRA_CAUSES: tuple[RecoveryCause, ...] = (
    RecoveryCause.NODE_LOST,
    RecoveryCause.XID,
    RecoveryCause.NCCL_TIMEOUT,
)

NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,62}")
ENV_NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_CURRENCY_RE = re.compile(r"[A-Z]{3}")
PATH_BAD = re.compile(r"[\x00\n\r]")
# The variables the runtime sets on every node; a spec's own value is replaced.
RUNTIME_ENV = frozenset(
    {
        "MASTER_ADDR",
        "MASTER_PORT",
        "NODE_RANK",
        "NNODES",
        "NPROC_PER_NODE",
        "XYCLAW_NODE_IPS",
        "XYCLAW_NODE_RANK",
        "XYCLAW_NUM_NODES",
        "XYCLAW_GPUS_PER_NODE",
        "XYCLAW_RESUME_ARG",
        "XYCLAW_LATEST_CHECKPOINT",
        *SKYPILOT_ENV,
    }
)


class InvalidValue(ValueError):
    """A value that breaks a rule; the caller adds the file, line and field."""

    def __init__(self, problem: str | Said, allowed: str | Said | None = None) -> None:
        super().__init__(str(problem))
        self.problem = str(problem)
        self.problem_said = problem
        self.allowed = None if allowed is None else str(allowed)
        self.allowed_said = allowed


# --- the model -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Resources:
    """What the job runs on: a GPU shape to rent, or an existing cluster by name.

    With ``cluster`` set, ``gpu``, ``nodes`` and ``gpus_per_node`` are what
    the job expects of that cluster, not a request to rent.
    """

    gpu: str | None = None
    nodes: int = 1
    gpus_per_node: int | None = None
    cluster: str | None = None
    provider: str | None = None
    region: str | None = None

    def __post_init__(self) -> None:
        _guard(1 <= self.nodes <= MAX_NODES, "resources.nodes", f"{self.nodes} nodes")
        _guard(
            self.gpus_per_node is None or 1 <= self.gpus_per_node <= MAX_GPUS_PER_NODE,
            "resources.gpus_per_node",
            f"{self.gpus_per_node} GPUs per node",
        )

    @property
    def total_gpus(self) -> int | None:
        return None if self.gpus_per_node is None else self.nodes * self.gpus_per_node


@dataclass(frozen=True, slots=True)
class Budget:
    """The most the job may cost, in micro-units of ``currency``."""

    amount_micro: int
    currency: str = DEFAULT_CURRENCY

    def __post_init__(self) -> None:
        _guard(self.amount_micro > 0, "budget", f"{self.amount_micro} micro-units")
        _guard(bool(_CURRENCY_RE.fullmatch(self.currency)), "budget.currency", self.currency)

    def __str__(self) -> str:
        return format_amount(self.amount_micro, self.currency)


@dataclass(frozen=True, slots=True)
class RecoveryPolicy:
    """When an attempt ends badly: which causes start a new attempt, how many times,
    and whether a replacement node may be rented without asking."""

    max_restarts: int = DEFAULT_MAX_RESTARTS
    on: tuple[RecoveryCause, ...] = INFRA_CAUSES
    allow_spend: bool = False

    def __post_init__(self) -> None:
        _guard(
            0 <= self.max_restarts <= MAX_RESTARTS,
            "recovery.max_restarts",
            str(self.max_restarts),
        )

    def retries(self, cause: RecoveryCause | str, restarts_so_far: int) -> bool:
        """Whether an attempt that ended for ``cause`` gets another one."""
        try:
            cause = RecoveryCause(cause)
        except ValueError:
            return False
        return cause in self.on and restarts_so_far < self.max_restarts

    @classmethod
    def none(cls) -> RecoveryPolicy:
        return cls(max_restarts=0, on=(), allow_spend=False)


@dataclass(frozen=True, slots=True)
class ServiceSpec:
    """A long-running server: the port it listens on and how to tell it is ready."""

    port: int
    readiness_path: str = "/"
    readiness_timeout_s: int = DEFAULT_READINESS_TIMEOUT_S

    def __post_init__(self) -> None:
        _guard(1 <= self.port <= 65535, "service.port", str(self.port))
        _guard(self.readiness_path.startswith("/"), "service.readiness_path", self.readiness_path)
        _guard(self.readiness_timeout_s >= 1, "service.readiness_timeout", "0 s")


@dataclass(frozen=True, slots=True)
class FileMount:
    """A local file or folder uploaded to ``target`` on every node (like the workdir)."""

    target: str
    source: str


@dataclass(frozen=True, slots=True)
class JobSpec:
    """One job as the user asked for it. ``env`` is read-only; the spec is not hashable."""

    name: str
    run: str
    kind: JobKind = JobKind.TRAIN
    resources: Resources = field(default_factory=Resources)
    image: str | None = None
    workdir: str | None = None  # a local folder, absolute once loaded
    setup: str | None = None
    env: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    env_from_local: tuple[str, ...] = ()  # names read from the launching machine, never stored
    file_mounts: tuple[FileMount, ...] = ()
    checkpoint_dir: str | None = None  # on the cluster's shared volume
    resume_arg: str | None = None  # with {latest}
    max_runtime_s: int | None = None
    budget: Budget | None = None
    recovery: RecoveryPolicy = field(default_factory=RecoveryPolicy)
    release_when_done: bool | None = None  # None: when the job rented its own cluster
    service: ServiceSpec | None = None
    skypilot: bool = False  # also export SKYPILOT_* variables on every node
    outputs: OutputsSpec | None = None  # copied off the nodes as they appear (issue 32)
    spot: bool = False  # rent spot (preemptible) capacity for it (issue 32)

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", JobKind(self.kind))
        object.__setattr__(self, "env", MappingProxyType(dict(self.env)))
        object.__setattr__(self, "env_from_local", tuple(self.env_from_local))
        object.__setattr__(self, "file_mounts", tuple(self.file_mounts))
        _guard(bool(NAME_RE.fullmatch(self.name)), "name", repr(self.name))
        _guard(bool(self.run.strip()), "run", "an empty command")
        for key in (*self.env, *self.env_from_local):
            _guard(bool(ENV_NAME_RE.fullmatch(key)), "env", repr(key))
        if self.kind is JobKind.SERVICE:
            _guard(self.service is not None, "service", "a service without a port")
        else:
            _guard(self.service is None, "service", "a service section on a train job")
        if self.resume_arg is not None:
            _guard(LATEST in self.resume_arg, "resume_arg", repr(self.resume_arg))
            _guard(self.checkpoint_dir is not None, "resume_arg", "no checkpoint_dir")
        _guard(
            self.max_runtime_s is None or self.max_runtime_s >= 1,
            "max_runtime",
            f"{self.max_runtime_s} s",
        )

    # -- derived ------------------------------------------------------------------------------

    @property
    def rents_cluster(self) -> bool:
        """The spec asks for GPUs and names no cluster: launching it rents one first."""
        return self.resources.cluster is None and self.resources.gpu is not None

    def nodes_on(self, running: int) -> int:
        """How many of a cluster's ``running`` nodes the job runs on: its node count; a
        XyClaw spec naming neither cluster nor GPU means "run this on my cluster", every
        node. A SkyPilot task runs on ``num_nodes`` nodes, 1 by default, whatever the
        cluster has (a service must not start twice)."""
        want = self.resources.nodes
        if self.skypilot:
            return want
        if self.resources.cluster is None and self.resources.gpu is None and want == 1:
            return running or 1
        return want

    def releases_when_done(self, rented_for_job: bool) -> bool:
        """Whether the cluster goes back when the job ends: the spec's word, else only
        a cluster that was rented for this job."""
        if self.release_when_done is not None:
            return self.release_when_done
        return rented_for_job

    # -- JSON (the history keeps the spec) ----------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        r = self.resources
        return {
            "version": SPEC_JSON_VERSION,
            "name": self.name,
            "kind": self.kind.value,
            "resources": {
                "gpu": r.gpu,
                "nodes": r.nodes,
                "gpus_per_node": r.gpus_per_node,
                "cluster": r.cluster,
                "provider": r.provider,
                "region": r.region,
            },
            "image": self.image,
            "workdir": self.workdir,
            "setup": self.setup,
            "run": self.run,
            "env": dict(self.env),
            "env_from_local": list(self.env_from_local),
            "file_mounts": [{"target": m.target, "source": m.source} for m in self.file_mounts],
            "checkpoint_dir": self.checkpoint_dir,
            "resume_arg": self.resume_arg,
            "max_runtime_s": self.max_runtime_s,
            "budget": (
                None
                if self.budget is None
                else {"amount_micro": self.budget.amount_micro, "currency": self.budget.currency}
            ),
            "recovery": {
                "max_restarts": self.recovery.max_restarts,
                "on": [c.value for c in self.recovery.on],
                "allow_spend": self.recovery.allow_spend,
            },
            "release_when_done": self.release_when_done,
            "service": (
                None
                if self.service is None
                else {
                    "port": self.service.port,
                    "readiness_path": self.service.readiness_path,
                    "readiness_timeout_s": self.service.readiness_timeout_s,
                }
            ),
            "skypilot": self.skypilot,
            **({"outputs": self.outputs.to_dict()} if self.outputs is not None else {}),
            **({"spot": True} if self.spot else {}),
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), sort_keys=True, ensure_ascii=False)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> JobSpec:
        """The spec :meth:`to_dict` wrote; SpecError naming the field if it is damaged."""
        return _from_dict(data)

    @classmethod
    def from_json(cls, text: str) -> JobSpec:
        try:
            data = json.loads(text)
        except (TypeError, ValueError) as exc:
            raise SpecError(
                f"the stored spec is not JSON ({exc})",
                file=said("error.spec.stored"),
                hint="the history entry is damaged; launch the job again from its spec file",
            ) from exc
        if not isinstance(data, dict):
            raise SpecError("the stored spec is not a JSON object", file=said("error.spec.stored"))
        return _from_dict(data)


@dataclass(frozen=True, slots=True)
class LoadedSpec:
    spec: JobSpec
    warnings: tuple[SpecWarning, ...]
    source_format: Literal["xyclaw", "skypilot"]


def _guard(ok: bool, field_name: str, what: str) -> None:
    """The model's own invariants, for specs built in code or read back from JSON."""
    if not ok:
        raise SpecError(
            said("error.spec.not_allowed", what=what), field=field_name, allowed=ALLOWED[field_name]
        )


#: What each field takes, worded (``str()`` is the English the CLI prints).
ALLOWED: dict[str, Said] = {
    "name": said("error.spec.allowed_name"),
    "run": said("error.spec.allowed_run"),
    "env": said("error.spec.allowed_env_names"),
    "resources.nodes": said("error.spec.allowed_whole", low=1, high=MAX_NODES),
    "resources.gpus_per_node": said("error.spec.allowed_whole", low=1, high=MAX_GPUS_PER_NODE),
    "budget": said("error.spec.allowed_budget"),
    "budget.currency": said("error.spec.allowed_currency"),
    "recovery.max_restarts": said("error.spec.allowed_whole", low=0, high=MAX_RESTARTS),
    "service": said("error.spec.allowed_service"),
    "service.port": said("error.spec.allowed_port"),
    "service.readiness_path": said("error.spec.allowed_http_path"),
    "service.readiness_timeout": said("error.spec.allowed_timeout"),
    "resume_arg": said("error.spec.allowed_resume_arg", latest=LATEST),
    "max_runtime": said("error.spec.allowed_duration"),
}


# --- value parsers (usable on their own: the CLI and the agents parse the same forms) -------

_DURATION_PART = re.compile(r"(\d+(?:\.\d+)?)\s*([a-z]+)\s*")
_UNITS = {
    "s": 1,
    "sec": 1,
    "secs": 1,
    "second": 1,
    "seconds": 1,
    "m": 60,
    "min": 60,
    "mins": 60,
    "minute": 60,
    "minutes": 60,
    "h": 3600,
    "hr": 3600,
    "hrs": 3600,
    "hour": 3600,
    "hours": 3600,
    "d": 86400,
    "day": 86400,
    "days": 86400,
}


def parse_duration(value: object) -> int:
    """``3600``, ``"90m"``, ``"2h"``, ``"1h30m"``, ``"1.5h"`` -> whole seconds (at least 1)."""
    allowed = ALLOWED["max_runtime"]
    if isinstance(value, bool):
        raise InvalidValue(said("error.spec.not_duration", value=str(value)), allowed)
    if isinstance(value, int | float):
        if not math.isfinite(value) or value <= 0:
            raise InvalidValue(said("error.spec.not_positive_duration", value=str(value)), allowed)
        return max(1, round(value))
    if not isinstance(value, str):
        raise InvalidValue(said("error.spec.not_duration", value=repr(value)), allowed)
    text = value.strip().lower()
    if not text:
        raise InvalidValue(said("error.spec.empty_duration"), allowed)
    if re.fullmatch(r"\d+(?:\.\d+)?", text):
        return parse_duration(float(text))
    total = 0.0
    pos = 0
    while pos < len(text):
        m = _DURATION_PART.match(text, pos)
        if not m or m.group(2) not in _UNITS:
            raise InvalidValue(said("error.spec.not_duration", value=repr(value)), allowed)
        total += float(m.group(1)) * _UNITS[m.group(2)]
        pos = m.end()
    if total <= 0:
        raise InvalidValue(said("error.spec.not_positive_duration", value=repr(value)), allowed)
    return max(1, round(total))


_MONEY_RE = re.compile(
    r"(?:(?P<pre>[A-Za-z]{3})\s*)?(?P<sym>[¥￥$€])?\s*(?P<num>[0-9][0-9_,]*(?:\.[0-9]+)?|\.[0-9]+)"
    r"\s*(?P<post>[A-Za-z]{3}|元)?"
)
_SYMBOLS = {"¥": "CNY", "￥": "CNY", "元": "CNY", "$": "USD", "€": "EUR"}


def parse_budget(value: object, currency: str | None = None) -> Budget:
    """``500``, ``"500 CNY"``, ``"USD 20"``, ``"¥500"``, ``{amount: 500, currency: USD}``."""
    allowed = ALLOWED["budget"]
    if isinstance(value, Mapping):
        if "amount" not in value:
            raise InvalidValue(said("error.spec.budget_needs_amount"), allowed)
        unknown = sorted(set(value) - {"amount", "currency"})
        if unknown:
            raise InvalidValue(
                said("error.spec.budget_key", name=repr(unknown[0])), "amount, currency"
            )
        cur = value.get("currency")
        if cur is not None and not isinstance(cur, str):
            raise InvalidValue(
                said("error.spec.not_currency", code=repr(cur)), ALLOWED["budget.currency"]
            )
        return parse_budget(value["amount"], cur)
    if isinstance(value, bool) or not isinstance(value, str | int | float | Decimal):
        raise InvalidValue(said("error.spec.not_amount", value=repr(value)), allowed)
    text = str(value).strip()
    m = _MONEY_RE.fullmatch(text.lstrip("-").strip())
    if not m:
        raise InvalidValue(said("error.spec.not_amount", value=repr(text)), allowed)
    if text.startswith("-"):
        raise InvalidValue(said("error.spec.budget_negative", text=text), allowed)
    named = [c for c in (m.group("pre"), m.group("post"), m.group("sym")) if c]
    codes = {_SYMBOLS.get(c, c.upper()) for c in named}
    if currency is not None:
        codes.add(currency.strip().upper())
    if len(codes) > 1:
        raise InvalidValue(
            said("error.spec.two_currencies", text=repr(text), codes=", ".join(sorted(codes))),
            allowed,
        )
    code = codes.pop() if codes else DEFAULT_CURRENCY
    if not _CURRENCY_RE.fullmatch(code):
        raise InvalidValue(
            said("error.spec.not_currency", code=repr(code)), ALLOWED["budget.currency"]
        )
    try:
        micro = parse_amount(m.group("num"))
    except ValueError as exc:
        raise InvalidValue(str(exc), allowed) from exc
    if micro <= 0:
        raise InvalidValue(said("error.spec.budget_zero", text=text), allowed)
    return Budget(micro, code)


ACCELERATOR_FORMS = said("error.spec.allowed_accelerators")


def parse_accelerators(text: str) -> tuple[str, int | None]:
    """``"A100-80GB:8"`` -> ``("A100-80G", 8)``; ``"H100"`` -> ``("H100", None)``."""
    name, sep, count_text = text.strip().rpartition(":")
    if not sep:
        name, count_text = count_text, ""
    name = name.strip()
    if not name:
        raise InvalidValue(said("error.spec.no_gpu_model", text=repr(text)), ACCELERATOR_FORMS)
    count: int | None = None
    if count_text.strip():
        try:
            number = Decimal(count_text.strip())
        except InvalidOperation as exc:
            raise InvalidValue(
                said("error.spec.not_gpu_count", count=repr(count_text.strip())), ACCELERATOR_FORMS
            ) from exc
        if number != number.to_integral_value() or number < 1:
            raise InvalidValue(
                said("error.spec.whole_gpus", count=count_text.strip()), ACCELERATOR_FORMS
            )
        count = int(number)
    normal = normalise_gpu_name(name)
    if not normal or not re.fullmatch(r"[A-Z0-9][A-Z0-9.+-]*", normal):
        raise InvalidValue(said("error.spec.not_gpu_name", name=repr(name)), ACCELERATOR_FORMS)
    return normal, count


# --- resume -------------------------------------------------------------------------------

RESUME_REF = re.compile(r"\$\{?XYCLAW_RESUME_ARG\b")
_NOT_A_COMMAND_END = re.compile(
    r"(?:^|\s)(?:done|fi|esac|wait|exit(?:\s+\S+)?|EOF|\}|\))\s*$|[&;|]\s*$"
)


def render_resume_arg(spec: JobSpec, latest_checkpoint: str | None) -> str | None:
    """The spec's resume argument pointing at ``latest_checkpoint`` (shell-quoted), or
    None when there is nothing to resume from (first attempt, no checkpoint yet)."""
    if spec.resume_arg is None or not latest_checkpoint:
        return None
    return spec.resume_arg.replace(LATEST, shlex.quote(latest_checkpoint))


def resume_env(spec: JobSpec, latest_checkpoint: str | None) -> dict[str, str]:
    """``XYCLAW_RESUME_ARG`` and ``XYCLAW_LATEST_CHECKPOINT`` for the run command
    (empty strings on an attempt with nothing to resume from)."""
    return {
        "XYCLAW_RESUME_ARG": render_resume_arg(spec, latest_checkpoint) or "",
        "XYCLAW_LATEST_CHECKPOINT": latest_checkpoint or "",
    }


def resume_line(run: str) -> int | None:
    """Index of the line of ``run`` the resume argument is appended to, or None when the
    script places ``$XYCLAW_RESUME_ARG`` itself or its last line is not a command."""
    if RESUME_REF.search(run):
        return None
    lines = run.splitlines()
    for i in range(len(lines) - 1, -1, -1):
        stripped = lines[i].strip()
        if not stripped or stripped.startswith("#"):
            continue
        if _NOT_A_COMMAND_END.search(stripped):
            return None
        return i
    return None


def render_run(spec: JobSpec, latest_checkpoint: str | None) -> str:
    """The run command of an attempt: on a resumed attempt the resume argument is
    appended to the last command line, unless the script uses ``$XYCLAW_RESUME_ARG``
    itself (it is always exported, see :func:`resume_env`)."""
    arg = render_resume_arg(spec, latest_checkpoint)
    if arg is None:
        return spec.run
    index = resume_line(spec.run)
    if index is None:
        return spec.run
    lines = spec.run.splitlines()
    lines[index] = f"{lines[index].rstrip()} {arg}"
    return "\n".join(lines) + ("\n" if spec.run.endswith("\n") else "")


# --- JSON -> spec ---------------------------------------------------------------------------


def _from_dict(data: Mapping[str, Any]) -> JobSpec:
    where = said("error.spec.stored")

    def bad(field_name: str, problem: str) -> SpecError:
        return SpecError(
            problem,
            file=where,
            field=field_name,
            hint="the history entry is damaged; launch the job again from its spec file",
        )

    def opt_str(d: Mapping[str, Any], key: str, label: str) -> str | None:
        value = d.get(key)
        if value is not None and not isinstance(value, str):
            raise bad(label, f"expected text or null, got {type(value).__name__}")
        return value

    def req_int(d: Mapping[str, Any], key: str, label: str, default: int | None = None) -> int:
        value = d.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int):
            raise bad(label, f"expected a whole number, got {value!r}")
        return value

    def opt_int(d: Mapping[str, Any], key: str, label: str) -> int | None:
        return None if d.get(key) is None else req_int(d, key, label)

    def sub(key: str) -> Mapping[str, Any]:
        value = data.get(key) or {}
        if not isinstance(value, Mapping):
            raise bad(key, "expected an object")
        return value

    version = data.get("version", SPEC_JSON_VERSION)
    if version != SPEC_JSON_VERSION:
        raise SpecError(
            f"written by a XyClaw with spec version {version!r}; this one reads "
            f"{SPEC_JSON_VERSION}",
            file=where,
            hint="update XyClaw to read this job's spec",
        )
    try:
        res = sub("resources")
        resources = Resources(
            gpu=opt_str(res, "gpu", "resources.gpu"),
            nodes=req_int(res, "nodes", "resources.nodes", 1),
            gpus_per_node=opt_int(res, "gpus_per_node", "resources.gpus_per_node"),
            cluster=opt_str(res, "cluster", "resources.cluster"),
            provider=opt_str(res, "provider", "resources.provider"),
            region=opt_str(res, "region", "resources.region"),
        )
        rec = data.get("recovery")
        if rec is None:
            recovery = RecoveryPolicy()
        else:
            if not isinstance(rec, Mapping):
                raise bad("recovery", "expected an object")
            causes = rec.get("on", [c.value for c in INFRA_CAUSES])
            if not isinstance(causes, list):
                raise bad("recovery.on", "expected a list")
            try:
                on = tuple(RecoveryCause(c) for c in causes)
            except ValueError as exc:
                raise bad("recovery.on", str(exc)) from None
            allow = rec.get("allow_spend", False)
            if not isinstance(allow, bool):
                raise bad("recovery.allow_spend", "expected true or false")
            recovery = RecoveryPolicy(
                req_int(rec, "max_restarts", "recovery.max_restarts", DEFAULT_MAX_RESTARTS),
                on,
                allow,
            )
        bud = data.get("budget")
        budget = None
        if bud is not None:
            if not isinstance(bud, Mapping):
                raise bad("budget", "expected an object")
            currency = opt_str(bud, "currency", "budget.currency") or DEFAULT_CURRENCY
            budget = Budget(req_int(bud, "amount_micro", "budget.amount_micro"), currency)
        svc = data.get("service")
        service = None
        if svc is not None:
            if not isinstance(svc, Mapping):
                raise bad("service", "expected an object")
            service = ServiceSpec(
                req_int(svc, "port", "service.port"),
                opt_str(svc, "readiness_path", "service.readiness_path") or "/",
                req_int(
                    svc,
                    "readiness_timeout_s",
                    "service.readiness_timeout_s",
                    DEFAULT_READINESS_TIMEOUT_S,
                ),
            )
        env = data.get("env") or {}
        if not isinstance(env, Mapping) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in env.items()
        ):
            raise bad("env", "expected an object of text values")
        from_local = data.get("env_from_local") or []
        if not isinstance(from_local, list) or not all(isinstance(k, str) for k in from_local):
            raise bad("env_from_local", "expected a list of names")
        mounts_raw = data.get("file_mounts") or []
        if not isinstance(mounts_raw, list):
            raise bad("file_mounts", "expected a list")
        mounts = []
        for i, m in enumerate(mounts_raw):
            if not isinstance(m, Mapping):
                raise bad(f"file_mounts[{i}]", "expected an object")
            target = opt_str(m, "target", f"file_mounts[{i}].target")
            source = opt_str(m, "source", f"file_mounts[{i}].source")
            if target is None or source is None:
                raise bad(f"file_mounts[{i}]", "needs target and source")
            mounts.append(FileMount(target, source))
        release = data.get("release_when_done")
        if release is not None and not isinstance(release, bool):
            raise bad("release_when_done", "expected true, false or null")
        sky = data.get("skypilot", False)
        if not isinstance(sky, bool):
            raise bad("skypilot", "expected true or false")
        name = opt_str(data, "name", "name")
        run = opt_str(data, "run", "run")
        if name is None or run is None:
            raise bad("name" if name is None else "run", "missing")
        try:
            outputs = outputs_from_dict(data.get("outputs"))
        except ValueError as exc:
            raise bad("outputs", str(exc)) from None
        spot = data.get("spot", False)
        if not isinstance(spot, bool):
            raise bad("spot", "expected true or false")
        kind_text = opt_str(data, "kind", "kind") or JobKind.TRAIN.value
        try:
            kind = JobKind(kind_text)
        except ValueError:
            raise bad("kind", f"unknown kind {kind_text!r}") from None
        return JobSpec(
            name=name,
            run=run,
            kind=kind,
            resources=resources,
            image=opt_str(data, "image", "image"),
            workdir=opt_str(data, "workdir", "workdir"),
            setup=opt_str(data, "setup", "setup"),
            env=dict(env),
            env_from_local=tuple(from_local),
            file_mounts=tuple(mounts),
            checkpoint_dir=opt_str(data, "checkpoint_dir", "checkpoint_dir"),
            resume_arg=opt_str(data, "resume_arg", "resume_arg"),
            max_runtime_s=opt_int(data, "max_runtime_s", "max_runtime_s"),
            budget=budget,
            recovery=recovery,
            release_when_done=release,
            service=service,
            skypilot=sky,
            outputs=outputs,
            spot=spot,
        )
    except SpecError as exc:
        if exc.file is None:  # an invariant of the model: say where it came from
            raise SpecError(
                exc.problem_said, file=where, field=exc.field, allowed=exc.allowed_said
            ) from exc
        raise
