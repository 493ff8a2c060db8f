"""Issue 11, defect 5: a damaged (or foreign) database is noticed before anything is written
into it, every command says so in one message, and the file stays exactly as it was."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from tests.defects.clirun import fingerprint, one_clear_message, xyclaw
from xyclaw.errors import StoreCorruptError, StoreError
from xyclaw.paths import AppPaths
from xyclaw.remote.node_access import load_or_create_app_key
from xyclaw.store import Store
from xyclaw.store.plans import PlanTable

PAGE = 16_384


def _history(paths: AppPaths, plans: int = 200) -> Path:
    """A real history database spanning many pages (saved plans are a few KB each)."""
    paths.ensure()
    assert xyclaw("doctor").code == 0  # the folder as XyClaw leaves it after a first run
    load_or_create_app_key(paths.data_dir / "ssh" / "id_ecdsa")  # made by the first `up`
    store = Store(paths.database)
    try:
        table = PlanTable(store, lambda: 1_700_000_000.0)
        for i in range(plans):
            table.add({"task": "pretrain", "i": i}, {"options": [], "notes": ["x" * 2000]})
    finally:
        store.close()
    assert paths.database.stat().st_size > 20 * PAGE
    return paths.database


def _damage_past_the_first_page(db: Path) -> None:
    """Overwrite a page among the saved plans, well past the header page."""
    data = bytearray(db.read_bytes())
    start = len(data) - 8 * PAGE
    data[start : start + PAGE] = b"\xde\xad\xbe\xef" * (PAGE // 4)
    db.write_bytes(bytes(data))


COMMANDS = (
    ("clusters",),
    ("billing",),
    ("db", "info"),
    ("db", "backup", "/tmp/xyclaw-defects-never-written.db"),
    ("metrics", "export", "--cluster", "x"),
    ("up", "--provider", "local", "--gpu", "A100-80G", "--gpus", "1", "--yes"),
    ("down", "1", "--yes"),
    ("exec", "1", "--", "true"),
    ("top", "1", "--once"),
    ("tune", "1"),
    ("plan", "--task", "finetune-lora", "--model-size", "7B", "--tokens", "1B"),
)


def test_damage_past_the_first_page_is_found_by_doctor(xyclaw_home: Path) -> None:
    paths = AppPaths.from_environment()
    _damage_past_the_first_page(_history(paths))
    before = fingerprint(xyclaw_home)
    outcome = xyclaw("doctor")
    assert outcome.code == 1
    assert "[FAIL] database" in outcome.out and "damaged" in outcome.out
    assert "mv " in outcome.out  # how to move it aside
    assert fingerprint(xyclaw_home) == before


@pytest.mark.parametrize("args", COMMANDS, ids=[" ".join(a) for a in COMMANDS])
def test_no_command_writes_into_a_damaged_database(xyclaw_home: Path, args: tuple[str]) -> None:
    paths = AppPaths.from_environment()
    _damage_past_the_first_page(_history(paths))
    before = fingerprint(xyclaw_home)
    outcome = xyclaw(*args)
    one_clear_message(outcome)
    assert not Path("/tmp/xyclaw-defects-never-written.db").exists()
    assert "damaged" in outcome.err and "left exactly as it is" in outcome.err, outcome.err
    assert fingerprint(xyclaw_home) == before


def test_damage_found_while_running_stops_every_later_write(xyclaw_home: Path) -> None:
    """A reader that meets a damaged page gets the store's error (not sqlite3's), and the
    writer then refuses to write into that file."""
    paths = AppPaths.from_environment()
    db = _history(paths)
    store = Store(db)
    try:
        _damage_past_the_first_page(db)
        with pytest.raises(StoreCorruptError, match="damaged"):
            store.query("SELECT count(*), max(length(result_json)) FROM plans")
        before = db.read_bytes()
        with pytest.raises(StoreCorruptError):
            PlanTable(store, lambda: 1.0).add({"task": "x"}, {"options": []})
        assert db.read_bytes() == before
    finally:
        store.close()


def test_a_foreign_database_is_left_untouched(xyclaw_home: Path) -> None:
    paths = AppPaths.from_environment()
    paths.ensure()
    assert xyclaw("doctor").code == 0
    load_or_create_app_key(paths.data_dir / "ssh" / "id_ecdsa")
    conn = sqlite3.connect(paths.database)
    conn.execute("CREATE TABLE photos (id INTEGER PRIMARY KEY, path TEXT)")
    conn.execute("INSERT INTO photos (path) VALUES ('/home/me/cat.jpg')")
    conn.commit()
    conn.close()
    before = fingerprint(xyclaw_home)
    database, listing = paths.database.read_bytes(), sorted(paths.data_dir.iterdir())
    with pytest.raises(StoreError, match="not a XyClaw database"):
        Store(paths.database)
    for args in (("clusters",), ("db", "info"), ("doctor",)):
        outcome = xyclaw(*args)
        assert outcome.code != 0 and "not a XyClaw database" in outcome.text, outcome
        assert "Traceback" not in outcome.text
    assert fingerprint(xyclaw_home) == before
    for args in _every_command():
        outcome = xyclaw(*args, stdin="")
        assert "Traceback" not in outcome.text and "internal error" not in outcome.err, outcome
        if outcome.code != 0 and str(paths.database) in outcome.text:  # about the history
            assert "not a XyClaw database" in outcome.text, outcome
        assert (paths.database.read_bytes(), sorted(paths.data_dir.iterdir())) == (
            database,
            listing,
        ), args


#: The guard's actions are one positional argument, so the parser walk meets only `guard`.
GUARD_ACTIONS = (["guard", "--once"], ["guard", "start"], ["guard", "status"], ["guard", "stop"])


def _every_command() -> list[list[str]]:
    from tests.defects.test_bad_input import _leaf_commands

    found = [a for a in _leaf_commands() if a[:2] != ["sim", "serve"]]  # serves until stopped
    return found + [list(a) for a in GUARD_ACTIONS]


@pytest.mark.parametrize("args", _every_command(), ids=" ".join)
def test_every_command_on_a_damaged_database(xyclaw_home: Path, args: list[str]) -> None:
    """Each command either does its work without the history, or says the file is damaged;
    none writes into it, none shows a traceback."""
    paths = AppPaths.from_environment()
    _damage_past_the_first_page(_history(paths))
    before = fingerprint(xyclaw_home)
    outcome = xyclaw(*args, stdin="")
    assert "Traceback" not in outcome.text and "internal error" not in outcome.err, outcome
    if outcome.code != 0 and str(paths.database) in outcome.text:  # about the history
        assert "damaged" in outcome.text, outcome
    assert {k: v for k, v in fingerprint(xyclaw_home).items() if k != "config/hosts.toml"} == {
        k: v for k, v in before.items() if k != "config/hosts.toml"
    }
