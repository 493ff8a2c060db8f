"""Issue 23: the window's history survives a `xyclaw` command run beside it.

The window holds a :class:`Store` (the writer) and, on the History page, a
:class:`ReadOnlyStore` on the same file. A command run in a terminal at the same time
(`xyclaw jobs`) must not believe it is the last connection: if it did, it would fold the
WAL back and delete ``-wal`` and ``-shm`` under the window, and whatever the window
committed afterwards would be lost (written into a WAL nobody else can see)."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

from xyclaw.paths import AppPaths
from xyclaw.store import Store
from xyclaw.store.plans import PlanTable
from xyclaw.store.replay import ReadOnlyStore


def _xyclaw(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "xyclaw.cli.main", *args],
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )


def _plans_seen_by_another_process(db: Path) -> int:
    """How many plans a separate process finds in the file (as a later start would)."""
    code = (
        "import sqlite3, sys; c = sqlite3.connect(sys.argv[1], timeout=30);"
        " print(c.execute('SELECT count(*) FROM plans').fetchone()[0])"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(db)], capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr
    return int(out.stdout)


def test_a_command_beside_the_window_leaves_its_wal_and_later_commits_survive() -> None:
    paths = AppPaths.from_environment().ensure()
    db = paths.database
    wal, shm = Path(f"{db}-wal"), Path(f"{db}-shm")
    store = Store(db)  # the window's writer
    try:
        plans = PlanTable(store, lambda: 1_700_000_000.0)
        plans.add({"task": "before"}, {"options": []})
        history = ReadOnlyStore(db)  # the History page
        try:
            assert history.query("SELECT count(*) AS n FROM plans")[0]["n"] == 1
            assert wal.exists() and shm.exists()
            wal_inode = wal.stat().st_ino

            outcome = _xyclaw("jobs")  # run in a terminal beside the window
            assert outcome.returncode == 0, outcome.stderr

            assert wal.exists() and shm.exists(), "the command removed the window's WAL"
            assert wal.stat().st_ino == wal_inode, "the WAL was deleted and made again"
            for i in range(5):  # what the window records afterwards
                plans.add({"task": "after", "i": i}, {"options": []})
            assert history.query("SELECT count(*) AS n FROM plans")[0]["n"] == 6
            assert _plans_seen_by_another_process(db) == 6
        finally:
            history.close()
    finally:
        store.close()
    conn = sqlite3.connect(db)  # the next start of the app
    try:
        assert conn.execute("SELECT count(*) FROM plans").fetchone()[0] == 6
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        conn.close()
