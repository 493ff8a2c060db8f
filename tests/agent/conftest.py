"""An engine renting from a simulated cloud in this process (real HTTP and SSH), and runtimes.

``make_runtime`` builds an :class:`AgentRuntime` over that engine with either the rules
brain or the LLM brain pointed at a :class:`tests.agent.fake_llm.FakeLLM`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.agent.fake_llm import API_KEY, FakeLLM
from xyclaw.agent.brain import Brain
from xyclaw.agent.presets import key_secret_name
from xyclaw.agent.runtime import AgentRuntime
from xyclaw.config import Config, load_config
from xyclaw.engine import Engine
from xyclaw.engine.compose import build_engine
from xyclaw.paths import AppPaths
from xyclaw.providers import ProviderRegistry
from xyclaw.providers.http_retry import RetryPolicy
from xyclaw.providers.sim import SimProvider
from xyclaw.sim.cloud import CloudSettings, SimCloudServer, build_cloud
from xyclaw.store import Store


@dataclass
class World:
    engine: Engine
    server: SimCloudServer
    paths: AppPaths
    config: Config
    cloud_dir: Path
    store: Store  # the history database, handed to the engine and to the agents


def _config(paths: AppPaths, env: dict[str, str]) -> Config:
    return load_config(paths.config_file, environ=env)


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    cloud_dir = tmp_path / "cloud"
    cloud = build_cloud(cloud_dir, CloudSettings.fast())
    server = SimCloudServer(cloud).start()
    paths = AppPaths.from_environment()
    config = _config(paths, {})
    store = Store(paths.database)
    engine = _engine(paths, config, server, cloud.token, store)
    w = World(engine, server, paths, config, cloud_dir, store)
    yield w
    w.engine.close()
    w.server.stop()


def _engine(
    paths: AppPaths, config: Config, server: SimCloudServer, token: str, store: Store
) -> Engine:
    provider = SimProvider(
        server.url,
        token,
        timeout_s=5.0,
        retry=RetryPolicy(attempts=3, base_delay_s=0.01, max_delay_s=0.05, deadline_s=30),
    )
    registry = ProviderRegistry()
    registry.add(provider)
    return build_engine(paths, config, providers=registry, store=store)


def restart_engine(w: World, token: str | None = None) -> None:
    """Close the engine and build a new one on the same files (as after the app restarted)."""
    w.engine.close()  # and its store
    w.store = Store(w.paths.database)
    w.engine = _engine(w.paths, w.config, w.server, token or w.server.cloud.token, w.store)


MakeRuntime = Callable[..., AgentRuntime]


@pytest.fixture
def make_runtime(world: World) -> Iterator[MakeRuntime]:
    made: list[AgentRuntime] = []

    def make(
        llm: FakeLLM | None = None,
        *,
        brain: Brain | None = None,
        unattended: bool = False,
        api_key: str = API_KEY,
        **env: str,
    ) -> AgentRuntime:
        settings: dict[str, str] = dict(env)
        if llm is not None:
            settings.setdefault("XYCLAW_LLM_PRESET", "custom")
            settings.setdefault("XYCLAW_LLM_BASE_URL", llm.base_url)
            settings.setdefault("XYCLAW_LLM_MODEL", "fake-model")
            settings.setdefault("XYCLAW_LLM_MAX_RETRIES", "0")
            # The key goes where a user's goes: the secret store (a 0600 file in tests).
            world.engine.secrets.set(key_secret_name(settings["XYCLAW_LLM_PRESET"]), api_key)
        config = _config(world.paths, settings)
        runtime = AgentRuntime(
            world.engine,
            store=world.store,
            paths=world.paths,
            config=config,
            brain=brain,
            unattended=unattended,
        )
        made.append(runtime)
        return runtime

    yield make
    for runtime in made:
        runtime.close()


class Events:
    """Collects the events of a turn (a callable for ``on_event``)."""

    def __init__(self) -> None:
        self.items: list[Any] = []

    def __call__(self, event: Any) -> None:
        self.items.append(event)

    def of(self, kind: type) -> list[Any]:
        return [e for e in self.items if isinstance(e, kind)]


def raise_alert(
    store: Store,
    cluster_id: int,
    rule: str,
    *,
    node_id: int | None = None,
    message: str = "node 0 has not answered for 90 s",
    severity: str = "critical",
) -> int:
    """What telemetry writes when a rule fires (the store's own event log); the alert's id."""
    from xyclaw.events import AlertRaised, EventBus
    from xyclaw.store.event_log import EventLog

    alert = AlertRaised(
        event_id=0,
        rule=rule,
        severity=severity,
        message=message,
        action="see the suggested actions",
        cluster_id=cluster_id,
        node_id=node_id,
    )
    return EventLog(store, EventBus()).raise_alert(alert, {})
