"""The History and Settings pages' fixtures: one history made by a real run on the simulated
cloud (once per test session), copied into each test's own home; an engine on it whose
every provider call fails (and is counted); a worker."""

from __future__ import annotations

import threading
import traceback
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.gui_history.history_run import HistoryFacts, copy_history, shared_history
from xyclaw.config import load_config
from xyclaw.engine import Engine
from xyclaw.engine.compose import Composition, compose
from xyclaw.errors import ProviderError
from xyclaw.paths import AppPaths
from xyclaw.providers import Provider, ProviderRegistry


@pytest.fixture(scope="session")
def history_facts(tmp_path_factory: pytest.TempPathFactory) -> HistoryFacts:
    """Rent, tune, two jobs (one recovered), release, stop the cloud: ~60 s, once for all the
    test processes of the run (pytest-xdist's workers share the first one's)."""
    return shared_history(tmp_path_factory)


@pytest.fixture
def history_db(history_facts: HistoryFacts, xyclaw_home: Path) -> Path:
    """This test's own copy of the run's database, in its XYCLAW_HOME."""
    return copy_history(history_facts, xyclaw_home)


class FailingProviders(ProviderRegistry):
    """Every provider of the real registry's names, each failing as an unreachable one does;
    ``attempts`` keeps where each call came from."""

    def __init__(self) -> None:
        super().__init__()
        self.attempts: list[str] = []
        self._lock = threading.Lock()
        for name in ("sim", "ssh", "local"):
            self.register(name, lambda name=name: self._fail(name))

    def _fail(self, name: str) -> Provider:
        with self._lock:
            self.attempts.append(name + "\n" + "".join(traceback.format_stack(limit=12)))
        raise ProviderError(f"{name} is unreachable (no network)", hint="you are offline")

    def reset(self) -> None:
        with self._lock:
            self.attempts.clear()


@pytest.fixture
def offline() -> FailingProviders:
    return FailingProviders()


@pytest.fixture
def offline_parts(history_db: Path, offline: FailingProviders) -> Iterator[Composition]:
    """The app's engine on the copied history, with no provider that answers, and its parts
    (a test writes a record into its history as another process would)."""
    paths = AppPaths.from_environment()
    made = compose(paths, load_config(paths.config_file), providers=offline)
    yield made
    made.engine.close()


@pytest.fixture
def offline_engine(offline_parts: Composition) -> Engine:
    return offline_parts.engine
