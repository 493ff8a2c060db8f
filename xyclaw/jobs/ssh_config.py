"""``ssh <cluster>-<n>`` from a terminal: an SSH config file XyClaw owns, with every live
cluster's nodes in it, and (with the user's consent) one marked ``Include`` line in the
user's own ``~/.ssh/config``.

XyClaw writes only its own two files (the config and a known-hosts file with the host
keys the providers handed over, so ``ssh`` checks them strictly). The user's file gets
two lines at its top, a marker comment and the ``Include``, added once and removed on
request; the rest of it is never rewritten. Nodes reached through the user's own ssh
aliases are left out (they have their entry already), and so is this machine.
"""

from __future__ import annotations

import logging
import re
import threading
from dataclasses import dataclass
from pathlib import Path

from xyclaw.events import ClusterChanged, Event, NodeChanged
from xyclaw.files import write_private
from xyclaw.records import ClusterRecord, ClusterStore
from xyclaw.records.provider_view import LOCAL_HOST
from xyclaw.records.states import LIVE, NodeState

log = logging.getLogger(__name__)

MARKER = "# Added by XyClaw: the nodes of your XyClaw clusters (ssh <cluster>-<n>)."
_ALIAS_BAD = re.compile(r"[^A-Za-z0-9._-]+")


@dataclass(frozen=True)
class AliasReport:
    config: Path  # XyClaw's own file
    user_config: Path  # the file the Include line goes in
    hosts: tuple[str, ...]  # the aliases it holds now
    included: bool  # the user's file includes it

    def to_json(self) -> dict[str, object]:
        return {
            "config": str(self.config),
            "user_config": str(self.user_config),
            "hosts": list(self.hosts),
            "included": self.included,
        }


def alias(cluster: ClusterRecord, rank: int) -> str:
    return f"{_ALIAS_BAD.sub('-', cluster.name).strip('-') or 'cluster'}-{rank}"


def _alters_file(event: Event) -> bool:
    """Whether ``event`` can change what :meth:`SshAliases.render` writes: the running nodes of
    the live clusters."""
    if isinstance(event, NodeChanged):
        return NodeState.RUNNING in (event.state, event.previous)
    if isinstance(event, ClusterChanged):
        return (event.state in LIVE) != (event.previous in LIVE)
    return False


def _stamp(path: Path) -> tuple[int, int, int] | None:
    """The file as it stands (inode, change time, size): any write by anyone changes it."""
    try:
        st = path.stat()
    except OSError:
        return None
    return (st.st_ino, st.st_mtime_ns, st.st_size)


def _write_if_changed(path: Path, text: str) -> None:
    """Write the file only when its text differs (each write syncs it to disk)."""
    try:
        if path.read_text(encoding="utf-8") == text:
            return
    except (OSError, UnicodeDecodeError):
        pass  # missing or unreadable: write it
    write_private(path, text)


def _quote(path: Path) -> str:
    return f'"{path}"' if " " in str(path) else str(path)


