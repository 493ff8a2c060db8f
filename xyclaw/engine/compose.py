"""The one place that builds the real parts and wires them into an Engine."""

from __future__ import annotations

import functools
import logging
import os
import time
from collections.abc import Callable
from pathlib import Path

from xyclaw.config import Config
from xyclaw.engine.engine import ClusterParts, Engine
from xyclaw.engine.guard import Guard, probe_utilization, telemetry_first
from xyclaw.engine.lifecycle import ClusterLifecycle, Timeouts
from xyclaw.engine.operations import OperationRunner
from xyclaw.engine.reconcile import Reconciler
from xyclaw.errors import XyclawError
from xyclaw.events import ClusterChanged, EventBus, NodeChanged
from xyclaw.jobs.options import JobOptions
from xyclaw.jobs.service import JobService
from xyclaw.jobs.ssh_config import SshAliases
from xyclaw.paths import AppPaths
from xyclaw.providers import Provider, ProviderRegistry
from xyclaw.providers.local import LocalProvider
from xyclaw.providers.own_hosts import OwnHostsProvider
from xyclaw.providers.real import register_real_providers
from xyclaw.records import ClusterStore
from xyclaw.remote import KnownHosts, SshPool, TrustNewHost
from xyclaw.remote.node_access import NodeAccess, load_or_create_app_key
from xyclaw.secrets import SecretStore
from xyclaw.store import Store
from xyclaw.store.charges import ChargeTable
from xyclaw.store.event_log import EventLog
from xyclaw.store.jobs import JobTable
from xyclaw.store.plans import PlanTable
from xyclaw.telemetry.options import TelemetryOptions
from xyclaw.telemetry.service import TelemetryService
from xyclaw.tuning.runner import MeasureSettings
from xyclaw.tuning.service import TuningService


def sim_provider(paths: AppPaths, config: Config) -> Provider:
    """The simulated cloud's client; starts the cloud in the background if none runs."""
    from xyclaw.providers.sim import SimProvider
    from xyclaw.sim.cloud.launcher import ensure_running

    endpoint = ensure_running(
        paths.data_dir / "sim",
        port=config.sim.port,
        provision_delay_s=config.sim.provision_delay_s,
    )
    return SimProvider(endpoint.url, endpoint.token)


def default_registry(paths: AppPaths, config: Config) -> ProviderRegistry:
    registry = ProviderRegistry()
    registry.register("sim", lambda: sim_provider(paths, config))
    registry.register(
        "ssh",
        lambda: OwnHostsProvider(
            paths.config_dir / "hosts.toml", paths.state_dir / "own-hosts.json"
        ),
    )
    registry.register("local", lambda: LocalProvider(paths.state_dir / "local.json"))
    return registry


def _ssh_aliases(paths: AppPaths, clusters: ClusterStore, bus: EventBus) -> SshAliases:
    """XyClaw's SSH config of the live clusters' nodes, kept in step with them. Under
    XYCLAW_HOME a file there stands for ~/.ssh/config, so the real one is never touched."""
    ssh = paths.data_dir / "ssh"
    home = os.environ.get("XYCLAW_HOME", "").strip()
    user = paths.state_dir / "user-ssh" / "config" if home else Path.home() / ".ssh" / "config"
    aliases = SshAliases(
        clusters,
        config_path=ssh / "config",
        known_hosts_path=ssh / "known_hosts_clusters",
        identity_file=ssh / "id_ecdsa",
        user_config=user,
    )
    bus.subscribe(ClusterChanged, aliases.on_change)
    bus.subscribe(NodeChanged, aliases.on_change)
    return aliases


def known_hosts(paths: AppPaths) -> KnownHosts:
    """The host keys XyClaw trusts: its own file (which it writes) and ~/.ssh/known_hosts."""
    user_known = Path.home() / ".ssh" / "known_hosts"
    return KnownHosts(paths.known_hosts, user_known if user_known.exists() else None)


