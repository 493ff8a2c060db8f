"""The process table of a simulated node: pids, command lines and signals.

Every command the shell runs is a thread; it registers a `Proc` here so
that `ps`, `kill` and `pkill` see it, and long-running commands wait
through `Proc.wait`, which returns as soon as a signal arrives.
"""

from __future__ import annotations

import itertools
import re
import signal
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

SIGNALS: dict[str, int] = {
    "HUP": int(signal.SIGHUP),
    "INT": int(signal.SIGINT),
    "QUIT": int(signal.SIGQUIT),
    "ABRT": int(signal.SIGABRT),
    "KILL": int(signal.SIGKILL),
    "USR1": int(signal.SIGUSR1),
    "USR2": int(signal.SIGUSR2),
    "PIPE": int(signal.SIGPIPE),
    "TERM": int(signal.SIGTERM),
    "CONT": int(signal.SIGCONT),
    "STOP": int(signal.SIGSTOP),
}
SIGHUP = SIGNALS["HUP"]
SIGINT = SIGNALS["INT"]
SIGKILL = SIGNALS["KILL"]
SIGTERM = SIGNALS["TERM"]
SIGPIPE = SIGNALS["PIPE"]
SIGABRT = SIGNALS["ABRT"]

_HANGUP_POLL_S = 0.2


def parse_signal(text: str) -> int | None:
    """`9`, `KILL`, `SIGKILL`, `-9` -> 9; None when unknown."""
    text = text.lstrip("-").upper()
    if text.isdigit():
        number = int(text)
        return number if 0 <= number < 65 else None
    if text.startswith("SIG"):
        text = text[3:]
    return SIGNALS.get(text)


def signal_name(number: int) -> str:
    for name, value in SIGNALS.items():
        if value == number:
            return f"SIG{name}"
    return f"SIG{number}"


@dataclass
class Proc:
    """One simulated process."""

    pid: int
    ppid: int
    argv: list[str]
    started: float  # node clock
    session: int = 0
    nohup: bool = False
    pgid: int = 0  # process group; 0 until the table assigns one
    ignored: set[int] = field(default_factory=set)  # signals set to SIG_IGN (inherited)
    cpu_percent: float = 0.0
    rss_kib: int = 4096
    system: bool = False  # part of the image (init, sshd): never signalled by the sim
    hup_check: Callable[[], bool] | None = None  # true when the client's channel is gone
    _event: threading.Event = field(default_factory=threading.Event, repr=False)
    _signal: int | None = None
    _handlers: list[Callable[[int], None]] = field(default_factory=list, repr=False)

    @property
    def cmdline(self) -> str:
        return " ".join(self.argv)

    @property
    def comm(self) -> str:
        """The process name as the kernel keeps it (15 characters)."""
        head = self.argv[0] if self.argv else "?"
        return head.rsplit("/", 1)[-1][:15]

    @property
    def signalled(self) -> int | None:
        """The signal that ended (or is ending) this process, if any."""
        if (
            self._signal is None
            and self.hup_check is not None
            and not self.nohup
            and self.hup_check()
        ):
            self.deliver(SIGHUP)
        return self._signal

    def deliver(self, sig: int) -> bool:
        """Send a signal; returns False when the process ignores it."""
        if sig == 0:
            return True
        if sig == SIGHUP and self.nohup:
            return False
        if sig in self.ignored and sig != SIGKILL:
            return False
        if sig in (SIGNALS["CONT"], SIGNALS["STOP"]):
            return True
        if self._signal is None or sig == SIGKILL:
            self._signal = sig
        for handler in list(self._handlers):
            handler(sig)
        self._event.set()
        return True

    def clear_signal(self) -> None:
        """The shell ran its trap for the pending signal: the process carries on."""
        if self._signal is not None and self._signal != SIGKILL:
            self._signal = None
            self._event.clear()

    def wake(self) -> None:
        """End the current wait early (something else than a signal needs attention)."""
        self._event.set()

    def on_signal(self, handler: Callable[[int], None]) -> None:
        self._handlers.append(handler)

    def wait(self, seconds: float) -> bool:
        """Sleep up to `seconds`; True as soon as a signal ends the wait."""
        if self.signalled is not None:
            return True
        if self._event.wait(max(0.0, seconds)):
            return True
        return self.signalled is not None


