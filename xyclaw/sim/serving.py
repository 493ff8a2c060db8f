"""Inference services on a simulated node: `vllm serve`, vLLM's OpenAI API server, and `curl`.

`vllm serve MODEL --port P` (or `python -m vllm.entrypoints.openai.api_server
--model MODEL --port P`) loads the model onto its tensor-parallel GPUs (time
and memory from the model size), then answers OpenAI-compatible HTTP on the
node's port P: `GET /health`, `/v1/models`, `/version`, `/metrics`, and
`POST /v1/chat/completions` and `/v1/completions`, streaming (server-sent
events) or not. Replies are a deterministic text (the same request gets the
same words) produced at a speed that follows the GPU's memory bandwidth and
the model size. The HTTP server really listens on a free loopback port of
this machine; the node maps its port P onto it, so SSH `direct-tcpip` to the
node's 127.0.0.1:P (and `curl` on the node) reach it.
"""

from __future__ import annotations

import contextlib
import hashlib
import http.client
import json
import re
import socket
import threading
import time
import uuid
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

from xyclaw.sim import limits
from xyclaw.sim.context import Ctx
from xyclaw.sim.gpu import Load
from xyclaw.sim.procs import SIGKILL
from xyclaw.sim.specs import MEMORY_BANDWIDTH_GBS

VLLM_VERSION = "0.6.3.post1"
DEFAULT_PORT = 8000
DEFAULT_MODEL = "facebook/opt-125m"  # what vLLM's api_server loads without --model
_BANDWIDTH_USE = 0.7  # share of HBM bandwidth a decode step reaches
_TOKEN_OVERHEAD_S = 0.004  # scheduler and sampling per step
_LOAD_BASE_S = 5.0
_LOAD_S_PER_B = 0.8
_REPLY_TEXT = (
    "the cluster is ready and every node answers on time while the model keeps its weights "
    "in memory so that tokens stream back at a steady pace across the fabric with no loss "
    "of order or meaning and each reply stays the same for the same question asked twice"
)
_WORDS = tuple(_REPLY_TEXT.split())
_FLAGS = frozenset(
    {
        "trust-remote-code",
        "enforce-eager",
        "disable-log-requests",
        "disable-log-stats",
        "enable-prefix-caching",
        "enable-chunked-prefill",
        "enable-auto-tool-choice",
        "disable-frontend-multiprocessing",
        "uvicorn-log-level-debug",
    }
)


def model_params_b(name: str) -> float:
    """Billions of parameters from a model name: `Llama-2-7b-hf` 7, `opt-125m` 0.125,
    `Mixtral-8x7B` 56; 7 when the name does not say."""
    text = name.rsplit("/", 1)[-1]
    moe = re.search(r"(\d+)x(\d+(?:\.\d+)?)[bB](?![a-zA-Z])", text)
    if moe:
        return float(moe.group(1)) * float(moe.group(2))
    billions = re.search(r"(\d+(?:\.\d+)?)\s*[bB](?![a-zA-Z])", text)
    if billions:
        return float(billions.group(1))
    millions = re.search(r"(\d+(?:\.\d+)?)\s*[mM](?![a-zA-Z])", text)
    if millions:
        return float(millions.group(1)) / 1000.0
    return 7.0


@dataclass
class ServeConfig:
    model: str = DEFAULT_MODEL
    port: int = DEFAULT_PORT
    host: str = "0.0.0.0"
    tensor_parallel: int = 1
    served_names: list[str] = field(default_factory=list)
    max_model_len: int = 4096
    gpu_memory_utilization: float = 0.9

    @property
    def names(self) -> list[str]:
        return self.served_names or [self.model]


def _parse_args(args: list[str], model: str | None) -> ServeConfig | str:
    """vLLM's options (unknown ones are skipped with their value); a string is an error."""
    cfg = ServeConfig(model=model or DEFAULT_MODEL)
    i = 0
    while i < len(args):
        arg = args[i]
        i += 1
        if not arg.startswith("-"):
            return f"unrecognized arguments: {arg}"
        name, eq, value = arg.lstrip("-").partition("=")
        name = name.replace("_", "-")
        if name in _FLAGS:
            continue
        if not eq:
            if i < len(args) and not args[i].startswith("--"):
                value = args[i]
                i += 1
            else:
                continue
        try:
            if name == "model":
                cfg.model = value
            elif name == "port":
                cfg.port = int(value)
            elif name == "host":
                cfg.host = value
            elif name in ("tensor-parallel-size", "tp"):
                cfg.tensor_parallel = int(value)
            elif name == "served-model-name":
                cfg.served_names.append(value)
            elif name == "max-model-len":
                cfg.max_model_len = int(value)
            elif name == "gpu-memory-utilization":
                cfg.gpu_memory_utilization = float(value)
        except ValueError:
            return f"argument --{name}: invalid value: '{value}'"
    if not 1 <= cfg.port <= 65535:
        return f"argument --port: invalid value: '{cfg.port}'"
    return cfg


