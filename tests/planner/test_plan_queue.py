"""A Slurm partition in a plan (issue 33): full now, it is still an option, which says how
long it waits; a free one says it runs now; beside a rented offer the plan compares them."""

from __future__ import annotations

from xyclaw.catalog import Catalog, Offer
from xyclaw.planner import PlanRequest, plan
from xyclaw.planner.report import options_table, reasons_line, render, side_by_side


def partition(free: int, waits: tuple[tuple[int, int | None], ...]) -> Offer:
    return Offer(
        provider="lab",
        offer_id="slurm-lab-gpu",
        region="gpu",
        gpu="A800",
        gpus_per_node=8,
        node_counts=(1, 2),
        fabric="eth-25",
        price_micro=0,
        currency="USD",
        kind="cluster",
        available_gpus=free,
        queue_waits=waits,
    )


def rented(free: int | None = None) -> list[Offer]:
    """A rented cloud's H100 nodes, in the same currency as the lab's price."""
    return [
        Offer(
            provider="lambda",
            offer_id="gpu_8x_h100_sxm5",
            region="us-east-1",
            gpu="H100",
            gpus_per_node=8,
            node_counts=(1, 2),
            fabric="ib-ndr-400",
            price_micro=2_990_000,
            currency="USD",
            kind="cluster",
            available_gpus=free,
        )
    ]


def request(**more: str) -> PlanRequest:
    return PlanRequest.parse(
        task="finetune-lora", model_size="7B", tokens="1B", gpus="16", currency="USD", **more
    )


def test_a_full_partition_is_an_option_that_waits_and_is_compared_with_a_rental() -> None:
    catalog = Catalog(Catalog.builtin().gpus, [partition(3, ((1, 0), (2, 2400))), *rented()])
    result = plan(request(), catalog)

    lab = next(o for o in result.options if o.provider == "lab")
    assert lab.gpus == 16 and lab.queued and not lab.runs_now and lab.wait_minutes == 40
    assert "3 GPU(s) free of the 16 needed; Slurm expects it to start in about 40 min" in (
        reasons_line(lab)
    )
    assert "约 40 分钟后开始" in reasons_line(lab, "zh")
    rent = next(o for o in result.options if not o.queued)
    assert rent.runs_now
    line = side_by_side(result.options)
    assert line is not None
    assert line.startswith("side by side: lab's 16 A800 in about 40 min for 0.00 USD, or ")
    assert f"{rent.provider}'s {rent.gpus} {rent.gpu} now for " in line
    table = options_table(result.options)
    assert table[0].endswith("starts")
    assert any(row.endswith("~40 min") for row in table) and any(
        row.endswith("  now") for row in table
    )
    assert line in render(result)
    assert "现在就能用" in (side_by_side(result.options, "zh") or "")
    assert lab.to_json()["wait_s"] == 2400


def test_a_free_partition_runs_now_and_a_rental_only_plan_is_unchanged() -> None:
    free = plan(request(), Catalog(Catalog.builtin().gpus, [partition(16, ((1, 0), (2, 0)))]))
    [lab] = [o for o in free.options if o.gpus == 16]
    assert lab.runs_now and "16 GPU(s) free, runs now" in reasons_line(lab)

    unknown = plan(request(), Catalog(Catalog.builtin().gpus, [partition(0, ((2, None),))]))
    [waits] = [o for o in unknown.options if o.gpus == 16]
    assert not waits.runs_now and waits.wait_minutes is None
    assert "does not say how long the queue is" in reasons_line(waits)

    plain = plan(request(), Catalog(Catalog.builtin().gpus, rented()))
    assert not any(o.queued for o in plain.options)
    assert "starts" not in options_table(plain.options)[0] and side_by_side(plain.options) is None


def test_a_rented_offer_with_too_few_free_cards_is_still_refused() -> None:
    result = plan(request(), Catalog(Catalog.builtin().gpus, rented(free=8)))
    assert not result.options
    assert any("capacity" in r.failed for r in result.rejected)


def test_fastest_first_counts_the_wait() -> None:
    catalog = Catalog(Catalog.builtin().gpus, [partition(0, ((1, 0), (2, 72000))), *rented()])
    result = plan(request(fastest="yes"), catalog)
    sixteen = [o for o in result.options if o.gpus == 16]
    assert sixteen[-1].provider == "lab"  # a 20-hour wait: done last, however cheap
