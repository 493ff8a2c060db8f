"""`tune` on simulated GPU nodes over real SSH: a broken RoCE cluster is fixed, IB is left alone."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.support.simcluster import SimCluster, sim_cluster
from tests.tuning_live.conftest import TIME_SCALE
from xyclaw.cli.main import main
from xyclaw.engine import Engine
from xyclaw.engine.compose import Composition
from xyclaw.errors import UsageError
from xyclaw.parsers.nccltests import parse_nccl_tests
from xyclaw.tuning.probe import missing_tools, parse_node_probe, probe_script, summarize
from xyclaw.tuning.runner import nccl_test_command


def _fast(sc: SimCluster) -> SimCluster:
    for node in sc.nodes:
        node.machine.time_scale = TIME_SCALE
    return sc


def _run_as_a_job_would(
    engine: Engine, parts: Composition, sc: SimCluster, env: dict[str, str]
) -> float:
    """Peak bus bandwidth of all_reduce_perf launched with ``env`` from the first node."""
    cluster = sc.record
    hosts = [n.hostname or n.name for n in cluster.nodes]
    command = nccl_test_command(hosts, cluster.gpus_per_node, env, parts.tuning().measure_settings)
    result = parts.access().run(cluster, cluster.nodes[0], command, timeout=60)
    assert result.exit_code == 0, result.stderr
    peak = parse_nccl_tests(result.stdout).peak_busbw
    assert peak is not None
    return peak


def test_roce_with_a_wrong_gid_index_is_found_fixed_and_stored(
    engine: Engine, parts: Composition, tmp_path: Path
) -> None:
    with sim_cluster(engine, tmp_path, nodes=2, fabric="roce-100", nic_count=4) as sc:
        _fast(sc)
        # The image sets a GID index the NICs do not have (they hold 0..3; v2 on IPv4 is 3).
        engine.exec(sc.name, "echo NCCL_IB_GID_INDEX=7 >> /etc/environment")
        slow = _run_as_a_job_would(engine, parts, sc, {})
        assert slow < 5.0  # TCP sockets over the 25 Gb/s management Ethernet

        result = parts.tuning().tune(sc.cluster_id)

        report = result.report.summary
        assert report.transport == "roce" and report.roce_gid_index == 3
        assert report.hcas == ("mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3")
        before = result.baseline.verdict
        assert before.status == "low" and before.transport == "socket"
        assert {"socket_fallback", "wrong_gid_index"} <= set(before.cause_codes)
        assert result.candidate is not None and result.kept == "recommended"
        after = result.verdict
        assert after.healthy and after.transport == "roce"
        # 4 x 100 Gb/s per node = 50 GB/s; a right RoCE fabric gives 80-95% of it.
        assert result.expectation is not None and result.expectation.busbw_gbs == 50.0
        assert after.peak_busbw is not None and after.peak_busbw >= 0.8 * 50.0
        assert after.peak_busbw > 10 * slow
        changed = {c.name: (c.old, c.new) for c in result.changes}
        assert changed["NCCL_IB_GID_INDEX"] == ("7", "3")
        assert changed["NCCL_IB_HCA"] == (None, "=mlx5_0,mlx5_1,mlx5_2,mlx5_3")

        env = parts.tuning().environment_for(sc.cluster_id)
        assert env == result.environment
        assert env["NCCL_IB_GID_INDEX"] == "3" and env["NCCL_IB_TC"] == "106"
        assert env["NCCL_DEBUG"] == "WARN" and env["NCCL_SOCKET_IFNAME"] == "=eth0"
        assert "NCCL_ALGO" not in env and "NCCL_PROTO" not in env
        stored = parts.tuning().settings_for(sc.cluster_id)
        assert stored is not None and stored.applied and stored.source == "tuned"
        assert all(s.reason for s in stored.settings.settings)
        # A job launched with the stored environment gets the fabric's bandwidth.
        assert _run_as_a_job_would(engine, parts, sc, env) >= 0.8 * 50.0

        runs = parts.tuning().runs(sc.cluster_id)
        phases = [r["phase"] for r in runs]
        assert phases.count("recommended") == 3 and phases.count("baseline") == 1
        assert all(r["rows"] and r["peak_busbw"] for r in runs)


def test_tune_again_leaves_a_tuned_cluster_as_it_is(
    engine: Engine, parts: Composition, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with sim_cluster(engine, tmp_path, nodes=2, fabric="roce-200", nic_count=2) as sc:
        _fast(sc)
        engine.exec(sc.name, "echo NCCL_IB_GID_INDEX=9 >> /etc/environment")
        first = parts.tuning().tune(sc.cluster_id)
        assert first.kept == "recommended" and first.verdict.healthy
        capsys.readouterr()

        assert main(["tune", sc.name]) == 0
        captured = capsys.readouterr()
        assert "left as it is: healthy" in captured.out
        assert "NCCL_IB_GID_INDEX=3" in captured.out
        assert "as it is: nccl-tests all_reduce_perf on 2 node(s)" not in captured.err
        assert "current settings: nccl-tests all_reduce_perf on 2 node(s)" in captured.err
        assert parts.tuning().environment_for(sc.cluster_id) == first.environment


def test_infiniband_cluster_is_left_as_it_is_and_reported_healthy(
    engine: Engine, parts: Composition, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with sim_cluster(engine, tmp_path, nodes=2, fabric="ib-hdr-200", nic_count=4) as sc:
        _fast(sc)
        assert main(["tune", sc.name, "--json"]) == 0
        captured = capsys.readouterr()
        got = json.loads(captured.out)
        assert got["report"]["transport"] == "ib"
        assert got["kept"] == "current" and got["candidate"] is None
        assert got["changes"] == [] and got["environment"] == {}
        verdict = got["verdict"]
        assert verdict["healthy"] and verdict["transport"] == "ib"
        assert verdict["expected"]["busbw_gbs"] == 100.0  # 4 x 200 Gb/s HDR
        assert verdict["ratio"] >= 0.8
        assert verdict["runs"] == 3 and verdict["jitter"] < 0.025
        assert "nccl-tests all_reduce_perf on 2 node(s) x 8 GPU(s)" in captured.err
        # Recommended settings are kept on record, but jobs run as the cluster ran.
        assert len(got["recommended"]["settings"]) >= 4
        assert parts.tuning().environment_for(sc.cluster_id) == {}


def test_a_cluster_without_running_nodes_is_refused(
    engine: Engine, parts: Composition, tmp_path: Path
) -> None:
    with sim_cluster(engine, tmp_path, nodes=1, fabric="ib-hdr-200") as sc:
        parts.clusters.update(sc.cluster_id, state="released")
        assert main(["tune", sc.name]) == 2


def test_probe_recommends_without_forcing_algo_or_proto(
    engine: Engine, parts: Composition, tmp_path: Path
) -> None:
    with sim_cluster(engine, tmp_path, nodes=2, fabric="ib-hdr-200", nic_count=4) as sc:
        engine.exec(sc.name, "echo NCCL_ALGO=Ring >> /etc/environment")
        stored = parts.tuning().recommend(sc.cluster_id)
        env = stored.env()
        assert not stored.applied and stored.source == "recommended"
        assert env["NCCL_IB_HCA"] == "=mlx5_0,mlx5_1,mlx5_2,mlx5_3"
        assert env["NCCL_NET_GDR_LEVEL"] == "PXB"  # every GPU has an HCA behind its own switch
        assert env["NCCL_IB_TIMEOUT"] == "22" and env["NCCL_DEBUG"] == "WARN"
        assert "NCCL_IB_GID_INDEX" not in env and "NCCL_IB_TC" not in env  # InfiniBand
        assert "NCCL_ALGO" not in env and "NCCL_PROTO" not in env
        assert any("NCCL_ALGO=Ring" in note for note in stored.settings.notes)
        # Until a tune measures them, jobs get the recommended settings.
        assert parts.tuning().environment_for(sc.cluster_id) == env
        report = parts.tuning().latest_report(sc.cluster_id)
        assert report is not None and report.nccl_env == {"NCCL_ALGO": "Ring"}
        assert [n.gpu_count for n in report.nodes] == [8, 8]
        # Set by hand, the environment wins over the recommendation; only NCCL_* is kept.
        parts.tuning().apply(sc.cluster_id, {"NCCL_IB_HCA": "=mlx5_0"}, "pinned for a test")
        assert parts.tuning().environment_for(sc.cluster_id) == {"NCCL_IB_HCA": "=mlx5_0"}
        with pytest.raises(UsageError):
            parts.tuning().apply(sc.cluster_id, {"LD_PRELOAD": "x.so"}, "no")


def test_probe_output_is_read_and_missing_tools_are_named(engine: Engine, tmp_path: Path) -> None:
    with sim_cluster(engine, tmp_path, nodes=1, fabric="roce-100", nic_count=2) as sc:
        (result,) = engine.exec(sc.name, probe_script()).values()
        assert not isinstance(result, Exception)
    node = parse_node_probe("n0", result.stdout)
    assert node.problems == () and node.gpu_count == 8 and node.nvlinks == 8
    assert [(p.hca, p.link_layer, p.rate_gbps, p.roce_v2_gid_index) for p in node.ports] == [
        ("mlx5_0", "Ethernet", 100.0, 3),
        ("mlx5_1", "Ethernet", 100.0, 3),
    ]
    assert [p.netdev for p in node.ports] == ["eth1", "eth2"]
    eth0 = node.iface("eth0")
    assert eth0 is not None and eth0.default_route and eth0.speed_mbps == 25000
    assert missing_tools(node, multi_node=True) is None
    # The same node without nccl-tests on its PATH (`command -v` failed).
    stripped = re.sub(
        r"(@@xyclaw-begin all_reduce_perf\n).*?\n(@@xyclaw-end all_reduce_perf) 0",
        r"\1\2 1",
        result.stdout,
        flags=re.S,
    )
    bare = parse_node_probe("n0", stripped)
    problem = missing_tools(bare, multi_node=False)
    assert problem is not None and "all_reduce_perf (nccl-tests) is not on the PATH" in problem[0]
    summary = summarize([bare], "roce-100")
    assert any("all_reduce_perf" in f for f in summary.findings)
