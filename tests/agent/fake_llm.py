"""A scripted OpenAI-compatible server on 127.0.0.1, for testing the LLM brain over real HTTP.

Each POST to ``/v1/chat/completions`` takes the next scripted reply: text (streamed in
pieces, with or without a usage chunk, with or without ``reasoning_content``), tool calls
(one or several in parallel, arguments valid or not), an HTTP error (401, 404, 429, 500)
or a hang past the client's timeout. Supervisor routing requests (those offering the
``handoff`` tool) are answered by ``router`` when one is given, without using the script.
Every request body is kept in :attr:`FakeLLM.requests` for assertions.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

API_KEY = "sk-test-good-key"


@dataclass
class Reply:
    text: str = ""
    reasoning: str | None = None
    tool_calls: list[tuple[str, str]] = field(default_factory=list)  # (name, raw arguments)
    usage: bool = True
    status: int = 200
    retry_after: float | None = None
    hang_s: float = 0.0
    pieces: int = 3
    # Misbehaving endpoints (issue 26): a body sent as it is, with its content type; a pause
    # between chunks; chunks given whole; an error's own message.
    raw: bytes | None = None
    content_type: str = "text/event-stream"
    piece_delay_s: float = 0.0
    chunks: list[dict[str, Any]] | None = None
    error_message: str | None = None


def text(content: str, *, reasoning: str | None = None, usage: bool = True) -> Reply:
    return Reply(text=content, reasoning=reasoning, usage=usage)


def call(name: str, args: dict[str, Any] | str, *, usage: bool = True) -> Reply:
    raw = args if isinstance(args, str) else json.dumps(args)
    return Reply(tool_calls=[(name, raw)], usage=usage)


def calls(*items: tuple[str, dict[str, Any] | str]) -> Reply:
    return Reply(tool_calls=[(n, a if isinstance(a, str) else json.dumps(a)) for n, a in items])


def error(status: int, retry_after: float | None = None) -> Reply:
    return Reply(status=status, retry_after=retry_after)


def hang(seconds: float) -> Reply:
    return Reply(hang_s=seconds)


def raw(body: bytes | str, content_type: str = "text/event-stream") -> Reply:
    """A body sent verbatim with status 200: broken stream lines, an HTML page."""
    return Reply(raw=body.encode() if isinstance(body, str) else body, content_type=content_type)


def slow(content: str, *, every_s: float) -> Reply:
    """One piece of ``content`` per character, ``every_s`` apart."""
    return Reply(text=content, pieces=len(content), piece_delay_s=every_s)


def chunks(*items: dict[str, Any]) -> Reply:
    """These chunks' fields (``choices``, ``usage``) as they are, each with the base fields."""
    return Reply(chunks=list(items))


def fail(status: int, message: str) -> Reply:
    """An HTTP error whose message is ``message`` (a server that quotes what it was sent)."""
    return Reply(status=status, error_message=message)


