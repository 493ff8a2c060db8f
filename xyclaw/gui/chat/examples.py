"""Requests offered as chips on an empty chat: what the agents (the rules brain too) answer."""

from __future__ import annotations

EXAMPLES: tuple[str, ...] = (
    "LoRA fine-tune a 13B model on 8 GPUs, budget 500",
    "Pre-train a 7B model on 100B tokens as cheaply as possible",
    "What is running now and what has it cost today?",
    "RoCE or InfiniBand for 16 A800s?",
    "用 8 张 A800 对 13B 模型做 LoRA 微调，预算 500 元",
    "现在有哪些集群在运行？今天花了多少钱？",
    "释放空闲的集群",
)
