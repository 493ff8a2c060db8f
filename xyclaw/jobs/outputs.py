"""Copying a job's outputs and checkpoints off its nodes as they appear (issue 32).

A rented host can go at any moment (a spot preemption, a budget or idle release, the
provider's failure) and its disks with it. The :class:`OutputCopier` lists the job's
output paths on the head node (or every node) with ``find -printf``, copies the files
that are new or changed since the last copy to a folder on this machine over SFTP,
and remembers what it copied in a manifest beside them, so a later copy (another
process, after a restart) sends only what changed. A size limit caps the folder; a
file that would pass it is not copied and is counted as such.

Layout: ``<dest>/<absolute path on the node>`` for the head node; with ``nodes: all``,
``<dest>/node-<rank>/<absolute path>``. The newest complete checkpoint copied here is what
a recovery uploads to a replacement that has none (:func:`local_checkpoint`).
"""

from __future__ import annotations

import json
import logging
import os
import re
import shlex
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from xyclaw.errors import RemoteError, XyclawError
from xyclaw.jobs.node_commands import CHECKPOINT_MARKERS
from xyclaw.jobs.nodes import JobNode, NodeShell
from xyclaw.jobs.specmodel import JobSpec
from xyclaw.jobs.specoutputs import effective_paths
from xyclaw.wording import Said, said

log = logging.getLogger(__name__)

MANIFEST = ".xyclaw-copied.json"
_CKPT_RE = re.compile(r"checkpoint-(\d+)")
Report = Callable[[Said | str, float | None], None]


@dataclass(frozen=True)
class RemoteFile:
    node_rank: int
    path: str  # absolute on the node
    size: int
    mtime: float

    @property
    def key(self) -> str:
        return f"{self.node_rank}:{self.path}"


@dataclass
class CopyRound:
    """What one copy did (and did not do)."""

    copied: int = 0
    bytes_copied: int = 0
    over_limit: int = 0  # files not copied: the folder would pass max_size
    over_limit_bytes: int = 0
    failed: list[str] = field(default_factory=list)  # nodes that did not answer
    pending: int = 0  # files still not copied after this round
    pending_bytes: int = 0
    seconds: float = 0.0

    def merge(self, other: CopyRound) -> None:
        self.copied += other.copied
        self.bytes_copied += other.bytes_copied
        self.over_limit = other.over_limit
        self.over_limit_bytes = other.over_limit_bytes
        self.failed = other.failed
        self.pending = other.pending
        self.pending_bytes = other.pending_bytes
        self.seconds += other.seconds


def human_bytes(n: int) -> str:
    size = float(n)
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1000 or unit == "GB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1000
    return f"{size:.1f} TB"  # pragma: no cover - the loop returns


def default_folder(root: Path, job_name: str, job_id: int) -> Path:
    return root / f"{job_name}-{job_id}"


def listing_command(paths: Sequence[str]) -> str:
    """Every file under ``paths`` as ``size mtime path`` lines (GNU find); missing paths
    are not an error (a checkpoint folder appears with the first checkpoint)."""
    words = " ".join(_word(p) for p in paths)
    return f"find {words} -type f -printf '%s %T@ %p\\n' 2>/dev/null; exit 0"


def _word(path: str) -> str:
    if path == "~":
        return '"$HOME"'
    if path.startswith("~/"):
        return '"$HOME"/' + shlex.quote(path[2:])
    return shlex.quote(path)


def parse_listing(text: str, rank: int) -> list[RemoteFile]:
    found = []
    for line in text.splitlines():
        parts = line.split(" ", 2)
        if len(parts) != 3 or not parts[0].isdigit():
            continue
        try:
            mtime = float(parts[1])
        except ValueError:
            continue
        if parts[2].startswith("/"):
            found.append(RemoteFile(rank, parts[2], int(parts[0]), mtime))
    return found


