"""SQL lives only in xyclaw.store, behind named functions (the simulated cloud stands apart)."""

from __future__ import annotations

import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "xyclaw"
SQL = re.compile(
    r"""["'][^"'\n]*\b(SELECT\s+[\w*(]|INSERT\s+(OR\s+\w+\s+)?INTO\b|UPDATE\s+\w+\s+SET\b|"""
    r"""DELETE\s+FROM\b|CREATE\s+(TABLE|INDEX)\b|PRAGMA\s+\w+)""",
)


def test_no_sql_text_outside_the_store() -> None:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel.startswith(("store/", "sim/")):
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if SQL.search(line):
                found.append(f"xyclaw/{rel}:{number}: {line.strip()}")
    assert not found, "move this SQL into xyclaw/store/:\n" + "\n".join(found)


def test_the_check_finds_sql_where_it_is() -> None:
    assert SQL.search('rows = store.query("SELECT id FROM jobs WHERE x = ?")')
    assert SQL.search("db.execute('DELETE FROM events WHERE ts < ?')")
    assert not SQL.search('ctx.print("Select an option from the list")')
