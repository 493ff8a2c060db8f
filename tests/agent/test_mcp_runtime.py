"""The runtime's side of issue 37, in process on the simulated cloud: an MCP client's card
takes a no from `ask --reject` but a yes only from the window or a terminal; no allowance
covers an MCP client's call; no answer to any card is taken through MCP."""

from __future__ import annotations

import pytest

from tests.agent.conftest import MakeRuntime
from xyclaw.agent.mcp_server import McpTools
from xyclaw.agent.types import Decision
from xyclaw.errors import UsageError

PLAN = {"task": "finetune-lora", "model_params": 7e9, "gpus": 8, "budget": 2000}


def _rent(tools: McpTools) -> dict:
    plan, failed = tools.call("plan", dict(PLAN), "codex")
    assert not failed
    rent, failed = tools.call("rent", {"plan_id": plan["plan_id"], "option": 1}, "codex")
    assert not failed and rent["status"] == "pending", rent
    return rent


def test_a_no_is_taken_from_ask_but_a_yes_only_from_a_person(make_runtime: MakeRuntime) -> None:
    runtime = make_runtime()
    tools = McpTools(runtime)
    rent = _rent(tools)
    cid, card = rent["conversation"], rent["card"]
    waiting = runtime.pending_approval(cid)
    assert waiting is not None and waiting.action["asker_name"] == "codex"
    for face in ("ask", "no terminal", None, "mcp"):
        with pytest.raises(UsageError, match="MCP"):
            runtime.answer(cid, Decision("approve", digest=card, face=face), lambda e: None)
        with pytest.raises(UsageError, match="MCP"):
            runtime.answer(cid, Decision("edit", args={"option": 2}, face=face), lambda e: None)
    assert tools.call("card_status", {"card": card}, "codex")[0]["status"] == "pending"
    with pytest.raises(UsageError, match="through MCP"):
        runtime.answer(cid, Decision("reject", face="mcp"), lambda e: None)

    runtime.answer(cid, Decision("reject", by="cli", face="ask"), lambda e: None)
    status, _ = tools.call("card_status", {"card": card}, "codex")
    assert (status["status"], status["decided_by"]) == ("rejected", "cli")
    assert runtime.engine.clusters() == []


def test_no_allowance_covers_an_mcp_clients_rent(make_runtime: MakeRuntime) -> None:
    # a rental this cheap would run without asking if an agent asked for it
    runtime = make_runtime(XYCLAW_AGENTS_SPEND_ALLOWANCE="100000")
    assert runtime.hooks.spend_allowance_micros > 0
    rent = _rent(McpTools(runtime))
    assert rent["details"]["tainted"]
    assert runtime.engine.clusters() == []


def test_no_card_is_answered_through_mcp_whoever_asked(make_runtime: MakeRuntime) -> None:
    runtime = make_runtime()
    cid = runtime.new_conversation()
    runtime.send(cid, "plan a LoRA fine-tune of a 7B model on 8 GPUs", lambda e: None)
    asked = runtime.send(cid, "rent option 1", lambda e: None)
    card = asked.pending_approval
    assert card is not None and card.action["asked_by"] == "agent"
    with pytest.raises(UsageError, match="through MCP"):
        runtime.answer(cid, Decision.approve(card, face="mcp"), lambda e: None)
    assert runtime.pending_approval(cid) is not None
    # the same card from `ask --approve` is the CLI's documented path (not an MCP client's)
    done = runtime.answer(cid, Decision.approve(card, by="cli", face="ask"), lambda e: None)
    assert [c.status for c in done.tool_calls] == ["done"]


def test_a_call_that_cannot_be_prepared_says_why_and_leaves_no_card(
    make_runtime: MakeRuntime,
) -> None:
    runtime = make_runtime()
    tools = McpTools(runtime)
    body, failed = tools.call("rent", {"plan_id": 999, "option": 1}, "codex")
    assert failed and body["status"] == "failed" and "999" in str(body["error"])
    assert runtime.pending_approval(int(tools.cid or 0)) is None
    body, failed = tools.call("release", {"cluster": "no-such-cluster"}, "codex")
    assert failed and "no-such-cluster" in str(body["error"])
