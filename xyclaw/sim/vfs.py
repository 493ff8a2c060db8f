"""The file system a simulated node shows: a real folder, a shared mount, and live /proc and /sys.

Paths inside the node are POSIX paths (`/root/train.py`); they map onto
the node's own folder, except the shared volume (a folder every node of a
cluster sees) and the kernel's files, which are generated when read.
"""

from __future__ import annotations

import io
import posixpath
import shutil
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import BinaryIO

VirtualReader = Callable[[], str]

_KERNEL_PREFIXES = ("/proc", "/sys", "/dev")


class FsError(Exception):
    """A file operation failed; the text is what coreutils would say after the path."""


class NodeFS:
    """One node's view of files: `root` is its `/`; `mounts` overlay other folders."""

    def __init__(self, root: Path, mounts: Mapping[str, Path] | None = None) -> None:
        self.root = root
        self.mounts = dict(sorted((mounts or {}).items(), key=lambda kv: -len(kv[0])))
        self._virtual: dict[str, VirtualReader] = {}
        self._virtual_dirs: set[str] = {"/", "/proc", "/sys", "/dev"}

    # -- virtual files -------------------------------------------------------------------------

    def add_virtual(self, path: str, reader: VirtualReader) -> None:
        """Register a generated file (e.g. /proc/net/dev) and its parent folders."""
        self._virtual[path] = reader
        parent = posixpath.dirname(path)
        while parent not in self._virtual_dirs:
            self._virtual_dirs.add(parent)
            parent = posixpath.dirname(parent)

    def add_virtual_text(self, path: str, text: str) -> None:
        self.add_virtual(path, lambda: text)

    # -- paths ---------------------------------------------------------------------------------

    @staticmethod
    def norm(path: str, cwd: str = "/") -> str:
        joined = path if path.startswith("/") else posixpath.join(cwd, path)
        normed = posixpath.normpath(joined)
        if normed.startswith("//"):
            normed = "/" + normed.lstrip("/")
        return normed

    def real(self, vpath: str) -> Path | None:
        """The host path behind a node path; None for kernel files that exist only in memory."""
        for mount, target in self.mounts.items():
            if vpath == mount or vpath.startswith(mount + "/"):
                rest = vpath[len(mount) :].lstrip("/")
                return target / rest if rest else target
        if vpath.startswith(_KERNEL_PREFIXES) and self._is_kernel_path(vpath):
            return None
        return self.root / vpath.lstrip("/") if vpath != "/" else self.root

    @staticmethod
    def _is_kernel_path(vpath: str) -> bool:
        return any(vpath == p or vpath.startswith(p + "/") for p in _KERNEL_PREFIXES)

    # -- queries -------------------------------------------------------------------------------

    def exists(self, vpath: str) -> bool:
        return self.is_dir(vpath) or self.is_file(vpath)

    def is_dir(self, vpath: str) -> bool:
        if vpath in self._virtual_dirs and self.real(vpath) is None:
            return True
        real = self.real(vpath)
        if real is None:
            return vpath in self._virtual_dirs
        return real.is_dir() or vpath in self._virtual_dirs

    def is_file(self, vpath: str) -> bool:
        if vpath in self._virtual or vpath == "/dev/null":
            return True
        real = self.real(vpath)
        return real is not None and real.is_file()

    def size(self, vpath: str) -> int:
        real = self.real(vpath)
        if real is not None and real.exists():
            return real.stat().st_size
        return 0 if vpath in self._virtual else -1

    def mtime(self, vpath: str) -> float:
        real = self.real(vpath)
        if real is not None and real.exists():
            return real.stat().st_mtime
        return 0.0

    def listdir(self, vpath: str) -> list[str]:
        if not self.is_dir(vpath):
            if self.is_file(vpath):
                raise FsError("Not a directory")
            raise FsError("No such file or directory")
        names: set[str] = set()
        real = self.real(vpath)
        if real is not None and real.is_dir():
            names.update(p.name for p in real.iterdir())
        prefix = vpath.rstrip("/") + "/"
        for candidate in list(self._virtual) + list(self._virtual_dirs):
            if candidate.startswith(prefix) and candidate != vpath:
                names.add(candidate[len(prefix) :].split("/", 1)[0])
        for mount in self.mounts:
            if mount.startswith(prefix):
                names.add(mount[len(prefix) :].split("/", 1)[0])
        return sorted(names)

    # -- content -------------------------------------------------------------------------------

    def read_bytes(self, vpath: str) -> bytes:
        reader = self._virtual.get(vpath)
        if reader is not None:
            return reader().encode()
        if vpath == "/dev/null":
            return b""
        if self.is_dir(vpath):
            raise FsError("Is a directory")
        real = self.real(vpath)
        if real is None or not real.is_file():
            raise FsError("No such file or directory")
        try:
            return real.read_bytes()
        except OSError as exc:
            raise FsError(exc.strerror or "Input/output error") from exc

    def open_bytes(self, vpath: str) -> BinaryIO:
        """A file opened for reading (generated files as a snapshot); the caller closes it."""
        reader = self._virtual.get(vpath)
        if reader is not None:
            return io.BytesIO(reader().encode())
        if vpath == "/dev/null":
            return io.BytesIO(b"")
        if self.is_dir(vpath):
            raise FsError("Is a directory")
        real = self.real(vpath)
        if real is None or not real.is_file():
            raise FsError("No such file or directory")
        try:
            return real.open("rb")
        except OSError as exc:
            raise FsError(exc.strerror or "Input/output error") from exc

    def read_range(self, vpath: str, start: int, length: int) -> bytes:
        """Up to `length` bytes from byte `start` (a growing log read without reading it all)."""
        with self.open_bytes(vpath) as handle:
            handle.seek(start)
            return handle.read(length)

    def read_text(self, vpath: str) -> str:
        return self.read_bytes(vpath).decode("utf-8", errors="replace")

    def write_bytes(self, vpath: str, data: bytes, *, append: bool = False) -> None:
        if vpath == "/dev/null":
            return
        if vpath in self._virtual:
            raise FsError("Permission denied")
        real = self.real(vpath)
        if real is None:
            raise FsError("Permission denied")
        if real.is_dir():
            raise FsError("Is a directory")
        if not real.parent.is_dir():
            raise FsError("No such file or directory")
        try:
            with real.open("ab" if append else "wb") as handle:
                handle.write(data)
        except OSError as exc:
            raise FsError(exc.strerror or "Input/output error") from exc

    def mkdir(self, vpath: str, *, parents: bool = False) -> None:
        real = self.real(vpath)
        if real is None:
            raise FsError("Permission denied")
        if real.exists():
            if parents and real.is_dir():
                return
            raise FsError("File exists")
        if not parents and not real.parent.is_dir():
            raise FsError("No such file or directory")
        try:
            real.mkdir(parents=parents, exist_ok=parents)
        except OSError as exc:
            raise FsError(exc.strerror or "Input/output error") from exc

    def remove(self, vpath: str, *, recursive: bool = False) -> None:
        if vpath == "/" or vpath in self.mounts:
            raise FsError("Device or resource busy")
        real = self.real(vpath)
        if real is None:
            raise FsError("Operation not permitted")
        if not real.exists() and not real.is_symlink():
            raise FsError("No such file or directory")
        if real.is_dir() and not real.is_symlink():
            if not recursive:
                raise FsError("Is a directory")
            shutil.rmtree(real, ignore_errors=True)
        else:
            real.unlink()

    def rmdir(self, vpath: str) -> None:
        real = self.real(vpath)
        if real is None or not real.is_dir():
            raise FsError("No such file or directory")
        try:
            real.rmdir()
        except OSError as exc:
            raise FsError(exc.strerror or "Directory not empty") from exc

    def rename(self, src: str, dst: str) -> None:
        real_src, real_dst = self.real(src), self.real(dst)
        if real_src is None or real_dst is None:
            raise FsError("Operation not permitted")
        if not real_src.exists():
            raise FsError("No such file or directory")
        if real_dst.is_dir():
            real_dst = real_dst / real_src.name
        try:
            shutil.move(str(real_src), str(real_dst))
        except OSError as exc:
            raise FsError(exc.strerror or "Input/output error") from exc

    def copy(self, src: str, dst: str, *, recursive: bool = False) -> None:
        real_dst = self.real(dst)
        if real_dst is None:
            raise FsError("Permission denied")
        if self.is_dir(src):
            if not recursive:
                raise FsError("-r not specified; omitting directory")
            real_src = self.real(src)
            if real_src is None:
                raise FsError("Permission denied")
            target = real_dst / real_src.name if real_dst.is_dir() else real_dst
            shutil.copytree(real_src, target, dirs_exist_ok=True)
            return
        data = self.read_bytes(src)
        if real_dst.is_dir():
            real_dst = real_dst / posixpath.basename(src)
        real_dst.write_bytes(data)

    def disk_usage(self, vpath: str) -> int:
        """Bytes held under a folder (what `du -s -B1` would add up)."""
        real = self.real(vpath)
        if real is None or not real.exists():
            return 0
        if real.is_file():
            return real.stat().st_size
        total = 0
        for item in real.rglob("*"):
            try:
                if item.is_file():
                    total += item.stat().st_size
            except OSError:
                continue
        return total
