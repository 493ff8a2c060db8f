"""Honest utilization (issue 34): a job that keeps its GPUs at 100% utilization with no
tensor work. Where the node has DCGM, its profiling fields (SM active, tensor pipe active)
say so; where it has none (GeForce, most rented containers) the power proxy (>= 90%
utilization at < 40% of the board's power for a while) does. Real training at that
utilization warns under neither."""

from __future__ import annotations

import dataclasses
import json
import re
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from tests.telemetry_live.conftest import FAST_THRESHOLDS, Live, fast_options, wait_until
from tests.telemetry_live.test_rules_and_book import check, readings
from xyclaw.remote import StreamHandle

UNDERUSE = dataclasses.replace(FAST_THRESHOLDS, underuse_for_s=1.0)


def _train(live: Live, directive: str) -> list[StreamHandle]:
    """A two-node torchrun job whose script carries ``# sim: <directive>``."""
    record = live.cluster.record
    master = record.nodes[0].hostname
    access = live.parts.access()
    handles = []
    for rank, node in enumerate(record.nodes):
        live.run(rank, f"printf '# sim: {directive}\\nimport torch\\n' > /root/train.py")
        command = (
            f"cd /root && torchrun --nnodes 2 --node_rank {rank} --nproc_per_node 8"
            f" --master_addr {master} train.py --model llama-7b --max_steps 1000000"
        )

        def feed(line: str) -> None:
            live.service.feed_job_log(live.cluster_id, line, job_id=None)

        access.trust(node)
        handles.append(
            access.pool.stream(access.target(record, node), command, feed, on_stderr_line=feed)
        )
    return handles


def _busy(live: Live) -> bool:
    return all(
        float(c.live.series("util", last=1)[1].min()) > 90
        for c in live.service.collectors(live.cluster_id)
    )


@pytest.mark.parametrize(
    "node_class",
    [{"dcgm": False}, {"gpu": "RTX4090", "fabric": "eth-25", "nic_count": 0}],
    ids=["a800-container-without-dcgm", "geforce"],
)
def test_a_busy_loop_at_full_utilization_warns_with_the_power_it_draws(
    make_live: Callable[..., Live], node_class: dict[str, Any]
) -> None:
    live = make_live(options=fast_options(thresholds=UNDERUSE), **node_class)
    jobs = _train(live, "busy_loop=1")
    try:
        wait_until(lambda: _busy(live), timeout=30)
        live.service.job_started(live.cluster_id, job_id=None)
        raised = wait_until(lambda: live.raised("gpu.underused"), timeout=20)
        alert = raised[0]
        assert alert.severity == "warning"
        assert "utilization but draws" in alert.message and "a busy loop or a wait" in alert.message
        assert len(live.raised("gpu.underused")) == 1  # one alert for the job, not per GPU
        (row,) = [r for r in live.alert_rows() if r["rule"] == "gpu.underused"]
        assert json.loads(row["data_json"])["source"] == "power"
    finally:
        for job in jobs:
            job.cancel()


def test_a_busy_loop_warns_with_dcgms_fields_where_the_node_has_dcgm(
    make_live: Callable[..., Live],
) -> None:
    live = make_live(options=fast_options(thresholds=UNDERUSE, dcgm_interval_s=0.3))
    jobs = _train(live, "busy_loop=1")
    try:
        wait_until(lambda: _busy(live), timeout=30)
        live.service.job_started(live.cluster_id, job_id=None)
        raised = wait_until(lambda: live.raised("gpu.underused"), timeout=20)
        assert "DCGM counts" in raised[0].message
        # the window's mean: a reading from before the loop began may leave 1% (a clean-clone run)
        busy = re.search(r"tensor pipe (\d+)% busy", raised[0].message)
        assert busy is not None and int(busy.group(1)) <= 5, raised[0].message
        (row,) = [r for r in live.alert_rows() if r["rule"] == "gpu.underused"]
        data = json.loads(row["data_json"])
        assert data["source"] == "dcgm" and data["sm_active"] < 10 and data["util"] >= 90
        # the fields are kept beside nvidia-smi's in the live window and in the history
        collector = live.service.collectors(live.cluster_id)[0]
        _ts, records = collector.live.dcgm_window(last=1)
        assert int(records["tensor_active"].max()) < 30
        live.service.flush()
        stored = live.parts.store.dcgm_samples(live.cluster_id, 0, 2**62)
        assert len(stored) >= 8 and int(stored.records["sm_active"].max()) < 100
    finally:
        for job in jobs:
            job.cancel()


def test_real_training_at_the_same_utilization_does_not_warn(
    make_live: Callable[..., Live],
) -> None:
    live = make_live(options=fast_options(thresholds=UNDERUSE, dcgm_interval_s=0.3))
    jobs = _train(live, "model=llama-7b")
    try:
        wait_until(lambda: _busy(live), timeout=30)
        live.service.job_started(live.cluster_id, job_id=None)
        wait_until(lambda: all(c.dcgm == "yes" for c in live.service.collectors(live.cluster_id)))
        time.sleep(3.0)  # three times the rule's hold
        assert live.raised("gpu.underused") == []
    finally:
        for job in jobs:
            job.cancel()


def test_the_proxy_on_made_up_readings() -> None:
    spinning = readings(util=[100, 100, 95, 80], power_dw=[900, 1500, 3000, 900])
    found = check(spinning, job=True)
    assert ("gpu.underused", 0) in found and ("gpu.underused", 1) in found
    assert ("gpu.underused", 2) not in found  # 300 W of 400: real work
    assert ("gpu.underused", 3) not in found  # 80%: below the utilization it needs
    assert ("gpu.underused", 0) not in check(spinning, job=False)  # no job, no warning


def test_dcgm_decides_where_the_node_has_it_and_reads_in_chinese() -> None:
    from tests.telemetry_live.test_rules_and_book import NODE, TH
    from tests.telemetry_live.test_zh_alert_wording import chinese
    from xyclaw.parsers.dcgm import DcgmGpu
    from xyclaw.telemetry.pack import GpuSlots
    from xyclaw.telemetry.rules import instant_findings

    slots = GpuSlots(4)
    for i in range(4):
        slots.learn(f"GPU-{i}", None, 400.0)
    # all four at 100%: GPU 0 spins at low power, GPU 1 spins at high power (a busy loop
    # on every SM's CUDA cores: no tensor work, SMs busy), GPU 2 spins drawing full power
    # with idle SMs, GPU 3 does real work
    rec = readings(util=[100] * 4, power_dw=[900, 3000, 3500, 3500])
    dcgm = {
        0: DcgmGpu(0, 0.02, 0.0, 0.01),
        1: DcgmGpu(1, 0.9, 0.0, 0.3),
        2: DcgmGpu(2, 0.1, 0.01, 0.05),
        3: DcgmGpu(3, 0.85, 0.48, 0.35),
    }
    found = instant_findings(
        NODE, rec, np.array([True] * 4), slots, job_running=True, th=TH, dcgm=dcgm
    )
    spinning = {f.key.gpu: f for f in found if f.key.rule == "gpu.underused"}
    assert set(spinning) == {0, 2}  # by DCGM's fields, whatever the power says
    assert spinning[2].data["source"] == "dcgm" and spinning[2].data["sm_active"] == 10.0
    text = chinese(spinning[0].said, "n0", "100")
    assert "SM 活跃仅 2%" in text and "张量管线忙碌 0%" in text
