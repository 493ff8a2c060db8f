"""The nodes of one simulated multi-node job keep one pace, as torchrun and NCCL keep real ones.

Before, each node ran its own clock: a node launched a moment later, or slowed by a slow
GPU, fell behind its peer, whose GPUs then trained on alone (a straggler no real job shows,
and the reason one healthy run in 50 warned, issue 34)."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from tests.sim.conftest import Client
from xyclaw.sim.node import SimClusterInfo, SimNode

COMMAND = (
    "torchrun --nnodes 2 --node_rank {rank} --master_addr node-0 --master_port 29400 "
    "--nproc_per_node 8 train.py"
)


def _cluster(tmp_path: Path) -> SimClusterInfo:
    return SimClusterInfo(("node-0", "node-1"), gpus_per_node=8, shared_dir=tmp_path / "shared")


def _upload(ssh: Client, text: str) -> None:
    sftp = ssh.ssh.open_sftp()
    with sftp.open("train.py", "w") as handle:
        handle.write(text)
    sftp.close()


class _Run(threading.Thread):
    """One node's share of the job, run over SSH; when it ended, in real time."""

    def __init__(self, ssh: Client, rank: int) -> None:
        super().__init__(daemon=True)
        self.ssh, self.rank = ssh, rank
        self.status: int | None = None
        self.ended = 0.0

    def run(self) -> None:
        self.status = self.ssh.run(COMMAND.format(rank=self.rank)).status
        self.ended = time.monotonic()


def test_a_node_launched_first_waits_for_its_peer_before_it_trains(
    make_node, connect, tmp_path
) -> None:
    cluster = _cluster(tmp_path)
    nodes: list[SimNode] = [make_node(f"node-{i}", cluster=cluster) for i in range(2)]
    clients = [connect(node) for node in nodes]
    for ssh in clients:
        _upload(ssh, "# sim: steps=3\n")
    first = _Run(clients[0], 0)
    first.start()
    time.sleep(1.0)  # alone, node 0 would load and train 3 steps in about 20 ms
    assert first.is_alive(), "node 0 trained without waiting for node 1"
    peer_launched = time.monotonic()
    second = _Run(clients[1], 1)
    second.start()
    first.join(30)
    second.join(30)
    assert (first.status, second.status) == (0, 0)
    assert first.ended >= peer_launched


def test_a_node_does_not_run_ahead_of_a_peer_slowed_by_a_slow_gpu(
    make_node, connect, tmp_path
) -> None:
    cluster = _cluster(tmp_path)
    nodes = [make_node(f"node-{i}", cluster=cluster, time_scale=0.005) for i in range(2)]
    nodes[1].faults.straggler(3)  # node 1's steps take about 1.7 times as long
    clients = [connect(node) for node in nodes]
    for ssh in clients:
        _upload(ssh, "# sim: model=llama-7b steps=40 save_every=100000\n")
    runs = [_Run(ssh, rank) for rank, ssh in enumerate(clients)]
    for run in runs:
        run.start()
    for run in runs:
        run.join(60)
    assert [run.status for run in runs] == [0, 0]
    # alone, node 0 would end about a second before node 1; in step, within a checkpoint
    assert runs[0].ended >= runs[1].ended - 0.3


def test_a_node_whose_peer_never_comes_goes_on_alone(make_node, connect, tmp_path) -> None:
    node = make_node("node-1", cluster=_cluster(tmp_path))
    ssh = connect(node)
    _upload(ssh, "# sim: steps=5\n")
    r = ssh.run(COMMAND.format(rank=1))
    assert r.status == 0, r.err
