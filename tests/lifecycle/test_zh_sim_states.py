"""What the simulated cloud says of a node that failed to boot reaches the records said
(issue 35, c35q): the cluster's error and the node's read in Chinese with no run of three
English words, and their English is what the simulated cloud always said."""

from __future__ import annotations

import re

from tests.foundation.test_cli_chinese import english_runs
from tests.lifecycle.conftest import MakeWorld
from tests.lifecycle.test_lifecycle import a800
from xyclaw.records import ClusterState

CJK = re.compile(r"[\u4e00-\u9fff]")
BOOT = re.compile(r"^node (\S+) failed to boot: (.+)$")


def test_a_node_that_failed_to_boot_is_worded_in_chinese(make_world: MakeWorld) -> None:
    world = make_world()
    world.provider.fault(fail_nodes=1)
    handle = world.engine.up(world.engine.quote_request(a800(16)))
    try:
        handle.result(60)
    except Exception as exc:  # the rent fails: one node of two does not come up
        assert "could not be brought up" in str(exc)
    [row] = world.engine.clusters(include_released=True)
    assert row.state == ClusterState.RELEASED and row.error is not None
    [node] = [n for n in row.nodes if n.error]
    booted = BOOT.match(node.error or "")
    assert booted is not None, node.error  # the simulated cloud's English, as it was
    hostname, why = booted.groups()
    assert f"1 of 2 nodes failed: {node.error}" in row.error, row.error
    assert node.error_said is not None and node.error_said.english == node.error
    assert row.error_said is not None and row.error_said.english == row.error
    for said in (node.error_said, row.error_said):
        chinese = said.in_language("zh")
        assert f"节点 {hostname} 启动失败：" in chinese, chinese
        assert why not in chinese and CJK.search(chinese)
        shown = chinese.replace(hostname, " ")
        assert not english_runs(shown), (chinese, english_runs(shown))
