"""The shell command lines XyClaw sends to a node to run one part of a job.

Pure string building, no SSH: the job runtime sends these through the SSH
pool, and a test runs the same strings through real bash and through the
simulated node's shell and compares what they print (tests/jobs_node).

On the node, everything about one process of a job lives under
``~/.xyclaw/jobs/<job>/<attempt>/`` with a stem per process (``rank<r>`` for
the run command of node rank ``r``, ``setup<r>`` for its setup):

``<stem>.log``
    stdout and stderr, appended; it only grows, so a byte offset into it
    stays valid across reconnects and app restarts.
``<stem>.pid``
    ``<pgid> <started epoch>``, written by the process group's leader itself
    before the command starts.
``<stem>.exit``
    ``<exit code> <ended epoch>``, written (atomically, through a rename)
    when the command ends, so the code can be read after the SSH connection
    dropped or the app restarted: the job's true end, even when nothing
    watched it (the epoch has ``date +%s.%N``'s nanoseconds where the node's
    ``date`` has them). A command ended by SIGKILL leaves none.
``<stem>.cancel``
    the epoch at which XyClaw asked it to stop.

Every command prints one machine-readable line (``key=value`` words) that
:mod:`xyclaw.jobs.node_status` parses; the shell used is POSIX ``sh`` (dash
on Debian and Ubuntu), with the user's own command run by ``bash -c``.

Checkpoint rule (:func:`latest_checkpoint`): a checkpoint is a folder
``checkpoint-<N>`` (decimal ``N``, the step) directly in the checkpoint
folder. It is complete when it holds a completion marker
(:data:`CHECKPOINT_MARKERS`: ``trainer_state.json``, which the Hugging Face
Trainer writes after the weights and optimizer state; ``.metadata``, which
``torch.distributed.checkpoint`` writes last; or an empty ``COMPLETE`` a
custom script touches when it is done), or when a folder with a higher step
exists (the trainer moved on, so it finished that one). The newest complete
checkpoint is the complete one with the highest step; the highest folder
without a marker may still be being written and is never chosen.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from xyclaw.errors import UsageError
from xyclaw.wording import said

DEFAULT_BASE = "~/.xyclaw/jobs"
"""Where the job folders live on a node (``~`` is the login user's home)."""

READ_LIMIT = 1024 * 1024
"""Most bytes of log one :func:`read_log` call returns."""

CHECKPOINT_MARKERS = ("trainer_state.json", ".metadata", "COMPLETE")
"""Files whose presence makes a ``checkpoint-<N>`` folder complete."""

_JOB_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}\Z")
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_PID_WAIT_STEPS = 500  # x 0.02 s: how long launch waits for the pid file

TaskKind = Literal["run", "setup"]

# The process group leader (setsid made it one): record the group id, keep
# running when the group is sent TERM/INT/HUP (a trap with a handler, not
# ignoring them, so the command itself still gets the default action), run the
# command in its working folder, then record its exit status. $1 is the path
# stem, $2 the working folder, $3 the command.
_WRAPPER = (
    "p=$1; w=$2; c=$3\n"
    'echo "$$ $(date +%s)" > "$p.pid.tmp" && mv -f "$p.pid.tmp" "$p.pid"\n'
    "trap 'xyclaw_signal=1' TERM INT HUP\n"
    'if [ -d "$w" ]; then cd "$w" && bash -c "$c"; rc=$?\n'
    'else echo "xyclaw: working directory $w does not exist" >&2; rc=1; fi\n'
    'echo "$rc $(date +%s.%N)" > "$p.exit.tmp" && mv -f "$p.exit.tmp" "$p.exit"\n'
)


