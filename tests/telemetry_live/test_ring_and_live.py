"""Ring buffers and the live window: the newest rows in order, as views, whatever the wrap."""

from __future__ import annotations

import numpy as np
import pytest

from xyclaw.store.samples import MISSING
from xyclaw.telemetry.live import LiveBuffers
from xyclaw.telemetry.pack import empty_slots
from xyclaw.telemetry.ring import Ring


def test_ring_keeps_the_newest_rows_oldest_first_across_wraps() -> None:
    ring = Ring(5, np.int64)
    assert len(ring) == 0 and ring.view().shape == (0,) and ring.latest() is None
    for i in range(13):
        ring.append(i)
        expected = list(range(max(0, i - 4), i + 1))
        assert ring.view().tolist() == expected
        assert int(ring.latest()) == i  # type: ignore[arg-type]
    assert ring.view(2).tolist() == [11, 12]
    assert ring.view(0).tolist() == []
    assert ring.view(99).tolist() == [8, 9, 10, 11, 12]
    assert ring.appended == 13


def test_ring_views_are_contiguous_slices_of_one_buffer_not_copies() -> None:
    ring = Ring(4, np.float32, (3,))
    for i in range(7):
        ring.append(np.full(3, i, dtype=np.float32))
    view = ring.view()
    assert view.flags.c_contiguous and view.shape == (4, 3)
    assert np.shares_memory(view, ring.view(2))
    assert view[:, 0].tolist() == [3, 4, 5, 6]


def test_ring_rejects_a_zero_capacity() -> None:
    with pytest.raises(ValueError):
        Ring(0, np.int64)


def _records(util: int, gpus: int = 4) -> np.ndarray:
    rec = empty_slots(gpus)
    rec["util"] = util
    rec["mem_total_mib"] = 81920
    return rec


def test_node_window_series_are_zero_copy_fields_and_cut_by_time() -> None:
    buffers = LiveBuffers(capacity=10)
    node = buffers.node(1, 7, "n0", gpus=4)
    for i in range(15):
        node.add_gpu(1000 * i, _records(i))
    window = node.gpu_window()
    assert len(window) == 10 and window.ts_ms[0] == 5000
    _, util = node.series("util")
    assert util.shape == (10, 4) and util[:, 0].tolist() == list(range(5, 15))
    assert np.shares_memory(util, node.gpu_window().records)
    since = node.gpu_window(since_ms=12_000)
    assert since.ts_ms.tolist() == [12_000, 13_000, 14_000]
    latest = node.latest()
    assert latest is not None and latest[0] == 14_000 and int(latest[1]["util"][0]) == 14
    assert buffers.nodes(1) == [node] and buffers.get(2, 7) is None


def test_a_gpu_seen_later_widens_the_window_and_older_rows_show_it_missing() -> None:
    node = LiveBuffers(capacity=8).node(1, 1, gpus=2)
    node.add_gpu(0, _records(10, gpus=2))
    node.add_gpu(1000, _records(20, gpus=3))
    window = node.gpu_window()
    assert window.records.shape == (2, 3)
    assert int(window.records["util"][0, 2]) == MISSING["util"]
    assert int(window.records["util"][1, 2]) == 20


def test_nic_window_totals_ignore_unknown_rates() -> None:
    node = LiveBuffers(capacity=8).node(1, 1)
    node.add_nic(0, ["mlx5_0:1", "mlx5_1:1"], [1e9, np.nan], [2e9, 1e9])
    window = node.nic_window()
    assert window.names == ("mlx5_0:1", "mlx5_1:1")
    assert window.rates.shape == (1, 2, 2)
    assert window.totals().tolist() == [4e9]


def test_a_nic_seen_later_widens_the_nic_window() -> None:
    node = LiveBuffers(capacity=8).node(1, 1)
    node.add_nic(0, ["eth0"], [1.0], [2.0])
    node.add_nic(1000, ["eth0", "eth1"], [3.0, 4.0], [5.0, 6.0])
    window = node.nic_window()
    assert window.names == ("eth0", "eth1") and window.rates.shape == (2, 2, 2)
    assert np.isnan(window.rates[0, 1]).all() and window.rates[1, 1].tolist() == [4.0, 6.0]
