"""`xyclaw top` and `xyclaw metrics export` against simulated nodes."""

from __future__ import annotations

import csv
import io
import json
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support.simcluster import sim_cluster
from tests.telemetry_live.conftest import Live
from xyclaw.cli.main import main
from xyclaw.engine import Engine


@pytest.fixture
def fast_cli(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XYCLAW_TELEMETRY_SAMPLE_INTERVAL_S", "0.2")
    monkeypatch.setenv("XYCLAW_SSH_CONNECT_TIMEOUT_S", "2")


def test_top_once_json_prints_the_latest_sample_of_every_gpu_and_the_alerts(
    engine: Engine, tmp_path: Path, fast_cli: None, capsys: pytest.CaptureFixture[str]
) -> None:
    with sim_cluster(engine, tmp_path, nodes=2, gpus_per_node=4, name="topc") as sc:
        sc.nodes[1].faults.xid(79, gpu=2)
        assert main(["top", "topc", "--once", "--json", "--wait", "15"]) == 0
    snap = json.loads(capsys.readouterr().out)
    assert snap["cluster"] == "topc"
    assert [n["state"] for n in snap["nodes"]] == ["up", "up"]
    gpus = {(g["node"], g["gpu"]): g for g in snap["gpus"]}
    assert len(gpus) == 8
    g = gpus[("topc-node0", 0)]
    assert g["util"] == 0 and g["mem_total_mib"] > 0 and g["power_w"] > 0 and g["temp_c"] > 20
    # The GPU fell off the bus before the first look: nvidia-smi renumbered the rest, so
    # which slot shows it missing cannot be known; that one is missing can.
    lost = [k for k, g in gpus.items() if g["util"] is None]
    assert len(lost) == 1 and lost[0][0] == "topc-node1"
    (alert,) = snap["alerts"]  # the missing GPU and its XID 79: one cause, one alert
    assert alert["node"] == "topc-node1" and alert["severity"] == "critical"
    assert {alert["rule"], *alert["also"]} <= {"gpu.missing", "gpu.xid"}
    assert alert["action"]


def test_top_once_draws_a_table_and_names_the_only_ready_cluster_itself(
    engine: Engine, tmp_path: Path, fast_cli: None, capsys: pytest.CaptureFixture[str]
) -> None:
    with sim_cluster(engine, tmp_path, nodes=1, gpus_per_node=2, name="solo"):
        assert main(["top", "--once", "--wait", "15"]) == 0
    out = capsys.readouterr().out
    lines = [line for line in out.splitlines() if line.startswith("solo-node0")]
    assert len(lines) == 2 and "%" in lines[0] and "C" in lines[0]
    assert "no open alerts" in out


def test_top_without_a_ready_cluster_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["top", "--once"]) == 2
    assert "no cluster is ready" in capsys.readouterr().err


def export(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    capsys.readouterr()
    assert main(["metrics", "export", *args]) == 0
    return capsys.readouterr().out


def test_metrics_export_as_csv_json_rollups_and_for_a_job(
    make_live: Callable[..., Live], capsys: pytest.CaptureFixture[str]
) -> None:
    live = make_live(nodes=2)
    node = live.service.collectors(live.cluster_id)[0].live
    start = node.instants
    while node.instants < start + 5:
        time.sleep(0.05)
    live.service.flush()
    name = live.cluster.name

    rows = list(csv.DictReader(io.StringIO(export(capsys, "--cluster", name))))
    assert len(rows) >= 2 * 8 * 5
    assert {r["node"] for r in rows} == {f"{name}-node0", f"{name}-node1"}
    assert rows[0]["time"].endswith("+00:00") and rows[0]["util"] == "0"
    assert float(rows[0]["power_w"]) > 0 and rows[0]["pstate"] == "P0"
    assert [int(r["ts_ms"]) for r in rows] == sorted(int(r["ts_ms"]) for r in rows)

    doc = json.loads(export(capsys, "--cluster", name, "--format", "json", "--kind", "nic"))
    assert doc["kind"] == "nic" and doc["rows"] and doc["rows"][0]["nic"] == 0

    assert export(capsys, "--cluster", name, "--since", "2030-01-01T00:00").count("\n") == 1

    live.service.rollups.roll(live.cluster_id, lag_s=-60)  # roll the current minute too
    rollups = list(
        csv.DictReader(io.StringIO(export(capsys, "--cluster", name, "--kind", "rollups")))
    )
    assert {r["metric"] for r in rollups} >= {"util", "power_w", "temp_c", "nic_rx_bytes_s"}

    ts = sorted({int(r["ts_ms"]) for r in rows})
    job_start, job_end = ts[1] / 1000, (ts[3] + 1) / 1000
    live.parts.store.writer.call(
        lambda db: db.conn.execute(
            "INSERT INTO jobs (id, cluster_id, name, spec_json, state, created_at, started_at,"
            " ended_at) VALUES (5, ?, 'j', '{}', 'succeeded', ?, ?, ?)",
            (live.cluster_id, job_start, job_start, job_end),
        )
    )
    job_rows = list(csv.DictReader(io.StringIO(export(capsys, "--job", "5"))))
    assert sorted({int(r["ts_ms"]) for r in job_rows}) == ts[1:4]


def test_metrics_export_rejects_a_bad_since(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["metrics", "export", "--cluster", "x", "--since", "soon"]) == 2
    assert main(["metrics", "export", "--job", "99"]) == 2
    assert "no job 99" in capsys.readouterr().err