class OutputCopier:
    """Copies one job's outputs from its nodes to ``dest``; safe to call from two threads."""

    def __init__(
        self,
        shell: NodeShell,
        spec: JobSpec,
        dest: Path,
        *,
        report: Report | None = None,
    ) -> None:
        self.shell = shell
        self.spec = spec
        self.dest = dest
        self.paths = effective_paths(spec.outputs, spec.checkpoint_dir)
        outputs = spec.outputs
        self.every_node = outputs.every_node if outputs is not None else False
        self.max_bytes = outputs.max_bytes if outputs is not None else None
        self.every_s = outputs.every_s if outputs is not None else 60
        self.report: Report = report or (lambda message, fraction: None)
        self._lock = threading.Lock()
        self._copied: dict[str, tuple[int, float]] = self._load()
        self.bytes_per_s: float | None = None  # measured by the last copy that sent bytes

    @property
    def wanted(self) -> bool:
        return bool(self.paths)

    # -- the manifest ----------------------------------------------------------------------
    def _load(self) -> dict[str, tuple[int, float]]:
        try:
            data = json.loads((self.dest / MANIFEST).read_text())
        except (OSError, ValueError):
            return {}
        files = data.get("files") if isinstance(data, dict) else None
        if not isinstance(files, dict):
            return {}
        return {
            k: (int(v[0]), float(v[1]))
            for k, v in files.items()
            if isinstance(v, list) and len(v) == 2
        }

    def _save(self) -> None:
        self.dest.mkdir(parents=True, exist_ok=True)
        tmp = self.dest / (MANIFEST + ".tmp")
        tmp.write_text(json.dumps({"files": {k: list(v) for k, v in self._copied.items()}}))
        os.replace(tmp, self.dest / MANIFEST)

    @property
    def copied_bytes(self) -> int:
        return sum(size for size, _ in self._copied.values())

    def local_path(self, f: RemoteFile) -> Path:
        rel = f.path.lstrip("/")
        return self.dest / (f"node-{f.node_rank}/{rel}" if self.every_node else rel)

    # -- the work --------------------------------------------------------------------------
    def nodes_of(self, nodes: Sequence[JobNode]) -> list[JobNode]:
        """Those of ``nodes`` whose outputs are copied: the head node (rank 0), or all."""
        ordered = sorted(nodes, key=lambda n: n.rank)
        return ordered if self.every_node else [n for n in ordered if n.rank == 0]

    def listing(self, nodes: Sequence[JobNode]) -> tuple[list[RemoteFile], list[str]]:
        """The files on the nodes now, and the nodes that did not answer."""
        files: list[RemoteFile] = []
        failed: list[str] = []
        for jn in self.nodes_of(nodes):
            try:
                out = self.shell.run(jn, listing_command(self.paths)).stdout
            except (RemoteError, XyclawError) as exc:
                log.info("outputs of %s: %s does not answer: %s", self.spec.name, jn.name, exc)
                failed.append(jn.name)
                continue
            files.extend(parse_listing(out, jn.rank))
        return files, failed

    def pending(self, files: Sequence[RemoteFile]) -> list[RemoteFile]:
        return [f for f in files if self._copied.get(f.key) != (f.size, f.mtime)]

    def copy(
        self,
        nodes: Sequence[JobNode],
        *,
        deadline: float | None = None,
        report: Report | None = None,
    ) -> CopyRound:
        """Copy what is new or changed (oldest first: a checkpoint's files in the order they
        were written), until ``deadline`` (monotonic) if given; each file reported to
        ``report`` (else the copier's own) with the share of the bytes done."""
        tell = report or self.report
        if not self.wanted:
            return CopyRound()
        with self._lock:
            started = time.monotonic()
            files, failed = self.listing(nodes)
            todo = sorted(self.pending(files), key=lambda f: (f.mtime, f.path))
            by_rank = {jn.rank: jn for jn in nodes}
            result = CopyRound(failed=failed)
            total = sum(f.size for f in todo) or 1
            done_bytes = 0
            have = self.copied_bytes
            left: list[RemoteFile] = []
            for f in todo:
                if deadline is not None and time.monotonic() >= deadline:
                    left.append(f)
                    continue
                previous = self._copied.get(f.key, (0, 0.0))[0]
                if self.max_bytes is not None and have - previous + f.size > self.max_bytes:
                    result.over_limit += 1
                    result.over_limit_bytes += f.size
                    continue
                jn = by_rank.get(f.node_rank)
                if jn is None:
                    left.append(f)
                    continue
                target = self.local_path(f)
                target.parent.mkdir(parents=True, exist_ok=True)
                try:
                    self.shell.download(jn, f.path, target)
                except (RemoteError, XyclawError) as exc:
                    log.info("outputs of %s: %s: %s", self.spec.name, f.path, exc)
                    if jn.name not in result.failed:
                        result.failed.append(jn.name)
                    left.append(f)
                    continue
                self._copied[f.key] = (f.size, f.mtime)
                have += f.size - previous
                result.copied += 1
                result.bytes_copied += f.size
                done_bytes += f.size
                tell(said("job.outputs.copied_file", node=jn.name, file=f.path), done_bytes / total)
            if result.copied:
                self._save()
            result.pending = len(left)
            result.pending_bytes = sum(f.size for f in left)
            result.seconds = time.monotonic() - started
            if result.bytes_copied and result.seconds > 0:
                self.bytes_per_s = result.bytes_copied / result.seconds
            return result


def local_checkpoint(copier: OutputCopier) -> tuple[int, Path] | None:
    """(step, folder) of the newest complete checkpoint copied to this machine (a folder
    ``checkpoint-<N>`` holding a completion marker), None when there is none."""
    ckpt = copier.spec.checkpoint_dir
    if ckpt is None or ckpt not in copier.paths:
        return None
    rel = ckpt.lstrip("/")
    folder = copier.dest / ("node-0/" + rel if copier.every_node else rel)
    if not folder.is_dir():
        return None
    best: tuple[int, Path] | None = None
    for child in folder.iterdir():
        m = _CKPT_RE.fullmatch(child.name)
        if m is None or not child.is_dir():
            continue
        if not any((child / marker).exists() for marker in CHECKPOINT_MARKERS):
            continue
        step = int(m.group(1))
        if best is None or step > best[0]:
            best = (step, child)
    return best


def copier_for(
    shell: NodeShell,
    spec: JobSpec,
    job_name: str,
    job_id: int,
    root: Path | None,
    report: Report | None = None,
) -> OutputCopier | None:
    """The job's copier, or None when it has nothing to copy (no outputs, no checkpoint
    dir) or nowhere to copy it (no folder named and no default folder)."""
    if not effective_paths(spec.outputs, spec.checkpoint_dir):
        return None
    if spec.outputs is not None and spec.outputs.to:
        dest = Path(spec.outputs.to)
    elif root is not None:
        dest = default_folder(root, job_name, job_id)
    else:
        return None
    return OutputCopier(shell, spec, dest, report=report)
