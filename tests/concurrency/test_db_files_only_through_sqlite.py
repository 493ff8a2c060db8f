"""Issue 23: nothing in xyclaw/ opens, copies or removes the history's SQLite files other
than through SQLite (closing a Python descriptor of the file drops SQLite's locks)."""

from __future__ import annotations

from pathlib import Path

from tests.concurrency.dbfiles import check_package, check_source

PACKAGE = Path(__file__).resolve().parents[2] / "xyclaw"

#: The store's own guarded helpers, each with why it is safe.
ALLOWED = {
    # The copy's temporary file moved into place (or removed after a failure): never the live
    # file, its -wal, -shm or -journal, which backup() refuses as targets before this.
    "xyclaw/store/store.py:backup",
}


def test_no_database_file_is_opened_outside_sqlite() -> None:
    found = [f for f in check_package(PACKAGE) if f.where not in ALLOWED]
    assert not found, (
        "only SQLite may open the database and its -wal/-shm (read through a connection, copy"
        " with the backup API):\n" + "\n".join(map(str, found))
    )


def test_every_allowed_helper_still_exists() -> None:
    """An allowance for a function that no longer opens anything is dropped, not kept."""
    seen = {f.where for f in check_package(PACKAGE)}
    assert seen >= ALLOWED


# What the check must catch: the bug of issue 23 as it was, and its relatives.
INSPECT_VERSION_BEFORE_THE_FIX = """
def inspect_version(path: Path, *, check: bool = False) -> int:
    if not path.exists() or path.stat().st_size == 0:
        return 0
    with path.open("rb") as fh:
        header = fh.read(len(SQLITE_HEADER))
    return 0
"""


def test_the_check_finds_the_header_read_of_issue_23() -> None:
    found = check_source(INSPECT_VERSION_BEFORE_THE_FIX, "xyclaw/store/database.py", in_store=True)
    assert [f.line for f in found] == [5]
    assert "path.open('rb')" in found[0].call


def test_the_check_finds_opens_copies_and_removals_of_database_files() -> None:
    source = """
import os, shutil
from pathlib import Path

def doctor(paths):
    raw = paths.database.read_bytes()
    shutil.copy(paths.agent_checkpoints, "/tmp/x")

def wal_size(db):
    wal = Path(f"{db}-wal")
    size = wal.stat().st_size
    with open(wal, "rb") as fh:
        return fh.read()

def shm(home):
    fd = os.open(os.path.join(home, "xyclaw.db-shm"), os.O_RDONLY)
    os.close(fd)

def clean(paths):
    for part in (paths.database, Path(str(paths.database) + "-wal")):
        part.unlink()
"""
    found = check_source(source, "xyclaw/example.py")
    assert [f.line for f in found] == [6, 7, 12, 16, 21], found


def test_the_check_leaves_other_files_and_sqlite_alone() -> None:
    source = """
import sqlite3
from pathlib import Path

def load(paths):
    text = paths.config_file.read_text()
    with open(paths.known_hosts) as fh:
        fh.read()
    conn = sqlite3.connect(paths.database)
    exists = Path(f"{paths.database}-wal").exists()
    return text, conn, exists
"""
    assert check_source(source, "xyclaw/example.py") == []