def vllm(ctx: Ctx) -> int:
    args = list(ctx.args)
    if not args or args[0] in ("-h", "--help"):
        ctx.out("usage: vllm [-h] [-v] {chat,complete,serve} ...\n")
        return 0 if args else 2
    if args[0] in ("-v", "--version"):
        ctx.out(VLLM_VERSION + "\n")
        return 0
    if args[0] != "serve":
        ctx.err(f"vllm: error: argument subparser: invalid choice: '{args[0]}'\n")
        return 2
    rest = args[1:]
    model = None
    if rest and not rest[0].startswith("-"):
        model, rest = rest[0], rest[1:]
    parsed = _parse_args(rest, model)
    if isinstance(parsed, str):
        ctx.err(f"vllm serve: error: {parsed}\n")
        return 2
    return _Service(ctx, parsed).run()


def api_server(ctx: Ctx, args: list[str]) -> int:
    """`python -m vllm.entrypoints.openai.api_server --model M --port P`."""
    parsed = _parse_args(args, None)
    if isinstance(parsed, str):
        ctx.err(f"api_server.py: error: {parsed}\n")
        return 2
    return _Service(ctx, parsed).run()


class _Service:
    """One running vLLM server process."""

    def __init__(self, ctx: Ctx, cfg: ServeConfig) -> None:
        assert ctx.proc is not None
        self.ctx = ctx
        self.proc = ctx.proc
        self.cfg = cfg
        self.machine = ctx.machine
        self.params_b = model_params_b(cfg.model)
        self.created = int(self.machine.now())
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.running = 0
        self.requests_total = 0
        self.prompt_tokens_total = 0
        self.generation_tokens_total = 0
        self.gpu_error: str | None = None
        self.connections: set[socket.socket] = set()
        self.devices: list[int] = []
        gpu = self.machine.gpus.model
        bandwidth = MEMORY_BANDWIDTH_GBS.get(gpu.key, 1000.0) * 1e9
        weights = 2.0 * self.params_b * 1e9
        self.token_s = (
            weights / (max(1, cfg.tensor_parallel) * bandwidth * _BANDWIDTH_USE) + _TOKEN_OVERHEAD_S
        )
        # prefill is compute-bound: 2 FLOPs per parameter per prompt token at ~35% of peak
        self.prefill_s_per_token = (
            2.0
            * self.params_b
            * 1e9
            / (max(1, cfg.tensor_parallel) * gpu.bf16_tflops * 1e12 * 0.35)
        )

    # -- output ---------------------------------------------------------------------------------

    def log(self, where: str, text: str) -> None:
        now = self.machine.now()
        stamp = time.strftime("%m-%d %H:%M:%S", time.gmtime(now))
        self.say(f"INFO {stamp} {where}] {text}")

    def say(self, text: str) -> None:
        with contextlib.suppress(BrokenPipeError):
            self.ctx.out(text + "\n")

    def fail(self, text: str, status: int = 1) -> int:
        with contextlib.suppress(BrokenPipeError):
            self.ctx.err(text + "\n")
        return status

    def scaled(self, seconds: float) -> float:
        return seconds * self.machine.time_scale

    # -- life -----------------------------------------------------------------------------------

    def run(self) -> int:
        cfg = self.cfg
        machine = self.machine
        visible = [g.index for g in machine.gpus.visible()]
        cvd = self.ctx.env.get("CUDA_VISIBLE_DEVICES")
        if cvd is not None:
            picks = [int(x) for x in cvd.split(",") if x.strip().isdigit()]
            visible = [visible[i] for i in picks if i < len(visible)]
        self.log("api_server.py:528", f"vLLM API server version {VLLM_VERSION}")
        if cfg.tensor_parallel < 1 or cfg.tensor_parallel > len(visible):
            return self.fail(
                "ValueError: The number of required GPUs exceeds the total number of available "
                f"GPUs in the placement group (tensor_parallel_size={cfg.tensor_parallel}, "
                f"available={len(visible)})."
            )
        self.devices = visible[: cfg.tensor_parallel]
        per_gpu_mib = machine.gpus.model.memory_mib
        budget_mib = int(per_gpu_mib * cfg.gpu_memory_utilization)
        weights_mib = int(2.0 * self.params_b * 1e9 / cfg.tensor_parallel / 1024**2)
        self.log("model_runner.py:1056", f"Starting to load model {cfg.model}...")
        self._hold(budget_mib, 3.0)
        if self.proc.wait(self.scaled(_LOAD_BASE_S + _LOAD_S_PER_B * self.params_b)):
            return self._ended()
        if weights_mib > budget_mib * 0.95:
            self._release()
            return self.fail(
                "ValueError: No available memory for the cache blocks. Try increasing "
                "`gpu_memory_utilization` when initializing the engine."
            )
        self.log("model_runner.py:1067", f"Loading model weights took {weights_mib / 1024:.4f} GB")
        blocks = max(1, (budget_mib - weights_mib) // 32)
        self.log("gpu_executor.py:122", f"# GPU blocks: {blocks}, # CPU blocks: 512")
        try:
            server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        except OSError as exc:
            self._release()
            return self.fail(f"ERROR: could not start the HTTP server: {exc}")
        server.daemon_threads = True
        real = server.server_address
        if not machine.listen_port(cfg.port, (str(real[0]), int(real[1]))):
            server.server_close()
            self._release()
            return self.fail(
                f"ERROR: [Errno 98] error while attempting to bind on address "
                f"('{cfg.host}', {cfg.port}): address already in use"
            )
        thread = threading.Thread(target=server.serve_forever, daemon=True, name="sim-vllm-http")
        thread.start()
        pid = self.proc.pid
        self.say(f"INFO:     Started server process [{pid}]")
        self.say("INFO:     Waiting for application startup.")
        self.say("INFO:     Application startup complete.")
        self.say(
            f"INFO:     Uvicorn running on http://{cfg.host}:{cfg.port} (Press CTRL+C to quit)"
        )
        try:
            while not self.proc.wait(1.0):
                if self.gpu_error is not None:
                    break
        finally:
            self.stop.set()
            machine.close_port(cfg.port, (str(real[0]), int(real[1])))
            server.shutdown()
            server.server_close()
            self._drop_connections()
            self._release()
        if self.gpu_error is not None:
            return self.fail(f"RuntimeError: {self.gpu_error}")
        return self._ended()

    def _ended(self) -> int:
        self.stop.set()
        self._release()
        sig = self.proc.signalled
        if sig is None:
            return 0
        if sig == SIGKILL:
            return 128 + SIGKILL
        self.say("INFO:     Shutting down")
        self.say("INFO:     Waiting for application shutdown.")
        self.say("INFO:     Application shutdown complete.")
        self.say(f"INFO:     Finished server process [{self.proc.pid}]")
        self.proc.clear_signal()  # uvicorn handles TERM and INT: a clean exit, status 0
        return 0

    def _hold(self, mem_mib: int, util: float) -> None:
        for device in self.devices:
            self.machine.gpus.add_load(
                device,
                Load(
                    self.proc.pid,
                    "/usr/bin/python3",
                    util,
                    mem_mib,
                    intensity=0.6,
                    mem_util=util * 0.8,
                    on_error=self._on_gpu_error,
                ),
            )

    def _drop_connections(self) -> None:
        """The process is gone: so are its open connections (keep-alive ones too)."""
        with self.lock:
            conns = list(self.connections)
        for conn in conns:
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)

    def _release(self) -> None:
        self.machine.gpus.remove_pid(self.proc.pid)

    def _on_gpu_error(self, index: int, message: str) -> None:
        self.gpu_error = message
        self.proc.wake()

    # -- generation -----------------------------------------------------------------------------

    def generate(self, key: str, max_tokens: int | None) -> tuple[list[str], str]:
        """The reply's tokens (words, with their leading space) and finish reason."""
        digest = hashlib.sha256(key.encode()).digest()
        natural = 16 + digest[0] % 48
        count = natural if max_tokens is None else min(natural, max(1, max_tokens))
        start = int.from_bytes(digest[1:3], "big") % len(_WORDS)
        words = [_WORDS[(start + 7 * i) % len(_WORDS)] for i in range(count)]
        words[0] = words[0].capitalize()
        tokens = [words[0]] + [" " + w for w in words[1:]]
        if count == natural:
            tokens[-1] += "."
        return tokens, "stop" if count == natural else "length"

    def begin(self, prompt_tokens: int) -> None:
        with self.lock:
            self.running += 1
            self.requests_total += 1
            self.prompt_tokens_total += prompt_tokens
            busy = min(97.0, 55.0 + 10.0 * self.running)
        self._hold(int(self.machine.gpus.model.memory_mib * self.cfg.gpu_memory_utilization), busy)
        self.stop.wait(self.scaled(0.01 + prompt_tokens * self.prefill_s_per_token))

    def token_wait(self) -> bool:
        """Wait one decode step; False when the server is stopping."""
        with self.lock:
            slower = 1.0 + 0.05 * max(0, self.running - 1)
        return not self.stop.wait(self.scaled(self.token_s * slower))

    def finish(self, completion_tokens: int) -> None:
        with self.lock:
            self.running -= 1
            self.generation_tokens_total += completion_tokens
            idle = self.running == 0
        if idle:
            mem = int(self.machine.gpus.model.memory_mib * self.cfg.gpu_memory_utilization)
            self._hold(mem, 3.0)

    def metrics(self) -> str:
        with self.lock:
            running, total = self.running, self.requests_total
            prompt, generated = self.prompt_tokens_total, self.generation_tokens_total
        name = self.cfg.names[0]
        return (
            "# HELP vllm:num_requests_running Number of requests currently running on GPU.\n"
            "# TYPE vllm:num_requests_running gauge\n"
            f'vllm:num_requests_running{{model_name="{name}"}} {running}.0\n'
            "# TYPE vllm:request_success_total counter\n"
            f'vllm:request_success_total{{model_name="{name}"}} {total - running}.0\n'
            "# TYPE vllm:prompt_tokens_total counter\n"
            f'vllm:prompt_tokens_total{{model_name="{name}"}} {prompt}.0\n'
            "# TYPE vllm:generation_tokens_total counter\n"
            f'vllm:generation_tokens_total{{model_name="{name}"}} {generated}.0\n'
        )


