"""The one place that builds the real parts and wires them into an Engine."""

from __future__ import annotations

import functools
import logging
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from xyclaw.config import Config
from xyclaw.engine.engine import ClusterParts, Engine
from xyclaw.engine.lazy import Lazy
from xyclaw.engine.offline import ssh_pool  # here since issue 35; used below
from xyclaw.engine.operations import OperationRunner
from xyclaw.engine.reconcile import Reconciler
from xyclaw.errors import XyclawError
from xyclaw.events import ClusterChanged, Event, EventBus, NodeChanged
from xyclaw.paths import AppPaths
from xyclaw.providers import Provider, ProviderRegistry
from xyclaw.records import ClusterStore
from xyclaw.secrets import SecretStore, register_environment, register_file_values
from xyclaw.store import Store
from xyclaw.store.charges import ChargeTable
from xyclaw.store.event_log import EventLog
from xyclaw.store.jobs import JobTable
from xyclaw.store.plans import PlanTable
from xyclaw.wording import said

# What only a part built on first use needs is imported where that part is built: SSH
# (paramiko), telemetry and tuning (numpy), the job runtime, the providers' HTTP clients.
if TYPE_CHECKING:
    from xyclaw.engine.guard import Guard
    from xyclaw.engine.lifecycle import ClusterLifecycle, Timeouts
    from xyclaw.jobs.options import JobOptions
    from xyclaw.jobs.service import JobService
    from xyclaw.jobs.ssh_config import SshAliases
    from xyclaw.providers.slurm import SlurmSite
    from xyclaw.remote import AnswerPrompts, TrustNewHost
    from xyclaw.remote.node_access import NodeAccess
    from xyclaw.telemetry.service import TelemetryService
    from xyclaw.tuning.runner import MeasureSettings
    from xyclaw.tuning.service import TuningService


def sim_provider(paths: AppPaths, config: Config) -> Provider:
    """The simulated cloud's client; starts the cloud in the background if none runs."""
    from xyclaw.providers.sim import SimProvider
    from xyclaw.sim.cloud.launcher import ensure_running, started_here, stop

    state_dir = paths.data_dir / "sim"
    endpoint = ensure_running(
        state_dir,
        port=config.sim.port,
        provision_delay_s=config.sim.provision_delay_s,
    )
    provider = SimProvider(endpoint.url, endpoint.token)
    if started_here(endpoint.pid):  # a cloud the user started (xyclaw sim start) is theirs
        provider.stop_cloud = lambda: stop(state_dir)
    return provider


def default_registry(
    paths: AppPaths,
    config: Config,
    *,
    trust_new_host: TrustNewHost | None = None,
    answer_prompts: AnswerPrompts | None = None,
) -> ProviderRegistry:
    """The simulated cloud, your own hosts and this machine; each built when first used.
    A Slurm site's login node asks the face's questions (an unknown host key, a 2FA code)
    through ``trust_new_host`` and ``answer_prompts``."""

    def own_hosts() -> Provider:
        from xyclaw.providers.own_hosts import OwnHostsProvider

        return OwnHostsProvider(paths.config_dir / "hosts.toml", paths.state_dir / "own-hosts.json")

    def local() -> Provider:
        from xyclaw.providers.local import LocalProvider

        return LocalProvider(paths.state_dir / "local.json")

    registry = ProviderRegistry()
    registry.register("sim", lambda: sim_provider(paths, config))
    registry.register("ssh", own_hosts)
    registry.register("local", local)
    _register_slurm_sites(registry, paths, config, trust_new_host, answer_prompts)
    return registry


