"""A small JSON HTTP server on 127.0.0.1 for the fake clouds, with faults a test can switch on.

A fake cloud subclasses :class:`FakeCloud` and implements ``route(method, path, query,
body, headers)``; the server answers it on a real socket. Faults apply before routing:
``fail_next`` answers the next requests with the given statuses (429s carry a
``Retry-After``), ``hang_next`` keeps the next requests waiting past the client's timeout
(after routing them, so a create happens and its answer is lost), and every request
is logged with the time it arrived.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

Answer = tuple[int, Any, dict[str, str]]


@dataclass
class Logged:
    method: str
    path: str
    body: Any
    at: float  # time.monotonic()
    status: int = 0


@dataclass
class Faults:
    fail_next: deque[int] = field(default_factory=deque)
    retry_after_s: float = 0.05
    hang_next: int = 0
    hang_s: float = 2.0
    hang_paths: tuple[str, ...] = ()  # only requests to these paths hang (empty: any)


class FakeCloud:
    """State and routes of a fake cloud; thread-safe through one lock."""

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.faults = Faults()
        self.log: list[Logged] = []

    def route(
        self, method: str, path: str, query: dict[str, list[str]], body: Any, headers: Any
    ) -> Answer:
        raise NotImplementedError

    def error_answer(self, status: int) -> Answer:
        return status, {"error": "injected"}, {}

    def requests_to(self, method: str, path: str) -> list[Logged]:
        with self.lock:
            return [e for e in self.log if e.method == method and e.path == path]


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        return

    def _serve(self) -> None:
        cloud = self.server.cloud
        parts = urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = raw.decode(errors="replace")
        entry = Logged(self.command, parts.path, body, time.monotonic())
        hang = False
        with cloud.lock:
            cloud.log.append(entry)
            injected = cloud.faults.fail_next.popleft() if cloud.faults.fail_next else None
            if injected is None and cloud.faults.hang_next > 0:
                paths = cloud.faults.hang_paths
                if not paths or parts.path in paths:
                    cloud.faults.hang_next -= 1
                    hang = True
        if injected is not None:
            status, payload, headers = cloud.error_answer(injected)
            if injected == 429:
                headers = {**headers, "Retry-After": str(cloud.faults.retry_after_s)}
        else:
            status, payload, headers = cloud.route(
                self.command, parts.path, parse_qs(parts.query), body, self.headers
            )
        entry.status = status
        if hang:
            time.sleep(cloud.faults.hang_s)
        data = json.dumps(payload).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for name, value in headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (timeout) or was killed

    do_GET = do_POST = do_PUT = do_DELETE = _serve


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, cloud: FakeCloud) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.cloud = cloud


class FakeServer:
    """Runs a FakeCloud on a loopback port until stopped."""

    def __init__(self, cloud: FakeCloud) -> None:
        self.cloud = cloud
        self._server = _Server(cloud)
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def start(self) -> FakeServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)
