"""Job specs: what to run on a cluster, on what, and what to do when it fails.

A spec is one YAML file in XyClaw's own form or a SkyPilot task YAML as it is
(see :mod:`xyclaw.jobs.skypilot`); both become the same frozen
:class:`JobSpec`. The history keeps the spec as JSON (:meth:`JobSpec.to_json`),
so a recovered attempt and a later review run exactly what was asked.

Loading is strict where a mistake would cost money or a run (a negative node
count, an unknown recovery cause, a resume argument without ``{latest}``):
those raise :class:`SpecError` with the file, line and field. What XyClaw
reads but does not do is a :class:`SpecWarning`, never silently dropped.
"""

from __future__ import annotations

import difflib
import json
import math
import os
import re
import shlex
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from enum import StrEnum
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal

from xyclaw.catalog.money import format_amount, parse_amount
from xyclaw.catalog.names import normalise_gpu_name
from xyclaw.jobs import skypilot
from xyclaw.jobs.specyaml import SpecError, SpecWarning, YNode, parse_spec_text, read_spec_file

__all__ = [
    "INFRA_CAUSES",
    "Budget",
    "FileMount",
    "JobKind",
    "JobSpec",
    "LoadedSpec",
    "RecoveryCause",
    "RecoveryPolicy",
    "Resources",
    "ServiceSpec",
    "SpecError",
    "SpecWarning",
    "load_spec",
    "local_env",
    "parse_accelerators",
    "parse_budget",
    "parse_duration",
    "parse_spec",
    "render_resume_arg",
    "render_run",
    "resume_env",
]

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

_NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,62}")
_ENV_NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_CURRENCY_RE = re.compile(r"[A-Z]{3}")
_PATH_BAD = re.compile(r"[\x00\n\r]")
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
        *skypilot.SKYPILOT_ENV,
    }
)


class _Invalid(ValueError):
    """A value that breaks a rule; the caller adds the file, line and field."""

    def __init__(self, problem: str, allowed: str | None = None) -> None:
        super().__init__(problem)
        self.problem = problem
        self.allowed = allowed


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

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", JobKind(self.kind))
        object.__setattr__(self, "env", MappingProxyType(dict(self.env)))
        object.__setattr__(self, "env_from_local", tuple(self.env_from_local))
        object.__setattr__(self, "file_mounts", tuple(self.file_mounts))
        _guard(bool(_NAME_RE.fullmatch(self.name)), "name", repr(self.name))
        _guard(bool(self.run.strip()), "run", "an empty command")
        for key in (*self.env, *self.env_from_local):
            _guard(bool(_ENV_NAME_RE.fullmatch(key)), "env", repr(key))
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
                file="stored job spec",
                hint="the history entry is damaged; launch the job again from its spec file",
            ) from exc
        if not isinstance(data, dict):
            raise SpecError("the stored spec is not a JSON object", file="stored job spec")
        return _from_dict(data)


@dataclass(frozen=True, slots=True)
class LoadedSpec:
    spec: JobSpec
    warnings: tuple[SpecWarning, ...]
    source_format: Literal["xyclaw", "skypilot"]


def _guard(ok: bool, field_name: str, what: str) -> None:
    """The model's own invariants, for specs built in code or read back from JSON."""
    if not ok:
        raise SpecError(f"{what} is not allowed", field=field_name, allowed=_ALLOWED[field_name])