class SshAliases:
    def __init__(
        self,
        clusters: ClusterStore,
        *,
        config_path: Path,
        known_hosts_path: Path,
        identity_file: Path,
        user_config: Path,
        cluster_keys: Path | None = None,
    ) -> None:
        """``cluster_keys``: the folder of keys made for one cluster each (marketplace hosts);
        a cluster with one there is reached with it instead of ``identity_file``."""
        self.clusters = clusters
        self.config_path = config_path
        self.known_hosts_path = known_hosts_path
        self.identity_file = identity_file
        self.cluster_keys = cluster_keys
        self.user_config = user_config
        self._lock = threading.Lock()
        # The running nodes (cluster id, rank) in the file as this process last wrote or found
        # it, and how the file stood then: a change the file already holds needs no new look.
        self._written: frozenset[tuple[int, int]] = frozenset()
        self._written_stamp: tuple[int, int, int] | None = None

    def identity_of(self, cluster: ClusterRecord) -> Path:
        """The key that opens ``cluster``'s nodes: its own, else the app's."""
        if self.cluster_keys is not None and cluster.idempotency_key:
            safe = re.sub(r"[^A-Za-z0-9._-]", "_", cluster.idempotency_key)[:120]
            own = self.cluster_keys / safe
            if own.exists():
                return own
        return self.identity_file

    # -- XyClaw's own file ---------------------------------------------------------------------
    def render(self) -> tuple[str, str, tuple[str, ...]]:
        """(config text, known-hosts text, aliases) for every live cluster's running nodes."""
        config, known, names, _ = self._render()
        return config, known, names

    def _render(self) -> tuple[str, str, tuple[str, ...], frozenset[tuple[int, int]]]:
        keys: set[tuple[int, int]] = set()
        blocks = [
            "# Written by XyClaw; it is rewritten whenever a cluster comes or goes.\n"
            "# Edit ~/.ssh/config instead; this file only holds XyClaw's clusters.\n"
        ]
        known: list[str] = []
        names: list[str] = []
        for cluster in self.clusters.live():
            for node in cluster.running_nodes:
                if not node.ssh_host or node.ssh_host == LOCAL_HOST or node.ssh_port is None:
                    continue
                name = alias(cluster, node.rank)
                names.append(name)
                keys.add((cluster.id, node.rank))
                blocks.append(
                    f"Host {name}\n"
                    f"    HostName {node.ssh_host}\n"
                    f"    Port {node.ssh_port}\n"
                    f"    User {node.ssh_user or 'root'}\n"
                    f"    IdentityFile {_quote(self.identity_of(cluster))}\n"
                    "    IdentitiesOnly yes\n"
                    f"    UserKnownHostsFile {_quote(self.known_hosts_path)}\n"
                    "    StrictHostKeyChecking yes\n"
                )
                if node.host_key:
                    host = (
                        node.ssh_host
                        if node.ssh_port == 22
                        else f"[{node.ssh_host}]:{node.ssh_port}"
                    )
                    known.append(f"{host} {' '.join(node.host_key.split()[:2])}\n")
        return "\n".join(blocks), "".join(known), tuple(names), frozenset(keys)

    def sync(self) -> AliasReport:
        """Rewrite XyClaw's file from the live clusters (released ones drop out)."""
        with self._lock:
            config, known, names, keys = self._render()
            self.config_path.parent.mkdir(parents=True, exist_ok=True)
            _write_if_changed(self.known_hosts_path, known)
            _write_if_changed(self.config_path, config)
            self._written, self._written_stamp = keys, _stamp(self.config_path)
        return self.report(names)

    def _holds(self, event: NodeChanged) -> bool:
        """The file holds this change already: 16 nodes come up in one transaction and then
        publish one change each, and the look for the first one saw them all (unless another
        process has written the file since)."""
        with self._lock:
            if self._written_stamp is None or _stamp(self.config_path) != self._written_stamp:
                return False
            listed = (event.cluster_id, event.rank) in self._written
        return listed == (event.state == NodeState.RUNNING)

    def on_change(self, event: Event) -> None:
        """Keep the file in step with the clusters (subscribe it to ClusterChanged and
        NodeChanged). Only a change that can alter the file is looked at: a node that starts
        or stops running, a cluster that comes or goes (16 nodes coming up publish dozens of
        changes; rewriting the files for each cost ~10 ms of fsync apiece)."""
        if _alters_file(event) and not (isinstance(event, NodeChanged) and self._holds(event)):
            try:
                self.sync()
            except OSError as exc:
                log.warning("could not write %s: %s", self.config_path, exc)

    # -- the user's file -----------------------------------------------------------------------
    def include_line(self) -> str:
        return f"Include {_quote(self.config_path)}"

    def included(self) -> bool:
        try:
            text = self.user_config.read_text(encoding="utf-8")
        except OSError:
            return False
        return self.include_line() in text.splitlines()

    def install_include(self) -> AliasReport:
        """Add the marker and the Include line at the top of the user's file (once); the
        rest of the file stays byte for byte."""
        with self._lock:
            if not self.included():
                try:
                    old = self.user_config.read_text(encoding="utf-8")
                except FileNotFoundError:
                    old = ""
                self.user_config.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
                new = f"{MARKER}\n{self.include_line()}\n" + ("\n" + old if old else "")
                write_private(self.user_config, new)
        return self.sync()

    def remove_include(self) -> AliasReport:
        """Take out the two lines install_include added, nothing else."""
        with self._lock:
            try:
                lines = self.user_config.read_text(encoding="utf-8").splitlines(keepends=True)
            except FileNotFoundError:
                lines = []
            keep = [ln for ln in lines if ln.rstrip("\n") not in (MARKER, self.include_line())]
            if len(keep) != len(lines):
                if keep and keep[0] == "\n" and lines[:2] and lines[0].rstrip("\n") == MARKER:
                    keep = keep[1:]  # the blank line install_include put after them
                write_private(self.user_config, "".join(keep))
        return self.sync()

    def report(self, names: tuple[str, ...] | None = None) -> AliasReport:
        if names is None:
            names = self.render()[2]
        return AliasReport(self.config_path, self.user_config, names, self.included())
