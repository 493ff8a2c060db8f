"""The "Test" of an own host (``hosts.toml``): connect over SSH, trust its key only
after the user confirmed its fingerprint, and list the GPUs it has. No Qt here; the
question about an unknown key is the caller's ``trust`` callback (the window's
:class:`~xyclaw.gui.host_keys.HostKeyPrompter`).

It lives beside the Engine (issue 35; it was ``xyclaw.gui.host_probe``) so that a face
tests a host without reaching into ``providers`` and ``remote`` itself.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from xyclaw.config import Config
from xyclaw.engine.offline import hosts_file, own_hosts  # the window reads them from here
from xyclaw.paths import AppPaths
from xyclaw.providers.own_hosts import OwnHost
from xyclaw.remote import KnownHosts, SshPool, TrustNewHost
from xyclaw.remote.host_check import HostCheck, HostGpu, check_host
from xyclaw.remote.node_access import load_or_create_app_key
from xyclaw.secrets import SecretStore

__all__ = ["HostGpu", "HostReport", "HostTester", "hosts_file", "own_hosts"]


@dataclass(frozen=True)
class HostReport(HostCheck):
    """What ``hosts test`` finds (:func:`~xyclaw.remote.host_check.check_host`), with the
    host's hosts.toml entry and the key fingerprints the user trusted during this test."""

    expected: OwnHost | None = None
    trusted: tuple[str, ...] = field(default=())

    @property
    def matches(self) -> bool:
        """Whether the host has the GPUs hosts.toml says (count and model), as `hosts test`
        decides it."""
        want = self.expected
        return want is None or self.has(want.gpus, want.gpu)


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
            answer_prompts=getattr(self.trust, "answer_prompts", None),  # 2FA, like a host key
        )
        try:
            found = check_host(pool, host, timeout=self.config.ssh.connect_timeout_s + 20)
        finally:
            pool.close()
        return HostReport(
            host=found.host,
            gpus=found.gpus,
            seconds=found.seconds,
            expected=expected,
            trusted=tuple(trusted),
        )
