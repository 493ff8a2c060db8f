"""A cluster's error read back from the store (clusters.error_said_json): the Clusters page's
row tip words it in the window's language, not in the English the store keeps beside it
(issue 35, c35q)."""

from __future__ import annotations

import pytest
from pytestqt.qtbot import QtBot

from tests.foundation.test_cli_chinese import english_runs
from tests.gui_pages.conftest import MakeWindow, wait_for
from xyclaw.engine import Engine
from xyclaw.engine.lifecycle import UpRequest
from xyclaw.events import EventBus
from xyclaw.gui import i18n
from xyclaw.gui.clusters_page import ClustersPage
from xyclaw.records.clusters import ClusterStore
from xyclaw.store import Store
from xyclaw.wording import said

pytestmark = pytest.mark.gui


def test_a_stored_cluster_error_is_the_rows_tip_in_chinese(
    qtbot: QtBot, make_window: MakeWindow, sim_engine: Engine, history_store: Store
) -> None:
    quote = sim_engine.quote_request(UpRequest(provider="sim", gpu="A10", gpu_count=1))
    cluster = sim_engine.up(quote).result(120)
    sim_engine.down(cluster.name).result(120)
    why = said("op.interrupted_setup")
    ClusterStore(history_store, EventBus()).update(cluster.id, error=why)

    ctl = make_window(sim_engine)
    try:
        assert i18n.install("zh_CN") == "zh_CN"
        page = ctl.page_widgets["clusters"]
        assert isinstance(page, ClustersPage)
        ctl.show_page("clusters")
        page.show_released.setChecked(True)
        wait_for(qtbot, lambda: cluster.id in page.records, timeout=30000)
        row = page.row_of(cluster.id)
        assert row is not None
        item = page.table.item(row, 0)
        assert item is not None
        tip = item.toolTip()
        assert tip == why.in_language("zh") and not english_runs(tip), tip
        assert page.records[cluster.id].error == why.english  # the store keeps the English
    finally:
        i18n.install("en")
