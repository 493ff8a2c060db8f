"""Alert rules on made-up readings, and the book that turns findings into alerts."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from xyclaw.store.samples import MISSING
from xyclaw.telemetry.alerts import Alert, AlertBook, AlertKey, Finding, alert_from_row
from xyclaw.telemetry.live import GpuWindow, NicWindow
from xyclaw.telemetry.pack import GpuSlots, empty_slots
from xyclaw.telemetry.rules import (
    RULES,
    AlertThresholds,
    NodeRef,
    TrafficWatch,
    instant_findings,
    medians_of_others,
    node_stats,
    straggler_findings,
    xid_findings,
)

TH = AlertThresholds()


class FakeSink:
    def __init__(self) -> None:
        self.log: list[tuple[str, Alert]] = []

    def raised(self, alert: Alert) -> None:
        self.log.append(("raised", alert))

    def cleared(self, alert: Alert, when: float) -> None:
        self.log.append(("cleared", alert))

    def escalated(self, alert: Alert, when: float) -> None:
        self.log.append(("escalated", alert))

    def kinds(self) -> list[str]:
        return [k for k, _ in self.log]


def book(hold: float = 2.0, clear: float = 3.0) -> tuple[AlertBook, FakeSink]:
    sink = FakeSink()
    return AlertBook(sink, lambda rule: (hold, clear), clock=lambda: 0.0), sink  # type: ignore[arg-type]


def finding(gpu: int = 0, rule: str = "gpu.thermal_throttle", **kw: Any) -> Finding:
    return Finding(
        key=AlertKey(rule, 1, 10, gpu),
        severity=kw.pop("severity", "warning"),
        message=f"GPU {gpu} {rule}",
        action="do something",
        node="n0",
        **kw,
    )


SCOPE = ("gpu", 1, 10)


def test_a_finding_must_hold_for_its_time_before_it_raises() -> None:
    b, sink = book(hold=2.0)
    b.update(SCOPE, [finding()], now=0.0)
    b.update(SCOPE, [finding()], now=1.0)
    b.update(SCOPE, [], now=1.5)  # it stopped holding: start again
    b.update(SCOPE, [finding()], now=2.0)
    b.update(SCOPE, [finding()], now=3.9)
    assert sink.kinds() == []
    b.update(SCOPE, [finding()], now=4.0)
    assert sink.kinds() == ["raised"]
    b.update(SCOPE, [finding()], now=5.0)
    assert sink.kinds() == ["raised"]  # still the same alert
    assert [a.rule for a in b.open_alerts(1)] == ["gpu.thermal_throttle"]


def test_an_alert_clears_only_after_its_scope_reports_without_it_for_a_while() -> None:
    b, sink = book(hold=0.0, clear=3.0)
    b.update(SCOPE, [finding()], now=0.0)
    b.update(SCOPE, [], now=1.0)
    b.update(SCOPE, [], now=2.9)
    assert sink.kinds() == ["raised"]
    b.update(("gpu", 1, 99), [], now=100.0)  # another node saying nothing changes nothing
    b.update(SCOPE, [], now=3.0)
    assert sink.kinds() == ["raised", "cleared"]
    assert b.open_alerts() == []


def test_findings_that_share_a_cause_make_one_alert_until_all_are_gone() -> None:
    b, sink = book(hold=0.0, clear=0.0)
    cause = ("gpu-lost", 1, 10, 3)
    b.update(SCOPE, [finding(3, "gpu.missing", cause=cause, severity="critical")], now=0.0)
    xid = finding(3, "gpu.xid", cause=cause, severity="critical")
    b.update(("xid", 1, 10), [xid], now=0.5)
    assert sink.kinds() == ["raised"]
    assert b.open_alerts(1)[0].rules == ["gpu.missing", "gpu.xid"]
    b.update(SCOPE, [], now=1.0)
    assert sink.kinds() == ["raised"]  # the XID still holds
    b.update(("xid", 1, 10), [], now=2.0)
    assert sink.kinds() == ["raised", "cleared"]


def test_a_released_cluster_clears_its_alerts_and_no_other() -> None:
    b, sink = book(hold=0.0, clear=99.0)
    b.update(SCOPE, [finding(1)], now=0.0)
    b.update(("xid", 1, 10), [finding(2, "gpu.xid")], now=0.0)
    other = Finding(AlertKey("gpu.missing", 2, 20, 0), "critical", "m", "a", "n9")
    b.update(("gpu", 2, 20), [other], now=0.0)
    b.close_cluster(1, now=1.0)
    assert sink.kinds() == ["raised", "raised", "raised", "cleared", "cleared"]
    assert [a.cluster_id for a in b.open_alerts()] == [2]


def test_a_graver_finding_joining_a_cause_escalates_the_alert() -> None:
    b, sink = book(hold=0.0)
    cause = ("gpu-memory", 1, 10, 5)
    b.update(("xid", 1, 10), [finding(5, "gpu.xid", cause=cause, severity="warning")], now=0)
    b.update(SCOPE, [finding(5, "gpu.ecc_uncorrectable", cause=cause, severity="critical")], now=1)
    assert sink.kinds() == ["raised", "escalated"]
    alert = b.open_alerts(1)[0]
    assert alert.severity == "critical" and "ecc" in alert.message


def test_an_alert_left_open_by_an_earlier_run_clears_when_its_cause_is_gone() -> None:
    f = finding(2)
    row = {
        "id": 41,
        "ts": 5.0,
        "severity": "warning",
        "message": f.message,
        "data_json": json.dumps(
            {"key": list(f.key), "scope": list(SCOPE), "cause": list(f.key), "action": "x"}
        ),
    }
    alert = alert_from_row(row)
    assert alert is not None and alert.event_id == 41
    b, sink = book(hold=0.0, clear=1.0)
    b.restore(alert)
    b.update(SCOPE, [f], now=0.0)  # still holding: nothing new is raised
    assert sink.kinds() == [] and len(b.open_alerts(1)) == 1
    b.update(SCOPE, [], now=1.0)
    assert sink.kinds() == ["cleared"]
    assert (
        alert_from_row({"id": 1, "ts": 0, "severity": "x", "message": "", "data_json": "{}"})
        is None
    )


def test_every_rule_has_a_severity_a_title_and_an_action() -> None:
    for rule in RULES.values():
        assert rule.severity in ("info", "warning", "error", "critical")
        assert rule.title and len(rule.action) > 20


# --- per-instant rules ------------------------------------------------------------------------

NODE = NodeRef(1, 10, "n0", 4)


def readings(**fields: list[int]) -> np.ndarray:
    rec = empty_slots(4)
    base = {
        "util": [90] * 4,
        "temp_c": [60] * 4,
        "power_dw": [3000] * 4,
        "power_limit_w": [400] * 4,
        "sm_mhz": [1410] * 4,
        "mem_used_mib": [1000] * 4,
        "mem_total_mib": [80000] * 4,
        "throttle": [0] * 4,
        "ecc_uncorrected": [0] * 4,
    }
    base.update(fields)
    for name, vals in base.items():
        rec[name] = vals
    return rec


def rules_of(findings: list[Finding]) -> list[tuple[str, int | None]]:
    return sorted((f.key.rule, f.key.gpu) for f in findings)


def check(rec: np.ndarray, present: list[bool] | None = None, job: bool = False) -> list[Any]:
    slots = GpuSlots(4)
    for i in range(4):
        slots.learn(f"GPU-{i}", None, 400.0)
    mask = np.array(present or [True] * 4)
    return rules_of(instant_findings(NODE, rec, mask, slots, job_running=job, th=TH))


def test_healthy_busy_gpus_find_nothing() -> None:
    assert check(readings()) == []


def test_each_per_instant_rule_on_its_reading() -> None:
    assert check(readings(mem_used_mib=[1000, 79000, 1000, 1000])) == [("gpu.memory_full", 1)]
    assert check(readings(ecc_uncorrected=[0, 0, 2, 0])) == [("gpu.ecc_uncorrectable", 2)]
    assert check(readings(throttle=[0x20, 0, 0, 0])) == [("gpu.thermal_throttle", 0)]
    hot_hw = readings(throttle=[0, 0x8, 0x8, 0], temp_c=[60, 88, 60, 60])
    assert check(hot_hw) == [("gpu.thermal_throttle", 1)]  # HW slowdown counts when hot
    capped = readings(throttle=[0x4, 0x4, 0, 0], power_limit_w=[400, 250, 400, 400])
    assert check(capped) == [("gpu.power_throttle", 1)]  # at the default limit is normal
    assert check(readings(throttle=[0, 0, 0, 0x80])) == [("gpu.power_throttle", 3)]
    assert check(readings(), present=[True, False, True, True]) == [("gpu.missing", 1)]


def test_idle_gpus_matter_only_while_a_job_runs() -> None:
    idle = readings(util=[0, 0, 95, 3])
    assert check(idle) == []
    assert check(idle, job=True) == [
        ("gpu.idle_during_job", 0),
        ("gpu.idle_during_job", 1),
        ("gpu.idle_during_job", 3),
    ]


# --- peers and network --------------------------------------------------------------------------


def window(util: list[int], power_w: list[int], throttle: int = 0) -> GpuWindow:
    rows = np.stack([readings(util=util, power_dw=[p * 10 for p in power_w])] * 5)
    rows["throttle"][:, 0] = throttle
    return GpuWindow(np.arange(5, dtype=np.int64) * 1000, rows)


def stats(node_id: int, util: list[int], power: list[int], throttle: int = 0) -> Any:
    node = NodeRef(1, node_id, f"n{node_id}", 4)
    return node_stats(node, window(util, power, throttle))


def test_a_gpu_far_below_its_busy_peers_is_a_straggler() -> None:
    found = straggler_findings([stats(1, [97, 97, 58, 97], [360, 360, 240, 360])], TH)
    assert rules_of(found) == [("gpu.straggler", 2)]
    low_power = straggler_findings([stats(1, [97, 97, 97, 97], [360, 360, 200, 360])], TH)
    assert rules_of(low_power) == [("gpu.straggler", 2)]


def test_no_straggler_when_peers_are_idle_or_the_slow_gpu_is_throttled() -> None:
    assert straggler_findings([stats(1, [2, 3, 0, 1], [60, 60, 60, 60])], TH) == []
    slowed = stats(1, [40, 97, 97, 97], [200, 360, 360, 360], throttle=0x40)
    assert straggler_findings([slowed], TH) == []


def ramp(per_gpu: list[list[int]]) -> Any:
    """One node's window reading by reading: ``per_gpu[g]`` is GPU g's utilization in
    each reading (power following it), as a job's start-up shows it."""
    rows = np.stack(
        [
            readings(util=list(col), power_dw=[40 + u * 33 for u in col])
            for col in zip(*per_gpu, strict=True)
        ]
    )
    node = NodeRef(1, 1, "n1", len(per_gpu))
    return node_stats(node, GpuWindow(np.arange(len(rows), dtype=np.int64) * 200, rows))


