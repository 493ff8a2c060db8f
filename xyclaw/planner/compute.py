"""Time from FLOPs: training FLOPs over the cluster's achievable FLOP/s; inference throughput.

Training FLOPs (Kaplan et al. 2020): ``6 N D`` for N parameters and D tokens
(2 N D forward, 4 N D backward). LoRA freezes the base weights, so the backward
pass still computes gradients for the activations (2 N D) but not for the
weights (2 N D saved): ``4 N D`` (the adapters add under 1%).

Achievable FLOP/s = GPUs x peak dense TFLOP/s x MFU x fabric factor, where
MFU (model FLOPs utilization, recomputation not counted) is the share of peak
a well-tuned single node reaches:

    H100 0.40, H800 0.38, H200 0.42, H20 0.50, A100-80G 0.52, A100-40G 0.48,
    A800 0.50, L40S 0.35, A10 0.35, RTX4090 0.30
    (unknown models: 0.40 with NVLink, 0.30 PCIe only)

The H100 and A100 figures are rounded down from MosaicML llm-foundry's
published benchmarks (7B-13B at 4k context on 8 GPUs: H100 bf16 40-42%, A100
80GB 55-58%, A100 40GB 45-50%); the others are assumptions: NVLink cut to
400 GB/s (A800, H800) costs a little, H20's small compute is easy to keep busy,
PCIe cards lose the most to FSDP traffic. FP8 training runs on the FP8 peak at
0.575 x MFU (llm-foundry measured about 1.15x the bf16 throughput on H100);
LoRA on an int8/int4 base runs at 0.75 x MFU for dequantization.

Time = FLOPs / achievable FLOP/s + 10 minutes to bring the cluster up (seed
003: a 128-card job is up in 10 minutes), billed like the rest.

Inference is memory-bound in decode: a step of B sequences reads the weights
once and each sequence's KV cache:

    step = (w N + B kv (P + O/2)) / (t x bandwidth x 0.6 x e_tp)
    tokens/s = B / step;  prefill = 2 N P / (t x peak x 0.5 x e_tp)
    requests/s per replica = 1 / (prefill + O / (tokens/s))

with prompt P and output O tokens, 60% of the memory bandwidth achieved, 50%
of peak in prefill, and e_tp = 0.9 over NVLink, 0.7 over PCIe when t > 1.
B is the largest batch whose KV cache fits the memory left after the weights
(paged KV: each sequence holds P + O tokens), at most 256, and small enough
that a decode step stays within 100 ms per token (seed 004's commercial
latency limit of 100 ms). A replica uses the smallest power-of-two t inside
one node where the weights plus one sequence of the full context fit;
replicas = GPUs // t.
"""

from __future__ import annotations

from dataclasses import dataclass

from xyclaw.catalog.models import GpuModel
from xyclaw.planner.memory import (
    ModelShape,
    inference_weight_bytes,
    kv_bytes_per_token,
    usable_bytes,
)
from xyclaw.planner.request import PlanRequest, Precision, Task

SETUP_SECONDS = 600
MFU_BF16 = {
    "H100": 0.40,
    "H800": 0.38,
    "H200": 0.42,
    "H20": 0.50,
    "A100-80G": 0.52,
    "A100-40G": 0.48,
    "A800": 0.50,
    "L40S": 0.35,
    "A10": 0.35,
    "RTX4090": 0.30,
}
MFU_FALLBACK = {"nvlink": 0.40, "pcie": 0.30}
FP8_EFFICIENCY = 0.575
QUANTIZED_LORA_EFFICIENCY = 0.75
DECODE_BANDWIDTH_EFFICIENCY = 0.6
PREFILL_EFFICIENCY = 0.5
TP_EFFICIENCY = {"nvlink": 0.9, "pcie": 0.7}
MAX_BATCH = 256
TOKEN_LATENCY_LIMIT_S = 0.100


