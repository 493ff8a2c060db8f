"""The agents' checkpoint file: apart from the history database, so the two never share a lock."""

from __future__ import annotations

import sqlite3
from pathlib import Path


def open_checkpoint_connection(path: Path) -> sqlite3.Connection:
    """A connection for LangGraph's SqliteSaver (one per file; used from several threads)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(str(path), check_same_thread=False, timeout=30)
    conn.execute("PRAGMA journal_mode=WAL")
    return conn
