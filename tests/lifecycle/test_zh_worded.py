"""What renting, releasing and reconciling say is kept as a key and its figures: the event
log and the notices carry it, a cluster's error is stored with it, and each reads in Chinese
as well as in the English it always had."""

from __future__ import annotations

import re

from tests.lifecycle.conftest import MakeWorld, World
from tests.lifecycle.test_lifecycle import a800
from xyclaw.events import Notice
from xyclaw.providers import ClusterOrder
from xyclaw.records import ClusterState
from xyclaw.store.event_log import said_of

CJK = re.compile(r"[\u4e00-\u9fff]")


def test_ready_released_gone_and_orphan_notices_read_in_both_languages(
    make_world: MakeWorld,
) -> None:
    world: World = make_world()
    notices: list[Notice] = []
    world.engine.subscribe(Notice, notices.append)
    cluster = world.engine.up(world.engine.quote_request(a800(8))).result(60)
    world.provider.terminate(cluster.external_id or "")
    assert world.engine.reconcile().gone == [cluster.name]
    stray = world.provider.create(
        ClusterOrder("A800", 8, "Xiamen", "none", "not-ours", world.engine.ssh_public_key())
    )
    world.engine.reconcile()

    ready = next(n for n in notices if n.message.startswith(f"cluster {cluster.name} is ready"))
    assert ready.said is not None
    assert ready.said.in_language("zh").startswith(f"集群 {cluster.name} 已就绪（8 x A800")
    gone = next(n for n in notices if "Marked gone." in n.message)
    assert gone.message.startswith(f"sim no longer has {cluster.name} (it terminated it); last")
    assert gone.said is not None
    assert gone.said.in_language("zh").startswith(f"sim 已没有 {cluster.name}（服务商已终止它）")
    orphan = next(n for n in notices if n.kind == "orphan")
    assert orphan.message == (
        f"sim cluster {stray.external_id} (8 x A800) bills but XyClaw has no record of it;"
        " releasing it now"
    )
    assert orphan.said is not None
    assert orphan.said.in_language("zh") == (
        f"sim 的集群 {stray.external_id}（8 x A800）在计费，但 XyClaw 没有它的记录；现在释放它"
    )
    # The event log keeps the same key and figures, read back by the History's timeline.
    rows = [e for e in world.engine.recent_events() if e["kind"] in ("cluster", "orphan")]
    worded = [said_of(e) for e in rows]
    assert rows and all(s is not None for s in worded), rows
    assert all(CJK.search(s.in_language("zh")) for s in worded if s is not None)
    assert {s.english for s in worded if s is not None} == {e["message"] for e in rows}


def test_a_failed_rent_stores_its_error_with_its_wording(make_world: MakeWorld) -> None:
    world: World = make_world()
    world.provider.fault(fail_nodes=1)
    handle = world.engine.up(world.engine.quote_request(a800(16)))
    try:
        handle.result(60)
    except Exception as exc:  # the rent fails: one node of two does not come up
        assert "could not be brought up" in str(exc)
    [row] = world.engine.clusters(include_released=True)
    assert row.state == ClusterState.RELEASED and row.error and row.error.startswith("1 of 2 ")
    assert row.error_said is not None and row.error_said.english == row.error
    assert row.error_said.in_language("zh").startswith("2 个节点中有 1 个失败：")


def test_a_failover_is_told_in_both_languages(make_world: MakeWorld) -> None:
    from tests.engine.test_failover import _plan_a800, _sell_out

    world: World = make_world()
    quote = _plan_a800(world)
    _sell_out(world, quote.region)
    cluster = world.engine.up(quote).result(120)
    [told] = [e for e in world.engine.recent_events() if e["kind"] == "failover"]
    story = said_of(told)
    assert story is not None and story.english == told["message"]
    assert told["message"] == f"{quote.region} out of A800 -> {cluster.region}, same price"
    assert story.in_language("zh") == f"{quote.region} 的 A800 已售罄 → {cluster.region}，同价"
    world.engine.down(cluster.name).result(60)
