"""The one place that builds the real parts and wires them into an Engine."""

from __future__ import annotations

from xyclaw.config import Config
from xyclaw.engine.engine import Engine
from xyclaw.engine.operations import OperationRunner
from xyclaw.events import EventBus
from xyclaw.paths import AppPaths
from xyclaw.secrets import SecretStore
from xyclaw.store import Store


def build_engine(paths: AppPaths, config: Config) -> Engine:
    paths.ensure()
    bus = EventBus()
    store = Store(paths.database)
    try:
        secrets = SecretStore.choose(config.secrets.backend, paths.secrets_file)
        return Engine(
            config=config,
            paths=paths,
            store=store,
            bus=bus,
            secrets=secrets,
            operations=OperationRunner(bus),
        )
    except BaseException:
        store.close()
        raise
