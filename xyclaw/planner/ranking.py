"""``plan(request, catalog)``: every rentable shape, checked and ranked in one vectorised pass.

For each (offer, node count) that passes the request's filters (GPU model,
region, provider, fabric, card count) the planner computes memory per GPU,
run time and cost on numpy columns, rejects shapes that break memory, the
GPU's precision, the latency limit, the request rate, free capacity, the
currency, the budget or the deadline, and ranks the rest by cost (then time)
or, with ``fastest``, by time (then cost). Option objects and their reasons
are built only when read.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from xyclaw.catalog.catalog import Catalog
from xyclaw.catalog.fabrics import matches
from xyclaw.catalog.models import GpuModel, Offer
from xyclaw.catalog.money import format_amount
from xyclaw.catalog.names import same_name
from xyclaw.catalog.table import OfferTable
from xyclaw.planner.compute import (
    SETUP_SECONDS,
    Replica,
    plan_replica,
    training_flops,
    training_mfu,
    training_peak_flops,
)
from xyclaw.planner.costing import bill, cost_vector
from xyclaw.planner.fabric_model import fabric_factor
from xyclaw.planner.hook import Judgement, RankingHook
from xyclaw.planner.memory import (
    ModelShape,
    activation_bytes,
    training_state_bytes,
    usable_bytes,
)
from xyclaw.planner.request import PlanRequest, RequestError
from xyclaw.planner.result import LazyList, PlanOption, PlanResult, RejectedOption
from xyclaw.planner.rules import Explained, OptionFacts, explain
from xyclaw.wording import Figure, Said, joined, said

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

# Checks, in the order their reasons are listed.
PRECISION, MEMORY, LATENCY, RATE, CAPACITY, CURRENCY, BUDGET, DEADLINE = (
    "precision",
    "memory",
    "latency",
    "rate",
    "capacity",
    "currency",
    "budget",
    "deadline",
)
CHECKS = (PRECISION, MEMORY, LATENCY, RATE, CAPACITY, CURRENCY, BUDGET, DEADLINE)
_BUDGET_TOLERANCE = 1e-9


@dataclass(slots=True)
class _Evaluation:
    """Columns aligned with ``rows`` (indexes into the offer table)."""

    rows: IntArray
    gpus: FloatArray
    memory: FloatArray
    usable: FloatArray
    seconds: FloatArray
    cost: FloatArray
    utilization: FloatArray
    fabric_factor: FloatArray
    capacity: FloatArray
    replica_index: IntArray  # into replicas (inference), -1 for training
    replicas: list[Replica]
    failed: dict[str, BoolArray]
    ratio: dict[str, FloatArray]
    flops: float


def plan(request: PlanRequest, catalog: Catalog, hook: RankingHook | None = None) -> PlanResult:
    """Ranked options for ``request`` over every offer in ``catalog``.

    ``hook`` (:mod:`xyclaw.planner.hook`), asked once per offer, may warn about an offer or
    rank its options down, each time with a reason; without it the ranking is the plain one.
    """
    table = catalog.table()
    rows, unmatched = _select(request, catalog, table)
    if rows.size == 0:
        return PlanResult(
            request,
            [],
            [],
            considered=0,
            unmatched=None if unmatched is None else unmatched.english,
            unmatched_said=unmatched,
        )
    ev = _evaluate(request, table, rows)
    any_failed = np.zeros(rows.shape[0], dtype=bool)
    for mask in ev.failed.values():
        any_failed |= mask
    good = np.flatnonzero(~any_failed)
    bad = np.flatnonzero(any_failed)

    order_keys: tuple[FloatArray, ...]
    if request.fastest and request.task.training:
        # fastest: done soonest, a queue's wait counted (issue 33)
        done = ev.seconds[good] + _waits(table, ev.rows[good])
        order_keys = (ev.rows[good].astype(np.float64), ev.cost[good], done)
    else:
        order_keys = (ev.rows[good].astype(np.float64), ev.seconds[good], ev.cost[good])
    judged = _judged(table, hook)
    if judged:
        down = np.asarray([j is not None and j.rank_down for j in judged], dtype=np.float64)[
            table.offer[ev.rows[good]]
        ]
        order_keys = (*order_keys, down)
    ranked = good[np.lexsort(order_keys)]

    shortfall = np.ones(rows.shape[0])
    for name, mask in ev.failed.items():
        shortfall = np.where(mask, np.maximum(shortfall, ev.ratio[name]), shortfall)
    with np.errstate(invalid="ignore"):
        rejected_cost = np.where(np.isfinite(ev.cost), ev.cost, np.inf)
    closest = bad[np.lexsort((ev.rows[bad], rejected_cost[bad], shortfall[bad]))]

    def option_at(i: int) -> PlanOption:
        return _option(request, table, ev, int(ranked[i]), judged)

    def rejected_at(i: int) -> RejectedOption:
        return _rejected(request, table, ev, int(closest[i]), float(shortfall[closest[i]]))

    return PlanResult(
        request,
        LazyList(int(ranked.size), option_at),
        LazyList(int(closest.size), rejected_at),
        considered=int(rows.size),
        option_costs=ev.cost[ranked],
        option_seconds=ev.seconds[ranked],
    )


def _queued(table: OfferTable) -> BoolArray:
    """Per offer: a scheduler's queue (a Slurm partition), not a rental."""
    return np.asarray([o.queued for o in table.offers], dtype=bool)


