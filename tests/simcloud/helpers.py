"""Helpers for the simulated cloud's tests: a fake clock, fake nodes, an API client."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import httpx

from xyclaw.sim.cloud import NodeLaunch, SimCloudServer
from xyclaw.sim.cloud.keys import load_or_create_host_key, public_line


class FakeClock:
    """Epoch seconds that move only when a test says so."""

    def __init__(self, start: float = 1_750_000_000.0) -> None:
        self.now = start
        self._lock = threading.Lock()

    def __call__(self) -> float:
        with self._lock:
            return self.now

    def advance(self, seconds: float) -> None:
        with self._lock:
            self.now += seconds


@dataclass
class FakeNode:
    """A node that only listens (no SSH): enough to see ports open and close."""

    launch: NodeLaunch
    faults: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._sock = socket.socket()
        self._sock.bind((self.launch.host, self.launch.port))
        self._sock.listen(8)
        self._port = int(self._sock.getsockname()[1])
        self._key = public_line(load_or_create_host_key(self.launch.host_key_path))

    @property
    def port(self) -> int:
        return self._port

    @property
    def host_key(self) -> str:
        return self._key

    def apply_fault(self, fault: str, args: Mapping[str, Any]) -> list[str]:
        if fault not in ("node_down", "clear"):
            raise ValueError(f"unknown fault {fault}")
        self.faults.append((fault, dict(args)))
        return [name for name, _ in self.faults]

    def stop(self) -> None:
        self._sock.close()


class FakeFactory:
    def __init__(self) -> None:
        self.started: list[FakeNode] = []

    def __call__(self, launch: NodeLaunch) -> FakeNode:
        node = FakeNode(launch)
        self.started.append(node)
        return node


class Api:
    """An httpx client of one server, with the token (or none)."""

    def __init__(self, server: SimCloudServer, token: str | None = None) -> None:
        headers = {"Authorization": f"Bearer {token or server.cloud.token}"}
        self.server = server
        self.http = httpx.Client(base_url=server.url, headers=headers, timeout=10)

    def create(self, body: dict[str, Any], key: str) -> httpx.Response:
        return self.http.post("/clusters", json=body, headers={"Idempotency-Key": key})

    def cluster(self, cluster_id: str) -> dict[str, Any]:
        reply = self.http.get(f"/clusters/{cluster_id}")
        assert reply.status_code == 200, reply.text
        cluster: dict[str, Any] = reply.json()["cluster"]
        return cluster

    def wait_state(self, cluster_id: str, *states: str, timeout: float = 10) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            cluster = self.cluster(cluster_id)
            if cluster["state"] in states:
                return cluster
            assert time.monotonic() < deadline, f"cluster stayed {cluster['state']}"
            time.sleep(0.02)

    def wait_node(self, cluster_id: str, rank: int, state: str, timeout: float = 10) -> None:
        deadline = time.monotonic() + timeout
        while self.cluster(cluster_id)["nodes"][rank]["state"] != state:
            assert time.monotonic() < deadline, f"node {rank} never became {state}"
            time.sleep(0.02)

    def faults(self, **fields: Any) -> dict[str, Any]:
        reply = self.http.post("/_faults", json=fields)
        assert reply.status_code == 200, reply.text
        faults: dict[str, Any] = reply.json()
        return faults

    def close(self) -> None:
        self.http.close()


def a800_body(pubkey: str, **over: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "gpu": "A800",
        "gpu_count": 16,
        "region": "Xiamen",
        "fabric": "ib-hdr-200",
        "ssh_public_key": pubkey,
    }
    body.update(over)
    return body


def port_open(port: int) -> bool:
    with socket.socket() as sock:
        sock.settimeout(1)
        return sock.connect_ex(("127.0.0.1", port)) == 0
