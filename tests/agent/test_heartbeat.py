"""The monitor's heartbeat: an open alert becomes one message with actions behind approvals."""

from __future__ import annotations

from tests.agent.conftest import Events, MakeRuntime, World
from tests.agent.test_approvals import live, rent
from xyclaw.agent.heartbeat import Heartbeat
from xyclaw.agent.types import Decision
from xyclaw.events import AlertRaised, EventBus
from xyclaw.store.event_log import EventLog


def test_an_alert_is_posted_once_with_actions_that_still_ask(
    world: World, make_runtime: MakeRuntime
) -> None:
    cluster = rent(world)
    rt = make_runtime()
    # What telemetry writes when a node stops answering (the store's own event log).
    EventLog(rt.store, EventBus()).raise_alert(
        AlertRaised(
            event_id=0,
            rule="node.unreachable",
            severity="critical",
            message="node 0 has not answered for 90 s",
            action="release it and rent a replacement",
            cluster_id=cluster.id,
            node_id=cluster.nodes[0].id,
        ),
        {},
    )
    beat = Heartbeat(rt)
    [posted] = beat.check_once()
    assert beat.check_once() == []  # once only
    monitor = rt.monitor_conversation()
    assert posted.conversation_id == monitor
    assert [c.kind for c in rt.conversations()] == ["monitor"]
    [message] = rt.messages(monitor)
    assert message.agent == "monitor" and "has not answered" in message.text
    tools = [a.tool for a in message.actions]
    assert tools == ["cluster_health", "release_cluster"]
    release = message.actions[1]
    assert release.effect == "destroy"

    # Clicking the action asks first; nothing happens on its own.
    result = rt.run_action(monitor, release, Events())
    card = result.pending_approval
    assert card is not None and card.tool == "release_cluster"
    assert live(world) == [cluster.name]
    rt.answer(monitor, Decision("reject"), Events())
    assert live(world) == [cluster.name]
