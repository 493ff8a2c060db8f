"""What the faces ask of the core before, or without, a built Engine (issue 35).

``xyclaw hosts``, ``guard``, ``doctor``, ``nccl analyze`` and the desktop's probes read
``hosts.toml``, the guard's lock, the catalogue or a log: work that needs no history
database, no providers and no SSH pool of a running Engine. They stay functions of the
folders and the settings; :class:`~xyclaw.engine.engine.Engine` offers each as a static
method (tagged with its effect), so the CLI, the window and the agents reach them the one
way, and a change in a part breaks here, where the Engine notices, not in a face.
Each imports its part when called: the CLI's start stays light.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from xyclaw.config import Config
from xyclaw.errors import UsageError
from xyclaw.paths import AppPaths

if TYPE_CHECKING:
    from xyclaw.billing.guard_process import GuardInfo, GuardLock, GuardStatus
    from xyclaw.catalog import Offer
    from xyclaw.catalog.models import GpuModel
    from xyclaw.doctor import CheckResult
    from xyclaw.engine.conversations import Conversations
    from xyclaw.jobs.specmodel import LoadedSpec
    from xyclaw.planner.result import PlanOption, PlanResult
    from xyclaw.providers import ProviderRegistry
    from xyclaw.providers.own_hosts import OwnHost
    from xyclaw.providers.real import RealProvider
    from xyclaw.records import ClusterRecord
    from xyclaw.remote import AnswerPrompts, KnownHosts, SshPool, TrustNewHost
    from xyclaw.remote.host_check import HostCheck
    from xyclaw.remote.known_hosts import KnownKey
    from xyclaw.secrets import SecretStore
    from xyclaw.store import Store
    from xyclaw.tuning.analyze import LogAnalysis
    from xyclaw.wording import Said


# --- your own hosts (hosts.toml) and their keys ----------------------------------------------


def hosts_file(paths: AppPaths) -> Path:
    """Where your own machines are listed."""
    return paths.config_dir / "hosts.toml"


def own_hosts(paths: AppPaths) -> list[OwnHost]:
    """The hosts of hosts.toml (none when it is missing); a broken file raises ConfigError."""
    from xyclaw.providers.own_hosts import load_hosts

    return load_hosts(hosts_file(paths))


def read_hosts_file(path: Path) -> list[OwnHost]:
    """The hosts a hosts.toml-shaped file holds (``hosts add`` reads back what it wrote)."""
    from xyclaw.providers.own_hosts import load_hosts

    return load_hosts(path)


def own_host_entry(where: str, entry: dict[str, Any]) -> OwnHost:
    """One ``[[host]]`` entry checked as hosts.toml's reader checks it (ConfigError if not)."""
    from xyclaw.providers.own_hosts import check_host_entry

    return check_host_entry(where, entry)


def own_hosts_in_use(paths: AppPaths) -> dict[str, str]:
    """Host name -> the cluster that uses it, from the own-hosts provider's state."""
    from xyclaw.providers.own_hosts import OwnHostsProvider

    provider = OwnHostsProvider(hosts_file(paths), paths.state_dir / "own-hosts.json")
    return {node.external_id: c.name for c in provider.clusters() for node in c.nodes}


def own_host_name(paths: AppPaths, entry: str) -> str | None:
    """The hosts.toml name of the host recorded as ``entry`` (``[host]:port``), if any."""
    from xyclaw.remote import entry_name
    from xyclaw.remote.hostspec import parse_destination

    for host in own_hosts(paths):
        if host.name == entry:
            return host.name
        try:
            _user, address, port = parse_destination(host.destination)
        except UsageError:  # a destination that does not parse is not this host
            continue
        if entry_name(address, port or 22) == entry.lower():
            return host.name
    return None


def host_address(destination: str) -> str:
    """The address part of ``[user@]host[:port]`` (an SSH password is kept under it)."""
    from xyclaw.remote.hostspec import parse_destination

    return parse_destination(destination)[1]


