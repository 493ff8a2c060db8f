"""The guard as a user meets it: `xyclaw` commands in their own processes, a simulated cloud in
the background (fast settings), and the guard processes they start, all stopped at the end."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from xyclaw.billing.guard_process import GuardStatus, guard_status, stop_guard
from xyclaw.paths import AppPaths
from xyclaw.providers import ClusterInfo
from xyclaw.providers.sim import SimProvider

# 8 x A800 in Xiamen, one node: 3.50 CNY per card-hour, 28 CNY an hour.
A800_X8_PER_HOUR = 8 * 3_500_000


def cost(seconds: int) -> int:
    """What 8 A800 cost for whole seconds, as the cloud's ledger and the meter count it."""
    return seconds * A800_X8_PER_HOUR // 3600


def seconds_to_reach(budget_micros: int) -> int:
    """Whole seconds of billing at which the cost first reaches the budget."""
    seconds = 0
    while cost(seconds) < budget_micros:
        seconds += 1
    return seconds


@dataclass
class Cli:
    """Runs `xyclaw ...` as a separate process, as a user's shell would."""

    paths: AppPaths
    started: list[subprocess.Popen[str]] = field(default_factory=list)

    def __call__(self, *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "xyclaw.cli.main", *args],
            capture_output=True,
            text=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
        )

    def here(self, *args: str) -> subprocess.CompletedProcess[str]:
        """The same command run in this process (faster; it still ends, and closes all it
        opened, before the test goes on)."""
        import contextlib
        import io

        from xyclaw.cli.main import main

        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(list(args))
        return subprocess.CompletedProcess(list(args), code, out.getvalue(), err.getvalue())

    def spawn(self, *args: str) -> subprocess.Popen[str]:
        proc = subprocess.Popen(
            [sys.executable, "-m", "xyclaw.cli.main", *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            text=True,
        )
        self.started.append(proc)
        return proc

    def up(self, *args: str, here: bool = True) -> dict[str, Any]:
        """`xyclaw up` of 8 A800s; ``here=False``: in a process of its own that then exits."""
        run = self.here if here else self
        done = run("up", "--gpu", "A800", "--gpus", "8", "--yes", "--json", *args)
        assert done.returncode == 0, done.stderr
        cluster: dict[str, Any] = json.loads(done.stdout)
        cluster["stderr"] = done.stderr
        return cluster

    def status(self) -> GuardStatus:
        return guard_status(self.paths)

    def wait_guard(self, check: Callable[[GuardStatus], bool], timeout: float = 15) -> GuardStatus:
        deadline = time.monotonic() + timeout
        while True:
            status = self.status()
            if check(status):
                return status
            assert time.monotonic() < deadline, f"the guard stayed {status.describe()}"
            time.sleep(0.05)


@dataclass
class Cloud:
    """The background simulated cloud the commands use, read over its API."""

    provider: SimProvider

    def cluster(self, external_id: str) -> ClusterInfo:
        info = self.provider.get(external_id)
        assert info is not None
        return info

    def wait_ended(self, external_id: str, timeout: float) -> ClusterInfo:
        """Until its billing has ended, by whatever ended it: the cloud says who ended it and
        its ledger has an end for every node (written a moment after it starts terminating)."""
        deadline = time.monotonic() + timeout
        while True:
            info = self.cluster(external_id)
            entries = self.ledger(external_id)
            if info.extra.get("ended_by") and entries and all(e.end for e in entries):
                return info
            assert time.monotonic() < deadline, f"{external_id} still bills ({info.state})"
            time.sleep(0.05)

    def ledger(self, external_id: str) -> list[Any]:
        return [e for e in self.provider.billing() if e.cluster_external_id == external_id]


@pytest.fixture(autouse=True)
def guard_autostarts(xyclaw_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """As for a user: commands start the background guard (other tests turn that off)."""
    monkeypatch.setenv("XYCLAW_GUARD_AUTOSTART", "1")


@pytest.fixture
def paths(monkeypatch: pytest.MonkeyPatch) -> AppPaths:
    """Short intervals so the tests stay fast; the guard processes inherit them."""
    monkeypatch.setenv("XYCLAW_GUARD_POLL_S", "0.5")
    monkeypatch.setenv("XYCLAW_GUARD_LINGER_MINUTES", "0.5")
    monkeypatch.setenv("XYCLAW_SSH_CONNECT_TIMEOUT_S", "3")
    monkeypatch.setenv("XYCLAW_TELEMETRY_SAMPLE_INTERVAL_S", "0.5")
    return AppPaths.from_environment().ensure()


@pytest.fixture
def cloud(paths: AppPaths) -> Iterator[Cloud]:
    from xyclaw.sim.cloud.launcher import ensure_running

    endpoint = ensure_running(paths.data_dir / "sim", fast=True)
    provider = SimProvider(endpoint.url, endpoint.token)
    yield Cloud(provider)
    provider.close()  # the root conftest stops the cloud itself


@pytest.fixture
def cli(paths: AppPaths) -> Iterator[Cli]:
    runner = Cli(paths)
    yield runner
    for proc in runner.started:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=5)
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()
    stop_guard(paths)  # what a command started in the background
    assert not guard_status(paths).running


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rpartition(")")[2].split()[:1] != ["Z"]
    except OSError:
        return True
