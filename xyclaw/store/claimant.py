"""Which process holds a claim (a tool call set 'running'), and whether it is still there.

A process is told by its pid together with the host, the host's boot id and the process's
start time (in clock ticks since boot, from ``/proc``): a pid reused after a reboot, or by a
later process, is not the claimant. Where that cannot be read (not Linux), the pid alone
decides, and a claimant of another host is never judged gone from here.
"""

from __future__ import annotations

import os
import socket
import sys
from pathlib import Path

_BOOT_ID = Path("/proc/sys/kernel/random/boot_id")


def _boot_id() -> str:
    try:
        return _BOOT_ID.read_text().strip()
    except OSError:
        return ""


def _stat(pid: int) -> list[str] | None:
    """The fields of ``/proc/<pid>/stat`` after the command's name (state first)."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text.rpartition(")")[2].split()


def _start_ticks(pid: int) -> str:
    fields = _stat(pid)
    return fields[19] if fields is not None and len(fields) > 19 else ""


def this_process() -> tuple[int, str]:
    """(pid, identity) of the calling process, as a claim records them."""
    pid = os.getpid()
    return pid, "|".join((socket.gethostname(), _boot_id(), _start_ticks(pid)))


def claimant_gone(pid: int | None, identity: str | None) -> bool:
    """Whether the process that recorded (``pid``, ``identity``) has certainly ended: False
    whenever that cannot be told (no record, another host, an unreadable identity)."""
    if not pid or not identity or identity.count("|") != 2:
        return False
    host, boot, start = identity.split("|")
    if host != socket.gethostname():
        return False
    now_boot = _boot_id()
    if boot and now_boot and boot != now_boot:
        return True  # the machine restarted since
    if sys.platform == "win32":  # pragma: no cover - os.kill(pid, 0) would end it there
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:  # another user's process holds the pid: compare its start below
        pass
    fields = _stat(pid)
    if fields is None:
        return False
    if fields[:1] in (["Z"], ["X"]):
        return True  # ended, not yet reaped by its parent
    return bool(start) and len(fields) > 19 and fields[19] != start
