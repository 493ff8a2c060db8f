"""Reaching a cluster's nodes: over SSH through the pool, or here for the local provider.

The app has its own SSH key for the machines it rents (the provider installs
its public half); host keys a provider hands over are trusted for this process
only, never written to a known-hosts file, because the simulated cloud reuses
loopback ports for new nodes with new keys.
"""

from __future__ import annotations

import base64
import io
import logging
import os
import re
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import paramiko

from xyclaw.errors import RemoteError, RemoteTimeoutError, SecretError
from xyclaw.files import create_private
from xyclaw.records import ClusterRecord, NodeRecord
from xyclaw.records.provider_view import LOCAL_HOST
from xyclaw.remote import CommandResult, HostSpec, SshPool
from xyclaw.wording import said

log = logging.getLogger(__name__)

_KEY_TYPES = frozenset(
    {"ssh-rsa", "ssh-ed25519", "ecdsa-sha2-nistp256", "ecdsa-sha2-nistp384", "ecdsa-sha2-nistp521"}
)


def parse_public_key(line: str) -> paramiko.PKey:
    """An OpenSSH public key line (``type base64 [comment]``) as a paramiko key."""
    parts = line.strip().split()
    if len(parts) < 2 or parts[0] not in _KEY_TYPES:
        raise ValueError(f"not an OpenSSH public key line: {line[:40]!r}")
    try:
        blob = base64.b64decode(parts[1], validate=True)
    except ValueError as exc:
        raise ValueError("the public key's base64 part is damaged") from exc
    try:
        return paramiko.PKey.from_type_string(parts[0], blob)
    except (paramiko.SSHException, ValueError) as exc:
        raise ValueError(f"the {parts[0]} public key cannot be read: {exc}") from exc


def load_or_create_app_key(path: Path) -> tuple[paramiko.PKey, str]:
    """The app's key pair for rented machines: (private key, OpenSSH public line).

    Made once: processes starting together in a new data folder (a command and the guard
    it starts) each may generate a key, but only one is linked into place and every one of
    them reads that one back, so a node is never given a key the file does not hold."""
    if not path.exists():
        made = paramiko.ECDSAKey.generate(bits=256)
        pem = io.StringIO()
        made.write_private_key(pem)
        create_private(path, pem.getvalue())
    mode = path.stat().st_mode & 0o077
    if mode:
        raise SecretError(
            said("error.secrets.key_open", path=str(path)),
            hint=said("error.secrets.chmod_hint", path=str(path)),
        )
    try:
        key: paramiko.PKey = paramiko.ECDSAKey.from_private_key_file(str(path))
    except (paramiko.SSHException, OSError) as exc:
        raise SecretError(
            said("error.secrets.key_unreadable", path=str(path)),
            hint=said("error.secrets.key_unreadable_hint"),
        ) from exc
    public = f"{key.get_name()} {key.get_base64()} xyclaw"
    return key, public


def cluster_key_path(folder: Path, idempotency_key: str) -> Path:
    """Where the key made for one cluster lives (its name is the intent's key, made safe;
    :meth:`xyclaw.jobs.ssh_config.SshAliases.identity_of` reads the same name)."""
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", idempotency_key)[:120]
    return folder / safe


class ClusterKeys:
    """The key pairs made one per cluster for hosts that cannot be trusted (marketplaces).

    A key outlives its cluster only as something to steal: the host that held its public
    half belongs to a stranger and may be rented to the next one. So a key is deleted once
    its cluster has ended (released, failed or gone), whichever process ended it."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def path(self, idempotency_key: str) -> Path:
        return cluster_key_path(self.folder, idempotency_key)

    def public_line(self, idempotency_key: str) -> str:
        """The OpenSSH public line of the cluster's key, made on first use."""
        return load_or_create_app_key(self.path(idempotency_key))[1]

    def keep_only(self, live_keys: Sequence[str]) -> list[str]:
        """Delete every key that belongs to no live cluster; the names deleted.

        A cluster's record is written before its key is made, so a rent under way in
        another process is among ``live_keys`` and keeps its key."""
        if not self.folder.is_dir():
            return []
        keep = {self.path(key).name for key in live_keys}
        deleted: list[str] = []
        for entry in sorted(self.folder.iterdir()):
            if entry.name in keep or not entry.is_file():
                continue
            try:
                entry.unlink()
            except FileNotFoundError:
                continue  # another process deleted it first
            except OSError as exc:
                log.warning("could not delete the ended cluster's key %s: %s", entry, exc)
                continue
            deleted.append(entry.name)
        return deleted


