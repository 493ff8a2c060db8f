"""The simulated cloud's HTTP/JSON face on loopback (docs/sim-api.md).

A thin translation: routes to :class:`SimCloud` methods, bearer auth, the
fault gate (429, injected 5xx, injected hangs), JSON in and out. While it
listens, ``<state>/server.json`` says where and with which token.
"""

from __future__ import annotations

import contextlib
import hmac
import json
import logging
import os
import re
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

from xyclaw.errors import ProviderError
from xyclaw.sim.cloud import files
from xyclaw.sim.cloud.cloud import SimCloud
from xyclaw.sim.cloud.errors import CloudApiError, bad_request, not_found

log = logging.getLogger(__name__)

API_PREFIX = "/v1"
MAX_BODY = 1 << 20
_CLUSTER_PATH = re.compile(r"^/v1/clusters/([A-Za-z0-9_.-]+)$")
_PREEMPT_PATH = re.compile(r"^/v1/clusters/([A-Za-z0-9_.-]+)/_preempt$")  # issue 32
_NODE_FAULT_PATH = re.compile(r"^/v1/_nodes/([A-Za-z0-9_.-]+)/faults$")
Result = tuple[int, dict[str, Any]]


def format_retry_after(seconds: float) -> str:
    """Seconds as the header shows them: ``0.5``, ``2``, never ``0``."""
    text = f"{max(seconds, 0.001):.3f}".rstrip("0").rstrip(".")
    return text or "0.001"


class _HttpServer(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False

    def __init__(self, address: tuple[str, int], cloud: SimCloud) -> None:
        self.cloud = cloud
        self.connections: set[socket.socket] = set()
        self.connections_lock = threading.Lock()
        super().__init__(address, _Handler)

    def close_connections(self) -> None:
        """Cut kept-alive connections, so no client goes on talking to a stopped server."""
        with self.connections_lock:
            connections = list(self.connections)
        for conn in connections:
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)


class _Handler(BaseHTTPRequestHandler):
    server: _HttpServer
    protocol_version = "HTTP/1.1"
    timeout = 60  # an idle kept-alive connection is closed after this
    server_version = "xyclaw-simcloud"

    def setup(self) -> None:
        super().setup()
        # Headers and body go out in two writes; without this, Nagle holds the body back
        # until the client's delayed ACK (40 ms a request).
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        with self.server.connections_lock:
            self.server.connections.add(self.connection)

    def finish(self) -> None:
        with self.server.connections_lock:
            self.server.connections.discard(self.connection)
        with contextlib.suppress(OSError):
            super().finish()

    def log_message(self, format: str, *args: Any) -> None:
        log.debug("%s " + format, self.address_string(), *args)

    def do_GET(self) -> None:
        self._dispatch("GET")

    def do_POST(self) -> None:
        self._dispatch("POST")

    def do_DELETE(self) -> None:
        self._dispatch("DELETE")

    def do_PUT(self) -> None:
        self._dispatch("PUT")

    def do_PATCH(self) -> None:
        self._dispatch("PATCH")

    # -- plumbing ------------------------------------------------------------------------------

    def _dispatch(self, method: str) -> None:
        cloud = self.server.cloud
        path, _, query = self.path.partition("?")
        headers: dict[str, str] = {}
        hang = 0.0
        try:
            raw = self._read_body()
            if path == f"{API_PREFIX}/health":
                self._allow(method, "GET")
                status, body = cloud.health()
            else:
                self._authenticate()
                if not path.startswith(f"{API_PREFIX}/_"):
                    admission = cloud.admit()
                    if admission.retry_after is not None:
                        raise CloudApiError(
                            429,
                            "rate_limited",
                            f"too many requests: the limit is {cloud.rate_limit_per_s:g} per "
                            f"second; retry after {format_retry_after(admission.retry_after)} s",
                            headers={"Retry-After": format_retry_after(admission.retry_after)},
                        )
                    if admission.error_status is not None:
                        raise CloudApiError(
                            admission.error_status,
                            "internal",
                            f"injected fault: the control plane answered "
                            f"{admission.error_status} (retry the request)",
                        )
                    hang = admission.hang_s
                status, body = self._route(method, path, query, raw)
        except CloudApiError as exc:
            status, body, headers = exc.status, exc.body(), exc.headers
        except Exception as exc:
            log.exception("the simulated cloud failed on %s %s", method, path)
            status = 500
            body = {"error": {"code": "internal", "message": f"the simulated cloud failed: {exc}"}}
        if hang > 0:
            cloud.pause(hang)
        self._reply(status, body, headers)

    def _read_body(self) -> bytes:
        length_text = self.headers.get("Content-Length")
        if not length_text:
            return b""
        try:
            length = int(length_text)
        except ValueError:
            self.close_connection = True
            raise bad_request("the Content-Length header is not a number") from None
        if length < 0 or length > MAX_BODY:
            self.close_connection = True
            raise bad_request(f"the body must be at most {MAX_BODY} bytes")
        return self.rfile.read(length)

    def _authenticate(self) -> None:
        header = self.headers.get("Authorization", "")
        scheme, _, given = header.partition(" ")
        token = self.server.cloud.token
        if scheme.lower() != "bearer" or not hmac.compare_digest(
            given.strip().encode(), token.encode()
        ):
            raise CloudApiError(
                401,
                "unauthorized",
                "missing or wrong bearer token: send 'Authorization: Bearer <token>' with the "
                "token from the cloud's server.json",
                headers={"WWW-Authenticate": 'Bearer realm="xyclaw-sim"'},
            )

    @staticmethod
    def _allow(method: str, *allowed: str) -> None:
        if method not in allowed:
            raise CloudApiError(
                405,
                "method_not_allowed",
                f"{method} is not allowed here; use {' or '.join(allowed)}",
                headers={"Allow": ", ".join(allowed)},
            )

    @staticmethod
    def _json(raw: bytes) -> Any:
        if not raw:
            return None
        try:
            return json.loads(raw)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise bad_request(f"the body is not valid JSON: {exc}") from None

    def _route(self, method: str, path: str, query: str, raw: bytes) -> Result:
        cloud = self.server.cloud
        if path == f"{API_PREFIX}/offers":
            self._allow(method, "GET")
            return cloud.list_offers()
        if path == f"{API_PREFIX}/clusters":
            self._allow(method, "GET", "POST")
            if method == "POST":
                return cloud.create_cluster(self._json(raw), self.headers.get("Idempotency-Key"))
            flags = parse_qs(query).get("all", ["0"])
            return cloud.list_clusters(include_terminated=flags[-1].lower() in ("1", "true"))
        match = _CLUSTER_PATH.match(path)
        if match:
            self._allow(method, "GET", "DELETE", "PATCH")
            if method == "DELETE":
                return cloud.delete_cluster(match[1])
            if method == "PATCH":
                return cloud.update_cluster(match[1], self._json(raw))
            return cloud.get_cluster(match[1])
        if path == f"{API_PREFIX}/billing":
            self._allow(method, "GET")
            return cloud.billing()
        if path == f"{API_PREFIX}/_faults":
            self._allow(method, "GET", "POST")
            return cloud.set_faults(self._json(raw)) if method == "POST" else cloud.get_faults()
        match = _PREEMPT_PATH.match(path)
        if match:
            self._allow(method, "POST")
            return cloud.preempt(match[1], self._json(raw) if raw else {})
        match = _NODE_FAULT_PATH.match(path)
        if match:
            self._allow(method, "POST")
            return cloud.node_fault(match[1], self._json(raw))
        raise not_found(f"no such endpoint: {method} {path} (see docs/sim-api.md)")

    def _reply(self, status: int, body: dict[str, Any], headers: dict[str, str]) -> None:
        data = json.dumps(body).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for name, value in headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)
        except OSError:  # the client gave up (an injected hang outlasted its timeout)
            self.close_connection = True


