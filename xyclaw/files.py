"""Writing files that hold secrets or state: whole or not at all, readable only by the user.

Two XyClaw processes may start at once on one data folder (the window and a command typed
beside it, a command and the background guard it starts), so every file they share is
written in one of three ways:

- :func:`write_private`: a rewrite, replaced atomically (temporary file, fsync,
  ``os.replace``): a reader sees the old file or the new one, never half;
- :func:`create_private`: made once (linked into place, which fails if the name exists):
  of two processes making it together, one wins and the other reads the winner's file;
- :func:`locked`: a read-modify-write (config.toml, hosts.toml, known_hosts) under an
  ``flock`` on a ``.lock`` file beside it, so that no change of one process is lost to
  another's. The lock is never taken on a SQLite file (see ``xyclaw.store.database``).
"""

from __future__ import annotations

import contextlib
import errno
import os
import threading
from collections.abc import Iterator
from pathlib import Path


def _temporary(path: Path, text: str, mode: int, errors: str = "strict") -> Path:
    """A new file beside ``path`` holding ``text``, synced to disk, named for this thread."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", errors=errors) as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    return tmp


def _sync_folder(folder: Path) -> None:
    with contextlib.suppress(OSError):
        dir_fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)


def write_private(path: Path, text: str, *, mode: int = 0o600, errors: str = "strict") -> None:
    """Write ``text`` with ``mode`` (0600 unless said) so that readers see the old or the
    new file, never half (``errors``: as for ``str.encode``, e.g. ``surrogateescape`` to
    write back bytes read that way)."""
    tmp = _temporary(path, text, mode, errors)
    try:
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    _sync_folder(path.parent)


def create_private(path: Path, text: str, *, mode: int = 0o600) -> bool:
    """Make ``path`` holding ``text`` only if nothing is there yet; True if this call made
    it. The file appears whole (written and synced aside, then linked into place); where
    another process made it first, its file is left exactly as it is (False)."""
    tmp = _temporary(path, text, mode)
    try:
        try:
            os.link(tmp, path)
        except FileExistsError:
            return False
        except OSError as exc:  # a file system without hard links: exclusive under the lock
            if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EMLINK):
                raise
            with locked(path):
                if path.exists():
                    return False
                os.replace(tmp, path)
    finally:
        with contextlib.suppress(OSError):
            tmp.unlink()
    _sync_folder(path.parent)
    return True


def lock_path(path: Path) -> Path:
    """The sidecar file :func:`locked` takes its lock on."""
    return path.with_name(path.name + ".lock")


@contextlib.contextmanager
def locked(path: Path) -> Iterator[None]:
    """Hold an exclusive lock for changing ``path`` (blocking until other holders finish):
    an ``flock`` on ``<path>.lock``, dropped by the kernel if this process dies. Threads of
    one process exclude each other too (each opens its own descriptor).

    The lock file exists only while it is held, so a change that is refused (bad input)
    leaves the folder exactly as it was: the holder removes it before letting go, and a
    waiter that then gets the lock on the removed file sees that its file is no longer
    the one at the path and tries again (so two never hold it at once)."""
    target = lock_path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    if os.name != "posix":  # pragma: no cover - no flock: one writer at a time is assumed
        yield
        return
    import fcntl

    while True:
        fd = os.open(target, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            held, there = os.fstat(fd), os.stat(target)
        except FileNotFoundError:  # removed by the holder before us: try again
            os.close(fd)
            continue
        except BaseException:
            os.close(fd)
            raise
        if (held.st_dev, held.st_ino) == (there.st_dev, there.st_ino):
            break
        os.close(fd)
    try:
        yield
    finally:
        with contextlib.suppress(OSError):
            target.unlink()  # while still held: see above
        os.close(fd)  # closing drops the flock
