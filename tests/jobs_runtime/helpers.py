"""Specs and waits shared by the job runtime tests."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from xyclaw.engine import Engine
from xyclaw.jobs.spec import JobSpec, load_spec
from xyclaw.records.jobs import JobRecord

T = TypeVar("T")

TORCHRUN = (
    'torchrun --nnodes "$NNODES" --nproc_per_node "$NPROC_PER_NODE" --node_rank "$NODE_RANK" '
    '--master_addr "$MASTER_ADDR" --master_port "$MASTER_PORT" --tee 3 train.py '
    "--output_dir {ckpt}"
)


def write_spec(folder: Path, text: str, *, script: str | None = None) -> JobSpec:
    """A spec file (and its workdir with ``train.py`` when ``script`` is given), loaded."""
    folder.mkdir(parents=True, exist_ok=True)
    if script is not None:
        (folder / "work").mkdir(exist_ok=True)
        (folder / "work" / "train.py").write_text(script)
    path = folder / "job.yaml"
    path.write_text(text)
    return load_spec(path).spec


def train_spec(
    folder: Path,
    name: str,
    *,
    steps: int,
    save_every: int,
    model: str = "llama-7b",
    extra: str = "",
) -> JobSpec:
    ckpt = f"/shared/ckpt/{name}"
    script = (
        f"# sim: model={model} seq_len=512 micro_batch=1 steps={steps} save_every={save_every}\n"
        "print('the simulated node runs this as a training job')\n"
    )
    text = (
        f"name: {name}\nworkdir: work\ncheckpoint_dir: {ckpt}\n"
        "resume_arg: --resume_from_checkpoint {latest}\n"
        f"run: {TORCHRUN.format(ckpt=ckpt)}\n{extra}"
    )
    return write_spec(folder, text, script=script)


def wait_for(what: str, probe: Callable[[], T | None], timeout: float = 30.0) -> T:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = probe()
        if found:
            return found
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def finished(engine: Engine, job_id: int, timeout: float = 60.0) -> JobRecord:
    def done() -> JobRecord | None:
        job = engine.job(str(job_id))
        return job if job.state.finished else None

    return wait_for(f"job {job_id} to end", done, timeout)


def host_cluster(engine: Engine, name: str, hosts: list[tuple[str, int, str, str]]) -> int:
    """A READY cluster in the engine's history whose nodes are the given SSH servers
    (host, port, user, host key line): what the own-hosts provider would have written."""
    from xyclaw.records import ClusterInfo, ClusterState, NodeInfo

    clusters = engine._clusters
    clusters.ensure_provider("test", "ssh")
    cluster_id = clusters.add_intent(
        {
            "provider_id": "test",
            "name": name,
            "gpu": "A800",
            "gpu_count": len(hosts),
            "gpus_per_node": 1,
            "fabric": "none",
            "region": "loopback",
            "currency": "CNY",
            "price_per_gpu_hour_micros": 1_000_000,
            "idempotency_key": f"{name}-key",
        }
    )
    nodes = tuple(
        NodeInfo(
            external_id=f"{name}-{rank}",
            rank=rank,
            hostname=f"{name}-{rank}",
            state="running",
            ssh_host=host,
            ssh_port=port,
            ssh_user=user,
            host_key=key,
        )
        for rank, (host, port, user, key) in enumerate(hosts)
    )
    clusters.apply_provider_view(
        cluster_id,
        ClusterInfo(
            external_id=f"{name}-ext",
            name=name,
            state="running",
            gpu="A800",
            gpu_count=len(hosts),
            gpus_per_node=1,
            fabric="none",
            region="loopback",
            price_per_gpu_hour_micros=1_000_000,
            currency="CNY",
            nodes=nodes,
        ),
    )
    clusters.update(cluster_id, state=ClusterState.READY, ready_at=time.time())
    return cluster_id
