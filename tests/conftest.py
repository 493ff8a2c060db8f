"""Shared fixtures: every test gets its own XYCLAW_HOME, and Qt runs offscreen."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from xyclaw.paths import AppPaths

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

SHARED_FIXTURES = Path(__file__).resolve().parents[2] / "shared" / "fixtures" / "real"


@pytest.fixture(autouse=True)
def xyclaw_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A private app home so no test touches the user's real folders or keyring."""
    home = tmp_path / "xyclaw-home"
    monkeypatch.setenv("XYCLAW_HOME", str(home))
    monkeypatch.setenv("XYCLAW_SECRETS_BACKEND", "file")
    for name in list(os.environ):
        if name.startswith("XYCLAW_") and name not in {"XYCLAW_HOME", "XYCLAW_SECRETS_BACKEND"}:
            monkeypatch.delenv(name)
    # Commands under test start no background guard unless the test is about it (tests/guard
    # turns it on): a guard process per test would load the machine and watch test clusters.
    monkeypatch.setenv("XYCLAW_GUARD_AUTOSTART", "0")
    yield home
    # A command under test may have started the guard and the simulated cloud in the
    # background, as it does for a user; stop them (the guard first: it would start the
    # cloud again) so no test leaves a process running.
    paths = AppPaths.from_environment()
    if (paths.data_dir / "guard.lock").exists():
        import contextlib

        from xyclaw.billing.guard_process import stop_guard

        # A guard held by an engine in this process is closed by the test that made it.
        with contextlib.suppress(Exception):
            stop_guard(paths)
    sim_state = paths.data_dir / "sim"
    if sim_state.exists():
        from xyclaw.sim.cloud.launcher import stop

        stop(sim_state)


@pytest.fixture
def real_fixtures() -> Path:
    """The shared real-world command outputs; tests using them skip where they are absent."""
    if not SHARED_FIXTURES.is_dir():
        pytest.skip("../shared/fixtures/real is not present")
    return SHARED_FIXTURES
