"""The desktop's quit stops the simulated cloud it started (issue 28, item 3): with no
simulated cluster left, nothing keeps running after the app; with one live, the cloud stays
for the background guard (the quit dialog says so); a cloud the user started themselves
(``xyclaw sim start``) is never stopped; a command-line engine leaves it for the next
command."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from xyclaw.config import load_config
from xyclaw.engine import Engine
from xyclaw.engine.compose import build_engine
from xyclaw.engine.lifecycle import UpRequest
from xyclaw.paths import AppPaths
from xyclaw.sim.cloud import launcher

pytestmark = pytest.mark.slow


def _engine() -> Engine:
    paths = AppPaths.from_environment()
    config = load_config(paths.config_file, environ={"XYCLAW_SIM_PROVISION_DELAY_S": "0.1"})
    return build_engine(paths, config)


def _cloud() -> Path:
    return AppPaths.from_environment().data_dir / "sim"


def _use_the_cloud(engine: Engine) -> None:
    assert engine.offers(provider="sim")  # the sim provider starts the cloud
    assert launcher.status(_cloud()).running


def test_quitting_with_no_simulated_cluster_stops_the_cloud_the_app_started(
    xyclaw_home: Path,
) -> None:
    engine = _engine()
    _use_the_cloud(engine)
    engine.stop_sim_cloud_on_close()
    engine.close()
    assert not launcher.status(_cloud()).running


def test_quitting_with_a_live_simulated_cluster_keeps_the_cloud(xyclaw_home: Path) -> None:
    engine = _engine()
    _use_the_cloud(engine)
    quote = engine.quote_request(UpRequest(provider="sim", gpu="A10", gpu_count=1))
    engine.up(quote).result(120)
    engine.stop_sim_cloud_on_close()
    engine.close()
    try:
        assert launcher.status(_cloud()).running
    finally:
        launcher.stop(_cloud())


def test_a_command_leaves_the_cloud_for_the_next_command(xyclaw_home: Path) -> None:
    engine = _engine()  # a command: it does not ask for the stop
    _use_the_cloud(engine)
    engine.close()
    try:
        assert launcher.status(_cloud()).running
    finally:
        launcher.stop(_cloud())


def test_a_cloud_the_user_started_is_left_running(xyclaw_home: Path) -> None:
    # `xyclaw sim serve` in a terminal of its own: the user's cloud, not the app's
    serving = subprocess.Popen(
        [sys.executable, "-m", "xyclaw.cli.main", "sim", "serve", "--state", str(_cloud())],
        env=dict(os.environ),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while not launcher.status(_cloud()).running:
            assert serving.poll() is None and time.monotonic() < deadline
            time.sleep(0.1)
        desktop = _engine()
        _use_the_cloud(desktop)
        desktop.stop_sim_cloud_on_close()
        desktop.close()
        assert launcher.status(_cloud()).running
        assert serving.poll() is None
    finally:
        serving.terminate()
        serving.wait(timeout=30)
