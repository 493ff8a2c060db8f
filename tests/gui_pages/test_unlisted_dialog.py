"""The desktop asks "forget it?" for a cluster its provider no longer lists (issue 31).

The fake Vast on loopback drops a billing instance from a listing that reads well: the
real engine marks it unlisted, and the window shows one approval card for it; the instance
listed again withdraws the card; only the click on "Forget it" marks the cluster gone,
and "Keep it" keeps it live and metered without asking again.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from tests.gui_pages.conftest import wait_for
from tests.providers_real.fake_vast import FakeVast
from tests.providers_real.fakehttp import FakeServer
from tests.providers_real.test_state_unknown import ready_cluster
from tests.providers_real.test_unlisted import vast_engine
from tests.simcloud.helpers import FakeClock
from xyclaw.engine import Engine
from xyclaw.gui.bridge import EngineBridge, Worker
from xyclaw.gui.unlisted_flow import UnlistedApprovals
from xyclaw.paths import AppPaths
from xyclaw.records import ClusterState

pytestmark = pytest.mark.gui


@pytest.fixture
def unlisted(qtbot: QtBot) -> Iterator[tuple[FakeVast, int, Engine, UnlistedApprovals]]:
    fake = FakeVast()
    server = FakeServer(fake).start()
    with fake.lock:
        instance_id = fake._rent(fake.offers[0], "xyclaw-c1-key", "img", [])
    ready_cluster(AppPaths.from_environment(), str(instance_id), "xyclaw-c1-key")
    engine = vast_engine(server.url, FakeClock(start=time.time()))
    window = QWidget()
    qtbot.addWidget(window)
    bridge = EngineBridge.for_engine(engine, window)
    worker = Worker(window)
    approvals = UnlistedApprovals(engine, bridge, window, worker=worker, poll_ms=200)
    yield fake, instance_id, engine, approvals
    bridge.close()
    engine.close()
    server.stop()


def test_an_unlisted_cluster_opens_one_card_and_only_forget_forgets(
    qtbot: QtBot, unlisted: tuple[FakeVast, int, Engine, UnlistedApprovals]
) -> None:
    fake, instance_id, engine, approvals = unlisted
    engine.reconcile()
    qtbot.wait(400)
    assert approvals.dialogs == {}  # listed: nothing asked
    fake.hidden.add(instance_id)
    engine.reconcile()
    wait_for(qtbot, lambda: approvals.dialogs)
    (dialog,) = approvals.dialogs.values()
    assert dialog.dialog.windowTitle() == "vastai no longer lists c1"
    assert dialog.card.approve_button.text() == "Forget it"
    assert "check vastai's console first" in dialog.card.facts["Stops billing"].text()
    engine.reconcile()
    qtbot.wait(400)
    assert len(approvals.dialogs) == 1  # asked once
    assert engine.cluster("c1").state == ClusterState.READY  # the card alone forgets nothing

    qtbot.mouseClick(dialog.card.approve_button, Qt.MouseButton.LeftButton)
    wait_for(qtbot, lambda: engine.cluster("c1").state == ClusterState.GONE)
    wait_for(qtbot, lambda: any("Forgot c1" in s for s in approvals.said))
    assert len(fake.billing()) == 1  # nothing destroyed at Vast


def test_the_card_is_withdrawn_when_listed_again_and_keep_asks_no_more(
    qtbot: QtBot, unlisted: tuple[FakeVast, int, Engine, UnlistedApprovals]
) -> None:
    fake, instance_id, engine, approvals = unlisted
    fake.hidden.add(instance_id)
    engine.reconcile()
    wait_for(qtbot, lambda: approvals.dialogs)
    fake.hidden.clear()
    assert engine.reconcile().relisted == ["c1"]
    wait_for(qtbot, lambda: not approvals.dialogs)  # withdrawn
    assert engine.cluster("c1").state == ClusterState.READY

    fake.hidden.add(instance_id)  # unlisted anew: asked anew
    engine.reconcile()
    wait_for(qtbot, lambda: approvals.dialogs)
    (dialog,) = approvals.dialogs.values()
    qtbot.mouseClick(dialog.card.reject_button, Qt.MouseButton.LeftButton)
    wait_for(qtbot, lambda: any("Kept c1" in s for s in approvals.said))
    engine.reconcile()
    qtbot.wait(600)
    assert approvals.dialogs == {}  # kept: not asked again for the same question
    assert engine.cluster("c1").state == ClusterState.READY
