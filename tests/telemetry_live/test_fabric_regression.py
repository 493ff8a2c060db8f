"""Fabric regression against the tune-time baseline (issue 34): the bus bandwidth nccl-tests
proved when the cluster was tuned is the baseline; the job's own collectives, as NCCL's
Inspector plugin writes them, are what it gets. A link slowed to half mid-job is warned of
within 60 s, with the link named; a healthy job is not."""

from __future__ import annotations

import dataclasses
import json
import random
import shlex
from collections.abc import Callable

import numpy as np
import pytest

from tests.telemetry_live.conftest import FAST_THRESHOLDS, Live, fast_options, wait_until
from tests.telemetry_live.test_training_alerts import busy
from xyclaw.parsers.nccl_inspector import INSPECTOR_DIR
from xyclaw.remote import StreamHandle
from xyclaw.telemetry.live import NicWindow
from xyclaw.telemetry.rules import (
    AlertThresholds,
    FabricBaseline,
    NodeFabric,
    NodeRef,
    fabric_regression_findings,
)

TH = dataclasses.replace(
    FAST_THRESHOLDS,
    fabric_window_s=1.5,
    fabric_regression_for_s=1.0,
    nic_recent_s=1.0,
    link_regression_for_s=600.0,  # the sibling rule is session 8's; this test is the baseline's
)
INSPECTOR = {
    "NCCL_PROFILER_PLUGIN": "inspector",
    "NCCL_INSPECTOR_ENABLE": "1",
    "NCCL_INSPECTOR_DUMP_THREAD_INTERVAL_MICROSECONDS": "500",
    "NCCL_INSPECTOR_DUMP_DIR": INSPECTOR_DIR,
}


def _train(live: Live, env: dict[str, str]) -> list[StreamHandle]:
    """A two-node torchrun job launched with ``env`` (the tuned NCCL variables and the
    Inspector's), its log fed to the service."""
    record = live.cluster.record
    master = record.nodes[0].hostname
    access = live.parts.access()
    prefix = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
    handles = []
    for rank, node in enumerate(record.nodes):
        live.run(rank, "echo 'print(1)' > /root/train.py")
        command = (
            f"cd /root && {prefix} torchrun --nnodes 2 --node_rank {rank} --nproc_per_node 8"
            f" --master_addr {master} train.py --model llama-7b --max_steps 1000000"
        )

        def feed(line: str) -> None:
            live.service.feed_job_log(live.cluster_id, line, job_id=None)

        access.trust(node)
        handles.append(
            access.pool.stream(access.target(record, node), command, feed, on_stderr_line=feed)
        )
    return handles


#: The fabric rule's own timings as shipped (20 s window, 15 s hold, a look every 5 s).
SHIPPED = dataclasses.replace(
    TH, fabric_window_s=20.0, fabric_regression_for_s=15.0, nic_recent_s=15.0
)


@pytest.mark.parametrize(
    ("th", "look_s"),
    [
        pytest.param(TH, 0.3, id="fast"),
        pytest.param(SHIPPED, 5.0, id="shipped-timings", marks=pytest.mark.soak),
    ],
)
def test_a_link_slowed_to_half_mid_job_is_named_against_the_tuned_baseline(
    make_live: Callable[..., Live], th: AlertThresholds, look_s: float
) -> None:
    live = make_live(options=fast_options(thresholds=th, inspector_interval_s=look_s))
    tuned = live.parts.tuning().tune(live.cluster_id)
    baseline = tuned.verdict.peak_busbw
    assert baseline is not None and baseline > 10
    jobs = _train(live, {**live.parts.tuning().environment_for(live.cluster_id), **INSPECTOR})
    try:
        wait_until(lambda: busy(live), timeout=30)
        live.service.job_started(live.cluster_id, job_id=None)
        collectors = live.service.collectors(live.cluster_id)
        wait_until(lambda: all(len(c.busbw) >= 5 for c in collectors), timeout=40)
        got = [c.recent_busbw(live.service.clock(), 5.0) for c in collectors]
        assert all(g is not None and 0.85 * baseline < g < 1.1 * baseline for g in got), got
        wait_until(lambda: min(c.live.nic_window().totals()[-5:].min() for c in collectors) > 1e9)
        live.cluster.nodes[1].faults.slow_nic(2, 0.5)
        slowed = live.service.clock()
        raised = wait_until(lambda: live.raised("net.fabric_regression"), timeout=60)
        took = live.service.clock() - slowed
        assert took < 60, took
        print(f"fabric regression named {took:.1f} s after the link was slowed")
        alert = raised[0]
        assert alert.node == live.cluster.nodes[1].spec.hostname
        assert "link mlx5_2:1 carries" in alert.message
        assert f"{baseline:.1f} GB/s nccl-tests proved at tuning" in alert.message
        (row,) = [r for r in live.alert_rows() if r["rule"] == "net.fabric_regression"]
        data = json.loads(row["data_json"])
        assert data["likely_cause"] == "slow-link" and data["link"] == "mlx5_2:1"
        assert 35 < data["below_percent"] < 65  # half the rail's pace, with jitter
    finally:
        for job in jobs:
            job.cancel()


