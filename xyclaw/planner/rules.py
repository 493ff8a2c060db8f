"""The reasons attached to each option, as named rules (most of them seed 004's).

Seed 004's selection rules, as the planner applies them:

1. ``small-jobs-roce``: <= 8 cards on a 7B/13B job: RoCE and InfiniBand are
   within 10%; RoCE is the better value.
2. ``mid-cluster-ib``: 16-32 cards on 13B-70B training: InfiniBand runs are
   12-38% shorter.
3. ``large-cluster-ib-only``: above 32 cards only InfiniBand holds up.
4. ``cost-sensitive-roce``: on a budget, RoCE needs 30-50% less network money.
5. ``performance-ib``: when speed comes first, InfiniBand.
6. ``gpu-fabric-match``: H100/A100-class cards want >= 200 Gb/s; RTX 4090/A10
   are fine on 100 Gb/s RoCE.
7. ``roce-pfc-ecn``: RoCE without PFC/ECN on the switches jitters.

The rules explain; the ranking itself comes from cost and time, whose fabric
factors (see :mod:`xyclaw.planner.fabric_model`) are derived from the same
seed tables, so the rules and the numbers agree.
"""

from __future__ import annotations

from dataclasses import dataclass

from xyclaw.catalog.fabrics import Fabric
from xyclaw.catalog.models import GIB, GpuModel, Offer
from xyclaw.catalog.money import format_amount
from xyclaw.planner.compute import Replica, flops_formula
from xyclaw.planner.costing import THIRTY_DAYS, TIER_30D, Bill, bill
from xyclaw.planner.fabric_model import fabric_factor_one
from xyclaw.planner.request import PlanRequest

SMALL_MODEL_MAX = 20_000_000_000  # the 7B/13B class of rule 1
MID_MODEL_MIN = 10_000_000_000  # the 13B-70B class of rule 2
_IB_REFERENCE = Fabric("ib-hdr-200", "ib", 200)
_ROCE_REFERENCE = Fabric("roce-200", "roce", 200)


@dataclass(frozen=True, slots=True)
class OptionFacts:
    request: PlanRequest
    gpu: GpuModel
    fabric: Fabric
    offer: Offer
    gpus: int
    nodes: int
    seconds: int
    bill: Bill
    utilization: float
    fabric_factor: float
    flops: float
    memory_per_gpu: float
    memory_usable: float
    replica: Replica | None
    replicas: int
    capacity_rps: float


def size_label(params: int) -> str:
    if params >= 10**12:
        return f"{params / 10**12:.3g}T"
    if params >= 10**9:
        return f"{params / 10**9:.3g}B"
    return f"{params / 10**6:.3g}M"


def _time_vs_ib(facts: OptionFacts) -> float:
    """How many times the InfiniBand (HDR 200) run time this option takes."""
    ib = fabric_factor_one(_IB_REFERENCE, facts.gpus, facts.nodes, facts.gpu.wants_gbps)
    return ib / facts.fabric_factor


#: One reason: its rule, its English text, and the figures in it (already formatted), so that
#: a caller can word the same reason in another language (``form`` tells variants apart).
Explained = tuple[str, str, dict[str, str]]


