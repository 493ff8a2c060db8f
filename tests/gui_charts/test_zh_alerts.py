"""Alerts in a Chinese window: faults on simulated GPU nodes over SSH (a thermal throttle, a GPU
fallen off the bus with its XID 79, a node that stops answering) and a budget spent, raised
by the real telemetry service and guard, shown on the Monitor page and in the tray's
notifications with no English left but names, units and commands; back in English the
same cards read as the rules worded them; an alert stored before alerts were worded keeps
its English text, marked as data."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QLabel
from pytestqt.qtbot import QtBot

from tests.support.simcluster import SimCluster, sim_cluster
from tests.support.zh_words import WORD, assert_no_english, english_words
from tests.telemetry_live.conftest import fast_options
from xyclaw.config import load_config
from xyclaw.engine.compose import Composition, compose
from xyclaw.gui import i18n
from xyclaw.gui.bridge import EngineBridge
from xyclaw.gui.charts.alerts import AlertsPanel
from xyclaw.gui.charts.source import AlertView, TelemetryLiveSource
from xyclaw.gui.monitor_page import MonitorPage
from xyclaw.gui.tray import TrayController
from xyclaw.paths import AppPaths
from xyclaw.providers import ProviderRegistry
from xyclaw.telemetry.service import TelemetryService

pytestmark = pytest.mark.gui

#: Where to keep the screenshot for a person to look at (unset: only the test's own folder).
SHOTS = Path(os.environ["XYCLAW_TEST_SHOTS"]) if os.environ.get("XYCLAW_TEST_SHOTS") else None


@pytest.fixture
def parts(xyclaw_home: Path) -> Iterator[Composition]:
    paths = AppPaths.from_environment()
    config = load_config(
        paths.config_file,
        environ={
            "XYCLAW_SSH_CONNECT_TIMEOUT_S": "1",
            "XYCLAW_SSH_COMMAND_TIMEOUT_S": "10",
            "XYCLAW_BILLING_ON_BUDGET_EXHAUSTED": "warn",  # a spent budget warns, keeps billing
        },
    )
    made = compose(paths, config, providers=ProviderRegistry(), start_guard=False)
    yield made
    made.engine.close()


@pytest.fixture
def watched(parts: Composition, tmp_path: Path) -> Iterator[tuple[SimCluster, TelemetryService]]:
    with sim_cluster(parts.engine, tmp_path, nodes=2) as cluster:
        service = TelemetryService(
            parts.store, parts.access(), parts.clusters, parts.events, parts.bus, fast_options()
        )
        try:
            service.watch(cluster.cluster_id)
            assert service.wait_for_data(cluster.cluster_id, 15, instants=2)
            yield cluster, service
        finally:
            service.close()


def card_texts(panel: AlertsPanel) -> list[tuple[str, str]]:
    return [
        (
            card.findChild(QLabel, "alertMessage").text(),
            card.findChild(QLabel, "alertAdvice").text(),
        )
        for card in panel.cards
    ]


def test_alerts_from_real_faults_read_in_chinese_and_back_in_english(
    parts: Composition,
    watched: tuple[SimCluster, TelemetryService],
    qtbot: QtBot,
    tmp_path: Path,
) -> None:
    cluster, service = watched
    bridge = EngineBridge(parts.bus.subscribe)
    tray = TrayController(QIcon(), bridge, available=False)
    page = MonitorPage(TelemetryLiveSource(service), fps=10)
    qtbot.addWidget(page)
    page.resize(1400, 900)
    try:
        assert i18n.install("zh_CN") == "zh_CN"
        page.show()
        qtbot.waitUntil(lambda: page.frame is not None, timeout=10_000)

        lost, down = cluster.nodes[0], cluster.nodes[1]
        lost.faults.thermal_throttle(gpu=2)
        lost.faults.xid(79, gpu=5)
        down.faults.node_down()
        wanted = {"gpu.thermal_throttle", "gpu.xid", "node.unreachable"}

        def all_cards_stored() -> bool:
            alerts = [c.alert for c in page.alerts.cards]
            rules = {r for a in service.open_alerts(cluster.cluster_id) for r in a.rules}
            return (
                wanted <= rules
                and len(alerts) == 3
                and all(a.id is not None and a.said is not None for a in alerts)
            )

        qtbot.waitUntil(all_cards_stored, timeout=30_000)
        by_rule = {c.alert.rule: c for c in page.alerts.cards}
        # XID 79 and the GPU missing from the count are one alert (one cause)
        assert by_rule.keys() & {"gpu.xid", "gpu.missing"} and "gpu.thermal_throttle" in by_rule

        # The budget: spent (a 1-micro budget), the guard warns and it keeps billing.
        parts.clusters.update(cluster.cluster_id, budget_micros=1)
        report = parts.engine.tick()
        assert report.actions and report.actions[0].kind == "budget-spent"
        (line,) = [x for x in report.lines("zh") if not x.startswith("错误：")]  # the down node's
        assert line.startswith(f"{cluster.name} 已花完预算（") and "仍在计费" in line
        assert report.lines()[0] == report.actions[0].message  # `xyclaw guard --once`, English
        assert report.actions[0].message.startswith(f"{cluster.name} has spent its budget (")
        qtbot.waitUntil(lambda: len(tray.recent) >= 4, timeout=10_000)

        data = {lost.spec.hostname, down.spec.hostname, cluster.name}
        for name in list(data):
            data.update(WORD.findall(name))
        data |= {"root", "MHz", "PCI"}  # the node's SSH user, units
        assert page.alerts.title.text() == "告警（3）"
        assert_no_english(page, data, "the Monitor page with three alerts")
        texts = dict(
            zip([c.alert.rule for c in page.alerts.cards], card_texts(page.alerts), strict=True)
        )
        thermal_message, thermal_advice = texts["gpu.thermal_throttle"]
        assert f"{lost.spec.hostname}：GPU 2" in thermal_message and "过热降频" in thermal_message
        assert "散热" in thermal_advice
        lost_rule = "gpu.xid" if "gpu.xid" in texts else "gpu.missing"
        assert "GPU 5" in texts[lost_rule][0]
        assert f"{down.spec.hostname} 已" in texts["node.unreachable"][0]
        assert "秒无响应" in texts["node.unreachable"][0]
        for card in page.alerts.cards:  # worded messages are not data: the walk read them
            assert not any(label.property("data") for label in card.findChildren(QLabel))
        notes = [f"{n.title} {n.message}" for n in tray.recent]
        for note in notes:
            assert english_words(note, data | {"xyclaw", "down"}) == [], note
        assert any("预算" in n for n in notes)  # the budget warning, in Chinese

        if SHOTS is not None:
            SHOTS.mkdir(parents=True, exist_ok=True)
            page.grab().save(str(SHOTS / "monitor-alerts-zh.png"))
        page.grab().save(str(tmp_path / "monitor-alerts-zh.png"))

        i18n.install("en")
        qtbot.waitUntil(lambda: page.alerts.title.text() == "Alerts (3)", timeout=5_000)
        english = dict(
            zip([c.alert.rule for c in page.alerts.cards], card_texts(page.alerts), strict=True)
        )
        for card in page.alerts.cards:
            assert english[card.alert.rule] == (card.alert.message, card.alert.action)
        assert "is thermally throttled" in english["gpu.thermal_throttle"][0]
        assert "has not answered for" in english["node.unreachable"][0]
        if SHOTS is not None:
            qtbot.wait(200)  # the re-made cards laid out
            page.grab().save(str(SHOTS / "monitor-alerts-en.png"))
    finally:
        i18n.install("en")
        tray.close()
        bridge.close()


def test_an_alert_stored_before_alerts_were_worded_keeps_its_english(qtbot: QtBot) -> None:
    panel = AlertsPanel()
    qtbot.addWidget(panel)
    old = AlertView(
        id=7, rule="gpu.xid", severity="warning", cluster_id=1, node="n0", gpu=1,
        message="n0: GPU 1 reported XID 31 (GPU memory page fault)",
        action="application bug: fix or restart the application; the GPU itself is fine",
    )  # fmt: skip
    try:
        assert i18n.install("zh_CN") == "zh_CN"
        panel.set_alerts([old])
        panel.show()
        (message, advice) = card_texts(panel)[0]
        assert message == old.message and advice == old.action  # as stored: no wording kept
        card = panel.cards[0]
        assert card.findChild(QLabel, "alertMessage").property("data") is True
        assert_no_english(panel, {"n0"}, "a card of an old alert")  # the rest is Chinese
    finally:
        i18n.install("en")


def test_an_alert_buttons_approval_card_is_titled_in_the_windows_language(qtbot: QtBot) -> None:
    from xyclaw.gui.charts.alerts import CLOCKS, RELEASE
    from xyclaw.gui.monitor_wiring import alert_request

    hot = AlertView(
        id=3, rule="gpu.thermal_throttle", severity="warning", cluster_id=1, node="n0", gpu=2,
        message="n0: GPU 2 is thermally throttled", action="",
    )  # fmt: skip
    try:
        assert i18n.install("zh_CN") == "zh_CN"
        clocks = alert_request(hot, CLOCKS, "demo").action
        assert clocks is not None and clocks.label == "在 demo (n0) 上查询频率"
        release = alert_request(hot, RELEASE, "demo").action
        assert release is not None and release.label == "释放 demo"
        i18n.install("en")
        clocks = alert_request(hot, CLOCKS, "demo").action
        assert clocks is not None and clocks.label == "Query clocks on demo (n0)"
        assert "nvidia-smi -q -d PERFORMANCE" in clocks.args["command"]  # the command as it is
    finally:
        i18n.install("en")
