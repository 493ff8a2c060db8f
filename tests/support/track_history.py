"""A prepared history for the memory of hosts and providers (issue 36), written through the
store's own API into the data folder's database before an engine opens it.

In the last 30 days: the ``memory`` provider's A800 RoCE (roce-200) nodes in Xiamen failed
on two rentals (nccl-tests reached 61% of the expected bus bandwidth on one, the other never
came up); its IB nodes there were rented once, cleanly; ``drifty`` billed 12% over the
quoted price on its one rental. Sixty days ago the IB nodes threw an XID 79 (outside the
ranking's window).
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from xyclaw.events import AlertRaised, EventBus
from xyclaw.records import ClusterInfo, ClusterState, ClusterStore, NodeInfo
from xyclaw.store import Store
from xyclaw.store.charges import ChargeTable
from xyclaw.store.event_log import EventLog
from xyclaw.store.tuning import TuningTables

DAY = 86400.0
#: the UUID of the GPU whose XID the old rental left (what nvidia-smi names it)
OLD_GPU_UUID = "GPU-3f1c2a9e-7b44-4d0e-9a51-0c6e2b8d1f07"


def write_history(
    database: Path, now: float | None = None, *, provider: str = "memory"
) -> dict[str, int]:
    """Fill the database at ``database``; returns the clusters' ids by name. ``provider``
    names the provider called ``memory`` above (``sim`` for a test of the built-in cloud)."""
    now = time.time() if now is None else now
    clock = [now]
    ids: dict[str, int] = {}
    with Store(database) as store:
        bus = EventBus()
        clusters = ClusterStore(store, bus, lambda: clock[0])
        for name in (provider, "drifty"):
            clusters.ensure_provider(name, "memory")

        def rent(name: str, owner: str, fabric: str, days_ago: float, ready: bool) -> int:
            clock[0] = now - days_ago * DAY
            cid = clusters.add_intent(
                {
                    "provider_id": owner,
                    "name": name,
                    "gpu": "A800",
                    "gpu_count": 16,
                    "gpus_per_node": 8,
                    "fabric": fabric,
                    "region": "Xiamen",
                    "currency": "CNY",
                    "price_per_gpu_hour_micros": 4_000_000,
                    "idempotency_key": f"key-{name}",
                }
            )
            clusters.apply_provider_view(
                cid,
                ClusterInfo(
                    external_id=f"ext-{name}",
                    name=name,
                    state="running",
                    gpu="A800",
                    gpu_count=16,
                    gpus_per_node=8,
                    fabric=fabric,
                    region="Xiamen",
                    price_per_gpu_hour_micros=4_000_000,
                    currency="CNY",
                    nodes=tuple(
                        NodeInfo(
                            external_id=f"machine-{name}-{rank}",
                            rank=rank,
                            hostname=f"{name}-node{rank}",
                            state="running",
                        )
                        for rank in range(2)
                    ),
                ),
            )
            if ready:
                clusters.update(cid, state=ClusterState.READY, ready_at=clock[0] + 300)
            ids[name] = cid
            return cid

        slow = rent("roce-slow", provider, "roce-200", 5, ready=True)
        tuning = TuningTables(store)
        verdict = {"status": "low", "ratio": 0.61, "healthy": False}
        tuning.insert_settings(
            (slow, None, now - 5 * DAY + 600, "verified", 1, "RoCE", "[]", json.dumps(verdict)),
            [],
        )
        dead = rent("roce-dead", provider, "roce-200", 3, ready=False)
        clusters.update(
            dead,
            state=ClusterState.RELEASED,
            error="bootstrap failed on roce-dead-node1: nvidia-smi not found",
            released_at=now - 3 * DAY + 900,
        )
        rent("ib-good", provider, "ib-hdr-200", 2, ready=True)
        old = rent("ib-old", provider, "ib-hdr-200", 60, ready=True)
        node = clusters.get(old).nodes[1]
        EventLog(store, bus, lambda: now - 60 * DAY).raise_alert(
            AlertRaised(
                ts=now - 60 * DAY + 1000,
                event_id=0,
                rule="gpu.xid",
                severity="error",
                message="XID 79 on ib-old-node1 GPU 3",
                action="release the node",
                cluster_id=old,
                node_id=node.id,
                node="ib-old-node1",
                gpu=3,
                data={"xid": 79, "uuid": OLD_GPU_UUID},
            ),
            {"xid": 79, "uuid": OLD_GPU_UUID},
        )
        drift = rent("drifty-a", "drifty", "roce-200", 4, ready=True)
        charges = ChargeTable(store)
        charges.charge_meter(drift, now - 4 * DAY, 100_000_000, now - 4 * DAY + 3600, "CNY")
        charges.set_provider_total(drift, 112_000_000, "CNY", now - 4 * DAY, now - 3 * DAY)
        store.writer.flush(60)
    return ids
