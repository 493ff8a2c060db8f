"""The monitor's heartbeat and `alerts`: an open alert's suggested action becomes an approval
card (replace the node, release the idle cluster, raise the budget) that nothing answers but
the user; unattended the answer is no."""

from __future__ import annotations

import time
from typing import Any

from tests.agent.conftest import Events, MakeRuntime, World, raise_alert
from tests.agent.test_approvals import live, rent
from xyclaw.agent.heartbeat import Heartbeat
from xyclaw.agent.runtime import AgentRuntime
from xyclaw.agent.types import Decision
from xyclaw.engine.lifecycle import UpRequest
from xyclaw.events import BudgetWarning, EventBus
from xyclaw.records.clusters import ClusterStore
from xyclaw.store import conversations as conv
from xyclaw.store.event_log import EventLog


def lost_node(rt: AgentRuntime, cluster: Any, rule: str = "node.unreachable") -> int:
    return raise_alert(rt.store, cluster.id, rule, node_id=cluster.nodes[0].id)


def budget_warning(world: World, rt: AgentRuntime, cluster: Any) -> None:
    """What the guard writes at a budget's warning line: the event, and the cluster's mark."""
    spent = int(cluster.budget_micros * 0.8)
    message = f"{cluster.name} has spent 80% of its budget"
    warning = BudgetWarning(
        cluster_id=cluster.id,
        name=cluster.name,
        spent_micros=spent,
        budget_micros=cluster.budget_micros,
        currency=cluster.currency,
        message=message,
    )
    EventLog(rt.store, EventBus()).record_budget(warning, "warning", message)
    ClusterStore(world.store, EventBus()).update(cluster.id, budget_warned_at=time.time())


def test_a_lost_node_is_posted_once_and_its_action_waits_as_a_card(
    world: World, make_runtime: MakeRuntime
) -> None:
    cluster = rent(world)
    rt = make_runtime()
    lost_node(rt, cluster)
    beat = Heartbeat(rt)

    [posted] = beat.check_once()

    monitor = rt.monitor_conversation()
    assert posted.conversation_id == monitor
    assert [c.kind for c in rt.conversations()] == ["monitor"]
    alert, proposal, call = rt.messages(monitor)
    assert call.tool_call is not None
    assert (call.tool_call.tool, call.tool_call.status) == ("release_cluster", "pending_approval")
    assert alert.agent == "monitor" and "has not answered" in alert.text
    assert [a.tool for a in alert.actions] == ["cluster_health", "release_cluster"]
    assert proposal.agent == "monitor" and "Proposed: **Release" in proposal.text
    # The proposal is a real approval card: the same one the window and the terminal show.
    assert posted.proposed is not None
    card = posted.proposed.pending_approval
    assert card is not None and (card.tool, card.effect, card.agent) == (
        "release_cluster",
        "destroy",
        "monitor",
    )
    assert rt.pending_approval(monitor) == card
    assert live(world) == [cluster.name]  # nothing happens on its own
    assert beat.check_once() == []  # once only, and no second card
    assert rt.pending_approval(monitor) == card

    # A read action still runs at a click (the card is answered no first: one at a time).
    health = rt.run_action(monitor, alert.actions[0], Events())
    assert [(c.tool, c.status) for c in health.tool_calls] == [("cluster_health", "done")]
    assert rt.pending_approval(monitor) is None
    assert live(world) == [cluster.name]


def test_the_users_yes_on_the_proposal_releases_and_says_so(
    world: World, make_runtime: MakeRuntime
) -> None:
    cluster = rent(world)
    rt = make_runtime()
    lost_node(rt, cluster, rule="gpu.idle_during_job")
    [posted] = Heartbeat(rt).check_once()
    assert posted.proposed is not None and posted.proposed.pending_approval is not None
    monitor = posted.conversation_id

    # Another process (`xyclaw ask --conversation N --approve`) answers: a restarted runtime.
    rt.close()
    again = make_runtime()
    card = again.pending_approval(monitor)
    assert card is not None
    answered = again.answer(monitor, Decision.approve(card, by="user (cli)"), Events())

    assert live(world) == []
    assert answered.agent == "monitor"
    assert f"Released **{cluster.name}**: billing stopped." in answered.reply
    [row] = [r for r in conv.list_tool_calls(world.store, monitor) if r["tool"] != "cluster_health"]
    assert (row["tool"], row["status"], row["decided_by"]) == (
        "release_cluster",
        "done",
        "user (cli)",
    )


