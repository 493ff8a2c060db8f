"""Opening the SQLite file safely: refuse newer schemas, never touch a damaged file, migrate.

A file is checked (``PRAGMA quick_check``, every page) before a process first writes
into it, and the store turns SQLite's "malformed" / "not a database" errors into
:class:`~xyclaw.errors.StoreCorruptError` wherever they come out (opening, the writer,
queries); once a file is known to be damaged nothing in this process writes into it again.

Only SQLite opens the database file, its ``-wal`` and its ``-shm`` (issue 23). SQLite's
locks are POSIX advisory locks, and closing *any* descriptor of a file drops every such
lock the process holds on it: a plain ``open(path, "rb")`` of the header in a process that
also holds a connection (the window's History page, doctor) let the next ``xyclaw`` command
that ended beside it believe it was the last connection, fold the WAL back and delete it
under the window, whose later commits were then lost. Header and version are read through
SQLite (whose own descriptors are closed only when the process holds no lock on the file),
copies go through SQLite's backup API, and ``tests/concurrency`` keeps it so (an AST check
over the package and the two-second reproduction).

Durability: the writer runs with ``synchronous=NORMAL`` in WAL mode. A process killed at any
moment (``kill -9``) loses nothing it committed; a power loss or an operating-system crash
may lose the last commits before the WAL was synced (the file stays sound). That trade is
deliberate (a sync on every commit would slow the telemetry writer) and out of scope.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote

from xyclaw.errors import StoreCorruptError, StoreError, StoreVersionError
from xyclaw.store.migrations import LATEST_VERSION, MIGRATIONS

log = logging.getLogger(__name__)

#: SQLITE_CORRUPT and SQLITE_NOTADB: the file's bytes are not a sound database.
_CORRUPTION_CODES = frozenset({11, 26})

#: Files this process found damaged: path -> (inode, what was wrong). A file moved aside and
#: replaced by a new one (another inode) is not the damaged one.
_damaged: dict[str, tuple[int, str]] = {}
_damaged_lock = threading.Lock()


def is_corruption(exc: BaseException) -> bool:
    """True for SQLite's errors that mean damaged bytes (not a lock, a full disk, a bug)."""
    if not isinstance(exc, sqlite3.DatabaseError):
        return False
    code = getattr(exc, "sqlite_errorcode", None)
    if isinstance(code, int):
        return (code & 0xFF) in _CORRUPTION_CODES
    text = str(exc)
    return "malformed" in text or "not a database" in text


def _inode(path: Path) -> int:
    try:
        return path.stat().st_ino
    except OSError:
        return -1


def damage_of(path: Path) -> StoreCorruptError | None:
    """The error for ``path`` if this process found that very file damaged."""
    if not _damaged:  # nothing found damaged yet (every write asks: no path lookups then)
        return None
    path = Path(path)
    with _damaged_lock:
        known = _damaged.get(str(path.resolve()))
    if known is None or known[0] != _inode(path):
        return None
    return _corrupt(path, known[1])


def mark_damaged(path: Path, detail: str) -> StoreCorruptError:
    """Remember that ``path`` is damaged (nothing more is written into it) and say so."""
    path = Path(path)
    key = str(path.resolve())
    with _damaged_lock:
        if key not in _damaged:
            log.error("the database %s is damaged: %s", path, detail)
        _damaged[key] = (_inode(path), detail)
    return _corrupt(path, detail)


def translated(path: Path | str | None, exc: Exception) -> Exception:
    """``exc`` as the store's error where it means damage (remembered for ``path``)."""
    if path is not None and is_corruption(exc):
        damage = mark_damaged(Path(path), str(exc))
        damage.__cause__ = exc
        return damage
    return exc


@contextmanager
def corruption_guard(path: Path | str) -> Iterator[None]:
    """SQLite's "malformed" / "not a database" errors inside become StoreCorruptError (and
    the file is known damaged from then on: the writer refuses to write into it)."""
    try:
        yield
    except sqlite3.DatabaseError as exc:
        if is_corruption(exc):
            raise mark_damaged(Path(path), str(exc)) from exc
        raise


def _uri(path: Path, *params: str) -> str:
    """An SQLite URI for ``path`` (quoted: a folder may hold ``?``, ``#`` or ``%``)."""
    return f"file:{quote(str(path))}" + ("?" + "&".join(params) if params else "")


def _quiet(path: Path) -> tuple[int, int, int] | None:
    """The file's (inode, size, mtime) when no ``-wal`` or ``-shm`` lies beside it, so that no
    connection (in any process) has it open in WAL mode; None when some may have. Only
    ``stat``: no descriptor of the database is opened here (see the module's note)."""
    if Path(f"{path}-wal").exists() or Path(f"{path}-shm").exists():
        return None
    try:
        st = path.stat()
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns)


def _facts(uri: str, check: bool) -> tuple[int, list[str], list[str]]:
    """(user_version, tables, quick_check's problems) read through SQLite itself."""
    conn = sqlite3.connect(uri, uri=True, timeout=30)
    try:
        version = int(conn.execute("PRAGMA user_version").fetchone()[0])
        tables = [
            str(row[0])
            for row in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'"
                " AND name NOT LIKE 'sqlite_%' ORDER BY name"
            )
        ]
        problems = [str(row[0]) for row in conn.execute("PRAGMA quick_check(5)")] if check else []
    finally:
        conn.close()
    return version, tables, problems