def _count_tokens(text: str) -> int:
    return len(text.split())


def _handler(service: _Service) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        server_version = "uvicorn"
        sys_version = ""

        def log_message(self, format: str, *args: Any) -> None:
            return None

        def setup(self) -> None:
            super().setup()
            with service.lock:
                service.connections.add(self.connection)

        def finish(self) -> None:
            with service.lock:
                service.connections.discard(self.connection)
            with contextlib.suppress(OSError):
                super().finish()

        def _access(self, code: int) -> None:
            host, port = self.client_address[:2]
            phrase = {200: "OK", 400: "Bad Request", 404: "Not Found"}.get(code, "")
            service.say(
                f'INFO:     {host}:{port} - "{self.command} {self.path} HTTP/1.1" {code} {phrase}'
            )

        def _json(self, code: int, body: object) -> None:
            data = json.dumps(body).encode()
            self.send_response(code)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            self._access(code)

        def _error(self, code: int, message: str, kind: str) -> None:
            self._json(
                code,
                {"object": "error", "message": message, "type": kind, "param": None, "code": code},
            )

        def do_GET(self) -> None:
            path = urlsplit(self.path).path
            if path == "/health":
                self.send_response(200)
                self.send_header("content-length", "0")
                self.end_headers()
                self._access(200)
            elif path == "/version":
                self._json(200, {"version": VLLM_VERSION})
            elif path == "/v1/models":
                models = [self._model(name) for name in service.cfg.names]
                self._json(200, {"object": "list", "data": models})
            elif path == "/metrics":
                data = service.metrics().encode()
                self.send_response(200)
                self.send_header("content-type", "text/plain; version=0.0.4")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
                self._access(200)
            else:
                self._json(404, {"detail": "Not Found"})

        def _model(self, name: str) -> dict[str, object]:
            return {
                "id": name,
                "object": "model",
                "created": service.created,
                "owned_by": "vllm",
                "root": service.cfg.model,
                "parent": None,
                "max_model_len": service.cfg.max_model_len,
            }

        def do_POST(self) -> None:
            path = urlsplit(self.path).path
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length) if length else b""
            if path not in ("/v1/chat/completions", "/v1/completions"):
                self._json(404, {"detail": "Not Found"})
                return
            try:
                body = json.loads(raw or b"{}")
                if not isinstance(body, dict):
                    raise ValueError("the body is not an object")
            except ValueError as exc:
                self._error(400, f"invalid JSON body: {exc}", "BadRequestError")
                return
            model = body.get("model")
            if model not in service.cfg.names:
                self._error(404, f"The model `{model}` does not exist.", "NotFoundError")
                return
            chat = path == "/v1/chat/completions"
            if chat:
                messages = body.get("messages")
                if not isinstance(messages, list) or not messages:
                    self._error(400, "messages must be a non-empty list", "BadRequestError")
                    return
                prompt_text = " ".join(
                    str(m.get("content", "")) for m in messages if isinstance(m, dict)
                )
                prompt_tokens = _count_tokens(prompt_text) + 4 * len(messages)
                key = json.dumps(messages, sort_keys=True)
            else:
                prompt = body.get("prompt", "")
                prompt_text = prompt if isinstance(prompt, str) else json.dumps(prompt)
                prompt_tokens = max(1, _count_tokens(prompt_text))
                key = prompt_text
            limit = body.get("max_tokens", body.get("max_completion_tokens"))
            max_tokens = limit if isinstance(limit, int) and not isinstance(limit, bool) else None
            tokens, reason = service.generate(f"{model}\n{key}", max_tokens)
            ident = ("chatcmpl-" if chat else "cmpl-") + uuid.uuid4().hex
            options = body.get("stream_options")
            include_usage = isinstance(options, dict) and bool(options.get("include_usage"))
            service.begin(prompt_tokens)
            sent = 0
            try:
                if body.get("stream"):
                    sent = self._stream(ident, str(model), chat, tokens, reason, prompt_tokens,
                                        include_usage)  # fmt: skip
                else:
                    sent = self._whole(ident, str(model), chat, tokens, reason, prompt_tokens)
            except (BrokenPipeError, ConnectionResetError):
                self.close_connection = True
            finally:
                service.finish(sent)

        def _usage(self, prompt: int, completion: int) -> dict[str, int]:
            return {
                "prompt_tokens": prompt,
                "total_tokens": prompt + completion,
                "completion_tokens": completion,
            }

        def _whole(
            self, ident: str, model: str, chat: bool, tokens: list[str], reason: str, prompt: int
        ) -> int:
            done = 0
            for _ in tokens:
                if not service.token_wait():
                    break
                done += 1
            text = "".join(tokens[:done])
            choice: dict[str, object] = {"index": 0, "logprobs": None, "finish_reason": reason}
            if chat:
                choice["message"] = {"role": "assistant", "content": text, "tool_calls": []}
            else:
                choice["text"] = text
            self._json(
                200,
                {
                    "id": ident,
                    "object": "chat.completion" if chat else "text_completion",
                    "created": int(service.machine.now()),
                    "model": model,
                    "choices": [choice],
                    "usage": self._usage(prompt, done),
                },
            )
            return done

        def _stream(
            self,
            ident: str,
            model: str,
            chat: bool,
            tokens: list[str],
            reason: str,
            prompt: int,
            include_usage: bool,
        ) -> int:
            self.send_response(200)
            self.send_header("content-type", "text/event-stream; charset=utf-8")
            self.send_header("transfer-encoding", "chunked")
            self.end_headers()
            self._access(200)
            created = int(service.machine.now())
            kind = "chat.completion.chunk" if chat else "text_completion"

            def event(choices: list[dict[str, object]], usage: object = None) -> None:
                payload: dict[str, object] = {
                    "id": ident,
                    "object": kind,
                    "created": created,
                    "model": model,
                    "choices": choices,
                }
                if include_usage:
                    payload["usage"] = usage
                self._chunk(b"data: " + json.dumps(payload).encode() + b"\n\n")

            def choice(piece: str, finish: str | None) -> dict[str, object]:
                out: dict[str, object] = {"index": 0, "logprobs": None, "finish_reason": finish}
                if chat:
                    out["delta"] = {"content": piece} if finish is None else {}
                else:
                    out["text"] = piece
                return out

            if chat:
                event([{"index": 0, "delta": {"role": "assistant", "content": ""},
                        "logprobs": None, "finish_reason": None}])  # fmt: skip
            done = 0
            for piece in tokens:
                if not service.token_wait():
                    break
                event([choice(piece, None)])
                done += 1
            event([choice("", reason)])
            if include_usage:
                event([], self._usage(prompt, done))
            self._chunk(b"data: [DONE]\n\n")
            self._chunk(b"")
            return done

        def _chunk(self, data: bytes) -> None:
            self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
            self.wfile.flush()

    return Handler


