"""The sim provider's HTTP client against a scripted server on loopback: retries and errors."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from xyclaw.errors import CapacityError, ProviderError
from xyclaw.providers.http_retry import ApiError, RetryPolicy
from xyclaw.providers.sim import SimProvider

Script = list[tuple[int, dict[str, object], dict[str, str], float]]


class ScriptedServer:
    """Answers each request with the next scripted (status, body, headers, delay)."""

    def __init__(self) -> None:
        self.script: Script = []
        self.seen: list[tuple[str, str, dict[str, str]]] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                return

            def _answer(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                if length:
                    self.rfile.read(length)
                outer.seen.append((self.command, self.path, dict(self.headers)))
                status, body, headers, delay = (
                    outer.script.pop(0) if outer.script else (500, {}, {}, 0.0)
                )
                if delay:
                    time.sleep(delay)
                data = json.dumps(body).encode()
                try:
                    self.send_response(status)
                    for k, v in headers.items():
                        self.send_header(k, v)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except OSError:
                    pass

            do_GET = do_POST = do_DELETE = _answer

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    s = ScriptedServer()
    yield s
    s.close()


CLUSTER = {
    "id": "c-1",
    "name": "x",
    "state": "pending",
    "gpu": "A800",
    "gpu_count": 8,
    "gpus_per_node": 8,
    "node_count": 1,
    "region": "Xiamen",
    "fabric": "roce-100",
    "price_per_gpu_hour_micros": 3_500_000,
    "currency": "CNY",
    "nodes": [],
    "idempotency_key": "k1",
}


def provider(server: ScriptedServer, attempts: int = 4, timeout_s: float = 2.0) -> SimProvider:
    return SimProvider(
        server.url,
        "secret-token",
        timeout_s=timeout_s,
        retry=RetryPolicy(attempts=attempts, base_delay_s=0.01, max_delay_s=0.05, deadline_s=20),
    )


def test_429_and_503_storm_is_ridden_out_with_the_same_idempotency_key(
    server: ScriptedServer,
) -> None:
    from xyclaw.providers import ClusterOrder

    server.script = [
        (
            429,
            {"error": {"code": "rate_limited", "message": "slow down"}},
            {"Retry-After": "0.05"},
            0,
        ),
        (503, {"error": {"code": "internal", "message": "boom"}}, {}, 0),
        (202, {"cluster": CLUSTER}, {}, 0),
    ]
    p = provider(server)
    order = ClusterOrder("A800", 8, "Xiamen", "roce-100", "k1", "ssh-ed25519 AAAA x")
    info = p.create(order)
    assert info.external_id == "c-1" and info.price_per_gpu_hour_micros == 3_500_000
    keys = [h.get("Idempotency-Key") for _, _, h in server.seen]
    assert keys == ["k1", "k1", "k1"]
    assert all(h.get("Authorization") == "Bearer secret-token" for _, _, h in server.seen)
    p.close()


def test_timeouts_are_retried(server: ScriptedServer) -> None:
    server.script = [
        (200, {"clusters": []}, {}, 1.0),
        (200, {"clusters": [CLUSTER]}, {}, 0),
    ]
    p = provider(server, timeout_s=0.3)
    assert [c.external_id for c in p.clusters()] == ["c-1"]
    p.close()


def test_endless_5xx_gives_a_clear_error_without_the_token(server: ScriptedServer) -> None:
    server.script = [(503, {}, {}, 0)] * 10
    p = provider(server, attempts=3)
    with pytest.raises(ProviderError) as info:
        p.clusters()
    text = str(info.value)
    assert "503" in text and "3 attempts" in text and "xyclaw sim status" in text
    assert "secret-token" not in text
    p.close()


def test_client_errors_are_not_retried(server: ScriptedServer) -> None:
    server.script = [
        (
            400,
            {"error": {"code": "bad_request", "message": "gpu_count must be a multiple of 8"}},
            {},
            0,
        ),
    ]
    p = provider(server)
    with pytest.raises(ApiError, match="multiple of 8"):
        p.terminate("c-1")
    assert len(server.seen) == 1
    server.script = [
        (
            422,
            {"error": {"code": "insufficient_capacity", "message": "Xiamen has 8 A800 free"}},
            {},
            0,
        )
    ]
    with pytest.raises(CapacityError, match="8 A800 free"):
        p.get("c-1")
    p.close()


def test_nonsense_record_is_a_provider_error(server: ScriptedServer) -> None:
    server.script = [(200, {"cluster": {"id": "c-1"}}, {}, 0)]
    p = provider(server)
    with pytest.raises(ProviderError, match="cannot read"):
        p.get("c-1")
    p.close()
