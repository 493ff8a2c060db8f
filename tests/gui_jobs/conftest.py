"""The Jobs page's fixtures: the job runtime's engine with clusters of simulated nodes (real
SSH on loopback), or the simulated cloud (its own process) for specs that rent; the page on
that engine with the window's own bridge and worker."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pyqtgraph")

from pytestqt.qtbot import QtBot

from tests.gui.conftest import history_store, sim_engine  # noqa: F401
from tests.jobs_runtime.conftest import (  # noqa: F401  (fixtures used by the tests here)
    MakeCluster,
    engine,
    make_cluster,
)
from xyclaw.engine import Engine
from xyclaw.gui.bridge import EngineBridge, Worker
from xyclaw.gui.jobs_page import JobsPage
from xyclaw.gui.main_window import WindowContext

MakePage = Callable[[Engine], JobsPage]


@pytest.fixture
def make_page(qtbot: QtBot) -> Iterator[MakePage]:
    made: list[tuple[JobsPage, EngineBridge, Worker]] = []

    def make(on: Engine) -> JobsPage:
        worker = Worker()
        bridge = EngineBridge.for_engine(on)
        context = WindowContext(engine=on, bridge=bridge, worker=worker)
        page = JobsPage(context, refresh_ms=300, follow_ms=200)
        qtbot.addWidget(page)
        page.resize(1300, 850)
        page.show()
        qtbot.waitExposed(page)
        made.append((page, bridge, worker))
        return page

    yield make
    for page, bridge, worker in made:
        page.hide()
        bridge.close()
        # a look still asking the nodes (the why-stuck test's, with the cluster going) retries
        # its connections: on a loaded machine that outlasted 30 s
        qtbot.waitUntil(lambda w=worker: w.busy == 0, timeout=120_000)
        worker.close()


def wait(qtbot: QtBot, condition: Callable[[], object], timeout: int = 30_000) -> None:
    qtbot.waitUntil(lambda: bool(condition()), timeout=timeout)
