"""Each alert rule fires on its simulated fault, once per cause, and clears when the fault goes."""

from __future__ import annotations

import json
from collections.abc import Callable

from tests.telemetry_live.conftest import Live, wait_until


def only_alert(live: Live) -> dict[str, object]:
    rows = live.alert_rows()
    assert len(rows) == 1, [r["message"] for r in rows]
    return rows[0]


def test_gpu_off_the_bus_is_one_alert_from_two_rules_and_clears_when_back(
    make_live: Callable[..., Live],
) -> None:
    live = make_live()
    live.cluster.nodes[0].faults.xid(79, gpu=3)
    wait_until(lambda: {"gpu.missing", "gpu.xid"} <= live.open_rules())
    row = only_alert(live)
    assert row["severity"] == "critical"
    assert "GPU 3" in str(row["message"])
    data = json.loads(str(row["data_json"]))
    assert data["node"] == live.cluster.nodes[0].spec.hostname
    assert data["action"]

    live.cluster.nodes[0].faults.clear("xid")
    wait_until(lambda: not live.service.open_alerts(live.cluster_id))
    row = only_alert(live)
    assert row["cleared_at"] is not None
    assert len(live.raised()) == 1
    assert set(live.cleared()[0].rules) == {"gpu.missing", "gpu.xid"}


def test_uncorrectable_ecc_is_one_critical_alert_and_clears_after_reset(
    make_live: Callable[..., Live],
) -> None:
    live = make_live()
    live.cluster.nodes[1].faults.ecc_uncorrectable(gpu=5)
    wait_until(lambda: {"gpu.ecc_uncorrectable", "gpu.xid"} <= live.open_rules())
    alert = live.service.open_alerts(live.cluster_id)[0]
    assert alert.severity == "critical" and alert.key.gpu == 5
    assert alert.node == live.cluster.nodes[1].spec.hostname
    # the stored alert names the GPU by the UUID the node gave (the memory of hosts follows
    # one GPU across rentals by it, issue 36)
    uuid = live.cluster.nodes[1].machine.gpus.gpus[5].uuid
    assert json.loads(str(only_alert(live)["data_json"])).get("uuid") == uuid

    live.cluster.nodes[1].faults.clear("ecc")
    wait_until(lambda: not live.service.open_alerts(live.cluster_id), timeout=15)
    assert only_alert(live)["cleared_at"] is not None


def test_application_xid_warns_and_clears_once_it_is_old(make_live: Callable[..., Live]) -> None:
    live = make_live()
    live.cluster.nodes[0].faults.xid(13, gpu=1)
    raised = wait_until(lambda: live.raised("gpu.xid"))
    assert raised[0].severity == "warning"
    assert "XID 13" in raised[0].message and "restart" in raised[0].action
    wait_until(lambda: live.cleared("gpu.xid"), timeout=15)
    assert len(live.raised()) == 1


def test_thermal_throttle_fires_and_clears(make_live: Callable[..., Live]) -> None:
    live = make_live()
    live.cluster.nodes[0].faults.thermal_throttle(gpu=2)
    raised = wait_until(lambda: live.raised("gpu.thermal_throttle"))
    assert raised[0].gpu == 2 and raised[0].severity == "warning"
    live.cluster.nodes[0].faults.clear("thermal_throttle")
    wait_until(lambda: live.cleared("gpu.thermal_throttle"))
    assert len(live.raised()) == 1


def test_idle_gpus_during_a_job_make_one_alert_that_clears_when_the_job_ends(
    make_live: Callable[..., Live],
) -> None:
    live = make_live()
    live.service.job_started(live.cluster_id, job_id=None)
    raised = wait_until(lambda: live.raised("gpu.idle_during_job"))
    assert "idle" in raised[0].message
    live.service.job_ended(live.cluster_id, job_id=None)
    wait_until(lambda: live.cleared("gpu.idle_during_job"))
    assert len(live.raised()) == 1  # sixteen idle GPUs, one cause, one alert
