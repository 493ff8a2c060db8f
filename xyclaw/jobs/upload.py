"""Uploading a job's workdir and file mounts to a node over SFTP, only what changed.

After an upload the node keeps a manifest (size and SHA-256 of every file) beside the
job's files; the next upload of the same folder reads it and sends only the files whose
size or hash differ. Caches, version-control folders and the virtualenvs people keep in
their project are never sent.
"""

from __future__ import annotations

import hashlib
import os
import shlex
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from xyclaw.errors import UsageError
from xyclaw.jobs.nodes import JobNode, NodeShell
from xyclaw.wording import Said, said

SKIPPED = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        "__pycache__",
        ".venv",
        ".mypy_cache",
        ".ruff_cache",
        ".pytest_cache",
        ".ipynb_checkpoints",
        ".DS_Store",
    }
)
MAX_FILES = 20_000
Report = Callable[[Said | str, float | None], None]


@dataclass(frozen=True)
class LocalFile:
    relative: str
    path: Path
    size: int
    sha256: str


@dataclass
class UploadStats:
    files: int = 0  # files in the folder
    sent: int = 0  # files sent (changed or new)
    bytes_sent: int = 0


def _hash(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def local_files(source: Path) -> list[LocalFile]:
    """The files to upload from a folder (or one file), with their hashes."""
    if source.is_file():
        return [LocalFile(source.name, source, source.stat().st_size, _hash(source))]
    if not source.is_dir():
        raise UsageError(f"{source} does not exist", hint="fix the workdir or file_mounts path")
    found: list[LocalFile] = []
    for root, dirs, files in os.walk(source):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED)
        for name in sorted(files):
            if name in SKIPPED or name.endswith(".pyc"):
                continue
            path = Path(root) / name
            if not path.is_file():
                continue
            found.append(
                LocalFile(
                    path.relative_to(source).as_posix(), path, path.stat().st_size, _hash(path)
                )
            )
            if len(found) > MAX_FILES:
                raise UsageError(
                    f"{source} holds more than {MAX_FILES} files",
                    hint="point workdir at the code only; put data on the cluster's volume",
                )
    return found


def manifest_text(files: list[LocalFile]) -> str:
    return "".join(f"{f.sha256} {f.size} {f.relative}\n" for f in files)


def parse_manifest(text: str) -> dict[str, tuple[str, int]]:
    out: dict[str, tuple[str, int]] = {}
    for line in text.splitlines():
        parts = line.split(" ", 2)
        if len(parts) == 3 and len(parts[0]) == 64 and parts[1].isdigit():
            out[parts[2]] = (parts[0], int(parts[1]))
    return out


def manifest_path(remote: str, folder: str = "~/.xyclaw/manifests") -> str:
    """Where the node keeps the manifest of what was uploaded to ``remote``."""
    key = hashlib.sha256(remote.encode()).hexdigest()[:16]
    return f"{folder.rstrip('/')}/{key}.txt"


def _word(path: str) -> str:
    if path.startswith("~/"):
        return '"$HOME"/' + shlex.quote(path[2:])
    return shlex.quote(path)


def sync(
    shell: NodeShell,
    jn: JobNode,
    source: Path,
    remote: str,
    files: list[LocalFile],
    report: Report | None = None,
    manifests: str = "~/.xyclaw/manifests",
) -> UploadStats:
    """Make ``remote`` on the node hold ``files`` of ``source`` (a folder, or one file when
    ``source`` is a file and ``remote`` its path), sending only what changed."""
    single = source.is_file()
    manifest = manifest_path(remote, manifests)
    seen = shell.run(jn, f"cat {_word(manifest)} 2>/dev/null; exit 0")
    have = parse_manifest(seen.stdout)
    changed = [f for f in files if have.get(f.relative) != (f.sha256, f.size)]
    stats = UploadStats(files=len(files))
    targets = {
        f.relative: (remote if single else f"{remote.rstrip('/')}/{f.relative}") for f in changed
    }
    folders = sorted({t.rsplit("/", 1)[0] for t in targets.values() if "/" in t})
    folders.append(manifest.rsplit("/", 1)[0])
    if not single:
        folders.append(remote)
    shell.run(jn, "mkdir -p " + " ".join(_word(d) for d in folders if d)).check()
    total = sum(f.size for f in changed) or 1
    done = 0
    for f in changed:
        shell.upload(jn, f.path, targets[f.relative])
        done += f.size
        stats.sent += 1
        stats.bytes_sent += f.size
        if report is not None:
            report(said("job.uploaded", node=jn.name, file=f.relative), done / total)
    if changed or set(have) != {f.relative for f in files}:
        with tempfile.NamedTemporaryFile("w", delete=False, suffix=".manifest") as tmp:
            tmp.write(manifest_text(files))
        try:
            shell.upload(jn, Path(tmp.name), manifest)
        finally:
            os.unlink(tmp.name)
    return stats
