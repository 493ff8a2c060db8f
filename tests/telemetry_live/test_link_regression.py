"""Fabric regression by rail (issue 34): a link slowed mid-job is named within 60 s; healthy
links with jitter never warn."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable

import numpy as np

from tests.telemetry_live.conftest import FAST_THRESHOLDS, Live, fast_options, wait_until
from tests.telemetry_live.test_training_alerts import start_training, wait_busy_then_start
from xyclaw.telemetry.live import NicWindow
from xyclaw.telemetry.rules import AlertThresholds, NodeRef, link_regression_findings

NODE = NodeRef(1, 10, "gpu-1", 8)
PORTS = ("eth0", "mlx5_0:1", "mlx5_1:1", "mlx5_2:1", "mlx5_3:1")
TH = AlertThresholds()


def _window(rng: random.Random, speeds: list[float], seconds: int = 60) -> NicWindow:
    """One reading a second of a node moving 10 GB/s per link, each reading jittered."""
    ts = np.arange(seconds, dtype=np.int64) * 1000
    rates = np.zeros((seconds, len(PORTS), 2), dtype=np.float32)
    for i in range(seconds):
        rates[i, 0] = 3e3
        for k, speed in enumerate(speeds, start=1):
            rates[i, k] = 10e9 * speed * (1 + rng.uniform(-0.15, 0.15))
    return NicWindow(ts, rates, PORTS)


def test_fifty_healthy_runs_with_jitter_raise_nothing() -> None:
    rng = random.Random(34)
    for _ in range(50):
        window = _window(rng, [1.0, 1.0, 1.0, 1.0])
        for now in range(20_000, 60_000, 5_000):
            assert link_regression_findings(NODE, window, now, training=True, th=TH) == []


def test_a_link_at_half_its_share_is_named() -> None:
    window = _window(random.Random(1), [1.0, 1.0, 0.5, 1.0])
    (found,) = link_regression_findings(NODE, window, 59_000, training=True, th=TH)
    assert found.key.detail == "mlx5_2:1" and found.key.rule == "net.link_regression"
    assert "link mlx5_2:1 carries" in found.message and "of its siblings'" in found.message
    assert link_regression_findings(NODE, window, 59_000, training=False, th=TH) == []


def test_a_link_slowed_mid_job_on_the_simulated_cluster(make_live: Callable[..., Live]) -> None:
    th = dataclasses.replace(FAST_THRESHOLDS, link_regression_for_s=1.0)
    live = make_live(options=fast_options(thresholds=th))
    jobs = start_training(live)
    try:
        wait_busy_then_start(live)
        nic = live.service.collectors(live.cluster_id)[1].live
        wait_until(lambda: nic.nic_window().totals()[-10:].min() > 1e9, timeout=30)
        assert live.raised("net.link_regression") == []
        live.cluster.nodes[1].faults.slow_nic(2, 0.5)
        raised = wait_until(lambda: live.raised("net.link_regression"), timeout=60)
        assert raised[0].node == live.cluster.nodes[1].spec.hostname
        assert "link mlx5_2:1 carries" in raised[0].message
        assert {e.node for e in live.raised("net.link_regression")} == {raised[0].node}
    finally:
        for job in jobs:
            job.cancel()
