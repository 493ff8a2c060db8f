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
        done = rt.answer(cid, Decision.approve(card), events)
        assert done.reply == "Rented."
        assert len(world.engine.clusters()) == 1
        rows = conv.list_tool_calls(rt.store, cid)
        rent = next(r for r in rows if r["tool"] == "create_cluster")
        assert (rent["status"], rent["decision"], rent["decided_by"]) == ("done", "approve", "user")
        assert rent["result"]["quote_digest"] == card.details["digest"]
        assert events.of(ReplyDone)
        assert rt.pending_approval(cid) is None


def test_reasoning_is_shown_apart_and_never_sent_back(
    world: World, make_runtime: MakeRuntime
) -> None:
    from xyclaw.agent.types import ReasoningDelta

    script = [
        f.text("Use RoCE for 8 GPUs.", reasoning="One node, so NVLink only..."),
        f.text("Still RoCE.", usage=False),
    ]
    with f.FakeLLM(script, router=lambda body: "planner") as llm:
        rt = make_runtime(
            llm,
            XYCLAW_LLM_PRICE_IN_PER_MILLION="2",
            XYCLAW_LLM_PRICE_OUT_PER_MILLION="8",
            XYCLAW_LLM_PRICE_CURRENCY="CNY",
        )
        cid = rt.new_conversation()
        events = Events()
        first = rt.send(cid, "RoCE or IB?", events)
        assert first.reply == "Use RoCE for 8 GPUs."
        assert first.reasoning == "One node, so NVLink only..."
        assert "".join(e.text for e in events.of(ReasoningDelta)) == first.reasoning
        assert "NVLink" not in "".join(e.text for e in events.of(TokenDelta))
        # Routing (50 in) + the answer (50 in): the server's usage, priced per million.
        assert first.tokens_in == 100 and first.cost_micros > 0 and first.currency == "CNY"
        second = rt.send(cid, "and for 16?", Events())
        sent = json.dumps(llm.chat_requests[-1]["messages"])
        assert "NVLink only" not in sent and "Use RoCE for 8 GPUs." in sent
        assert second.tokens_out > 0  # counted here: the server sent no usage
        info = rt.conversation(cid)
        assert info.tokens_in == first.tokens_in + second.tokens_in
        assert info.cost_micros == first.cost_micros + second.cost_micros
        [reply, _] = [m for m in rt.messages(cid) if m.role == "assistant"]
        assert reply.reasoning == first.reasoning and reply.agent == "planner"


def test_a_wrong_key_fails_the_turn_with_a_clear_message_and_no_traceback(
    world: World, make_runtime: MakeRuntime
) -> None:
    from xyclaw.agent.presets import key_secret_name
    from xyclaw.agent.types import TurnFailed

    with f.FakeLLM([f.text("hi")], router=lambda body: "planner") as llm:
        rt2 = make_runtime(llm, api_key="sk-wrong")
        rt = make_runtime(llm)
        assert world.engine.secrets.get(key_secret_name("custom")) == f.API_KEY
        cid = rt2.new_conversation()
        events = Events()
        result = rt2.send(cid, "hello", events)
        assert result.agent == "xyclaw" and "refused the API key" in result.reply
        assert "Traceback" not in result.reply and "sk-wrong" not in result.reply
        assert events.of(TurnFailed)
        # The same conversation goes on with a good key.
        ok = rt.send(cid, "hello again", Events())
        assert ok.reply == "hi"


def test_a_server_that_reuses_tool_call_ids_still_gets_each_call_run_once(
    world: World, make_runtime: MakeRuntime
) -> None:
    """Every reply's first call is call_0 (as some local servers number them): the rent in the
    second turn must not be taken for the plan of the first one, which had the same id."""
    router = lambda body: "provisioner" if "rent" in json.dumps(body["messages"][-1]) else "planner"  # noqa: E731
    script = [f.call("plan", PLAN_ARGS), f.text("Option 1 is best.")]
    with f.FakeLLM(script, router=router, ids_per_reply=True) as llm:
        rt = make_runtime(llm)
        cid = rt.new_conversation()
        planned = rt.send(cid, "LoRA 13B on 8 GPUs, at most 5000 CNY", Events())
        plan_id = planned.tool_calls[0].result["plan_id"]
        llm.add(f.call("create_cluster", {"plan_id": plan_id, "option": 1}))
        pending = rt.send(cid, "rent option 1", Events())
        assert pending.pending_approval is not None
        llm.add(f.text("Rented."))
        done = rt.answer(cid, Decision.approve(pending.pending_approval), Events())
        model_ids = [
            c["id"] for r in llm.requests for m in r["messages"] for c in m.get("tool_calls") or []
        ]
    assert done.reply == "Rented."
    assert set(model_ids) == {"call_0"}  # the server did reuse its ids
    assert len(world.engine.clusters()) == 1
    rows = conv.list_tool_calls(rt.store, cid)
    assert [(r["tool"], r["status"]) for r in rows] == [
        ("plan", "done"),
        ("create_cluster", "done"),
    ]
    assert len({r["call_id"] for r in rows}) == 2
