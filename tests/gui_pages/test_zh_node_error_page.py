"""A node's failure read back from the store (nodes.error_said_json), with no rent of this
session to have heard it: the Clusters page's node row and details word it in Chinese, and
in English again after switching back."""

from __future__ import annotations

import pytest
from pytestqt.qtbot import QtBot

from tests.gui_pages.conftest import MakeWindow, wait_for
from tests.support.zh_words import WORD, english_words
from xyclaw.engine import Engine
from xyclaw.engine.bootstrap import BootstrapError
from xyclaw.engine.lifecycle import UpRequest
from xyclaw.events import EventBus
from xyclaw.gui import i18n
from xyclaw.gui.clusters_page import ClustersPage
from xyclaw.records.clusters import ClusterStore
from xyclaw.store import Store
from xyclaw.wording import said

pytestmark = pytest.mark.gui


def test_a_stored_node_error_is_worded_on_the_clusters_page(
    qtbot: QtBot, make_window: MakeWindow, sim_engine: Engine, history_store: Store
) -> None:
    quote = sim_engine.quote_request(UpRequest(provider="sim", gpu="A10", gpu_count=2))
    cluster = sim_engine.up(quote).result(120)
    sim_engine.down(cluster.name).result(120)
    node = cluster.nodes[0]
    failed = BootstrapError(
        "disk", said("op.boot.disk_low", free="3.5", needed="20"), host=node.name
    )
    # what a rent whose node failed its disk check leaves in the store
    ClusterStore(history_store, EventBus()).set_node_state(node.id, "failed", failed.said)

    ctl = make_window(sim_engine)
    try:
        assert i18n.install("zh_CN") == "zh_CN"
        page = ctl.page_widgets["clusters"]
        assert isinstance(page, ClustersPage)
        ctl.show_page("clusters")
        page.show_released.setChecked(True)
        wait_for(qtbot, lambda: cluster.id in page.records, timeout=30000)
        page.select_cluster(cluster.id)
        wait_for(qtbot, lambda: "失败" in page.node_cell(0, "Bootstrap"))
        cell = page.node_cell(0, "Bootstrap")
        assert "可用 3.5 GiB，需要 20 GiB" in cell, cell
        names = set(WORD.findall(node.name)) | {"GiB"}
        assert english_words(cell, names) == [], cell
        details = page.node_details.toPlainText()
        assert "可用 3.5 GiB，需要 20 GiB" in details, details

        i18n.install("en")
        wait_for(qtbot, lambda: "disk check failed" in page.node_cell(0, "Bootstrap"), 5000)
        assert page.node_cell(0, "Bootstrap").endswith(str(failed.message))
    finally:
        i18n.install("en")
