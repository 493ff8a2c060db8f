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
import os
import re
from collections.abc import Collection, Mapping
from itertools import pairwise
from pathlib import Path
from typing import Literal

from xyclaw.catalog.names import normalise_gpu_name, refused_accelerator
from xyclaw.jobs import skypilot
from xyclaw.jobs.specmodel import (
    ACCELERATOR_FORMS,
    ALLOWED,
    DEFAULT_MAX_RESTARTS,
    DEFAULT_READINESS_TIMEOUT_S,
    ENV_NAME_RE,
    INFRA_CAUSES,
    LATEST,
    MAX_GPUS_PER_NODE,
    MAX_NODES,
    MAX_RESTARTS,
    NAME_RE,
    PATH_BAD,
    RESUME_REF,
    RUNTIME_ENV,
    Budget,
    FileMount,
    InvalidValue,
    JobKind,
    JobSpec,
    LoadedSpec,
    RecoveryCause,
    RecoveryPolicy,
    Resources,
    ServiceSpec,
    parse_accelerators,
    parse_budget,
    parse_duration,
    render_resume_arg,
    render_run,
    resume_env,
    resume_line,
)
from xyclaw.jobs.specoutputs import read_outputs
from xyclaw.jobs.specyaml import (
    SpecError,
    SpecWarning,
    YNode,
    decode_spec_bytes,
    parse_spec_text,
    read_spec_file,
)
from xyclaw.wording import Said, said

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
    "outputs",  # issue 32: xyclaw.jobs.specoutputs
    "spot",  # issue 32: rent preemptible capacity
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
    on_cluster: bool = False,
) -> LoadedSpec:
    """Read a job spec file (XyClaw's form or a SkyPilot task YAML).

    ``known_gpus`` (the catalog's model names) turns an unknown GPU into an
    error listing them, except with ``on_cluster`` (the job goes to a named cluster, which
    has the GPU it has): then a warning that estimates are missing. ``check_paths=False``
    skips checking that the workdir and file mounts exist on this machine. Relative paths
    are relative to the spec file's folder.
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
        on_cluster,
    )


_DOCUMENT_START = re.compile(r"^---[ \t]*(?:#.*)?$", re.MULTILINE)


def load_pipeline(
    path: str | os.PathLike[str],
    *,
    known_gpus: Collection[str] | None = None,
    check_paths: bool = True,
    on_cluster: bool = False,
) -> list[LoadedSpec]:
    """The tasks of a spec file in order: one for a single YAML document; for a SkyPilot
    pipeline (documents separated by ``---``, the first one holding only the pipeline's
    ``name``) each task, read as :func:`load_spec` reads one, with its own lines."""
    file_path = Path(path)
    try:
        text = decode_spec_bytes(file_path.read_bytes(), str(file_path))
    except OSError:
        text = ""  # load_spec says what is wrong with the file
    starts = [m.start() for m in _DOCUMENT_START.finditer(text)]
    if not starts or not text[starts[-1] :].split("\n", 1)[-1].strip():
        return [load_spec(path, known_gpus=known_gpus, check_paths=check_paths,
                          on_cluster=on_cluster)]  # fmt: skip
    bounds = [0, *starts, len(text)]
    trees: list[YNode] = []
    for begin, end in pairwise(bounds):
        chunk = text[begin:end]
        if chunk.startswith("---"):
            chunk = " " * 3 + chunk[3:]  # the marker gone, the lines where they were
        if not _has_content(chunk):
            continue
        # blank lines before it keep every line number the file's own
        trees.append(parse_spec_text("\n" * text.count("\n", 0, begin) + chunk, str(file_path)))
    if len(trees) > 1 and {key for key, _ in trees[0].items()} <= _HEADER_KEYS:
        execution = trees[0].get("execution")
        if execution is not None and str(execution.value).strip().lower() == "parallel":
            raise SpecError(
                said("error.spec.job_group"),
                file=str(file_path),
                line=execution.line,
                field="execution",
                hint=said("error.spec.job_group_hint"),
            )
        trees = trees[1:]  # the pipeline's own name (a serial job group's header)
    return [
        _load(
            tree,
            str(file_path),
            file_path.parent,
            f"{file_path.stem}-{index}",
            "skypilot" if len(trees) > 1 else "auto",
            known_gpus,
            check_paths,
            on_cluster,
        )
        for index, tree in enumerate(trees, start=1)
    ]


# the first document of a SkyPilot pipeline or job group: the DAG's own fields, no task
_HEADER_KEYS = frozenset({"name", "execution", "primary_tasks", "termination_delay"})


def _has_content(chunk: str) -> bool:
    return any(ln.strip() and not ln.lstrip().startswith("#") for ln in chunk.splitlines())


def parse_spec(
    text: str,
    *,
    file: str = "job spec",
    base_dir: str | os.PathLike[str] = ".",
    source_format: Literal["auto", "xyclaw", "skypilot"] = "auto",
    known_gpus: Collection[str] | None = None,
    check_paths: bool = True,
    on_cluster: bool = False,
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
        on_cluster,
    )


def _load(
    tree: YNode,
    file: str,
    base: Path,
    default_name: str,
    source_format: Literal["auto", "xyclaw", "skypilot"],
    known_gpus: Collection[str] | None,
    check_paths: bool,
    on_cluster: bool = False,
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
    try:
        spec = reader.spec(
            tree,
            default_name=default_name,
            skypilot_mode=fmt == "skypilot",
            known_gpus=known_gpus,
            check_paths=check_paths,
            on_cluster=on_cluster,
        )
    except SpecError as exc:
        if exc.file is not None:
            raise
        # a rule of the model that the reader did not check first: still name the file
        raise SpecError(
            exc.problem_said, file=file, field=exc.field, allowed=exc.allowed_said
        ) from exc
    ordered = sorted(warnings, key=lambda w: (w.line is None, w.line or 0))
    return LoadedSpec(spec, tuple(ordered), fmt)


def local_env(spec: JobSpec, environ: Mapping[str, str]) -> dict[str, str]:
    """The values of ``spec.env_from_local`` from this machine's environment (at launch;
    they are never stored). SpecError naming every one that is not set."""
    missing = [name for name in spec.env_from_local if name not in environ]
    if missing:
        raise SpecError(
            said("error.spec.env_missing", names=", ".join(missing)),
            file=said("error.spec.job_file", name=spec.name),
            field="env",
            hint=said("error.spec.env_missing_hint", name=missing[0]),
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
        # SkyPilot reads a relative local path from the folder the command runs in
        self.from_cwd = not strict_keys

    # helpers
    def error(
        self,
        node: YNode,
        problem: str | Said,
        allowed: str | Said | None = None,
        hint: str | Said | None = None,
    ) -> SpecError:
        return SpecError(
            problem,
            file=self.file,
            line=node.line,
            field=node.path or None,
            allowed=allowed,
            hint=hint,
        )

    def warn(self, node: YNode, message: str | Said) -> None:
        self.warnings.append(SpecWarning.of(node, message, self.file))

    def check_keys(self, node: YNode, allowed: tuple[str, ...], what: str) -> None:
        for key, child in node.items():
            if key not in allowed:
                close = difflib.get_close_matches(key, allowed, n=1)
                names = ", ".join(allowed)
                hint = (
                    said("error.spec.did_you_mean", close=close[0], allowed=names)
                    if close
                    else None
                )
                problem = (
                    said("error.spec.unknown_field_in", what=what)
                    if what
                    else said("error.spec.unknown_field")
                )
                raise SpecError(
                    problem,
                    file=self.file,
                    line=child.line,
                    field=child.path,
                    allowed=names,
                    hint=hint,
                )

    def mapping(self, node: YNode, allowed_keys: tuple[str, ...], what: str) -> YNode:
        if not node.is_map:
            raise self.error(
                node,
                said(
                    "error.spec.expected_mapping_of", keys=", ".join(allowed_keys), kind=_kind(node)
                ),
            )
        if self.strict_keys:
            self.check_keys(node, allowed_keys, what)
        return node

    def text(self, node: YNode, allowed: str | Said, *, single_line: bool = False) -> str:
        if node.is_map or node.is_list or node.value is None:
            raise self.error(node, said("error.spec.expected_text", kind=_kind(node)), allowed)
        text = node.text() if not isinstance(node.value, str) else node.value
        if single_line and ("\n" in text or "\x00" in text):
            raise self.error(node, said("error.spec.one_line"), allowed)
        return text

    def optional_text(self, node: YNode | None, allowed: str | Said) -> str | None:
        if node is None or node.value is None:
            return None
        return self.text(node, allowed)

    def integer(self, node: YNode, lo: int, hi: int, allowed: str | Said) -> int:
        value = node.value
        if isinstance(value, str) and not node.quoted and re.fullmatch(r"\s*-?\d+\s*", value):
            value = int(value)
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int):
            shown = repr(node.text() or "null")
            raise self.error(node, said("error.spec.not_whole", value=shown), allowed)
        if not lo <= value <= hi:
            raise self.error(node, said("error.spec.out_of_range", value=value), allowed)
        return value

    def boolean(self, node: YNode, allowed: str | Said | None = None) -> bool:
        if isinstance(node.value, bool):
            return node.value
        shown = repr(node.text() or "null")
        raise self.error(
            node, said("error.spec.not_bool", value=shown), allowed or said("error.spec.bool")
        )

    def invalid(self, node: YNode, exc: InvalidValue) -> SpecError:
        return self.error(node, exc.problem_said, exc.allowed_said)

    # the whole spec
    def spec(
        self,
        tree: YNode,
        *,
        default_name: str,
        skypilot_mode: bool,
        known_gpus: Collection[str] | None,
        check_paths: bool,
        on_cluster: bool = False,
    ) -> JobSpec:
        self.mapping(tree, _TOP_KEYS, "")
        get = tree.get

        name_node = get("name")
        if name_node is not None and name_node.value is not None:
            name = self.text(name_node, ALLOWED["name"], single_line=True).strip()
            if not NAME_RE.fullmatch(name):
                raise self.error(
                    name_node, said("error.spec.not_job_name", name=repr(name)), ALLOWED["name"]
                )
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
                    kind_node,
                    said("error.spec.unknown_kind", kind=repr(kind_text)),
                    ", ".join(k.value for k in JobKind),
                ) from None

        run_node = get("run")
        if run_node is None or run_node.value is None or not str(run_node.value).strip():
            raise SpecError(
                said("error.spec.no_run"),
                file=self.file,
                line=run_node.line if run_node is not None else None,
                field="run",
                allowed=ALLOWED["run"],
            )
        if run_node.is_list or run_node.is_map:
            raise self.error(
                run_node, said("error.spec.expected_command", kind=_kind(run_node)), ALLOWED["run"]
            )
        run = self.text(run_node, ALLOWED["run"])
        setup_node = get("setup")
        setup = self.optional_text(setup_node, ALLOWED["run"])
        if setup is not None and not setup.strip():
            setup = None

        resources = self.resources(get("resources"), known_gpus, on_cluster)
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
            resume_arg = self.text(resume_node, ALLOWED["resume_arg"], single_line=True).strip()
            if LATEST not in resume_arg:
                raise self.error(
                    resume_node,
                    said("error.spec.no_latest", arg=repr(resume_arg), latest=LATEST),
                    ALLOWED["resume_arg"],
                )
            if checkpoint_dir is None:
                raise self.error(
                    resume_node,
                    said("error.spec.needs_checkpoint_dir"),
                    ALLOWED["resume_arg"],
                )

        max_runtime_s = None
        mr_node = get("max_runtime")
        if mr_node is not None and mr_node.value is not None:
            try:
                max_runtime_s = parse_duration(mr_node.value)
            except InvalidValue as exc:
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
        outputs = read_outputs(self, get("outputs"), parse_duration)
        spot_node = get("spot")
        spot = spot_node is not None and spot_node.value is not None and self.boolean(spot_node)

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
            outputs=outputs,
            spot=spot,
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
                    said("error.spec.warn_no_checkpoint_dir"),
                )
            elif spec.resume_arg is None and "XYCLAW_LATEST_CHECKPOINT" not in spec.run:
                self.warn(
                    tree.get("checkpoint_dir") or run_node,
                    said("error.spec.warn_no_resume_arg"),
                )
        placeable = resume_line(spec.run) is not None or RESUME_REF.search(spec.run)
        if spec.resume_arg is not None and not placeable:
            self.warn(
                tree.get("resume_arg") or run_node,
                said("error.spec.warn_resume_not_placeable"),
            )
        for key in spec.env:
            if key in RUNTIME_ENV:
                env_node = tree.get("env")
                node = (env_node.get(key) if env_node else None) or run_node
                self.warn(node, said("error.spec.warn_runtime_env"))
        if spec.resources.cluster is None and spec.resources.gpu is None:
            node = tree.get("resources") or tree
            if spec.resources.nodes > 1 or spec.resources.gpus_per_node is not None:
                self.warn(
                    node,
                    said("error.spec.warn_no_gpu"),
                )

    # sections
    def resources(
        self,
        node: YNode | None,
        known_gpus: Collection[str] | None,
        on_cluster: bool = False,
    ) -> Resources:
        if node is None or node.value is None:
            return Resources()
        self.mapping(node, _RESOURCE_KEYS, "resources")
        gpu = None
        gpus_per_node = None
        gpu_node = node.get("gpu")
        if gpu_node is not None and gpu_node.value is not None:
            gpu_text = self.text(gpu_node, ACCELERATOR_FORMS)
            refused = refused_accelerator(gpu_text.rpartition(":")[0] or gpu_text)
            if refused is not None:
                raise self.error(
                    gpu_node,
                    said(
                        "error.spec.gpu_refused",
                        gpu=gpu_text.strip(),
                        reason=said(f"error.spec.gpu_refused.{refused}"),
                    ),
                    hint=said("error.spec.gpu_refused.hint"),
                )
            try:
                gpu, count = parse_accelerators(gpu_text)
            except InvalidValue as exc:
                raise self.invalid(gpu_node, exc) from None
            if known_gpus is not None:
                known = {normalise_gpu_name(g) for g in known_gpus}
                if gpu not in known:
                    if on_cluster or node.get("cluster") is not None:
                        # a cluster that has it runs it; the planner has no figures for it
                        self.warn(gpu_node, said("error.spec.warn_gpu_not_in_catalog", gpu=gpu))
                    else:
                        raise self.error(
                            gpu_node,
                            said("error.spec.unknown_gpu", gpu=gpu),
                            ", ".join(sorted(known)),
                            hint=said(
                                "error.spec.unknown_gpu.hint", known=", ".join(sorted(known))
                            ),
                        )
            if count is not None and count > MAX_GPUS_PER_NODE:
                raise self.error(
                    gpu_node,
                    said("error.spec.gpus_per_node", count=count),
                    ALLOWED["resources.gpus_per_node"],
                )
            gpus_per_node = count
        gpn_node = node.get("gpus_per_node")
        if gpn_node is not None and gpn_node.value is not None:
            value = self.integer(gpn_node, 1, MAX_GPUS_PER_NODE, ALLOWED["resources.gpus_per_node"])
            if gpus_per_node is not None and gpus_per_node != value:
                raise self.error(
                    gpn_node,
                    said("error.spec.count_disagrees", value=value, count=gpus_per_node),
                    hint=said("error.spec.count_once"),
                )
            gpus_per_node = value
        nodes = 1
        nodes_node = node.get("nodes")
        if nodes_node is not None and nodes_node.value is not None:
            nodes = self.integer(nodes_node, 1, MAX_NODES, ALLOWED["resources.nodes"])
        cluster = self.short_name(node.get("cluster"), said("error.spec.allowed_cluster"))
        provider = self.short_name(node.get("provider"), said("error.spec.allowed_provider"))
        region = self.short_name(node.get("region"), said("error.spec.allowed_region"))
        return Resources(gpu, nodes, gpus_per_node, cluster, provider, region)

    def short_name(self, node: YNode | None, allowed: str | Said) -> str | None:
        if node is None or node.value is None:
            return None
        text = self.text(node, allowed, single_line=True).strip()
        if not text or len(text) > 128 or any(c.isspace() for c in text):
            raise self.error(node, said("error.spec.not_name", text=repr(text)), allowed)
        return text

    def image(self, node: YNode | None) -> str | None:
        allowed = said("error.spec.allowed_image")
        if node is None or node.value is None:
            return None
        text = self.text(node, allowed, single_line=True).strip()
        if not text or any(c.isspace() for c in text):
            raise self.error(node, said("error.spec.not_image", text=repr(text)), allowed)
        return text

    def local_path(self, node: YNode | None, check: bool, *, folder: bool) -> str | None:
        if node is None or node.value is None:
            return None
        allowed = said("error.spec.allowed_local_folder")
        if node.is_map:
            raise self.error(
                node,
                said("error.spec.workdir_not_git"),
                allowed,
                hint=said("error.spec.workdir_not_git_hint"),
            )
        text = self.text(node, allowed, single_line=True).strip()
        if not text:
            raise self.error(node, said("error.spec.empty_path"), allowed)
        path = Path(os.path.expanduser(text))
        relative = not path.is_absolute()
        if relative:
            path = (Path.cwd() if self.from_cwd else self.base) / path
        path = Path(os.path.normpath(path))
        if check:
            if not path.exists() and relative and self.from_cwd:
                beside = Path(os.path.normpath(self.base / os.path.expanduser(text)))
                if beside.exists():
                    # SkyPilot would stop here; the file beside the spec is surely meant
                    self.warn(
                        node,
                        said("error.spec.warn_path_beside", path=str(beside), cwd=str(Path.cwd())),
                    )
                    path = beside
                else:
                    raise self.error(
                        node,
                        said("error.spec.path_missing", path=str(path)),
                        allowed,
                        hint=said("error.spec.path_from_cwd", cwd=str(Path.cwd())),
                    )
            if not path.exists():
                raise self.error(node, said("error.spec.path_missing", path=str(path)), allowed)
            if folder and not path.is_dir():
                raise self.error(node, said("error.spec.not_folder", path=str(path)), allowed)
        return str(path)

    def remote_dir(self, node: YNode) -> str:
        allowed = said("error.spec.allowed_remote_dir")
        text = self.text(node, allowed, single_line=True).strip()
        if not text.startswith("/") or PATH_BAD.search(text):
            raise self.error(node, said("error.spec.not_absolute", text=repr(text)), allowed)
        return text.rstrip("/") or "/"

    def env(self, node: YNode | None) -> tuple[dict[str, str], tuple[str, ...]]:
        if node is None or node.value is None:
            return {}, ()
        allowed = said("error.spec.allowed_env")
        if not node.is_map:
            raise self.error(node, said("error.spec.expected_mapping", kind=_kind(node)), allowed)
        env: dict[str, str] = {}
        from_local: list[str] = []
        for key, child in node.items():
            if not ENV_NAME_RE.fullmatch(key):
                raise self.error(
                    child, said("error.spec.not_variable", name=repr(key)), ALLOWED["env"]
                )
            if child.value is None:
                from_local.append(key)
            elif child.is_map or child.is_list:
                raise self.error(
                    child, said("error.spec.expected_value", kind=_kind(child)), allowed
                )
            elif "\x00" in child.text():
                raise self.error(child, said("error.spec.nul"), allowed)
            else:
                env[key] = child.value if isinstance(child.value, str) else child.text()
        return env, tuple(from_local)

    def file_mounts(self, node: YNode | None, check: bool) -> tuple[FileMount, ...]:
        if node is None or node.value is None:
            return ()
        allowed = said("error.spec.allowed_mounts")
        if not node.is_map:
            raise self.error(node, said("error.spec.expected_mapping", kind=_kind(node)), allowed)
        mounts = []
        for target, child in node.items():
            if not (target.startswith("/") or target.startswith("~")) or PATH_BAD.search(target):
                raise self.error(
                    child, said("error.spec.not_node_path", path=repr(target)), allowed
                )
            if child.is_map or (isinstance(child.value, str) and "://" in child.value):
                raise self.error(
                    child,
                    said("error.spec.mount_not_local"),
                    allowed,
                    hint=said("error.spec.mount_not_local_hint"),
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
        except InvalidValue as exc:
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
            max_restarts = self.integer(mr, 0, MAX_RESTARTS, ALLOWED["recovery.max_restarts"])
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
                        raise self.error(
                            item, said("error.spec.unknown_cause", cause=repr(text)), allowed
                        ) from None
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
                    said("error.spec.service_needs_port"),
                    file=self.file,
                    line=(tree.get("kind") or tree).line,
                    field="service",
                    allowed=ALLOWED["service"],
                )
            return None
        if kind is not JobKind.SERVICE:
            raise self.error(
                node, said("error.spec.service_only"), hint=said("error.spec.service_only_hint")
            )
        self.mapping(node, _SERVICE_KEYS, "service")
        port_node = node.get("port")
        if port_node is None or port_node.value is None:
            raise self.error(node, said("error.spec.no_port"), ALLOWED["service.port"])
        port = self.integer(port_node, 1, 65535, ALLOWED["service.port"])
        path = "/"
        path_node = node.get("readiness_path")
        if path_node is not None and path_node.value is not None:
            path = self.text(path_node, ALLOWED["service.readiness_path"], single_line=True)
            path = path.strip()
            if not path.startswith("/") or any(c.isspace() for c in path):
                raise self.error(
                    path_node,
                    said("error.spec.not_http_path", path=repr(path)),
                    ALLOWED["service.readiness_path"],
                )
        timeout = DEFAULT_READINESS_TIMEOUT_S
        t_node = node.get("readiness_timeout")
        if t_node is not None and t_node.value is not None:
            try:
                timeout = parse_duration(t_node.value)
            except InvalidValue as exc:
                raise self.error(
                    t_node, exc.problem_said, ALLOWED["service.readiness_timeout"]
                ) from None
        return ServiceSpec(port, path, timeout)


def _kind(node: YNode) -> str | Said:
    if node.is_map:
        return said("error.spec.kind_mapping")
    if node.is_list:
        return said("error.spec.kind_list")
    if node.value is None:
        return said("error.spec.kind_null")
    if isinstance(node.value, bool):
        return said("error.spec.kind_bool", value=str(node.value).lower())
    return repr(node.text())


def _name_from_file(stem: str) -> str:
    name = re.sub(r"[^A-Za-z0-9._-]+", "-", stem).strip("-._")[:63]
    return name if NAME_RE.fullmatch(name or "") else "job"
