"""Asked for a cluster's health in Chinese, the rules brain words the open alerts in Chinese
(each alert line's severity, rule, where and message from its stored wording, the node's
watch state, the alert counts); the result the model reads keeps the English lines, and an
English reply reads them as before."""

from __future__ import annotations

from typing import Any

from tests.agent.conftest import Events, MakeRuntime, World
from tests.agent.test_approvals import rent
from tests.agent.test_zh_heartbeat import store_lost_node
from tests.support.zh_words import WORD, english_words


def _health(rt: Any, cluster: Any, ask: str) -> tuple[str, Any]:
    asked = rt.send(rt.new_conversation(), ask, Events())
    [call] = [c for c in asked.tool_calls if c.tool == "cluster_health"]
    assert call.status == "done", call
    return asked.reply, call.result


def test_a_chinese_health_reply_words_its_alerts(world: World, make_runtime: MakeRuntime) -> None:
    cluster = rent(world)
    store_lost_node(world, cluster)
    rt = make_runtime()
    node = cluster.nodes[0].hostname

    reply, result = _health(rt, cluster, f"检查集群 {cluster.name} 的健康")

    assert "| 严重 节点无响应：" in reply, reply
    assert f"{node} 已 93 秒无响应（连接已断开）" in reply, reply
    assert "1 严重" in reply, reply  # the open alerts counted by their severity's word
    names = {w for name in (cluster.name, node, cluster.gpu) for w in WORD.findall(name)}
    # the table's own header names GPU and °C; everything else is Chinese
    assert english_words(reply, names | {"GPU"}) == [], reply
    # the model reads the English lines, as before; their wording rides beside them
    snapshot = result.get("health", result)
    [entry] = [n for n in snapshot["nodes"] if n["node"] == node]
    assert entry["alerts"] == [f"critical node.unreachable: {node} has not answered for 93 s"
                               " (connection lost)"]  # fmt: skip
    assert len(entry["alerts_said"]) == 1


def test_an_english_health_reply_keeps_the_lines_the_model_reads(
    world: World, make_runtime: MakeRuntime
) -> None:
    cluster = rent(world)
    store_lost_node(world, cluster)
    rt = make_runtime()
    node = cluster.nodes[0].hostname

    reply, _ = _health(rt, cluster, f"check cluster {cluster.name} health")

    assert "open alerts: 1 critical" in reply, reply
    assert f"critical node.unreachable: {node} has not answered for 93 s (connection lost)" in (
        reply
    ), reply
