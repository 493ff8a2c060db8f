"""What the History page shows, from the history of a real run alone: the lists, a job's
replay (samples, timeline with the recovery, cost), comparisons, exports that read back
equal, and replays from rollups once the raw samples are gone."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from tests.gui_history.history_run import HistoryFacts
from xyclaw.errors import StoreError, UsageError
from xyclaw.gui.history_data import (
    HistoryFilter,
    HistorySource,
    comparison_table,
    curve,
    export_of,
    filter_rows,
    read_csv,
    read_json,
    smooth,
    write_csv,
    write_json,
)
from xyclaw.store import Store
from xyclaw.store.replay import ReadOnlyStore
from xyclaw.store.samples import MISSING
from xyclaw.store.telemetry import TelemetryTables
from xyclaw.telemetry.rollup import Rollups


@pytest.fixture
def source(history_db: Path) -> HistorySource:
    src = HistorySource(history_db)
    yield src
    src.close()


def test_lists_hold_the_cluster_and_both_jobs_with_costs(
    source: HistorySource, history_facts: HistoryFacts
) -> None:
    clusters = source.clusters()
    jobs = source.jobs()
    assert [c["name"] for c in clusters] == [history_facts.cluster_name]
    cluster = clusters[0]
    assert cluster["state"] == "released" and cluster["provider"] == "sim"
    assert cluster["node_count"] == 2 and cluster["job_count"] == 2
    assert cluster["cost_micros"] > 0
    by_name = {j["name"]: j for j in jobs}
    assert set(by_name) == {"lora-a", "lora-b"}
    a, b = by_name["lora-a"], by_name["lora-b"]
    assert a["state"] == b["state"] == "succeeded"
    assert a["attempt"] == 2 and b["attempt"] == 1
    assert a["last_step"] == 600 and b["last_step"] == 400
    # each job's share of the cluster's charges, no more than the whole
    assert a["cost_micros"] > 0 and b["cost_micros"] > 0
    assert a["cost_micros"] + b["cost_micros"] <= cluster["cost_micros"]
    assert a["final_loss"] is not None and a["tokens_per_s"] > 0


def test_filters_by_provider_gpu_state_cost_dates_and_text(source: HistorySource) -> None:
    jobs = source.jobs()
    a = next(j for j in jobs if j["name"] == "lora-a")
    assert len(filter_rows(jobs, HistoryFilter(provider="sim", gpu="A800"))) == 2
    assert filter_rows(jobs, HistoryFilter(provider="lambda")) == []
    assert filter_rows(jobs, HistoryFilter(gpu="H100")) == []
    assert len(filter_rows(jobs, HistoryFilter(state="succeeded"))) == 2
    assert filter_rows(jobs, HistoryFilter(state="failed")) == []
    cheap = filter_rows(jobs, HistoryFilter(max_cost=a["cost_micros"] / 1e6 - 1e-6))
    assert [j["name"] for j in cheap] == ["lora-b"]
    assert filter_rows(jobs, HistoryFilter(since=a["created_at"] + 1e6)) == []
    assert [j["name"] for j in filter_rows(jobs, HistoryFilter(text="LORA-A"))] == ["lora-a"]


def test_a_jobs_replay_has_every_gpu_of_both_nodes_over_its_run(
    source: HistorySource, history_facts: HistoryFacts, history_db: Path
) -> None:
    replay = source.replay_job(history_facts.job_a)
    assert replay.resolution == "samples"
    frame = replay.frame
    assert frame is not None and frame.gpu_count == 16
    assert [n.gpus for n in frame.nodes] == [8, 8]
    first, second = frame.nodes
    assert first.ts_ms.shape[0] > 20  # half-second samples over a ~30 s run
    assert (
        replay.start_s * 1000 - 1000 <= first.ts_ms[0]
        and first.ts_ms[-1] <= replay.end_s * 1000 + 1
    )
    util = first.records["util"]
    assert (util[util != MISSING["util"]] > 50).any()  # it trained
    # the node that went down has a hole where the other has samples
    gaps = np.diff(second.ts_ms)
    assert gaps.max() > 2 * np.median(gaps)
    # the same numbers as the raw rows: count of records of node 1 in the window (a row of
    # several nodes says in its directory how many instants each has)
    conn = sqlite3.connect(history_db)
    stored = 0
    for node_id, instants, nodes in conn.execute(
        "SELECT node_id, instants, nodes FROM gpu_samples WHERE start_ms >= ? AND end_ms <= ?",
        [int(replay.start_s * 1000), int(replay.end_s * 1000)],
    ):
        if nodes is None:
            stored += instants if node_id == first.node_id else 0
        else:
            directory = np.frombuffer(nodes, "<i8,<u4")
            stored += int(directory["f1"][directory["f0"] == first.node_id].sum())
    assert stored > 20
    assert first.ts_ms.shape[0] >= stored


def test_the_timeline_tells_the_run_and_its_recovery(
    source: HistorySource, history_facts: HistoryFacts
) -> None:
    replay = source.replay_job(history_facts.job_a)
    kinds = [i.kind for i in replay.timeline]
    expected = (
        "rented", "ready", "fabric", "nccl_test", "tuned", "job_created",
        "attempt_started", "attempt_ended", "recovery", "job_finished", "released",
    )  # fmt: skip
    for kind in expected:
        assert kind in kinds, (kind, kinds)
    assert kinds.index("rented") < kinds.index("ready") < kinds.index("job_created")
    assert kinds.index("recovery") < kinds.index("job_finished") < kinds.index("released")
    ended = next(i for i in replay.timeline if i.kind == "attempt_ended")
    assert ended.params["cause"] == "node_lost" and ended.params["attempt"] == 1
    assert history_facts.lost_node in (ended.message or "")
    recovery = next(i for i in replay.timeline if i.kind == "recovery")
    assert recovery.params["attempt"] == 2 and recovery.params["resume_step"] >= 100
    test = next(i for i in replay.timeline if i.kind == "nccl_test")
    assert test.params["busbw"] > 0
    times = [i.ts for i in replay.timeline]
    assert times == sorted(times)
    # the job's log, both attempts
    assert {r["attempt"] for r in replay.log} == {1, 2}
    assert any("training finished" in r["text"] for r in replay.log)


def test_the_cost_is_broken_down_by_node_hours_and_matches_the_price(
    source: HistorySource, history_facts: HistoryFacts
) -> None:
    replay = source.replay_job(history_facts.job_a)
    cost = replay.cost
    assert cost is not None and cost.currency == "CNY"
    assert [n.gpus for n in cost.node_hours] == [8, 8]
    span_h = replay.span_s / 3600
    for n in cost.node_hours:
        assert 0 < n.hours <= span_h + 1e-6
        assert abs(n.cost_micros - n.hours * 8 * cost.price_per_gpu_hour_micros) <= 1
    # the meter's share of the job is what the node-hours cost at the price, within a second
    at_price = sum(n.cost_micros for n in cost.node_hours)
    per_second = 16 * cost.price_per_gpu_hour_micros / 3600
    assert abs(cost.total_micros - at_price) <= 2 * per_second + 1
    assert cost.total_micros <= cost.cluster_total_micros
    assert cost.model == ()  # no agent worked on this cluster


def test_two_jobs_compared_show_only_their_differences(
    source: HistorySource, history_facts: HistoryFacts
) -> None:
    comparison = source.compare([history_facts.job_a, history_facts.job_b])
    rows = {r.key: r.values for r in comparison.table(differences_only=True)}
    everything = {r.key: r.values for r in comparison.table(differences_only=False)}
    assert set(rows) < set(everything)
    assert rows["spec.env.NCCL_ALGO"] == (None, "Ring")
    assert rows["result.attempts"] == ("2", "1")
    assert "spec.run" in rows  # learning rate and seed differ
    for same in ("cluster.gpu", "cluster.shape", "cluster.fabric", "spec.env.HF_HOME"):
        assert same in everything and same not in rows
        assert len(set(everything[same])) == 1
    for key in ("result.final_loss", "result.tokens_per_s", "result.mfu", "result.cost"):
        assert everything[key][0] and everything[key][1]


def test_curves_on_each_x_axis_with_smoothing(
    source: HistorySource, history_facts: HistoryFacts
) -> None:
    replay = source.replay_job(history_facts.job_b)
    steps = curve(replay, "step")
    assert steps.x[0] == 1 and steps.x[-1] == 400 and np.all(np.diff(steps.x) > 0)
    time_ = curve(replay, "time")
    assert time_.x[0] >= 0 and time_.x[-1] <= replay.span_s + 1
    tokens = curve(replay, "tokens")
    assert np.all(np.diff(tokens.x) >= 0) and tokens.x[-1] > 0
    money = curve(replay, "money")
    assert np.all(np.diff(money.x) >= -1e-9)
    assert money.x[-1] <= replay.cost.total_micros / 1e6 + 1e-6
    smoothed = curve(replay, "step", smoothing=0.9)
    assert np.std(np.diff(smoothed.y)) < np.std(np.diff(steps.y))
    with pytest.raises(UsageError):
        curve(replay, "furlongs")


def test_smoothing_skips_gaps_and_is_debiased() -> None:
    out = smooth(np.array([2.0, np.nan, 2.0, 2.0]), 0.9)
    assert out[0] == pytest.approx(2.0) and np.isnan(out[1]) and out[3] == pytest.approx(2.0)
    assert np.array_equal(smooth(np.array([1.0, 3.0]), 0.0), [1.0, 3.0])


def test_exports_of_a_job_and_a_comparison_read_back_equal(
    source: HistorySource, history_facts: HistoryFacts, tmp_path: Path
) -> None:
    for runs in ([history_facts.job_a], [history_facts.job_a, history_facts.job_b]):
        replays = [source.replay_job(j) for j in runs]
        export = export_of(replays)
        assert export.kind == ("job" if len(runs) == 1 else "comparison")
        back = read_json(write_json(export, tmp_path / f"x{len(runs)}.json"))
        assert back.to_json() == export.to_json()
        files = write_csv(export, tmp_path / f"x{len(runs)}.csv")
        assert [f.name for f in files] == [f"x{len(runs)}.csv", f"x{len(runs)}-table.csv"]
        metrics, table = read_csv(files[0])
        assert metrics == export.metrics
        assert table == export.table
        assert {m["job_id"] for m in metrics} == set(runs)
    data = json.loads((tmp_path / "x2.json").read_text())
    assert data["format"] == "xyclaw.history" and len(data["runs"]) == 2
    assert any(i["kind"] == "recovery" for i in data["runs"][0]["timeline"])


def test_a_replay_falls_back_to_rollups_when_the_raw_samples_are_gone(
    history_db: Path, history_facts: HistoryFacts
) -> None:
    with Store(history_db) as store:
        rolled = Rollups(store).roll(
            history_facts.cluster_id, lag_s=0, now=history_facts.released_at + 120
        )
        assert rolled > 0
        TelemetryTables(store).trim(raw_cut_ms=2**62, rollup_cut_s=0)
    src = HistorySource(history_db)
    try:
        replay = src.replay_cluster(history_facts.cluster_id)
        assert replay.resolution == "rollups"
        frame = replay.frame
        assert frame is not None and frame.gpu_count == 16 and frame.interval_s == 60
        assert all(n.ts_ms.shape[0] >= 1 for n in frame.nodes)
        util = frame.nodes[0].records["util"]
        assert (util != MISSING["util"]).any()
    finally:
        src.close()


def test_the_history_is_read_only_and_says_when_it_is_missing(
    history_db: Path, tmp_path: Path
) -> None:
    store = ReadOnlyStore(history_db)
    try:
        with pytest.raises(StoreError):
            _ = store.writer
        assert store.query("SELECT count(*) AS n FROM clusters")[0]["n"] == 1
    finally:
        store.close()
    with pytest.raises(StoreError, match="no history database"):
        ReadOnlyStore(tmp_path / "none.db")
    with pytest.raises(UsageError):
        HistorySource(history_db).replay_job(999)
    with pytest.raises(UsageError):
        HistorySource(history_db).compare([1])
    assert comparison_table([], True) == []