def _seed_rules(facts: OptionFacts) -> list[Explained]:
    request, fabric, gpus = facts.request, facts.fabric, facts.gpus
    family = fabric.family
    reasons: list[Explained] = []
    multi = facts.nodes > 1
    training = request.task.training
    size = size_label(request.params)
    if multi and gpus <= 8 and request.params <= SMALL_MODEL_MAX:
        if family == "roce":
            extra = f"{_time_vs_ib(facts) - 1:.0%}"
            reasons.append(
                (
                    "small-jobs-roce",
                    f"<=8 cards on a {size} model: RoCE takes only {extra} longer than "
                    "InfiniBand for less money (seed 004 rule 1)",
                    {"form": "roce", "size": size, "extra": extra},
                )
            )
        elif family == "ib":
            roce = fabric_factor_one(_ROCE_REFERENCE, gpus, facts.nodes, facts.gpu.wants_gbps)
            saved = f"{1 - roce / facts.fabric_factor:.0%}"
            reasons.append(
                (
                    "small-jobs-roce",
                    f"<=8 cards on a {size} model: InfiniBand saves only {saved} of the time; "
                    "RoCE is the better value (seed 004 rule 1)",
                    {"form": "ib", "size": size, "saved": saved},
                )
            )
    if multi and training and 16 <= gpus <= 32 and request.params >= MID_MODEL_MIN:
        if family == "ib":
            roce = fabric_factor_one(_ROCE_REFERENCE, gpus, facts.nodes, facts.gpu.wants_gbps)
            longer = f"{facts.fabric_factor / roce - 1:.0%}"
            text = (
                f"16-32 cards on {size} training: InfiniBand; RoCE would take {longer} "
                "longer (seed 004 rule 2)"
            )
            form = "ib"
        else:
            longer = f"{_time_vs_ib(facts) - 1:.0%}"
            text = (
                f"16-32 cards on {size} training favour InfiniBand: this takes {longer} "
                "longer than on IB (seed 004 rule 2)"
            )
            form = "other"
        reasons.append(("mid-cluster-ib", text, {"form": form, "size": size, "longer": longer}))
    if multi and training and gpus > 32:
        times = f"{_time_vs_ib(facts):.1f}"
        if family == "ib":
            text = "above 32 cards only InfiniBand holds up (seed 004 rule 3)"
            form = "ib"
        else:
            text = (
                f"above 32 cards only InfiniBand holds up: this takes {times}x "
                "the IB time (seed 004 rule 3)"
            )
            form = "other"
        reasons.append(("large-cluster-ib-only", text, {"form": form, "times": times}))
    if multi and family == "roce" and request.budget_micro is not None:
        reasons.append(
            (
                "cost-sensitive-roce",
                "on a budget RoCE fits: 30-50% less network hardware than IB (seed 004 rule 4)",
                {},
            )
        )
    if multi and family == "ib" and request.fastest:
        reasons.append(
            (
                "performance-ib",
                "speed first: InfiniBand keeps the GPUs busiest (seed 004 rule 5)",
                {},
            )
        )
    if multi and fabric.rdma:
        wants = facts.gpu.wants_gbps
        figures = {"gpu": facts.gpu.name, "wants": str(wants), "gbps": str(fabric.gbps)}
        if fabric.gbps < wants:
            reasons.append(
                (
                    "gpu-fabric-match",
                    f"{facts.gpu.name} wants >= {wants} Gb/s between nodes; {fabric.gbps} Gb/s "
                    "slows it (seed 004 rule 6)",
                    {"form": "slow", **figures},
                )
            )
        elif wants <= 100 and family == "roce":
            reasons.append(
                (
                    "gpu-fabric-match",
                    f"{facts.gpu.name} is fine on {fabric.gbps} Gb/s RoCE (seed 004 rule 6)",
                    {"form": "fine", **figures},
                )
            )
    if multi and family == "roce":
        reasons.append(
            (
                "roce-pfc-ecn",
                "RoCE needs PFC and ECN on the switches, else latency jitters (seed 004 rule 7)",
                {},
            )
        )
    if multi and family == "eth":
        reasons.append(
            (
                "tcp-ethernet",
                "plain TCP Ethernet: GPUs reach 35-45% utilization against up to 92% on IB "
                "(seed 004)",
                {},
            )
        )
    return reasons


def reasons_for(facts: OptionFacts) -> tuple[tuple[str, str], ...]:
    """All reasons for one option, the deciding ones first."""
    return tuple((rule, text) for rule, text, _ in explain(facts))


