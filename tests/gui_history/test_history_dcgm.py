"""A replay keeps DCGM's profiling ratios beside nvidia-smi's utilization (issue 34): the
stored samples of a run, read back from the history, say it was a busy loop."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from xyclaw.gui.charts.source import honest_utilization
from xyclaw.gui.history_data import frame_from_samples
from xyclaw.store import Store
from xyclaw.store.samples import empty_dcgm_records
from xyclaw.telemetry.pack import empty_slots

T0 = 1_750_000_000


def test_a_stored_busy_loop_reads_back_with_its_dcgm_means(tmp_path: Path) -> None:
    with Store(tmp_path / "history.db") as store:
        gpu_items, dcgm_items = [], []
        for k in range(60):
            for node in (7, 8):
                rec = empty_slots(8)
                rec["gpu"] = np.arange(8)
                rec["util"] = 100
                gpu_items.append((T0 * 1000 + k * 1000, node, rec))
                if node == 7 and k % 5 == 0:  # node 8 has no DCGM
                    dcgm = empty_dcgm_records(8)
                    dcgm["sm_active"] = 20 + k % 2
                    dcgm["tensor_active"] = 0
                    dcgm["dram_active"] = 10
                    dcgm_items.append((T0 * 1000 + k * 1000, node, dcgm))
        store.add_gpu_samples(1, gpu_items)
        store.add_dcgm_samples(1, dcgm_items)
        store.writer.flush()
        nodes = [{"id": 7, "hostname": "n7", "rank": 0}, {"id": 8, "hostname": "n8", "rank": 1}]
        frame, resolution = frame_from_samples(store, {"id": 1, "name": "c1"}, nodes, T0, T0 + 60)
    assert resolution == "samples" and frame is not None
    n7, n8 = frame.nodes
    assert n8.dcgm is None and n7.dcgm is not None
    h = honest_utilization(frame, whole_window=True)
    assert h.util == 100 and h.nodes_with_dcgm == 1 and h.nodes == 2
    assert h.sm_active == 2.0 and h.tensor_active == 0.0 and h.dram_active == 1.0