def test_a_window_across_the_start_up_judges_no_straggler_but_a_slow_gpu_after_it_is_one() -> None:
    """Issue 34's healthy runs: a short window over the start-up, where one GPU's few
    readings fall a reading later than its peers', made a healthy GPU 'lag its peers'
    (its mean 39% against their 54%). Peers busy through the window are needed to judge;
    once they are, a GPU slow through the window is a straggler as before."""
    peers = [4, 4, 40, 85, 97, 97]
    late = [4, 4, 4, 40, 85, 97]  # the same start-up, one reading later
    assert straggler_findings([ramp([peers, peers, late, peers])], TH) == []
    steady = [40, 85, *[97] * 10]
    slow = [24, 51, *[58] * 10]  # 60% of its peers through the window
    found = straggler_findings([ramp([steady, steady, slow, steady])], TH)
    assert rules_of(found) == [("gpu.straggler", 2)]
    # a checkpoint pause: every GPU dips, one of them a reading longer: no straggler
    paused = [*[97] * 4, 2, 2, 2, 97, 97]
    assert straggler_findings([ramp([paused, paused, [*[97] * 5, 2, 2, 2, 97], paused])], TH) == []


def test_a_node_far_below_the_others_is_a_straggler_node() -> None:
    found = straggler_findings(
        [
            stats(1, [97] * 4, [360] * 4),
            stats(2, [40] * 4, [200] * 4),
            stats(3, [96] * 4, [350] * 4),
        ],
        TH,
    )
    assert ("node.straggler", None) in rules_of(found)
    assert all(f.key.node_id == 2 for f in found)