class ProcessTable:
    """Pids, the live processes, and the system processes every node has."""

    def __init__(
        self, clock: Callable[[], float], *, first_pid: int = 1000, boot_time: float | None = None
    ) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._pids = itertools.count(first_pid)
        self._procs: dict[int, Proc] = {}
        self._boot_procs(boot_time if boot_time is not None else clock())

    def _boot_procs(self, boot: float) -> None:
        for pid, argv in (
            (1, ["/sbin/init"]),
            (612, ["/usr/sbin/sshd", "-D"]),
            (640, ["/usr/bin/nvidia-persistenced", "--user", "root"]),
            (701, ["/usr/sbin/cron", "-f"]),
        ):
            self._procs[pid] = Proc(
                pid=pid,
                ppid=0 if pid == 1 else 1,
                argv=argv,
                started=boot,
                system=True,
                pgid=pid,
            )

    def spawn(
        self,
        argv: list[str],
        *,
        ppid: int = 612,
        session: int = 0,
        nohup: bool = False,
        hup_check: Callable[[], bool] | None = None,
    ) -> Proc:
        """A new process; it joins its parent's process group and inherits ignored signals
        (a child of a system process such as sshd leads a group of its own)."""
        with self._lock:
            pid = next(self._pids)
            parent = self._procs.get(ppid)
            inherit = parent is not None and not parent.system
            proc = Proc(
                pid=pid,
                ppid=ppid,
                argv=list(argv),
                started=self._clock(),
                session=session,
                nohup=nohup,
                hup_check=hup_check,
                pgid=parent.pgid if parent is not None and inherit else pid,
                ignored=set(parent.ignored) if parent is not None and inherit else set(),
            )
            self._procs[pid] = proc
            return proc

    def group(self, pgid: int) -> list[Proc]:
        """The live processes of a process group."""
        with self._lock:
            return sorted((p for p in self._procs.values() if p.pgid == pgid), key=lambda p: p.pid)

    def reap(self, proc: Proc) -> None:
        with self._lock:
            self._procs.pop(proc.pid, None)

    def get(self, pid: int) -> Proc | None:
        with self._lock:
            return self._procs.get(pid)

    def all(self) -> list[Proc]:
        with self._lock:
            return sorted(self._procs.values(), key=lambda p: p.pid)

    def match(self, pattern: str, *, full: bool, exclude: Iterable[int] = ()) -> list[Proc]:
        """Processes whose name (or full command line) matches an extended regex."""
        try:
            rx = re.compile(pattern)
        except re.error:
            rx = re.compile(re.escape(pattern))
        skip = set(exclude)
        return [
            p
            for p in self.all()
            if p.pid not in skip and not p.system and rx.search(p.cmdline if full else p.comm)
        ]

    def kill_all(self, sig: int = SIGKILL) -> None:
        """What a crash does to every user process."""
        for proc in self.all():
            if not proc.system:
                proc.deliver(sig)

    def hangup_session(self, session: int) -> None:
        """The client's channel closed: SIGHUP to the session's foreground processes."""
        for proc in self.all():
            if proc.session == session and proc.hup_check is not None:
                proc.deliver(SIGHUP)

    def ancestors(self, pid: int) -> set[int]:
        chain: set[int] = set()
        current = self.get(pid)
        while current is not None and current.pid not in chain:
            chain.add(current.pid)
            current = self.get(current.ppid)
        return chain


class HangupWatcher:
    """One thread for every node in the process: notices closed channels, hangs up their sessions.

    Commands then wait on their own events instead of each polling its
    channel, which keeps hundreds of idle sessions from waking the
    interpreter.
    """

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._watched: dict[int, tuple[Callable[[], bool], Callable[[], None]]] = {}
        self._tokens = itertools.count(1)
        self._thread: threading.Thread | None = None

    def watch(self, closed: Callable[[], bool], hangup: Callable[[], None]) -> int:
        with self._cond:
            token = next(self._tokens)
            was_empty = not self._watched
            self._watched[token] = (closed, hangup)
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, daemon=True, name="sim-hangup")
                self._thread.start()
            elif was_empty:
                self._cond.notify_all()
            return token

    def unwatch(self, token: int) -> None:
        with self._cond:
            self._watched.pop(token, None)

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._watched:
                    self._cond.wait()
                items = list(self._watched.items())
            for token, (closed, hangup) in items:
                if closed():
                    self.unwatch(token)
                    hangup()
            with self._cond:
                self._cond.wait(_HANGUP_POLL_S)


HANGUPS = HangupWatcher()