def _pool(paths: AppPaths, config: Config, trust: Any, *, log_in: bool = True) -> SshPool:
    from xyclaw.secrets import SecretStore

    if log_in:
        paths.ensure()
    secrets = SecretStore.choose(config.secrets.backend, paths.secrets_file)
    return ssh_pool(
        paths,
        config,
        secrets,
        trust_new_host=trust,
        connect_attempts=1,
        log_in=log_in,
        answer_prompts=getattr(trust, "answer_prompts", None),  # a 2FA login: asked the same way
    )


def _known(pool: SshPool, destination: str) -> list[KnownKey]:
    spec = pool.resolve(destination)
    return [k for k in pool.known_hosts.lookup(spec.key_name, spec.port) if k.marker is None]


def host_keys(paths: AppPaths, config: Config, destinations: Sequence[str]) -> list[list[KnownKey]]:
    """The keys on record for each destination (no connection is made)."""
    pool = _pool(paths, config, None, log_in=False)
    try:
        return [_known(pool, d) for d in destinations]
    finally:
        pool.close()


def check_own_host(
    paths: AppPaths, config: Config, destination: str, trust: Any, *, timeout: float
) -> HostCheck:
    """Log in to ``destination`` as ``up`` would and list its GPUs (nvidia-smi)."""
    from xyclaw.remote.host_check import check_host

    pool = _pool(paths, config, trust)
    try:
        return check_host(pool, destination, timeout=timeout)
    finally:
        pool.close()


def trust_host(
    paths: AppPaths,
    config: Config,
    destination: str,
    decide: Callable[[str, str, str], bool],
    *,
    timeout: float,
) -> list[KnownKey]:
    """Log in to ``destination`` once, ``decide`` asked about a key not on record; returns the
    keys that were on record before. AuthenticationError when the key is fine but the login
    is not."""
    pool = _pool(paths, config, decide)
    try:
        known = _known(pool, destination)
        pool.run(destination, "true", timeout=timeout)
        return known
    finally:
        pool.close()


def forget_host(
    paths: AppPaths, config: Config, destination: str
) -> tuple[int, list[KnownKey], str]:
    """Remove ``destination``'s keys from XyClaw's known-hosts file: (lines removed, the keys
    still known from elsewhere, the name ``ssh-keygen -R`` takes)."""
    from xyclaw.remote import entry_name

    pool = _pool(paths, config, None, log_in=False)
    try:
        spec = pool.resolve(destination)
        removed = pool.known_hosts.forget(spec.key_name, spec.port)
        left = _known(pool, destination)
    finally:
        pool.close()
    return removed, left, entry_name(spec.key_name, spec.port)


def app_public_key(paths: AppPaths) -> str:
    """XyClaw's own public key (made on first use), for a host's authorized_keys."""
    from xyclaw.remote.node_access import load_or_create_app_key

    _key, public = load_or_create_app_key(paths.data_dir / "ssh" / "id_ecdsa")
    return public


def known_hosts(paths: AppPaths) -> KnownHosts:
    """The host keys XyClaw trusts: its own file (which it writes) and ~/.ssh/known_hosts."""
    from xyclaw.remote import KnownHosts

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
    answer_prompts: AnswerPrompts | None = None,
) -> SshPool:
    """SSH as the engine does it (XyClaw's key, ~/.ssh/config, stored passwords, both
    known-hosts files); ``xyclaw hosts`` uses it too, so a test connects as ``up`` would.
    ``log_in=False`` (only resolving names and reading keys) makes no key pair."""
    from xyclaw.remote import SshPool
    from xyclaw.remote.node_access import load_or_create_app_key

    keys = [load_or_create_app_key(paths.data_dir / "ssh" / "id_ecdsa")[0]] if log_in else []
    return SshPool(
        config.ssh,
        known_hosts(paths),
        trust_new_host=trust_new_host,
        password_lookup=lambda host: secrets.get(f"ssh-password:{host}"),
        ssh_config_path=Path.home() / ".ssh" / "config",
        client_keys=keys,
        connect_attempts=connect_attempts,
        answer_prompts=answer_prompts,
    )


