"""Settings builds its first tab on the page's first open and each other tab when first
shown (issue 28: all six took 80-130 ms of the main thread on the first open). What a user
would notice if that were wrong: a tab opened later must show the saved settings and what
the page read on its first show at once (no empty table or blank values), in the language
chosen while it was not built yet."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtWidgets import QComboBox, QDoubleSpinBox, QWidget
from pytestqt.qtbot import QtBot

from xyclaw.config import load_config, write_setting
from xyclaw.engine import Engine
from xyclaw.engine.compose import build_engine
from xyclaw.gui import i18n
from xyclaw.gui.bridge import Worker
from xyclaw.gui.settings_page import SettingsPage
from xyclaw.paths import AppPaths
from xyclaw.providers import ProviderRegistry
from xyclaw.store import Store

pytestmark = pytest.mark.gui


@pytest.fixture
def engine(xyclaw_home: Path) -> Iterator[Engine]:
    paths = AppPaths.from_environment()
    paths.ensure()
    for dotted, value in (
        ("billing.default_budget", 42.5),
        ("billing.on_budget_exhausted", "warn"),
        ("sim.provision_delay_s", 3.5),
        ("gui.theme", "dark"),
        ("gui.close_to_tray", False),
    ):
        write_setting(paths.config_file, dotted, value)
    (paths.config_dir / "hosts.toml").write_text(
        '[[host]]\nname = "gpu-lab-1"\ngpu = "A800"\ngpus = 8\nfabric = "none"\n'
    )
    eng = build_engine(
        paths,
        load_config(paths.config_file),
        providers=ProviderRegistry(),
        store=Store(paths.database),
    )
    yield eng
    eng.close()


@pytest.fixture
def worker() -> Iterator[Worker]:
    w = Worker()
    yield w
    w.close()


def _shown(qtbot: QtBot, engine: Engine, worker: Worker) -> SettingsPage:
    page = SettingsPage(engine, worker)
    qtbot.addWidget(page)
    page.resize(1200, 820)
    page.show()
    qtbot.waitExposed(page)
    qtbot.waitUntil(lambda: not page.busy, timeout=10_000)
    return page


def test_tabs_built_on_first_show_open_with_the_saved_values_and_the_data_read(
    qtbot: QtBot, engine: Engine, worker: Worker
) -> None:
    page = _shown(qtbot, engine, worker)
    first_open = len(page.findChildren(QWidget))
    assert [page.tab_built(i) for i in range(6)] == [True] + [False] * 5
    assert page.base_url.isVisible()  # the first tab is whole at once

    # Each tab, opened after the page's reads finished, shows them the moment it is shown:
    # no wait here (a blank table or value would be seen for as long as it took).
    page.tabs.setCurrentIndex(3)
    budget = page.money_fields["billing.default_budget"]
    assert isinstance(budget, QDoubleSpinBox) and budget.value() == 42.5
    action = page.money_fields["billing.on_budget_exhausted"]
    assert isinstance(action, QComboBox) and action.currentData() == "warn"
    assert "starting" in page.allow_status.text()  # no agents in this test: said so

    page.tabs.setCurrentIndex(1)
    assert page.hosts_table.isVisible() and page.hosts_table.rowCount() == 1
    host = page.hosts_table.item(0, 0)
    assert host is not None and host.text() == "gpu-lab-1"
    assert page.host_test.isEnabled() and not page.hosts_empty.isVisible()

    page.tabs.setCurrentIndex(2)
    assert page.sim_delay.value() == 3.5 and "Not running" in page.sim_status.text()

    page.tabs.setCurrentIndex(4)
    assert page.theme.currentData() == "dark" and not page.tray.isChecked()

    page.tabs.setCurrentIndex(5)
    assert page.data_values["database"].text() == str(engine.paths.database)
    assert len(page.findChildren(QWidget)) > first_open * 2  # the first open built far less


def test_a_tab_built_after_a_language_switch_speaks_it(
    qtbot: QtBot, engine: Engine, worker: Worker
) -> None:
    page = _shown(qtbot, engine, worker)
    try:
        i18n.install("zh_CN")
        qtbot.waitUntil(lambda: page.tabs.tabText(5) != "Data", timeout=3000)
        assert not page.tab_built(5)
        page.tabs.setCurrentIndex(5)
        assert page.data_refresh.text() not in ("", "Refresh")
        assert page.data_values["database"].text() == str(engine.paths.database)
    finally:
        i18n.install("en")


def test_code_outside_the_page_reaching_a_widget_of_an_unbuilt_tab_gets_it_built(
    qtbot: QtBot, engine: Engine, worker: Worker
) -> None:
    page = _shown(qtbot, engine, worker)
    assert not page.tab_built(3)
    assert page.money_values()["billing.default_budget"] == 42.5  # built on the way
    assert page.tab_built(3)
    assert not hasattr(page, "no_such_widget")  # every tab built, and still none has it
