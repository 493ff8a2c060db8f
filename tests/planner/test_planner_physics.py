"""Estimates are physics: FLOPs over achievable FLOP/s, bytes over memory, integer money."""

from __future__ import annotations

import math

import numpy as np
import pytest

from xyclaw.catalog import Catalog, Fabric
from xyclaw.planner import PlanRequest, Task, plan
from xyclaw.planner.costing import THIRTY_DAYS, bill
from xyclaw.planner.fabric_model import fabric_factor_one, roce_time_ratio
from xyclaw.planner.memory import ModelShape


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return Catalog.builtin()


def test_7b_full_finetune_on_1b_tokens_on_8_a800_follows_6nd(catalog: Catalog) -> None:
    # The arithmetic, written out:
    #   FLOPs = 6 x N x D = 6 x 7e9 x 1e9 = 4.2e19
    #   peak  = 8 cards x 312e12 FLOP/s (A800 dense BF16) = 2.496e15 FLOP/s
    #   a realistic MFU for a 7B fine-tune on A100-class cards is 35-60%
    #   (MosaicML llm-foundry measures 50-55% on A100-80GB), so the compute takes
    #     4.2e19 / (2.496e15 x 0.60) = 28,045 s = 7.8 h   at best
    #     4.2e19 / (2.496e15 x 0.35) = 48,077 s = 13.4 h  at worst
    #   plus 10 minutes to bring the node up (seed 003).
    request = PlanRequest.parse(
        task="finetune-full", model_size="7B", tokens="1B", gpu="A800", gpus="8", fabric="none"
    )
    best = plan(request, catalog).best
    assert best is not None and best.gpus == 8 and best.nodes == 1
    flops = 6 * 7e9 * 1e9
    peak = 8 * 312e12
    assert best.flops == pytest.approx(flops)
    assert (
        (flops / (peak * 0.60) + 600) / 3600 <= best.hours <= (flops / (peak * 0.35) + 600) / 3600
    )
    # The figure shown is exactly that formula at the option's own utilization.
    assert best.seconds == math.ceil(flops / (peak * best.utilization)) + 600
    # ... and its cost is cards x seconds x 3.5 CNY per card-hour, in micro-units, rounded up.
    assert best.cost_micro == -(-(8 * best.seconds * 3_500_000) // 3600)
    assert 7.8 < best.hours < 13.6
    # Marketing is not physics: the seed's "10 CNY is enough for an 8-card 7B fine-tune
    # example" is a toy run; a billion tokens costs far more.
    assert best.cost_micro > 100 * 1_000_000


def test_lora_counts_4nd_and_takes_two_thirds_of_the_time(catalog: Catalog) -> None:
    base = dict(model_size="7B", tokens="1B", gpu="A800", gpus="8", fabric="none")
    full = plan(PlanRequest.parse(task="finetune-full", **base), catalog).best
    lora = plan(PlanRequest.parse(task="finetune-lora", **base), catalog).best
    assert full is not None and lora is not None
    assert lora.flops == pytest.approx(4 * 7e9 * 1e9)
    assert (lora.seconds - 600) == pytest.approx((full.seconds - 600) * 4 / 6, rel=1e-4)


def test_model_shape_is_close_to_llama() -> None:
    seven = ModelShape.from_params(7_000_000_000)
    assert 4000 <= seven.d_model <= 4400 and 30 <= seven.layers <= 35
    seventy = ModelShape.from_params(70_000_000_000)
    assert 8000 <= seventy.d_model <= 9300 and 64 <= seventy.layers <= 84
    assert seventy.kv_dim == seventy.d_model // 8  # grouped-query attention from 30B


def test_fabric_factors_reproduce_seed_004_days() -> None:
    # Seed 004, H100 training: IB 3.2 / 7.8 / 15.2 days, RoCE 3.5 / 8.9 / 24.5 days.
    ratios = roce_time_ratio(np.asarray([8.0, 16.0, 32.0]))
    assert ratios == pytest.approx([3.5 / 3.2, 8.9 / 7.8, 24.5 / 15.2])
    ib = Fabric("ib-hdr-200", "ib", 200)
    roce = Fabric("roce-200", "roce", 200)
    eth = Fabric("eth-25", "eth", 25)
    for cards, days_ib, days_roce in ((8, 3.2, 3.5), (16, 7.8, 8.9), (32, 15.2, 24.5)):
        time_ratio = fabric_factor_one(ib, cards, 2, 200) / fabric_factor_one(roce, cards, 2, 200)
        assert time_ratio == pytest.approx(days_roce / days_ib)
    # Plain TCP: 35-45% utilization against IB's 92%.
    assert fabric_factor_one(eth, 16, 2, 200) / fabric_factor_one(ib, 16, 2, 200) == (
        pytest.approx(0.40 / 0.92)
    )
    # One node pays nothing; RoCE above 32 cards keeps getting worse.
    assert fabric_factor_one(roce, 8, 1, 200) == 1.0
    assert fabric_factor_one(roce, 64, 8, 200) < fabric_factor_one(roce, 32, 4, 200)
    # Rule 6: an NVLink card on 100 Gb/s suffers more than a PCIe card does.
    roce100 = Fabric("roce-100", "roce", 100)
    assert fabric_factor_one(roce100, 16, 2, 200) < fabric_factor_one(roce100, 16, 2, 100)


def test_billing_is_exact_and_uses_the_30_day_tier_when_it_pays() -> None:
    short = bill(8, 3600, 1_900_000, 1_200_000)
    assert (short.cost_micro, short.tier) == (15_200_000, "on-demand")
    long = bill(8, THIRTY_DAYS + 3600, 1_900_000, 1_200_000)
    assert long.tier == "30-day" and long.cost_micro == 8 * (THIRTY_DAYS + 3600) * 1_200_000 // 3600
    # 25 days on demand (1.9) costs more than 30 committed days at 1.2.
    committed = bill(1, 25 * 86400, 1_900_000, 1_200_000)
    assert committed.tier == "30-day" and committed.billed_seconds == THIRTY_DAYS
    # One second on one card at 1.9 per hour is 527.78 micro-units: rounded up, never lost.
    assert bill(1, 1, 1_900_000, None).cost_micro == 528


def test_inference_uses_tensor_parallel_when_one_card_is_too_small(catalog: Catalog) -> None:
    request = PlanRequest.parse(task="inference", model_size="70B", gpu="A800", gpus="8")
    best = plan(request, catalog).best
    assert best is not None
    assert best.tensor_parallel >= 2  # 140 GB of bf16 weights cannot sit on one 80 GB card
    assert best.memory_per_gpu_bytes <= best.memory_usable_bytes
    assert best.replicas == 8 // best.tensor_parallel
    assert best.capacity_rps >= 1.0


def test_fp8_training_needs_fp8_tensor_cores(catalog: Catalog) -> None:
    request = PlanRequest(
        task=Task.FINETUNE_FULL, params=7_000_000_000, tokens=10**9, precision="fp8", gpus_min=8
    )
    result = plan(request, catalog)
    assert all(catalog.gpu(o.gpu).fp8_tflops is not None for o in result.options)
    a800 = [r for r in result.rejected if r.gpu == "A800"]
    assert a800 and all("precision" in r.failed for r in a800)
    assert "no FP8 tensor cores" in a800[0].why
    h100 = next(o for o in result.options if o.gpu == "H100" and o.nodes == 1)
    bf16 = plan(request.replace(precision="bf16"), catalog).options
    h100_bf16 = next(o for o in bf16 if o.gpu == "H100" and o.nodes == 1)
    assert h100.seconds < h100_bf16.seconds  # FP8 is faster, but not 2x
    assert (h100_bf16.seconds - 600) / (h100.seconds - 600) == pytest.approx(1.15, rel=0.01)