def _waits(table: OfferTable, rows: IntArray) -> FloatArray:
    """Per row: the queue's expected wait in seconds (0 for a rental or where unknown)."""
    out = np.zeros(rows.shape[0])
    queued = _queued(table)
    for i in np.flatnonzero(queued[table.offer[rows]]):
        row = int(rows[i])
        wait = table.offers[int(table.offer[row])].queue_wait_s(int(table.nodes[row]))
        out[i] = wait or 0
    return out


def _select(
    request: PlanRequest, catalog: Catalog, table: OfferTable
) -> tuple[IntArray, Said | None]:
    """Rows passing the filters, or none and a sentence naming the filter that emptied them."""
    if request.gpu is not None and not catalog.has_gpu(request.gpu):
        known = ", ".join(g.name for g in catalog.gpus)
        raise RequestError(
            "gpu",
            said("error.typed.unknown_gpu", gpu=repr(request.gpu)),
            hint=said("error.typed.known", names=known),
        )
    for field, value, names in (
        ("region", request.region, table.regions),
        ("provider", request.provider, table.providers),
    ):
        if value is not None and not any(same_name(value, n) for n in names):
            raise RequestError(
                field,
                said("error.typed.no_offer_in", field=field, value=repr(value)),
                hint=said("error.typed.known", names=", ".join(names)),
            )

    def codes(names: tuple[str, ...], wanted: Callable[[str], bool]) -> IntArray:
        return np.asarray([i for i, n in enumerate(names) if wanted(n)], dtype=np.int64)

    filters: list[tuple[Said, BoolArray, Callable[[IntArray], list[str]]]] = []
    if request.gpu is not None:
        gpu = request.gpu
        wanted = codes(tuple(m.name for m in table.gpu_models), lambda n: n == gpu)
        label = said("common.filter.gpu", gpu=gpu)
        filters.append((label, np.isin(table.gpu, wanted), _describe(table, "gpu")))
    if request.region is not None:
        region = request.region
        wanted = codes(table.regions, lambda n: same_name(n, region))
        filters.append(
            (
                said("common.filter.region", region=region),
                np.isin(table.region, wanted),
                _describe(table, "region"),
            )
        )
    if request.provider is not None:
        provider = request.provider
        wanted = codes(table.providers, lambda n: same_name(n, provider))
        filters.append(
            (
                said("common.filter.provider", provider=provider),
                np.isin(table.provider, wanted),
                _describe(table, "provider"),
            )
        )
    if request.fabric is not None:
        fabric = request.fabric
        wanted = np.asarray(
            [i for i, f in enumerate(table.fabrics) if matches(f, fabric)], dtype=np.int64
        )
        filters.append(
            (
                said("common.filter.fabric", fabric=fabric),
                np.isin(table.fabric, wanted),
                _describe(table, "fabric"),
            )
        )
    upper = request.gpus_max if request.gpus_max is not None else np.iinfo(np.int64).max
    count_label = (
        said("common.filter.gpus_at_least", n=request.gpus_min)
        if request.gpus_max is None
        else said("common.filter.gpus", n=request.gpus_min)
        if request.gpus_min == request.gpus_max
        else said("common.filter.gpus_between", low=request.gpus_min, high=request.gpus_max)
    )
    filters.append(
        (
            count_label,
            (table.gpus >= request.gpus_min) & (table.gpus <= upper),
            _describe(table, "gpus"),
        )
    )
    mask = np.ones(len(table), dtype=bool)
    applied: list[Figure] = []
    for label, condition, describe in filters:
        narrowed = mask & condition
        if not narrowed.any():
            before = said("common.unmatched_with", applied=joined(applied)) if applied else ""
            offered = describe(np.flatnonzero(mask))
            return np.zeros(0, dtype=np.int64), said(
                "common.unmatched", label=label, before=before, offered=", ".join(offered)
            )
        mask = narrowed
        applied.append(label)
    return np.flatnonzero(mask), None


