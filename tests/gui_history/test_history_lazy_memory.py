"""History builds its "Hosts and providers" tab when first shown (issue 28: its three
tables were about half of building the page on its first open). What a user would notice
if that were wrong: the tab, opened after the page read the history or before the read
came back, must show the providers' standings and the summary under the list."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from pytestqt.qtbot import QtBot

from tests.support.result_history import write_jobs
from tests.support.track_history import write_history
from xyclaw.config import load_config
from xyclaw.engine import Engine
from xyclaw.engine.compose import build_engine
from xyclaw.gui.bridge import Worker
from xyclaw.gui.history_data import HistorySource
from xyclaw.gui.history_memory import MemoryView
from xyclaw.gui.history_page import HistoryPage
from xyclaw.paths import AppPaths
from xyclaw.providers import ProviderRegistry

pytestmark = pytest.mark.gui


@pytest.fixture
def engine() -> Iterator[Engine]:
    paths = AppPaths.from_environment()
    paths.database.parent.mkdir(parents=True, exist_ok=True)
    write_history(paths.database)
    write_jobs(paths.database)
    eng = build_engine(paths, load_config(paths.config_file), providers=ProviderRegistry())
    yield eng
    eng.close()


@pytest.fixture
def worker() -> Iterator[Worker]:
    w = Worker()
    yield w
    w.close()


def _page(qtbot: QtBot, engine: Engine, worker: Worker) -> HistoryPage:
    page = HistoryPage(HistorySource(lambda: engine.paths.database), worker, engine=engine)
    qtbot.addWidget(page)
    page.resize(1300, 900)
    return page


def _providers(page: HistoryPage) -> set[str]:
    table = page.memory_view.standings
    return {table.item(r, 0).text() for r in range(table.rowCount())}  # type: ignore[union-attr]


def test_the_tab_opened_after_the_read_shows_the_standings_at_once(
    qtbot: QtBot, engine: Engine, worker: Worker
) -> None:
    page = _page(qtbot, engine, worker)
    page.show()
    qtbot.waitUntil(lambda: len(page.jobs) == 3 and not page.busy, timeout=20_000)
    assert not page.memory_built() and not page.findChildren(MemoryView)  # not on first open
    page.lists.setCurrentIndex(2)  # no wait: what was read is in the tab as it is shown
    assert page.memory_built() and page.memory_view.isVisible()
    assert {"memory", "drifty"} <= _providers(page)
    assert "rentals from" in page.summary.text()


def test_the_tab_opened_before_the_read_came_back_fills_when_it_does(
    qtbot: QtBot, engine: Engine, worker: Worker
) -> None:
    page = _page(qtbot, engine, worker)
    page.lists.setCurrentIndex(2)  # before the first show's read is even asked for
    page.show()
    assert page.memory_view.isVisible()
    qtbot.waitUntil(lambda: len(page.jobs) == 3 and not page.busy, timeout=20_000)
    assert {"memory", "drifty"} <= _providers(page)
    assert "rentals from" in page.summary.text()
