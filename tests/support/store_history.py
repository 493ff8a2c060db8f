"""A history database with rows in every table, written through the store's own API.

:func:`fill` records what a user's history holds after some use: a cluster that ran a job
(with nodes, a node's error, logs, metrics, GPU and NIC samples, rollups, a gap, a fabric
report, NCCL settings and a test run, the meter's charge, events and an alert) and one
released; a conversation with messages, a tool call, its usage, an allowance and a plan.
Times come from a fixed clock where the API takes one.

Run as a script, it fills a fresh database at this XyClaw's schema version and writes it
as SQL text (``sqlite3``'s ``iterdump``, plus its ``user_version``) to
``tests/foundation/data/store_v<version>.sql``. ``tests/foundation/test_migrations.py``
loads every such file and upgrades it with the code of the day, so each schema version
that has a file stays readable after every later migration. Make the file for a version
once, when it is the newest, and commit it; never make it again later (the API would by
then write the newer schema)::

    XYCLAW_HOME=$(mktemp -d) python -m tests.support.store_history
"""

from __future__ import annotations

import json
import sqlite3
import sys
import tempfile
from pathlib import Path

import numpy as np

from xyclaw.events import AlertCleared, AlertRaised, EventBus
from xyclaw.records import ClusterInfo, ClusterState, ClusterStore, NodeInfo
from xyclaw.store import LATEST_VERSION, Store
from xyclaw.store import conversations as conv
from xyclaw.store.charges import ChargeTable
from xyclaw.store.event_log import EventLog
from xyclaw.store.jobs import JobTable, LogCap, LogRows
from xyclaw.store.plans import PlanTable
from xyclaw.store.samples import empty_gpu_records, empty_nic_records
from xyclaw.store.telemetry import TelemetryTables
from xyclaw.store.tuning import TuningTables
from xyclaw.wording import Said

T0 = 1_765_000_000.0
DATA = Path(__file__).resolve().parents[1] / "foundation" / "data"


def _clock() -> float:
    return T0


def _cluster(clusters: ClusterStore, name: str, nodes: int) -> int:
    cluster_id = clusters.add_intent(
        {
            "provider_id": "sim",
            "name": name,
            "gpu": "A800",
            "gpu_count": 8 * nodes,
            "gpus_per_node": 8,
            "fabric": "ib-hdr-200",
            "region": "Xiamen",
            "currency": "CNY",
            "price_per_gpu_hour_micros": 3_500_000,
            "budget_micros": 500_000_000,
            "idempotency_key": f"key-{name}",
        }
    )
    clusters.apply_provider_view(
        cluster_id,
        ClusterInfo(
            external_id=f"ext-{name}",
            name=name,
            state="running",
            gpu="A800",
            gpu_count=8 * nodes,
            gpus_per_node=8,
            fabric="ib-hdr-200",
            region="Xiamen",
            price_per_gpu_hour_micros=3_500_000,
            currency="CNY",
            nodes=tuple(
                NodeInfo(
                    external_id=f"{name}-n{rank}",
                    rank=rank,
                    hostname=f"{name}-node{rank}",
                    state="running",
                    ssh_host="127.0.0.1",
                    ssh_port=22_000 + rank,
                    ssh_user="root",
                    host_key="ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFixtureKeyOnly",
                )
                for rank in range(nodes)
            ),
            running_at=T0 + 10,
        ),
    )
    clusters.update(cluster_id, state=ClusterState.READY, ready_at=T0 + 12)
    return cluster_id