def ssh_pool(
    paths: AppPaths,
    config: Config,
    secrets: SecretStore,
    *,
    trust_new_host: TrustNewHost | None = None,
    connect_attempts: int = 3,
    log_in: bool = True,
) -> SshPool:
    """SSH as the engine does it (XyClaw's key, ~/.ssh/config, stored passwords, both
    known-hosts files); ``xyclaw hosts`` uses it too, so a test connects as ``up`` would.
    ``log_in=False`` (only resolving names and reading keys) makes no key pair."""
    keys = [load_or_create_app_key(paths.data_dir / "ssh" / "id_ecdsa")[0]] if log_in else []
    return SshPool(
        config.ssh,
        known_hosts(paths),
        trust_new_host=trust_new_host,
        password_lookup=lambda host: secrets.get(f"ssh-password:{host}"),
        ssh_config_path=Path.home() / ".ssh" / "config",
        client_keys=keys,
        connect_attempts=connect_attempts,
    )


def build_engine(
    paths: AppPaths,
    config: Config,
    *,
    providers: ProviderRegistry | None = None,
    trust_new_host: TrustNewHost | None = None,
    clock: Callable[[], float] = time.time,
    timeouts: Timeouts | None = None,
    measure: MeasureSettings | None = None,
    start_guard: bool = True,
    job_options: JobOptions | None = None,
) -> Engine:
    """The engine with the real parts; ``providers``, ``clock``, ``timeouts`` and ``measure``
    (nccl-tests sizes and repeats) are for tests and demos.

    With the default providers it starts the data folder's background guard when a cluster
    is live and no guard runs (``start_guard=False``: the guard process itself). An engine
    given its ``providers`` never starts one: no other process could reach them.
    """
    paths.ensure()
    bus = EventBus()
    store = Store(paths.database)
    try:
        secrets = SecretStore.choose(config.secrets.backend, paths.secrets_file)
        events = EventLog(store, bus, clock)
        app_key_path = paths.data_dir / "ssh" / "id_ecdsa"
        app_key = functools.cache(lambda: load_or_create_app_key(app_key_path))
        pool = ssh_pool(paths, config, secrets, trust_new_host=trust_new_host)
        access = NodeAccess(pool, max_parallel=config.ssh.max_parallel)
        clusters = ClusterStore(store, bus, clock)
        jobs = JobTable(store)
        registry = providers
        background_guard = providers is None and start_guard
        if registry is None:
            registry = default_registry(paths, config)
            register_real_providers(registry, secrets=secrets, paths=paths, config=config)
        lifecycle = ClusterLifecycle(
            clusters,
            registry,
            access,
            events,
            lambda: app_key()[1],
            clock=clock,
            timeouts=timeouts,
        )
        # Samples carry the nodes' real time, so telemetry keeps the real clock.
        telemetry = TelemetryService(
            store, access, clusters, events, bus, TelemetryOptions.from_config(config)
        )
        parts = ClusterParts(
            providers=registry,
            access=access,
            clusters=clusters,
            lifecycle=lifecycle,
            reconciler=Reconciler(
                clusters, registry, lifecycle, events, orphan_policy=config.reconcile.orphan_policy
            ),
            guard=Guard(
                clusters,
                lifecycle,
                events,
                config.billing,
                charges=ChargeTable(store),
                job_running=lambda cluster_id: jobs.active_count(cluster_id) > 0,
                utilization=telemetry_first(
                    telemetry.watching, telemetry.gpu_utilization, probe_utilization(access)
                ),
                guard_settings=config.guard,
                clock=clock,
            ),
            charges=ChargeTable(store),
            plans=PlanTable(store, clock),
        )
        engine = Engine(
            config=config,
            paths=paths,
            store=store,
            bus=bus,
            secrets=secrets,
            operations=OperationRunner(bus),
            events=events,
            parts=parts,
            tuning=TuningService(
                store=store,
                clusters=clusters,
                access=access,
                events=events,
                clock=clock,
                measure=measure,
            ),
            clock=clock,
            telemetry=telemetry,
            background_guard=background_guard,
        )
        engine._attach_jobs(
            JobService(
                store=store,
                bus=bus,
                clusters=clusters,
                access=access,
                events=events,
                options=job_options or JobOptions.from_config(config),
                clock=clock,
                nccl_env=lambda cluster_id: engine.nccl_environment(str(cluster_id)),
                telemetry=telemetry,
            ),
            _ssh_aliases(paths, clusters, bus),
        )
    except BaseException:
        store.close()
        raise
    # A guard killed (or never started) while clusters are live: the next command starts it.
    try:
        engine.ensure_guard(only_if_live=True)
    except XyclawError as exc:  # never in the way of the command itself
        logging.getLogger(__name__).warning("could not start the guard: %s", exc)
    return engine
