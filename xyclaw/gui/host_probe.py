"""Settings' "Test" of an own host (``hosts.toml``): connect over SSH, trust its key only
after the user confirmed its fingerprint, and list the GPUs it has. No Qt here; the
question about an unknown key is the caller's ``trust`` callback (the app's
:class:`~xyclaw.gui.host_keys.HostKeyPrompter`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from xyclaw.config import Config
from xyclaw.errors import ParseError, RemoteError
from xyclaw.parsers.nvsmi import parse_csv
from xyclaw.paths import AppPaths
from xyclaw.providers.own_hosts import OwnHost, load_hosts
from xyclaw.remote import KnownHosts, SshPool, TrustNewHost
from xyclaw.remote.node_access import load_or_create_app_key
from xyclaw.secrets import SecretStore

GPU_QUERY = "nvidia-smi --query-gpu=index,name,memory.total --format=csv,noheader,nounits"
GPU_FIELDS = ("index", "name", "memory.total")


@dataclass(frozen=True)
class HostGpu:
    index: int
    name: str
    memory_mib: int | None


@dataclass(frozen=True)
class HostReport:
    host: str
    gpus: tuple[HostGpu, ...]
    seconds: float
    trusted: tuple[str, ...] = field(default=())  # fingerprints trusted during this test
    expected: OwnHost | None = None

    @property
    def matches(self) -> bool:
        """Whether the host has the GPUs hosts.toml says (count; model when known)."""
        want = self.expected
        if want is None:
            return True
        return len(self.gpus) == want.gpus


def hosts_file(paths: AppPaths) -> Path:
    return paths.config_dir / "hosts.toml"


def own_hosts(paths: AppPaths) -> list[OwnHost]:
    """The entries of hosts.toml (ConfigError naming the entry when one is wrong)."""
    return load_hosts(hosts_file(paths))


class HostTester:
    """One test at a time per host; each test uses its own SSH connection (closed after)."""

    def __init__(
        self,
        paths: AppPaths,
        config: Config,
        secrets: SecretStore | None,
        trust: TrustNewHost | None,
        *,
        user_known_hosts: Path | None = None,
        ssh_config: Path | None = None,
        use_agent: bool = True,
    ) -> None:
        self.paths = paths
        self.config = config
        self.secrets = secrets
        self.trust = trust
        home = Path.home() / ".ssh"
        self.user_known_hosts = user_known_hosts if user_known_hosts else home / "known_hosts"
        self.ssh_config = ssh_config if ssh_config is not None else home / "config"
        self.use_agent = use_agent

    def test(self, host: str, expected: OwnHost | None = None) -> HostReport:
        trusted: list[str] = []

        def ask(name: str, key_type: str, fingerprint: str) -> bool:
            ok = bool(self.trust is not None and self.trust(name, key_type, fingerprint))
            if ok:
                trusted.append(fingerprint)
            return ok

        app_key, _ = load_or_create_app_key(self.paths.data_dir / "ssh" / "id_ecdsa")
        secrets = self.secrets
        pool = SshPool(
            self.config.ssh,
            KnownHosts(
                self.paths.known_hosts,
                self.user_known_hosts if self.user_known_hosts.exists() else None,
            ),
            trust_new_host=ask,
            password_lookup=(lambda h: secrets.get(f"ssh-password:{h}")) if secrets else None,
            ssh_config_path=self.ssh_config if self.ssh_config.exists() else None,
            client_keys=[app_key],
            use_agent=self.use_agent,
            connect_attempts=1,
        )
        start = time.monotonic()
        try:
            result = pool.run(host, GPU_QUERY, timeout=self.config.ssh.connect_timeout_s + 20)
        finally:
            pool.close()
        if result.exit_code != 0:
            raise RemoteError(
                f"{host} answered, but nvidia-smi failed there (exit {result.exit_code}):"
                f" {(result.stderr or result.stdout).strip()[:200]}",
                hint="install the NVIDIA driver on the host, or check that it sees its GPUs",
            )
        try:
            samples = parse_csv(result.stdout, GPU_FIELDS)
        except ParseError as exc:
            raise RemoteError(
                f"{host} answered, but nvidia-smi's list could not be read: {exc.message}",
                hint="run nvidia-smi on the host and check its output",
            ) from exc
        gpus = tuple(
            HostGpu(int(s.index if s.index is not None else i), s.name or "?", s.memory_total_mib)
            for i, s in enumerate(samples)
        )
        return HostReport(
            host=host,
            gpus=gpus,
            seconds=time.monotonic() - start,
            trusted=tuple(trusted),
            expected=expected,
        )
