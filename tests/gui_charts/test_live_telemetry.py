"""The Monitor page over the app's real telemetry: simulated GPU nodes over SSH, the
TelemetryService collecting into its ring buffers, the page reading them through
TelemetryLiveSource, and an alert from a real fault reaching a button."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from tests.support.simcluster import SimCluster, sim_cluster
from xyclaw.config import load_config
from xyclaw.engine.compose import Composition, compose
from xyclaw.gui.charts.source import TelemetryLiveSource
from xyclaw.gui.monitor_page import MonitorPage
from xyclaw.paths import AppPaths
from xyclaw.providers import ProviderRegistry
from xyclaw.telemetry.options import TelemetryOptions
from xyclaw.telemetry.rules import AlertThresholds
from xyclaw.telemetry.service import TelemetryService

pytestmark = pytest.mark.gui


@pytest.fixture
def parts(xyclaw_home: Path) -> Iterator[Composition]:
    paths = AppPaths.from_environment()
    config = load_config(
        paths.config_file,
        environ={"XYCLAW_SSH_CONNECT_TIMEOUT_S": "1", "XYCLAW_SSH_COMMAND_TIMEOUT_S": "10"},
    )
    made = compose(paths, config, providers=ProviderRegistry())
    yield made
    made.engine.close()


@pytest.fixture
def watched(parts: Composition, tmp_path: Path) -> Iterator[tuple[SimCluster, TelemetryService]]:
    with sim_cluster(parts.engine, tmp_path, nodes=2) as cluster:
        service = TelemetryService(  # the engine's parts, as tests/telemetry_live builds it
            parts.store,
            parts.access(),
            parts.clusters,
            parts.events,
            parts.bus,
            TelemetryOptions(
                interval_s=0.25,
                live_window_minutes=1.0,
                flush_interval_s=0.5,
                rollup_every_s=3600.0,
                xid_interval_s=0.3,
                thresholds=AlertThresholds(clear_s=0.6),
            ),
        )
        try:
            service.watch(cluster.cluster_id)
            assert service.wait_for_data(cluster.cluster_id, 15, instants=2)
            yield cluster, service
        finally:
            service.close()


def test_page_shows_live_gpus_and_an_alert_from_a_real_fault(
    watched: tuple[SimCluster, TelemetryService], qtbot: QtBot, tmp_path: Path
) -> None:
    cluster, service = watched
    page = MonitorPage(TelemetryLiveSource(service), fps=10)
    qtbot.addWidget(page)
    page.resize(1300, 860)
    page.show()
    qtbot.waitUntil(lambda: page.frame is not None, timeout=5000)
    record = cluster.record
    assert page.cluster_id == cluster.cluster_id
    assert cluster.name in page.picker.currentText()
    assert [n.node_id for n in page.frame.nodes] == [n.id for n in record.nodes]
    assert page.heatmap.image.shape == (16, 240)  # 2 x 8 GPUs, one minute at 0.25 s

    def recent_cells_have_data() -> bool:
        return bool((page.heatmap.image[:, -4:-1] != 255).all())

    qtbot.waitUntil(recent_cells_have_data, timeout=5000)
    assert (page.heatmap.image[:, -4:-1] <= 100).all()  # idle simulated GPUs: 0%, not gaps
    first = record.nodes[0].id
    assert page.selection == [(first, g) for g in range(8)]
    temp = page.curves.curve_data("temperature", (first, 0))
    assert temp is not None and 20 < np.nanmax(temp[1]) < 100
    qtbot.waitUntil(lambda: page.curves.curve_data("nic", first) is not None, timeout=5000)

    second = record.nodes[1]
    cluster.nodes[1].faults.ecc_uncorrectable(gpu=5)

    def card_with_id() -> bool:
        cards = page.alerts.cards
        return bool(cards) and all(c.alert.id is not None for c in cards)

    qtbot.waitUntil(card_with_id, timeout=15000)
    card = next(c for c in page.alerts.cards if c.alert.gpu == 5)
    assert card.alert.node_id == second.id and card.alert.severity == "critical"
    button = card.buttons["reset_gpu"]
    with qtbot.waitSignal(page.action_requested, timeout=2000) as blocker:
        qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    assert blocker.args == [card.alert.id, "reset_gpu"]
    stored = service.store.query(
        "SELECT id FROM events WHERE kind = 'alert' AND id = ?", [card.alert.id]
    )
    assert stored  # the id the owner gets is the alert's row in the history

    page.grab().save(str(tmp_path / "monitor-live.png"))
    assert (tmp_path / "monitor-live.png").stat().st_size > 10_000
