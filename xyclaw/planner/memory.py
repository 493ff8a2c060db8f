"""Memory fit: how many bytes a task needs on each GPU.

The model's shape is estimated from its size alone (the planner is told "7B",
not an architecture), using the usual decoder-only proportions: layers
L = d_model / 128 and params N = 12 * L * d_model^2, so
d_model = (128 N / 12)^(1/3) rounded to a multiple of 128. That gives
d_model 4224 / 33 layers for 7B (LLaMA-7B: 4096 / 32) and 9088 / 71 for 70B
(LLaMA-2-70B: 8192 / 80).

Training (pretrain, full fine-tune), mixed precision with Adam, fully sharded
over all G GPUs of the cluster (ZeRO-3 / FSDP):

    state  = 16 bytes x N          (2 weights + 2 grads + 4 fp32 master + 4 + 4 Adam moments)
    act    = S x d x (2 L + 34) + S x V x 4
    per GPU = state / G + act

where S is the context (micro-batch of one sequence), V = 32,000 the vocabulary.
``act`` assumes full activation checkpointing with FlashAttention: each layer
keeps its bf16 input (2 S d bytes) and one layer's working set is recomputed at
a time (34 S d bytes, Korthikanti et al. 2022, without the attention-score term
that FlashAttention removes); the fp32 logits add S V 4 bytes.

LoRA: the frozen base weights at their precision w (2 bytes bf16/fp16, 1 fp8/int8,
0.5 int4 = QLoRA) plus adapters of about 1% of N trained with Adam (16 bytes each):
state = (w + 0.16) x N, sharded the same way, activations as above.

Inference: a replica holds the weights (w x N) and a KV cache, split over the
t GPUs of tensor parallelism inside one node:

    per GPU = (w N + max(B x (P + O), S) x kv) / t,   kv = 2 x L x d_kv x 2 bytes per token

with B sequences of P prompt and O output tokens in flight (a paged KV cache
holds only the tokens a sequence has), and room for at least one sequence of
the full context S. d_kv = d_model for models under 30B (multi-head
attention, as LLaMA-7B/13B) and d_model / 8 from 30B (grouped-query attention
with 8 groups, as LLaMA-2-70B).

Only 90% of a card's memory is counted as usable: the CUDA context, NCCL
buffers and allocator fragmentation take the rest.
"""

from __future__ import annotations

from dataclasses import dataclass

from xyclaw.planner.request import Precision, Task

USABLE_FRACTION = 0.90
ADAM_MIXED_BYTES = 16
LORA_TRAINABLE_FRACTION = 0.01
VOCABULARY = 32_000
GQA_FROM_PARAMS = 30_000_000_000
GQA_GROUPS = 8
KV_BYTES = 2  # bf16 K and V

WEIGHT_BYTES = {
    Precision.BF16: 2.0,
    Precision.FP16: 2.0,
    Precision.FP8: 1.0,
    Precision.INT8: 1.0,
    Precision.INT4: 0.5,
}


@dataclass(frozen=True, slots=True)
class ModelShape:
    """A decoder-only transformer's proportions, estimated from its parameter count."""

    params: int
    layers: int
    d_model: int
    kv_dim: int

    @classmethod
    def from_params(cls, params: int) -> ModelShape:
        raw = (params * 128 / 12) ** (1 / 3)
        d_model = max(128, round(raw / 128) * 128)
        layers = max(1, round(params / (12 * d_model * d_model)))
        kv_dim = d_model // GQA_GROUPS if params >= GQA_FROM_PARAMS else d_model
        return cls(params=params, layers=layers, d_model=d_model, kv_dim=kv_dim)


def usable_bytes(memory_bytes: float) -> float:
    return memory_bytes * USABLE_FRACTION


def training_state_bytes(task: Task, precision: Precision, params: int) -> float:
    """Weights, gradients and optimizer state of the whole model (before sharding)."""
    if task is Task.FINETUNE_LORA:
        per_param = WEIGHT_BYTES[precision] + ADAM_MIXED_BYTES * LORA_TRAINABLE_FRACTION
        return per_param * params
    return float(ADAM_MIXED_BYTES * params)


def activation_bytes(shape: ModelShape, context: int) -> float:
    """Activations of one sequence with full checkpointing, plus fp32 logits (per GPU)."""
    per_layer_inputs = 2 * context * shape.d_model * shape.layers
    working_layer = 34 * context * shape.d_model
    logits = 4 * context * VOCABULARY
    return float(per_layer_inputs + working_layer + logits)


def kv_bytes_per_token(shape: ModelShape) -> float:
    return float(2 * shape.layers * shape.kv_dim * KV_BYTES)


def inference_weight_bytes(precision: Precision, params: int) -> float:
    return WEIGHT_BYTES[precision] * params
