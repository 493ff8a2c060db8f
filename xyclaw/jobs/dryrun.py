"""What a launch would do, found without doing it: ``xyclaw launch --dry-run``.

The spec is read exactly as a launch reads it (the same loader, the catalog's GPU
names, the cluster's nodes); then the nodes, GPUs, environment, uploads and the
command each node would run are worked out by the same functions a launch uses
(:func:`~xyclaw.jobs.environment.node_environment`,
:func:`~xyclaw.jobs.skypilot.node_command`, :func:`~xyclaw.jobs.upload.local_files`).
Nothing is rented, sent or run. A spec the loader refuses is a refusal with its line,
not an exception, so a caller can go through many files.
"""

from __future__ import annotations

import os
import time
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from xyclaw.catalog.names import normalise_gpu_name
from xyclaw.errors import XyclawError
from xyclaw.jobs.environment import launch_additions, launch_sends, node_environment
from xyclaw.jobs.launch import workdir_on_node
from xyclaw.jobs.options import JobOptions
from xyclaw.jobs.skypilot import launching_user, node_command
from xyclaw.jobs.spec import JobSpec, LoadedSpec, load_pipeline, render_run
from xyclaw.jobs.specyaml import SpecError
from xyclaw.jobs.upload import local_files
from xyclaw.records import ClusterRecord
from xyclaw.wording import Said, said

# variables whose value comes from this machine at launch: shown by name, never by value
HIDDEN = "(from this machine's environment at launch)"


def _hidden(language: str) -> str:
    """:data:`HIDDEN` in ``language``."""
    return HIDDEN if language == "en" else said("job.dry.hidden").in_language(language)


@dataclass(frozen=True)
class Note:
    """A warning or a refusal, with the line of the spec it is about."""

    message: str
    line: int | None = None
    field: str | None = None
    hint: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"message": self.message, "line": self.line, "field": self.field, "hint": self.hint}


@dataclass(frozen=True)
class Upload:
    """One local folder or file sent to every node."""

    source: str
    target: str
    files: int
    bytes: int

    def to_json(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "target": self.target,
            "files": self.files,
            "bytes": self.bytes,
        }


@dataclass
class DryRun:
    """What launching ``file`` would do (``accepted``), or why it is refused."""

    file: str
    accepted: bool
    refusal: Note | None = None
    source_format: str | None = None
    name: str | None = None
    where: str | None = None  # the cluster's name, or None: a cluster would be rented
    nodes: int = 0
    gpu: str | None = None
    gpus_per_node: int | None = None
    environment: dict[str, str] = field(default_factory=dict)  # node rank 0's
    uploads: list[Upload] = field(default_factory=list)
    setup: str | None = None  # the command each node runs for setup, as sent
    run: str | None = None  # the command each node runs, as sent
    warnings: list[Note] = field(default_factory=list)
    additions: list[str] = field(default_factory=list)  # what XyClaw adds (issue 34)
    sends: list[str] = field(default_factory=list)  # the secrets apart (issue 31)
    quote: dict[str, Any] | None = None
    quote_text: str | None = None
    quote_problem: str | None = None
    tasks: list[DryRun] = field(default_factory=list)  # a pipeline's, in order
    loaded: LoadedSpec | None = field(default=None, repr=False)  # what a launch gets

    def to_json(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "accepted": self.accepted,
            "refusal": self.refusal.to_json() if self.refusal else None,
            "format": self.source_format,
            "name": self.name,
            "cluster": self.where,
            "nodes": self.nodes,
            "gpu": self.gpu,
            "gpus_per_node": self.gpus_per_node,
            "environment": self.environment,
            "uploads": [u.to_json() for u in self.uploads],
            "setup": self.setup,
            "run": self.run,
            "warnings": [w.to_json() for w in self.warnings],
            "additions": self.additions,
            "sends": self.sends,
            "quote": self.quote,
            "quote_text": self.quote_text,
            "quote_problem": self.quote_problem,
            "tasks": [t.to_json() for t in self.tasks],
        }


def dry_run(
    path: str | os.PathLike[str],
    *,
    known_gpus: Collection[str],
    cluster: ClusterRecord | None = None,
    options: JobOptions | None = None,
    environ: Mapping[str, str] | None = None,
    language: str = "en",
    now: float | None = None,
) -> DryRun:
    """Read the spec at ``path`` as a launch on ``cluster`` (None: the spec's own, or one it
    rents) would, and say what would run where. The quote is left to the caller."""
    options = options or JobOptions()
    environ = os.environ if environ is None else environ
    file = str(path)
    try:
        tasks = load_pipeline(path, known_gpus=known_gpus, on_cluster=cluster is not None)
    except SpecError as exc:
        return DryRun(file, False, refusal=_note_of_error(exc, language))
    except XyclawError as exc:
        message, hint = exc.in_language(language)
        return DryRun(file, False, refusal=Note(message, hint=hint))
    runs = [_accepted(file, t, cluster, options, environ, language, now) for t in tasks]
    if len(runs) == 1:
        return runs[0]
    # a pipeline: its tasks run in order, each on the cluster it asks for
    return DryRun(file, True, source_format="skypilot", name=Path(file).stem, tasks=runs)