def _read_facts(path: Path, check: bool) -> tuple[int, list[str], list[str]]:
    """Read the file's facts without changing the folder where nothing else has it open.

    With no ``-wal`` beside it (closed cleanly) ``immutable`` keeps SQLite from creating
    ``-wal`` and ``-shm`` files; but an immutable read takes no lock, so it is trusted only if
    the file did not change under it (another process may have opened it meanwhile), and is
    otherwise read again as an ordinary read-only connection, which takes SQLite's locks."""
    for _ in range(3):
        before = _quiet(path)
        if before is None:
            break
        try:
            facts = _facts(_uri(path, "mode=ro", "immutable=1"), check)
        except sqlite3.DatabaseError:
            if _quiet(path) == before:
                raise
            continue
        if _quiet(path) == before:
            return facts
    return _facts(_uri(path, "mode=ro"), check)


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


def _foreign(path: Path, tables: list[str]) -> StoreError:
    shown = ", ".join(tables[:5]) + (", ..." if len(tables) > 5 else "")
    return StoreError(
        f"{path} is not a XyClaw database (it holds other tables: {shown}); it has been "
        "left untouched",
        hint=f"move it aside (mv '{path}' '{path}.other') or point XYCLAW_HOME at another folder",
    )


def inspect_version(path: Path, *, check: bool = False) -> int:
    """Read the schema version without writing anything; 0 for a missing or empty file.

    ``check`` also reads every page (``PRAGMA quick_check``). A damaged file raises
    StoreCorruptError, another program's database StoreError; neither is changed."""
    if not path.exists() or path.stat().st_size == 0:
        return 0
    known = damage_of(path)
    if known is not None:
        raise known
    try:
        version, tables, problems = _read_facts(path, check)
    except sqlite3.DatabaseError as exc:
        if not is_corruption(exc):
            raise _unopenable(path, exc) from exc
        code = getattr(exc, "sqlite_errorcode", None)
        raise _corrupt(path, "not an SQLite file" if code == 26 else str(exc)) from exc
    if problems and problems != ["ok"]:
        raise mark_damaged(path, "; ".join(p[:200] for p in problems[:3]))
    if version == 0 and tables:
        raise _foreign(path, tables)
    return version


def connect(path: Path, *, readonly: bool = False) -> sqlite3.Connection:
    """A connection with the app's pragmas: WAL, foreign keys on, a busy timeout."""
    try:
        if readonly:
            conn = sqlite3.connect(
                _uri(path, "mode=ro"),
                uri=True,
                check_same_thread=False,
                timeout=30,
            )
        else:
            conn = sqlite3.connect(
                path,
                check_same_thread=False,
                timeout=30,
                isolation_level=None,
            )
    except sqlite3.Error as exc:
        raise _unopenable(path, exc) from exc
    try:
        if readonly:
            conn.execute("PRAGMA query_only=ON")
            conn.execute("PRAGMA cache_size=-65536")
            conn.execute("PRAGMA mmap_size=268435456")
        else:
            # Sample rows are a few KB: 16 KiB pages waste far less than 4 KiB ones.
            # (Only takes effect when the file is new.)
            conn.execute("PRAGMA page_size=16384")
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute("PRAGMA foreign_keys=ON")
        conn.execute("PRAGMA busy_timeout=30000")
    except sqlite3.Error as exc:
        conn.close()
        raise _unopenable(path, exc) from exc
    return conn


def _unopenable(path: Path, exc: sqlite3.Error) -> StoreError:
    if is_corruption(exc):
        return mark_damaged(path, str(exc))
    return StoreError(
        f"cannot open the database {path}: {exc}",
        hint="check that the data folder is writable and that the disk is not full",
    )


def _backup_before_migration(conn: sqlite3.Connection, path: Path, version: int) -> Path:
    target = path.with_name(f"{path.name}.v{version}-{int(time.time())}-{os.getpid()}.bak")
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
    import sqlite_utils  # only here: it costs a quarter of a second to import

    db = sqlite_utils.Database(conn)
    for number in range(version + 1, target + 1):
        try:
            conn.execute("BEGIN IMMEDIATE")
            # Another process starting on the same new folder may have applied it while
            # this one waited for the write lock: read the version again inside.
            if int(conn.execute("PRAGMA user_version").fetchone()[0]) >= number:
                conn.execute("COMMIT")
                continue
            MIGRATIONS[number - 1](db)
            conn.execute(f"PRAGMA user_version={number}")
            conn.execute("COMMIT")
        except sqlite3.DatabaseError as exc:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise StoreError(
                f"migrating {path} to schema version {number} failed: {exc}",
                hint="the database was left at the previous version; report this with the log",
            ) from exc
        log.info("database migrated to schema version %s", number)
    return target


def check_writable(path: Path) -> int:
    """What is checked before a process first writes into ``path``, read without changing
    anything: every page sound, a XyClaw database, not newer than this XyClaw. Returns its
    schema version (0: none yet); raises StoreCorruptError, StoreVersionError or StoreError."""
    version = inspect_version(path, check=True)
    if version > LATEST_VERSION:
        raise _newer(path, version)
    return version


def open_for_writing(path: Path, target: int = LATEST_VERSION) -> sqlite3.Connection:
    """Check the file, then open it for the one writer and bring its schema forward."""
    path.parent.mkdir(parents=True, exist_ok=True)
    check_writable(path)  # before this process writes into it
    conn = connect(path)
    try:
        migrate(conn, path, target)
    except BaseException:
        conn.close()
        raise
    return conn
