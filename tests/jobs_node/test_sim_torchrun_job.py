"""A 2-node x 8-GPU torchrun job on simulated nodes, driven only by the node command strings.

What the job runtime will do, step by step: launch every node rank detached
with the rendezvous environment, read status and logs, find the newest
complete checkpoint after a node died, and start attempt 2 from it.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from pathlib import Path

from tests.jobs_node.nodes import SimShellNode
from xyclaw.jobs import node_commands as nc
from xyclaw.jobs.node_status import (
    LogWatchDecoder,
    NodeProcessState,
    parse_cancel,
    parse_checkpoint,
    parse_launch,
    parse_status,
)
from xyclaw.sim.node import SimClusterInfo

SCRIPT = "# sim: steps={steps} save_every=10 print_env=1\nimport torch\n"


def torchrun(rank: int, extra: str = "") -> str:
    return (
        "torchrun --tee 3 --nnodes $NNODES --nproc_per_node $NPROC_PER_NODE "
        "--node_rank $NODE_RANK --master_addr $MASTER_ADDR --master_port $MASTER_PORT "
        f"train.py --model llama-7b --output_dir /shared/ck/job {extra}"
    )


def env_for(rank: int) -> dict[str, str]:
    return {
        "MASTER_ADDR": "node-0",
        "MASTER_PORT": "29500",
        "NODE_RANK": str(rank),
        "NNODES": "2",
        "NPROC_PER_NODE": "8",
        "XYCLAW_NODE_IPS": "10.1.0.10\n10.1.0.11",
        "XYCLAW_NODE_RANK": str(rank),
        "XYCLAW_NUM_NODES": "2",
        "XYCLAW_GPUS_PER_NODE": "8",
        "NCCL_IB_HCA": "mlx5",
        "NCCL_SOCKET_IFNAME": "eth0",
    }


def wait_until(predicate: Callable[[], bool], timeout: float = 30.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return False


def start_cluster(
    make_sim_node: Callable[..., SimShellNode], tmp_path: Path, steps: int, time_scale: float
) -> list[SimShellNode]:
    cluster = SimClusterInfo(("node-0", "node-1"), gpus_per_node=8, shared_dir=tmp_path / "shared")
    nodes = [make_sim_node(f"node-{i}", cluster=cluster, time_scale=time_scale) for i in range(2)]
    for node in nodes:
        node.write("job/train.py", SCRIPT.format(steps=steps))
    return nodes


def test_two_nodes_sixteen_ranks_run_to_completion(make_sim_node, tmp_path: Path) -> None:
    nodes = start_cluster(make_sim_node, tmp_path, steps=20, time_scale=0.0005)
    tasks = [nc.NodeTask("j16", 1, rank) for rank in range(2)]
    for rank, (node, task) in enumerate(zip(nodes, tasks, strict=True)):
        ran = node.run(nc.launch(task, torchrun(rank), workdir="~/job", env=env_for(rank)))
        assert parse_launch(ran.out).started, ran

    for node, task in zip(nodes, tasks, strict=True):
        assert wait_until(lambda n=node, t=task: parse_status(n.run(nc.status(t)).out).finished)
        assert parse_status(node.run(nc.status(task)).out).exit_code == 0

    logs = []
    for node, task in zip(nodes, tasks, strict=True):
        decoder = LogWatchDecoder(0)
        out = node.run(nc.watch_log(task, 0)).out
        logs.append(b"".join(c.data for x in out.splitlines() for c in decoder.feed(x)).decode())
        assert decoder.end is not None and decoder.end.exit_code == 0
    ranks = set()
    for text in logs:
        for line in text.splitlines():
            m = re.match(r"\[default(\d)\]:env rank=(\d+) .*", line)
            if m:
                ranks.add(int(m.group(2)))
                assert "MASTER_ADDR=node-0" in line and "NCCL_IB_HCA=mlx5" in line
                assert "WORLD_SIZE=16" in line and "XYCLAW_NUM_NODES=2" in line
    assert ranks == set(range(16))
    assert "[default0]:training finished: 20 steps" in logs[0]
    listing = parse_checkpoint(nodes[0].run(nc.latest_checkpoint("/shared/ck/job")).out)
    assert listing.latest is not None and listing.latest.step == 20 and listing.latest.by_marker


def test_a_lost_node_gives_attempt_two_from_the_newest_checkpoint(
    make_sim_node, tmp_path: Path
) -> None:
    nodes = start_cluster(make_sim_node, tmp_path, steps=100000, time_scale=0.01)
    first = [nc.NodeTask("jr", 1, rank) for rank in range(2)]
    for rank, (node, task) in enumerate(zip(nodes, first, strict=True)):
        assert parse_launch(
            node.run(nc.launch(task, torchrun(rank), workdir="~/job", env=env_for(rank))).out
        ).started
    ck = tmp_path / "shared/ck/job"
    assert wait_until(lambda: (ck / "checkpoint-20" / "trainer_state.json").is_file())

    nodes[1].node.faults.node_down()  # node 1 is lost mid-job
    nodes[1].node.faults.node_up()
    assert parse_status(nodes[1].run(nc.status(first[1])).out).state is NodeProcessState.DEAD
    assert parse_cancel(nodes[0].run(nc.cancel(first[0], grace_s=5)).out).clean

    listing = parse_checkpoint(nodes[0].run(nc.latest_checkpoint("/shared/ck/job")).out)
    assert listing.latest is not None and listing.latest.step >= 20
    step = listing.latest.step
    second = [nc.NodeTask("jr", 2, rank) for rank in range(2)]
    resume = f"--resume_from_checkpoint {listing.latest.path} --max_steps {step + 5}"
    for rank, (node, task) in enumerate(zip(nodes, second, strict=True)):
        node.write("job/train.py", SCRIPT.format(steps=step + 5))
        ran = node.run(nc.launch(task, torchrun(rank, resume), workdir="~/job", env=env_for(rank)))
        assert parse_launch(ran.out).started
    for node, task in zip(nodes, second, strict=True):
        assert wait_until(lambda n=node, t=task: parse_status(n.run(nc.status(t)).out).finished)
        assert parse_status(node.run(nc.status(task)).out).exit_code == 0
    log = nodes[0].read(second[0].path(".log")[2:])
    assert f"[default0]:resumed from /shared/ck/job/checkpoint-{step} (step {step})" in log
    first_step = next(x for x in log.splitlines() if x.startswith("[default0]:step "))
    assert first_step.startswith(f"[default0]:step {step + 1}/")
    # attempt 1's log is kept beside attempt 2's
    assert "[default0]:step 1/" in nodes[0].read(first[0].path(".log")[2:])