def fill(store: Store) -> dict[str, int]:
    """Rows in every table of the history; returns the ids a reader may look up."""
    bus = EventBus()
    clusters = ClusterStore(store, bus, _clock)
    clusters.ensure_provider("sim", "sim")
    cluster_id = _cluster(clusters, "train-a", nodes=2)
    released_id = _cluster(clusters, "old-b", nodes=1)
    clusters.update(
        released_id,
        state=ClusterState.RELEASED,
        release_requested_at=T0 + 100,
        released_at=T0 + 103,
        error=Said("job.exit_code_on", {"code": 137, "node": "old-b-node0"}),
    )
    clusters.mark_nodes_terminated(released_id, T0 + 103)
    record = clusters.get(cluster_id)
    node_ids = [n.id for n in record.nodes]
    clusters.set_node_state(
        node_ids[1], "running", Said("job.exit_code_on", {"code": 1, "node": "train-a-node1"})
    )

    jobs = JobTable(store, bus, _clock)
    job_id = jobs.insert(
        name="lora-7b",
        kind="train",
        spec_json=json.dumps({"name": "lora-7b", "command": "torchrun train.py"}),
        state="queued",
        cluster_id=cluster_id,
        rented_cluster=True,
    )
    jobs.set_state(job_id, "running", started_at=T0 + 20, attempt=1)
    jobs.upsert_attempt(
        job_id,
        1,
        state="failed",
        cluster_id=cluster_id,
        started_at=T0 + 20,
        ended_at=T0 + 50,
        exit_code=1,
        cause="exit_nonzero",
        message="exit code 1 on train-a-node1",
        message_said_json=json.dumps(
            Said("job.exit_code_on", {"code": 1, "node": "train-a-node1"}).to_json()
        ),
        nodes_json=json.dumps(["train-a-node0", "train-a-node1"]),
    )
    jobs.upsert_attempt(
        job_id, 2, state="succeeded", cluster_id=cluster_id, started_at=T0 + 55, resumed_from=1
    )
    for rank in (0, 1):
        jobs.append_log(
            job_id,
            2,
            "stdout",
            rank,
            expected_offset=0,
            new_offset=40,
            lines=LogRows(
                node=f"train-a-node{rank}",
                ts=T0 + 60,
                offsets=[0, 20],
                ranks=[rank, rank],
                texts=[f"[rank{rank}] step 1 loss 2.5", "中文日志 ok"],
            ),
            cap=LogCap(),
        )
    jobs.add_metrics(
        [
            (job_id, 2, T0 + 60 + i, i + 1, 100, 2.5 - i / 10, 1e-4, 1.0, 4.0e5, 12.5, 0.1)
            for i in range(5)
        ]
    )
    jobs.set_state(
        job_id,
        "succeeded",
        ended_at=T0 + 90,
        exit_code=0,
        error="one earlier attempt failed",
        error_said_json=json.dumps(Said("job.succeeded").to_json()),
        progress_json=json.dumps({"step": 100, "total_steps": 100}),
    )

    gpu = empty_gpu_records(8)
    gpu["gpu"] = np.arange(8)
    gpu["util"] = 97
    gpu["temp_c"] = 64
    gpu["power_dw"] = 3_500
    gpu["mem_used_mib"], gpu["mem_total_mib"] = 60_000, 81_920
    store.add_gpu_samples(
        cluster_id,
        [(int((T0 + 30 + s) * 1000), node, gpu) for s in range(10) for node in node_ids],
    )
    nic = empty_nic_records(2)
    store.add_nic_samples(
        cluster_id,
        [(int((T0 + 30 + s) * 1000), node, nic) for s in range(10) for node in node_ids],
    )
    telemetry = TelemetryTables(store)
    telemetry.write_rollups(
        [
            (cluster_id, node_ids[0], g, "util", T0 + 60 * m, 95.0, 99.0, 60)
            for g in range(2)
            for m in range(2)
        ]
    )
    telemetry.open_gap(cluster_id, node_ids[1], T0 + 40, "ssh stream closed")
    telemetry.close_gap(cluster_id, node_ids[1], T0 + 45)

    tuning = TuningTables(store)
    report_id = tuning.insert_report(
        (cluster_id, T0 + 15, "ib-hdr-200", "ib", 2, 8, 4, 4, 200.0, 3, "[]", "{}")
    )
    tuning.insert_settings(
        (cluster_id, report_id, T0 + 16, "recommended", 1, "IB with GDR", "[]", "{}"),
        [("NCCL_IB_HCA", "mlx5_0,mlx5_1", "the active HCAs"), ("NCCL_NET_GDR_LEVEL", "PHB", "GDR")],
    )
    tuning.insert_run(
        (cluster_id, report_id, T0 + 17, "verify", "all_reduce_perf -b 8 -e 1G", "{}", 0, None,
         "all_reduce", 16, 2, 8, 1 << 30, 180.5, 150.2, 150.1, "IB", 0, 0, 12.5, "[]")
    )  # fmt: skip

    ChargeTable(store).charge_meter(cluster_id, T0 + 12, 1_234_567, T0 + 90, "CNY")

    events = EventLog(store, bus, _clock)
    events.record(
        "cluster",
        "info",
        Said("job.succeeded"),
        cluster_id=cluster_id,
        job_id=job_id,
        data={"detail": "fixture"},
    )
    alert_id = events.raise_alert(
        AlertRaised(
            ts=T0 + 42,
            event_id=0,
            rule="gpu.xid",
            severity="error",
            message="XID 79 on train-a-node1 GPU 3",
            action="release the node",
            cluster_id=cluster_id,
            node_id=node_ids[1],
            node="train-a-node1",
            gpu=3,
        ),
        {"xid": 79},
    )
    events.clear_alert(
        AlertCleared(
            ts=T0 + 80,
            event_id=alert_id,
            rule="gpu.xid",
            severity="error",
            message="XID 79 on train-a-node1 GPU 3",
            cluster_id=cluster_id,
            node_id=node_ids[1],
        )
    )

    conversation_id = conv.create_conversation(
        store, "LoRA on 8 GPUs", brain="rules", currency="CNY", now=T0
    )
    conv.add_message(
        store, conversation_id, "user", "plan a LoRA fine-tune of a 7B model on 8 GPUs"
    )
    tool_call_id = conv.upsert_tool_call(
        store,
        conversation_id,
        "call-1",
        now=T0 + 1,
        tool="plan",
        effect="read",
        args={"task": "finetune-lora", "gpus": 8},
        result={"options": 3},
        status="done",
        summary="3 options",
        summary_said={"key": "job.succeeded", "figures": {}},
    )
    conv.add_message(
        store,
        conversation_id,
        "assistant",
        "Three options; the cheapest is 8 x A800 in Xiamen.",
        agent="planner",
        tokens_in=120,
        tokens_out=40,
        cost_micros=90,
        tool_call_id=tool_call_id,
        data={"plan_id": 1},
    )
    conv.add_usage(store, conversation_id, 120, 40, 90)
    conv.add_allowance(store, conversation_id, "train-a", "exec", now=T0 + 2)
    plans = PlanTable(store, clock=_clock)
    plan_id = plans.add({"task": "finetune-lora", "gpus": 8}, {"options": []}, conversation_id)
    plans.choose(plan_id, 1)
    store.writer.flush(60)
    return {
        "cluster": cluster_id,
        "released": released_id,
        "job": job_id,
        "conversation": conversation_id,
        "plan": plan_id,
    }


def dump(path: Path) -> str:
    """The database at ``path`` as SQL text that rebuilds it, its version included."""
    conn = sqlite3.connect(path)
    try:
        version = int(conn.execute("PRAGMA user_version").fetchone()[0])
        body = "\n".join(conn.iterdump())
    finally:
        conn.close()
    return f"PRAGMA user_version={version};\n{body}\n"


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "history.db"
        with Store(path) as store:
            fill(store)
        target = DATA / f"store_v{LATEST_VERSION}.sql"
        if target.exists():
            print(f"{target} exists: a version's file is made once", file=sys.stderr)
            return 1
        DATA.mkdir(parents=True, exist_ok=True)
        target.write_text(dump(path), encoding="utf-8")
    print(target)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
