"""Alerts and the guard's warnings worded in Chinese: every rule family's message and action
carries its figures into the Chinese sentence (nothing left in braces, every number there, no
English word but units, commands and names), the English stays as it was, and the wording
survives the store (raised, escalated, read back by a restart, a budget warning)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from tests.support.zh_words import english_words
from tests.telemetry_live.test_rules_and_book import readings
from xyclaw.events import AlertRaised, BudgetWarning, EventBus
from xyclaw.parsers.joblog import NcclTimeoutEvent
from xyclaw.store import Store
from xyclaw.store.event_log import EventLog, said_of
from xyclaw.telemetry.alerts import Alert, AlertSink, alert_from_row
from xyclaw.telemetry.live import GpuWindow, NicWindow
from xyclaw.telemetry.pack import GpuSlots
from xyclaw.telemetry.rules import (
    RULES,
    AlertThresholds,
    NodeRef,
    TrafficWatch,
    instant_findings,
    nccl_timeout_finding,
    node_stats,
    straggler_findings,
    unreachable_finding,
    xid_findings,
)
from xyclaw.wording import Said, said

TH = AlertThresholds()
NODE = NodeRef(1, 10, "gpu-node-7", 4)
#: Names (nodes, clusters, NCCL's operation), units and commands a Chinese user reads as they
#: are: `xyclaw down`, `ibstat`, `nvidia-smi -q -d PERFORMANCE`, SeqNum as NCCL logs it.
KEPT = {"gpu-node-7", "node", "demo", "ALLREDUCE", "CPU", "MHz", "PCI", "SeqNum", "down", "ibstat",
        "PERFORMANCE"}  # fmt: skip


def chinese(message: Said | None, *figures: object) -> str:
    """The message in Chinese, checked: worded, no field left, every figure in it."""
    assert message is not None, "the finding carries no wording"
    text = message.in_language("zh")
    assert re.search(r"[\u4e00-\u9fff]", text), text
    assert "{" not in text and "}" not in text, text
    for figure in figures:
        assert str(figure) in text, f"{figure!r} is missing from {text!r}"
    assert english_words(text, KEPT) == [], text
    return text


def instant(rec: np.ndarray, present: list[bool] | None = None, job: bool = False) -> dict:
    slots = GpuSlots(4)
    for i in range(4):
        slots.learn(f"GPU-{i}", None, 400.0)
    mask = np.array(present or [True] * 4)
    found = instant_findings(NODE, rec, mask, slots, job_running=job, th=TH)
    return {(f.key.rule, f.key.gpu): f for f in found}


def test_every_rule_has_a_chinese_title_and_action_with_its_english_unchanged() -> None:
    for rule in RULES.values():
        assert rule.title_said.english == rule.title and rule.action_said.english == rule.action
        chinese(rule.title_said)
        chinese(rule.action_said)


def test_the_per_instant_rules_word_their_figures_in_chinese() -> None:
    thermal = instant(readings(throttle=[0, 0, 0x20, 0], temp_c=[60, 60, 91, 60]))
    f = thermal[("gpu.thermal_throttle", 2)]
    assert f.message == "gpu-node-7: GPU 2 is thermally throttled at 91 C (clocks 1410 MHz)"
    assert f.said is not None and f.said.english == f.message
    assert chinese(f.said, "gpu-node-7", "GPU 2", "91", "1410") == (
        "gpu-node-7：GPU 2 在 91 °C 时过热降频（频率 1410 MHz）"
    )
    assert f.action_said is not None and f.action_said.english == f.action
    chinese(f.action_said)

    capped = instant(readings(throttle=[0, 0x4, 0, 0], power_limit_w=[400, 250, 400, 400]))
    f = capped[("gpu.power_throttle", 1)]
    assert f.message.endswith("(power capped at 250 W of 400 W default)")
    chinese(f.said, "GPU 1", "250 W", "400 W")
    assert "nvidia-smi -pl" in chinese(f.action_said)
    brake = instant(readings(throttle=[0, 0, 0, 0x80]))[("gpu.power_throttle", 3)]
    chinese(brake.said, "GPU 3")

    f = instant(readings(ecc_uncorrected=[0, 0, 3, 0]))[("gpu.ecc_uncorrectable", 2)]
    assert f.message == "gpu-node-7: GPU 2 has 3 uncorrectable ECC error(s)"
    chinese(f.said, "GPU 2", "3 个")

    f = instant(readings(mem_used_mib=[1000, 79000, 1000, 1000]))[("gpu.memory_full", 1)]
    assert f.message == "gpu-node-7: GPU 1 memory is 99% full (79000 of 80000 MiB)"
    chinese(f.said, "99%", "79000", "80000")

    f = instant(readings(), present=[True, False, True, True])[("gpu.missing", 1)]
    assert f.message == "gpu-node-7: GPU 1 is missing (3 of 4 GPUs visible)"
    chinese(f.said, "GPU 1", "3 / 4")

    f = instant(readings(util=[2, 90, 90, 90]), job=True)[("gpu.idle_during_job", 0)]
    assert f.message == "gpu-node-7: GPU 0 is idle (2% utilization) while a job runs"
    chinese(f.said, "GPU 0", "2%")


def _window(util: list[int], power_w: list[int]) -> GpuWindow:
    rows = np.stack([readings(util=util, power_dw=[p * 10 for p in power_w])] * 5)
    return GpuWindow(np.arange(5, dtype=np.int64) * 1000, rows)


def test_stragglers_word_their_figures_in_chinese() -> None:
    one = node_stats(NODE, _window([97, 97, 58, 97], [360, 360, 240, 360]))
    assert one is not None
    (f,) = straggler_findings([one], TH)
    assert (
        f.message == "gpu-node-7: GPU 2 lags its peers (58% utilization, 240 W; peers 97%, 360 W)"
    )
    chinese(f.said, "GPU 2", "58%", "240 W", "97%", "360 W")
    chinese(f.action_said, "nvidia-smi -q -d PERFORMANCE")
    nodes = [
        node_stats(NodeRef(1, i, f"n{i}", 4), _window([u] * 4, [300] * 4))
        for i, u in ((1, 97), (2, 40), (3, 96))
    ]
    (slow,) = [f for f in straggler_findings([s for s in nodes if s], TH) if f.key.gpu is None]
    assert slow.message == "n2 lags the other nodes (40% mean GPU utilization; others 96%)"
    chinese(slow.said, "n2", "40%", "96%")


def test_a_traffic_collapse_and_a_lost_node_word_their_figures_in_chinese() -> None:
    totals = [20e9] * 16 + [0.0] * 4
    rates = np.zeros((20, 1, 2), dtype=np.float32)
    rates[:, 0, 0] = rates[:, 0, 1] = np.array(totals) / 2
    window = NicWindow(np.arange(20, dtype=np.int64) * 1000, rates, ("mlx5_0:1",))
    (f,) = TrafficWatch().findings(
        NODE, window, 19_000, training=True, gpu_util=97.0, th=AlertThresholds(nic_recent_s=3.0)
    )
    assert f.message == (
        "gpu-node-7: network traffic fell to 0.0 Mb/s from 160.00 Gb/s while training runs"
    )
    chinese(f.said, "160.00 Gb/s", "0.0 Mb/s")
    chinese(f.action_said, "`ibstat`")

    lost = unreachable_finding(NODE, 42.4, said("alert.down.connection_lost"))
    assert lost.message == "gpu-node-7 has not answered for 42 s (connection lost)"
    assert chinese(lost.said, "gpu-node-7", "42") == "gpu-node-7 已 42 秒无响应（连接已断开）"
    remote = unreachable_finding(NODE, 31.0, "ssh: connect to host 10.0.0.7 port 22: timed out")
    assert remote.said is not None and "ssh: connect to host" in remote.said.in_language("zh")
    assert remote.message.endswith("(ssh: connect to host 10.0.0.7 port 22: timed out)")


DMESG = """5000.00 9000.00
[ 4990.000000] NVRM: Xid (PCI:0000:0f:00): 31, pid=1234, name=python, MMU Fault
[ 4996.000000] NVRM: Xid (PCI:0000:4e:00): 79, pid=1234, GPU has fallen off the bus.
[ 4997.000000] NVRM: Xid (PCI:0000:99:00): 154, pid=1234, name=python, something new
"""


def test_xids_word_their_meaning_and_action_in_chinese() -> None:
    slots = GpuSlots(4)
    for i, bus in enumerate(("07", "0F", "47", "4E")):
        slots.learn(f"GPU-{i}", f"00000000:{bus}:00.0")
    present = np.array([True, True, True, False])
    found = {f.data["xid"]: f for f in xid_findings(NODE, DMESG, slots, (readings(), present), TH)}
    fell = found[79]
    assert fell.message == "gpu-node-7: GPU 3 reported XID 79 (GPU has fallen off the bus)"
    assert fell.action == "node unusable: replace the node (or reboot and inspect the GPU)"
    assert chinese(fell.said, "GPU 3", "XID 79") == (
        "gpu-node-7：GPU 3 报告 XID 79（GPU 已从总线脱落）"
    )
    chinese(fell.action_said)
    chinese(found[31].said, "GPU 1", "XID 31")
    unknown = found[154]
    assert unknown.key.gpu is None and "the GPU at PCI" in unknown.message
    chinese(unknown.said, "XID 154", unknown.data["pci"])
    chinese(unknown.action_said, "XID 154")


def test_an_nccl_timeout_words_its_rank_operation_and_job_in_chinese() -> None:
    ev = NcclTimeoutEvent(
        rank=3, seq_num=4821, op_type="ALLREDUCE", ran_for_ms=600_000, line="", timeout_ms=None
    )
    f = nccl_timeout_finding(1, 17, ev)
    assert f.message == (
        "NCCL watchdog timed out on rank 3 (ALLREDUCE, SeqNum 4821) after 600 s in job 17"
    )
    chinese(f.said, "3", "ALLREDUCE", "4821", "600", "17")
    chinese(f.action_said)
    bare = NcclTimeoutEvent(
        rank=None, seq_num=9, op_type=None, ran_for_ms=None, line="", timeout_ms=None
    )
    g = nccl_timeout_finding(1, None, bare)
    assert g.message == "NCCL watchdog timed out on a rank (a collective, SeqNum 9)"
    chinese(g.said, "9")


# --- the store ---------------------------------------------------------------------------------


@pytest.fixture
def events(tmp_path: Path):
    from xyclaw.records import ClusterStore

    with Store(tmp_path / "history.db") as store:
        clusters = ClusterStore(store, EventBus())
        clusters.ensure_provider("test", "ssh")
        cluster_id = clusters.add_intent(
            {
                "provider_id": "test",
                "name": "demo",
                "gpu": "A800",
                "gpu_count": 4,
                "gpus_per_node": 4,
                "fabric": "none",
                "region": "loopback",
                "currency": "CNY",
                "price_per_gpu_hour_micros": 1_000_000,
                "idempotency_key": "demo-key",
            }
        )
        assert cluster_id == 1  # the findings and warnings below are of cluster 1
        yield store, EventLog(store, EventBus())


def test_an_alert_keeps_its_wording_when_stored_escalated_and_restored(events) -> None:
    store, log = events
    f = instant(readings(throttle=[0x20, 0, 0, 0], temp_c=[90, 60, 60, 60]))[
        ("gpu.thermal_throttle", 0)
    ]
    heard: list[AlertRaised] = []
    bus = EventBus()
    bus.subscribe(AlertRaised, heard.append)
    sink = AlertSink(EventLog(store, bus), bus)
    alert = Alert(
        seq=1,
        key=f.key._replace(node_id=None),  # the history has the cluster, not its nodes
        cause=("gpu-slow", 1, 10, 0),
        scope=("gpu", 1, 10),
        severity=f.severity,
        message=f.message,
        action=f.action,
        node=f.node,
        raised_at=1000.0,
        data=dict(f.data),
        said=f.said,
        action_said=f.action_said,
    )
    sink.raised(alert)
    sink.flush()
    assert heard[0].said == f.said and heard[0].action_said == f.action_said
    (row,) = log.open_alerts()
    assert row["message"] == f.message  # English in its column, as before
    assert said_of(row) == f.said and said_of(row, "action_said") == f.action_said
    back = alert_from_row(row)
    assert back is not None and back.said == f.said and back.action_said == f.action_said
    assert back.to_json()["said"] == f.said.to_json()
    assert "said" not in back.data and "action_said" not in back.data

    gone = instant(readings(ecc_uncorrected=[4, 0, 0, 0]))[("gpu.ecc_uncorrectable", 0)]
    alert.severity, alert.message, alert.action = gone.severity, gone.message, gone.action
    alert.said, alert.action_said = gone.said, gone.action_said
    sink.escalated(alert, 1010.0)
    sink.flush()
    sink.close()
    (row,) = log.open_alerts()
    assert row["message"] == gone.message and said_of(row) == gone.said
    assert json.loads(row["data_json"])["key"] == list(alert.key)  # what a restart needs is kept
    chinese(said_of(row), "4 个")

    old = AlertRaised(
        event_id=0, rule="gpu.xid", severity="warning", message="old words", action="old",
        cluster_id=1,
    )  # fmt: skip
    log.raise_alert(old, {})
    assert said_of(log.open_alerts()[0]) is None  # stored without wording: English stays


def test_a_budget_warning_keeps_its_wording(events) -> None:
    store, _ = events
    heard: list[BudgetWarning] = []
    bus = EventBus()
    bus.subscribe(BudgetWarning, heard.append)
    message = said(
        "alert.budget.spent_still_bills", name="demo", spent="12.00 CNY", limit="10.00 CNY"
    )
    action = said("alert.budget.spent_action", name="demo")
    warning = BudgetWarning(
        cluster_id=1, name="demo", spent_micros=12_000_000, budget_micros=10_000_000,
        currency="CNY", message=str(message),
    )  # fmt: skip
    EventLog(store, bus).record_budget(warning, "critical", message, action=action)
    assert heard[0].said == message and heard[0].action_said == action
    (row,) = store.query("SELECT * FROM events WHERE kind = 'budget'")
    assert row["message"] == (
        "demo has spent its budget (12.00 CNY of 10.00 CNY) and still bills"
        " ([billing] on_budget_exhausted is warn)"
    )
    assert json.loads(row["data_json"])["action"] == "xyclaw down demo"
    chinese(said_of(row), "demo", "12.00 CNY", "10.00 CNY")
    assert "xyclaw down demo" in said_of(row, "action_said").in_language("zh")


@pytest.mark.parametrize(
    ("seconds", "english", "zh"),
    [(45, "45 s", "45 秒"), (720, "12 min", "12 分钟"), (9000, "2.5 h", "2.5 小时")],
)
def test_the_guards_durations_are_worded(seconds: float, english: str, zh: str) -> None:
    from xyclaw.engine.guard import duration, duration_said

    assert duration(seconds) == english and duration_said(seconds).in_language("zh") == zh
    message = said("alert.idle.warn", name="demo", percent=5.0, left=duration_said(seconds))
    assert (
        message.english == f"demo is idle (GPUs below 5%, no job); it will be released in {english}"
    )
    chinese(message, "demo", "5%", zh)