@dataclass(frozen=True)
class NodeTask:
    """One process of a job on one node: the run command or the setup of node rank ``rank``."""

    job_id: str
    attempt: int
    rank: int
    kind: TaskKind = "run"
    base: str = DEFAULT_BASE

    def __post_init__(self) -> None:
        if not _JOB_ID.match(self.job_id):
            raise UsageError(
                said("error.node.job_id", job=repr(self.job_id)),
                hint=said("error.node.job_id_hint"),
            )
        if self.attempt < 1:
            raise UsageError(
                said("error.node.attempt", attempt=self.attempt),
                hint=said("error.node.attempt_hint"),
            )
        if self.rank < 0:
            raise UsageError(
                said("error.node.rank", rank=self.rank), hint=said("error.node.rank_hint")
            )
        if self.kind not in ("run", "setup"):
            raise UsageError(
                said("error.node.kind", kind=repr(self.kind)), hint=said("error.node.kind_hint")
            )
        if not (self.base.startswith("/") or self.base == "~" or self.base.startswith("~/")):
            raise UsageError(
                said("error.node.base", base=repr(self.base)), hint=said("error.node.base_hint")
            )

    @property
    def stem(self) -> str:
        """``rank3`` or ``setup3``: the name of this process's files."""
        return f"{'rank' if self.kind == 'run' else 'setup'}{self.rank}"

    @property
    def folder(self) -> str:
        """The attempt's folder as a path relative to the login home (``~/...``) or absolute."""
        return f"{self.base.rstrip('/')}/{self.job_id}/{self.attempt}"

    def path(self, suffix: str, home: str | None = None) -> str:
        """A file of this process (``.log``, ``.pid``...); ``~`` replaced by ``home`` if given."""
        path = f"{self.folder}/{self.stem}{suffix}"
        if home is not None and (path == "~" or path.startswith("~/")):
            path = home.rstrip("/") + path[1:]
        return path

    def folder_word(self) -> str:
        """The attempt's folder as one shell word (``~`` as ``"$HOME"``)."""
        return _path_word(self.folder)

    def stem_word(self) -> str:
        """The path of this process's files without their suffix, as one shell word."""
        return _path_word(f"{self.folder}/{self.stem}")


def _path_word(path: str) -> str:
    if path == "~":
        return '"$HOME"'
    if path.startswith("~/"):
        return '"$HOME"/' + shlex.quote(path[2:])
    return shlex.quote(path)


def _status_lines(prefix: str) -> str:
    """Script that prints the status line of the process at stem ``$p`` (with ``prefix``)."""
    lead = f"{prefix} " if prefix else ""
    return (
        'if [ ! -f "$p.pid" ]; then echo "' + lead + 'state=lost"\n'
        "else\n"
        'read -r g t < "$p.pid"\n'
        'if ! [ "$g" -gt 1 ] 2>/dev/null; then echo "' + lead + 'state=lost reason=bad-pid"\n'
        "else\n"
        "x=; [ -f \"$p.cancel\" ] && x=' cancelled=1'\n"
        'if [ -f "$p.exit" ]; then read -r c e < "$p.exit"; '
        'echo "' + lead + 'state=exited code=$c ended=$e pgid=$g started=$t$x"\n'
        'elif ps -e -o pgid=,stat= | grep -q "^ *$g [^Z]"; then '
        'echo "' + lead + 'state=running pgid=$g started=$t$x"\n'
        'elif [ -f "$p.exit" ]; then read -r c e < "$p.exit"; '
        'echo "' + lead + 'state=exited code=$c ended=$e pgid=$g started=$t$x"\n'
        'else echo "' + lead + 'state=dead pgid=$g started=$t$x"\n'
        "fi\nfi\nfi\n"
    )