def _describe(table: OfferTable, what: str) -> Callable[[IntArray], list[str]]:
    def describe(rows: IntArray) -> list[str]:
        if what == "gpus":
            return [str(n) for n in sorted({int(n) for n in table.gpus[rows]})] or ["nothing"]
        column, names = {
            "gpu": (table.gpu, [m.name for m in table.gpu_models]),
            "region": (table.region, list(table.regions)),
            "provider": (table.provider, list(table.providers)),
            "fabric": (table.fabric, [f.name for f in table.fabrics]),
        }[what]
        return sorted({names[int(c)] for c in column[rows]}) or ["nothing"]

    return describe


def _per_model(models: tuple[GpuModel, ...], value: Callable[[GpuModel], float]) -> FloatArray:
    return np.asarray([value(m) for m in models], dtype=np.float64)


def _evaluate(request: PlanRequest, table: OfferTable, rows: IntArray) -> _Evaluation:
    models = table.gpu_models
    shape = ModelShape.from_params(request.params)
    gpus = table.gpus[rows].astype(np.float64)
    nodes = table.nodes[rows].astype(np.float64)
    gpu_code = table.gpu[rows]
    usable = _per_model(models, lambda m: usable_bytes(m.memory_bytes))[gpu_code]
    wants = _per_model(models, lambda m: float(m.wants_gbps))[gpu_code]
    factor = np.ones(rows.shape[0])
    fabric_code = table.fabric[rows]
    for code in np.unique(fabric_code):
        here = fabric_code == code
        factor[here] = fabric_factor(table.fabrics[int(code)], gpus[here], nodes[here], wants[here])

    n = rows.shape[0]
    failed: dict[str, BoolArray] = {}
    ratio: dict[str, FloatArray] = {}
    replicas: list[Replica] = []
    replica_index = np.full(n, -1, dtype=np.int64)
    capacity = np.zeros(n)
    flops = 0.0
    with np.errstate(divide="ignore", invalid="ignore"):
        if request.task.training:
            flops = training_flops(request.task, request.params, request.training_tokens)
            state = training_state_bytes(request.task, request.precision, request.params)
            memory = state / gpus + activation_bytes(shape, request.context)
            peak_by_model = [training_peak_flops(m, request.precision) for m in models]
            peak = np.asarray([math.nan if p is None else p for p in peak_by_model])[gpu_code]
            mfu = _per_model(models, lambda m: training_mfu(m, request.task, request.precision))
            utilization = mfu[gpu_code] * factor
            compute = flops / (gpus * peak * utilization)
            seconds = np.where(np.isnan(peak), np.inf, np.ceil(compute) + SETUP_SECONDS)
            failed[PRECISION] = np.isnan(peak)
            ratio[PRECISION] = np.full(n, np.inf)
            failed[MEMORY] = memory > usable
            ratio[MEMORY] = memory / usable
        else:
            gpn = table.gpus_per_node[rows]
            key = gpu_code * (int(gpn.max()) + 1) + gpn
            unique, inverse = np.unique(key, return_inverse=True)
            for k in unique:
                code, per_node = divmod(int(k), int(gpn.max()) + 1)
                replicas.append(plan_replica(models[code], per_node, request, shape))
            replica_index = inverse.reshape(-1).astype(np.int64)
            tp = np.asarray([r.tensor_parallel for r in replicas], dtype=np.float64)[replica_index]
            rps = np.asarray([r.requests_per_second for r in replicas])[replica_index]
            memory = np.asarray([r.memory_per_gpu for r in replicas])[replica_index]
            problem = [r.problem for r in replicas]
            no_memory = np.asarray([p == MEMORY for p in problem])[replica_index]
            too_slow = np.asarray([p == LATENCY for p in problem])[replica_index]
            capacity = np.floor(gpus / tp) * rps
            rate = request.target_rate
            utilization = rate / capacity
            seconds = np.full(n, float(request.serve_seconds + SETUP_SECONDS))
            failed[MEMORY] = no_memory
            ratio[MEMORY] = memory / usable
            failed[LATENCY] = too_slow
            ratio[LATENCY] = np.full(n, np.inf)
            fits = ~(no_memory | too_slow)
            failed[RATE] = fits & (capacity < rate)
            ratio[RATE] = rate / capacity

        cost = cost_vector(gpus, seconds, table.price[rows], table.price_30d[rows])
        available = table.available[rows]
        # a scheduler's partition (issue 33) that is full now is an option that waits
        failed[CAPACITY] = (gpus > available) & ~_queued(table)[table.offer[rows]]
        ratio[CAPACITY] = gpus / available
        currency_ok = np.asarray([c == request.currency for c in table.currencies])
        failed[CURRENCY] = ~currency_ok[table.currency[rows]]
        ratio[CURRENCY] = np.full(n, np.inf)
        if request.budget_micro is not None:
            budget = float(request.budget_micro)
            over = cost > budget
            near = np.flatnonzero(
                np.isfinite(cost) & (np.abs(cost - budget) <= budget * _BUDGET_TOLERANCE + 2)
            )
            for i in near:  # decide borderline cases with exact integer money
                offer = table.offers[int(table.offer[rows[i]])]
                exact = bill(
                    int(gpus[i]), int(seconds[i]), offer.price_micro, offer.rentable_price_30d_micro
                )
                over[i] = exact.cost_micro > request.budget_micro
            failed[BUDGET] = over
            ratio[BUDGET] = cost / budget
        if request.task.training and request.deadline_seconds is not None:
            failed[DEADLINE] = seconds > request.deadline_seconds
            ratio[DEADLINE] = seconds / request.deadline_seconds
    return _Evaluation(
        rows=rows,
        gpus=gpus,
        memory=memory,
        usable=usable,
        seconds=seconds,
        cost=cost,
        utilization=utilization,
        fabric_factor=factor,
        capacity=capacity,
        replica_index=replica_index,
        replicas=replicas,
        failed=failed,
        ratio=ratio,
        flops=flops,
    )


