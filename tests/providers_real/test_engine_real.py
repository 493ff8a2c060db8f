"""The real adapters under the real engine: rent, bootstrap over SSH, meter, release; and
kill -9 of the app during launch and during terminate, then reconciliation.

The fake clouds run in this process and keep going while the app process dies, as a
real cloud would. After every restart: nothing bills that the store does not know,
and nothing was rented twice.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.providers_real import app
from tests.providers_real.fake_autodl import AutoDLSettings, FakeAutoDL
from tests.providers_real.fake_lambda import FakeLambda, LambdaSettings
from tests.providers_real.fakehttp import FakeCloud, FakeServer
from tests.providers_real.nodes import SimNodes
from tests.simcloud.helpers import FakeClock
from xyclaw.paths import AppPaths
from xyclaw.records import ClusterState
from xyclaw.remote import CommandResult

LIVE_IN_STORE = ("requested", "provisioning", "bootstrapping", "ready", "releasing")


@pytest.fixture
def nodes(tmp_path: Path) -> Iterator[SimNodes]:
    sim = SimNodes(tmp_path / "nodes")
    yield sim
    sim.stop()


Cloud = tuple[str, FakeCloud, str, int]  # kind, fake, url, ssh port


@pytest.fixture(params=["lambda", "autodl"])
def cloud(request: pytest.FixtureRequest, nodes: SimNodes) -> Iterator[Cloud]:
    fake: FakeCloud
    if request.param == "lambda":
        fake = FakeLambda(LambdaSettings(boot_s=0.3, terminate_s=0.2), on_active=nodes.lambda_node)
    else:
        fake = FakeAutoDL(AutoDLSettings(boot_s=0.3, terminate_s=0.2), on_running=nodes.autodl_node)
    server = FakeServer(fake).start()
    yield request.param, fake, server.url, nodes.port
    server.stop()


def billing(fake: FakeCloud) -> list[str]:
    """What the cloud bills now: instance or container ids."""
    if isinstance(fake, FakeLambda):
        return [i.id for i in fake.live()]
    assert isinstance(fake, FakeAutoDL)
    return [c.uuid for c in fake.live()]


def test_rent_bootstrap_meter_and_release(cloud: Cloud) -> None:
    kind, fake, url, port = cloud
    clock = FakeClock(start=time.time())
    engine = app.engine(kind, url, port, clock=clock)
    try:
        quote = engine.quote_request(app.REQUESTS[kind])
        cluster = engine.up(quote).result(60)
        assert cluster.state == ClusterState.READY and len(cluster.nodes) == 1
        gpus = app.REQUESTS[kind].gpu_count
        [result] = engine.exec(cluster.name, "nvidia-smi -L").values()
        assert isinstance(result, CommandResult) and result.stdout.count("GPU ") == gpus
        assert len(billing(fake)) == 1
        # No ledger at either cloud: the meter bills from the rented price.
        clock.advance(3600)
        engine.charge_meters()
        charged = engine.meter_charges(cluster.id)
        price = engine.cluster(cluster.name).price_per_gpu_hour_micros
        expected = price * gpus
        assert price > 0 and abs(charged - expected) <= expected * 0.01, (charged, expected)
        released = engine.down(cluster.name).result(60)
        assert released.state == ClusterState.RELEASED
        assert billing(fake) == []
        assert engine.cluster(cluster.name).currency == ("USD" if kind == "lambda" else "CNY")
    finally:
        engine.close()


# -- kill -9 -------------------------------------------------------------------------------


def run_app(kind: str, url: str, port: int, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "tests.providers_real.app", kind, url, str(port), *args],
        cwd=Path(__file__).resolve().parents[2],
        env=dict(os.environ),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def wait_for(condition: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def rows() -> list[tuple[int, str, str | None, str]]:
    db = AppPaths.from_environment().database
    conn = sqlite3.connect(db)
    try:
        return conn.execute(
            "SELECT id, state, external_id, idempotency_key FROM clusters"
        ).fetchall()
    finally:
        conn.close()


def check_invariants(kind: str, url: str, port: int) -> None:
    """Everything the cloud bills is known to the store as live; nothing was rented twice."""
    provider = app.provider(kind, url, port, AppPaths.from_environment().state_dir)
    try:
        listed = provider.clusters()
    finally:
        provider.close()
    keys = [c.idempotency_key for c in listed]
    assert len(keys) == len(set(keys)), "a cluster was rented twice for one request"
    by_ext = {r[2]: r for r in rows() if r[2]}
    by_key = {r[3]: r for r in rows()}
    for info in listed:
        if info.state in ("terminating", "terminated"):
            continue
        row = by_ext.get(info.external_id) or by_key.get(info.idempotency_key or "")
        assert row is not None, f"{info.external_id} bills but the store does not know it"
        assert row[1] in LIVE_IN_STORE, f"{info.external_id} bills but the store says {row[1]}"


def slow(fake: FakeCloud, seconds: float, *, launch: bool = False, terminate: bool = False) -> None:
    if isinstance(fake, FakeLambda):
        if launch:
            fake.settings.launch_delay_s = seconds
        if terminate:
            fake.settings.terminate_delay_s = seconds
    elif isinstance(fake, FakeAutoDL):
        if launch:
            fake.settings.create_delay_s = seconds
        if terminate:
            fake.settings.stop_delay_s = seconds


CREATE = {"lambda": ("POST", "/api/v1/instance-operations/launch"),
          "autodl": ("POST", "/api/v1/dev/deployment")}  # fmt: skip
RELEASE = {"lambda": ("POST", "/api/v1/instance-operations/terminate"),
           "autodl": ("PUT", "/api/v1/dev/deployment/operate")}  # fmt: skip


@pytest.mark.slow
def test_kill_9_during_launch_then_reconcile_releases_it(cloud: Cloud) -> None:
    kind, fake, url, port = cloud
    slow(fake, 5.0, launch=True)
    proc = run_app(kind, url, port, "up")
    wait_for(lambda: bool(fake.requests_to(*CREATE[kind])), 60, "the create request")
    time.sleep(0.3)  # the cloud has made it; its answer is still on the way
    proc.kill()
    proc.communicate(timeout=30)
    assert len(billing(fake)) == 1  # it bills, and the app died before it heard of it
    [(_, state, external_id, _)] = rows()
    assert state == "requested" and external_id is None
    # Restart: reconciliation finds it by its name and releases it.
    restart = run_app(kind, url, port, "reconcile")
    out, err = restart.communicate(timeout=120)
    assert restart.returncode == 0, err
    assert "interrupted_released=[" in out and "interrupted_released=[]" not in out, out
    wait_for(lambda: billing(fake) == [], 10, "the release")
    [(_, state, _, _)] = rows()
    assert state == "released"
    check_invariants(kind, url, port)
    assert len(fake.requests_to(*CREATE[kind])) == 1  # never rented twice


@pytest.mark.slow
def test_kill_9_during_terminate_then_reconcile_completes_it(cloud: Cloud) -> None:
    kind, fake, url, port = cloud
    up = run_app(kind, url, port, "up")
    out, err = up.communicate(timeout=120)
    assert up.returncode == 0, err
    name = out.strip().splitlines()[-1]
    assert len(billing(fake)) == 1
    slow(fake, 5.0, terminate=True)
    proc = run_app(kind, url, port, "down", name)
    wait_for(lambda: bool(fake.requests_to(*RELEASE[kind])), 60, "the release request")
    time.sleep(0.3)
    proc.kill()
    proc.communicate(timeout=30)
    [(_, state, _, _)] = rows()
    assert state == "releasing"
    slow(fake, 0.0, terminate=True)
    restart = run_app(kind, url, port, "reconcile")
    out, err = restart.communicate(timeout=120)
    assert restart.returncode == 0, err
    [(_, state, _, _)] = rows()
    assert state == "released", out
    assert billing(fake) == []
    check_invariants(kind, url, port)
