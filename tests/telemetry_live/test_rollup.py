"""One-minute rollups (mean, max) from the stored samples, and retention of old data."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from xyclaw.store import Store
from xyclaw.store.samples import MISSING, empty_nic_records
from xyclaw.telemetry.pack import empty_slots
from xyclaw.telemetry.rollup import Rollups

T0 = 1_700_000_040  # a minute boundary


@pytest.fixture
def store(tmp_path: Path) -> Store:
    with Store(tmp_path / "t.db") as s:
        yield s


def add_minutes(store: Store, start_s: int, minutes: int, node_id: int = 1) -> None:
    items = []
    nic_items = []
    for i in range(minutes * 60):
        rec = empty_slots(2)
        rec["util"] = [i % 60, 50]
        rec["power_dw"] = [1000, 2005]  # 100.0 W and 200.5 W
        if i % 60 == 0:
            rec["util"][1] = MISSING["util"]  # an [N/A] reading is left out
        items.append(((start_s + i) * 1000, node_id, rec))
        nic = empty_nic_records(1)
        nic["rx_bytes_s"] = 1e6 * (i % 60)
        nic["tx_bytes_s"] = np.nan if i % 2 else 5e5
        nic_items.append(((start_s + i) * 1000, node_id, nic))
    store.add_gpu_samples(7, items)
    store.add_nic_samples(7, nic_items)
    store.writer.flush()


def metric(store: Store, name: str, gpu: int = 0) -> list[tuple[int, float, float, int]]:
    rows = store.query(
        "SELECT minute_ts, mean, max, samples FROM metric_rollups WHERE cluster_id = 7"
        " AND metric = ? AND gpu = ? ORDER BY minute_ts",
        [name, gpu],
    )
    return [(r["minute_ts"], r["mean"], r["max"], r["samples"]) for r in rows]


def test_finished_minutes_roll_up_to_mean_and_max_once(store: Store) -> None:
    add_minutes(store, T0, 3)
    rollups = Rollups(store)
    assert rollups.roll(7, lag_s=30, now=T0 + 150) > 0  # minutes 0 and 1 are finished
    assert metric(store, "util") == [
        (T0, 29.5, 59.0, 60),
        (T0 + 60, 29.5, 59.0, 60),
    ]
    assert metric(store, "util", gpu=1)[0] == (T0, 50.0, 50.0, 59)
    assert metric(store, "power_w", gpu=1)[0][1:3] == pytest.approx((200.5, 200.5))
    assert metric(store, "nic_rx_bytes_s")[0][1:] == pytest.approx((29.5e6, 59e6, 60))
    assert metric(store, "nic_tx_bytes_s")[0][3] == 30  # NaN rates are left out

    assert rollups.roll(7, lag_s=30, now=T0 + 150) == 0  # nothing new is finished
    assert rollups.roll(7, lag_s=30, now=T0 + 240) > 0
    assert [m for m, *_ in metric(store, "util")] == [T0, T0 + 60, T0 + 120]
    assert Rollups(store).roll(7, lag_s=30, now=T0 + 240) == 0  # a restart resumes after them


def test_retention_drops_old_raw_samples_then_old_rollups(store: Store) -> None:
    add_minutes(store, T0, 2)
    add_minutes(store, T0 + 7200, 1)
    rollups = Rollups(store)
    rollups.roll(7, lag_s=0, now=T0 + 7300)
    now = T0 + 7300
    rollups.apply_retention(raw_retention_hours=1, rollup_retention_days=1, now=now)
    raw = store.gpu_samples(7, 0, 2**62)
    assert raw.ts_ms.min() >= (T0 + 7200) * 1000
    assert len(store.nic_samples(7, 0, T0 * 1000 + 200_000)) == 0
    assert len(metric(store, "util")) == 3  # rollups outlive the raw samples
    rollups.apply_retention(raw_retention_hours=1, rollup_retention_days=1, now=now + 86400 + 200)
    assert metric(store, "util") == []
