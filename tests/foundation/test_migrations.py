"""Migrations that cannot collide, and old databases that upgrade keeping every row.

Each migration carries its version number (``xyclaw/store/migrations.py``): two branches
that each append one claim the same number, and the sequence check here fails until one
is renumbered. A database written by the code of an earlier version (the committed
``data/store_v<N>.sql`` files, made by ``tests/support/store_history.py``) is upgraded
by today's code, and every row it held is still there, as the app reads it.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from xyclaw.events import EventBus
from xyclaw.records import ClusterState, ClusterStore, JobStore
from xyclaw.store import LATEST_VERSION, Store, replay
from xyclaw.store import conversations as conv
from xyclaw.store.event_log import said_of
from xyclaw.store.migrations import MIGRATIONS, Migration

DATA = Path(__file__).resolve().parent / "data"
FIXTURES = sorted(DATA.glob("store_v*.sql"), key=lambda p: int(re.findall(r"\d+", p.stem)[0]))


def sequence_problems(migrations: Sequence[Migration]) -> list[str]:
    """What is wrong with a sequence of migrations; empty when each has the number of its
    place (1, 2, 3, ...), its own name, and a function named ``_m<version>_<name>``."""
    problems = []
    names: dict[str, int] = {}
    for place, migration in enumerate(migrations, start=1):
        if migration.version != place:
            problems.append(f"migration {migration.name!r} is numbered {migration.version}")
        if migration.name in names:
            problems.append(f"two migrations are named {migration.name!r}")
        names[migration.name] = migration.version
        function = getattr(migration.apply, "__name__", "")
        if function != f"_m{migration.version}_{migration.name}":
            problems.append(
                f"migration {migration.version} runs {function}(), "
                f"not _m{migration.version}_{migration.name}()"
            )
    return problems


def _step(version: int, name: str, function_version: int | None = None) -> Migration:
    """A migration as a branch would append it (its function does nothing)."""

    def apply(db: Any) -> None:
        pass

    apply.__name__ = f"_m{version if function_version is None else function_version}_{name}"
    return Migration(version, name, apply)


def test_the_versions_are_consecutive_unique_and_named_alike() -> None:
    assert sequence_problems(MIGRATIONS) == []
    assert LATEST_VERSION == MIGRATIONS[-1].version == len(MIGRATIONS)


def test_two_branches_appending_the_same_number_are_caught() -> None:
    """What a merge of two branches that each added "the next" migration looks like."""
    nxt = len(MIGRATIONS) + 1
    both = (*MIGRATIONS, _step(nxt, "add_x"), _step(nxt, "add_y"))
    assert sequence_problems(both) == [f"migration 'add_y' is numbered {nxt}"]
    assert sequence_problems((*MIGRATIONS, _step(nxt, "add_x"), _step(nxt + 1, "add_y"))) == []
    # Renumbering the entry but not its function is caught too.
    renumbered = (*both[:-1], _step(nxt + 1, "add_y", function_version=nxt))
    assert sequence_problems(renumbered) == [
        f"migration {nxt + 1} runs _m{nxt}_add_y(), not _m{nxt + 1}_add_y()"
    ]
    # So is a name used twice, and one put before the last landed one.
    assert f"two migrations are named {MIGRATIONS[0].name!r}" in sequence_problems(
        (*MIGRATIONS, _step(nxt, MIGRATIONS[0].name))
    )
    assert sequence_problems((*MIGRATIONS[:-1], _step(nxt, "add_x"), MIGRATIONS[-1]))


def _rows(conn: sqlite3.Connection, table: str, columns: Sequence[str]) -> list[tuple[Any, ...]]:
    """Every row, in a fixed order (some tables have no rowid)."""
    listed = ", ".join(f'"{c}"' for c in columns)
    return sorted(conn.execute(f'SELECT {listed} FROM "{table}"').fetchall(), key=repr)


def _tables(conn: sqlite3.Connection) -> dict[str, list[str]]:
    names = [
        r[0]
        for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
        )
    ]
    return {n: [c[1] for c in conn.execute(f'PRAGMA table_info("{n}")')] for n in names}


def _load(fixture: Path, path: Path) -> int:
    conn = sqlite3.connect(path)
    try:
        conn.executescript(fixture.read_text(encoding="utf-8"))
        return int(conn.execute("PRAGMA user_version").fetchone()[0])
    finally:
        conn.close()


def test_there_is_a_database_of_schema_version_10() -> None:
    assert DATA / "store_v10.sql" in FIXTURES


@pytest.mark.parametrize("fixture", FIXTURES, ids=lambda p: p.stem)
def test_an_older_database_upgrades_keeping_every_row(fixture: Path, tmp_path: Path) -> None:
    path = tmp_path / "history.db"
    version = _load(fixture, path)
    assert f"store_v{version}" == fixture.stem
    conn = sqlite3.connect(path)
    old_tables = _tables(conn)
    before = {t: _rows(conn, t, cols) for t, cols in old_tables.items()}
    conn.close()
    empty = sorted(t for t, rows in before.items() if not rows)
    assert not empty, f"the fixture should hold rows in every table: {empty}"

    with Store(path) as store:
        assert store.info().schema_version == LATEST_VERSION
        # Every row of every table, each column the old schema had, unchanged.
        with store.reading() as db:
            new_tables = _tables(db.conn)
            for table, columns in old_tables.items():
                assert table in new_tables, f"table {table} is gone"
                assert set(columns) <= set(new_tables[table]), f"columns of {table} are gone"
                assert _rows(db.conn, table, columns) == before[table], table

        # And the app reads them as it did: records, worded errors, logs, samples, chats.
        clusters = ClusterStore(store, EventBus())
        trained, released = clusters.find("train-a"), clusters.find("old-b")
        assert trained.state is ClusterState.READY
        assert [n.hostname for n in trained.nodes] == ["train-a-node0", "train-a-node1"]
        assert released.state is ClusterState.RELEASED
        assert "exit code 137 on old-b-node0" in str(released.error)
        jobs = JobStore(store, EventBus())
        job = jobs.get(jobs.find("lora-7b").id)
        assert job.state.value == "succeeded"
        assert [a.state for a in job.attempts] == ["failed", "succeeded"]
        lines = jobs.lines(job.id, limit=10)
        assert "中文日志 ok" in [line.text for line in lines]
        samples = store.gpu_samples(trained.id, 0, 2**62)
        assert len(samples) == 10 * 2 * 8
        assert set(samples.records["util"].tolist()) == {97}
        events = replay.cluster_events(store, trained.id)
        worded = [said_of(e) for e in events]
        assert any(s is not None and s.key == "job.succeeded" for s in worded)
        (conversation,) = conv.list_conversations(store)
        texts = [m["content"] for m in conv.list_messages(store, conversation["id"])]
        assert texts[0] == "plan a LoRA fine-tune of a 7B model on 8 GPUs"
    backups = list(tmp_path.glob(f"history.db.v{version}-*.bak"))
    if version < LATEST_VERSION:
        assert backups, "a copy is kept before migrating"


def test_the_generator_still_fills_every_table_of_the_fixtures(tmp_path: Path) -> None:
    """So the file for a later version can be made the same way (see store_history.py)."""
    from tests.support.store_history import dump, fill

    with Store(tmp_path / "now.db") as store:
        fill(store)
    rebuilt = tmp_path / "rebuilt.db"
    _load_text(dump(tmp_path / "now.db"), rebuilt)
    conn = sqlite3.connect(rebuilt)
    try:
        assert int(conn.execute("PRAGMA user_version").fetchone()[0]) == LATEST_VERSION
        counts = {t: len(_rows(conn, t, cols)) for t, cols in _tables(conn).items()}
    finally:
        conn.close()
    newest = sqlite3.connect(tmp_path / "fixture.db")
    try:
        newest.executescript(FIXTURES[-1].read_text(encoding="utf-8"))
        fixture_tables = set(_tables(newest))
    finally:
        newest.close()
    assert all(counts.get(t, 0) > 0 for t in fixture_tables), counts


def _load_text(text: str, path: Path) -> None:
    conn = sqlite3.connect(path)
    try:
        conn.executescript(text)
    finally:
        conn.close()
