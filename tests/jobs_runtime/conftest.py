"""An engine with the job runtime and READY clusters of simulated nodes (real SSH on loopback).

The nodes' simulated time runs faster (``time_scale``) so a training run of a small model
takes seconds; the runtime looks often and gives up on a silent node after a few seconds.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

from tests.lifecycle.conftest import make_world
from tests.support.simcluster import SimCluster, sim_cluster
from xyclaw.config import load_config
from xyclaw.engine import Engine
from xyclaw.engine.compose import build_engine
from xyclaw.jobs.options import JobOptions
from xyclaw.paths import AppPaths
from xyclaw.providers import ProviderRegistry
from xyclaw.store.jobs import LogCap

__all__ = ["make_world"]  # the in-process simulated cloud, for the renting tests

FAST = JobOptions(
    poll_s=0.05,
    tick_s=0.2,
    reconnect_window_s=4.0,
    reconnect_backoff_s=0.2,
    cancel_grace_s=3.0,
    failure_grace_s=2.0,
    lease_s=3.0,
    readiness_poll_s=0.3,
    service_sample_s=0.5,
    log_cap=LogCap(head=2000, tail=8000),
)


def make_engine(options: JobOptions = FAST) -> Engine:
    paths = AppPaths.from_environment()
    return build_engine(
        paths, load_config(paths.config_file), providers=ProviderRegistry(), job_options=options
    )


@pytest.fixture
def engine() -> Iterator[Engine]:
    built = make_engine()
    yield built
    built.close()


MakeCluster = Callable[..., SimCluster]


@pytest.fixture
def make_cluster(engine: Engine, tmp_path: Path) -> Iterator[MakeCluster]:
    with ExitStack() as stack:

        def make(*, time_scale: float = 0.05, **kwargs: Any) -> SimCluster:
            sc = stack.enter_context(sim_cluster(engine, tmp_path, **kwargs))
            for node in sc.nodes:
                node.machine.time_scale = time_scale
            return sc

        yield make