_ALLOWED = {
    "name": "1-63 letters, digits, '.', '_' or '-', starting with a letter or digit",
    "run": "a shell command (use `|` for several lines)",
    "env": "variable names of letters, digits and '_', not starting with a digit",
    "resources.nodes": f"a whole number from 1 to {MAX_NODES}",
    "resources.gpus_per_node": f"a whole number from 1 to {MAX_GPUS_PER_NODE}",
    "budget": "an amount above 0, e.g. `500`, `500 CNY` or `{amount: 500, currency: CNY}`",
    "budget.currency": "a three-letter currency code such as CNY or USD",
    "recovery.max_restarts": f"a whole number from 0 to {MAX_RESTARTS}",
    "service": "`kind: service` with `service: {port: 8000}`; no service section on a train job",
    "service.port": "a port from 1 to 65535",
    "service.readiness_path": "an HTTP path starting with '/', e.g. /health",
    "service.readiness_timeout": "a duration such as 600, '10m' or '1h'",
    "resume_arg": "text with {latest}, e.g. `--resume_from_checkpoint {latest}`, and a "
    "checkpoint_dir",
    "max_runtime": "a duration such as 3600, '90m', '2h' or '1h30m'",
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
    allowed = _ALLOWED["max_runtime"]
    if isinstance(value, bool):
        raise _Invalid(f"{value} is not a duration", allowed)
    if isinstance(value, int | float):
        if not math.isfinite(value) or value <= 0:
            raise _Invalid(f"{value} is not a positive duration", allowed)
        return max(1, round(value))
    if not isinstance(value, str):
        raise _Invalid(f"{value!r} is not a duration", allowed)
    text = value.strip().lower()
    if not text:
        raise _Invalid("an empty duration", allowed)
    if re.fullmatch(r"\d+(?:\.\d+)?", text):
        return parse_duration(float(text))
    total = 0.0
    pos = 0
    while pos < len(text):
        m = _DURATION_PART.match(text, pos)
        if not m or m.group(2) not in _UNITS:
            raise _Invalid(f"{value!r} is not a duration", allowed)
        total += float(m.group(1)) * _UNITS[m.group(2)]
        pos = m.end()
    if total <= 0:
        raise _Invalid(f"{value!r} is not a positive duration", allowed)
    return max(1, round(total))


_MONEY_RE = re.compile(
    r"(?:(?P<pre>[A-Za-z]{3})\s*)?(?P<sym>[¥￥$€])?\s*(?P<num>[0-9][0-9_,]*(?:\.[0-9]+)?|\.[0-9]+)"
    r"\s*(?P<post>[A-Za-z]{3}|元)?"
)
_SYMBOLS = {"¥": "CNY", "￥": "CNY", "元": "CNY", "$": "USD", "€": "EUR"}


def parse_budget(value: object, currency: str | None = None) -> Budget:
    """``500``, ``"500 CNY"``, ``"USD 20"``, ``"¥500"``, ``{amount: 500, currency: USD}``."""
    allowed = _ALLOWED["budget"]
    if isinstance(value, Mapping):
        if "amount" not in value:
            raise _Invalid("a budget mapping needs `amount`", allowed)
        unknown = sorted(set(value) - {"amount", "currency"})
        if unknown:
            raise _Invalid(f"unknown budget key {unknown[0]!r}", "amount, currency")
        cur = value.get("currency")
        if cur is not None and not isinstance(cur, str):
            raise _Invalid(f"{cur!r} is not a currency code", _ALLOWED["budget.currency"])
        return parse_budget(value["amount"], cur)
    if isinstance(value, bool) or not isinstance(value, str | int | float | Decimal):
        raise _Invalid(f"{value!r} is not an amount", allowed)
    text = str(value).strip()
    m = _MONEY_RE.fullmatch(text)
    if not m:
        raise _Invalid(f"{text!r} is not an amount", allowed)
    named = [c for c in (m.group("pre"), m.group("post"), m.group("sym")) if c]
    codes = {_SYMBOLS.get(c, c.upper()) for c in named}
    if currency is not None:
        codes.add(currency.strip().upper())
    if len(codes) > 1:
        raise _Invalid(f"{text!r} names two currencies ({', '.join(sorted(codes))})", allowed)
    code = codes.pop() if codes else DEFAULT_CURRENCY
    if not _CURRENCY_RE.fullmatch(code):
        raise _Invalid(f"{code!r} is not a currency code", _ALLOWED["budget.currency"])
    try:
        micro = parse_amount(m.group("num"))
    except ValueError as exc:
        raise _Invalid(str(exc), allowed) from exc
    if micro <= 0:
        raise _Invalid(f"a budget of {text} stops the job before it starts", allowed)
    return Budget(micro, code)


_ACCEL_ALLOWED = "`A100:8`, `H100` (1 GPU), or `{A100: 8}`: a GPU model and a whole count"


def parse_accelerators(text: str) -> tuple[str, int | None]:
    """``"A100-80GB:8"`` -> ``("A100-80G", 8)``; ``"H100"`` -> ``("H100", None)``."""
    name, sep, count_text = text.strip().rpartition(":")
    if not sep:
        name, count_text = count_text, ""
    name = name.strip()
    if not name:
        raise _Invalid(f"{text!r} names no GPU model", _ACCEL_ALLOWED)
    count: int | None = None
    if count_text.strip():
        try:
            number = Decimal(count_text.strip())
        except InvalidOperation as exc:
            raise _Invalid(f"{count_text.strip()!r} is not a GPU count", _ACCEL_ALLOWED) from exc
        if number != number.to_integral_value() or number < 1:
            raise _Invalid(
                f"{count_text.strip()} GPUs per node: XyClaw rents whole GPUs", _ACCEL_ALLOWED
            )
        count = int(number)
    normal = normalise_gpu_name(name)
    if not normal or not re.fullmatch(r"[A-Z0-9][A-Z0-9.+-]*", normal):
        raise _Invalid(f"{name!r} is not a GPU model name", _ACCEL_ALLOWED)
    return normal, count


# --- resume -------------------------------------------------------------------------------

_RESUME_REF = re.compile(r"\$\{?XYCLAW_RESUME_ARG\b")
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


def _resume_line(run: str) -> int | None:
    """Index of the line of ``run`` the resume argument is appended to, or None when the
    script places ``$XYCLAW_RESUME_ARG`` itself or its last line is not a command."""
    if _RESUME_REF.search(run):
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
    index = _resume_line(spec.run)
    if index is None:
        return spec.run
    lines = spec.run.splitlines()
    lines[index] = f"{lines[index].rstrip()} {arg}"
    return "\n".join(lines) + ("\n" if spec.run.endswith("\n") else "")


# --- reading a file -------------------------------------------------------------------------

_TOP_KEYS = (
    "name",
    "kind",
    "resources",
    "image",
    "workdir",
    "setup",
    "run",
    "env",
    "file_mounts",
    "checkpoint_dir",
    "resume_arg",
    "max_runtime",
    "budget",
    "recovery",
    "release_when_done",
    "service",
)
_RESOURCE_KEYS = ("gpu", "nodes", "gpus_per_node", "cluster", "provider", "region")
_RECOVERY_KEYS = ("max_restarts", "on", "allow_spend")
_SERVICE_KEYS = ("port", "readiness_path", "readiness_timeout")


def load_spec(
    path: str | os.PathLike[str],
    *,
    source_format: Literal["auto", "xyclaw", "skypilot"] = "auto",
    known_gpus: Collection[str] | None = None,
    check_paths: bool = True,
) -> LoadedSpec:
    """Read a job spec file (XyClaw's form or a SkyPilot task YAML).

    ``known_gpus`` (the catalog's model names) turns an unknown GPU into an
    error listing them; ``check_paths=False`` skips checking that the workdir
    and file mounts exist on this machine. Relative paths are relative to the
    spec file's folder.
    """
    file_path = Path(path)
    return _load(
        read_spec_file(file_path),
        str(file_path),
        file_path.parent,
        file_path.stem,
        source_format,
        known_gpus,
        check_paths,
    )


def parse_spec(
    text: str,
    *,
    file: str = "job spec",
    base_dir: str | os.PathLike[str] = ".",
    source_format: Literal["auto", "xyclaw", "skypilot"] = "auto",
    known_gpus: Collection[str] | None = None,
    check_paths: bool = True,
) -> LoadedSpec:
    """:func:`load_spec` for spec text that is not in a file (a chat, a request)."""
    return _load(
        parse_spec_text(text, file),
        file,
        Path(base_dir),
        "job",
        source_format,
        known_gpus,
        check_paths,
    )


def _load(
    tree: YNode,
    file: str,
    base: Path,
    default_name: str,
    source_format: Literal["auto", "xyclaw", "skypilot"],
    known_gpus: Collection[str] | None,
    check_paths: bool,
) -> LoadedSpec:
    if source_format not in ("auto", "xyclaw", "skypilot"):
        raise SpecError(
            f"unknown spec format {source_format!r}", file=file, allowed="auto, xyclaw, skypilot"
        )
    warnings: list[SpecWarning] = []
    fmt: Literal["xyclaw", "skypilot"]
    if source_format == "auto":
        fmt = "skypilot" if skypilot.looks_like_skypilot(tree) else "xyclaw"
    else:
        fmt = source_format
    if fmt == "skypilot":
        tree = skypilot.to_xyclaw_tree(tree, file, warnings)
    reader = _Reader(file, base, warnings, strict_keys=fmt == "xyclaw")
    spec = reader.spec(
        tree,
        default_name=default_name,
        skypilot_mode=fmt == "skypilot",
        known_gpus=known_gpus,
        check_paths=check_paths,
    )
    ordered = sorted(warnings, key=lambda w: (w.line is None, w.line or 0))
    return LoadedSpec(spec, tuple(ordered), fmt)


def local_env(spec: JobSpec, environ: Mapping[str, str]) -> dict[str, str]:
    """The values of ``spec.env_from_local`` from this machine's environment (at launch;
    they are never stored). SpecError naming every one that is not set."""
    missing = [name for name in spec.env_from_local if name not in environ]
    if missing:
        raise SpecError(
            f"{', '.join(missing)} must be set in this machine's environment (the spec takes "
            "them from here and never stores them)",
            file=f"job {spec.name}",
            field="env",
            hint=f"export {missing[0]}=... before launching, or give the value in the spec",
        )
    return {name: environ[name] for name in spec.env_from_local}


class _Reader:
    """XyClaw's form (and SkyPilot's, once translated) -> JobSpec, errors with lines."""

    def __init__(
        self, file: str, base: Path, warnings: list[SpecWarning], *, strict_keys: bool
    ) -> None:
        self.file = file
        self.base = base
        self.warnings = warnings
        self.strict_keys = strict_keys

    # helpers
    def error(
        self, node: YNode, problem: str, allowed: str | None = None, hint: str | None = None
    ) -> SpecError:
        return SpecError(
            problem,
            file=self.file,
            line=node.line,
            field=node.path or None,
            allowed=allowed,
            hint=hint,
        )

    def warn(self, node: YNode, message: str) -> None:
        self.warnings.append(SpecWarning(node.path, message, node.line, self.file))

    def check_keys(self, node: YNode, allowed: tuple[str, ...], what: str) -> None:
        for key, child in node.items():
            if key not in allowed:
                close = difflib.get_close_matches(key, allowed, n=1)
                hint = f"did you mean `{close[0]}`?" if close else None
                problem = f"unknown field in {what}" if what else "unknown field"
                raise SpecError(
                    problem,
                    file=self.file,
                    line=child.line,
                    field=child.path,
                    allowed=", ".join(allowed),
                    hint=(f"{hint} allowed: {', '.join(allowed)}" if hint else None),
                )

    def mapping(self, node: YNode, allowed_keys: tuple[str, ...], what: str) -> YNode:
        if not node.is_map:
            raise self.error(
                node, f"expected a mapping ({', '.join(allowed_keys)}), got {_kind(node)}"
            )
        if self.strict_keys:
            self.check_keys(node, allowed_keys, what)
        return node

    def text(self, node: YNode, allowed: str, *, single_line: bool = False) -> str:
        if node.is_map or node.is_list or node.value is None:
            raise self.error(node, f"expected text, got {_kind(node)}", allowed)
        text = node.text() if not isinstance(node.value, str) else node.value
        if single_line and ("\n" in text or "\x00" in text):
            raise self.error(node, "must be one line", allowed)
        return text

    def optional_text(self, node: YNode | None, allowed: str) -> str | None:
        if node is None or node.value is None:
            return None
        return self.text(node, allowed)

    def integer(self, node: YNode, lo: int, hi: int, allowed: str) -> int:
        value = node.value
        if isinstance(value, str) and not node.quoted and re.fullmatch(r"\s*-?\d+\s*", value):
            value = int(value)
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.error(node, f"{node.text() or 'null'!r} is not a whole number", allowed)
        if not lo <= value <= hi:
            raise self.error(node, f"{value} is out of range", allowed)
        return value

    def boolean(self, node: YNode, allowed: str = "true or false") -> bool:
        if isinstance(node.value, bool):
            return node.value
        raise self.error(node, f"{node.text() or 'null'!r} is not true or false", allowed)

    def invalid(self, node: YNode, exc: _Invalid) -> SpecError:
        return self.error(node, exc.problem, exc.allowed)

    # the whole spec
    def spec(
        self,
        tree: YNode,
        *,
        default_name: str,
        skypilot_mode: bool,
        known_gpus: Collection[str] | None,
        check_paths: bool,
    ) -> JobSpec:
        self.mapping(tree, _TOP_KEYS, "")
        get = tree.get

        name_node = get("name")
        if name_node is not None and name_node.value is not None:
            name = self.text(name_node, _ALLOWED["name"], single_line=True).strip()
            if not _NAME_RE.fullmatch(name):
                raise self.error(name_node, f"{name!r} is not a job name", _ALLOWED["name"])
        else:
            name = _name_from_file(default_name)

        kind = JobKind.TRAIN
        kind_node = get("kind")
        if kind_node is not None and kind_node.value is not None:
            kind_text = self.text(kind_node, "train, service").strip().lower()
            try:
                kind = JobKind(kind_text)
            except ValueError:
                raise self.error(
                    kind_node, f"unknown kind {kind_text!r}", ", ".join(k.value for k in JobKind)
                ) from None

        run_node = get("run")
        if run_node is None or run_node.value is None or not str(run_node.value).strip():
            raise SpecError(
                "no `run` command: a job needs the command to run on every node",
                file=self.file,
                line=run_node.line if run_node is not None else None,
                field="run",
                allowed=_ALLOWED["run"],
            )
        if run_node.is_list or run_node.is_map:
            raise self.error(
                run_node, f"expected a command, got {_kind(run_node)}", _ALLOWED["run"]
            )
        run = self.text(run_node, _ALLOWED["run"])
        setup_node = get("setup")
        setup = self.optional_text(setup_node, "a shell command (use `|` for several lines)")
        if setup is not None and not setup.strip():
            setup = None

        resources = self.resources(get("resources"), known_gpus)
        image = self.image(get("image"))
        workdir = self.local_path(get("workdir"), check_paths, folder=True)
        env, env_from_local = self.env(get("env"))
        mounts = self.file_mounts(get("file_mounts"), check_paths)

        checkpoint_dir = None
        ck_node = get("checkpoint_dir")
        if ck_node is not None and ck_node.value is not None:
            checkpoint_dir = self.remote_dir(ck_node)
        resume_arg = None
        resume_node = get("resume_arg")
        if resume_node is not None and resume_node.value is not None:
            resume_arg = self.text(resume_node, _ALLOWED["resume_arg"], single_line=True).strip()
            if LATEST not in resume_arg:
                raise self.error(
                    resume_node, f"{resume_arg!r} has no {LATEST}", _ALLOWED["resume_arg"]
                )
            if checkpoint_dir is None:
                raise self.error(
                    resume_node,
                    "needs checkpoint_dir: XyClaw looks there for the newest checkpoint",
                    _ALLOWED["resume_arg"],
                )

        max_runtime_s = None
        mr_node = get("max_runtime")
        if mr_node is not None and mr_node.value is not None:
            try:
                max_runtime_s = parse_duration(mr_node.value)
            except _Invalid as exc:
                raise self.invalid(mr_node, exc) from None

        budget = None
        b_node = get("budget")
        if b_node is not None and b_node.value is not None:
            budget = self.budget(b_node)

        recovery = self.recovery(get("recovery"))

        release = None
        rel_node = get("release_when_done")
        if rel_node is not None and rel_node.value is not None:
            release = self.boolean(rel_node)

        service = self.service(get("service"), kind, tree)

        spec = JobSpec(
            name=name,
            run=run,
            kind=kind,
            resources=resources,
            image=image,
            workdir=workdir,
            setup=setup,
            env=env,
            env_from_local=env_from_local,
            file_mounts=mounts,
            checkpoint_dir=checkpoint_dir,
            resume_arg=resume_arg,
            max_runtime_s=max_runtime_s,
            budget=budget,
            recovery=recovery,
            release_when_done=release,
            service=service,
            skypilot=skypilot_mode,
        )
        self.advise(spec, tree)
        return spec

    def advise(self, spec: JobSpec, tree: YNode) -> None:
        """Warnings about a spec that loads but will not do what its author expects."""
        run_node = tree.get("run") or tree
        if spec.kind is JobKind.TRAIN and spec.recovery.max_restarts > 0 and spec.recovery.on:
            if spec.checkpoint_dir is None:
                self.warn(
                    tree.get("recovery") or run_node,
                    "no checkpoint_dir: a restarted attempt starts again from step 0",
                )
            elif spec.resume_arg is None and "XYCLAW_LATEST_CHECKPOINT" not in spec.run:
                self.warn(
                    tree.get("checkpoint_dir") or run_node,
                    "no resume_arg: a restarted attempt is not told where the newest checkpoint "
                    "is (add resume_arg, or read $XYCLAW_LATEST_CHECKPOINT in the script)",
                )
        placeable = _resume_line(spec.run) is not None or _RESUME_REF.search(spec.run)
        if spec.resume_arg is not None and not placeable:
            self.warn(
                tree.get("resume_arg") or run_node,
                "the last line of run is not a command the resume argument can be appended "
                "to; put $XYCLAW_RESUME_ARG where the script takes it",
            )
        for key in spec.env:
            if key in RUNTIME_ENV:
                env_node = tree.get("env")
                node = (env_node.get(key) if env_node else None) or run_node
                self.warn(node, "is set by XyClaw on every node; this value is replaced")
        if spec.resources.cluster is None and spec.resources.gpu is None:
            node = tree.get("resources") or tree
            if spec.resources.nodes > 1 or spec.resources.gpus_per_node is not None:
                self.warn(
                    node,
                    "no GPU model: launch it on an existing cluster (--cluster C) or add "
                    "resources.gpu to rent one",
                )

    # sections
    def resources(self, node: YNode | None, known_gpus: Collection[str] | None) -> Resources:
        if node is None or node.value is None:
            return Resources()
        self.mapping(node, _RESOURCE_KEYS, "resources")
        gpu = None
        gpus_per_node = None
        gpu_node = node.get("gpu")
        if gpu_node is not None and gpu_node.value is not None:
            try:
                gpu, count = parse_accelerators(self.text(gpu_node, _ACCEL_ALLOWED))
            except _Invalid as exc:
                raise self.invalid(gpu_node, exc) from None
            if known_gpus is not None:
                known = {normalise_gpu_name(g) for g in known_gpus}
                if gpu not in known:
                    raise self.error(
                        gpu_node, f"{gpu} is not a GPU model XyClaw knows", ", ".join(sorted(known))
                    )
            gpus_per_node = count
        gpn_node = node.get("gpus_per_node")
        if gpn_node is not None and gpn_node.value is not None:
            value = self.integer(
                gpn_node, 1, MAX_GPUS_PER_NODE, _ALLOWED["resources.gpus_per_node"]
            )
            if gpus_per_node is not None and gpus_per_node != value:
                raise self.error(
                    gpn_node,
                    f"{value} disagrees with the count in gpu ({gpus_per_node})",
                    hint="give the count once: `gpu: A100:8` or `gpus_per_node: 8`",
                )
            gpus_per_node = value
        nodes = 1
        nodes_node = node.get("nodes")
        if nodes_node is not None and nodes_node.value is not None:
            nodes = self.integer(nodes_node, 1, MAX_NODES, _ALLOWED["resources.nodes"])
        cluster = self.short_name(node.get("cluster"), "an existing cluster's name")
        provider = self.short_name(node.get("provider"), "a provider name such as sim or ssh")
        region = self.short_name(node.get("region"), "a region name of the provider")
        return Resources(gpu, nodes, gpus_per_node, cluster, provider, region)

    def short_name(self, node: YNode | None, allowed: str) -> str | None:
        if node is None or node.value is None:
            return None
        text = self.text(node, allowed, single_line=True).strip()
        if not text or len(text) > 128 or any(c.isspace() for c in text):
            raise self.error(node, f"{text!r} is not a name", allowed)
        return text

    def image(self, node: YNode | None) -> str | None:
        allowed = "a container image reference such as nvcr.io/nvidia/pytorch:24.05-py3"
        if node is None or node.value is None:
            return None
        text = self.text(node, allowed, single_line=True).strip()
        if not text or any(c.isspace() for c in text):
            raise self.error(node, f"{text!r} is not an image reference", allowed)
        return text

    def local_path(self, node: YNode | None, check: bool, *, folder: bool) -> str | None:
        if node is None or node.value is None:
            return None
        allowed = "a folder on this machine, relative to the spec file or absolute"
        if node.is_map:
            raise self.error(
                node,
                "only a local folder can be a workdir (a git URL is not supported)",
                allowed,
                hint="clone the repository locally and point workdir at it",
            )
        text = self.text(node, allowed, single_line=True).strip()
        if not text:
            raise self.error(node, "an empty path", allowed)
        path = Path(os.path.expanduser(text))
        if not path.is_absolute():
            path = self.base / path
        path = Path(os.path.normpath(path))
        if check:
            if not path.exists():
                raise self.error(node, f"{path} does not exist", allowed)
            if folder and not path.is_dir():
                raise self.error(node, f"{path} is not a folder", allowed)
        return str(path)

    def remote_dir(self, node: YNode) -> str:
        allowed = "an absolute path on the cluster's shared volume, e.g. /shared/ckpt/run1"
        text = self.text(node, allowed, single_line=True).strip()
        if not text.startswith("/") or _PATH_BAD.search(text):
            raise self.error(node, f"{text!r} is not an absolute path", allowed)
        return text.rstrip("/") or "/"

    def env(self, node: YNode | None) -> tuple[dict[str, str], tuple[str, ...]]:
        if node is None or node.value is None:
            return {}, ()
        allowed = "NAME: value pairs; a null value is taken from this machine's environment"
        if not node.is_map:
            raise self.error(node, f"expected a mapping, got {_kind(node)}", allowed)
        env: dict[str, str] = {}
        from_local: list[str] = []
        for key, child in node.items():
            if not _ENV_NAME_RE.fullmatch(key):
                raise self.error(child, f"{key!r} is not a variable name", _ALLOWED["env"])
            if child.value is None:
                from_local.append(key)
            elif child.is_map or child.is_list:
                raise self.error(child, f"expected a value, got {_kind(child)}", allowed)
            elif "\x00" in child.text():
                raise self.error(child, "holds a NUL character", allowed)
            else:
                env[key] = child.value if isinstance(child.value, str) else child.text()
        return env, tuple(from_local)

    def file_mounts(self, node: YNode | None, check: bool) -> tuple[FileMount, ...]:
        if node is None or node.value is None:
            return ()
        allowed = "`/path/on/node: local/path` pairs (local files or folders)"
        if not node.is_map:
            raise self.error(node, f"expected a mapping, got {_kind(node)}", allowed)
        mounts = []
        for target, child in node.items():
            if not (target.startswith("/") or target.startswith("~")) or _PATH_BAD.search(target):
                raise self.error(child, f"{target!r} is not a path on the node", allowed)
            if child.is_map or (isinstance(child.value, str) and "://" in child.value):
                raise self.error(
                    child,
                    "only local files and folders can be mounted (no buckets or storage)",
                    allowed,
                    hint="copy the data to the cluster's shared volume in setup instead",
                )
            source = self.local_path(child, check, folder=False)
            assert source is not None
            mounts.append(FileMount(target, source))
        return tuple(mounts)

    def budget(self, node: YNode) -> Budget:
        value: object = node.value
        if node.is_map:
            value = {
                k: (v.text() if v.is_scalar and v.value is not None else v.value)
                for k, v in node.items()
            }
        elif node.is_scalar and not isinstance(node.value, str):
            value = node.text()  # "12.30" as typed, not a float
        try:
            return parse_budget(value)
        except _Invalid as exc:
            raise self.invalid(node, exc) from None

    def recovery(self, node: YNode | None) -> RecoveryPolicy:
        if node is None:
            return RecoveryPolicy()
        if node.value is None or node.value is False:
            return RecoveryPolicy.none()
        if node.value is True:
            return RecoveryPolicy()
        self.mapping(node, _RECOVERY_KEYS, "recovery")
        max_restarts = DEFAULT_MAX_RESTARTS
        mr = node.get("max_restarts")
        if mr is not None and mr.value is not None:
            max_restarts = self.integer(mr, 0, MAX_RESTARTS, _ALLOWED["recovery.max_restarts"])
        causes = INFRA_CAUSES
        on = node.get("on")
        allowed = ", ".join(c.value for c in RecoveryCause)
        if on is not None:
            if on.value is None:
                causes = ()
            else:
                items = on.elements() if on.is_list else [on]
                found: list[RecoveryCause] = []
                for item in items:
                    text = self.text(item, allowed).strip().lower()
                    try:
                        cause = RecoveryCause(text)
                    except ValueError:
                        raise self.error(item, f"unknown cause {text!r}", allowed) from None
                    if cause not in found:
                        found.append(cause)
                causes = tuple(found)
        allow_spend = False
        spend = node.get("allow_spend")
        if spend is not None and spend.value is not None:
            allow_spend = self.boolean(spend)
        return RecoveryPolicy(max_restarts, causes, allow_spend)

    def service(self, node: YNode | None, kind: JobKind, tree: YNode) -> ServiceSpec | None:
        if node is None or node.value is None:
            if kind is JobKind.SERVICE:
                raise SpecError(
                    "a service needs `service: {port: N}`: the port it listens on",
                    file=self.file,
                    line=(tree.get("kind") or tree).line,
                    field="service",
                    allowed=_ALLOWED["service"],
                )
            return None
        if kind is not JobKind.SERVICE:
            raise self.error(
                node, "is only for `kind: service`", hint="add `kind: service` or remove service"
            )
        self.mapping(node, _SERVICE_KEYS, "service")
        port_node = node.get("port")
        if port_node is None or port_node.value is None:
            raise self.error(node, "no port", _ALLOWED["service.port"])
        port = self.integer(port_node, 1, 65535, _ALLOWED["service.port"])
        path = "/"
        path_node = node.get("readiness_path")
        if path_node is not None and path_node.value is not None:
            path = self.text(path_node, _ALLOWED["service.readiness_path"], single_line=True)
            path = path.strip()
            if not path.startswith("/") or any(c.isspace() for c in path):
                raise self.error(
                    path_node, f"{path!r} is not an HTTP path", _ALLOWED["service.readiness_path"]
                )
        timeout = DEFAULT_READINESS_TIMEOUT_S
        t_node = node.get("readiness_timeout")
        if t_node is not None and t_node.value is not None:
            try:
                timeout = parse_duration(t_node.value)
            except _Invalid as exc:
                raise self.error(
                    t_node, exc.problem, _ALLOWED["service.readiness_timeout"]
                ) from None
        return ServiceSpec(port, path, timeout)


def _kind(node: YNode) -> str:
    if node.is_map:
        return "a mapping"
    if node.is_list:
        return "a list"
    if node.value is None:
        return "nothing (null)"
    if isinstance(node.value, bool):
        return f"{str(node.value).lower()} (a boolean)"
    return repr(node.text())


def _name_from_file(stem: str) -> str:
    name = re.sub(r"[^A-Za-z0-9._-]+", "-", stem).strip("-._")[:63]
    return name if _NAME_RE.fullmatch(name or "") else "job"


# --- JSON -> spec ---------------------------------------------------------------------------


def _from_dict(data: Mapping[str, Any]) -> JobSpec:
    where = "stored job spec"

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
        )
    except SpecError as exc:
        if exc.file is None:  # an invariant of the model: say where it came from
            raise SpecError(exc.problem, file=where, field=exc.field, allowed=exc.allowed) from exc
        raise
