"""Start, find and stop the simulated cloud as a background process.

Separate commands and the GUI must see the same cloud, so the first one that
needs it starts ``xyclaw sim serve`` detached (its own session, output to
``<state>/cloud.log``) and every later one finds it through
``<state>/server.json``.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from xyclaw.errors import ProviderError
from xyclaw.sim.cloud import files

HEALTH_TIMEOUT_S = 2.0
_POLL_S = 0.05
_LAUNCH_LOCK = "launch.lock"
# Children this process started: waited for on stop, so they do not linger as zombies.
_children: dict[int, subprocess.Popen[bytes]] = {}


@dataclass(frozen=True)
class SimCloudEndpoint:
    """Where a running cloud answers: ``url`` is the API base (``http://127.0.0.1:P/v1``)."""

    url: str
    token: str
    pid: int


@dataclass(frozen=True)
class SimCloudStatus:
    """What ``xyclaw sim status`` shows."""

    state_dir: Path
    running: bool
    endpoint: SimCloudEndpoint | None = None
    port: int | None = None
    started_at: float | None = None
    version: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "state_dir": str(self.state_dir),
            "running": self.running,
            "url": self.endpoint.url if self.endpoint else None,
            "pid": self.endpoint.pid if self.endpoint else None,
            "port": self.port,
            "started_at": self.started_at,
            "version": self.version,
        }


def pid_alive(pid: int) -> bool:
    """True while the process exists and is not a zombie."""
    if pid <= 0:
        return False
    child = _children.get(pid)
    if child is not None:
        return child.poll() is None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat.rpartition(")")[2].split()[:1] != ["Z"]


def started_here(pid: int) -> bool:
    """Whether this process started the cloud ``pid`` (and it still runs): a desktop that
    started it stops it again when it quits with no simulated cluster left."""
    child = _children.get(pid)
    return child is not None and child.poll() is None


def health(url: str, timeout: float = HEALTH_TIMEOUT_S) -> dict[str, Any] | None:
    """The cloud's /health answer, or None if nothing sane answers there."""
    try:
        with urllib.request.urlopen(f"{url}/health", timeout=timeout) as reply:
            data = json.loads(reply.read())
    except (OSError, ValueError, urllib.error.URLError):
        return None
    return data if isinstance(data, dict) and data.get("ok") is True else None


def _server_info(state_dir: Path) -> dict[str, Any] | None:
    try:
        data = files.read_json(state_dir / files.SERVER_FILE)
    except ProviderError:
        return None
    if not isinstance(data, dict):
        return None
    if not all(isinstance(data.get(k), t) for k, t in (("pid", int), ("url", str), ("token", str))):
        return None
    return data


def status(state_dir: Path) -> SimCloudStatus:
    """Whether a cloud serves ``state_dir``: server.json names a live process that answers."""
    info = _server_info(state_dir)
    if info is None or not pid_alive(info["pid"]):
        return SimCloudStatus(state_dir=state_dir, running=False)
    answer = health(info["url"])
    if answer is None:
        return SimCloudStatus(state_dir=state_dir, running=False)
    return SimCloudStatus(
        state_dir=state_dir,
        running=True,
        endpoint=SimCloudEndpoint(info["url"], info["token"], info["pid"]),
        port=info.get("port"),
        started_at=answer.get("started_at"),
        version=answer.get("version"),
    )


def _serve_command(
    state_dir: Path, port: int, fast: bool, provision_delay_s: float | None
) -> list[str]:
    command = [sys.executable, "-m", "xyclaw.cli.main", "sim", "serve"]
    command += ["--state", str(state_dir)]
    if port:
        command += ["--port", str(port)]  # without it: the last port if free, else any
    if fast:
        command.append("--fast")
    if provision_delay_s is not None:
        command += ["--provision-delay", repr(float(provision_delay_s))]
    return command


def _log_tail(path: Path, lines: int = 15) -> str:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    return "\n".join(text.splitlines()[-lines:])