def run_locally(
    command: str, timeout: float, env: Mapping[str, str] | None = None
) -> CommandResult:
    started = time.monotonic()
    try:
        proc = subprocess.run(
            ["bash", "-c", command],
            capture_output=True,
            text=True,
            timeout=timeout,
            env={**os.environ, **(env or {})},
        )
    except subprocess.TimeoutExpired as exc:
        raise RemoteTimeoutError(
            said("error.node.local_timeout", command=command, seconds=f"{timeout:.0f}"),
            host=LOCAL_HOST,
        ) from exc
    return CommandResult(
        host=LOCAL_HOST,
        command=command,
        exit_code=proc.returncode,
        stdout=proc.stdout,
        stderr=proc.stderr,
        duration_s=time.monotonic() - started,
    )


class NodeAccess:
    """Runs commands on nodes, whatever provider they came from."""

    def __init__(
        self, pool: SshPool, *, max_parallel: int = 32, cluster_keys: Path | None = None
    ) -> None:
        """``cluster_keys``: the folder of the keys made for one cluster each (hosts that
        cannot be trusted get their own key, never the app's: :func:`cluster_key_path`)."""
        self.pool = pool
        self.max_parallel = max_parallel
        self.cluster_keys = cluster_keys
        self._trusted: set[tuple[str, int, str]] = set()
        self._trusted_lock = threading.Lock()

    def trust(self, node: NodeRecord) -> None:
        """Accept the host key the provider handed over, for this process (once per key)."""
        if not (node.host_key and node.ssh_host and node.ssh_port):
            return
        entry = (node.ssh_host, node.ssh_port, node.host_key)
        with self._trusted_lock:
            if entry in self._trusted:
                return
            try:
                key = parse_public_key(node.host_key)
            except ValueError as exc:
                log.warning("node %s: the provider's host key is unreadable: %s", node.name, exc)
                return
            self.pool.known_hosts.add(node.ssh_host, node.ssh_port, key, persist=False)
            self._trusted.add(entry)

    def target(self, cluster: ClusterRecord, node: NodeRecord) -> HostSpec | str:
        if node.ssh_host is None:
            raise RemoteError(
                said("error.node.no_address", node=node.name, cluster=cluster.name),
                host=node.name,
                hint=said("error.node.no_address_hint"),
            )
        if node.ssh_host == LOCAL_HOST:
            return LOCAL_HOST
        if node.ssh_port is None:
            return node.ssh_host  # an ssh alias of the user's own host
        own = (
            cluster_key_path(self.cluster_keys, cluster.idempotency_key)
            if self.cluster_keys is not None and cluster.idempotency_key
            else None
        )
        return HostSpec(
            alias=f"{cluster.name}/{node.name}",
            hostname=node.ssh_host,
            port=node.ssh_port,
            user=node.ssh_user or "root",
            identity_files=(own,) if own is not None and own.exists() else (),
            identities_only=True,
        )

    def run(
        self,
        cluster: ClusterRecord,
        node: NodeRecord,
        command: str,
        timeout: float | None = None,
        env: Mapping[str, str] | None = None,
    ) -> CommandResult:
        target = self.target(cluster, node)
        if target == LOCAL_HOST:
            return run_locally(command, timeout or self.pool.settings.command_timeout_s, env)
        self.trust(node)
        return self.pool.run(target, command, timeout=timeout, env=env)

    def run_all(
        self,
        cluster: ClusterRecord,
        nodes: Sequence[NodeRecord],
        command: str,
        timeout: float | None = None,
        env: Mapping[str, str] | None = None,
    ) -> dict[str, CommandResult | RemoteError]:
        """The command on every node in parallel; one dead node never fails the others."""

        def one(node: NodeRecord) -> CommandResult | RemoteError:
            try:
                return self.run(cluster, node, command, timeout, env)
            except RemoteError as exc:
                return exc

        if not nodes:
            return {}
        with ThreadPoolExecutor(max_workers=min(self.max_parallel, len(nodes))) as pool:
            results = list(pool.map(one, nodes))
        return {node.name: result for node, result in zip(nodes, results, strict=True)}