def launch(task: NodeTask, command: str, *, workdir: str, env: Mapping[str, str]) -> str:
    """Start ``command`` detached, as the leader of its own session and process group.

    It survives the SSH channel closing and the app exiting; stdout and stderr
    go to the task's log, stdin is /dev/null. Prints ``started pgid=N`` once
    the group exists, or, when this task was launched before (a retry after a
    crash), ``existing`` and its status line without starting it again.
    """
    if not command.strip():
        raise UsageError(
            said("error.node.empty_command"), hint=said("error.node.empty_command_hint")
        )
    exports = []
    for name, value in env.items():
        if not _ENV_NAME.match(name):
            raise UsageError(
                said("error.node.env_name", name=repr(name)), hint=said("error.node.env_name_hint")
            )
        exports.append(f"{name}={shlex.quote(str(value))}")
    lines = [
        f"d={task.folder_word()}; p={task.stem_word()}",
        'mkdir -p "$d" || exit 1',
        'if [ -f "$p.pid" ]; then',
        _status_lines("existing").rstrip("\n"),
        "exit 0",
        "fi",
    ]
    if exports:
        lines.append("export " + " ".join(exports))
    dump_dir = env.get("XYCLAW_FR_DIR")  # Flight Recorder dumps: PyTorch makes no folder
    if dump_dir:
        lines.append(f"mkdir -p {shlex.quote(str(dump_dir))} 2>/dev/null || true")
    if env.get("XYCLAW_STEP_TIMES") == "1":
        lines += step_hook_lines()
    if env.get("XYCLAW_NCCL_INSPECTOR") == "1":
        lines += inspector_lines(str(env.get("NCCL_INSPECTOR_DUMP_DIR", "")))
    lines += [
        'rm -f "$p.exit" "$p.exit.tmp" "$p.cancel" "$p.pid.tmp"',
        f'setsid sh -c {shlex.quote(_WRAPPER)} xyclaw-job "$p" {_path_word(workdir)} '
        f'{shlex.quote(command)} >> "$p.log" 2>&1 < /dev/null &',
        "n=0",
        'while [ ! -s "$p.pid" ]; do',
        f'if [ "$n" -ge {_PID_WAIT_STEPS} ]; then echo "error=no-pid"; exit 1; fi',
        "sleep 0.02; n=$((n+1))",
        "done",
        'read -r g t < "$p.pid"',
        'echo "started pgid=$g started=$t"',
    ]
    return "\n".join(lines) + "\n"


def step_hook_lines() -> list[str]:
    """Issue 34: the per-rank timing hook (:mod:`xyclaw.jobs.step_hook`) written next to the
    task's files and put first on ``PYTHONPATH`` (after the spec's own value, kept)."""
    import base64

    from xyclaw.jobs.step_hook import HOOK_FILE, HOOK_SOURCE

    encoded = base64.b64encode(HOOK_SOURCE.encode()).decode()  # one word, any shell
    return [
        'mkdir -p "$p.hook"',
        f'printf %s {encoded} | base64 -d > "$p.hook/{HOOK_FILE}"',
        'if [ -n "$PYTHONPATH" ]; then PYTHONPATH="$p.hook:$PYTHONPATH"; '
        'else PYTHONPATH="$p.hook"; fi',
        "export PYTHONPATH",
    ]


def inspector_lines(dump_dir: str) -> list[str]:
    """Issue 34: load NCCL's Inspector plugin where the node has it. The first
    ``libnccl-profiler-inspector.so`` found in the usual places becomes
    ``NCCL_PROFILER_PLUGIN`` (and the dump folder is made); where none is, nothing is set
    and the job runs as it would have (its Inspector variables do nothing without it)."""
    from xyclaw.jobs.environment import INSPECTOR_LIBRARY, INSPECTOR_PLACES

    places = " ".join(f'"{place}/{INSPECTOR_LIBRARY}"' for place in INSPECTOR_PLACES)
    make = f" mkdir -p {shlex.quote(dump_dir)} 2>/dev/null;" if dump_dir else ""
    return [
        f"for xyclaw_lib in {places}; do",
        'if [ -f "$xyclaw_lib" ]; then NCCL_PROFILER_PLUGIN="$xyclaw_lib"; '
        f"export NCCL_PROFILER_PLUGIN;{make} break; fi",
        "done",
    ]


