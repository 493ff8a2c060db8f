"""The LLM brain: any OpenAI-compatible endpoint through the ``openai`` package, streamed.

- usage is asked for with ``stream_options={"include_usage": True}``; a server that sends
  none (or refuses the option) gets its tokens counted here (:func:`estimate_tokens`);
- DeepSeek-style ``reasoning_content`` is streamed apart and never fed back as the answer;
- 429 and 5xx are retried with exponential backoff (``Retry-After`` honoured, capped);
- a wrong key, an unknown model, a timeout or an unreachable server become one
  :class:`AgentError` each, with a hint. The key never appears in a message.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any, Literal

from xyclaw.agent.brain import (
    AgentProfile,
    BrainReply,
    OnDelta,
    Price,
    Route,
    ToolCallRequest,
    ToolDef,
    estimate_prompt_tokens,
    estimate_tokens,
)
from xyclaw.agent.presets import NO_KEY, Endpoint
from xyclaw.errors import AgentError, OperationCancelled, XyclawError
from xyclaw.secrets import StreamMasker, mask, register_secret
from xyclaw.wording import said

log = logging.getLogger(__name__)

HANDOFF = "handoff"
_MAX_BACKOFF_S = 20.0


class EndpointReplyError(AgentError):
    """The endpoint answered, but not with an answer; the message says what it sent."""

    exit_code = 2


class EndpointMalformedError(EndpointReplyError):
    """A stream line that is not JSON (``data: {not json``)."""


class EndpointNotAStreamError(EndpointReplyError):
    """A web page (HTML) with status 200 instead of a stream of completion chunks."""


class EndpointEmptyError(EndpointReplyError):
    """No text, no tool call and no reasoning: no events, empty ``choices``, null deltas."""


class AnswerDeadlineError(AgentError):
    """The whole answer did not arrive within ``[llm] timeout_s``."""

    exit_code = 2


class LlmBrain:
    """One client per endpoint; thread-safe for one turn at a time per conversation."""

    kind: Literal["rules", "llm"] = "llm"

    def __init__(
        self,
        endpoint: Endpoint,
        *,
        backoff_s: float = 1.0,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        import openai  # slow to import (~0.5 s): only when a model is configured

        self._openai = openai
        if endpoint.api_key != NO_KEY:  # before the first request: the server may echo it
            register_secret(endpoint.api_key)
        self.endpoint = endpoint
        self.name = endpoint.display_name
        self.price: Price = endpoint.price
        self._backoff_s = backoff_s
        self._sleep = sleep
        self._stream_options = True
        self._client = openai.OpenAI(
            base_url=endpoint.base_url,
            api_key=endpoint.api_key,
            timeout=endpoint.timeout_s,
            max_retries=0,
        )

    # -- the Brain interface ----------------------------------------------------------------
    def route(
        self,
        messages: list[dict[str, Any]],
        agents: list[AgentProfile],
        supervisor: AgentProfile,
        context: dict[str, Any],
    ) -> Route:
        names = [a.name for a in agents]
        roster = "\n".join(f"- {a.name}: {a.description}" for a in agents)
        handoff = ToolDef(
            name=HANDOFF,
            description="Hand the user's latest message to one specialist.",
            parameters={
                "type": "object",
                "properties": {
                    "agent": {"type": "string", "enum": names},
                    "reason": {"type": "string"},
                },
                "required": ["agent"],
            },
            effect=_read_effect(),
        )
        system = {"role": "system", "content": f"{supervisor.prompt}\n\nSpecialists:\n{roster}"}
        reply = self._complete(
            [system, *_recent(messages, 12)],
            [handoff],
            model=supervisor.model,
            on_delta=lambda kind, text: None,
            cancel=None,
        )
        for call in reply.tool_calls:
            if call.name == HANDOFF and call.args and call.args.get("agent") in names:
                return Route(str(call.args["agent"]), None, reply.tokens_in, reply.tokens_out)
        if reply.text.strip():
            return Route(None, reply.text.strip(), reply.tokens_in, reply.tokens_out)
        return Route(None, None, reply.tokens_in, reply.tokens_out)

    def step(
        self,
        agent: AgentProfile,
        messages: list[dict[str, Any]],
        tools: list[ToolDef],
        context: dict[str, Any],
        on_delta: OnDelta,
        cancel: threading.Event | None = None,
    ) -> BrainReply:
        system = {"role": "system", "content": agent.prompt + _context_note(context)}
        return self._complete(
            [system, *(_wire(m) for m in messages)],
            tools,
            model=agent.model,
            on_delta=on_delta,
            cancel=cancel,
        )

    def close(self) -> None:
        self._client.close()

    # -- one streamed completion, with retries ----------------------------------------------
    def _complete(
        self,
        messages: list[dict[str, Any]],
        tools: list[ToolDef],
        *,
        model: str | None,
        on_delta: OnDelta,
        cancel: threading.Event | None,
    ) -> BrainReply:
        schemas = [t.openai_schema() for t in tools]
        attempt = 0
        while True:
            try:
                return self._stream_once(
                    messages, schemas, model or self.endpoint.model, on_delta, cancel
                )
            except self._openai.BadRequestError as exc:
                if self._stream_options and "stream_options" in str(exc):
                    # An older server that rejects the option: count tokens ourselves.
                    self._stream_options = False
                    continue
                raise self._translate(exc) from exc
            except (self._openai.RateLimitError, self._openai.InternalServerError) as exc:
                attempt += 1
                if attempt > self.endpoint.max_retries:
                    raise self._translate(exc) from exc
                delay = _retry_after(exc) or self._backoff_s * (2 ** (attempt - 1))
                log.info(
                    "model endpoint said %s; retry %d in %.1f s",
                    getattr(exc, "status_code", "?"),
                    attempt,
                    delay,
                )
                self._sleep(min(delay, _MAX_BACKOFF_S))
            except self._openai.APIStatusError as exc:
                if exc.status_code >= 500 and attempt < self.endpoint.max_retries:
                    attempt += 1
                    self._sleep(min(self._backoff_s * (2 ** (attempt - 1)), _MAX_BACKOFF_S))
                    continue
                raise self._translate(exc) from exc
            except self._openai.OpenAIError as exc:
                raise self._translate(exc) from exc

    def _stream_once(
        self,
        messages: list[dict[str, Any]],
        schemas: list[dict[str, Any]],
        model: str,
        on_delta: OnDelta,
        cancel: threading.Event | None,
    ) -> BrainReply:
        kwargs: dict[str, Any] = {
            "model": model,
            "messages": messages,
            "stream": True,
            "max_tokens": self.endpoint.max_tokens,
        }
        if schemas:
            kwargs["tools"] = schemas
        if self._stream_options:
            kwargs["stream_options"] = {"include_usage": True}
        # One deadline for the whole answer: the client's timeout bounds each read, and a
        # server that trickles a token a second would otherwise never time out.
        started = time.monotonic()
        stream = self._client.chat.completions.create(**kwargs)
        self._refuse_a_page(stream)
        expired = threading.Event()

        def expire() -> None:
            expired.set()
            _close_quietly(stream)

        timer = threading.Timer(
            max(0.0, self.endpoint.timeout_s - (time.monotonic() - started)), expire
        )
        timer.daemon = True
        timer.start()
        text: list[str] = []
        reasoning: list[str] = []
        shown_text, shown_reasoning = StreamMasker(), StreamMasker()
        calls: dict[int, dict[str, str]] = {}
        usage: Any = None
        seen = {"chunks": 0, "choices": 0}
        try:
            for chunk in _chunks(stream):
                if cancel is not None and cancel.is_set():
                    raise OperationCancelled("the turn was cancelled")
                if expired.is_set():
                    raise self._late(text, reasoning)
                seen["chunks"] += 1
                if getattr(chunk, "usage", None) is not None:
                    usage = chunk.usage
                for choice in chunk.choices or []:
                    seen["choices"] += 1
                    delta = choice.delta
                    if delta is None:
                        continue
                    thought = _extra(delta, "reasoning_content") or _extra(delta, "reasoning")
                    if thought:
                        reasoning.append(thought)
                        _shown(on_delta, "reasoning", shown_reasoning.feed(thought))
                    if delta.content:
                        text.append(delta.content)
                        _shown(on_delta, "text", shown_text.feed(delta.content))
                    for piece in delta.tool_calls or []:
                        slot = calls.setdefault(
                            piece.index if piece.index is not None else len(calls),
                            {"id": "", "name": "", "arguments": ""},
                        )
                        if piece.id:
                            slot["id"] = piece.id
                        if piece.function is not None:
                            if piece.function.name:
                                slot["name"] += piece.function.name
                            if piece.function.arguments:
                                slot["arguments"] += piece.function.arguments
            if expired.is_set():  # the deadline shut the stream: its end is not the answer's
                raise self._late(text, reasoning)
        except XyclawError:
            raise
        except Exception as exc:
            if expired.is_set() or _is_timeout(exc):
                raise self._late(text, reasoning) from exc
            if isinstance(exc, ValueError):  # json.JSONDecodeError: a line that is not JSON
                line = mask(str(getattr(exc, "doc", "") or exc))
                raise EndpointMalformedError(
                    said("agent.turn.endpoint.malformed", where=self.name, line=_clip(line, 120)),
                    hint=said("agent.turn.endpoint.malformed_hint"),
                ) from exc
            if isinstance(exc, self._openai.OpenAIError):
                raise
            if type(exc).__module__.split(".")[0].rstrip("2") in ("httpx", "httpcore"):
                raise AgentError(
                    said("agent.turn.endpoint.lost", where=self.name, why=type(exc).__name__),
                    hint=said("agent.turn.endpoint.lost_hint"),
                ) from exc
            raise
        finally:
            timer.cancel()
            stream.close()
        _shown(on_delta, "reasoning", shown_reasoning.flush())
        _shown(on_delta, "text", shown_text.flush())
        tool_calls = [
            ToolCallRequest.parse(
                slot["id"] or f"call_{index}_{int(time.time() * 1000)}",
                mask(slot["name"]),
                mask(slot["arguments"]),
            )
            for index, slot in sorted(calls.items())
        ]
        answer = mask("".join(text))
        thoughts = mask("".join(reasoning))
        if not answer.strip() and not tool_calls:
            if not thoughts.strip():
                raise self._empty(seen)
            # Only reasoning (a thinking model cut short): show it rather than nothing.
            answer = said("agent.turn.reasoning_only", reasoning=thoughts.strip()).in_language(
                _language(messages)
            )
            on_delta("text", answer)
        if usage is not None and getattr(usage, "prompt_tokens", None) is not None:
            tokens_in = int(usage.prompt_tokens or 0)
            tokens_out = int(usage.completion_tokens or 0)
            reported = True
        else:
            tokens_in = estimate_prompt_tokens(messages, schemas)
            produced = "".join(text) + "".join(reasoning)
            produced += "".join(c.name + c.arguments for c in tool_calls)
            tokens_out = estimate_tokens(produced)
            reported = False
        return BrainReply(
            text=answer,
            reasoning=thoughts or None,
            tool_calls=tool_calls,
            tokens_in=tokens_in,
            tokens_out=tokens_out,
            usage_reported=reported,
        )

    def _refuse_a_page(self, stream: Any) -> None:
        """A 200 answer that is a web page (a login portal, a proxy's error page, a base URL
        without /v1): a named error quoting its start, not an empty answer."""
        response = getattr(stream, "response", None)
        headers = getattr(response, "headers", None)
        content_type = str(headers.get("content-type", "")) if headers is not None else ""
        if "html" not in content_type.lower():
            return
        try:
            body = response.read()[:4000].decode("utf-8", "replace") if response else ""
        except Exception:  # the body is only quoted: a broken one is said as such
            body = ""
        finally:
            stream.close()
        raise EndpointNotAStreamError(
            said(
                "agent.turn.endpoint.html",
                where=self.name,
                content_type=content_type.split(";")[0].strip(),
                start=_clip(mask(_page_text(body)), 120),
            ),
            hint=said("agent.turn.endpoint.html_hint"),
        )

    def _late(self, text: list[str], reasoning: list[str]) -> AgentError:
        return AnswerDeadlineError(
            said(
                "agent.turn.endpoint.deadline",
                where=self.name,
                seconds=f"{self.endpoint.timeout_s:g}",
                chars=len("".join(text)) + len("".join(reasoning)),
            ),
            hint=said("agent.turn.endpoint.deadline_hint"),
        )

    def _empty(self, seen: dict[str, int]) -> AgentError:
        if seen["chunks"] == 0:
            what = said("agent.turn.endpoint.no_events")
        elif seen["choices"] == 0:
            what = said("agent.turn.endpoint.no_choices", chunks=seen["chunks"])
        else:
            what = said("agent.turn.endpoint.null_deltas", chunks=seen["chunks"])
        return EndpointEmptyError(
            said("agent.turn.endpoint.empty", where=self.name, what=what),
            hint=said("agent.turn.endpoint.empty_hint"),
        )

    # -- errors -----------------------------------------------------------------------------
    def _translate(self, exc: Exception) -> AgentError:
        o = self._openai
        where = self.endpoint.display_name
        url = self.endpoint.base_url
        if isinstance(exc, o.AuthenticationError | o.PermissionDeniedError):
            return AgentError(
                said("error.llm.key_refused", url=url),
                hint=said("error.llm.key_refused_hint", preset=self.endpoint.preset),
            )
        if isinstance(exc, o.NotFoundError):
            return AgentError(
                said("error.llm.no_model", model=repr(self.endpoint.model), url=url),
                hint=said("error.llm.no_model_hint"),
            )
        if isinstance(exc, o.APITimeoutError):
            return AgentError(
                said("error.llm.timeout", where=where, seconds=f"{self.endpoint.timeout_s:g}"),
                hint=said("error.llm.timeout_hint"),
            )
        if isinstance(exc, o.APIConnectionError):
            return AgentError(
                said("error.llm.unreachable", url=url),
                hint=said("error.llm.unreachable_hint"),
            )
        if isinstance(exc, o.RateLimitError):
            return AgentError(
                said("error.llm.rate_limited", where=where, retries=self.endpoint.max_retries),
                hint=said("error.llm.rate_limited_hint"),
            )
        if isinstance(exc, o.APIStatusError):
            return AgentError(
                said("error.llm.http", where=where, status=exc.status_code, text=mask(_short(exc))),
                hint=said("error.llm.http_hint"),
            )
        return AgentError(
            said("error.llm.failed", where=where, kind=type(exc).__name__),
            hint=said("error.llm.failed_hint"),
        )


def _read_effect() -> Any:
    from xyclaw.agent.types import Effect

    return Effect.READ


def _chunks(stream: Any) -> Iterator[Any]:
    yield from stream


def _shown(on_delta: OnDelta, kind: Any, text: str) -> None:
    if text:
        on_delta(kind, text)


def _close_quietly(stream: Any) -> None:
    """Close a stream from the deadline's timer thread: the read it interrupts fails, and the
    reading thread reports the deadline. Closing alone would wait for the server's next bytes
    (a read blocked in another thread is not woken by a close), so the socket is shut down."""
    import socket

    response = getattr(stream, "response", None)
    try:
        network = (getattr(response, "extensions", None) or {}).get("network_stream")
        raw = network.get_extra_info("socket") if network is not None else None
        if isinstance(raw, socket.socket):
            raw.shutdown(socket.SHUT_RDWR)
    except OSError:
        log.debug("shutting down a late stream's socket failed", exc_info=True)
    try:
        if response is not None:
            response.close()
    except Exception:
        log.debug("closing a late stream failed", exc_info=True)


def _is_timeout(exc: BaseException) -> bool:
    return "Timeout" in type(exc).__name__


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _page_text(body: str) -> str:
    """A web page's title, else the start of its text without tags."""
    import re

    title = re.search(r"(?is)<title[^>]*>(.*?)</title>", body)
    if title and title.group(1).strip():
        return title.group(1).strip()
    return re.sub(r"(?s)<[^>]*>", " ", body).strip() or body.strip()


def _language(messages: list[dict[str, Any]]) -> str:
    """``zh`` when the user's last message is Chinese (the words of a reply the brain makes)."""
    for message in reversed(messages):
        if message.get("role") == "user":
            content = str(message.get("content") or "")
            return "zh" if any("\u4e00" <= ch <= "\u9fff" for ch in content) else "en"
    return "en"


def _extra(delta: Any, name: str) -> str | None:
    value = getattr(delta, name, None)
    if value is None:
        extra = getattr(delta, "model_extra", None) or {}
        value = extra.get(name)
    return value if isinstance(value, str) and value else None


def _retry_after(exc: Exception) -> float | None:
    response = getattr(exc, "response", None)
    if response is None:
        return None
    raw = response.headers.get("retry-after")
    try:
        return float(raw) if raw is not None else None
    except ValueError:
        return None


def _short(exc: Exception) -> str:
    message = getattr(exc, "message", None) or str(exc)
    return str(message)[:300]


def _wire(message: dict[str, Any]) -> dict[str, Any]:
    """Only the fields every OpenAI-compatible server accepts (no agent names, no extras)."""
    keep = ("role", "content", "tool_calls", "tool_call_id")
    out = {k: message[k] for k in keep if k in message}
    if out.get("role") == "assistant" and not out.get("tool_calls"):
        out.pop("tool_calls", None)
        out["content"] = out.get("content") or ""
    return out


def _recent(messages: list[dict[str, Any]], count: int) -> list[dict[str, Any]]:
    """The last user turns only as text (the supervisor needs no tool traffic)."""
    picked = [m for m in messages if m.get("role") in ("user", "assistant") and m.get("content")]
    return [{"role": m["role"], "content": m["content"]} for m in picked[-count:]]


def _context_note(context: dict[str, Any]) -> str:
    if not context:
        return ""
    lines = [f"- {key}: {value}" for key, value in context.items() if value not in (None, [], "")]
    return "\n\nWhat XyClaw knows now:\n" + "\n".join(lines) if lines else ""
