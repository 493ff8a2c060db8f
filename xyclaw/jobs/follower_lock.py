"""One follower per job: an ``flock`` on a small file per job in the data folder.

The job's ``follower`` column says who follows it (for views and for a follower on
another machine); the lock decides. The kernel drops an ``flock`` when its process
ends however it ends (``kill -9`` included), so a follower that dies frees its jobs at
once and the guard adopts them on its next look, without waiting out a lease. The
files are kept apart from the guard's own ``guard.lock`` and ``guard.json``: they only
ever hold a lock, never data.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

FOLDER = "followers"


def lock_path(folder: Path, job_id: int) -> Path:
    return folder / f"job-{job_id}.lock"


class FollowerLock:
    """This process's hold on following one job; ``release`` (or exit) gives it up."""

    def __init__(self, folder: Path, job_id: int) -> None:
        self.path = lock_path(folder, job_id)
        self._fd: int | None = None

    @property
    def held(self) -> bool:
        return self._fd is not None

    def acquire(self) -> bool:
        """Take the lock if no process holds it (never waits)."""
        if self._fd is not None:
            return True
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
                import msvcrt

                msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
            else:
                import fcntl

                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:  # held by another process (or another runner of this one)
            os.close(fd)
            return False
        except BaseException:
            os.close(fd)
            raise
        self._fd = fd
        return True

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


def followed_elsewhere(folder: Path, job_id: int) -> bool:
    """True while some process holds the job's lock (looked at without keeping it)."""
    probe = FollowerLock(folder, job_id)
    if not probe.path.exists():
        return False
    taken = probe.acquire()
    probe.release()
    return not taken