def explain(facts: OptionFacts) -> tuple[Explained, ...]:
    """All reasons for one option with their figures, the deciding ones first."""
    request = facts.request
    reasons = _seed_rules(facts)
    if facts.nodes == 1:
        link = "NVLink" if facts.gpu.has_nvlink else "PCIe"
        reasons.append(
            ("single-node", f"one node: {link} only, no inter-node network", {"link": link})
        )
    hours = facts.seconds / 3600
    used = f"{facts.memory_per_gpu / GIB:.1f}"
    usable = f"{facts.memory_usable / GIB:.1f}"
    if request.task.training:
        formula, flops, util = (
            flops_formula(request.task),
            f"{facts.flops:.2g}",
            f"{facts.utilization:.0%}",
        )
        reasons.append(
            (
                "time",
                f"{formula} = {flops} FLOPs at {util} of peak: {hours:.1f} h with 10 min setup",
                {"formula": formula, "flops": flops, "util": util, "hours": f"{hours:.1f}"},
            )
        )
        reasons.append(
            (
                "memory",
                f"{used} of {usable} GiB usable per GPU, sharded over {facts.gpus}",
                {"form": "train", "used": used, "usable": usable, "gpus": str(facts.gpus)},
            )
        )
    elif facts.replica is not None:
        replica = facts.replica
        figures = {
            "replicas": str(facts.replicas),
            "tp": str(replica.tensor_parallel),
            "batch": str(replica.batch),
            "capacity": f"{facts.capacity_rps:.3g}",
            "rate": f"{request.target_rate:g}",
            "ms": f"{replica.step_seconds * 1000:.0f}",
        }
        reasons.append(
            (
                "throughput",
                "{replicas} replica(s) of {tp} GPU(s), batch {batch}: {capacity} req/s for "
                "{rate} wanted, {ms} ms per token".format(**figures),
                figures,
            )
        )
        reasons.append(
            (
                "memory",
                f"{used} of {usable} GiB usable per GPU (weights and KV cache)",
                {"form": "serve", "used": used, "usable": usable},
            )
        )
    if facts.bill.tier == TIER_30D:
        price = format_amount(facts.bill.price_micro, facts.offer.currency)
        if facts.seconds >= THIRTY_DAYS:
            text = f"30-day tier at {price} per card-hour"
            form = "long"
        else:
            text = f"30-day tier at {price}: paying 30 days beats {hours:.0f} h on demand"
            form = "short"
        reasons.append(("tier-30d", text, {"form": form, "price": price, "hours": f"{hours:.0f}"}))
    elif facts.offer.price_30d_micro is not None:
        # A tier the provider lists but does not rent is never the price; where committing
        # would have been cheaper, the option says what it would cost, as a reason.
        offer = facts.offer
        committed = bill(facts.gpus, facts.seconds, offer.price_micro, offer.price_30d_micro)
        if committed.tier == TIER_30D:
            figures = {
                "form": "assumed" if offer.price_30d_assumed else "listed",
                "provider": offer.provider,
                "price": format_amount(committed.price_micro, offer.currency),
                "total": format_amount(committed.cost_micro, offer.currency),
            }
            text = (
                "{provider} lists a 30-day tier at {price} per card-hour ({total} for this run)"
                " but rents only on demand, the price shown"
            ).format(**figures)
            if offer.price_30d_assumed:
                text += "; that tier is an assumed figure"
            reasons.append(("tier-30d-not-rented", text, figures))
    if facts.offer.host:
        # What the marketplace says about the host (Vast.ai, RunPod), so a cheap community
        # host is chosen knowingly.
        figures = {
            "form": "community" if facts.offer.community else "vetted",
            "provider": facts.offer.provider,
            "host": facts.offer.host,
        }
        text = "{provider}: {host}".format(**figures)
        if facts.offer.community:
            text += "; its owner is not the provider: send it no secret you can avoid"
        reasons.append(("host", text, figures))
    assumed = (
        facts.offer.price_30d_assumed if facts.bill.tier == TIER_30D else facts.offer.price_assumed
    )
    if assumed:
        reasons.append(("assumed-price", "the price is an assumed figure, not a quoted one", {}))
    if request.tokens_assumed:
        tokens = size_label(request.training_tokens)
        reasons.append(
            (
                "assumed-tokens",
                f"{tokens} training tokens assumed; give --tokens",
                {"tokens": tokens},
            )
        )
    if not request.task.training and request.rate is None:
        rate = f"{request.target_rate:g}"
        reasons.append(("assumed-rate", f"{rate} req/s assumed; give --rate", {"rate": rate}))
    return tuple(reasons)