def nic(totals: list[float]) -> NicWindow:
    rates = np.zeros((len(totals), 1, 2), dtype=np.float32)
    rates[:, 0, 0] = np.array(totals) / 2
    rates[:, 0, 1] = np.array(totals) / 2
    return NicWindow(np.arange(len(totals), dtype=np.int64) * 1000, rates, ("mlx5_0:1",))


BUSY = 97.0  # a node's GPUs at work, or spinning in a stuck collective


def test_traffic_collapse_is_measured_against_the_baseline_kept_while_it_lasts() -> None:
    watch = TrafficWatch()
    th = AlertThresholds(nic_recent_s=3.0)
    normal = [20e9] * 20
    assert watch.findings(NODE, nic(normal), 19_000, training=True, gpu_util=BUSY, th=th) == []
    stalled = [*normal[:16], 0.0, 0.0, 0.0, 0.0]  # the last 3 s carry nothing
    found = watch.findings(NODE, nic(stalled), 19_000, training=True, gpu_util=BUSY, th=th)
    assert rules_of(found) == [("net.traffic_collapse", None)]
    still = [0.0] * 20  # the window no longer holds normal traffic: the baseline was kept
    assert watch.findings(NODE, nic(still), 19_000, training=True, gpu_util=BUSY, th=th)
    assert watch.findings(NODE, nic(still), 19_000, training=False, gpu_util=BUSY, th=th) == []
    assert watch.findings(NODE, nic([1e3] * 20), 19_000, training=True, gpu_util=BUSY, th=th) == []


