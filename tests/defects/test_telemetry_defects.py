"""Issue 11, defect 7: `top` says why a node sends nothing, and the collector falls back to
the fields the node's driver supports (a real OpenSSH server, a stand-in nvidia-smi)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from tests.defects.owncluster import OwnCluster, own_cluster

pytestmark = pytest.mark.sshd

FAST = {"XYCLAW_TELEMETRY_SAMPLE_INTERVAL_S": "0.2"}


def _node_with_samples(own: OwnCluster, timeout: float = 20.0) -> dict[str, Any]:
    """The snapshot once both GPUs have a sample (or the last one seen)."""
    deadline = time.monotonic() + timeout
    while True:
        snap = own.engine.cluster_snapshot(own.cluster.name, wait_s=1.0)
        if (len(snap["gpus"]) == 2 and snap["nodes"][0]["state"] == "up") or (
            time.monotonic() > deadline
        ):
            return snap
        time.sleep(0.2)


def _node_with_error(own: OwnCluster, timeout: float = 20.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        snap = own.engine.cluster_snapshot(own.cluster.name, wait_s=0.5)
        node: dict[str, Any] = snap["nodes"][0]
        if node["error"] or time.monotonic() > deadline:
            return node
        time.sleep(0.2)


def test_a_field_the_driver_rejects_is_dropped_and_shown_as_unavailable(tmp_path: Path) -> None:
    with own_cluster(tmp_path, mode="old-driver", **FAST) as own:
        snap = _node_with_samples(own)
        [node] = snap["nodes"]
        assert node["state"] == "up", node
        assert node["unavailable"] == ["ecc.errors.uncorrected.volatile.total"]
        gpus = sorted(snap["gpus"], key=lambda g: g["gpu"])
        assert [g["util"] for g in gpus] == [40, 41]
        assert all(g["ecc_uncorrected"] is None for g in gpus)  # unavailable, not zero
        assert all(g["mem_total_mib"] == 81920 for g in gpus)


def test_fewer_columns_than_asked_fall_back_to_what_the_driver_prints(tmp_path: Path) -> None:
    with own_cluster(tmp_path, mode="fewer-columns", **FAST) as own:
        snap = _node_with_samples(own, timeout=30.0)
        [node] = snap["nodes"]
        assert node["state"] == "up", node
        assert "ecc.errors.uncorrected.volatile.total" in node["unavailable"]
        assert sorted(g["util"] for g in snap["gpus"]) == [40, 41]


def test_a_node_whose_nvidia_smi_fails_says_why(tmp_path: Path) -> None:
    with own_cluster(tmp_path, mode="no-driver", **FAST) as own:
        node = _node_with_error(own)
        assert node["state"] == "down"
        assert "couldn't communicate with the NVIDIA driver" in (node["error"] or ""), node
        # The driver comes back: samples flow, and the error is gone.
        own.set_mode("ok")
        snap = _node_with_samples(own, timeout=40.0)
        assert snap["nodes"][0]["state"] == "up" and snap["nodes"][0]["error"] is None
        assert snap["nodes"][0]["unavailable"] == []


def test_an_unreadable_line_is_not_a_gpu_fallen_off_the_bus(tmp_path: Path) -> None:
    """Defect 8: a parsing gap must never raise a hardware alert."""
    with own_cluster(tmp_path, mode="garbled", **FAST) as own:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            snap = own.engine.cluster_snapshot(own.cluster.name, wait_s=0.5)
            if any(g["util"] == 40 for g in snap["gpus"]):
                break
            time.sleep(0.2)
        assert any(g["gpu"] == 0 and g["util"] == 40 for g in snap["gpus"]), snap
        time.sleep(1.5)  # many instants, each with GPU 1's line unreadable
        rules = [a["rule"] for a in own.engine.alerts(own.cluster.name)]
        assert "gpu.missing" not in rules, rules


def test_top_says_why_a_node_sends_nothing(tmp_path: Path) -> None:
    """`top --once` said only "not every node answered within 8 s"."""
    from tests.defects.clirun import xyclaw

    with own_cluster(tmp_path, mode="no-driver", **FAST) as own:
        own.engine.close()  # the command line watches with its own engine, as a user's would
        outcome = xyclaw("top", own.cluster.name, "--once", "--json", "--wait", "4")
        assert "Traceback" not in outcome.text
        assert "couldn't communicate with the NVIDIA driver" in outcome.err, outcome.err
        import json

        [node] = json.loads(outcome.out)["nodes"]
        assert node["state"] == "down" and "NVIDIA driver" in node["error"]


def test_a_driver_without_total_memory_shows_used_plus_free(tmp_path: Path) -> None:
    """Defect 10: a P100 CSV without memory.total showed no total though used and free were
    known; the collector asks for the free memory when the total is refused."""
    with own_cluster(tmp_path, mode="no-total", **FAST) as own:
        snap = _node_with_samples(own)
        [node] = snap["nodes"]
        assert node["state"] == "up" and node["unavailable"] == [], node
        assert all(g["mem_total_mib"] == 1024 + 80896 for g in snap["gpus"]), snap["gpus"]
