"""Budgets and idle release hold with no window open: the background guard that commands start,
one per data folder, and the cloud's own deadline when no XyClaw process runs at all."""

from __future__ import annotations

import os
import shutil
import signal
import time

import pytest

from tests.guard.conftest import Cli, Cloud, cost, pid_alive, seconds_to_reach
from xyclaw.billing.guard_process import Holder
from xyclaw.config import load_config
from xyclaw.engine.compose import build_engine
from xyclaw.paths import AppPaths


def test_a_budget_is_held_by_the_background_guard_after_the_cli_has_exited(
    cli: Cli, cloud: Cloud
) -> None:
    # 0.15 CNY at 28 CNY an hour: spent after 20 whole seconds of billing.
    cluster = cli.up("--budget", "0.15", here=False)  # returns once it is ready, and exits
    said = "XyClaw's guard, which releases it at the budget itself, runs (running in the"
    assert said + " background" in cluster["stderr"], cluster["stderr"]
    status = cli.status()
    assert status.running and status.info is not None, status
    assert status.info.holder == Holder.BACKGROUND and pid_alive(status.info.pid), status
    ext = cluster["external_id"]
    assert cloud.cluster(ext).state == "running", cloud.cluster(ext)

    ended = cloud.wait_ended(ext, timeout=45)  # nothing else runs meanwhile

    log = (cli.paths.log_dir / "guard.log").read_text()
    assert ended.extra["ended_by"] == "request", log  # released by XyClaw, not the deadline
    (entry,) = cloud.ledger(ext)
    assert entry.end is not None
    spent_at = entry.start + seconds_to_reach(150_000)
    assert spent_at - 1 <= entry.end <= spent_at + 5, (entry.end - spent_at, log)
    assert entry.amount_micros <= cost(seconds_to_reach(150_000) + 5)
    # The cloud's own deadline was the budget's moment plus the grace: the backstop, unused.
    assert abs(ended.extra["terminate_at"] - (spent_at + 5.0)) < 1.0, ended.extra
    # What the guard did is in the history, and `--once` says it (the guard still runs).
    released = f"released {cluster['name']}: budget 0.15 CNY spent, "
    deadline = time.monotonic() + 10
    while True:  # the history has it once the cloud has confirmed the release
        once = cli.here("guard", "--once")
        assert once.returncode == 0, once.stderr
        if released in once.stdout or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert "it checks by itself" in once.stdout, once.stdout
    assert released in once.stdout and "CNY charged" in once.stdout, once.stdout
    assert f"{cluster['name']} has spent 83% of its budget (0.12 CNY" in once.stdout  # warned