def test_traffic_gone_with_the_gpus_idle_is_the_job_ending_not_a_stall() -> None:
    """Issue 34's healthy runs: the job's processes exit, the wire and the GPUs go quiet
    together, and the runner notices a moment later; ranks stuck in a collective keep their
    GPUs spinning instead. Without GPU readings the traffic alone still decides."""
    th = AlertThresholds(nic_recent_s=3.0)
    ended = [*[20e9] * 16, 0.0, 0.0, 0.0, 0.0]
    for util in (0.0, 2.0, 30.0):  # gone, the last checkpoint's write, winding down
        found = TrafficWatch().findings(
            NODE, nic(ended), 19_000, training=True, gpu_util=util, th=th
        )
        assert found == [], util
    for util in (BUSY, 100.0, float("nan")):
        found = TrafficWatch().findings(
            NODE, nic(ended), 19_000, training=True, gpu_util=util, th=th
        )
        assert rules_of(found) == [("net.traffic_collapse", None)], util


# --- XIDs -----------------------------------------------------------------------------------------

DMESG = """5000.00 9000.00
[ 1000.000000] NVRM: Xid (PCI:0000:07:00): 13, pid=1234, name=python, Graphics SM Warp Exception
[ 4990.000000] NVRM: Xid (PCI:0000:0f:00): 31, pid=1234, name=python, MMU Fault
[ 4995.000000] NVRM: Xid (PCI:0000:47:00): 45, pid=1234, name=python, Ch 00000010
[ 4996.000000] NVRM: Xid (PCI:0000:4e:00): 79, pid=1234, GPU has fallen off the bus.
"""


def test_xids_hold_while_recent_or_while_the_readings_still_show_the_cause() -> None:
    slots = GpuSlots(4)
    for i, bus in enumerate(("07", "0F", "47", "4E")):
        slots.learn(f"GPU-{i}", f"00000000:{bus}:00.0")
    present = np.array([True, True, True, False])
    found = xid_findings(NODE, DMESG, slots, (readings(), present), TH)
    by_code = {f.data["xid"]: f for f in found}
    assert sorted(by_code) == [31, 79]  # 13 is old, 45 is benign
    assert by_code[31].key.gpu == 1 and by_code[31].severity == "warning"
    assert by_code[79].key.gpu == 3 and by_code[79].severity == "critical"
    assert by_code[79].cause == ("gpu-lost", 1, 10, 3)
    back = np.array([True] * 4)
    assert sorted(
        f.data["xid"] for f in xid_findings(NODE, DMESG, slots, (readings(), back), TH)
    ) == [31]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(st.floats(-1e6, 1e6), st.just(float("nan"))), max_size=40))
def test_medians_of_others_match_the_slow_way(raw: list[float]) -> None:
    v = np.array(raw, dtype=np.float64)
    got = medians_of_others(v)
    for i in range(v.size):
        others = np.delete(v, i)
        others = others[~np.isnan(others)]
        if np.isnan(v[i]) or not others.size:
            assert np.isnan(got[i])  # no median for an unknown value or a lone one
            continue
        assert got[i] == pytest.approx(float(np.median(others)))


_reading = st.one_of(st.none(), st.integers(0, 100))


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.lists(_reading, min_size=4, max_size=4), min_size=1, max_size=70),
    st.lists(st.lists(st.one_of(st.none(), st.integers(0, 7000)), min_size=4, max_size=4)),
)
def test_a_nodes_stats_are_each_gpus_quantiles_over_its_known_readings(
    util_rows: list[list[int | None]], power_rows: list[list[int | None]]
) -> None:
    """What the straggler rule compares: each GPU's median and 25th percentile of
    utilization and its median power over the readings it gave ([N/A] ones left out),
    the figures np.quantile gives; NaN for a GPU with no reading at all."""
    rows = np.stack([readings() for _ in util_rows])
    for i, util in enumerate(util_rows):
        rows["util"][i] = [MISSING["util"] if u is None else u for u in util]
        power = power_rows[i % len(power_rows)] if power_rows else [3000] * 4
        rows["power_dw"][i] = [MISSING["power_dw"] if p is None else p for p in power]
    got = node_stats(
        NodeRef(1, 1, "n1", 4), GpuWindow(np.arange(len(rows), dtype=np.int64) * 1000, rows)
    )
    assert got is not None
    for gpu in range(4):
        util = [float(r["util"][gpu]) for r in rows if r["util"][gpu] != MISSING["util"]]
        power = [
            r["power_dw"][gpu] * 0.1 for r in rows if r["power_dw"][gpu] != MISSING["power_dw"]
        ]
        want_util = np.quantile(util, (0.5, 0.25)) if util else (np.nan, np.nan)
        want_power = np.quantile(power, 0.5) if power else np.nan
        assert got.util_low is not None
        np.testing.assert_array_equal(
            [got.util[gpu], got.util_low[gpu], got.power[gpu]],
            [want_util[0], want_util[1], want_power],
        )
