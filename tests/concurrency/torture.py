"""The history under fire (issue 23): everything that opens one data folder at once, and
``kill -9`` of any of it at random; then nothing committed may be missing and both SQLite
files must be sound.

Beside each other, on one data folder:

- the window's store, in a child process (``python -m tests.concurrency.torture app``): a
  :class:`Store` that commits plans, a :class:`ReadOnlyStore` that reads the history and is
  opened again now and then (as the History page does; its opening read the header with a
  plain ``open`` before issue 23), and the agents' checkpoint database through LangGraph's
  ``SqliteSaver``. After each commit returns, its id is appended to a side file;
- the background guard, ``xyclaw guard run``;
- a stream of ``xyclaw`` commands: reads (``jobs``, ``clusters``, ``billing``, ``db info``),
  writes (``plan`` saves a plan, ``ask`` a conversation and its checkpoints), ``db backup``,
  ``doctor`` (the schema check a migration does first);
- a killer that sends SIGKILL to one of them (never to the test) every second or two; the
  window and the guard are started again when they are gone;
- a watcher that checks, while the window's store is open, that its ``-wal`` file is the one
  it opened (never removed, never made again under it).

Afterwards: ``PRAGMA integrity_check`` on ``xyclaw.db`` and on ``agent-checkpoints.db``, every
id logged as committed is there, every backup that finished is sound. Used by
``tests/concurrency/test_store_torture.py`` (60 s) and ``bench/store_torture_bench.py``.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]

#: What no command may print, whatever happens beside it.
BAD_OUTPUT = (
    "Traceback",
    "internal error",
    "disk I/O error",
    "malformed",
    "damaged",
    "database is locked",
    "not a database",
)

#: (weight, argv) of the command stream; BACKUP is filled in with a path.
COMMANDS: tuple[tuple[int, tuple[str, ...]], ...] = (
    (4, ("jobs",)),
    (3, ("clusters", "--all")),
    (2, ("billing",)),
    (3, ("db", "info")),
    (3, ("plan", "--task", "finetune-lora", "--model-size", "7B", "--tokens", "1B", "--json")),
    (2, ("db", "backup", "BACKUP", "--force")),
    (2, ("doctor",)),
    (1, ("ask", "what clusters do I have")),
)


def environment(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("XYCLAW_")}
    env.update(
        XYCLAW_HOME=str(home),
        XYCLAW_SECRETS_BACKEND="file",
        XYCLAW_GUARD_AUTOSTART="0",  # the torture starts (and kills) its own guard
        # this checkout's tests; its xyclaw unless PYTHONPATH names another one first
        PYTHONPATH=os.pathsep.join([*filter(None, [os.environ.get("PYTHONPATH")]), str(ROOT)]),
        QT_QPA_PLATFORM="offscreen",
    )
    return env


# -- the window's store, in its own process ---------------------------------------------------


def app_main(side: Path, status: Path, failures: Path) -> None:
    """Commit, read and reopen the history until killed; log each commit after it returns."""
    from langgraph.checkpoint.base import empty_checkpoint
    from langgraph.checkpoint.sqlite import SqliteSaver

    from xyclaw.paths import AppPaths
    from xyclaw.store import Store
    from xyclaw.store.checkpoints import open_checkpoint_connection
    from xyclaw.store.plans import PlanTable
    from xyclaw.store.replay import ReadOnlyStore

    paths = AppPaths.from_environment().ensure()
    wal = Path(f"{paths.database}-wal")
    log = side.open("a", encoding="utf-8", buffering=1)

    def fail(what: str) -> None:
        with failures.open("a", encoding="utf-8") as fh:
            fh.write(f"app {os.getpid()}: {what}\n")

    store = Store(paths.database)
    plans = PlanTable(store)
    history = ReadOnlyStore(paths.database)
    saver = SqliteSaver(open_checkpoint_connection(paths.agent_checkpoints))
    saver.setup()
    thread = {"configurable": {"thread_id": f"torture-{os.getpid()}", "checkpoint_ns": ""}}
    first = plans.add({"torture": os.getpid(), "i": -1}, {"options": []})
    log.write(f"plan {first}\n")
    wal_ino = wal.stat().st_ino
    tmp = status.with_name(status.name + ".tmp")
    tmp.write_text(json.dumps({"pid": os.getpid(), "wal_ino": wal_ino}))
    os.replace(tmp, status)
    i = 0
    while True:
        i += 1
        try:
            plan_id = plans.add({"torture": os.getpid(), "i": i}, {"options": []})
            log.write(f"plan {plan_id}\n")
            checkpoint = empty_checkpoint()
            saver.put(thread, checkpoint, {"step": i}, {})
            log.write(f"checkpoint {checkpoint['id']}\n")
            seen = history.query("SELECT max(id) AS top FROM plans")[0]["top"]
            if seen is None or seen < plan_id:
                fail(f"the history shows plans up to {seen}, after {plan_id} was committed")
            if i % 5 == 0:  # the History page shown again: a new ReadOnlyStore
                history.close()
                history = ReadOnlyStore(paths.database)
        except Exception as exc:  # every error here is a failure of the torture
            fail(f"{type(exc).__name__}: {exc}")
            time.sleep(0.2)
        try:
            now = wal.stat().st_ino
        except FileNotFoundError:
            fail("the WAL was removed while this process had the database open")
        else:
            if now != wal_ino:
                fail("the WAL was made again while this process had the database open")
        time.sleep(0.03)


# -- the run ---------------------------------------------------------------------------------


@dataclass
class Figures:
    seconds: float = 0.0
    commands: int = 0
    commands_ok: int = 0
    commands_refused: int = 0  # ended non-zero with a clear message (e.g. its cloud was killed)
    kills: int = 0
    kills_by_kind: dict[str, int] = field(default_factory=dict)
    app_starts: int = 0
    guard_starts: int = 0
    committed_plans: int = 0
    committed_checkpoints: int = 0
    backups_checked: int = 0
    integrity_failures: int = 0
    lost_rows: int = 0
    wal_violations: int = 0
    failures: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        out = dict(self.__dict__)
        out["failures"] = self.failures[:20]
        return out

    @property
    def ok(self) -> bool:
        return (
            not self.failures
            and self.integrity_failures == 0
            and self.lost_rows == 0
            and self.wal_violations == 0
        )


@dataclass
class _Running:
    kind: str
    proc: subprocess.Popen[str]
    argv: tuple[str, ...] = ()
    killed: bool = False


class Torture:
    def __init__(
        self, home: Path, *, seed: int = 0, kill_every_s: tuple[float, float] = (0.7, 2.0)
    ):
        self.home = home
        self.work = home.parent / f"{home.name}-torture"
        self.work.mkdir(parents=True, exist_ok=True)
        self.env = environment(home)
        self.rng = random.Random(seed)
        self.kill_every_s = kill_every_s
        self.figures = Figures()
        self.lock = threading.Lock()  # the killer and the watcher never act at once
        self.app: _Running | None = None
        self.guard: _Running | None = None
        self.clis: list[_Running] = []
        self.stop_watch = threading.Event()
        self.status = self.work / "app.json"
        self.failures_file = self.work / "failures.txt"
        self.backups: list[Path] = []
        self.side_logs: list[Path] = []
        self._spawned = 0
        self._outputs: dict[int, tuple[Any, Any]] = {}

    # processes --------------------------------------------------------------------------
    def _spawn(self, argv: list[str]) -> subprocess.Popen[str]:
        # Output to files, not pipes: a command is never held up by a full pipe.
        self._spawned += 1
        out = (self.work / f"p{self._spawned}.out").open("w+", encoding="utf-8")
        err = (self.work / f"p{self._spawned}.err").open("w+", encoding="utf-8")
        proc = subprocess.Popen(
            argv,
            cwd=self.work,  # not the checkout: PYTHONPATH alone says whose xyclaw runs
            env=self.env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=err,
            text=True,
            start_new_session=True,  # a kill -9 reaches no one else; nothing reaches the test
        )
        self._outputs[proc.pid] = (out, err)
        return proc

    def _output(self, proc: subprocess.Popen[str]) -> tuple[str, str]:
        """What the (ended) process printed: stdout, stderr."""
        proc.wait()
        out, err = self._outputs.pop(proc.pid)
        texts = []
        for fh in (out, err):
            fh.seek(0)
            texts.append(fh.read())
            fh.close()
        return texts[0], texts[1]

    def _start_app(self) -> None:
        side = self.work / f"app-{self.figures.app_starts}.ids"
        self.side_logs.append(side)
        self.status.unlink(missing_ok=True)
        proc = self._spawn(
            [sys.executable, "-m", "tests.concurrency.torture", "app", str(side),
             str(self.status), str(self.failures_file)]
        )  # fmt: skip
        self.app = _Running("app", proc)
        self.figures.app_starts += 1

    def _start_guard(self) -> None:
        proc = self._spawn([sys.executable, "-m", "xyclaw.cli.main", "guard", "run"])
        self.guard = _Running("guard", proc)
        self.figures.guard_starts += 1

    def _start_cli(self) -> None:
        weights = [w for w, _ in COMMANDS]
        argv = self.rng.choices([a for _, a in COMMANDS], weights)[0]
        if "BACKUP" in argv:
            target = self.work / f"backup-{self.figures.commands}.db"
            self.backups.append(target)
            argv = tuple(str(target) if a == "BACKUP" else a for a in argv)
        proc = self._spawn([sys.executable, "-m", "xyclaw.cli.main", *argv])
        self.clis.append(_Running("cli", proc, argv))
        self.figures.commands += 1

    def _finish_cli(self, run: _Running) -> None:
        out, err = self._output(run.proc)
        if run.killed:
            return
        text = out + err
        bad = [b for b in BAD_OUTPUT if b in text]
        if bad:
            self.figures.failures.append(
                f"`xyclaw {' '.join(run.argv)}` exit {run.proc.returncode}: {err.strip()[-400:]}"
            )
        elif run.proc.returncode == 0:
            self.figures.commands_ok += 1
            if run.argv[0] == "plan":  # its plan was committed before it printed the id
                with (self.work / "cli.ids").open("a", encoding="utf-8") as fh:
                    fh.write(f"plan {json.loads(out)['plan_id']}\n")
        else:
            self.figures.commands_refused += 1

    def _kill_one(self) -> None:
        with self.lock:
            live = [r for r in (self.app, self.guard, *self.clis) if r and r.proc.poll() is None]
            sim = self._sim_pid()
            if not live and sim is None:
                return
            choice = self.rng.randrange(len(live) + (sim is not None))
            if choice == len(live):
                assert sim is not None
                with contextlib.suppress(ProcessLookupError):
                    os.kill(sim, signal.SIGKILL)
                kind = "sim cloud"
            else:
                run = live[choice]
                run.killed = True
                with contextlib.suppress(ProcessLookupError):
                    run.proc.kill()
                run.proc.wait()
                kind = run.kind if run.kind != "cli" else f"xyclaw {run.argv[0]}"
            self.figures.kills += 1
            self.figures.kills_by_kind[kind] = self.figures.kills_by_kind.get(kind, 0) + 1

    def _sim_pid(self) -> int | None:
        try:
            info = json.loads((self.home / "data" / "sim" / "server.json").read_text())
            pid = int(info["pid"])
            os.kill(pid, 0)
        except (OSError, ValueError, KeyError, TypeError):
            return None
        return pid

    # the WAL watcher ----------------------------------------------------------------------
    def _watch(self) -> None:
        wal = self.home / "data" / "xyclaw.db-wal"
        while not self.stop_watch.wait(0.02):
            with self.lock:
                app = self.app
                if app is None or app.proc.poll() is not None:
                    continue
                try:
                    said = json.loads(self.status.read_text())
                except (OSError, ValueError):
                    continue  # not open yet
                if said["pid"] != app.proc.pid:
                    continue
                try:
                    ino = wal.stat().st_ino
                except FileNotFoundError:
                    ino = None
                if ino != said["wal_ino"] and app.proc.poll() is None:
                    self.figures.wal_violations += 1
                    self.figures.failures.append(
                        "watcher: the WAL was "
                        + ("removed" if ino is None else "made again")
                        + " while the window's store had it open"
                    )

    # one run ------------------------------------------------------------------------------
    def run(self, seconds: float, *, parallel_commands: int = 1) -> Figures:
        started = time.monotonic()
        (self.home / "data").mkdir(parents=True, exist_ok=True)
        watcher = threading.Thread(target=self._watch, name="wal-watcher", daemon=True)
        watcher.start()
        next_kill = started + self.rng.uniform(*self.kill_every_s) + 2.0
        guard_due = started + float(os.environ.get("TORTURE_GUARD_DELAY", "0"))
        try:
            while time.monotonic() - started < seconds:
                if self.app is None or self.app.proc.poll() is not None:
                    if self.app is not None:
                        _out, err = self._output(self.app.proc)
                        if not self.app.killed:
                            self.figures.failures.append(f"the window's store ended: {err[-400:]}")
                    self._start_app()
                if self.guard is not None and self.guard.proc.poll() is not None:
                    _out, err = self._output(self.guard.proc)
                    if not self.guard.killed and any(b in err for b in BAD_OUTPUT):
                        self.figures.failures.append(f"the guard ended: {err.strip()[-400:]}")
                    self.guard = None
                    # A background guard comes and goes: started again after a while
                    guard_due = time.monotonic() + self.rng.uniform(0.5, 4.0)
                if self.guard is None and time.monotonic() >= guard_due:
                    self._start_guard()
                for run in [r for r in self.clis if r.proc.poll() is not None]:
                    self.clis.remove(run)
                    self._finish_cli(run)
                while len(self.clis) < parallel_commands:
                    self._start_cli()
                if time.monotonic() >= next_kill:
                    self._kill_one()
                    next_kill = time.monotonic() + self.rng.uniform(*self.kill_every_s)
                time.sleep(0.05)
        finally:
            self.stop_watch.set()
            watcher.join()
            self._stop_all()
        self.figures.seconds = round(time.monotonic() - started, 1)
        self._check()
        return self.figures

    def _stop_all(self) -> None:
        """The surviving commands finish (what they committed must be there); the window
        and the guard are killed as they stand (their commits must be there too)."""
        deadline = time.monotonic() + 60
        for run in list(self.clis):
            try:
                run.proc.wait(timeout=max(1.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                run.killed = True
                run.proc.kill()
            self._finish_cli(run)
        self.clis.clear()
        for run in (self.app, self.guard):
            if run is not None and run.proc.poll() is None:
                run.killed = True
                run.proc.kill()
            if run is not None:
                self._output(run.proc)
        sim = self._sim_pid()
        if sim is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(sim, signal.SIGKILL)

    # afterwards ---------------------------------------------------------------------------
    def _check(self) -> None:
        f = self.figures
        if self.failures_file.exists():
            f.failures += self.failures_file.read_text(encoding="utf-8").splitlines()
        data = self.home / "data"
        plans: set[int] = set()
        checkpoints: set[str] = set()
        for side in [*self.side_logs, self.work / "cli.ids"]:
            if not side.exists():
                continue
            for line in side.read_text(encoding="utf-8").splitlines(keepends=True):
                if not line.endswith("\n"):
                    continue  # cut by the kill
                what, _, value = line.strip().partition(" ")
                if what == "plan":
                    plans.add(int(value))
                elif what == "checkpoint":
                    checkpoints.add(value)
        f.committed_plans, f.committed_checkpoints = len(plans), len(checkpoints)
        db = _open(data / "xyclaw.db")
        try:
            verdict = _integrity(db)
            if verdict != "ok":
                f.integrity_failures += 1
                f.failures.append(f"xyclaw.db: integrity_check says {verdict}")
            there = {int(r[0]) for r in db.execute("SELECT id FROM plans")}
        finally:
            db.close()
        missing = plans - there
        f.lost_rows += len(missing)
        if missing:
            f.failures.append(f"{len(missing)} committed plans are missing: {sorted(missing)[:10]}")
        cp_path = data / "agent-checkpoints.db"
        if cp_path.exists():
            cp = _open(cp_path)
            try:
                if _integrity(cp) != "ok":
                    f.integrity_failures += 1
                    f.failures.append(
                        f"agent-checkpoints.db: integrity_check says {_integrity(cp)}"
                    )
                kept = {str(r[0]) for r in cp.execute("SELECT checkpoint_id FROM checkpoints")}
            finally:
                cp.close()
            lost = checkpoints - kept
            f.lost_rows += len(lost)
            if lost:
                f.failures.append(f"{len(lost)} committed checkpoints are missing")
        elif checkpoints:
            f.lost_rows += len(checkpoints)
            f.failures.append("agent-checkpoints.db is gone")
        for backup in self.backups:
            if not backup.exists():
                continue  # its command was killed before the copy was moved into place
            conn = _open(backup)
            try:
                result = _integrity(conn)
            finally:
                conn.close()
            f.backups_checked += 1
            if result != "ok":
                f.integrity_failures += 1
                f.failures.append(f"the backup {backup.name}: integrity_check says {result}")


def _open(path: Path) -> sqlite3.Connection:
    return sqlite3.connect(path, timeout=30)


def _integrity(conn: sqlite3.Connection) -> str:
    return "; ".join(str(r[0]) for r in conn.execute("PRAGMA integrity_check(10)"))


if __name__ == "__main__":
    if sys.argv[1:2] == ["app"]:
        app_main(Path(sys.argv[2]), Path(sys.argv[3]), Path(sys.argv[4]))
