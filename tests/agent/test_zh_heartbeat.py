"""The monitor's heartbeat posts alerts and budget warnings in the setting's language: with
XyClaw in Chinese, a lost node's alert (as telemetry stores it, with its wording) and a
spent budget (as the guard records it) read in Chinese in the Monitor conversation, their
figures in place, and the approval card proposing what to do is in Chinese too; in English
the same posts read as before."""

from __future__ import annotations

from typing import Any

import pytest

from tests.agent.conftest import MakeRuntime, World
from tests.agent.test_approvals import rent
from tests.support.zh_words import WORD, english_words
from xyclaw.agent.heartbeat import Heartbeat
from xyclaw.events import BudgetWarning, EventBus
from xyclaw.store.event_log import EventLog
from xyclaw.telemetry.alerts import Alert, AlertSink
from xyclaw.telemetry.rules import NodeRef, unreachable_finding
from xyclaw.wording import said


def store_lost_node(world: World, cluster: Any) -> None:
    """What telemetry stores when a node stops answering: the finding, through the sink."""
    node = cluster.nodes[0]
    ref = NodeRef(cluster.id, node.id, node.hostname, cluster.gpus_per_node)
    f = unreachable_finding(ref, 93.0, said("alert.down.connection_lost"))
    bus = EventBus()
    sink = AlertSink(EventLog(world.store, bus), bus)
    sink.raised(
        Alert(
            seq=1, key=f.key, cause=f.cause or tuple(f.key), scope=("reach", cluster.id, node.id),
            severity=f.severity, message=f.message, action=f.action, node=f.node,
            raised_at=1000.0, data=dict(f.data), said=f.said, action_said=f.action_said,
        )
    )  # fmt: skip
    sink.flush()
    sink.close()


def store_spent_budget(world: World, cluster: Any) -> None:
    """What the guard records when a cluster's budget is spent and it keeps billing."""
    message = said(
        "alert.budget.spent_still_bills", name=cluster.name, spent="41.00 CNY", limit="40.00 CNY"
    )
    EventLog(world.store, EventBus()).record_budget(
        BudgetWarning(
            cluster_id=cluster.id, name=cluster.name, spent_micros=41_000_000,
            budget_micros=40_000_000, currency="CNY", message=str(message), said=message,
        ),
        "critical",
        message,
        action=said("alert.budget.spent_action", name=cluster.name),
    )  # fmt: skip


@pytest.mark.parametrize("language", ["zh_CN", "en"])
def test_the_heartbeat_posts_alerts_and_budget_warnings_in_the_settings_language(
    world: World, make_runtime: MakeRuntime, language: str
) -> None:
    cluster = rent(world)
    rt = make_runtime(XYCLAW_GUI_LANGUAGE=language)
    store_lost_node(world, cluster)
    store_spent_budget(world, cluster)

    posted = Heartbeat(rt).check_once()

    by_key = {p.key.split(":")[0]: p for p in posted}
    assert set(by_key) == {"alert", "budget"}
    node = cluster.nodes[0].hostname
    alert, budget = by_key["alert"].text, by_key["budget"].text
    texts = [m.text for m in rt.messages(rt.monitor_conversation()) if m.role == "assistant"]
    if language == "en":
        assert alert == (
            f"**critical** on {cluster.name}: {node} has not answered for 93 s (connection lost)"
            "\n\nWhat to do: check the node in the provider's console; if it does not come"
            " back, release it and rent a replacement (jobs resume from their last checkpoint)"
        )
        assert budget.startswith(
            f"**critical** {cluster.name} has spent its budget (41.00 CNY of 40.00 CNY)"
        )
        assert any(t.startswith("Proposed: **") for t in texts)
        return
    assert alert.startswith(f"**严重**（{cluster.name}）：{node} 已 93 秒无响应（连接已断开）")
    assert "建议：在云服务商的控制台检查该节点" in alert
    assert budget.startswith(f"**严重** {cluster.name} 已花完预算（41.00 CNY / 40.00 CNY）")
    names = {w for name in (cluster.name, node) for w in WORD.findall(name)}
    for text in texts:  # the posts, and the proposal of the approval card
        assert english_words(text, names) == [], text
    assert texts[-1].startswith(f"建议：**释放 {cluster.name}")  # the card's proposal
    card = rt.pending_approval(rt.monitor_conversation())
    assert card is not None and card.language == "zh"


def test_asked_for_alerts_in_chinese_the_rules_brain_words_them_in_chinese(
    world: World, make_runtime: MakeRuntime
) -> None:
    from tests.agent.conftest import Events

    cluster = rent(world)
    rt = make_runtime()
    store_lost_node(world, cluster)
    cid = rt.new_conversation()

    asked = rt.send(cid, "有告警吗", Events())

    node = cluster.nodes[0].hostname
    lines = asked.reply.splitlines()
    assert lines[0] == "1 条未关闭的告警：", asked.reply
    assert lines[1] == (
        f"- **严重** 节点无响应（{cluster.name}）：{node} 已 93 秒无响应（连接已断开）"
        " 建议：在云服务商的控制台检查该节点；若它没有恢复，释放它并租用替换节点"
        "（作业会从最近的检查点继续）。"
    )
    names = {w for name in (cluster.name, node) for w in WORD.findall(name)}
    assert english_words(lines[1], names) == [], lines[1]