# --- the guard process -----------------------------------------------------------------------


def guard_status(paths: AppPaths) -> GuardStatus:
    """Whether a guard runs for this data folder (only looks)."""
    from xyclaw.billing.guard_process import guard_status as status

    return status(paths)


def guard_lock(paths: AppPaths) -> GuardLock:
    """The guard's lock of this data folder, not yet taken."""
    from xyclaw.billing.guard_process import GuardLock

    return GuardLock(paths)


def start_guard(paths: AppPaths, wait_s: float = 10.0) -> GuardStatus:
    """The guard started in the background if none runs."""
    from xyclaw.billing.guard_process import start_background

    return start_background(paths, wait_s=wait_s)


def stop_guard(paths: AppPaths) -> GuardInfo | None:
    """Stop this data folder's guard; who it was, or None if none ran."""
    from xyclaw.billing.guard_process import stop_guard as stop

    return stop(paths)


def guard_unit_path(paths: AppPaths) -> Path:
    """Where ``xyclaw guard install`` writes the systemd user unit."""
    from xyclaw.billing.guard_process import service_unit_path

    return service_unit_path(paths)


def guard_command(*args: str) -> list[str]:
    """How to run ``xyclaw guard ...`` with this Python."""
    from xyclaw.billing.guard_process import guard_command as command

    return command(*args)


def check_history(paths: AppPaths) -> int:
    """The history database's check before a process first writes into it (reads only)."""
    from xyclaw.store import check_writable

    return check_writable(paths.database)


def open_store(paths: AppPaths) -> Store:
    """The history database of this data folder, opened (one per process)."""
    from xyclaw.store import Store

    paths.ensure()
    return Store(paths.database)


# --- specs, offers, the catalogue ---------------------------------------------------------


def builtin_gpus() -> dict[str, GpuModel]:
    """The GPU models XyClaw knows, by name."""
    from xyclaw.catalog import builtin_dir, load_gpus

    return {g.name: g for g in load_gpus(builtin_dir() / "gpus.csv")}


def load_job_spec(path: Path, *, on_cluster: bool = False) -> LoadedSpec:
    """A job spec read and checked against the known GPUs, with its warnings."""
    from xyclaw.jobs.spec import load_spec

    return load_spec(path, known_gpus=set(builtin_gpus()), on_cluster=on_cluster)


def load_offers_file(path: Path) -> list[Offer]:
    """Offers from a CSV file; an unknown GPU or a bad line raises CatalogError."""
    from xyclaw.catalog import load_offers

    return load_offers(path, known_gpus=set(builtin_gpus()))


def plan_report(result: PlanResult, *, limit: int | None, language: str = "en") -> list[str]:
    """A plan as plain lines, in ``language``."""
    from xyclaw.planner.report import render

    return render(result, limit=limit, language=language)


def plan_reasons(option: PlanOption, language: str = "en") -> str:
    """An option's reasons on one line, in ``language``."""
    from xyclaw.planner.report import reasons_line

    return reasons_line(option, language)


# --- providers -------------------------------------------------------------------------------


def real_providers() -> list[RealProvider]:
    """The real clouds XyClaw rents from (name, title, secret, currency, account ...)."""
    from xyclaw.providers.real import REAL_PROVIDERS

    return list(REAL_PROVIDERS)


def add_real_providers(
    registry: ProviderRegistry, paths: AppPaths, config: Config, secrets: SecretStore
) -> ProviderRegistry:
    """``registry`` with the real clouds added, with quick retries for a status check."""
    from xyclaw.providers.http_retry import RetryPolicy
    from xyclaw.providers.real import register_real_providers

    quick = RetryPolicy(attempts=2, base_delay_s=0.5, max_delay_s=1.0, deadline_s=10.0)
    register_real_providers(
        registry, secrets=secrets, paths=paths, config=config, retry=quick, timeout_s=8.0
    )
    return registry