class SimCloudServer:
    """The cloud behind an HTTP server on loopback. ``start`` opens the cloud, ``stop`` closes it.

    ``port=None`` tries the port the cloud last listened on, then any free one.
    """

    def __init__(
        self,
        cloud: SimCloud,
        *,
        host: str = "127.0.0.1",
        port: int | None = 0,
        server_file: bool = True,
    ) -> None:
        self.cloud = cloud
        self.host = host
        self._wanted_port = port
        self._server_file = server_file
        self._httpd: _HttpServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        if self._httpd is None:
            raise ProviderError("the simulated cloud's server is not started")
        return int(self._httpd.server_address[1])

    @property
    def url(self) -> str:
        """The API's base URL; endpoints are below it (``{url}/offers``)."""
        return f"http://{self.host}:{self.port}{API_PREFIX}"

    @property
    def server_file(self) -> Path:
        return self.cloud.state_dir / files.SERVER_FILE

    def start(self) -> SimCloudServer:
        self.cloud.open()
        try:
            self._httpd = self._bind()
        except BaseException:
            self.cloud.close()
            raise
        self.cloud.remember_port(self.port)
        self._thread = threading.Thread(
            target=self._httpd.serve_forever,
            kwargs={"poll_interval": 0.05},
            name=f"simcloud-http-{self.port}",
            daemon=True,
        )
        self._thread.start()
        if self._server_file:
            files.write_json(
                self.cloud.state_dir / files.SERVER_FILE,
                {
                    "pid": os.getpid(),
                    "port": self.port,
                    "url": self.url,
                    "token": self.cloud.token,
                    "started_at": self.cloud.started_at,
                },
            )
        log.info("simulated cloud listening on %s", self.url)
        return self

    def _bind(self) -> _HttpServer:
        ports = [self._wanted_port] if self._wanted_port is not None else []
        if self._wanted_port is None:
            if self.cloud.last_port:
                ports.append(self.cloud.last_port)
            ports.append(0)
        error: OSError | None = None
        for port in ports:
            try:
                return _HttpServer((self.host, port or 0), self.cloud)
            except OSError as exc:
                error = exc
        raise ProviderError(
            f"the simulated cloud cannot listen on {self.host}:{ports[0]}: {error}",
            hint="pick another port with --port, or 0 for any free one",
        ) from error

    def stop(self) -> None:
        httpd, self._httpd = self._httpd, None
        if httpd is None:
            return
        port = int(httpd.server_address[1])
        httpd.shutdown()
        httpd.server_close()
        httpd.close_connections()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self.cloud.close()
        if self._server_file:
            path = self.cloud.state_dir / files.SERVER_FILE
            with contextlib.suppress(ProviderError):
                data = files.read_json(path)
                if (
                    isinstance(data, dict)
                    and data.get("pid") == os.getpid()
                    and (data.get("port") == port)
                ):
                    path.unlink(missing_ok=True)
        log.info("simulated cloud on port %d stopped", port)

    def __enter__(self) -> SimCloudServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
