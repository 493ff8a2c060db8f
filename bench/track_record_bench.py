"""What the memory of hosts and providers costs a plan (issue 36).

Writes a history of N rentals (a third of them with a failure: an XID, low bus bandwidth or
a failed bring-up; one provider's rentals billed over the quote) into a real SQLite file
through the store's API, then times, per plan over 5,000 generated offers (the offers of
``planner_bench``): reading the memory back (``track_record_rows`` + ``TrackRecord.from_rows``,
what ``Engine.plan`` does first), ``plan()`` with its ranking hook, and ``plan()`` without.
Prints one JSON object of figures as its last line.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from planner_bench import FABRICS, generate_offers

from xyclaw.catalog import Catalog
from xyclaw.events import EventBus
from xyclaw.planner import PlanRequest, plan
from xyclaw.planner.track_record import TrackRecord
from xyclaw.records import ClusterState, ClusterStore
from xyclaw.store import Store
from xyclaw.store.charges import ChargeTable
from xyclaw.store.track_record import track_record_rows
from xyclaw.store.tuning import TuningTables


def write_history(path: Path, rentals: int, gpus: list[str], now: float) -> None:
    rng = random.Random(36)
    with Store(path) as store:
        clock = [now]
        clusters = ClusterStore(store, EventBus(), lambda: clock[0])
        charges, tuning = ChargeTable(store), TuningTables(store)
        for p in range(7):
            clusters.ensure_provider(f"p{p}", "bench")
        for i in range(rentals):
            clock[0] = now - rng.uniform(0, 60) * 86400
            provider = f"p{i % 7}"
            cid = clusters.add_intent(
                {"provider_id": provider, "name": f"c{i}", "gpu": rng.choice(gpus),
                 "gpu_count": 16, "gpus_per_node": 8, "fabric": rng.choice(FABRICS),
                 "region": f"r{rng.randrange(12)}", "currency": "CNY",
                 "price_per_gpu_hour_micros": 4_000_000, "idempotency_key": f"k{i}"}
            )  # fmt: skip
            roll = rng.random()
            if roll < 0.1:
                clusters.update(cid, state=ClusterState.RELEASED, error="bootstrap failed",
                                released_at=clock[0] + 600)  # fmt: skip
                continue
            clusters.update(cid, state=ClusterState.READY, ready_at=clock[0] + 300)
            if roll < 0.33:
                verdict = json.dumps({"status": "low", "ratio": round(rng.uniform(0.4, 0.8), 2)})
                tuning.insert_settings(
                    (cid, None, clock[0] + 400, "verified", 1, "", "[]", verdict), []
                )
            charges.charge_meter(cid, clock[0], 10_000_000, clock[0] + 3600, "CNY")
            if provider == "p3":
                charges.set_provider_total(cid, 11_200_000, "CNY", clock[0], clock[0] + 3600)
        store.writer.flush(60)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--offers", type=int, default=5000)
    parser.add_argument("--rentals", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--smoke", action="store_true", help="200 offers, 50 rentals, 2 repeats")
    args = parser.parse_args(argv)
    if args.smoke:
        args.offers, args.rentals, args.repeats = 200, 50, 2
    builtin = Catalog.builtin()
    gpus = [g.name for g in builtin.gpus]
    catalog = Catalog(builtin.gpus, generate_offers(gpus, args.offers))
    catalog.table()
    request = PlanRequest.parse(task="finetune-lora", model_size="7B", tokens="1B")
    plan(request, catalog).options[:10]  # warm-up: numpy's lazy imports, the column table
    now = time.time()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "history.db"
        write_history(path, args.rentals, gpus, now)
        read_ms: list[float] = []
        hooked_ms: list[float] = []
        plain_ms: list[float] = []
        ranked_down = 0
        with Store(path) as store:
            for _ in range(args.repeats):
                start = time.perf_counter()
                since = now - 90 * 86400
                memory = TrackRecord.from_rows(
                    track_record_rows(store, since), now=now, since=since
                )
                read_ms.append((time.perf_counter() - start) * 1000)
                start = time.perf_counter()
                result = plan(request, catalog, hook=memory.judge)
                shown = result.options[:10]
                hooked_ms.append((time.perf_counter() - start) * 1000)
                ranked_down = sum(
                    1 for o in result.options[:200] if o.reasons and o.reasons[0][0].startswith(
                        ("memory-node-class", "memory-price-drift"))
                )  # fmt: skip
                start = time.perf_counter()
                plain = plan(request, catalog)
                plain.options[:10]
                plain_ms.append((time.perf_counter() - start) * 1000)
    figures = {
        "offers": args.offers,
        "rentals": args.rentals,
        "marks": len(memory.marks),
        "repeats": args.repeats,
        "read_memory_median_ms": round(statistics.median(read_ms), 2),
        "plan_with_hook_median_ms": round(statistics.median(hooked_ms), 2),
        "plan_plain_median_ms": round(statistics.median(plain_ms), 2),
        "ranked_down_in_top_200": ranked_down,
        "top_10_shown": len(shown),
    }
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
