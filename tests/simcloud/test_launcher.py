"""The cloud as a background process: started once, found again, stopped; and its commands."""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.simcloud.helpers import a800_body
from xyclaw.cli.main import main
from xyclaw.sim.cloud import launcher


def test_a_background_cloud_is_started_reused_survives_a_crash_and_stops(
    tmp_path: Path, pubkey: str, capsys: pytest.CaptureFixture[str]
) -> None:
    state = tmp_path / "bg"
    endpoint = launcher.ensure_running(state, fast=True, timeout_s=60)
    try:
        assert endpoint.pid != os.getpid()
        assert endpoint.url.endswith("/v1")
        assert (state / "server.json").stat().st_mode & 0o777 == 0o600
        assert (state / "token").stat().st_mode & 0o777 == 0o600
        with client(endpoint) as http:
            reply = http.post("/clusters", json=a800_body(pubkey), headers={"Idempotency-Key": "x"})
            assert reply.status_code == 202, reply.text
            cluster_id = reply.json()["cluster"]["id"]
            cluster = wait_running(http, cluster_id)

        assert launcher.ensure_running(state) == endpoint  # found, not started again
        assert main(["sim", "status", "--state", str(state), "--json"]) == 0
        shown = json.loads(capsys.readouterr().out)
        assert shown["running"] is True
        assert shown["url"] == endpoint.url
        assert shown["clusters"] == {"running": 1}
        assert endpoint.token not in json.dumps(shown)
    finally:
        os.kill(endpoint.pid, signal.SIGKILL)  # a crash: no clean stop, server.json stays
    deadline = time.monotonic() + 10
    while launcher.pid_alive(endpoint.pid):
        assert time.monotonic() < deadline
        time.sleep(0.05)
    assert not launcher.status(state).running

    again = launcher.ensure_running(state, fast=True, timeout_s=60)
    try:
        assert again.pid != endpoint.pid
        assert again.token == endpoint.token  # made once, kept in the folder
        with client(again) as http:
            kept = wait_running(http, cluster_id)
            assert [n["ssh"]["host_key"] for n in kept["nodes"]] == [
                n["ssh"]["host_key"] for n in cluster["nodes"]
            ]
            entries = http.get("/billing").json()["entries"]
            assert {e["start"] for e in entries} == {cluster["running_at"]}
    finally:
        assert main(["sim", "stop", "--state", str(state)]) == 0
    assert "stopped the simulated cloud" in capsys.readouterr().out
    assert not launcher.pid_alive(again.pid)
    assert not (state / "server.json").exists()
    assert not launcher.stop(state)


def client(endpoint: launcher.SimCloudEndpoint) -> httpx.Client:
    headers = {"Authorization": f"Bearer {endpoint.token}"}
    return httpx.Client(base_url=endpoint.url, headers=headers, timeout=10)


def wait_running(http: httpx.Client, cluster_id: str) -> dict[str, Any]:
    deadline = time.monotonic() + 20
    while True:
        cluster: dict[str, Any] = http.get(f"/clusters/{cluster_id}").json()["cluster"]
        if cluster["state"] == "running":
            return cluster
        assert time.monotonic() < deadline, cluster["state"]
        time.sleep(0.05)


def test_commands_without_a_cloud(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    state = tmp_path / "none"
    assert main(["sim", "status", "--state", str(state)]) == 0
    assert "not running" in capsys.readouterr().out
    assert main(["sim", "stop", "--state", str(state)]) == 0
    assert "no simulated cloud was running" in capsys.readouterr().out
    assert main(["sim", "serve", "--state", str(state), "--port", "70000"]) == 2
    assert "--port" in capsys.readouterr().err


def test_a_background_cloud_stops_when_its_folder_is_deleted(tmp_path: Path) -> None:
    import shutil

    state = tmp_path / "gone-soon" / "sim"
    endpoint = launcher.ensure_running(state, fast=True)
    assert launcher.pid_alive(endpoint.pid)
    shutil.rmtree(tmp_path / "gone-soon")
    deadline = time.monotonic() + 15
    while launcher.pid_alive(endpoint.pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not launcher.pid_alive(endpoint.pid)