def status(task: NodeTask) -> str:
    """Print ``state=running|exited|dead|lost`` with ``pgid``, ``code`` and times.

    ``dead``: the group is gone without an exit code (SIGKILL, OOM killer, a
    reboot); ``lost``: no pid file (never launched here, or the files are gone).
    """
    return f"p={task.stem_word()}\n" + _status_lines("")


def read_log(task: NodeTask, offset: int, limit: int = READ_LIMIT) -> str:
    """Print ``log size=S`` and then, base64-encoded, at most ``limit`` bytes from ``offset``.

    Base64 keeps the bytes exact through a text channel: the caller's next
    offset is ``offset`` plus the decoded length, with no gap and no overlap.
    Prints ``log missing`` when there is no log yet.
    """
    _check_offset(offset, limit)
    return (
        f"f={task.stem_word()}.log\n"
        'if [ ! -f "$f" ]; then echo "log missing"; exit 0; fi\n'
        'echo "log size=$(wc -c < "$f")"\n'
        f'tail -c +{offset + 1} "$f" | head -c {limit} | base64\n'
    )


def watch_log(task: NodeTask, offset: int, *, limit: int = READ_LIMIT, poll_s: float = 0.2) -> str:
    """A long-running stream of the log from ``offset``, exact on bytes, ending with the task.

    Output, one ASCII line at a time: ``@<offset>+<length>`` followed by the
    base64 of those bytes on one line, as often as the log grows; when the
    process has ended and every byte was sent, ``end`` and the status line.
    """
    _check_offset(offset, limit)
    if not 0.01 <= poll_s <= 60:
        raise UsageError(said("error.node.poll", seconds=poll_s), hint=said("error.node.poll_hint"))
    return (
        f'p={task.stem_word()}; f="$p.log"; o={offset}\n'
        "while :; do\n"
        "z=0\n"
        'if [ -f "$p.exit" ] || [ ! -f "$p.pid" ]; then z=1\n'
        'else read -r g t < "$p.pid"; kill -0 -"$g" 2>/dev/null || z=1; fi\n'
        's=0; [ -f "$f" ] && s=$(wc -c < "$f")\n'
        'if [ "$s" -gt "$o" ]; then\n'
        f'k=$((s-o)); [ "$k" -gt {limit} ] && k={limit}\n'
        'echo "@$o+$k"\n'
        'tail -c +$((o+1)) "$f" | head -c "$k" | base64 -w 0; echo\n'
        "o=$((o+k)); continue\n"
        "fi\n"
        'if [ "$z" = 1 ]; then\n' + _status_lines("end") + "exit 0\n"
        "fi\n"
        f"sleep {poll_s:g}\n"
        "done\n"
    )


def follow_log(task: NodeTask, offset: int) -> str:
    """``tail -F`` the log from byte ``offset`` (for a live view; never ends by itself)."""
    _check_offset(offset, READ_LIMIT)
    return f"tail -c +{offset + 1} -F {task.stem_word()}.log\n"


def tail_log(task: NodeTask, lines: int = 20) -> str:
    """The last ``lines`` lines of the log, as text (for "setup failed on node 2: ...")."""
    if not 1 <= lines <= 10_000:
        raise UsageError(said("error.node.lines", lines=lines), hint=said("error.node.lines_hint"))
    return f'f={task.stem_word()}.log\n[ -f "$f" ] && tail -n {lines} "$f"\nexit 0\n'


