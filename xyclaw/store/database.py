"""Opening the SQLite file safely: refuse newer schemas, never touch a damaged file, migrate."""

from __future__ import annotations

import logging
import sqlite3
import time
from pathlib import Path

import sqlite_utils

from xyclaw.errors import StoreCorruptError, StoreError, StoreVersionError
from xyclaw.store.migrations import LATEST_VERSION, MIGRATIONS

log = logging.getLogger(__name__)

SQLITE_HEADER = b"SQLite format 3\x00"


def _corrupt(path: Path, detail: str) -> StoreCorruptError:
    return StoreCorruptError(
        f"the database {path} is damaged ({detail}); it has been left exactly as it is",
        hint=(
            f"to start afresh, move it aside (mv '{path}' '{path}.broken') and run xyclaw "
            "again; keep the moved file if you want to try to recover it (sqlite3 .recover)"
        ),
    )


def _newer(path: Path, version: int) -> StoreVersionError:
    return StoreVersionError(
        f"the database {path} has schema version {version}, written by a newer XyClaw "
        f"(this one knows up to {LATEST_VERSION}); it has been left untouched",
        hint="upgrade XyClaw, or point XYCLAW_HOME at another folder to use this version",
    )


def inspect_version(path: Path) -> int:
    """Read the schema version without writing anything; 0 for a missing or empty file."""
    if not path.exists() or path.stat().st_size == 0:
        return 0
    with path.open("rb") as fh:
        header = fh.read(len(SQLITE_HEADER))
    if header != SQLITE_HEADER:
        raise _corrupt(path, "not an SQLite file")
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            version = int(conn.execute("PRAGMA user_version").fetchone()[0])
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        finally:
            conn.close()
    except sqlite3.DatabaseError as exc:
        raise _corrupt(path, str(exc)) from exc
    return version


def connect(path: Path, *, readonly: bool = False) -> sqlite3.Connection:
    """A connection with the app's pragmas: WAL, foreign keys on, a busy timeout."""
    try:
        if readonly:
            conn = sqlite3.connect(
                f"file:{path}?mode=ro", uri=True, check_same_thread=False, timeout=30
            )
            conn.execute("PRAGMA query_only=ON")
            conn.execute("PRAGMA cache_size=-65536")
            conn.execute("PRAGMA mmap_size=268435456")
        else:
            conn = sqlite3.connect(path, check_same_thread=False, timeout=30, isolation_level=None)
            # Sample rows are a few KB: 16 KiB pages waste far less than 4 KiB ones.
            # (Only takes effect when the file is new.)
            conn.execute("PRAGMA page_size=16384")
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute("PRAGMA foreign_keys=ON")
        conn.execute("PRAGMA busy_timeout=30000")
    except sqlite3.DatabaseError as exc:
        raise _corrupt(path, str(exc)) from exc
    return conn


def _backup_before_migration(conn: sqlite3.Connection, path: Path, version: int) -> Path:
    target = path.with_name(f"{path.name}.v{version}-{int(time.time())}.bak")
    dest = sqlite3.connect(target)
    try:
        conn.backup(dest)
    finally:
        dest.close()
    return target


def migrate(conn: sqlite3.Connection, path: Path, target: int = LATEST_VERSION) -> int:
    """Apply the migrations the file lacks, each in its own transaction; return the version."""
    version = int(conn.execute("PRAGMA user_version").fetchone()[0])
    if version > LATEST_VERSION:
        raise _newer(path, version)
    if version >= target:
        return version
    if version > 0:
        saved = _backup_before_migration(conn, path, version)
        log.info("database at version %s backed up to %s before migrating", version, saved)
    db = sqlite_utils.Database(conn)
    for number in range(version + 1, target + 1):
        try:
            conn.execute("BEGIN IMMEDIATE")
            MIGRATIONS[number - 1](db)
            conn.execute(f"PRAGMA user_version={number}")
            conn.execute("COMMIT")
        except sqlite3.DatabaseError as exc:
            conn.execute("ROLLBACK")
            raise StoreError(
                f"migrating {path} to schema version {number} failed: {exc}",
                hint="the database was left at the previous version; report this with the log",
            ) from exc
        log.info("database migrated to schema version %s", number)
    return target


def open_for_writing(path: Path, target: int = LATEST_VERSION) -> sqlite3.Connection:
    """Check the file, then open it for the one writer and bring its schema forward."""
    path.parent.mkdir(parents=True, exist_ok=True)
    version = inspect_version(path)
    if version > LATEST_VERSION:
        raise _newer(path, version)
    conn = connect(path)
    try:
        migrate(conn, path, target)
    except BaseException:
        conn.close()
        raise
    return conn