def test_a_budget_warning_proposes_a_raise_the_user_can_edit(
    world: World, make_runtime: MakeRuntime
) -> None:
    quote = world.engine.quote_request(
        UpRequest(provider="sim", gpu="A10", gpu_count=2, budget_micros=40_000_000)
    )
    cluster = world.engine.up(quote).result(120)
    rt = make_runtime()
    budget_warning(world, rt, cluster)

    [posted] = Heartbeat(rt).check_once()

    assert [a.tool for a in posted.actions] == ["cluster_health", "set_budget", "release_cluster"]
    assert posted.proposed is not None
    card = posted.proposed.pending_approval
    assert card is not None and (card.tool, card.effect) == ("set_budget", "spend")
    assert card.args == {"cluster": cluster.name, "budget": 60.0}
    assert card.details["budget"].startswith("60.00") and card.details["current_budget"]
    assert world.engine.cluster(cluster.name).budget_micros == 40_000_000  # not yet

    # The user edits the amount: a new card for 80, then a yes.
    edited = rt.answer(
        posted.conversation_id, Decision("edit", args={"budget": 80}), Events()
    ).pending_approval
    assert edited is not None and edited.args["budget"] == 80
    assert world.engine.cluster(cluster.name).budget_micros == 40_000_000
    done = rt.answer(posted.conversation_id, Decision.approve(edited), Events())

    assert world.engine.cluster(cluster.name).budget_micros == 80_000_000
    assert world.engine.cluster(cluster.name).budget_warned_at is None
    assert f"The budget of **{cluster.name}** is now 80.00" in done.reply
    assert "(was 40.00" in done.reply


def test_with_nobody_to_ask_the_proposal_is_a_no(world: World, make_runtime: MakeRuntime) -> None:
    cluster = rent(world)
    rt = make_runtime(unattended=True)
    lost_node(rt, cluster)

    [posted] = Heartbeat(rt).check_once()

    assert posted.proposed is not None and posted.proposed.pending_approval is None
    assert rt.pending_approval(posted.conversation_id) is None
    assert live(world) == [cluster.name]
    [row] = conv.list_tool_calls(world.store, posted.conversation_id)
    assert (row["tool"], row["status"], row["decided_by"]) == (
        "release_cluster",
        "rejected",
        "policy: nobody to ask",
    )
    assert "nobody to ask" in posted.proposed.reply


def test_asking_for_alerts_proposes_the_action_and_reports_what_was_done(
    world: World, make_runtime: MakeRuntime
) -> None:
    cluster = rent(world)
    rt = make_runtime()
    lost_node(rt, cluster, rule="gpu.idle_during_job")
    cid = rt.new_conversation()

    asked = rt.send(cid, "any alerts?", Events())

    assert asked.agent == "monitor"
    assert [(c.tool, c.status) for c in asked.tool_calls] == [
        ("alerts", "done"),
        ("release_cluster", "pending_approval"),
    ]
    alerts = asked.tool_calls[0].result["alerts"]
    assert alerts[0]["proposal"]["tool"] == "release_cluster"
    assert (
        "1 open alert(s)" in asked.reply and "Proposed: **Release the idle cluster" in asked.reply
    )
    card = asked.pending_approval
    assert card is not None and card.tool == "release_cluster"
    assert card.flagged_after_remote_output  # the alert's text came from the nodes
    assert live(world) == [cluster.name]
    said = [m.text for m in rt.messages(cid) if m.role == "assistant"]
    assert said == [asked.reply]  # kept with the conversation, once

    waiting = rt.pending_approval(cid)
    assert waiting is not None
    done = rt.answer(cid, Decision.approve(waiting), Events())

    assert live(world) == []
    assert done.reply == f"Released **{cluster.name}**: billing stopped."  # not the list again


def test_alerts_in_chinese_propose_in_chinese(world: World, make_runtime: MakeRuntime) -> None:
    quote = world.engine.quote_request(
        UpRequest(provider="sim", gpu="A10", gpu_count=2, budget_micros=40_000_000)
    )
    cluster = world.engine.up(quote).result(120)
    rt = make_runtime()
    budget_warning(world, rt, cluster)
    cid = rt.new_conversation()

    asked = rt.send(cid, "有告警吗", Events())

    card = asked.pending_approval
    assert card is not None and card.tool == "set_budget" and card.language == "zh"
    assert "建议：**把" in asked.reply and "预算提高到 60" in asked.reply
    rejected = rt.answer(cid, Decision("reject"), Events())
    assert "已取消" in rejected.reply
    assert world.engine.cluster(cluster.name).budget_micros == 40_000_000
