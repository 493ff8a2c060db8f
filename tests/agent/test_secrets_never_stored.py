"""A model and an endpoint that echo the API key (issue 26, point 1): after the conversation
the key is in no byte of the history database, the checkpoint database, their WAL files or
xyclaw.log, nor in what the turn showed; also with the key given only as XYCLAW_LLM_API_KEY
and an endpoint whose HTTP 400 error text quotes it."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from tests.agent import fake_llm as f
from tests.agent.conftest import Events, MakeRuntime, World, _config
from xyclaw.agent.runtime import AgentRuntime
from xyclaw.agent.types import ReasoningDelta, TokenDelta, ToolFinished
from xyclaw.logsetup import configure_logging
from xyclaw.secrets import REGISTRY, mask
from xyclaw.store import conversations as conv

KEY = f.API_KEY


def _files(world: World) -> list[Path]:
    paths = world.paths
    found = [*paths.data_dir.glob("xyclaw.db*"), *paths.agent_checkpoints.parent.glob("*")]
    return [p for p in {*found, paths.log_file} if p.is_file()]


def _hits(world: World) -> dict[str, int]:
    for handler in logging.getLogger("xyclaw").handlers:
        handler.flush()
    return {str(p): p.read_bytes().count(KEY.encode()) for p in _files(world)}


def _router(body: dict) -> str:  # type: ignore[type-arg]
    return "planner"


def test_a_model_that_echoes_its_key_leaves_it_nowhere(
    world: World, make_runtime: MakeRuntime
) -> None:
    configure_logging(world.paths.log_file, "DEBUG")
    echo = f.Reply(
        text=f"Using the key {KEY} as you asked.",
        reasoning=f"The key is {KEY}; I will plan with it.",
        tool_calls=[
            (
                "plan",
                json.dumps({"task": "finetune-lora", "model_params": 7e9, "gpu": KEY, "note": KEY}),
            )
        ],
        pieces=5,
    )
    script = [echo, f.text(f"The plan failed for GPU {KEY}.", reasoning=f"again {KEY}")]
    with f.FakeLLM(script, router=_router) as llm:
        rt = make_runtime(llm)
        cid = rt.new_conversation()
        events = Events()
        result = rt.send(cid, f"plan a LoRA of 7B; my key is {KEY}", events)
        logging.getLogger("xyclaw.agent").info("the model answered %s", result.reply)
        assert result.reply == "The plan failed for GPU ***."
        shown = [e.text for e in events.of(TokenDelta)] + [
            e.text for e in events.of(ReasoningDelta)
        ]
        assert shown and all(KEY not in t for t in shown)
        finished = events.of(ToolFinished)
        assert finished and KEY not in repr(finished)
        calls = conv.list_tool_calls(rt.store, cid)
        assert calls and calls[0]["args"]["gpu"] == "***"
        messages = conv.list_messages(rt.store, cid)
        assert any("***" in (m["content"] or "") for m in messages)
        assert KEY not in repr(messages) and KEY not in repr(calls)
        # The checkpoint is still read back whole (masking kept msgpack's lengths).
        state = rt.graph.get_state(rt._config(cid)).values
        assert state["messages"] and KEY not in repr(state["messages"][:1])
        during = _hits(world)
        rt.close()
    world.engine.close()
    assert sum(during.values()) == 0, during
    assert sum(_hits(world).values()) == 0, _hits(world)
    assert world.paths.log_file.stat().st_size > 0


def test_a_key_only_in_the_environment_quoted_by_an_error_is_masked(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    REGISTRY.forget_all()  # nothing registered by earlier tests in this process
    assert mask(KEY) == KEY
    monkeypatch.setenv("XYCLAW_LLM_API_KEY", KEY)
    configure_logging(world.paths.log_file, "DEBUG")
    quoted = f"bad request for key {KEY}: unknown field"
    with f.FakeLLM([f.fail(400, quoted)], router=_router) as llm:
        config = _config(
            world.paths,
            {
                "XYCLAW_LLM_PRESET": "custom",
                "XYCLAW_LLM_BASE_URL": llm.base_url,
                "XYCLAW_LLM_MODEL": "fake-model",
                "XYCLAW_LLM_MAX_RETRIES": "0",
            },
        )
        rt = AgentRuntime(world.engine, store=world.store, paths=world.paths, config=config)
        cid = rt.new_conversation()
        result = rt.send(cid, "plan something", Events())
        rt.close()
    assert result.agent == "xyclaw"
    assert "HTTP 400" in result.reply and "bad request for key ***" in result.reply
    assert KEY not in result.reply
    world.engine.close()
    assert sum(_hits(world).values()) == 0, _hits(world)
    assert "HTTP 400" in world.paths.log_file.read_text()
