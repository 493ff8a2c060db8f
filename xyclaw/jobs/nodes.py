"""The nodes a job attempt runs on, and the few ways the runtime reaches them.

A :class:`JobNode` is one node of an attempt with its node rank, the address its peers
use (``hostname -I``'s first address) and its home folder, probed once per attempt.
:class:`NodeShell` runs short commands, streams long ones, uploads files and hands out
the SSH transport for a port forward, over the app's one SSH pool (or here, for the
local provider).
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from xyclaw.errors import RemoteError
from xyclaw.records import ClusterRecord, NodeRecord
from xyclaw.records.jobs import AttemptNode
from xyclaw.records.provider_view import LOCAL_HOST
from xyclaw.remote import CommandResult, HostSpec, LineCallback, StreamHandle
from xyclaw.remote.forward import PortForward
from xyclaw.remote.node_access import NodeAccess

T = TypeVar("T")

PROBE = (
    'printf "home=%s\\n" "$HOME"; printf "host=%s\\n" "$(hostname)"; '
    'printf "ips=%s\\n" "$(hostname -I 2>/dev/null)"'
)


@dataclass(frozen=True)
class JobNode:
    rank: int  # node rank in this attempt (0: the head node, MASTER_ADDR)
    cluster: ClusterRecord
    node: NodeRecord
    ip: str | None = None
    hostname: str | None = None
    home: str | None = None

    @property
    def name(self) -> str:
        return self.node.name

    @property
    def local(self) -> bool:
        return self.node.ssh_host == LOCAL_HOST

    def address(self) -> str:
        """What the other nodes reach this one at: its address on the cluster's private
        network where the provider gives one (``hostname -I``'s first may be the management
        interface there), else the probed one."""
        return (
            self.node.private_ip or self.ip or self.hostname or self.node.hostname or self.node.name
        )

    def expand(self, path: str) -> str:
        """``~/x`` as an absolute path on the node (SFTP does not expand ``~``)."""
        if self.home and (path == "~" or path.startswith("~/")):
            return self.home.rstrip("/") + path[1:]
        return path

    def to_attempt_node(
        self, state: str | None = None, exit_code: int | None = None
    ) -> AttemptNode:
        return AttemptNode(
            rank=self.rank,
            node=self.name,
            cluster_id=self.cluster.id,
            node_id=self.node.id,
            ip=self.ip,
            state=state,
            exit_code=exit_code,
        )


def parse_probe(text: str) -> dict[str, str]:
    found: dict[str, str] = {}
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep and key in ("home", "host", "ips"):
            found[key] = value.strip()
    return found


class NodeShell:
    """Commands, streams, uploads and transports to a job's nodes."""

    def __init__(self, access: NodeAccess, *, timeout_s: float = 60.0) -> None:
        self.access = access
        self.timeout_s = timeout_s

    def _target(self, jn: JobNode) -> HostSpec | str:
        target = self.access.target(jn.cluster, jn.node)
        self.access.trust(jn.node)
        return target

    def run(self, jn: JobNode, command: str, timeout: float | None = None) -> CommandResult:
        return self.access.run(jn.cluster, jn.node, command, timeout=timeout or self.timeout_s)

    def run_all(
        self, nodes: Sequence[JobNode], work: Callable[[JobNode], T]
    ) -> list[T | RemoteError]:
        """``work`` on every node in parallel; a node that fails gets its error in the list."""

        def one(jn: JobNode) -> T | RemoteError:
            try:
                return work(jn)
            except RemoteError as exc:
                return exc

        if not nodes:
            return []
        with ThreadPoolExecutor(max_workers=min(32, len(nodes)), thread_name_prefix="job") as ex:
            return list(ex.map(one, nodes))

    def stream(self, jn: JobNode, command: str, on_line: LineCallback) -> StreamHandle | None:
        """A long command whose stdout lines come to ``on_line``; None on this machine (the
        local provider), where the caller polls instead."""
        target = self._target(jn)
        if not isinstance(target, HostSpec) and target == LOCAL_HOST:
            return None
        return self.access.pool.stream(target, command, on_line)

    def upload(
        self,
        jn: JobNode,
        local: Path,
        remote: str,
        progress: Callable[[int, int], None] | None = None,
    ) -> int:
        target = self._target(jn)
        if not isinstance(target, HostSpec) and target == LOCAL_HOST:
            dest = Path(jn.expand(remote)).expanduser()
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(local, dest)
            return dest.stat().st_size
        return self.access.pool.upload(target, local, jn.expand(remote), progress)

    def download(self, jn: JobNode, remote: str, local: Path) -> int:
        """Copy a file from the node (whole or not at all); its size."""
        target = self._target(jn)
        if not isinstance(target, HostSpec) and target == LOCAL_HOST:
            source = Path(jn.expand(remote)).expanduser()
            local.parent.mkdir(parents=True, exist_ok=True)
            tmp = local.with_name(local.name + ".part")
            shutil.copyfile(source, tmp)
            tmp.replace(local)
            return local.stat().st_size
        return self.access.pool.download(target, jn.expand(remote), local)

    def forward(self, jn: JobNode, remote_port: int) -> PortForward:
        """A free loopback port of this machine tunnelled to ``remote_port`` on the node."""
        target = self._target(jn)
        if not isinstance(target, HostSpec) and target == LOCAL_HOST:
            raise RemoteError(
                f"{jn.name} is this machine: there is no SSH connection to forward over",
                host=jn.name,
                hint="open the service's port on this machine directly",
            )
        return self.access.pool.forward(target, remote_port)

    def probe(self, jn: JobNode) -> JobNode:
        """The node's home, hostname and address, as a new JobNode."""
        found = parse_probe(self.run(jn, PROBE).check().stdout)
        ips = found.get("ips", "").split()
        return JobNode(
            rank=jn.rank,
            cluster=jn.cluster,
            node=jn.node,
            ip=ips[0] if ips else None,
            hostname=found.get("host") or None,
            home=found.get("home") or None,
        )
