"""A screenshot of the Monitor page with a realistic cluster (the synthetic trainer): what
the README and docs/screenshots show, and what a person checks by eye."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtGui import QColor, QImage
from PySide6.QtWidgets import QPushButton
from pytestqt.qtbot import QtBot

from tests.gui_charts.conftest import NOW, Clock
from xyclaw.gui.charts.source import BuffersLiveSource, JobStatus
from xyclaw.gui.charts.synthetic import SyntheticCluster
from xyclaw.gui.monitor_page import MonitorPage
from xyclaw.telemetry.live import LiveBuffers

pytestmark = pytest.mark.gui


def test_screenshot_shows_heatmap_curves_job_and_troubles(qtbot: QtBot, tmp_path: Path) -> None:
    live = LiveBuffers(900)
    sim = SyntheticCluster(live, nodes=8)
    sim.fill(NOW, 900)
    page = MonitorPage(
        BuffersLiveSource(live, [sim.choice]),
        job_feed=lambda cid: JobStatus("lora-13b", step=1200, total_steps=5000, loss=1.83),
        clock=Clock(),
    )
    qtbot.addWidget(page)
    page.resize(1400, 900)
    page.show()
    qtbot.waitExposed(page)
    page.toggle_gpu(sim.node_id(1), 5)  # the straggler, next to node 0's GPUs
    path = tmp_path / "monitor.png"
    assert page.grab().save(str(path))
    image = QImage(str(path))
    assert image.width() >= 1400 and image.height() >= 900

    hm = page.heatmap
    straggler = hm.rowmap.row_of(sim.node_id(1), 5)
    busy = hm.rowmap.row_of(sim.node_id(3), 0)
    assert straggler is not None and busy is not None
    assert 45 <= hm.image[straggler, -30:].mean() <= 70  # it lags: 60% of its peers
    assert hm.image[busy, -10:].mean() > 85
    silent = hm.rowmap.row_of(sim.node_id(2), 0)
    assert (hm.image[silent, 300:360] == 255).sum() > 50  # the minute node 2 was silent

    # the heatmap is drawn in colour where the image is (viridis yellow for busy GPUs)
    view = hm.view
    corner = view.mapTo(page, view.rect().center())
    pixel = QColor(image.pixel(corner.x(), corner.y()))
    assert pixel.red() > 150 and pixel.green() > 150 and pixel.blue() < 120
    visible = [c for c in page.curves.curves["util"] if c.isVisible()]
    assert len(visible) == 9
    assert page.job.step.text() == "1,200 / 5,000"
    chips = [b for b in page.legend.findChildren(QPushButton) if b.isVisible()]
    assert len(chips) == 9 and any("node1 · GPU 5" in b.text() for b in chips)
    assert all(b.width() >= b.sizeHint().width() for b in chips)  # nothing cut off
