"""The rules brain remembers the figures said for a plan for the rest of the conversation
(issue 28, item 1): "Start the LoRA fine-tune on my cluster" after planning a 7B LoRA
fine-tune and renting does not ask "How large is the model?"; it asks to launch the LoRA
sample on the rented cluster. A later plan request that names no size refines the last plan.
On one node that sample is ``lora7b-1node`` (no HF_TOKEN needed); on two or more it is
``lora-2node``, and its card names the HF_TOKEN this machine lacks (the window asks for it).
"""

from __future__ import annotations

import pytest

from tests.agent.conftest import Events, MakeRuntime, World
from xyclaw.agent.types import Decision


def test_start_the_lora_fine_tune_after_planning_7b_asks_to_launch_it_on_my_cluster(
    world: World, make_runtime: MakeRuntime
) -> None:
    rt = make_runtime()
    cid = rt.new_conversation()
    plan = rt.send(cid, "plan a LoRA fine-tune of a 7B model", Events())
    [call] = plan.tool_calls
    assert call.args["model_params"] == 7_000_000_000
    rent = rt.send(cid, "rent option 1", Events())
    assert rent.pending_approval is not None
    rt.answer(cid, Decision.approve(rent.pending_approval), Events())
    [cluster] = world.engine.clusters()

    start = rt.send(cid, "Start the LoRA fine-tune on my cluster", Events())
    assert "How large is the model" not in start.reply
    card = start.pending_approval
    assert card is not None and card.tool == "launch_job", start.reply
    # one node rented: the one-node sample, which needs no HF_TOKEN
    assert len(cluster.nodes) == 1, cluster
    assert card.args == {"spec": "lora7b-1node", "cluster": cluster.name}
    assert "secrets" not in (card.details or {})
    rt.answer(cid, Decision("reject"), Events())

    again = rt.send(cid, "plan it on 16 GPUs", Events())
    [replan] = again.tool_calls
    assert replan.tool == "plan"
    assert replan.args == {"task": "finetune-lora", "model_params": 7_000_000_000, "gpus": 16}
    assert "How large is the model" not in again.reply


def test_a_new_size_starts_a_new_plan_and_a_new_conversation_remembers_nothing(
    world: World, make_runtime: MakeRuntime
) -> None:
    rt = make_runtime()
    cid = rt.new_conversation()
    rt.send(cid, "plan a LoRA fine-tune of a 7B model on 8 GPUs, budget 500 CNY", Events())
    bigger = rt.send(cid, "pretrain a 13B model", Events())
    [call] = bigger.tool_calls
    assert call.args == {"task": "pretrain", "model_params": 13_000_000_000}

    zh = rt.send(cid, "用LoRA微调", Events())
    [call] = zh.tool_calls
    assert call.args == {"task": "finetune-lora", "model_params": 13_000_000_000}

    fresh = rt.send(rt.new_conversation(), "plan a LoRA fine-tune", Events())
    assert fresh.tool_calls == []
    assert "How large is the model" in fresh.reply


def test_start_the_lora_fine_tune_on_a_two_node_cluster_launches_the_two_node_sample(
    world: World, make_runtime: MakeRuntime, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("HF_TOKEN", raising=False)
    rt = make_runtime()
    cid = rt.new_conversation()
    rt.send(cid, "plan a LoRA fine-tune of a 7B model on 16 GPUs", Events())
    rent = rt.send(cid, "rent option 1", Events())
    assert rent.pending_approval is not None
    rt.answer(cid, Decision.approve(rent.pending_approval), Events())
    [cluster] = world.engine.clusters()
    assert cluster.gpu_count // cluster.gpus_per_node == 2, cluster

    start = rt.send(cid, "Start the LoRA fine-tune on my cluster", Events())
    card = start.pending_approval
    assert card is not None and card.tool == "launch_job", start.reply
    assert card.args == {"spec": "lora-2node", "cluster": cluster.name}
    assert card.details["secrets"] == ["HF_TOKEN"]  # asked for when approved, in the window
    rt.answer(cid, Decision("reject"), Events())

    said = rt.send(cid, "Start the LoRA fine-tune on 1 node of my cluster", Events())
    assert said.pending_approval is not None
    assert said.pending_approval.args["spec"] == "lora7b-1node"
    rt.answer(cid, Decision("reject"), Events())
