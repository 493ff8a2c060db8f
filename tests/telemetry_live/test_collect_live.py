"""Samples from simulated nodes reach the live window, the store and the health summary;
a dead or hung node leaves a recorded gap, raises one alert, and comes back."""

from __future__ import annotations

import json
import time
from collections.abc import Callable

import numpy as np
import pytest

import xyclaw.telemetry.collector as collector_module
from tests.telemetry_live.conftest import Live, fast_options, wait_until
from xyclaw.store.samples import MISSING


def test_samples_reach_the_live_window_the_store_and_the_summary(
    make_live: Callable[..., Live],
) -> None:
    live = make_live(nodes=2, fabric="roce-100")
    service = live.service
    collectors = service.collectors(live.cluster_id)
    first = collectors[0].live
    wait_until(lambda: first.instants >= 6 and len(first.nic_window()) >= 2)

    ts, util = first.series("util")
    assert util.shape == (len(ts), 8)
    assert np.all(np.diff(ts) > 0)  # oldest first, one row per instant
    assert np.shares_memory(util, first.series("util")[1])  # a view, not a copy
    temp = first.series("temp_c", last=1)[1][0]
    assert np.all((temp > 20) & (temp < 100))
    nic = first.nic_window()
    assert nic.names == ("mlx5_0:1", "mlx5_1:1", "mlx5_2:1", "mlx5_3:1")
    assert not np.isnan(nic.rates).any()

    service.flush()
    stored = live.parts.store.gpu_samples(live.cluster_id, 0, 2**62)
    assert len(stored) >= 2 * 8 * 5
    assert set(stored.node_id.tolist()) == {n.id for n in live.cluster.record.nodes}
    assert not np.any(stored.records["mem_total_mib"] == MISSING["mem_total_mib"])
    assert len(live.parts.store.nic_samples(live.cluster_id, 0, 2**62)) >= 4

    health = service.cluster_health(live.cluster_id)
    assert [n["node"] for n in health["nodes"]] == [n.hostname for n in live.cluster.record.nodes]
    node = health["nodes"][0]
    assert node["state"] == "up" and node["gpus"] == "8/8" and node["util_max"] == 0
    assert node["mem_total_gib"] == 640.0 and node["alerts"] == []
    assert len(json.dumps(health)) < 1500  # small enough for an agent's context

    stats = service.stats()
    assert stats["bad_lines"] == 0 and stats["lost_instants"] == 0
    assert stats["latency_ms_p99"] is not None and stats["latency_ms_p99"] < 1000


def gaps(live: Live) -> list[dict[str, object]]:
    live.parts.store.writer.flush()
    return live.parts.store.query(
        "SELECT node_id, start_ts, end_ts, reason FROM telemetry_gaps WHERE cluster_id = ?",
        [live.cluster_id],
    )


def test_a_node_killed_and_restarted_leaves_a_gap_then_sends_again(
    make_live: Callable[..., Live],
) -> None:
    live = make_live()
    node = live.cluster.nodes[1]
    record = live.cluster.record.nodes[1]
    collector = live.service.collectors(live.cluster_id)[1]
    node.faults.node_down()
    down_at = time.time()
    alert = wait_until(lambda: live.raised("node.unreachable"))[0]
    assert alert.node == record.hostname and alert.severity == "critical"
    assert collector.state == "down"
    time.sleep(0.5)
    before = collector.live.instants
    node.faults.node_up()
    wait_until(lambda: collector.live.instants >= before + 3, timeout=15)
    wait_until(lambda: live.cleared("node.unreachable"))

    rows = wait_until(lambda: [g for g in gaps(live) if g["end_ts"] is not None])
    assert len(rows) == 1 and rows[0]["node_id"] == record.id
    gap = rows[0]
    assert float(gap["start_ts"]) <= down_at + 0.3  # the gap starts at the last sample
    assert float(gap["end_ts"]) - float(gap["start_ts"]) >= 1.0
    ts = collector.live.gpu_window().ts_ms
    jump = np.diff(ts).max()
    assert jump >= 1000  # the hole is there in the live data too
    assert len(live.raised()) == 1  # one node down: one alert, nothing else


def test_a_hung_node_is_noticed_and_picked_up_again(make_live: Callable[..., Live]) -> None:
    live = make_live(nodes=1)
    node = live.cluster.nodes[0]
    collector = live.service.collectors(live.cluster_id)[0]
    node.faults.hang()
    wait_until(lambda: live.raised("node.unreachable"), timeout=15)
    wait_until(lambda: gaps(live))
    before = collector.live.instants
    node.faults.clear("hang")
    wait_until(lambda: collector.live.instants > before + 2, timeout=20)
    wait_until(lambda: live.cleared("node.unreachable"), timeout=10)
    assert [g["end_ts"] is not None for g in gaps(live)] == [True]


def test_watching_again_drops_a_node_that_left_and_clears_its_alerts(
    make_live: Callable[..., Live],
) -> None:
    live = make_live()
    gone = live.cluster.record.nodes[1]
    live.cluster.nodes[1].faults.node_down()
    wait_until(lambda: live.raised("node.unreachable"))
    live.parts.clusters.set_node_state(gone.id, "terminated")
    live.service.watch(live.cluster_id)
    assert [c.ref.node_id for c in live.service.collectors(live.cluster_id)] == [
        live.cluster.record.nodes[0].id
    ]
    assert live.service.live.get(live.cluster_id, gone.id) is None
    assert live.service.open_alerts(live.cluster_id) == []
    wait_until(lambda: live.cleared("node.unreachable"))


def test_polling_collects_the_same_samples(make_live: Callable[..., Live]) -> None:
    live = make_live(nodes=1, options=fast_options(gpu_mode="poll", nic_mode="poll"))
    collector = live.service.collectors(live.cluster_id)[0]
    wait_until(lambda: collector.live.instants >= 5 and len(collector.live.nic_window()) >= 2)
    assert collector.gpu_mode == "poll"
    assert collector.latest is not None and bool(collector.latest[1].all())


def test_a_node_that_cannot_stream_nvidia_smi_is_polled_instead(
    make_live: Callable[..., Live], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(
        collector_module, "gpu_stream_command", lambda interval, fields=(): "nvidia-smi -x"
    )
    live = make_live(nodes=1)  # waits until samples arrive
    collector = live.service.collectors(live.cluster_id)[0]
    assert collector.gpu_mode == "poll"
    before = collector.live.instants
    wait_until(lambda: collector.live.instants >= before + 3)
