"""Commands prefixed so that the remote process group can be stopped.

OpenSSH runs each command through the user's login shell as the leader of a
new session, so its process group id is the shell's pid. The prefix prints that
id on stderr, then leaves a watcher that stops the whole group when the
channel's stdin closes: when we cancel, and also when the client vanishes
without saying goodbye. The command itself then runs in that same login shell,
exactly as ``ssh host CMD`` would run it. Only POSIX hosts get the prefix (see
:func:`wants_wrapper`); the simulated node stops its own processes when a
channel closes.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping

from xyclaw.errors import UsageError

MARKER = b"XYCLAW-PGID "
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")

# Portable sh (dash's kill takes `-SIG -PGID`, not `--`). The watcher reads a
# copy of stdin kept on fd 3, because sh gives background jobs /dev/null; the
# EXIT trap retires it when the command ends normally, so processes the command
# left running on purpose (nohup ... &) are not touched.
_PREFIX = (
    "exec 3<&0; printf 'XYCLAW-PGID %s\\n' \"$$\" >&2; "
    "( cat <&3 >/dev/null 2>&1; kill -TERM -$$ ) >/dev/null 2>&1 & "
    "_xyclaw_w=$!; exec 3<&-; trap 'kill $_xyclaw_w 2>/dev/null' EXIT\n"
)


def with_env(command: str, env: Mapping[str, str] | None) -> str:
    """Prefix ``export NAME=value;`` lines: sshd drops env requests it was not told to accept."""
    if not env:
        return command
    parts = []
    for name, value in env.items():
        if not _ENV_NAME.match(name):
            raise UsageError(
                f"environment variable name {name!r} is not valid",
                hint="use letters, digits and underscores, not starting with a digit",
            )
        parts.append(f"export {name}={shlex.quote(str(value))}; ")
    return "".join(parts) + command


def wrap(command: str) -> str:
    """The command line that runs ``command`` in a process group we can stop."""
    return _PREFIX + command


def kill_script(pgid: int, grace_s: float) -> str:
    """TERM the group, wait up to ``grace_s`` for it to go, then KILL what is left.

    Members are counted from /proc where there is one, leaving out zombies: a
    container's init may take its time to reap them, and they are gone already.
    """
    steps = max(1, int(grace_s * 10))
    return (
        f"g={pgid}\n"
        "alive() {\n"
        "  if [ -r /proc/self/stat ]; then\n"
        "    for f in /proc/[0-9]*/stat; do\n"
        '      read -r l 2>/dev/null < "$f" || continue\n'
        "      set -- ${l##*) }\n"
        '      [ "$1" != Z ] && [ "$3" = "$g" ] && return 0\n'
        "    done\n"
        "    return 1\n"
        "  fi\n"
        '  kill -0 -"$g" 2>/dev/null\n'
        "}\n"
        'kill -TERM -"$g" 2>/dev/null; n=0\n'
        "while alive; do\n"
        f'  if [ "$n" -ge {steps} ]; then kill -KILL -"$g" 2>/dev/null; break; fi\n'
        "  sleep 0.1; n=$((n+1))\n"
        "done\n"
        "exit 0\n"
    )


def wants_wrapper(remote_version: str) -> bool:
    """Whether the server runs commands through a POSIX shell we can wrap.

    OpenSSH (except on Windows) and Dropbear do; other servers (the simulated
    node, appliances) get the plain command.
    """
    banner = remote_version.lower()
    if "windows" in banner:
        return False
    return "openssh" in banner or "dropbear" in banner


class PgidSniffer:
    """Takes the wrapper's first stderr line out of the stream and keeps the group id."""

    def __init__(self, active: bool) -> None:
        self._pending = bytearray()
        self.done = not active
        self.pgid: int | None = None

    def feed(self, data: bytes) -> bytes:
        """Return the part of ``data`` that belongs to the command's own stderr."""
        if self.done:
            return data
        self._pending += data
        newline = self._pending.find(b"\n")
        if newline < 0:
            if len(self._pending) > 64:  # not our line after all
                return self._flush()
            return b""
        line = bytes(self._pending[:newline])
        rest = bytes(self._pending[newline + 1 :])
        self._pending.clear()
        self.done = True
        if line.startswith(MARKER) and line[len(MARKER) :].isdigit():
            self.pgid = int(line[len(MARKER) :])
            return rest
        return line + b"\n" + rest

    def finish(self) -> bytes:
        """Whatever was held back when the stream ended."""
        return self._flush() if not self.done else b""

    def _flush(self) -> bytes:
        self.done = True
        data = bytes(self._pending)
        self._pending.clear()
        return data