# -- curl ----------------------------------------------------------------------------------------


def curl(ctx: Ctx) -> int:
    """Enough curl for readiness checks and quick requests to the node's own services."""
    args = list(ctx.args)
    method: str | None = None
    data: str | None = None
    headers: dict[str, str] = {}
    out_file: str | None = None
    write_out: str | None = None
    fail = silent = show_errors = include = False
    max_time = 30.0
    url: str | None = None
    while args:
        arg = args.pop(0)
        if arg in ("-X", "--request") and args:
            method = args.pop(0)
        elif arg in ("-d", "--data", "--data-raw", "--data-binary") and args:
            data = args.pop(0)
        elif arg in ("-H", "--header") and args:
            name, _, value = args.pop(0).partition(":")
            headers[name.strip()] = value.strip()
        elif arg in ("-o", "--output") and args:
            out_file = args.pop(0)
        elif arg in ("-w", "--write-out") and args:
            write_out = args.pop(0)
        elif arg in ("-m", "--max-time", "--connect-timeout") and args:
            with contextlib.suppress(ValueError):
                max_time = float(args.pop(0))
        elif arg.startswith("--"):
            fail = fail or arg == "--fail"
            silent = silent or arg == "--silent"
            show_errors = show_errors or arg == "--show-error"
            include = include or arg == "--include"
        elif arg.startswith("-") and len(arg) > 1:
            for flag in arg[1:]:
                fail = fail or flag == "f"
                silent = silent or flag == "s"
                show_errors = show_errors or flag == "S"
                include = include or flag == "i"
        else:
            url = arg
    if url is None:
        ctx.err("curl: no URL specified\n")
        return 2
    parts = urlsplit(url if "://" in url else "http://" + url)
    quiet = silent and not show_errors
    if (
        parts.scheme != "http"
        or parts.hostname is None
        or ctx.machine.resolve_host(parts.hostname) is None
    ):  # a download from outside the simulated cluster: there is no network to reach it
        ctx.err(limits.NO_NETWORK + "\n")
        return 6
    port = parts.port or 80
    local = ctx.machine.resolve_host(parts.hostname) == ctx.machine.hostname
    target = ctx.machine.port_target(port) if local else None
    if target is None:
        if not quiet:
            ctx.err(
                f"curl: (7) Failed to connect to {parts.hostname} port {port} after 0 ms: "
                "Couldn't connect to server\n"
            )
        return 7
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    verb = method or ("POST" if data is not None else "GET")
    if data is not None:
        headers.setdefault("Content-Type", "application/x-www-form-urlencoded")
    conn = http.client.HTTPConnection(target[0], target[1], timeout=max_time)
    try:
        conn.request(verb, path, body=data.encode() if data is not None else None, headers=headers)
        response = conn.getresponse()
        body = response.read()
    except (OSError, http.client.HTTPException):
        if not quiet:
            ctx.err(f"curl: (28) Operation timed out after {int(max_time * 1000)} milliseconds\n")
        return 28
    finally:
        conn.close()
    if fail and response.status >= 400:
        if not quiet:
            ctx.err(f"curl: (22) The requested URL returned error: {response.status}\n")
        return 22
    head = b""
    if include:
        lines = [f"HTTP/1.1 {response.status} {response.reason}"]
        lines += [f"{k}: {v}" for k, v in response.getheaders()]
        head = ("\r\n".join(lines) + "\r\n\r\n").encode()
    if out_file is not None and out_file != "-":
        ctx.machine.fs.write_bytes(ctx.path(out_file), head + body)
    else:
        ctx.io.stdout.write(head + body)
    if write_out is not None:
        ctx.out(write_out.replace("%{http_code}", str(response.status)).replace("\\n", "\n"))
    return 0


COMMANDS = {"vllm": vllm, "curl": curl}
