"""Telemetry against simulated GPU nodes on loopback, at a fast clock (0.2 s samples)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.support.simcluster import SimCluster, sim_cluster
from xyclaw.config import load_config
from xyclaw.engine import Engine
from xyclaw.engine.compose import Composition, compose
from xyclaw.events import Event
from xyclaw.paths import AppPaths
from xyclaw.providers import ProviderRegistry
from xyclaw.telemetry.alerts import AlertCleared, AlertRaised
from xyclaw.telemetry.options import TelemetryOptions
from xyclaw.telemetry.rules import AlertThresholds
from xyclaw.telemetry.service import TelemetryService

FAST_THRESHOLDS = AlertThresholds(
    clear_s=0.6,
    idle_for_s=0.6,
    throttle_for_s=0.6,
    memory_full_for_s=0.6,
    straggler_window_s=1.0,
    straggler_for_s=0.6,
    nic_baseline_s=3.0,
    nic_recent_s=0.6,
    nic_collapse_for_s=0.4,
    unreachable_after_s=1.0,
    xid_hold_s=1.5,
)


def fast_options(**changes: Any) -> TelemetryOptions:
    values: dict[str, Any] = {
        "interval_s": 0.2,
        "live_window_minutes": 1.0,
        "flush_interval_s": 0.5,
        "rollup_every_s": 3600.0,
        "stale_after_s": 1.0,
        "reconnect_max_s": 0.5,
        "xid_interval_s": 0.3,
        "command_timeout_s": 5.0,
        "thresholds": FAST_THRESHOLDS,
    }
    values.update(changes)
    return TelemetryOptions(**values)


def wait_until(check: Callable[[], Any], timeout: float = 10.0, step: float = 0.05) -> Any:
    """Poll ``check`` until it returns something true; fail with its last value."""
    deadline = time.monotonic() + timeout
    value = check()
    while not value and time.monotonic() < deadline:
        time.sleep(step)
        value = check()
    assert value, f"condition not met within {timeout} s (last: {value!r})"
    return value


@dataclass
class Live:
    engine: Engine
    cluster: SimCluster
    service: TelemetryService
    parts: Composition  # the engine's store, records and SSH access, which the test drives
    published: list[Event] = field(default_factory=list)

    @property
    def cluster_id(self) -> int:
        return self.cluster.cluster_id

    def raised(self, rule: str | None = None) -> list[AlertRaised]:
        return [
            e
            for e in self.published
            if isinstance(e, AlertRaised) and not e.escalated and (rule is None or e.rule == rule)
        ]

    def cleared(self, rule: str | None = None) -> list[AlertCleared]:
        return [
            e
            for e in self.published
            if isinstance(e, AlertCleared) and (rule is None or rule in e.rules)
        ]

    def open_rules(self) -> set[str]:
        return {r for a in self.service.open_alerts(self.cluster_id) for r in a.rules}

    def alert_rows(self) -> list[dict[str, Any]]:
        self.service.sink.flush()
        return self.parts.store.query(
            "SELECT id, rule, severity, message, node_id, cleared_at, data_json FROM events"
            " WHERE kind = 'alert' AND cluster_id = ? ORDER BY id",
            [self.cluster_id],
        )

    def run(self, node: int, command: str) -> str:
        record = self.cluster.record
        return self.parts.access().run(record, record.nodes[node], command).check().stdout


@pytest.fixture
def parts(xyclaw_home: Path) -> Iterator[Composition]:
    paths = AppPaths.from_environment()
    config = load_config(
        paths.config_file,
        environ={"XYCLAW_SSH_CONNECT_TIMEOUT_S": "1", "XYCLAW_SSH_COMMAND_TIMEOUT_S": "10"},
    )
    made = compose(paths, config, providers=ProviderRegistry())
    yield made
    made.engine.close()


@pytest.fixture
def engine(parts: Composition) -> Engine:
    return parts.engine


@pytest.fixture
def make_live(engine: Engine, parts: Composition, tmp_path: Path) -> Iterator[Callable[..., Live]]:
    """Start simulated nodes and a fast telemetry service watching them."""
    with ExitStack() as stack:

        def make(nodes: int = 2, *, options: TelemetryOptions | None = None, **kw: Any) -> Live:
            cluster = stack.enter_context(sim_cluster(engine, tmp_path, nodes=nodes, **kw))
            for node in cluster.nodes:
                node.machine.time_scale = 0.02  # training steps and timeouts run 50x faster
            service = TelemetryService(
                parts.store,
                parts.access(),
                parts.clusters,
                parts.events,
                parts.bus,
                options or fast_options(),
            )
            stack.callback(service.close)
            live = Live(engine, cluster, service, parts=parts)
            sub = engine.subscribe(Event, live.published.append)
            stack.callback(sub.unsubscribe)
            service.watch(cluster.cluster_id)
            assert service.wait_for_data(cluster.cluster_id, 15, instants=2)
            return live

        yield make