def sim_cloud_summary(url: str, token: str) -> dict[str, Any] | None:
    """Cluster counts and the ledger's total of a simulated cloud, through the provider's own
    client; None if the cloud does not answer."""
    from xyclaw.errors import XyclawError
    from xyclaw.providers.http_retry import RetryPolicy
    from xyclaw.providers.sim import SimProvider

    client = SimProvider(url, token, timeout_s=5, retry=RetryPolicy(attempts=1))
    try:
        clusters = client.clusters()
        ledger = client.billing()
    except XyclawError:
        return None
    finally:
        client.close()
    states: dict[str, int] = {}
    for cluster in clusters:
        states[cluster.state] = states.get(cluster.state, 0) + 1
    return {
        "clusters": states,
        "billing_total_micros": sum(e.amount_micros for e in ledger),
        "currency": ledger[0].currency if ledger else None,
    }


# --- money, metrics, logs, checks --------------------------------------------------------------


def cost_so_far(cluster: ClusterRecord, now: float | None = None) -> int:
    """What a cluster has cost until ``now`` (micro-units), from its billed spans."""
    from xyclaw.billing import billed_spans
    from xyclaw.billing import cost_so_far as cost

    return cost(billed_spans(cluster), time.time() if now is None else now)


def write_metrics_csv(rows: Iterator[dict[str, Any]], columns: Sequence[str], out: IO[str]) -> int:
    """An export's rows as CSV; returns how many were written."""
    from xyclaw.telemetry.export import write_csv

    return write_csv(rows, columns, out)


def analyze_nccl_log(text: str, **facts: Any) -> LogAnalysis:
    """An nccl-tests log read and judged (``nodes``, ``gpus_per_node``, ``fabric``, ``gpu``,
    ``nics`` as far as known); ParseError when it is not one."""
    from xyclaw.tuning.analyze import analyze_log

    return analyze_log(text, **facts)


def doctor_checks(paths: AppPaths, config: Config) -> tuple[list[CheckResult], list[Said]]:
    """The installation's checks, and what could be set up next."""
    from xyclaw.doctor import next_steps, run_checks

    return run_checks(paths, config), next_steps(paths, config)


def doctor_json(results: list[CheckResult], steps: list[Said]) -> dict[str, object]:
    """The checks as ``xyclaw doctor --json`` prints them."""
    from xyclaw.doctor import results_json

    return results_json(results, steps)


# --- wording of stored rows and rules ----------------------------------------------------------


def severity_word(severity: str, language: str) -> str:
    """An alert's severity in ``language``."""
    from xyclaw.telemetry.rules import severity_word as word

    return word(severity, language)


def rule_title(rule: str, language: str) -> str:
    """A telemetry rule's title in ``language``."""
    from xyclaw.telemetry.rules import rule_title as title

    return title(rule, language)


def said_of(row: Mapping[str, Any], name: str = "said") -> Any:
    """A stored event's or alert's message as its Said (None for a plain-text row)."""
    from xyclaw.store.event_log import said_of as stored

    return stored(dict(row), name)


# --- the agents' own records in the history database ------------------------------------------


def conversations(store: Store) -> Conversations:
    """The agents' conversations, tool calls and allowances in ``store``."""
    from xyclaw.engine.conversations import Conversations

    return Conversations(store)


def open_checkpoint_connection(path: Path) -> Any:
    """The agents' checkpoint database (LangGraph's), opened as XyClaw opens SQLite files."""
    from xyclaw.store.checkpoints import open_checkpoint_connection as opened

    return opened(path)


def active_job_names(store: Store) -> list[str]:
    """The names of the jobs not yet ended, read from the history database alone (no job
    runtime is built); none when it cannot be read."""
    from xyclaw.errors import XyclawError
    from xyclaw.store.jobs import JobTable

    try:
        rows = JobTable(store).rows(active_only=True)
    except XyclawError:
        return []
    return [str(row.get("name") or row["id"]) for row in rows]
