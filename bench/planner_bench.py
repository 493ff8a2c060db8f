"""Ranking one request over 5,000 offers: how long ``plan`` takes (target <= 20 ms median).

Generates 5,000 offers over the bundled GPU models (random regions, fabrics,
node counts and prices from a fixed seed), then times, per request:
``plan()`` plus building the 10 options and 10 rejects the CLI shows and their
JSON. The catalog's column table is built once per catalog (it is cached), and
timed separately. Prints one JSON object of figures as its last line.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from xyclaw.catalog import Catalog, Offer
from xyclaw.planner import PlanRequest, plan

OFFERS = 5000
REPEATS = 60
FABRICS = ("ib-hdr-200", "ib-ndr-400", "roce-100", "roce-200", "eth-25")
NODE_COUNTS = ((2,), (2, 4), (2, 4, 8), (8, 16), (4, 8, 16, 32))


def generate_offers(gpus: list[str], count: int, seed: int = 4) -> list[Offer]:
    rng = random.Random(seed)
    offers: list[Offer] = []
    for i in range(count):
        gpu = rng.choice(gpus)
        price = rng.randint(800_000, 15_000_000)
        if rng.random() < 0.4:
            per_node, nodes, fabric, kind = rng.choice((1, 2, 4, 8)), (1,), "none", "node"
        else:
            per_node, nodes, fabric = (
                rng.choice((4, 8)),
                rng.choice(NODE_COUNTS),
                rng.choice(FABRICS),
            )
            kind = "cluster"
        offers.append(
            Offer(
                provider=f"p{i % 7}",
                offer_id=f"o{i}",
                region=f"r{rng.randrange(12)}",
                gpu=gpu,
                gpus_per_node=per_node,
                node_counts=nodes,
                fabric=fabric,
                price_micro=price,
                currency="CNY",
                price_30d_micro=int(price * rng.uniform(0.6, 0.95)) if rng.random() < 0.7 else None,
                price_30d_rentable=i % 2 == 0,  # half the tiers rentable: both pricing paths
                kind=kind,
                available_gpus=rng.choice((None, 64, 256)),
            )
        )
    return offers


def time_requests(
    catalog: Catalog, request: PlanRequest, repeats: int
) -> tuple[list[float], dict[str, int]]:
    samples: list[float] = []
    counts: dict[str, int] = {}
    for _ in range(repeats):
        start = time.perf_counter()
        result = plan(request, catalog)
        result.to_json(max_options=10, max_rejected=10)
        samples.append((time.perf_counter() - start) * 1000)
        counts = {
            "shapes": result.considered,
            "options": len(result.options),
            "rejected": len(result.rejected),
        }
    return samples, counts


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--offers", type=int, default=OFFERS)
    parser.add_argument("--repeats", type=int, default=REPEATS)
    parser.add_argument("--smoke", action="store_true", help="200 offers, 3 repeats: that it runs")
    args = parser.parse_args(argv)
    if args.smoke:
        args.offers, args.repeats = 200, 3
    builtin = Catalog.builtin()
    gpus = [g.name for g in builtin.gpus]
    offers = generate_offers(gpus, args.offers)
    catalog = Catalog(builtin.gpus, offers)
    start = time.perf_counter()
    table = catalog.table()
    table_ms = (time.perf_counter() - start) * 1000

    requests = {
        "train_13b_budget_deadline": PlanRequest.parse(
            task="finetune-full", model_size="13B", tokens="2B", budget="3000", deadline="72h"
        ),
        "lora_7b_any": PlanRequest.parse(task="finetune-lora", model_size="7B", tokens="1B"),
        "pretrain_70b_fastest": PlanRequest.parse(
            task="pretrain", model_size="70B", tokens="50B", gpus="16+", fastest=True
        ),
        "inference_13b_20rps": PlanRequest.parse(task="inference", model_size="13B", rate="20"),
    }
    figures: dict[str, object] = {
        "offers": args.offers,
        "shapes": len(table),
        "table_build_ms": round(table_ms, 2),
        "repeats": args.repeats,
    }
    medians: list[float] = []
    for name, request in requests.items():
        plan(request, catalog)  # warm-up
        samples, counts = time_requests(catalog, request, args.repeats)
        median = statistics.median(samples)
        medians.append(median)
        figures[name] = {
            "median_ms": round(median, 2),
            "p90_ms": round(statistics.quantiles(samples, n=10)[-1], 2),
            "min_ms": round(min(samples), 2),
            **counts,
        }
    # What an agent pays when it reads every option rather than the top ten.
    everything = requests["lora_7b_any"]
    start = time.perf_counter()
    result = plan(everything, catalog)
    built = len(list(result.options))
    figures["all_options_ms"] = round((time.perf_counter() - start) * 1000, 1)
    figures["all_options"] = built
    figures["worst_median_ms"] = round(max(medians), 2)
    figures["target_median_ms"] = 20
    figures["meets_target"] = max(medians) <= 20
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
