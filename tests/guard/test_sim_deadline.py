"""The simulated cloud's own termination deadline: set on create, moved by PATCH, honoured by
the cloud with no client connected, billed to the second and shown in its ledger."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.simcloud.helpers import Api, FakeClock, FakeFactory, a800_body
from xyclaw.sim.cloud import CloudSettings, SimCloudServer, build_cloud

# 16 x A800 on InfiniBand: 4.60 CNY per card-hour.
PRICE = 4_600_000


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def cloud(tmp_path: Path, clock: FakeClock) -> Iterator[Callable[[], tuple[SimCloudServer, Api]]]:
    started: list[tuple[SimCloudServer, Api]] = []

    def start() -> tuple[SimCloudServer, Api]:
        built = build_cloud(
            tmp_path / "cloud", CloudSettings.fast(), clock=clock, node_factory=FakeFactory()
        )
        server = SimCloudServer(built).start()
        started.append((server, Api(server)))
        return started[-1]

    yield start
    for server, api in started:
        api.close()
        server.stop()


def _pubkey() -> str:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    key = Ed25519PrivateKey.generate().public_key()
    raw = key.public_bytes(serialization.Encoding.OpenSSH, serialization.PublicFormat.OpenSSH)
    return raw.decode() + " renter@test"


def _entries(api: Api, cluster_id: str) -> list[dict[str, Any]]:
    return [e for e in api.http.get("/billing").json()["entries"] if e["cluster_id"] == cluster_id]


def _wait_terminated(api: Api, cluster_id: str) -> dict[str, Any]:
    return api.wait_state(cluster_id, "terminated", timeout=10)


def test_a_deadline_given_on_create_ends_the_cluster_and_its_billing_to_the_second(
    cloud: Callable[[], tuple[SimCloudServer, Api]], clock: FakeClock
) -> None:
    _, api = cloud()
    deadline = clock() + 600.5
    reply = api.create(a800_body(_pubkey(), terminate_at=deadline), "k1")
    assert reply.status_code == 202 and reply.json()["cluster"]["terminate_at"] == deadline
    cluster_id = reply.json()["cluster"]["id"]
    running = api.wait_state(cluster_id, "running")
    assert running["ended_by"] is None
    clock.advance(300)
    time.sleep(0.2)  # the cloud looks at its clock every 50 ms: nothing is due yet
    assert api.cluster(cluster_id)["state"] == "running"
    clock.advance(3600)  # well past the deadline: no client asks for anything
    ended = _wait_terminated(api, cluster_id)
    assert ended["ended_by"] == "deadline"
    (entry,) = _entries(api, cluster_id)[:1]
    assert entry["end"] == deadline and entry["ended_by"] == "deadline"
    assert entry["terminate_at"] == deadline
    seconds = int(deadline - entry["start"])
    assert entry["seconds"] == seconds
    assert entry["amount_micros"] == seconds * 8 * PRICE // 3600  # not a second more


def test_patch_moves_or_drops_the_deadline_and_is_refused_once_the_cluster_ended(
    cloud: Callable[[], tuple[SimCloudServer, Api]], clock: FakeClock
) -> None:
    _, api = cloud()
    reply = api.create(a800_body(_pubkey(), terminate_at=clock() + 60), "k2")
    cluster_id = reply.json()["cluster"]["id"]
    api.wait_state(cluster_id, "running")
    moved = api.http.patch(f"/clusters/{cluster_id}", json={"terminate_at": clock() + 7200})
    assert moved.status_code == 200 and moved.json()["cluster"]["terminate_at"] == clock() + 7200
    clock.advance(3600)
    time.sleep(0.2)
    assert api.cluster(cluster_id)["state"] == "running"  # the old deadline no longer holds
    dropped = api.http.patch(f"/clusters/{cluster_id}", json={"terminate_at": None})
    assert dropped.json()["cluster"]["terminate_at"] is None
    clock.advance(7200)
    time.sleep(0.2)
    assert api.cluster(cluster_id)["state"] == "running"
    bad = api.http.patch(f"/clusters/{cluster_id}", json={"name": "x"})
    assert bad.status_code == 400 and "terminate_at" in bad.json()["error"]["message"]
    silly = api.http.patch(f"/clusters/{cluster_id}", json={"terminate_at": "soon"})
    assert silly.status_code == 400 and "terminate_at" in silly.json()["error"]["message"]
    api.http.delete(f"/clusters/{cluster_id}")
    ended = _wait_terminated(api, cluster_id)
    assert ended["ended_by"] == "request"
    late = api.http.patch(f"/clusters/{cluster_id}", json={"terminate_at": clock() + 10})
    assert late.status_code == 409 and late.json()["error"]["code"] == "cluster_ended"
    assert api.http.patch("/clusters/c-nope", json={"terminate_at": None}).status_code == 404


def test_a_deadline_that_came_while_the_cloud_was_down_still_ends_billing_at_the_deadline(
    cloud: Callable[[], tuple[SimCloudServer, Api]], clock: FakeClock
) -> None:
    server, api = cloud()
    deadline = clock() + 120
    cluster_id = api.create(a800_body(_pubkey(), terminate_at=deadline), "k3").json()["cluster"][
        "id"
    ]
    api.wait_state(cluster_id, "running")
    api.close()
    server.stop()
    clock.advance(3600)  # the cloud is down an hour; the deadline passes meanwhile
    _, api = cloud()
    ended = _wait_terminated(api, cluster_id)
    assert ended["ended_by"] == "deadline"
    assert all(e["end"] == deadline for e in _entries(api, cluster_id))
