"""The XID a hang's verdict names (issue 34): read from the blamed node's kernel log, placed
on this machine's clock through the node's uptime, and preferred to the node's first alert
(whose title the telemetry's merge of XID 79 with the missing GPU may have chosen)."""

from __future__ import annotations

import time

from xyclaw.jobs.forensics import HangReport, NodeXid, node_xids, verdict
from xyclaw.parsers.flight_recorder import Divergence, Finding

# /proc/uptime, then `dmesg | grep -F 'NVRM: '` as a node prints them
LOG = """5000.00 78000.00
[ 1200.000000] NVRM: Xid (PCI:0000:07:00): 79, pid=1234, GPU has fallen off the bus.
[ 4900.000000] NVRM: Xid (PCI:0000:10:00): 45, pid=1300, Preemptive Cleanup
[ 4940.500000] NVRM: Xid (PCI:0000:0a:00): 79, pid=1301, GPU has fallen off the bus.
[ 4970.000000] NVRM: Xid (PCI:0000:0b:00): 48, pid=1302, DBE (Double Bit Error) ECC Error
"""


def test_xids_are_placed_on_this_clock_through_the_nodes_uptime() -> None:
    now = 1_800_000_000.0
    found = node_xids("gpu-1", LOG, now, since=now - 100)
    # the one from 3800 s before is another attempt's; XID 45 is benign
    assert found == [NodeXid("gpu-1", 79, now - 59.5), NodeXid("gpu-1", 48, now - 30.0)]
    assert [x.code for x in node_xids("gpu-1", LOG, now)] == [79, 79, 48]
    assert node_xids("gpu-1", LOG.split("\n", 1)[1], now) == []  # no uptime: no time, none


def _report() -> HangReport:
    hung = Divergence(
        Finding.NOT_ALL_JOINED, pg_name="0", pg_desc="default_pg", seq=83, op="all_reduce",
        waiting=tuple(r for r in range(16) if r != 11), absent=(11,),
    )  # fmt: skip
    return HangReport(hung, world=16, ranks_per_node=8, node_names=("gpu-0", "gpu-1"))


def test_the_verdict_names_the_xid_not_the_merged_alert_in_both_languages() -> None:
    at = time.mktime((2026, 12, 7, 14, 2, 5, 0, 0, -1))  # 14:02:05 local
    alerts = {"gpu-1": ("gpu-1: GPU 3 is missing (7 of 8 GPUs visible)", "14:01:59")}
    said = verdict(_report(), alerts, {"gpu-1": NodeXid("gpu-1", 79, at)})
    english = str(said)
    assert english.startswith("rank 11 on gpu-1 never entered all_reduce #83 ")
    assert english.endswith("; gpu-1 logged XID 79 (GPU has fallen off the bus) at 14:02:05")
    assert "missing" not in english
    assert said.in_language("zh").endswith("；gpu-1 在 14:02:05 记录了 XID 79（GPU 已从总线脱落）")
    # no XID on the blamed node: its first alert, as before
    plain = str(verdict(_report(), alerts, {"gpu-0": NodeXid("gpu-0", 48, at)}))
    assert plain.endswith(
        "; before that, at 14:01:59: gpu-1: GPU 3 is missing (7 of 8 GPUs visible)"
    )
    # an XID outside NVIDIA's reference table is worded from the catalog, or as unknown
    rare = str(verdict(_report(), None, {"gpu-1": NodeXid("gpu-1", 999, at)}))
    assert "logged XID 999 (" in rare
