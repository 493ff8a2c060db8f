"""The LLM brain against a scripted OpenAI-compatible server over real HTTP on 127.0.0.1."""

from __future__ import annotations

from typing import Any

import pytest

from tests.agent import fake_llm as f
from xyclaw.agent.brain import AgentProfile, Price, ToolDef
from xyclaw.agent.llm import LlmBrain
from xyclaw.agent.presets import Endpoint
from xyclaw.agent.types import Effect
from xyclaw.errors import AgentError

AGENT = AgentProfile("planner", "plans", ("plan",), "You plan.")
PLAN = ToolDef("plan", "plan a job", {"type": "object", "properties": {}}, Effect.READ)


def brain(
    llm: f.FakeLLM,
    *,
    key: str = f.API_KEY,
    model: str = "fake-model",
    timeout: float = 5.0,
    retries: int = 2,
) -> LlmBrain:
    endpoint = Endpoint(
        "custom", llm.base_url, model, key, timeout, retries, Price(2_000_000, 8_000_000, "CNY")
    )
    return LlmBrain(endpoint, backoff_s=0.01)


def step(b: LlmBrain, deltas: list[tuple[str, str]] | None = None) -> Any:
    sink = deltas if deltas is not None else []
    return b.step(
        AGENT,
        [{"role": "user", "content": "hi"}],
        [PLAN],
        {},
        lambda kind, text: sink.append((kind, text)),
    )


def test_streamed_text_with_usage_and_reasoning_kept_apart() -> None:
    with f.FakeLLM([f.text("Three options.", reasoning="Let me think")]) as llm:
        deltas: list[tuple[str, str]] = []
        reply = step(brain(llm), deltas)
    assert reply.text == "Three options."
    assert reply.reasoning == "Let me think"
    assert "".join(t for k, t in deltas if k == "text") == "Three options."
    assert "".join(t for k, t in deltas if k == "reasoning") == "Let me think"
    assert (reply.tokens_in, reply.usage_reported) == (50, True)
    assert llm.requests[0]["stream_options"] == {"include_usage": True}
    assert llm.requests[0]["tools"][0]["function"]["name"] == "plan"


def test_tokens_are_counted_when_the_server_sends_no_usage() -> None:
    with f.FakeLLM([f.text("一二三四五六七八", usage=False)]) as llm:
        reply = step(brain(llm))
    assert not reply.usage_reported
    assert reply.tokens_out == 8  # one per CJK character
    assert reply.tokens_in > 0


def test_parallel_tool_calls_and_malformed_arguments() -> None:
    script = [f.calls(("plan", {"task": "inference"}), ("offers", '{"gpu": "A800"'))]
    with f.FakeLLM(script) as llm:
        reply = step(brain(llm))
    first, second = reply.tool_calls
    assert (first.name, first.args) == ("plan", {"task": "inference"})
    assert second.name == "offers" and second.args is None and "not valid JSON" in second.error
    assert first.id != second.id


def test_429_then_5xx_are_retried_then_answered() -> None:
    with f.FakeLLM([f.error(429, retry_after=0), f.error(500), f.text("ok")]) as llm:
        reply = step(brain(llm, retries=2))
    assert reply.text == "ok" and len(llm.requests) == 3


def test_429_past_the_retries_is_a_clear_error() -> None:
    with (
        f.FakeLLM([f.error(429, retry_after=0)] * 3) as llm,
        pytest.raises(AgentError, match="rate limiting"),
    ):
        step(brain(llm, retries=1))
    assert len(llm.requests) == 2


def test_wrong_key_unknown_model_and_timeout_are_clear_and_keyless() -> None:
    with f.FakeLLM([f.hang(2.0)]) as llm:
        with pytest.raises(AgentError, match="refused the API key") as wrong:
            step(brain(llm, key="sk-wrong-secret"))
        assert "sk-wrong-secret" not in str(wrong.value)
        assert "model-key" in str(wrong.value)
        with pytest.raises(AgentError, match="does not exist"):
            step(brain(llm, model="no-such-model"))
        with pytest.raises(AgentError, match="no answer within"):
            step(brain(llm, timeout=1.0))


def test_route_picks_a_specialist_by_handoff() -> None:
    sup = AgentProfile("supervisor", "routes", (), "Route.")
    with f.FakeLLM(router=lambda body: "historian") as llm:
        route = brain(llm).route(
            [{"role": "user", "content": "what did I spend"}],
            [AGENT, AgentProfile("historian", "past", ("cost",), "p")],
            sup,
            {},
        )
    assert route.agent == "historian"
    assert llm.requests[0]["tools"][0]["function"]["parameters"]["properties"]["agent"]["enum"] == [
        "planner",
        "historian",
    ]
