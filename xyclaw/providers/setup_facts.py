"""What is set up beyond the built-in simulated cloud and rules agent: own hosts, a model,
provider keys. Read by `xyclaw doctor` (its next steps) and, through the Engine, by the
window's Settings page; it lives here, below both, so that neither reaches into the other
(issue 35).
"""

from __future__ import annotations

from dataclasses import dataclass

from xyclaw.config import Config
from xyclaw.errors import XyclawError
from xyclaw.paths import AppPaths
from xyclaw.secrets import SecretStore

PROVIDER_KEYS = {
    "lambda": "lambda_api_key",
    "autodl": "autodl_token",
    "vastai": "vastai_api_key",
    "runpod": "runpod_api_key",
}


@dataclass(frozen=True)
class SetupFacts:
    """What is set up beyond the built-in simulated cloud and rules agent."""

    hosts: int | None  # machines in hosts.toml (None: the file cannot be read)
    preset: str  # [llm] preset ("rules": the built-in rules agent)
    provider_keys: tuple[str, ...]  # providers whose key is stored (None known: the store failed)


def setup_facts(paths: AppPaths, config: Config) -> SetupFacts:
    from xyclaw.providers.own_hosts import load_hosts

    try:
        hosts: int | None = len(load_hosts(paths.config_dir / "hosts.toml"))
    except XyclawError:
        hosts = None  # the file is broken: `xyclaw config check` says how
    try:
        store = SecretStore.choose(config.secrets.backend, paths.secrets_file)
        keys = tuple(p for p, name in PROVIDER_KEYS.items() if store.get(name))
    except XyclawError:
        keys = tuple(PROVIDER_KEYS)  # unknown; the secrets check names the problem
    return SetupFacts(hosts, config.llm.preset, keys)
