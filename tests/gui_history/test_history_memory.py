"""The History page's memory tab, its jobs' cost per result and MFU, and the comparison's
result rows (issue 36), offscreen, over prepared histories in a real SQLite file."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QStandardItemModel
from pytestqt.qtbot import QtBot

from tests.support.result_history import write_jobs
from tests.support.track_history import write_history
from xyclaw.config import load_config
from xyclaw.engine import Engine
from xyclaw.engine.compose import build_engine
from xyclaw.gui.bridge import Worker
from xyclaw.gui.history_data import HistorySource
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
def page(qtbot: QtBot, engine: Engine) -> Iterator[HistoryPage]:
    worker = Worker()
    shown = HistoryPage(HistorySource(lambda: engine.paths.database), worker, engine=engine)
    qtbot.addWidget(shown)
    shown.resize(1300, 900)
    shown.show()
    qtbot.waitExposed(shown)
    qtbot.waitUntil(lambda: len(shown.jobs) == 3 and not shown.busy, timeout=20_000)
    yield shown
    worker.close()


def _column(model: QStandardItemModel, header: str) -> int:
    across = Qt.Orientation.Horizontal
    return [model.headerData(c, across) for c in range(model.columnCount())].index(header)


def test_the_jobs_list_shows_cost_per_result_and_mfu(page: HistoryPage) -> None:
    model = page.job_model
    per, mfu = _column(model, "Cost per result"), _column(model, "MFU")
    rows = {model.item(r, 1).text(): r for r in range(model.rowCount())}
    assert "/ M tokens" in model.item(rows["full-7b"], per).text()
    assert "0.47" in model.item(rows["full-7b"], per).text()  # 28 CNY for 60M tokens
    assert model.item(rows["full-7b"], mfu).text() == "33.7%"  # 6N: see test_job_results
    assert model.item(rows["lora-13b"], mfu).text() == "25.0%"  # 4N for LoRA
    assert "/ 1k requests" in model.item(rows["serve-7b"], per).text()
    assert model.item(rows["serve-7b"], mfu).text() == "–"


def test_the_memory_tab_shows_each_provider_its_marks_and_cost_per_result_by_month(
    page: HistoryPage, qtbot: QtBot
) -> None:
    page.lists.setCurrentIndex(2)
    view = page.memory_view
    assert page.lists.tabText(2) == "Hosts and providers" and page.lists.isTabVisible(2)
    standings = view.standings
    by_key = {standings.item(r, 0).text(): r for r in range(standings.rowCount())}
    memory = by_key["memory"]
    assert standings.item(memory, 1).text() == "4"  # the last 90 days: not April's cluster
    assert standings.item(memory, 2).text() == "3"  # failed rentals
    assert standings.item(memory, 5).text() == "61%"  # worst bus bandwidth
    assert standings.item(by_key["drifty"], 9).text() == "+12%"
    assert "remembered" in page.summary.text()
    assert page.selected_ids() == [] and not page.replay_button.isEnabled()

    view.by.setCurrentIndex(view.by.findData("node_class"))
    keys = [standings.item(r, 0).text() for r in range(standings.rowCount())]
    assert keys[0] == "memory / Xiamen / A800 / roce-200"  # the most failed first

    whats = {view.marks.item(r, 3).text() for r in range(view.marks.rowCount())}
    assert {"XID error", "low bus bandwidth", "never came up", "billed off the quote"} <= whats
    details = [view.marks.item(r, 4).text() for r in range(view.marks.rowCount())]
    assert any("nvidia-smi not found" in d for d in details)

    trends = view.trend_table
    assert trends.rowCount() == 1
    assert [trends.item(0, c).text() for c in (0, 1, 2, 3)] == ["2026-04", "memory", "A800", "3"]
    assert "0.58" in trends.item(0, 4).text()  # (28 + 28) CNY for 96M tokens
    assert "0.62" in trends.item(0, 5).text()  # 56 CNY for 90,000 requests


def test_comparing_jobs_shows_their_cost_per_result(page: HistoryPage, qtbot: QtBot) -> None:
    ids = sorted(int(r["id"]) for r in page.jobs if r["name"] in ("full-7b", "lora-13b"))
    page.open_comparison(ids)
    qtbot.waitUntil(lambda: page.comparison is not None and not page.busy, timeout=20_000)
    assert page.comparison is not None
    rows = {row.key: row.values for row in page.comparison.table(differences_only=False)}
    assert rows["result.method"] == ("full", "lora")
    assert rows["result.mfu"] == ("33.7%", "25%")
    per_m = rows["result.cost_per_m_tokens"]
    assert per_m[0] is not None and "0.47" in per_m[0]
    assert per_m[1] is not None and "0.78" in per_m[1]


def test_the_jobs_page_shows_a_jobs_cost_per_result_and_mfu(qtbot: QtBot, engine: Engine) -> None:
    from xyclaw.gui.bridge import EngineBridge
    from xyclaw.gui.jobs_page import JobsPage
    from xyclaw.gui.main_window import WindowContext

    worker = Worker()
    bridge = EngineBridge.for_engine(engine)
    page = JobsPage(WindowContext(engine=engine, bridge=bridge, worker=worker), refresh_ms=300)
    qtbot.addWidget(page)
    page.resize(1300, 850)
    page.show()
    try:
        lora = next(j for j in engine.jobs(include_finished=True) if j.name == "lora-13b")
        page.select_job(lora.id)
        qtbot.waitUntil(
            lambda: page.detail is not None and page.detail.result is not None, timeout=20_000
        )
        per = page.cost_rows["per_result"][1].text()
        assert "per M tokens" in per and "0.78" in per and "per epoch" in per
        assert page.cost_rows["mfu"][1].text() == "25.0% (4N FLOPs per token, 8 x A800)"
    finally:
        page.hide()
        bridge.close()
        qtbot.waitUntil(lambda: worker.busy == 0, timeout=30_000)
        worker.close()


def test_the_plan_page_uses_the_memory_unless_told_not_to(qtbot: QtBot) -> None:
    from xyclaw.gui.bridge import EngineBridge
    from xyclaw.gui.main_window import WindowContext
    from xyclaw.gui.plan_page import PlanPage

    paths = AppPaths.from_environment()
    paths.database.parent.mkdir(parents=True, exist_ok=True)
    write_history(paths.database, provider="sim")  # the built-in cloud's RoCE class failed
    eng = build_engine(paths, load_config(paths.config_file), providers=ProviderRegistry())
    worker = Worker()
    bridge = EngineBridge.for_engine(eng)
    page = PlanPage(WindowContext(engine=eng, bridge=bridge, worker=worker))
    qtbot.addWidget(page)
    page.show()

    def rules() -> set[str]:
        assert page.view is not None
        return {rule for o in page.view.outcome.result.options for rule, _ in o.reasons}

    try:
        assert page.use_memory.isChecked()
        page.set_values(task="finetune-lora", model_size="13B", gpus="16", gpu="A800")
        assert page.plan() is not False
        qtbot.waitUntil(lambda: page.view is not None and not page.planning, timeout=30_000)
        assert "memory-node-class" in rules()
        page.use_memory.setChecked(False)
        shown = page.view
        assert page.plan() is not False
        qtbot.waitUntil(lambda: page.view is not shown and not page.planning, timeout=30_000)
        assert not any(rule.startswith("memory-") for rule in rules())
    finally:
        page.hide()
        bridge.close()
        qtbot.waitUntil(lambda: worker.busy == 0, timeout=30_000)
        worker.close()
        eng.close()


def test_cost_per_result_and_mfu_are_shown_from_the_headers_menu(
    page: HistoryPage, qtbot: QtBot
) -> None:
    """Hidden in the list at first (every column stays in view at the default size); a
    right-click on a header lists every column with a check, and checking one shows it."""
    from PySide6.QtWidgets import QApplication, QMenu

    table = page.job_table
    per, mfu = _column(page.job_model, "Cost per result"), _column(page.job_model, "MFU")
    assert table.isColumnHidden(per) and table.isColumnHidden(mfu)
    header = table.horizontalHeader()
    header.customContextMenuRequested.emit(header.rect().center())
    qtbot.waitUntil(
        lambda: any(isinstance(w, QMenu) and w.isVisible() for w in QApplication.topLevelWidgets())
    )
    menu = next(w for w in QApplication.topLevelWidgets() if isinstance(w, QMenu) and w.isVisible())
    checks = {a.text(): a for a in menu.actions()}
    assert not checks["Cost per result"].isChecked() and checks["Job"].isChecked()
    checks["Cost per result"].trigger()
    menu.close()
    assert not table.isColumnHidden(per) and table.isColumnHidden(mfu)
