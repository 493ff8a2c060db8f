"""The sim's RDMA port error counters (issue 34, b34): what the fabric-regression rule reads
a cause from. A flapping link's ``link_downed`` grows, a paused port's ``port_xmit_wait``
grows, a port taken down counts one down; ``clear("slow_nic")`` ends the first two."""

from __future__ import annotations

import time

from xyclaw.parsers.nic import parse_ib_counters
from xyclaw.sim.node import SimNode
from xyclaw.telemetry.nicstream import IB_COUNTERS


def _counters(ssh) -> dict[str, dict[str, int]]:  # type: ignore[no-untyped-def]
    """What the telemetry's own NIC command reads, parsed as it parses it."""
    return {s.name: s.counters for s in parse_ib_counters(ssh.run(IB_COUNTERS).out)}


def test_flapping_pauses_and_a_port_down_show_in_their_counters(node: SimNode, ssh) -> None:
    before = _counters(ssh)
    assert set(before) == {"mlx5_0:1", "mlx5_1:1", "mlx5_2:1", "mlx5_3:1"}
    assert all(c["link_downed"] == 0 and c["port_xmit_wait"] == 0 for c in before.values())
    node.faults.flap_link(1)
    node.faults.pfc_pauses(2, 0.5)
    node.faults.link_down(3)
    assert node.faults.active() == [
        "flap_link(nic=1)", "pfc_pauses(nic=2, factor=0.5)", "link_down(nic=3)"
    ]  # fmt: skip
    time.sleep(0.3)
    first = _counters(ssh)
    assert first["mlx5_1:1"]["link_downed"] >= 1 and first["mlx5_1:1"]["link_error_recovery"] >= 1
    assert first["mlx5_2:1"]["port_xmit_wait"] > 0 and first["mlx5_2:1"]["link_downed"] == 0
    assert first["mlx5_3:1"]["link_downed"] == 1
    assert first["mlx5_0:1"] == before["mlx5_0:1"] | {
        k: v for k, v in first["mlx5_0:1"].items() if k.endswith(("data", "packets"))
    }  # the healthy port's error counters stay at zero
    node.faults.clear("slow_nic", "link_down")
    assert node.faults.active() == []
    settled = _counters(ssh)
    time.sleep(0.3)
    later = _counters(ssh)
    assert later["mlx5_2:1"]["port_xmit_wait"] == settled["mlx5_2:1"]["port_xmit_wait"]
    assert later["mlx5_1:1"]["link_downed"] == settled["mlx5_1:1"]["link_downed"]