def _judged(table: OfferTable, hook: RankingHook | None) -> list[Judgement | None]:
    """The hook's judgement of each offer of the table (empty without a hook or a word)."""
    if hook is None:
        return []
    judged = [hook(offer) for offer in table.offers]
    return judged if any(j is not None for j in judged) else []


def _option(
    request: PlanRequest,
    table: OfferTable,
    ev: _Evaluation,
    i: int,
    judged: list[Judgement | None] | None = None,
) -> PlanOption:
    row = int(ev.rows[i])
    offer = table.offers[int(table.offer[row])]
    model = table.gpu_models[int(table.gpu[row])]
    fabric = table.fabrics[int(table.fabric[row])]
    gpus, nodes = int(table.gpus[row]), int(table.nodes[row])
    seconds = int(ev.seconds[i])
    charge = bill(gpus, seconds, offer.price_micro, offer.rentable_price_30d_micro)
    replica = ev.replicas[int(ev.replica_index[i])] if ev.replica_index[i] >= 0 else None
    replica_count = gpus // replica.tensor_parallel if replica is not None else 0
    facts = OptionFacts(
        request=request,
        gpu=model,
        fabric=fabric,
        offer=offer,
        gpus=gpus,
        nodes=nodes,
        seconds=seconds,
        bill=charge,
        utilization=float(ev.utilization[i]),
        fabric_factor=float(ev.fabric_factor[i]),
        flops=ev.flops,
        memory_per_gpu=float(ev.memory[i]),
        memory_usable=float(ev.usable[i]),
        replica=replica,
        replicas=replica_count,
        capacity_rps=float(ev.capacity[i]),
    )
    explained = explain(facts)
    wait_s = offer.queue_wait_s(nodes) if offer.queued else None
    if offer.queued:
        explained = (queue_reason(offer, nodes, gpus, wait_s), *explained)
    judgement = judged[int(table.offer[row])] if judged else None
    if judgement is not None:  # the history's word first: it may have decided the order
        explained = (*judgement.reasons, *explained)
    return PlanOption(
        gpu=model.name,
        gpus=gpus,
        nodes=nodes,
        gpus_per_node=int(table.gpus_per_node[row]),
        fabric=fabric.name,
        provider=offer.provider,
        region=offer.region,
        offer_id=offer.offer_id,
        currency=offer.currency,
        price_micro=charge.price_micro,
        tier=charge.tier,
        seconds=seconds,
        cost_micro=charge.cost_micro,
        memory_per_gpu_bytes=int(ev.memory[i]),
        memory_usable_bytes=int(ev.usable[i]),
        utilization=float(ev.utilization[i]),
        flops=ev.flops,
        tensor_parallel=replica.tensor_parallel if replica is not None else 0,
        replicas=replica_count,
        capacity_rps=float(ev.capacity[i]),
        reasons=tuple((rule, text) for rule, text, _ in explained),
        reason_figures=tuple(figures for _, _, figures in explained),
        spot_cost_micro=(
            None
            if offer.spot_price_micro is None
            else bill(gpus, seconds, offer.spot_price_micro, None).cost_micro
        ),
        spot_preemptions_per_day=offer.spot_preemptions_per_day,
        queued=offer.queued,
        wait_s=wait_s,
    )