def training_flops(task: Task, params: int, tokens: int) -> float:
    """6 N D, or 4 N D for LoRA (no weight gradients for the frozen base)."""
    per_token = 4 if task is Task.FINETUNE_LORA else 6
    return float(per_token) * params * tokens


def flops_formula(task: Task) -> str:
    return "4·N·D" if task is Task.FINETUNE_LORA else "6·N·D"


def training_peak_flops(gpu: GpuModel, precision: Precision) -> float | None:
    """Peak dense FLOP/s used for training, or None when the GPU cannot run ``precision``."""
    if precision is Precision.FP8:
        return None if gpu.fp8_tflops is None else gpu.fp8_tflops * 1e12
    return gpu.bf16_tflops * 1e12


def training_mfu(gpu: GpuModel, task: Task, precision: Precision) -> float:
    """Single-node MFU for ``gpu`` at ``precision`` (see the module docstring)."""
    mfu = MFU_BF16.get(gpu.name, MFU_FALLBACK[gpu.interconnect])
    if precision is Precision.FP8:
        mfu *= FP8_EFFICIENCY
    elif task is Task.FINETUNE_LORA and precision in (Precision.INT8, Precision.INT4):
        mfu *= QUANTIZED_LORA_EFFICIENCY
    return mfu


@dataclass(frozen=True, slots=True)
class Replica:
    """How one inference replica sits on a node: TP degree, batch, memory, throughput."""

    tensor_parallel: int
    batch: int
    memory_per_gpu: float
    requests_per_second: float
    step_seconds: float
    problem: str | None  # "memory" or "latency" when no replica can serve

    @property
    def fits(self) -> bool:
        return self.problem is None


def plan_replica(
    gpu: GpuModel, gpus_per_node: int, request: PlanRequest, shape: ModelShape
) -> Replica:
    """The smallest tensor-parallel replica of the model on ``gpu`` that serves a sequence."""
    weights = inference_weight_bytes(request.precision, request.params)
    kv_token = kv_bytes_per_token(shape)
    kv_full = kv_token * request.context
    prompt, output = request.prompt_length, request.output_length
    kv_held = kv_token * (prompt + output)
    kv_average = kv_token * (prompt + output / 2)
    usable = usable_bytes(gpu.memory_bytes)
    peak = gpu.bf16_tflops * 1e12
    if request.precision is Precision.FP8 and gpu.fp8_tflops is not None:
        peak = gpu.fp8_tflops * 1e12
    tp = 1
    last: Replica | None = None
    while tp <= gpus_per_node:
        if gpus_per_node % tp == 0:
            efficiency = 1.0 if tp == 1 else TP_EFFICIENCY[gpu.interconnect]
            bandwidth = tp * gpu.memory_bandwidth_gbs * 1e9 * DECODE_BANDWIDTH_EFFICIENCY
            bandwidth *= efficiency
            room = tp * usable - weights
            memory_batch = int(room // kv_held) if room >= kv_full else 0
            latency_batch = int((TOKEN_LATENCY_LIMIT_S * bandwidth - weights) // kv_average)
            batch = min(memory_batch, latency_batch, MAX_BATCH)
            if batch >= 1:
                step = (weights + batch * kv_average) / bandwidth
                prefill = (
                    2.0 * request.params * prompt / (tp * peak * PREFILL_EFFICIENCY * efficiency)
                )
                per_request = prefill + output * step / batch
                return Replica(
                    tensor_parallel=tp,
                    batch=batch,
                    memory_per_gpu=(weights + max(batch * kv_held, kv_full)) / tp,
                    requests_per_second=1.0 / per_request,
                    step_seconds=step,
                    problem=None,
                )
            problem = "memory" if memory_batch < 1 else "latency"
            last = Replica(
                tensor_parallel=tp,
                batch=0,
                memory_per_gpu=(weights + kv_full) / tp,
                requests_per_second=0.0,
                step_seconds=(weights + kv_average) / bandwidth,
                problem=problem,
            )
        tp *= 2
    assert last is not None, "tensor parallel 1 always divides the node"
    return last
