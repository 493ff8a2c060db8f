"""The graph with the LLM brain on the simulated cloud: plan, approvals, audit, injection."""

from __future__ import annotations

import json

from tests.agent import fake_llm as f
from tests.agent.conftest import Events, MakeRuntime, World
from xyclaw.agent.types import ApprovalRequested, Decision, PlanShown, ReplyDone, TokenDelta
from xyclaw.store import conversations as conv

PLAN_ARGS = {"task": "finetune-lora", "model_params": 13e9, "gpus": 8, "budget": 5000}


def test_plan_then_rent_goes_through_one_approval_bound_to_the_quote(
    world: World, make_runtime: MakeRuntime
) -> None:
    router = lambda body: "provisioner" if "rent" in json.dumps(body["messages"][-1]) else "planner"  # noqa: E731
    with f.FakeLLM([f.call("plan", PLAN_ARGS), f.text("Option 1 is best.")], router=router) as llm:
        rt = make_runtime(llm)
        cid = rt.new_conversation()
        events = Events()
        result = rt.send(cid, "LoRA 13B on 8 GPUs, at most 5000 CNY", events)
        assert result.agent == "planner"
        assert result.reply == "Option 1 is best."
        assert [c.tool for c in result.tool_calls] == ["plan"]
        assert result.tool_calls[0].status == "done"
        shown = events.of(PlanShown)
        assert shown and shown[0].options
        plan_id = shown[0].plan_id
        assert "".join(e.text for e in events.of(TokenDelta)) == "Option 1 is best."
        assert result.tokens_in > 0

        llm.add(f.call("create_cluster", {"plan_id": plan_id, "option": 1}))
        events = Events()
        pending = rt.send(cid, "rent option 1", events)
        assert pending.pending_approval is not None
        card = pending.pending_approval
        assert card.effect == "spend" and card.tool == "create_cluster"
        assert card.details["digest"] and card.details["estimated_total"]
        assert not card.flagged_after_remote_output
        assert events.of(ApprovalRequested)
        assert world.engine.clusters() == []  # nothing rented before the yes
        assert rt.pending_approval(cid) == card

        llm.add(f.text("Rented."))
        events = Events()
        done = rt.answer(cid, Decision("approve"), events)
        assert done.reply == "Rented."
        assert len(world.engine.clusters()) == 1
        rows = conv.list_tool_calls(rt.store, cid)
        rent = next(r for r in rows if r["tool"] == "create_cluster")
        assert (rent["status"], rent["decision"], rent["decided_by"]) == ("done", "approve", "user")
        assert rent["result"]["quote_digest"] == card.details["digest"]
        assert events.of(ReplyDone)
        assert rt.pending_approval(cid) is None