def ensure_running(
    state_dir: Path,
    *,
    port: int = 0,
    fast: bool = False,
    provision_delay_s: float | None = None,
    timeout_s: float = 20,
) -> SimCloudEndpoint:
    """The cloud serving ``state_dir``, started in the background if none is running.

    A cloud that already runs is reused as it is (its port and delays are kept).
    """
    state_dir = state_dir.expanduser().resolve()
    state_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    lock = files.FolderLock(state_dir / _LAUNCH_LOCK)
    lock.acquire(blocking=True)  # two commands starting at once start one cloud
    try:
        current = status(state_dir)
        if current.running and current.endpoint is not None:
            return current.endpoint
        serving = files.FolderLock(state_dir / files.LOCK_FILE)
        if not serving.acquire(blocking=False):
            return _wait_for_other(state_dir, timeout_s)
        serving.release()
        with contextlib.suppress(OSError):
            (state_dir / files.SERVER_FILE).unlink()
        files.load_or_create_token(state_dir)
        log_path = state_dir / files.LOG_FILE
        with open(log_path, "ab") as log_file:
            child = subprocess.Popen(
                _serve_command(state_dir, port, fast, provision_delay_s),
                stdin=subprocess.DEVNULL,
                stdout=log_file,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                close_fds=True,
            )
        _children[child.pid] = child
        return _wait_started(state_dir, child, log_path, timeout_s)
    finally:
        lock.release()


def _wait_started(
    state_dir: Path, child: subprocess.Popen[bytes], log_path: Path, timeout_s: float
) -> SimCloudEndpoint:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        code = child.poll()
        if code is not None:
            tail = _log_tail(log_path)
            raise ProviderError(
                f"the simulated cloud exited at start (status {code})"
                + (f":\n{tail}" if tail else ""),
                hint=f"see {log_path}",
            )
        info = _server_info(state_dir)
        if info is not None and info["pid"] == child.pid and health(info["url"]) is not None:
            return SimCloudEndpoint(info["url"], info["token"], child.pid)
        time.sleep(_POLL_S)
    _terminate(child.pid, timeout_s=5)
    raise ProviderError(
        f"the simulated cloud did not start within {timeout_s:g} s",
        hint=f"see {log_path}",
    )


def _wait_for_other(state_dir: Path, timeout_s: float) -> SimCloudEndpoint:
    """Another process serves the folder (perhaps still starting): wait until it answers."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        current = status(state_dir)
        if current.running and current.endpoint is not None:
            return current.endpoint
        time.sleep(_POLL_S * 4)
    raise ProviderError(
        f"a simulated cloud holds {state_dir} but does not answer",
        hint="stop it with 'xyclaw sim stop' (or end its process) and try again",
    )


def _terminate(pid: int, timeout_s: float) -> None:
    """SIGTERM, wait, then SIGKILL."""
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGTERM)
    if not _wait_gone(pid, timeout_s):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
        _wait_gone(pid, 5.0)
    child = _children.pop(pid, None)
    if child is not None:
        with contextlib.suppress(subprocess.TimeoutExpired):
            child.wait(timeout=1)


def _wait_gone(pid: int, timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while pid_alive(pid):
        if time.monotonic() >= deadline:
            return False
        time.sleep(_POLL_S)
    return True


def _looks_like_cloud(pid: int) -> bool:
    """Guard against a recycled pid: the process must be an xyclaw sim server."""
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return True  # no /proc here: trust server.json
    return b"xyclaw" in b" ".join(argv) and b"serve" in argv


def stop(state_dir: Path, timeout: float = 10.0) -> bool:
    """Stop the background cloud of ``state_dir``; True if one was running.

    Nodes stop with it; clusters, host keys and the ledger stay in the folder
    (and keep billing) for the next start.
    """
    state_dir = state_dir.expanduser().resolve()
    info = _server_info(state_dir)
    stopped = False
    if info is not None and pid_alive(info["pid"]):
        pid = int(info["pid"])
        if pid == os.getpid():
            raise ProviderError(
                "the simulated cloud of this folder runs inside this process",
                hint="stop it through the object that started it",
            )
        if _looks_like_cloud(pid):
            _terminate(pid, timeout)
            stopped = True
    with contextlib.suppress(OSError):
        (state_dir / files.SERVER_FILE).unlink()
    return stopped
