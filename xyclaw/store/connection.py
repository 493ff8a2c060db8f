"""What the store's reads and writes are handed: a connection, ``query`` and ``execute``.

The store's functions only need those; sqlite-utils (which imports numpy, click and
dateutil, a quarter of a second) is loaded when something asks for more of its API
(``db["table"].insert(...)``, the schema migrations), so a command that only reads and
updates rows starts without it.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import sqlite_utils


class Database:
    """One SQLite connection, with sqlite-utils' ``query`` and ``execute``; any other
    sqlite-utils attribute (``db["t"]``, ``db.table_names``...) is served by a
    ``sqlite_utils.Database`` on the same connection, made on first use."""

    __slots__ = ("_full", "conn")

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self._full: sqlite_utils.Database | None = None

    def execute(self, sql: str, parameters: Sequence[Any] | dict[str, Any] = ()) -> sqlite3.Cursor:
        return self.conn.execute(sql, parameters)

    def query(
        self, sql: str, params: Sequence[Any] | dict[str, Any] = ()
    ) -> Iterator[dict[str, Any]]:
        """Rows as dicts keyed by column name (as ``sqlite_utils.Database.query``)."""
        cursor = self.conn.execute(sql, params)
        keys = [d[0] for d in cursor.description or ()]
        for row in cursor:
            yield dict(zip(keys, row, strict=True))

    def table_names(self) -> list[str]:
        return [
            str(row[0])
            for row in self.conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"
            )
        ]

    def full(self) -> sqlite_utils.Database:
        """sqlite-utils' own object on this connection (imports sqlite-utils once)."""
        if self._full is None:
            import sqlite_utils

            self._full = sqlite_utils.Database(self.conn)
        return self._full

    def __getitem__(self, table: str) -> Any:
        return self.full()[table]

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.full(), name)