def cancel(task: NodeTask, grace_s: float = 10.0) -> str:
    """SIGTERM the task's process group, SIGKILL what is left after ``grace_s``, and verify.

    Prints ``cancel signal=none|TERM|KILL left=N`` (``left``: processes of the
    group still there at the end, zombies not counted), or ``cancel
    state=lost left=0`` when there is no pid file.
    """
    if not 0 <= grace_s <= 3600:
        raise UsageError(
            said("error.node.grace", seconds=grace_s), hint=said("error.node.grace_hint")
        )
    steps = max(1, round(grace_s * 10))
    alive = '$(ps -e -o pgid=,stat= | grep -c "^ *$g [^Z]")'
    return (
        f"p={task.stem_word()}\n"
        'if [ ! -f "$p.pid" ]; then echo "cancel state=lost left=0"; exit 0; fi\n'
        'read -r g t < "$p.pid"\n'
        'if ! [ "$g" -gt 1 ] 2>/dev/null; then echo "cancel state=lost reason=bad-pid left=0"; '
        "exit 0; fi\n"
        f"n={alive}\n"
        'if [ "$n" -eq 0 ]; then echo "cancel signal=none left=0"; exit 0; fi\n'
        'date +%s > "$p.cancel"\n'
        'kill -TERM -"$g" 2>/dev/null; s=TERM; i=0\n'
        f'while [ "$i" -lt {steps} ]; do\n'
        f"n={alive}\n"
        '[ "$n" -eq 0 ] && break\n'
        "sleep 0.1; i=$((i+1))\n"
        "done\n"
        f"n={alive}\n"
        'if [ "$n" -gt 0 ]; then\n'
        'kill -KILL -"$g" 2>/dev/null; s=KILL; i=0\n'
        'while [ "$i" -lt 50 ]; do\n'
        f"n={alive}\n"
        '[ "$n" -eq 0 ] && break\n'
        "sleep 0.1; i=$((i+1))\n"
        "done\n"
        "fi\n"
        'echo "cancel signal=$s left=$n"\n'
    )


def latest_checkpoint(checkpoint_dir: str) -> str:
    """Print ``checkpoint step=N complete=marker|newer path=P`` for the newest complete one.

    ``complete=marker``: it holds a completion marker; ``newer``: a later
    folder exists. Prints ``checkpoint none`` (``reason=no-dir`` when the
    folder does not exist). The rule is in this module's docstring.
    """
    if not checkpoint_dir.strip():
        raise UsageError(
            said("error.node.no_checkpoint_dir"), hint=said("error.node.no_checkpoint_dir_hint")
        )
    marker_test = " || ".join(f'[ -f "$c/{name}" ]' for name in CHECKPOINT_MARKERS)
    return (
        f"d={_path_word(checkpoint_dir.rstrip('/') or '/')}\n"
        'if [ ! -d "$d" ]; then echo "checkpoint none reason=no-dir"; exit 0; fi\n'
        "top=-1; topc=; second=-1; secondc=; marked=-1; markedc=\n"
        'for c in "$d"/checkpoint-*; do\n'
        '[ -d "$c" ] || continue\n'
        "n=${c##*/checkpoint-}\n"
        '[ "$n" -ge 0 ] 2>/dev/null || continue\n'
        'if [ "$n" -gt "$top" ]; then second=$top; secondc=$topc; top=$n; topc=$c\n'
        'elif [ "$n" -gt "$second" ]; then second=$n; secondc=$c; fi\n'
        f"if {marker_test}; then\n"
        '[ "$n" -gt "$marked" ] && { marked=$n; markedc=$c; }\n'
        "fi\n"
        "done\n"
        'if [ "$marked" -ge 0 ] && [ "$marked" -ge "$second" ]; then\n'
        'echo "checkpoint step=$marked complete=marker path=$markedc"\n'
        'elif [ "$second" -ge 0 ]; then\n'
        'echo "checkpoint step=$second complete=newer path=$secondc"\n'
        'else echo "checkpoint none"; fi\n'
    )


def _check_offset(offset: int, limit: int) -> None:
    if offset < 0:
        raise UsageError(
            said("error.node.offset", offset=offset), hint=said("error.node.offset_hint")
        )
    if not 1 <= limit <= 64 * 1024 * 1024:
        raise UsageError(said("error.node.limit", limit=limit), hint=said("error.node.limit_hint"))