def queue_reason(offer: Offer, nodes: int, gpus: int, wait_s: int | None) -> Explained:
    """Why a scheduler's partition is an option now or later (issue 33)."""
    free = offer.available_gpus if offer.available_gpus is not None else 0
    figures = {"partition": offer.region, "free": str(free), "gpus": str(gpus)}
    if wait_s is not None and wait_s <= 60:
        return ("queue", f"partition {offer.region}: {free} GPU(s) free, runs now",
                {**figures, "form": "now"})  # fmt: skip
    if wait_s is None:
        return (
            "queue",
            f"partition {offer.region}: {free} GPU(s) free of the {gpus} needed; the site does "
            "not say how long the queue is",
            {**figures, "form": "unknown"},
        )
    minutes = str(-(-wait_s // 60))
    return (
        "queue",
        f"partition {offer.region}: {free} GPU(s) free of the {gpus} needed; Slurm expects it "
        f"to start in about {minutes} min",
        {**figures, "form": "wait", "minutes": minutes},
    )


def _rejected(
    request: PlanRequest, table: OfferTable, ev: _Evaluation, i: int, shortfall: float
) -> RejectedOption:
    row = int(ev.rows[i])
    offer = table.offers[int(table.offer[row])]
    model = table.gpu_models[int(table.gpu[row])]
    gpus = int(table.gpus[row])
    seconds: int | None = None
    cost: int | None = None
    if math.isfinite(ev.seconds[i]):
        seconds = int(ev.seconds[i])
        cost = bill(gpus, seconds, offer.price_micro, offer.rentable_price_30d_micro).cost_micro
    failed = tuple(name for name in CHECKS if name in ev.failed and bool(ev.failed[name][i]))
    why = "; ".join(_why(name, request, model, offer.currency, ev, i, cost) for name in failed)
    utilization = float(ev.utilization[i])
    return RejectedOption(
        gpu=model.name,
        gpus=gpus,
        nodes=int(table.nodes[row]),
        gpus_per_node=int(table.gpus_per_node[row]),
        fabric=table.fabrics[int(table.fabric[row])].name,
        provider=offer.provider,
        region=offer.region,
        offer_id=offer.offer_id,
        currency=offer.currency,
        price_micro=offer.price_micro,
        seconds=seconds,
        cost_micro=cost,
        memory_per_gpu_bytes=int(ev.memory[i]) if math.isfinite(ev.memory[i]) else 0,
        memory_usable_bytes=int(ev.usable[i]),
        utilization=utilization if math.isfinite(utilization) else None,
        failed=failed,
        why=why,
        shortfall=shortfall,
    )


def _why(
    name: str,
    request: PlanRequest,
    model: GpuModel,
    currency: str,
    ev: _Evaluation,
    i: int,
    cost: int | None,
) -> str:
    gib = 1 << 30
    if name == PRECISION:
        return f"{model.name} has no {request.precision.value.upper()} tensor cores"
    if name == MEMORY:
        per = "per GPU" if request.task.training else "per GPU even for one sequence"
        return (
            f"needs {ev.memory[i] / gib:.1f} GiB {per}, {model.name} has "
            f"{ev.usable[i] / gib:.1f} GiB usable"
        )
    if name == LATENCY:
        replica = ev.replicas[int(ev.replica_index[i])]
        return (
            f"a decode step takes {replica.step_seconds * 1000:.0f} ms per token, over the "
            "100 ms limit"
        )
    if name == RATE:
        return f"serves {ev.capacity[i]:.3g} req/s, below the {request.target_rate:g} req/s target"
    if name == CAPACITY:
        return "not enough free cards in that offer"
    if name == CURRENCY:
        return f"priced in {currency}, the request is in {request.currency}"
    if name == BUDGET:
        assert request.budget_micro is not None
        spent = format_amount(int(cost if cost is not None else ev.cost[i]), currency)
        over = format_amount(int(cost if cost is not None else ev.cost[i]) - request.budget_micro,
                             currency)  # fmt: skip
        budget = format_amount(request.budget_micro, currency)
        return f"costs {spent}, over the {budget} budget by {over}"
    if name == DEADLINE:
        assert request.deadline_seconds is not None
        hours, limit = ev.seconds[i] / 3600, request.deadline_seconds / 3600
        return (
            f"takes {hours:.1f} h{_days(hours)}, past the {limit:g} h deadline by"
            f" {hours - limit:.1f} h{_days(hours - limit)}"
        )
    return name


def _days(hours: float) -> str:
    """ " (569 days)" after a figure in hours long enough to be counted in days."""
    return f" ({hours / 24:,.0f} days)" if hours >= 72 else ""
