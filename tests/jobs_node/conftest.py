"""Two places to run the node command strings: real bash in a temp home, and a simulated node."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import paramiko
import pytest

from tests.jobs_node.nodes import BashNode, Node, SimShellNode
from tests.remote.conftest import keys, known, make_pool, sshd, sshd_factory  # noqa: F401
from tests.remote.helpers import TEST_SETTINGS
from xyclaw.remote import HostSpec, KnownHosts, SshPool
from xyclaw.sim.node import SimClusterInfo, SimNode, SimNodeSpec


@pytest.fixture(scope="session")
def client_key() -> paramiko.PKey:
    return paramiko.ECDSAKey.generate(bits=256)


@pytest.fixture
def sim_pool(tmp_path: Path, client_key: paramiko.PKey) -> Iterator[SshPool]:
    hosts = KnownHosts(app_path=tmp_path / "known_hosts", user_path=tmp_path / "user_known")
    pool = SshPool(
        TEST_SETTINGS,
        hosts,
        client_keys=[client_key],
        use_agent=False,
        default_identities=(),
        ssh_config_path=tmp_path / "ssh_config",
        connect_attempts=1,
    )
    yield pool
    pool.close()


SimNodeFactory = Callable[..., SimShellNode]


@pytest.fixture
def make_sim_node(
    tmp_path: Path, client_key: paramiko.PKey, sim_pool: SshPool
) -> Iterator[SimNodeFactory]:
    started: list[SimNode] = []

    def make(
        hostname: str = "node-0",
        *,
        cluster: SimClusterInfo | None = None,
        gpu_model: str = "A800",
        gpu_count: int = 8,
        time_scale: float = 0.001,
    ) -> SimShellNode:
        node = SimNode(
            SimNodeSpec(hostname, gpu_model=gpu_model, gpu_count=gpu_count),
            root=tmp_path / "nodes" / hostname,
            authorized_keys=[client_key],
            cluster=cluster,
            time_scale=time_scale,
        )
        node.start()
        started.append(node)
        host, port = node.address
        sim_pool.known_hosts.add(host, port, node.host_key, persist=False)
        spec = HostSpec(alias=hostname, hostname=host, port=port, user="root")
        return SimShellNode(node, sim_pool, spec)

    yield make
    for node in started:
        node.stop()


@pytest.fixture
def sim_node(make_sim_node: SimNodeFactory) -> SimShellNode:
    return make_sim_node()


@pytest.fixture
def bash_node(tmp_path: Path) -> BashNode:
    for tool in ("bash", "setsid", "ps", "base64"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed on this machine")
    home = tmp_path / "bash-home"
    home.mkdir()
    return BashNode(home)


@pytest.fixture(params=["bash", "sim"])
def node(request: pytest.FixtureRequest) -> Node:
    """The same test against real bash and against the simulated node."""
    fixture = "bash_node" if request.param == "bash" else "sim_node"
    value: Node = request.getfixturevalue(fixture)
    return value


@pytest.fixture
def sim_transport(
    sim_node: SimShellNode, client_key: paramiko.PKey
) -> Iterator[paramiko.Transport]:
    """A plain paramiko connection to the simulated node (what a port forward runs over)."""
    host, port = sim_node.node.address
    client = paramiko.SSHClient()
    client.get_host_keys().add(f"[{host}]:{port}", sim_node.node.host_key.get_name(),
                               sim_node.node.host_key)  # fmt: skip
    client.set_missing_host_key_policy(paramiko.RejectPolicy())
    client.connect(host, port=port, username="root", pkey=client_key, allow_agent=False,
                   look_for_keys=False, timeout=10)  # fmt: skip
    transport = client.get_transport()
    assert transport is not None
    yield transport
    client.close()
