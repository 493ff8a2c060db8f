"""Frame-to-frame updates (only the new columns and buckets) draw exactly what a redraw from
scratch would, whatever the samples do: jitter, losses, bursts, a node clock running ahead,
frames skipped, a ring that wraps."""

from __future__ import annotations

import numpy as np
import pytest
from pytestqt.qtbot import QtBot

from tests.gui_charts.conftest import NOW, Clock, Fleet
from xyclaw.gui.charts.curves import METRICS, bucket_grid, minmax_buckets, nic_gbit_s
from xyclaw.gui.charts.heatmap import GpuHeatmap, fill_heatmap, time_grid
from xyclaw.gui.charts.source import ClusterFrame
from xyclaw.gui.monitor_page import MonitorPage

pytestmark = pytest.mark.gui


def messy_feed(fleet: Fleet, rng: np.random.Generator, t0: float, t1: float) -> None:
    """Samples for (t0, t1]: ~1 Hz with jitter, a few lost, node 1's clock 1.7 s ahead."""
    for i in range(fleet.nodes):
        skew = 1.7 if i == 1 else 0.0
        t = t0 + rng.uniform(0.0, 1.0)
        while t <= t1:
            if rng.random() > 0.08:  # lost now and then
                util = rng.integers(0, 101, fleet.gpus)
                fleet.add(i, t + skew, util)
                fleet.add_nic(i, t + skew, list(rng.uniform(0, 5e9, 2)), [1e9, 2e9])
            t += rng.uniform(0.7, 1.3)


def full_image(frame: ClusterFrame, now: float) -> np.ndarray:
    grid = time_grid(now, frame.interval_s, frame.window_s)
    image = np.zeros((frame.gpu_count, grid.columns), dtype=np.uint8)
    fill_heatmap(image, frame, grid, stale_ms=2 * grid.step_ms)
    return image


@pytest.mark.parametrize("seed", [1, 2])
def test_heatmap_updated_frame_by_frame_equals_a_fresh_drawing(seed: int, qtbot: QtBot) -> None:
    rng = np.random.default_rng(seed)
    fleet = Fleet(nodes=3, gpus=4, capacity=120)  # a short ring, so it wraps during the test
    hm = GpuHeatmap()
    qtbot.addWidget(hm)  # deleted after the test, not by Qt's exit (a crash there)
    t = NOW - 200
    messy_feed(fleet, rng, t - 60, t)
    for _ in range(160):
        step = float(rng.choice([0.2, 1.0, 1.0, 1.0, 2.5, 7.0]))  # some frames are skipped
        messy_feed(fleet, rng, t, t + step)
        t += step
        frame = fleet.source.snapshot(1)
        assert frame is not None
        hm.set_frame(frame, t)
        want = full_image(frame, t)
        # columns whose samples the ring still holds (older ones may show evicted samples,
        # which a fresh drawing no longer knows)
        assert hm.grid is not None
        row = 0
        for node in frame.nodes:
            held = hm.grid.ends_ms - 2 * hm.grid.step_ms >= node.ts_ms[0]
            block = slice(row, row + node.gpus)
            assert (hm.image[block][:, held] == want[block][:, held]).all(), t - NOW
            row += node.gpus
        assert held.sum() > 40


def test_curves_updated_frame_by_frame_equal_fresh_buckets(qtbot: QtBot) -> None:
    rng = np.random.default_rng(5)
    fleet = Fleet(nodes=2, gpus=4, capacity=300)
    clock = Clock(NOW - 400)
    messy_feed(fleet, rng, clock.t - 200, clock.t)
    page = MonitorPage(fleet.source, clock=clock)
    qtbot.addWidget(page)
    page.resize(1200, 800)
    page.show()
    page.set_selection([(10, 1), (11, 0), (11, 3)])
    gpu_specs = [m for m in METRICS if not m.per_node]
    for n in range(120):
        step = float(rng.choice([1.0, 1.0, 3.0, 0.5, 9.0]))
        messy_feed(fleet, rng, clock.t, clock.t + step)
        clock.t += step
        if n == 60:
            page.set_selection([(10, 1), (10, 2), (11, 3)])
        page.tick()
        frame = fleet.source.snapshot(1)
        curves = page.curves
        grid = bucket_grid(clock.t, frame.window_s, curves.grid.bucket_ms // 1000)  # type: ignore[union-attr]
        for node_id, gpu in page.selection:
            node = next(x for x in frame.nodes if x.node_id == node_id)
            for spec in gpu_specs:
                assert spec.read is not None
                want = minmax_buckets(node.ts_ms, spec.read(node, [gpu]), grid)[0]
                shown = curves.curve_data(spec.key, (node_id, gpu))
                got = shown[1] if shown is not None else np.full_like(want, np.nan)
                assert np.array_equal(got, want, equal_nan=True), (spec.key, node_id, gpu, n)
            want_nic = minmax_buckets(node.nic_ts_ms, nic_gbit_s(node), grid)[0]
            shown_nic = curves.curve_data("nic", node_id)
            assert shown_nic is not None
            assert np.allclose(shown_nic[1], want_nic, equal_nan=True)
    page.close()
