"""The small words of issue 28, item 8: "1 nodes answer SSH" and "fabric none" no more, and
Settings' subtitle says where keys go as the key's own line does."""

from __future__ import annotations

import time

import pytest

pytest.importorskip("PySide6")

from pytestqt.qtbot import QtBot

from tests.gui.conftest import MakeWindow
from xyclaw.engine import Engine
from xyclaw.engine.lifecycle import UpRequest
from xyclaw.gui import history_words
from xyclaw.gui.history_data import TimelineItem

pytestmark = pytest.mark.slow


def test_one_ready_node_is_said_in_the_singular() -> None:
    _what, one = history_words.describe(TimelineItem(time.time(), "ready", params={"nodes": 1}))
    _what, two = history_words.describe(TimelineItem(time.time(), "ready", params={"nodes": 2}))
    assert one == "the node answers SSH and passed its checks"
    assert two == "2 nodes answer SSH and passed their checks"


def test_a_single_node_cluster_says_single_node_not_fabric_none(
    qtbot: QtBot, make_window: MakeWindow, sim_engine: Engine
) -> None:
    quote = sim_engine.quote_request(UpRequest(provider="sim", gpu="RTX4090", gpu_count=1))
    cluster = sim_engine.up(quote).result(120)
    assert cluster.fabric == "none"
    ctl = make_window(sim_engine)
    ctl.show_page("clusters")
    page = ctl.page_widgets["clusters"]
    qtbot.waitUntil(lambda: bool(page.records) if hasattr(page, "records") else True, timeout=5000)
    page.select_cluster(cluster.id)
    qtbot.waitUntil(lambda: cluster.name in page.heading.text(), timeout=5000)
    info = page.info.text()
    assert "single node" in info and "fabric none" not in info, info

    ctl.show_page("settings")
    settings = ctl.page_widgets["settings"]
    subtitle = settings.subtitle.text()
    assert "keyring only" not in subtitle
    if "a file only you can read" in settings.key_where.text():
        assert "a file only you can read" in subtitle


@pytest.mark.parametrize(("step", "total"), [(7, 200), (1, 3), (199, 200), (50, 200), (0, 9)])
def test_the_table_and_the_bar_show_the_same_percent(qtbot: QtBot, step: int, total: int) -> None:
    from types import SimpleNamespace

    from PySide6.QtWidgets import QProgressBar

    from xyclaw.gui.jobs_page import progress_text

    bar = QProgressBar()
    qtbot.addWidget(bar)
    bar.setRange(0, total)
    bar.setValue(step)
    bar.setFormat("%p%")
    job = SimpleNamespace(progress=SimpleNamespace(step=step, total_steps=total))
    assert progress_text(job).endswith(f"({bar.text()})")  # type: ignore[arg-type]


def test_show_released_off_lists_no_released_cluster(
    qtbot: QtBot, make_window: MakeWindow, sim_engine: Engine
) -> None:
    quote = sim_engine.quote_request(UpRequest(provider="sim", gpu="RTX4090", gpu_count=1))
    cluster = sim_engine.up(quote).result(120)
    ctl = make_window(sim_engine)
    ctl.show_page("clusters")
    page = ctl.page_widgets["clusters"]
    qtbot.waitUntil(lambda: cluster.id in page.records, timeout=5000)
    page.select_cluster(cluster.id)
    action = sim_engine.action("release", cluster.name, asked_by="user")
    sim_engine.release(action).result(120)
    qtbot.waitUntil(lambda: not page.records[cluster.id].live, timeout=10000)

    page.show_released.setChecked(True)
    qtbot.waitUntil(lambda: page.show_released.isChecked() and cluster.id in page.records)
    page.show_released.setChecked(False)
    qtbot.waitUntil(lambda: cluster.id not in page.records, timeout=5000)
    assert page.selected_id != cluster.id
    assert page.table.rowCount() == 0


def test_a_simulated_rate_is_marked_as_not_charged(
    qtbot: QtBot, make_window: MakeWindow, sim_engine: Engine
) -> None:
    quote = sim_engine.quote_request(UpRequest(provider="sim", gpu="RTX4090", gpu_count=1))
    sim_engine.up(quote).result(120)
    ctl = make_window(sim_engine)
    qtbot.waitUntil(
        lambda: ctl.status.snapshot is not None and ctl.status.snapshot.billing, timeout=30000
    )
    qtbot.waitUntil(lambda: "/h on 1 cluster" in ctl.status.rate.text(), timeout=5000)
    assert ctl.status.rate.text().endswith("(simulated, not charged)")