def gpu_differs(spec: JobSpec, cluster: ClusterRecord) -> Said | None:
    """The warning for a task whose GPU model is not the cluster's (it runs there on the
    cluster's), or None. Said before a launch as well as in the dry run: the speed, memory
    and price the user planned on are another GPU's."""
    gpu = spec.resources.gpu
    if gpu is None or normalise_gpu_name(cluster.gpu) == gpu:
        return None
    return said("job.gpu_differs", gpu=gpu, cluster=cluster.name, has=cluster.gpu)


def _note_of_error(exc: SpecError, language: str) -> Note:
    """The problem alone (the file, line and field are the Note's own), and the hint."""
    problem = exc.problem_said
    message = problem.in_language(language) if isinstance(problem, Said) else str(problem)
    _, hint = exc.in_language(language)
    return Note(message, exc.line, exc.field, hint)


def _accepted(
    file: str,
    loaded: LoadedSpec,
    cluster: ClusterRecord | None,
    options: JobOptions,
    environ: Mapping[str, str],
    language: str,
    now: float | None,
) -> DryRun:
    spec = loaded.spec
    out = DryRun(file, True, source_format=loaded.source_format, name=spec.name, loaded=loaded)
    out.warnings = [
        Note(w.said.in_language(language) if w.said else w.message, w.line, w.field)
        for w in loaded.warnings
    ]
    out.additions = [a.in_language(language) for a in launch_additions(spec)]
    out.sends = [a.in_language(language) for a in launch_sends(spec)]
    res = spec.resources
    ips: list[str]
    if cluster is not None:
        running = sorted(cluster.running_nodes, key=lambda n: n.rank)
        out.where = cluster.name
        out.nodes = spec.nodes_on(len(running))
        out.gpu = res.gpu or cluster.gpu
        out.gpus_per_node = res.gpus_per_node or cluster.gpus_per_node
        ips = [
            n.private_ip or n.ssh_host or n.hostname or f"<node {n.rank}>"
            for n in running[: out.nodes]
        ]
        differs = gpu_differs(spec, cluster)
        if differs is not None:
            out.warnings.append(
                Note(
                    differs.in_language(language),
                    None,
                    "resources.accelerators" if spec.skypilot else "resources.gpu",
                )
            )
        if len(running) < out.nodes:
            out.warnings.append(
                Note(
                    said(
                        "job.dry.short_of_nodes",
                        cluster=cluster.name,
                        running=len(running),
                        nodes=out.nodes,
                    ).in_language(language),
                    None,
                    "num_nodes" if spec.skypilot else "resources.nodes",
                )
            )
    else:
        ips = []
        out.where = res.cluster
        out.nodes = res.nodes
        out.gpu = res.gpu
        out.gpus_per_node = res.gpus_per_node or ((8 if res.nodes > 1 else 1) if res.gpu else None)
    ips += [f"<node {i}>" for i in range(len(ips), out.nodes)]
    missing = [name for name in spec.env_from_local if name not in environ]
    if missing:
        out.warnings.append(
            Note(
                said("job.dry.env_missing", names=", ".join(missing)).in_language(language),
                None,
                "envs",
            )
        )
    env = node_environment(
        spec,
        job_id=0,
        attempt=1,
        node_rank=0,
        node_ips=ips or ["<node 0>"],
        gpus_per_node=out.gpus_per_node or 0,
        master_port=options.master_port,
        nccl={},
        local={name: _hidden(language) for name in spec.env_from_local},
        latest_checkpoint=None,
        created_at=time.time() if now is None else now,
        cluster=out.where or "<new cluster>",
        provider=(cluster.provider_id if cluster else res.provider) or "",
        region=cluster.region if cluster else res.region,
        user=launching_user(),
    )
    out.environment = env
    out.uploads = _uploads(spec, options, out.warnings, language)
    out.setup = node_command(spec, spec.setup) if spec.setup else None
    out.run = node_command(spec, render_run(spec, None))
    return out


def _uploads(
    spec: JobSpec, options: JobOptions, warnings: list[Note], language: str = "en"
) -> list[Upload]:
    items: list[tuple[Path, str]] = []
    if spec.workdir is not None:
        items.append((Path(spec.workdir), workdir_on_node(spec, options)))
    for mount in spec.file_mounts:
        items.append((Path(mount.source), mount.target))
    found = []
    for source, target in items:
        try:
            files = local_files(source)
        except XyclawError as exc:
            message, hint = exc.in_language(language)  # as str(exc) is, in the language
            warnings.append(
                Note(message if hint is None else f"{message}\n  -> {hint}", None, "workdir")
            )
            continue
        found.append(Upload(str(source), target, len(files), sum(f.size for f in files)))
    return found