# --- the rule on made-up readings ----------------------------------------------------------

NODE = NodeRef(1, 10, "gpu-1", 8)
PORTS = ("eth0", "mlx5_0:1", "mlx5_1:1", "mlx5_2:1", "mlx5_3:1")
RULE_TH = AlertThresholds()
BASE = FabricBaseline(90.0, (("NCCL_IB_HCA", "=mlx5_0,mlx5_1"),))


def _nic(speeds: list[float], rng: random.Random) -> NicWindow:
    ts = np.arange(30, dtype=np.int64) * 1000
    rates = np.zeros((30, len(PORTS), 2), dtype=np.float32)
    for i in range(30):
        rates[i, 0] = 3e3
        for k, speed in enumerate(speeds, start=1):
            rates[i, k] = 10e9 * speed * (1 + rng.uniform(-0.15, 0.15))
    return NicWindow(ts, rates, PORTS)


def test_the_cause_is_read_from_the_ports() -> None:
    rng = random.Random(3)
    down = NodeFabric(NODE, 44.0, _nic([1.0, 0.0, 1.0, 1.0], rng))
    (found,) = fabric_regression_findings([down], BASE, 29_000, training=True, th=RULE_TH)
    assert found.data["likely_cause"] == "nic-down" and found.key.detail == "mlx5_1:1"
    assert "carries nothing (a NIC down)" in found.message
    quiet = NodeFabric(NODE, 44.0, _nic([1.0, 1.0, 1.0, 1.0], rng))
    (found,) = fabric_regression_findings([quiet], BASE, 29_000, training=True, th=RULE_TH)
    assert found.data["likely_cause"] == "unknown"
    assert "changed NCCL variable (tuned: NCCL_IB_HCA==mlx5_0,mlx5_1)" in found.message


def test_fifty_healthy_windows_with_jitter_and_no_baseline_raise_nothing() -> None:
    rng = random.Random(34)
    for _ in range(50):
        nodes = [
            NodeFabric(NODE, 90.0 * (1 + rng.uniform(-0.1, 0.1)), _nic([1.0] * 4, rng))
            for _ in range(2)
        ]
        assert fabric_regression_findings(nodes, BASE, 29_000, training=True, th=RULE_TH) == []
    low = [NodeFabric(NODE, 30.0, None)]
    assert fabric_regression_findings(low, None, 29_000, training=True, th=RULE_TH) == []
    assert fabric_regression_findings(low, BASE, 29_000, training=False, th=RULE_TH) == []


def test_the_warning_reads_in_chinese() -> None:
    from tests.support.zh_words import english_words
    from tests.telemetry_live.test_zh_alert_wording import KEPT, chinese

    rng = random.Random(5)
    for speeds in ([1.0, 0.5, 1.0, 1.0], [1.0, 0.0, 1.0, 1.0], [1.0] * 4):
        node = NodeFabric(NODE, 45.0, _nic(speeds, rng))
        (found,) = fabric_regression_findings([node], BASE, 29_000, training=True, th=RULE_TH)
        text = found.said.in_language("zh") if found.said else ""
        assert "{" not in text and "45.0" in text and "90.0" in text and "gpu-1" in text
        # the link's and the tuned variables' names are data, shown as they are
        assert english_words(text, KEPT | {"mlx", "NCCL", "NCCL_IB_HCA"}) == [], text
        chinese(found.action_said)
