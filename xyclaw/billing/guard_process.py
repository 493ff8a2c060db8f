"""One guard per data folder: the process that enforces budgets and idle release.

Budgets must hold while no window is open, so whenever a cluster is live some
process holds ``<data>/guard.lock`` and runs the guard: the desktop app while it
is open, ``xyclaw guard`` run by hand or as a user service, or else a background
``xyclaw guard run --background`` that the CLI, the agents or the desktop start
(detached, like the simulated cloud) and that exits by itself once nothing has
been live for a while. The lock is an ``flock`` (the kernel drops it when its
process dies, even by ``kill -9``), so there is never a second guard; a second
one started at the same moment exits at once, saying the other runs.

``<data>/guard.json`` says who holds the lock and what it last did (a
heartbeat written after each check), for ``xyclaw guard status`` and
``xyclaw doctor``. This module imports nothing of the engine, so ``doctor`` and
``guard status`` stay fast.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, replace
from enum import StrEnum
from pathlib import Path
from typing import Any

from xyclaw.errors import UsageError, XyclawError
from xyclaw.files import write_private
from xyclaw.paths import AppPaths
from xyclaw.wording import Said, said
from xyclaw.wording.catalogue import CATALOGUE

LOCK_FILE = "guard.lock"
INFO_FILE = "guard.json"
LAUNCH_LOCK = "guard-launch.lock"
LOG_FILE = "guard.log"
_POLL_S = 0.05
# Children this process started: reaped when looked at, so none lingers as a zombie.
_children: dict[int, subprocess.Popen[bytes]] = {}
_child_folders: dict[int, Path] = {}  # the data folder each child guards


class Holder(StrEnum):
    """Who runs the guard."""

    BACKGROUND = "background"  # started by a command; exits when nothing has been live a while
    DESKTOP = "desktop"  # the desktop app, in its own process, while it is open
    FOREGROUND = "foreground"  # `xyclaw guard` in a terminal or as a user service


@dataclass(frozen=True)
class GuardInfo:
    """What ``guard.json`` says: the holder, and its heartbeat after each check."""

    pid: int
    holder: str
    started_at: float
    last_check_at: float | None = None
    next_check_at: float | None = None
    next_reason: str | None = None
    live_clusters: int | None = None
    next_reason_said: dict[str, Any] | None = None  # next_reason as Said.to_json()

    @classmethod
    def from_json(cls, data: Any) -> GuardInfo | None:
        if not isinstance(data, dict) or not isinstance(data.get("pid"), int):
            return None
        try:
            return cls(
                pid=int(data["pid"]),
                holder=str(data.get("holder", "?")),
                started_at=float(data.get("started_at", 0.0)),
                last_check_at=_float_or_none(data.get("last_check_at")),
                next_check_at=_float_or_none(data.get("next_check_at")),
                next_reason=data.get("next_reason"),
                live_clusters=data.get("live_clusters"),
                next_reason_said=data.get("next_reason_said"),
            )
        except (TypeError, ValueError):
            return None


def _float_or_none(value: Any) -> float | None:
    return None if value is None else float(value)


@dataclass(frozen=True)
class GuardStatus:
    """Whether a guard holds the data folder's lock, and what it says of itself."""

    running: bool
    info: GuardInfo | None
    lock_path: Path
    log_path: Path

    @property
    def pid(self) -> int | None:
        return self.info.pid if self.running and self.info else None

    def describe(self, now: float | None = None) -> str:
        """One line for ``xyclaw guard status``, ``doctor`` and the rent message."""
        return self.describe_said(now).english

    def describe_said(self, now: float | None = None) -> Said:
        """:meth:`describe` as a :class:`Said` (a view words it in its language)."""
        now = time.time() if now is None else now
        if not self.running:
            return said("op.guard.not_running")
        info = self.info
        if info is None:
            return said("op.guard.unnamed")
        holder = f"op.guard.holder.{info.holder}"
        who: Said | str = Said(holder) if holder in CATALOGUE else info.holder
        text = said(
            "op.guard.running_for", holder=who, pid=info.pid, age=_ago(now - info.started_at)
        )
        if info.last_check_at is not None:
            text = said("op.guard.last_check", text=text, age=_ago(now - info.last_check_at))
        if info.next_check_at is not None:
            due = _ago(max(0.0, info.next_check_at - now))
            if info.next_reason:
                reason = Said.from_json(info.next_reason_said) or info.next_reason
                text = said("op.guard.next_why", text=text, due=due, reason=reason)
            else:
                text = said("op.guard.next", text=text, due=due)
        return text

    def to_json(self) -> dict[str, Any]:
        return {
            "running": self.running,
            "info": asdict(self.info) if self.info and self.running else None,
            "lock": str(self.lock_path),
            "log": str(self.log_path),
        }


