"""The pool against the simulated GPU node: the peer the app uses with no real machines."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import paramiko
import pytest

from xyclaw.errors import ConnectError
from xyclaw.remote import CommandResult, CommandTimeoutError, HostSpec, KnownHosts, SshPool

sim_node = pytest.importorskip("xyclaw.sim.node")


@pytest.fixture(scope="module")
def client_key() -> paramiko.PKey:
    return paramiko.ECDSAKey.generate()


@pytest.fixture
def nodes(
    tmp_path: Path, client_key: paramiko.PKey, known: KnownHosts
) -> Iterator[Callable[[str], HostSpec]]:
    started: list[sim_node.SimNode] = []

    def start(name: str) -> HostSpec:
        node = sim_node.SimNode(
            sim_node.SimNodeSpec(hostname=name, gpu_model="A800", gpu_count=8),
            root=tmp_path / name,
            authorized_keys=[client_key],
        )
        node.start()
        started.append(node)
        host, port = node.address
        known.add(host, port, node.host_key, persist=False)
        return HostSpec(alias=name, hostname=host, port=port, user="root")

    start.started = started  # type: ignore[attr-defined]
    yield start
    for node in started:
        node.stop()


@pytest.fixture
def pool(client_key: paramiko.PKey, make_pool: Callable[..., SshPool]) -> SshPool:
    return make_pool(client_keys=[client_key], connect_attempts=1)


def test_commands_run_on_the_simulated_node(
    nodes: Callable[[str], HostSpec], pool: SshPool
) -> None:
    spec = nodes("sim-a")

    result = pool.run(
        spec, "hostname; nvidia-smi -L | wc -l; echo $NCCL_IB_HCA", env={"NCCL_IB_HCA": "mlx5_0"}
    )

    assert result.stdout.split() == ["sim-a", "8", "mlx5_0"]
    assert pool.run(spec, "no-such-tool").exit_code == 127


def test_stream_from_the_simulated_node_cancels(
    nodes: Callable[[str], HostSpec], pool: SshPool
) -> None:
    spec = nodes("sim-b")
    got = threading.Event()
    lines: list[str] = []

    def on_line(line: str) -> None:
        lines.append(line)
        got.set()

    handle = pool.stream(
        spec, "nvidia-smi --query-gpu=index --format=csv,noheader -lms 100", on_line=on_line
    )
    assert got.wait(10)
    handle.cancel()

    assert handle.done and lines[0] == "0"
    # The node hangs its process up when the channel closes, a moment later.
    deadline = time.monotonic() + 5
    while "nvidia-smi" in pool.run(spec, "ps").stdout:
        assert time.monotonic() < deadline, "the streamed command still runs on the node"
        time.sleep(0.05)


def test_timeout_and_a_stopped_node_among_live_ones(
    nodes: Callable[[str], HostSpec], pool: SshPool
) -> None:
    specs = [nodes(f"sim-{i}") for i in range(3)]
    nodes.started[1].stop()  # type: ignore[attr-defined]

    results = pool.run_many(specs, "hostname")

    assert isinstance(results["sim-1"], ConnectError)
    for name in ("sim-0", "sim-2"):
        outcome = results[name]
        assert isinstance(outcome, CommandResult) and outcome.stdout == f"{name}\n"
    with pytest.raises(CommandTimeoutError):
        pool.run(specs[0], "sleep 30", timeout=0.5)
