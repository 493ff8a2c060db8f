"""A service job's endpoint on this machine: its port forwarded over the head node's SSH
connection, its readiness check, and the request rate and latency sampled there.

The readiness check is a plain ``GET`` of ``service.readiness_path`` through the forward
(what a user's client would reach); a 2xx answer is ready. Requests per second are the
connections the forward accepted per second (HTTP clients that keep a connection open
count once per connection), latency the time of the sampling ``GET`` itself.
"""

from __future__ import annotations

import http.client
import time
from dataclasses import dataclass

from xyclaw.errors import RemoteError
from xyclaw.jobs.nodes import JobNode, NodeShell
from xyclaw.remote.forward import PortForward


@dataclass(frozen=True)
class Probe:
    ok: bool
    status: int | None
    latency_ms: float | None
    error: str | None = None


class ServiceEndpoint:
    def __init__(self, shell: NodeShell, head: JobNode, port: int, path: str) -> None:
        self.shell = shell
        self.head = head
        self.port = port
        self.path = path
        self._forward: PortForward | None = None
        self._last: tuple[float, int] | None = None
        self._served = 0  # connections served since the last take_served (probes not counted)

    @property
    def url(self) -> str | None:
        forward = self._forward
        return None if forward is None or not forward.alive else forward.url

    def open(self) -> str:
        """Listen on a free loopback port of this machine; returns its URL."""
        if self._forward is not None and self._forward.alive:
            return self._forward.url
        self.close()
        self._forward = self.shell.forward(self.head, self.port)
        self._last = (time.monotonic(), self._forward.stats.accepted)
        return self._forward.url

    def probe(self, timeout_s: float = 5.0) -> Probe:
        forward = self._forward
        if forward is None or not forward.alive:
            try:
                self.open()
            except RemoteError as exc:
                return Probe(False, None, None, exc.message)
            forward = self._forward
            assert forward is not None
        host, port = forward.local_address
        started = time.monotonic()
        conn = http.client.HTTPConnection(host, port, timeout=timeout_s)
        try:
            conn.request("GET", self.path)
            response = conn.getresponse()
            response.read()
            status = response.status
        except (OSError, http.client.HTTPException) as exc:
            return Probe(False, None, None, str(exc) or type(exc).__name__)
        finally:
            conn.close()
        latency = (time.monotonic() - started) * 1000.0
        return Probe(200 <= status < 300, status, latency)

    def request_rate(self) -> float | None:
        """Connections per second through the forward since the last call (the probe's own
        connection not counted)."""
        forward = self._forward
        if forward is None:
            return None
        now, accepted = time.monotonic(), forward.stats.accepted
        if self._last is None:
            self._last = (now, accepted)
            return None
        then, before = self._last
        self._last = (now, accepted)
        served = max(0, accepted - before - 1)
        self._served += served
        if now <= then:
            return None
        return served / (now - then)

    def count_from_now(self) -> None:
        """Count requests from here: the readiness checks before it are not requests."""
        forward = self._forward
        self._last = None if forward is None else (time.monotonic(), forward.stats.accepted)
        self._served = 0

    def take_served(self) -> int:
        """Requests (connections) served since the last call: a service's cost per 1k
        requests counts them (issue 36)."""
        served, self._served = self._served, 0
        return served

    def close(self) -> None:
        if self._forward is not None:
            self._forward.close()
            self._forward = None
