"""Rented nodes are real SSH servers: strict host keys from the record, GPUs as ordered."""

from __future__ import annotations

import base64
from collections.abc import Callable
from typing import Any

import paramiko
import pytest

from tests.simcloud.conftest import ServerMaker
from tests.simcloud.helpers import Api, a800_body, port_open

ApiMaker = Callable[..., Api]


def connect(node: dict[str, Any], key: paramiko.PKey) -> paramiko.SSHClient:
    """Connect the way a careful client does: only the host key the cloud reported."""
    ssh = node["ssh"]
    key_type, blob = ssh["host_key"].split()[:2]
    client = paramiko.SSHClient()
    client.set_missing_host_key_policy(paramiko.RejectPolicy())
    client.get_host_keys().add(
        f"[{ssh['host']}]:{ssh['port']}",
        key_type,
        paramiko.PKey.from_type_string(key_type, base64.b64decode(blob)),
    )
    client.connect(ssh["host"], port=ssh["port"], username=ssh["user"], pkey=key,
                   look_for_keys=False, allow_agent=False, timeout=10)  # fmt: skip
    return client


def run(client: paramiko.SSHClient, command: str) -> str:
    _, out, _ = client.exec_command(command, timeout=20)
    text: str = out.read().decode()
    return text


def test_nodes_answer_ssh_as_ordered_and_survive_a_restart(
    make_server: ServerMaker, api_of: ApiMaker, renter_key: paramiko.PKey, pubkey: str
) -> None:
    api = api_of(make_server())
    created = api.create(a800_body(pubkey), "ssh").json()["cluster"]
    cluster = api.wait_state(created["id"], "running")
    assert cluster["node_count"] == 2
    for node in cluster["nodes"]:
        client = connect(node, renter_key)
        try:
            gpus = run(client, "nvidia-smi -L").splitlines()
            assert len(gpus) == cluster["gpus_per_node"]
            assert all("A800" in line for line in gpus)
            assert run(client, "hostname").strip() == node["hostname"]
        finally:
            client.close()
    first, second = (connect(n, renter_key) for n in cluster["nodes"])
    try:
        run(first, "echo from-rank-0 > /shared/hello")
        assert run(second, "cat /shared/hello").strip() == "from-rank-0"  # one shared volume
    finally:
        first.close()
        second.close()

    api.server.stop()
    api2 = api_of(make_server())
    again = api2.cluster(created["id"])
    assert again["state"] == "running"
    for before, after in zip(cluster["nodes"], again["nodes"], strict=True):
        assert after["ssh"]["host_key"] == before["ssh"]["host_key"]
        client = connect(after, renter_key)  # RejectPolicy: the key must be the same
        try:
            assert len(run(client, "nvidia-smi -L").splitlines()) == 8
        finally:
            client.close()

    assert api2.http.delete(f"/clusters/{created['id']}").status_code == 202
    api2.wait_state(created["id"], "terminated")
    for node in again["nodes"]:
        assert not port_open(node["ssh"]["port"])
        with pytest.raises((OSError, paramiko.SSHException)):
            connect(node, renter_key)


def test_a_node_fault_is_seen_over_ssh(
    make_server: ServerMaker, api_of: ApiMaker, renter_key: paramiko.PKey, pubkey: str
) -> None:
    api = api_of(make_server())
    body = {"gpu": "RTX4090", "gpu_count": 8, "region": "Xiamen", "fabric": "none",
            "ssh_public_key": pubkey}  # fmt: skip
    created = api.create(body, "one").json()["cluster"]
    node = api.wait_state(created["id"], "running")["nodes"][0]
    reply = api.http.post(
        f"/_nodes/{node['id']}/faults", json={"fault": "xid", "code": 79, "gpu": 3}
    )
    assert reply.status_code == 200, reply.text
    assert reply.json()["active"] == ["xid79(gpu=3)"]
    client = connect(node, renter_key)
    try:
        assert "Xid" in run(client, "dmesg | tail -5")
    finally:
        client.close()
    cleared = api.http.post(f"/_nodes/{node['id']}/faults", json={"fault": "clear"})
    assert cleared.json()["active"] == []
    wrong = api.http.post(
        f"/_nodes/{node['id']}/faults", json={"fault": "xid", "gpu": 99, "code": 79}
    )
    assert wrong.status_code == 400
    assert "GPU" in wrong.json()["error"]["message"]
