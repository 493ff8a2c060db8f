"""A node's failure is stored with its wording (nodes.error_said_json, migration 10), so after
a restart the Clusters page still words it in the window's language, not in the English the
store keeps beside it."""

from __future__ import annotations

import re

from tests.lifecycle.conftest import MakeWorld
from tests.lifecycle.test_lifecycle import a800
from xyclaw.config import load_config
from xyclaw.engine.bootstrap import BootstrapError
from xyclaw.engine.compose import compose
from xyclaw.paths import AppPaths
from xyclaw.providers import ProviderRegistry
from xyclaw.records import NodeState
from xyclaw.wording import said

CJK = re.compile(r"[\u4e00-\u9fff]")


def test_a_node_error_stored_with_its_wording_reads_in_chinese_after_a_restart(
    make_world: MakeWorld,
) -> None:
    world = make_world()
    cluster = world.engine.up(world.engine.quote_request(a800(16))).result(60)
    assert world.parts is not None
    node = cluster.nodes[1]
    failed = BootstrapError(
        "disk",
        said("op.boot.disk_low", free="3.5", needed="20"),
        host=node.name,
        hint=said("op.boot.disk_low_hint"),
    )
    assert failed.said is not None
    world.parts.clusters.set_node_state(node.id, "failed", failed.said)
    world.engine.close()

    again = compose(
        AppPaths.from_environment(),
        load_config(AppPaths.from_environment().config_file, environ={}),
        providers=ProviderRegistry(),
        clock=world.clock,
        start_guard=False,
    ).engine
    try:
        [record] = [c for c in again.clusters(include_released=True) if c.id == cluster.id]
        stored = next(n for n in record.nodes if n.id == node.id)
        assert stored.state == NodeState.FAILED
        assert stored.error == failed.message  # English for the log, the CLI and --json
        assert stored.error.startswith(f"{node.name}: disk check failed: ")
        assert stored.error_said is not None and stored.error_said.english == stored.error
        zh = stored.error_said.in_language("zh")
        assert CJK.search(zh) and "3.5" in zh and "20" in zh, zh
        assert "disk check failed" not in zh
        healthy = next(n for n in record.nodes if n.id != node.id)
        assert healthy.error is None and healthy.error_said is None
    finally:
        again.close()


def test_an_error_without_wording_clears_the_stored_wording(make_world: MakeWorld) -> None:
    world = make_world()
    cluster = world.engine.up(world.engine.quote_request(a800(8))).result(60)
    assert world.parts is not None
    [node] = cluster.nodes
    clusters = world.parts.clusters
    clusters.set_node_state(node.id, "failed", said("op.boot.no_versions"))
    clusters.set_node_state(node.id, "failed", "the provider's own words")
    [stored] = clusters.get(cluster.id).nodes
    assert stored.error == "the provider's own words" and stored.error_said is None