class FakeLLM:
    """Start with ``with FakeLLM([...]) as llm:``; ``llm.base_url`` goes into ``[llm] base_url``."""

    def __init__(
        self,
        script: list[Reply] | None = None,
        *,
        router: Callable[[dict[str, Any]], str] | None = None,
        models: tuple[str, ...] = ("fake-model",),
        prompt_tokens: int = 50,
        ids_per_reply: bool = False,
    ) -> None:
        self.script = list(script or [])
        # True: tool-call ids count from call_0 in every reply, as some local servers do, so
        # the same id comes back in later turns of a conversation.
        self.ids_per_reply = ids_per_reply
        self.router = router
        self.models = models
        self.prompt_tokens = prompt_tokens
        self.requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        self._counter = 0
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                if self.path.rstrip("/").endswith("/models"):
                    body = {
                        "object": "list",
                        "data": [{"id": m, "object": "model"} for m in fake.models],
                    }
                    self._json(200, body)
                else:
                    self._json(404, {"error": {"message": "not found"}})

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                with fake.lock:
                    fake.requests.append(body)
                if self.headers.get("authorization") != f"Bearer {API_KEY}":
                    self._json(
                        401,
                        {
                            "error": {
                                "message": "Incorrect API key provided",
                                "type": "invalid_request_error",
                                "code": "invalid_api_key",
                            }
                        },
                    )
                    return
                if body.get("model") not in fake.models:
                    self._json(
                        404,
                        {
                            "error": {
                                "message": f"The model `{body.get('model')}` does not exist",
                                "code": "model_not_found",
                            }
                        },
                    )
                    return
                reply = fake._next(body)
                if reply.hang_s:
                    time.sleep(reply.hang_s)
                    reply = Reply(text="too late")
                if reply.status != 200:
                    headers = {}
                    if reply.retry_after is not None:
                        headers["retry-after"] = str(reply.retry_after)
                    message = reply.error_message or f"scripted {reply.status}"
                    self._json(reply.status, {"error": {"message": message}}, headers)
                    return
                if reply.raw is not None:
                    self.send_response(200)
                    self.send_header("content-type", reply.content_type)
                    self.send_header("content-length", str(len(reply.raw)))
                    self.end_headers()
                    self.wfile.write(reply.raw)
                    return
                if body.get("stream"):
                    self._stream(body, reply)
                else:
                    self._json(200, fake._completion(body, reply))

            def _json(self, status: int, obj: Any, headers: dict[str, str] | None = None) -> None:
                data = json.dumps(obj).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)

            def _stream(self, body: dict[str, Any], reply: Reply) -> None:
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("connection", "close")
                self.end_headers()
                try:
                    for chunk in fake._chunks(body, reply):
                        if reply.piece_delay_s:
                            time.sleep(reply.piece_delay_s)
                        self.wfile.write(b"data: " + json.dumps(chunk).encode() + b"\n\n")
                        self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):  # the client gave up
                    self.close_connection = True
                    return
                self.wfile.write(b"data: [DONE]\n\n")
                self.wfile.flush()
                self.close_connection = True

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    # -- lifetime ---------------------------------------------------------------------------
    def __enter__(self) -> FakeLLM:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()

    def add(self, *replies: Reply) -> None:
        with self.lock:
            self.script.extend(replies)

    @property
    def chat_requests(self) -> list[dict[str, Any]]:
        """Requests other than the supervisor's routing ones."""
        return [r for r in self.requests if not _offers_handoff(r)]

    # -- replies ----------------------------------------------------------------------------
    def _next(self, body: dict[str, Any]) -> Reply:
        if self.router is not None and _offers_handoff(body):
            return call("handoff", {"agent": self.router(body)})
        with self.lock:
            if self.ids_per_reply:
                self._counter = -1
            if not self.script:
                return Reply(text="(the script is empty)")
            return self.script.pop(0)

    def _id(self) -> str:
        with self.lock:
            self._counter += 1
            return f"call_{self._counter}"

    def _usage(self, reply: Reply) -> dict[str, int]:
        out = max(1, len(reply.text) // 4 + 10 * len(reply.tool_calls))
        return {
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": out,
            "total_tokens": self.prompt_tokens + out,
        }

    def _base(self, body: dict[str, Any]) -> dict[str, Any]:
        return {
            "id": "chatcmpl-fake",
            "object": "chat.completion.chunk",
            "created": int(time.time()),
            "model": body.get("model"),
        }

    def _chunks(self, body: dict[str, Any], reply: Reply) -> list[dict[str, Any]]:
        if reply.chunks is not None:
            return [{**self._base(body), **c} for c in reply.chunks]
        chunks: list[dict[str, Any]] = []

        def delta(d: dict[str, Any], finish: str | None = None) -> None:
            chunks.append(
                {**self._base(body), "choices": [{"index": 0, "delta": d, "finish_reason": finish}]}
            )

        delta({"role": "assistant", "content": ""})
        if reply.reasoning:
            for piece in _split(reply.reasoning, reply.pieces):
                delta({"reasoning_content": piece})
        for piece in _split(reply.text, reply.pieces):
            delta({"content": piece})
        for index, (name, raw) in enumerate(reply.tool_calls):
            call_id = self._id()
            delta(
                {
                    "tool_calls": [
                        {
                            "index": index,
                            "id": call_id,
                            "type": "function",
                            "function": {"name": name, "arguments": ""},
                        }
                    ]
                }
            )
            for piece in _split(raw, 2):
                delta({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
        delta({}, "tool_calls" if reply.tool_calls else "stop")
        wants_usage = (body.get("stream_options") or {}).get("include_usage")
        if reply.usage and wants_usage:
            chunks.append({**self._base(body), "choices": [], "usage": self._usage(reply)})
        return chunks

    def _completion(self, body: dict[str, Any], reply: Reply) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": reply.text or None}
        if reply.tool_calls:
            message["tool_calls"] = [
                {"id": self._id(), "type": "function", "function": {"name": n, "arguments": a}}
                for n, a in reply.tool_calls
            ]
        return {
            "id": "chatcmpl-fake",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model"),
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "finish_reason": "tool_calls" if reply.tool_calls else "stop",
                }
            ],
            "usage": self._usage(reply) if reply.usage else None,
        }


def _offers_handoff(body: dict[str, Any]) -> bool:
    return any(t.get("function", {}).get("name") == "handoff" for t in body.get("tools") or [])


def _split(text: str, pieces: int) -> list[str]:
    if not text:
        return []
    size = max(1, -(-len(text) // pieces))
    return [text[i : i + size] for i in range(0, len(text), size)]
