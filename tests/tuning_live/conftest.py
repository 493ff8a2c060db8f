"""A test engine with no providers: clusters come from tests.support.simcluster."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from xyclaw.config import load_config
from xyclaw.engine import Engine
from xyclaw.engine.compose import Composition, compose
from xyclaw.paths import AppPaths
from xyclaw.providers import ProviderRegistry
from xyclaw.tuning.runner import MeasureSettings

# Large enough for the simulated links to plateau, small enough to be quick.
FAST = MeasureSettings(min_bytes="32M", max_bytes="128M", iters=5, warmup=1, repeats=3)
# The simulated nodes' clock runs this much faster than the wall clock.
TIME_SCALE = 0.02


@pytest.fixture
def parts() -> Iterator[Composition]:
    """The engine and its parts (tests drive the tuning service's own methods)."""
    paths = AppPaths.from_environment()
    made = compose(
        paths, load_config(paths.config_file), providers=ProviderRegistry(), measure=FAST
    )
    yield made
    made.engine.close()


@pytest.fixture
def engine(parts: Composition) -> Engine:
    return parts.engine
