"""Chinese words of issue 28, item 8: the launch dialog's spec line says the job's kind in
Chinese ("(训练)", not "(train)"), and the History list's loss column is "最终损失", not
"最终 loss"."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

pytest.importorskip("PySide6")

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from tests.gui.conftest import MakeWindow
from xyclaw.engine import Engine
from xyclaw.gui import i18n
from xyclaw.gui.job_launch import spec_summary
from xyclaw.jobs.spec import load_spec
from xyclaw.paths import bundled


@pytest.fixture
def chinese(qapp: object) -> Iterator[None]:
    assert i18n.install("zh_CN") == "zh_CN"
    yield
    i18n.install("en")


def test_the_spec_line_says_the_kind_in_chinese(chinese: None) -> None:
    spec = load_spec(bundled("resources") / "examples" / "lora-2node.yaml").spec
    line = spec_summary(spec)
    assert line.startswith("qwen7b-lora (训练)"), line
    assert "(train)" not in line


def test_the_history_loss_column_is_chinese(
    chinese: None, qtbot: QtBot, make_window: MakeWindow, local_engine: Engine
) -> None:
    ctl = make_window(local_engine)
    ctl.show_page("history")
    page = ctl.page_widgets["history"]
    model = page.job_model
    headers = [
        str(model.headerData(i, Qt.Orientation.Horizontal)) for i in range(model.columnCount())
    ]
    assert "最终损失" in headers and not any("loss" in h for h in headers), headers


@pytest.mark.slow
def test_a_nodes_detail_says_gpu_in_chinese(
    chinese: None, qtbot: QtBot, make_window: MakeWindow, sim_engine: Engine
) -> None:
    from xyclaw.engine.lifecycle import UpRequest

    quote = sim_engine.quote_request(UpRequest(provider="sim", gpu="RTX4090", gpu_count=1))
    cluster = sim_engine.up(quote).result(120)
    ctl = make_window(sim_engine)
    ctl.show_page("clusters")
    page = ctl.page_widgets["clusters"]
    qtbot.waitUntil(lambda: page.row_of(cluster.id) is not None, timeout=10000)
    page.select_cluster(cluster.id)
    qtbot.waitUntil(lambda: page.nodes.rowCount() == 1, timeout=10000)
    page.nodes.selectRow(0)
    qtbot.waitUntil(lambda: "RTX4090" in page.node_details.toPlainText(), timeout=10000)
    shown = page.node_details.toPlainText()
    assert "GPUs" not in shown, shown
    assert "GPU" in shown