def _register_slurm_sites(
    registry: ProviderRegistry,
    paths: AppPaths,
    config: Config,
    trust_new_host: TrustNewHost | None = None,
    answer_prompts: AnswerPrompts | None = None,
) -> None:
    """Each [[slurm]] table of hosts.toml as a provider named after it (issue 33), reached
    over SSH at its login node with one pooled connection. A hosts.toml that does not read
    registers none (`xyclaw doctor` says why)."""
    from xyclaw.providers.slurm import load_slurm_sites

    try:
        sites = load_slurm_sites(paths.config_dir / "hosts.toml")
    except XyclawError as exc:
        logging.getLogger(__name__).warning("no Slurm sites: %s", exc.message)
        registry.not_loaded(
            said(
                "error.slurm.sites_not_loaded",
                why=exc.said or exc.message,
                hint=exc.hint_said or exc.hint or said("error.slurm.unreadable_hint"),
            )
        )
        return
    for site in sites:
        if site.name in registry.names:
            logging.getLogger(__name__).warning("Slurm site %s: the name is taken", site.name)
            continue
        registry.register(
            site.name,
            functools.partial(
                slurm_provider,
                paths,
                config,
                site,
                trust_new_host=trust_new_host,
                answer_prompts=answer_prompts,
            ),
        )


def slurm_provider(
    paths: AppPaths,
    config: Config,
    site: SlurmSite,
    *,
    trust_new_host: TrustNewHost | None = None,
    answer_prompts: AnswerPrompts | None = None,
) -> Provider:
    """A Slurm site's provider: Slurm's commands over SSH as the engine connects (XyClaw's
    key, ~/.ssh/config with its jump hosts, stored passwords, both known-hosts files). One
    pooled connection carries every command, so a 2FA login (keyboard-interactive, answered
    by the user through ``answer_prompts``) is asked once, and again only after it drops."""
    from xyclaw.providers.slurm import ShellResult, SlurmClient, SlurmProvider

    secrets = SecretStore.deferred(config.secrets.backend, paths.secrets_file)
    pool = ssh_pool(
        paths, config, secrets, trust_new_host=trust_new_host, answer_prompts=answer_prompts
    )

    def shell(command: str, timeout: float) -> ShellResult:
        result = pool.run(site.login, command, timeout=timeout)
        return ShellResult(result.exit_code, result.stdout, result.stderr)

    def send(local: Path, remote: str) -> None:
        pool.upload(site.login, local, remote)

    provider = SlurmProvider(SlurmClient(site, shell, send=send))
    provider.on_close(pool.close)
    return provider


def _ssh_aliases(paths: AppPaths, clusters: ClusterStore, bus: EventBus) -> Lazy[SshAliases]:
    """XyClaw's SSH config of the live clusters' nodes, kept in step with them (built at the
    first change or use). Under XYCLAW_HOME a file there stands for ~/.ssh/config, so the
    real one is never touched."""
    aliases = Lazy(lambda: _build_ssh_aliases(paths, clusters))

    def on_change(event: Event) -> None:
        aliases().on_change(event)

    bus.subscribe(ClusterChanged, on_change)
    bus.subscribe(NodeChanged, on_change)
    return aliases


def _build_ssh_aliases(paths: AppPaths, clusters: ClusterStore) -> SshAliases:
    from xyclaw.jobs.ssh_config import SshAliases

    ssh = paths.data_dir / "ssh"
    home = os.environ.get("XYCLAW_HOME", "").strip()
    user = paths.state_dir / "user-ssh" / "config" if home else Path.home() / ".ssh" / "config"
    return SshAliases(
        clusters,
        config_path=ssh / "config",
        known_hosts_path=ssh / "known_hosts_clusters",
        identity_file=ssh / "id_ecdsa",
        user_config=user,
        cluster_keys=ssh / "clusters",
    )


@dataclass(frozen=True)
class Composition:
    """An engine and the parts :func:`compose` wired into it. For the composition roots
    and tests that drive one part on its own (a telemetry service with other options, the
    tuning service's own methods); everything else uses the engine's public methods."""

    engine: Engine
    store: Store
    bus: EventBus
    events: EventLog
    clusters: ClusterStore
    access: Lazy[NodeAccess]
    telemetry: Lazy[TelemetryService]
    tuning: Lazy[TuningService]