def _ago(seconds: float) -> Said:
    seconds = max(0.0, seconds)
    if seconds < 90:
        return said("op.duration.s", n=f"{seconds:.0f}")
    if seconds < 5400:
        return said("op.duration.min", n=f"{seconds / 60:.0f}")
    return said("op.duration.h", n=f"{seconds / 3600:.1f}")


class _FileLock:
    """An exclusive lock on a file that the OS drops when its process ends however it ends."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None

    def acquire(self, *, create: bool = True) -> bool:
        """Take the lock if it is free. ``create=False``: a missing file is not created and
        raises FileNotFoundError (nobody can hold a lock on a file that does not exist)."""
        if create:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        else:
            fd = os.open(self.path, os.O_RDWR)
        try:
            if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
                import msvcrt

                msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
            else:
                import fcntl

                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:  # BlockingIOError on POSIX, PermissionError from msvcrt
            os.close(fd)
            return False
        except BaseException:
            os.close(fd)
            raise
        self._fd = fd
        return True

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing drops the lock
            self._fd = None

    @property
    def lost(self) -> bool:
        """Held, but its file is gone or another one stands at its path (the folder was
        deleted, perhaps made again): the lock no longer keeps a second holder out."""
        if self._fd is None:
            return False
        try:
            held, there = os.fstat(self._fd), os.stat(self.path)
        except FileNotFoundError:
            return True
        except OSError:
            return False  # cannot tell: keep going
        return (held.st_dev, held.st_ino) != (there.st_dev, there.st_ino)

    @property
    def held(self) -> bool:
        return self._fd is not None


def _lock_path(paths: AppPaths) -> Path:
    return paths.data_dir / LOCK_FILE


def _info_path(paths: AppPaths) -> Path:
    return paths.data_dir / INFO_FILE


def log_path(paths: AppPaths) -> Path:
    return paths.log_dir / LOG_FILE


def read_info(paths: AppPaths) -> GuardInfo | None:
    try:
        return GuardInfo.from_json(json.loads(_info_path(paths).read_text(encoding="utf-8")))
    except (OSError, ValueError):
        return None


class GuardLock:
    """This process's claim to be the data folder's guard; ``release`` (or exit) gives it up."""

    def __init__(self, paths: AppPaths) -> None:
        self._paths = paths
        self._lock = _FileLock(_lock_path(paths))
        self._info: GuardInfo | None = None

    @property
    def held(self) -> bool:
        return self._lock.held

    @property
    def lost(self) -> bool:
        """The data folder this guard held was deleted: nothing it does can be kept there,
        and its lock no longer keeps a second guard out; it should stop."""
        return self._lock.lost

    @property
    def holder(self) -> str | None:
        """Who this process is the guard as, while it holds the lock."""
        return self._info.holder if self._info is not None and self._lock.held else None

    @property
    def started_at(self) -> float | None:
        """When this process took the lock (it runs the guard from then on)."""
        return self._info.started_at if self._info is not None and self._lock.held else None

    def acquire(self, holder: Holder, *, wait_s: float = 0.5) -> bool:
        """Take the lock, trying for ``wait_s`` (a status check holds it for an instant)."""
        if self._lock.held:
            return True
        deadline = time.monotonic() + wait_s
        while not self._lock.acquire():
            if time.monotonic() >= deadline:
                return False
            time.sleep(_POLL_S)
        self._info = GuardInfo(pid=os.getpid(), holder=str(holder), started_at=time.time())
        self._write()
        return True

    def heartbeat(
        self,
        *,
        next_check_at: float | None,
        next_reason: str | None,
        live_clusters: int,
        next_reason_said: Said | None = None,
    ) -> None:
        """What the guard did and will do next, for ``xyclaw guard status``."""
        if self._info is None or not self._lock.held:
            return
        self._info = replace(
            self._info,
            last_check_at=time.time(),
            next_check_at=next_check_at,
            next_reason=next_reason,
            live_clusters=live_clusters,
            next_reason_said=None if next_reason_said is None else next_reason_said.to_json(),
        )
        self._write()

    def _write(self) -> None:
        assert self._info is not None
        if self._lock.lost:
            return  # never make a deleted data folder again just to say how the guard is
        with contextlib.suppress(OSError):
            write_private(_info_path(self._paths), json.dumps(asdict(self._info)) + "\n")

    def release(self) -> None:
        if not self._lock.held:
            return
        info = read_info(self._paths)
        if info is not None and info.pid == os.getpid():
            with contextlib.suppress(OSError):
                _info_path(self._paths).unlink()
        self._lock.release()
        self._info = None


def guard_status(paths: AppPaths) -> GuardStatus:
    """Whether some process holds the guard lock (the lock decides, not a pid file).

    Only looks: a data folder where no guard ever ran gets no lock file from it (``doctor``
    and ``guard status`` create nothing)."""
    probe = _FileLock(_lock_path(paths))
    try:
        running = not probe.acquire(create=False)
    except FileNotFoundError:
        running = False
    probe.release()
    info = read_info(paths)
    if info is not None and running and not _pid_alive(info.pid):
        info = None  # a guard that has just started and not written its file yet
    return GuardStatus(
        running=running,
        info=info if running else None,
        lock_path=_lock_path(paths),
        log_path=log_path(paths),
    )


def _pid_alive(pid: int) -> bool:
    if pid <= 0:
        return False
    child = _children.get(pid)
    if child is not None:
        return child.poll() is None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat.rpartition(")")[2].split()[:1] != ["Z"]


SERVICE_UNIT = "xyclaw-guard.service"


def service_unit_path(paths: AppPaths, environ: dict[str, str] | None = None) -> Path:
    """Where ``xyclaw guard install`` writes the systemd user unit: the user's systemd folder,
    or under ``XYCLAW_HOME`` when that is set (a test or a portable home never touches the
    real one)."""
    from xyclaw.paths import HOME_ENV

    env = dict(os.environ) if environ is None else environ
    if env.get(HOME_ENV, "").strip():
        return paths.config_dir / "systemd" / "user" / SERVICE_UNIT
    base = env.get("XDG_CONFIG_HOME", "").strip() or str(Path.home() / ".config")
    return Path(base) / "systemd" / "user" / SERVICE_UNIT


def guard_command(*args: str) -> list[str]:
    """How to run ``xyclaw guard ...`` with this Python (also from the frozen app)."""
    return [sys.executable, "-m", "xyclaw.cli.main", "guard", *args]


def start_background(paths: AppPaths, *, wait_s: float = 10.0) -> GuardStatus:
    """The guard of this data folder, started in the background if none runs.

    Returns once a guard holds the lock (``wait_s=0``: does not wait for it).
    """
    paths.ensure()
    launch = _FileLock(paths.data_dir / LAUNCH_LOCK)
    deadline = time.monotonic() + max(wait_s, 1.0)
    while not launch.acquire():  # two commands starting at once start one guard
        if time.monotonic() >= deadline:
            return guard_status(paths)
        time.sleep(_POLL_S)
    try:
        current = guard_status(paths)
        if current.running:
            return current
        log = log_path(paths)
        log.parent.mkdir(parents=True, exist_ok=True)
        extra: dict[str, Any] = {}
        if sys.platform == "win32":  # pragma: no cover - Windows only
            extra["creationflags"] = 0x00000008 | 0x00000200  # DETACHED, NEW_PROCESS_GROUP
        else:
            extra["start_new_session"] = True
        with open(log, "ab") as out:
            child = subprocess.Popen(
                guard_command("run", "--background"),
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                close_fds=True,
                **extra,
            )
        _children[child.pid] = child
        _child_folders[child.pid] = paths.data_dir
        if wait_s <= 0:
            return current
        return _wait_started(paths, child, time.monotonic() + wait_s)
    finally:
        launch.release()


def _wait_started(paths: AppPaths, child: subprocess.Popen[bytes], deadline: float) -> GuardStatus:
    while True:
        status = guard_status(paths)
        if status.running and status.info is not None:
            return status  # the child, or a guard that won a race with it
        code = child.poll()
        if code is not None and not status.running:
            raise XyclawError(
                f"the guard exited at start (status {code})",
                hint=f"see {log_path(paths)}",
            )
        if time.monotonic() >= deadline:
            raise XyclawError(
                "the guard did not start in time",
                hint=f"see {log_path(paths)}; `xyclaw guard status` says whether it runs now",
            )
        time.sleep(_POLL_S)


def stop_guard(paths: AppPaths, timeout_s: float = 30.0) -> GuardInfo | None:
    """Stop the guard of this data folder (SIGTERM, then SIGKILL); returns who it was.

    The desktop app's guard is not stopped from outside: quit the app instead. A guard this
    process started that has not taken the lock yet (``start_background(wait_s=0)``, as
    ``Engine.close`` starts one) is waited for, so it cannot start once this has returned.
    """
    _settle_starting(paths, timeout_s)
    status = guard_status(paths)
    if not status.running:
        return None
    info = status.info
    if info is None:
        raise XyclawError(
            "a guard holds the lock but has not said which process it is",
            hint="try again in a moment",
        )
    if info.holder == Holder.DESKTOP:
        raise UsageError(
            f"the desktop app runs the guard (pid {info.pid})",
            hint="quit XyClaw from its tray menu to stop it",
        )
    if info.pid == os.getpid():
        raise UsageError("this process is the guard", hint="stop it through its engine")
    _signal(info.pid, signal.SIGTERM)
    if not _wait_unlocked(paths, timeout_s):
        _signal(info.pid, getattr(signal, "SIGKILL", signal.SIGTERM))
        _wait_unlocked(paths, 5.0)
    child = _children.pop(info.pid, None)
    _child_folders.pop(info.pid, None)
    if child is not None:
        with contextlib.suppress(subprocess.TimeoutExpired):
            child.wait(timeout=2)
    return info


def _settle_starting(paths: AppPaths, timeout_s: float) -> None:
    """Until each guard this process started for ``paths`` holds the lock or has exited."""
    deadline = time.monotonic() + timeout_s
    for pid, child in list(_children.items()):
        if _child_folders.get(pid) != paths.data_dir:
            continue
        while child.poll() is None:
            info = guard_status(paths).info
            if info is not None and info.pid == pid:
                break  # it holds the lock: stopped below like any guard
            if time.monotonic() >= deadline:
                _signal(pid, signal.SIGTERM)  # still not started: it never guards
                break
            time.sleep(_POLL_S)


def _signal(pid: int, signum: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signum)


def _wait_unlocked(paths: AppPaths, timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while guard_status(paths).running:
        if time.monotonic() >= deadline:
            return False
        time.sleep(_POLL_S)
    return True


__all__ = [
    "GuardInfo",
    "GuardLock",
    "GuardStatus",
    "Holder",
    "guard_command",
    "guard_status",
    "log_path",
    "read_info",
    "service_unit_path",
    "start_background",
    "stop_guard",
]