def test_the_cloud_ends_a_cluster_at_its_deadline_with_no_xyclaw_process_running(
    cli: Cli, cloud: Cloud, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XYCLAW_GUARD_AUTOSTART", "0")  # the guard stays stopped
    monkeypatch.setenv("XYCLAW_GUARD_DEADLINE_GRACE_S", "0")
    cluster = cli.up("--budget", "0.03")  # 4 whole seconds of billing
    assert (
        "XyClaw's guard, which releases it at the budget itself, is not running"
        in (cluster["stderr"])
    )
    assert not cli.status().running  # and the app is closed: the CLI has exited
    ext = cluster["external_id"]

    ended = cloud.wait_ended(ext, timeout=30)

    assert ended.extra["ended_by"] == "deadline"
    (entry,) = cloud.ledger(ext)
    assert entry.end == ended.extra["terminate_at"]  # billed to that second, not after
    assert entry.seconds == seconds_to_reach(30_000)
    assert entry.amount_micros == cost(seconds_to_reach(30_000))
    assert not cli.status().running


def test_idle_release_within_seconds_of_the_limit_with_no_window_open(
    cli: Cli, cloud: Cloud, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XYCLAW_BILLING_IDLE_RELEASE_MINUTES", "0.05")  # 3 s
    # The guard runs before the cluster is rented (as it does after any earlier command, and
    # as `up` starts it): its own start-up, seconds on a loaded machine, is not what is timed.
    started = cli.here("guard", "start")
    assert started.returncode == 0, started.stderr
    cli.wait_guard(lambda s: s.info is not None and s.info.last_check_at is not None)
    cluster = cli.up()  # no job, and the simulated GPUs idle
    assert "idle release needs XyClaw's guard running: it is (running" in cluster["stderr"]
    idle_limit_at = cluster["ready_at"] + 3.0
    ext = cluster["external_id"]

    ended = cloud.wait_ended(ext, timeout=30)

    assert ended.extra["ended_by"] == "request"
    (entry,) = cloud.ledger(ext)
    assert entry.end is not None
    assert idle_limit_at - 0.5 <= entry.end <= idle_limit_at + 5, entry.end - idle_limit_at
    # What the background guard said it did (its log), and the history's event.
    log = cli.paths.log_dir / "guard.log"
    released = f"released {cluster['name']}: idle for 3 s with no job, "
    deadline = time.monotonic() + 10
    while released not in log.read_text():  # written once the provider confirms
        assert time.monotonic() < deadline, log.read_text()
        time.sleep(0.1)
    assert f"warned {cluster['name']} is idle" in log.read_text()


def test_a_guard_killed_with_kill_9_is_started_again_by_the_next_command_and_by_the_desktop(
    cli: Cli, cloud: Cloud
) -> None:
    cluster = cli.up()
    first = cli.status()
    assert first.running and first.info is not None
    os.kill(first.info.pid, signal.SIGKILL)
    cli.wait_guard(lambda s: not s.running)

    assert cli.here("clusters").returncode == 0  # any command, while a cluster is live
    second = cli.wait_guard(lambda s: s.running and s.info is not None)
    assert second.info is not None and second.info.pid != first.info.pid
    assert second.info.holder == Holder.BACKGROUND

    # The desktop app runs the guard in its own process while it is open: it takes over.
    paths = cli.paths
    engine = build_engine(paths, load_config(paths.config_file))
    try:
        assert engine.start_maintenance() is True
        desktop = cli.status()
        assert desktop.info is not None and desktop.info.pid == os.getpid()
        assert desktop.info.holder == Holder.DESKTOP
        assert not pid_alive(second.info.pid)
    finally:
        engine.close()  # closing the app hands the guard back to a background process
    third = cli.wait_guard(lambda s: s.running and s.info is not None)
    assert third.info is not None and third.info.holder == Holder.BACKGROUND
    assert third.info.pid not in (os.getpid(), second.info.pid)

    # Killed again, with no command at all: the desktop app opening is enough.
    os.kill(third.info.pid, signal.SIGKILL)
    cli.wait_guard(lambda s: not s.running)
    engine = build_engine(paths, load_config(paths.config_file))
    try:
        assert engine.start_maintenance() is True
        mine = cli.status()
        assert mine.info is not None and mine.info.pid == os.getpid()
    finally:
        engine.close()
    down = cli.here("down", cluster["name"], "--yes")
    assert down.returncode == 0, down.stderr


def test_two_guards_started_at_once_never_run_together(cli: Cli) -> None:
    started = time.monotonic()
    a = cli.spawn("guard", "run", "--background")
    b = cli.spawn("guard", "run", "--background")
    deadline = time.monotonic() + 30
    while a.poll() is None and b.poll() is None:
        assert time.monotonic() < deadline, "neither guard exited"
        time.sleep(0.05)
    loser, winner = (a, b) if a.poll() is not None else (b, a)
    took = time.monotonic() - started
    _, err = loser.communicate(timeout=5)
    assert loser.returncode == 0
    assert "the guard already runs" in err and "this one exits" in err
    assert took < 10  # at once: it never built an engine
    status = cli.status()
    assert winner.poll() is None and status.running
    assert status.info is not None and status.info.pid == winner.pid
    # A third, started later, also refuses.
    third = cli.here("guard", "run", "--background")
    assert third.returncode == 0 and "the guard already runs" in third.stderr
    stop = cli.here("guard", "stop")
    assert stop.returncode == 0 and f"stopped the guard (pid {winner.pid}" in stop.stdout
    assert winner.wait(timeout=20) == 0
    assert not cli.status().running


def test_an_idle_background_guard_stops_when_its_data_folder_is_deleted(
    cli: Cli, paths: AppPaths
) -> None:
    guard = cli.spawn("guard", "run", "--background")
    # Running and past its first pass (its heartbeat says when it checked).
    status = cli.wait_guard(lambda s: s.info is not None and s.info.last_check_at is not None)
    assert status.info is not None and status.info.pid == guard.pid

    shutil.rmtree(paths.data_dir)  # as deleting a test's home or a data folder does

    assert guard.wait(timeout=15) == 0  # at its next look, not after linger_minutes (30 s)
    _, err = guard.communicate(timeout=5)
    assert f"the data folder {paths.data_dir} is gone; the guard stops" in err
    assert not paths.data_dir.exists()  # nor did it make the folder again on its way out