def build_engine(
    paths: AppPaths,
    config: Config,
    *,
    providers: ProviderRegistry | None = None,
    trust_new_host: TrustNewHost | None = None,
    answer_prompts: AnswerPrompts | None = None,
    clock: Callable[[], float] = time.time,
    timeouts: Timeouts | None = None,
    measure: MeasureSettings | None = None,
    start_guard: bool = True,
    job_options: JobOptions | None = None,
    store: Store | None = None,
) -> Engine:
    """The engine with the real parts (see :func:`compose`, which also returns them)."""
    return compose(
        paths,
        config,
        providers=providers,
        trust_new_host=trust_new_host,
        answer_prompts=answer_prompts,
        clock=clock,
        timeouts=timeouts,
        measure=measure,
        start_guard=start_guard,
        job_options=job_options,
        store=store,
    ).engine


def compose(
    paths: AppPaths,
    config: Config,
    *,
    providers: ProviderRegistry | None = None,
    trust_new_host: TrustNewHost | None = None,
    answer_prompts: AnswerPrompts | None = None,
    clock: Callable[[], float] = time.time,
    timeouts: Timeouts | None = None,
    measure: MeasureSettings | None = None,
    start_guard: bool = True,
    job_options: JobOptions | None = None,
    store: Store | None = None,
) -> Composition:
    """The engine with the real parts; ``providers``, ``clock``, ``timeouts`` and ``measure``
    (nccl-tests sizes and repeats) are for tests and demos.

    ``store``: the process's history database, when whoever builds the engine also hands it
    to another part (the agents keep their conversations in it; one writer per process).
    The engine closes it when it closes.

    The store, the records and the providers' registry are made here; SSH access, the
    lifecycle, the guard, telemetry, tuning and the job runtime are wired here and built
    when a method first needs them (each costs imports a listing does not need).

    With the default providers it starts the data folder's background guard when a cluster
    is live and no guard runs (``start_guard=False``: the guard process itself). An engine
    given its ``providers`` never starts one: no other process could reach them.
    """
    paths.ensure()
    bus = EventBus()
    store = store if store is not None else Store(paths.database)
    try:
        secrets = SecretStore.deferred(config.secrets.backend, paths.secrets_file)
        # Every secret known now is registered before anything could echo it (a key in the
        # environment, the 0600 file's values); the keyring's are registered as they are read.
        register_environment(os.environ)
        register_file_values(paths.secrets_file)
        events = EventLog(store, bus, clock)
        clusters = ClusterStore(store, bus, clock)
        job_table = JobTable(store)
        registry = providers
        background_guard = providers is None and start_guard
        if registry is None:
            from xyclaw.providers.real import register_real_providers

            registry = default_registry(
                paths, config, trust_new_host=trust_new_host, answer_prompts=answer_prompts
            )
            register_real_providers(registry, secrets=secrets, paths=paths, config=config)
        rents = registry

        app_key_path = paths.data_dir / "ssh" / "id_ecdsa"

        @functools.cache
        def app_key_line() -> str:
            from xyclaw.remote.node_access import load_or_create_app_key

            return load_or_create_app_key(app_key_path)[1]

        cluster_keys = paths.data_dir / "ssh" / "clusters"

        def build_access() -> NodeAccess:
            from xyclaw.remote.node_access import NodeAccess

            pool = ssh_pool(
                paths,
                config,
                secrets,
                trust_new_host=trust_new_host,
                answer_prompts=answer_prompts,
            )
            return NodeAccess(pool, max_parallel=config.ssh.max_parallel, cluster_keys=cluster_keys)

        access = Lazy(build_access)

        def build_lifecycle() -> ClusterLifecycle:
            from xyclaw.engine.lifecycle import ClusterLifecycle
            from xyclaw.remote.node_access import ClusterKeys

            built = ClusterLifecycle(
                clusters,
                rents,
                access(),
                events,
                app_key_line,
                cluster_keys=ClusterKeys(cluster_keys),
                clock=clock,
                timeouts=timeouts,
            )
            built.before_release = engine._outputs_before_release  # issue 32
            return built

        lifecycle = Lazy(build_lifecycle)

        def build_telemetry() -> TelemetryService:
            from xyclaw.telemetry.options import TelemetryOptions
            from xyclaw.telemetry.service import TelemetryService

            # Samples carry the nodes' real time, so telemetry keeps the real clock.
            return TelemetryService(
                store, access(), clusters, events, bus, TelemetryOptions.from_config(config)
            )

        telemetry = Lazy(build_telemetry)

        def watching(cluster_id: int) -> bool:
            built = telemetry.if_built()
            return built is not None and built.watching(cluster_id)

        def build_guard() -> Guard:
            from xyclaw.engine.guard import Guard, probe_utilization, telemetry_first

            return Guard(
                clusters,
                lifecycle(),
                events,
                config.billing,
                charges=ChargeTable(store),
                job_running=lambda cluster_id: job_table.active_count(cluster_id) > 0,
                utilization=telemetry_first(
                    watching,
                    lambda cluster_id: telemetry().gpu_utilization(cluster_id),
                    probe_utilization(access()),
                ),
                guard_settings=config.guard,
                clock=clock,
            )

        def build_tuning() -> TuningService:
            from xyclaw.tuning.service import TuningService

            return TuningService(
                store=store,
                clusters=clusters,
                access=access(),
                events=events,
                clock=clock,
                measure=measure,
            )

        tuning = Lazy(build_tuning)
        parts = ClusterParts(
            providers=registry,
            access=access,
            clusters=clusters,
            lifecycle=lifecycle,
            reconciler=Reconciler(
                clusters,
                registry,
                lifecycle,
                events,
                orphan_policy=config.reconcile.orphan_policy,
                timeout_s=config.reconcile.provider_timeout_s,
                charges=ChargeTable(store),
                clock=clock,
            ),
            guard=Lazy(build_guard),
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
            tuning=tuning,
            clock=clock,
            telemetry=telemetry,
            background_guard=background_guard,
        )

        def build_jobs() -> JobService:
            from xyclaw.jobs.follower_lock import FOLDER as FOLLOWERS
            from xyclaw.jobs.options import JobOptions
            from xyclaw.jobs.service import JobService

            return JobService(
                store=store,
                bus=bus,
                clusters=clusters,
                access=access(),
                events=events,
                options=job_options or JobOptions.from_config(config),
                clock=clock,
                nccl_env=lambda cluster_id: engine.nccl_environment(str(cluster_id)),
                telemetry=telemetry(),
                lock_dir=paths.data_dir / FOLLOWERS,
                register_job_secrets=engine._register_job_secrets,
                outputs_dir=paths.data_dir / "outputs",  # issue 32: a folder per job
            )

        jobs = engine._attach_jobs(Lazy(build_jobs), _ssh_aliases(paths, clusters, bus))

        def wake_jobs(event: ClusterChanged) -> None:
            # Once built, the job runtime hears of clusters itself; before that, a cluster
            # going away with active jobs on it builds it, to stop them (saying why).
            if not jobs.built and job_table.active_count(event.cluster_id) > 0:
                jobs().cluster_changed(event)

        bus.subscribe(ClusterChanged, wake_jobs)
    except BaseException:
        store.close()
        raise
    # A guard killed (or never started) while clusters are live: the next command starts it.
    try:
        engine.ensure_guard(only_if_live=True)
    except XyclawError as exc:  # never in the way of the command itself
        logging.getLogger(__name__).warning("could not start the guard: %s", exc)
    return Composition(engine, store, bus, events, clusters, access, telemetry, tuning)
