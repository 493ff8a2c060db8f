"""An engine renting from a simulated cloud that runs in this process, over real HTTP and SSH."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.simcloud.helpers import FakeClock
from xyclaw.config import load_config
from xyclaw.engine import Engine
from xyclaw.engine.compose import Composition, compose
from xyclaw.engine.lifecycle import Timeouts
from xyclaw.jobs.options import JobOptions
from xyclaw.paths import AppPaths
from xyclaw.providers import ProviderRegistry
from xyclaw.providers.http_retry import RetryPolicy
from xyclaw.providers.sim import SimProvider
from xyclaw.sim.cloud import CloudSettings, SimCloudServer, build_cloud

Clock = FakeClock  # one clock shared by the cloud and the engine


@dataclass
class World:
    engine: Engine
    server: SimCloudServer
    provider: SimProvider
    clock: Clock
    state_dir: Path

    def restart_cloud(self) -> None:
        """Stop the cloud and start it again on the same state (as after a crash of it)."""
        self.server.stop()
        cloud = build_cloud(self.state_dir, CloudSettings.fast(), clock=self.clock)
        self.server = SimCloudServer(cloud, port=self.server_port).start()

    server_port: int = 0
    parts: Composition | None = None  # the engine's parts, for a test that watches one


MakeWorld = Callable[..., World]


@pytest.fixture
def make_world(tmp_path: Path) -> Iterator[Callable[..., World]]:
    worlds: list[World] = []

    def make(
        settings: CloudSettings | None = None,
        *,
        attempts: int = 3,
        timeout_s: float = 5.0,
        job_options: JobOptions | None = None,
        time_scale: float | None = None,
        **config_env: str,
    ) -> World:
        clock = Clock()
        state_dir = tmp_path / "cloud"
        factory = None
        if time_scale is not None:  # the nodes' simulated time runs faster (training jobs)
            from xyclaw.sim.cloud.simnode import SimNodeFactory

            factory = SimNodeFactory(time_scale=time_scale)
        cloud = build_cloud(
            state_dir, settings or CloudSettings.fast(), clock=clock, node_factory=factory
        )
        server = SimCloudServer(cloud).start()
        provider = SimProvider(
            server.url,
            cloud.token,
            timeout_s=timeout_s,
            retry=RetryPolicy(
                attempts=attempts, base_delay_s=0.01, max_delay_s=0.05, deadline_s=30
            ),
        )
        registry = ProviderRegistry()
        registry.add(provider)
        paths = AppPaths.from_environment()
        config = load_config(paths.config_file, environ=config_env)
        parts = compose(
            paths,
            config,
            providers=registry,
            clock=clock,
            timeouts=Timeouts(provision_s=60, ssh_s=30, release_s=30, poll_s=0.05),
            job_options=job_options,
        )
        engine = parts.engine
        world = World(engine, server, provider, clock, state_dir, server.port, parts)
        worlds.append(world)
        return world

    yield make
    for world in worlds:
        world.engine.close()
        world.server.stop()
