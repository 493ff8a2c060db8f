"""The LLM brain against endpoints that misbehave (issue 26): each a named error saying what
the endpoint sent, a deadline on the whole answer, ``max_tokens`` sent, and the key masked
wherever a model or a server echoes it. Real HTTP on 127.0.0.1 (tests.agent.fake_llm)."""

from __future__ import annotations

import time
from typing import Any

import pytest

from tests.agent import fake_llm as f
from xyclaw.agent.brain import AgentProfile, Price, ToolDef
from xyclaw.agent.llm import (
    AnswerDeadlineError,
    EndpointEmptyError,
    EndpointMalformedError,
    EndpointNotAStreamError,
    LlmBrain,
)
from xyclaw.agent.presets import Endpoint
from xyclaw.agent.types import Effect
from xyclaw.errors import AgentError

AGENT = AgentProfile("planner", "plans", ("plan",), "You plan.")
PLAN = ToolDef("plan", "plan a job", {"type": "object", "properties": {}}, Effect.READ)


def brain(llm: f.FakeLLM, *, timeout: float = 5.0) -> LlmBrain:
    endpoint = Endpoint("custom", llm.base_url, "fake-model", f.API_KEY, timeout, 0, Price())
    return LlmBrain(endpoint, backoff_s=0.01)


def step(b: LlmBrain, sink: list[tuple[str, str]] | None = None, *, user: str = "hi") -> Any:
    out = sink if sink is not None else []
    return b.step(
        AGENT,
        [{"role": "user", "content": user}],
        [PLAN],
        {},
        lambda kind, text: out.append((kind, text)),
    )


def test_a_stream_line_that_is_not_json_is_named_and_quoted() -> None:
    with (
        f.FakeLLM([f.raw('data: {"choices": []}\n\ndata: {not json\n\n')]) as llm,
        pytest.raises(EndpointMalformedError) as caught,
    ):
        step(brain(llm))
    assert "not JSON" in caught.value.message and "{not json" in caught.value.message
    assert caught.value.exit_code == 2
    zh, _ = caught.value.in_language("zh")
    assert "不是 JSON" in zh


def test_an_empty_choices_list_is_an_error_not_an_empty_answer() -> None:
    with (
        f.FakeLLM([f.chunks({"choices": []}, {"choices": []})]) as llm,
        pytest.raises(EndpointEmptyError, match=r"2 chunk\(s\), none with a choice"),
    ):
        step(brain(llm))


def test_null_deltas_are_an_error_that_says_so() -> None:
    none = {"choices": [{"index": 0, "delta": None, "finish_reason": None}]}
    with (
        f.FakeLLM([f.chunks(none, none, none)]) as llm,
        pytest.raises(EndpointEmptyError, match="deltas were empty or null"),
    ):
        step(brain(llm))


def test_a_stream_with_no_events_at_all_is_an_error() -> None:
    with (
        f.FakeLLM([f.raw(b"")]) as llm,
        pytest.raises(EndpointEmptyError, match="without a single event"),
    ):
        step(brain(llm))


def test_an_html_page_with_status_200_is_named_with_its_title() -> None:
    page = "<html><head><title>Sign in to the proxy</title></head><body>login</body></html>"
    with (
        f.FakeLLM([f.raw(page, "text/html; charset=utf-8")]) as llm,
        pytest.raises(EndpointNotAStreamError) as caught,
    ):
        step(brain(llm))
    assert "web page (text/html: Sign in to the proxy)" in caught.value.message
    assert "/v1" in (caught.value.hint or "")


def test_a_reasoning_only_reply_shows_the_reasoning() -> None:
    script = [f.text("", reasoning="The user wants 8 GPUs, so"), f.text("", reasoning="想一想")]
    with f.FakeLLM([*script, f.text("")]) as llm:
        sink: list[tuple[str, str]] = []
        b = brain(llm)
        reply = step(b, sink)
        assert "gave no answer" in reply.text and "The user wants 8 GPUs, so" in reply.text
        assert ("text", reply.text) in sink  # shown, not only kept
        assert "模型没有给出回答" in step(b, user="你好").text
        # Neither text nor reasoning: an error, never an empty reply.
        with pytest.raises(EndpointEmptyError, match="deltas were empty or null"):
            step(b)


def test_the_whole_answer_has_a_deadline_and_max_tokens_is_sent() -> None:
    with f.FakeLLM([f.slow("x" * 40, every_s=0.5)]) as llm:
        started = time.monotonic()
        with pytest.raises(AnswerDeadlineError) as caught:
            step(brain(llm, timeout=2.0))
        elapsed = time.monotonic() - started
    # 40 pieces half a second apart take 20 s; the deadline ends it at about 2 s.
    assert elapsed < 8, elapsed
    assert "had not finished its answer after 2 s" in caught.value.message
    assert llm.requests[0]["max_tokens"] == 4096


def test_a_stream_the_deadline_ends_cleanly_is_still_late_not_a_short_answer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The deadline shuts the stream's socket; the read it interrupts may end the stream as if
    the server had finished (end of file, no error). That cut answer was returned as the whole
    one, now and then (a test of the deadline failed twice in a row under load)."""
    import threading

    from xyclaw.agent import llm as llm_module

    shut = threading.Event()

    def ends_at_the_next_chunk(stream: Any) -> Any:
        for chunk in stream:
            if shut.is_set():
                return  # as a read of a shut socket does: the stream just ends
            yield chunk

    monkeypatch.setattr(llm_module, "_chunks", ends_at_the_next_chunk)
    monkeypatch.setattr(llm_module, "_close_quietly", lambda stream: shut.set())
    with (
        f.FakeLLM([f.slow("x" * 12, every_s=0.25)]) as llm,
        pytest.raises(AnswerDeadlineError) as caught,
    ):
        step(brain(llm, timeout=1.0))
    assert "had not finished its answer after 1 s" in caught.value.message


def test_a_key_the_model_echoes_is_masked_in_the_reply_and_in_every_delta() -> None:
    said = f"Your key is {f.API_KEY}, keep it safe. Reasoning done."
    with f.FakeLLM(
        [
            f.Reply(text=said, reasoning=f"I will quote {f.API_KEY}", pieces=7),
            f.call("plan", {"note": f.API_KEY}),
        ]
    ) as llm:
        sink: list[tuple[str, str]] = []
        b = brain(llm)
        reply = step(b, sink)
        call = step(b).tool_calls[0]
    assert f.API_KEY not in reply.text and "Your key is ***" in reply.text
    assert f.API_KEY not in (reply.reasoning or "")
    streamed = "".join(t for k, t in sink if k == "text")
    assert streamed == reply.text
    assert f.API_KEY not in "".join(t for k, t in sink if k == "reasoning")
    assert call.args == {"note": "***"} and f.API_KEY not in call.arguments


def test_an_error_text_that_quotes_the_key_is_masked() -> None:
    quoted = f"bad request for key {f.API_KEY}: unknown field"
    with (
        f.FakeLLM([f.fail(400, quoted)]) as llm,
        pytest.raises(AgentError) as caught,
    ):
        step(brain(llm))
    assert "HTTP 400" in str(caught.value)
    assert f.API_KEY not in str(caught.value) and "bad request for key ***" in str(caught.value)
