"""Issue 23: the real window, offscreen, on the history of a real simulated-cloud run, with
a `xyclaw` command run in its own process beside it at every page (as the README invites):
no page shows a database error, the window's WAL is never removed under it, the cost the
History page shows is the cost `xyclaw billing` shows, and what the window records after
all those commands is still there when it has closed."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtWidgets import QAbstractButton, QLabel, QPlainTextEdit, QTextEdit
from pytestqt.qtbot import QtBot

from tests.gui_history.conftest import FailingProviders
from xyclaw.engine.compose import Composition
from xyclaw.gui.history_page import HistoryPage
from xyclaw.gui.main_window import MainWindowController
from xyclaw.gui.pages import PAGES
from xyclaw.paths import AppPaths
from xyclaw.store.plans import PlanTable

pytestmark = [pytest.mark.gui, pytest.mark.slow]

DATABASE_ERRORS = ("disk I/O", "cannot open the database", "malformed", "is damaged", "locked")


def _xyclaw(*args: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, "-m", "xyclaw.cli.main", *args],
        capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert not any(e in done.stdout + done.stderr for e in DATABASE_ERRORS), done.stderr
    return done


def _shown_text(ctl: MainWindowController) -> str:
    window = ctl.window
    parts = [w.text() for w in window.findChildren(QLabel) if w.isVisible()]
    parts += [w.text() for w in window.findChildren(QAbstractButton) if w.isVisible()]
    parts += [w.toPlainText() for w in window.findChildren(QTextEdit) if w.isVisible()]
    parts += [w.toPlainText() for w in window.findChildren(QPlainTextEdit) if w.isVisible()]
    return "\n".join(parts)


@pytest.fixture
def window(
    offline_parts: Composition, offline: FailingProviders, qtbot: QtBot
) -> Iterator[MainWindowController]:
    ctl = MainWindowController(
        offline_parts.engine, None, tray_available=False, on_quit=lambda: None,
        status_refresh_ms=3_600_000,
    )  # fmt: skip
    ctl.window.resize(1400, 900)
    ctl.window.show()
    qtbot.waitExposed(ctl.window)
    qtbot.waitUntil(lambda: ctl.worker.busy == 0, timeout=10_000)
    yield ctl
    ctl.quit_now()
    qtbot.wait(20)


def test_every_page_with_a_command_run_beside_it(
    window: MainWindowController, offline_parts: Composition, qtbot: QtBot
) -> None:
    db = AppPaths.from_environment().database
    wal = Path(f"{db}-wal")
    window.show_page("history")  # its ReadOnlyStore opened the file again before issue 23
    history = window.page_widgets["history"]
    assert isinstance(history, HistoryPage)
    qtbot.waitUntil(lambda: bool(history.clusters) and not history.busy, timeout=15_000)
    wal_inode = wal.stat().st_ino
    for info in PAGES:
        window.show_page(info.key)
        qtbot.waitUntil(lambda: window.worker.busy == 0, timeout=15_000)
        _xyclaw("jobs", "--all")  # in a terminal beside the window
        qtbot.wait(100)
        qtbot.waitUntil(lambda: window.worker.busy == 0, timeout=15_000)
        shown = _shown_text(window)
        assert not [e for e in DATABASE_ERRORS if e in shown], (info.key, shown[-2000:])
        assert wal.exists() and wal.stat().st_ino == wal_inode, info.key

    # The same totals: the History page's cost of each cluster is the meter's, as billing says.
    billing = json.loads(_xyclaw("billing", "--json").stdout)
    metered = {c["id"]: c["meter_micros"] for c in billing["clusters"]}
    window.show_page("history")
    history.refresh()
    qtbot.waitUntil(lambda: not history.busy, timeout=15_000)
    shown_costs = {c["id"]: round(c["cost_micros"] or 0) for c in history.clusters}
    assert shown_costs and all(metered.get(cid) == cost for cid, cost in shown_costs.items())

    # What the window records after the commands survives it.
    plan_id = PlanTable(offline_parts.store).add({"after": "the commands"}, {"options": []})
    _xyclaw("clusters", "--all")
    assert wal.stat().st_ino == wal_inode
    window.quit_now()
    offline_parts.engine.close()
    conn = sqlite3.connect(db)
    try:
        assert conn.execute("SELECT count(*) FROM plans WHERE id = ?", [plan_id]).fetchone()[0]
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        conn.close()
