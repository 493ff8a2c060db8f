"""The Monitor page's "Stop job" on an alert card, in a Chinese window: it asks for the
cancel_job of the cluster's running job (by its id) through the Monitor conversation's
approval card, titled and worded in Chinese; nothing is cancelled without the yes. A
watched cluster's job stalls (its log's NCCL watchdog timeout, as the job's log feeds it)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("PySide6")

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from tests.gui.conftest import MakeWindow
from tests.gui.test_zh_chat_cards import data_of, shown
from tests.support.zh_words import assert_no_english
from xyclaw.agent.runtime import AgentRuntime
from xyclaw.engine import Engine
from xyclaw.engine.lifecycle import UpRequest
from xyclaw.gui import i18n
from xyclaw.gui.app import build_runtime
from xyclaw.gui.chat.approval import ApprovalCard
from xyclaw.jobs.spec import load_spec
from xyclaw.store import Store

pytestmark = pytest.mark.slow

WATCHDOG = (
    "[rank1]:[E301 10:12:44.318204512 ProcessGroupNCCL.cpp:616] [Rank 1] Watchdog caught"
    " collective operation timeout: WorkNCCL(SeqNum=1580, OpType=ALLREDUCE, NumelIn=262144,"
    " NumelOut=262144, Timeout(ms)=600000) ran for 600060 milliseconds before timing out."
)


@pytest.fixture
def runtime(sim_engine: Engine, history_store: Store) -> Iterator[AgentRuntime]:
    rt = build_runtime(sim_engine, history_store)
    yield rt
    rt.close()


def test_stop_job_on_an_alert_card_asks_in_chinese_and_cancels_nothing_without_a_yes(
    qtbot: QtBot,
    make_window: MakeWindow,
    sim_engine: Engine,
    runtime: AgentRuntime,
    tmp_path: Path,
) -> None:
    quote = sim_engine.quote_request(UpRequest(provider="sim", gpu="A10", gpu_count=2))
    cluster = sim_engine.up(quote).result(120)
    (tmp_path / "work").mkdir()
    (tmp_path / "job.yaml").write_text("name: stalled-run\nworkdir: work\nrun: sleep 3600\n")
    job = sim_engine.launch(load_spec(tmp_path / "job.yaml").spec, cluster=cluster.name).result(120)
    ctl = make_window(sim_engine, runtime)
    try:
        assert i18n.install("zh_CN") == "zh_CN"
        ctl.show_page("monitor")
        monitor = ctl.context.monitor
        assert monitor is not None
        qtbot.waitUntil(lambda: monitor.page.source is not None, timeout=30000)
        qtbot.waitUntil(lambda: monitor.page.cluster_id == cluster.id, timeout=10000)
        # the job's log says its collective timed out: the alert offers "Stop job"
        sim_engine.live_metrics(cluster.name).feed_job_log(cluster.id, WATCHDOG, job.id)
        panel = monitor.page.alerts

        def stop_button():  # type: ignore[no-untyped-def]
            for card in panel.cards:
                button = card.buttons.get("stop_job")
                if button is not None and button.isEnabled():  # stored: it can be referred to
                    return button
            return None

        qtbot.waitUntil(lambda: stop_button() is not None, timeout=30000)
        button = stop_button()
        assert button is not None and button.text() == "停止作业"
        qtbot.mouseClick(button, Qt.MouseButton.LeftButton)

        chat = ctl.chat
        qtbot.waitUntil(
            lambda: any(c.decision is None for c in shown(chat, ApprovalCard)), timeout=60000
        )
        [card] = [c for c in shown(chat, ApprovalCard) if c.decision is None]
        assert (card.request.tool, card.effect) == ("cancel_job", "destroy")
        assert card.request.args == {"job": str(job.id)}  # that job, by its id
        assert card.title.text() == f"取消作业 {job.name}"
        data = data_of(sim_engine, chat, [])
        assert_no_english(card, data, "the Stop job card")
        assert_no_english(chat, data, "the Monitor conversation with the Stop job card")
        assert sim_engine.job(str(job.id)).cancel_requested_at is None  # only a card so far

        qtbot.mouseClick(card.reject_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: not chat.busy, timeout=60000)
        after = sim_engine.job(str(job.id))
        assert after.cancel_requested_at is None and after.active, after.state
    finally:
        i18n.install("en")
        sim_engine.cancel_job(str(job.id))
        sim_engine.down(cluster.name).result(120)
