"""Fixtures for the simulated node: nodes on free loopback ports and plain paramiko clients."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import paramiko
import pytest

from xyclaw.sim.commands import new_machine
from xyclaw.sim.context import Stdio
from xyclaw.sim.machine import Machine
from xyclaw.sim.node import SimClusterInfo, SimNode, SimNodeSpec
from xyclaw.sim.shell import Shell
from xyclaw.sim.streams import BufferOut, BytesIn

FAST = 0.0005  # time scale for simulated work (training steps, nccl-tests rows)


@dataclass
class Result:
    status: int
    out: str
    err: str


class Client:
    """A plain paramiko SSH client that knows the node's host key (RejectPolicy, never AutoAdd)."""

    def __init__(self, node: SimNode, key: paramiko.PKey, *, user: str = "root") -> None:
        host, port = node.address
        self.ssh = paramiko.SSHClient()
        self.ssh.get_host_keys().add(f"[{host}]:{port}", node.host_key.get_name(), node.host_key)
        self.ssh.set_missing_host_key_policy(paramiko.RejectPolicy())
        self.ssh.connect(
            host,
            port=port,
            username=user,
            pkey=key,
            allow_agent=False,
            look_for_keys=False,
            timeout=10,
            banner_timeout=10,
            auth_timeout=10,
        )

    def run(self, command: str, *, stdin: bytes = b"", timeout: float = 30.0) -> Result:
        transport = self.ssh.get_transport()
        assert transport is not None
        channel = transport.open_session(timeout=timeout)
        channel.settimeout(timeout)
        channel.exec_command(command)
        if stdin:
            channel.sendall(stdin)
        channel.shutdown_write()
        out = channel.makefile("rb").read()
        err = channel.makefile_stderr("rb").read()
        status = channel.recv_exit_status()
        channel.close()
        return Result(status, out.decode(), err.decode())

    def close(self) -> None:
        self.ssh.close()


@pytest.fixture(scope="session")
def client_key() -> paramiko.PKey:
    return paramiko.ECDSAKey.generate(bits=256)


NodeFactory = Callable[..., SimNode]


@pytest.fixture
def make_node(tmp_path: Path, client_key: paramiko.PKey) -> Iterator[NodeFactory]:
    nodes: list[SimNode] = []

    def make(
        hostname: str = "node-0",
        *,
        cluster: SimClusterInfo | None = None,
        time_scale: float = FAST,
        clock: Callable[[], float] = time.time,
        gpu_model: str = "A800",
        gpu_count: int = 8,
        fabric: str = "ib-hdr-200",
        nic_count: int = 4,
    ) -> SimNode:
        node = SimNode(
            SimNodeSpec(hostname, gpu_model, gpu_count, fabric, nic_count),
            root=tmp_path / "nodes" / hostname,
            authorized_keys=[client_key],
            cluster=cluster,
            clock=clock,
            time_scale=time_scale,
        )
        node.start()
        nodes.append(node)
        return node

    yield make
    for node in nodes:
        node.stop()


@pytest.fixture
def connect(client_key: paramiko.PKey) -> Iterator[Callable[[SimNode], Client]]:
    clients: list[Client] = []

    def open_client(node: SimNode, user: str = "root") -> Client:
        client = Client(node, client_key, user=user)
        clients.append(client)
        return client

    yield open_client
    for client in clients:
        client.close()


@pytest.fixture
def node(make_node: NodeFactory) -> SimNode:
    return make_node()


@pytest.fixture
def ssh(node: SimNode, connect: Callable[[SimNode], Client]) -> Client:
    return connect(node)


@pytest.fixture
def machine(tmp_path: Path) -> Iterator[Machine]:
    m = new_machine(SimNodeSpec("node-0"), root=tmp_path / "m", time_scale=FAST)
    yield m
    m.crash()


ShellRun = Callable[..., Result]


@pytest.fixture
def sh(machine: Machine) -> ShellRun:
    """Run a script on the node's shell directly (no SSH): for interpreter tests."""

    def run(script: str, *, stdin: bytes = b"", cwd: str = "/root") -> Result:
        out, err = BufferOut(), BufferOut()
        shell = Shell(machine, env=machine.base_env("root"), cwd=cwd)
        status = shell.run_script(script, Stdio(BytesIn(stdin), out, err))
        return Result(status, out.text(), err.text())

    return run
