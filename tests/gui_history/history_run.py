"""A history database made by a real run on the simulated cloud, for the History page's
tests, its screenshots and its benchmark.

A 2-node x 8-GPU A800 cluster is rented from the simulated cloud (quote, then ``up``), its
telemetry collected, its network tuned (fabric probe, NCCL settings, nccl-tests bus
bandwidth), and two training jobs are launched on it through the engine's job runtime with
the simulated trainer: ``lora-a`` loses its second node mid-run (the cloud's ``node_down``
fault) and is recovered from its newest checkpoint as attempt 2; ``lora-b`` runs with
another learning rate, seed and NCCL variable. Then the cluster is released and the
simulated cloud stopped.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, TypeVar

import httpx
import pytest

from xyclaw.config import load_config
from xyclaw.engine.compose import build_engine
from xyclaw.engine.lifecycle import UpRequest
from xyclaw.jobs.spec import JobSpec, load_spec
from xyclaw.paths import AppPaths
from xyclaw.records.jobs import JobState
from xyclaw.tuning.runner import MeasureSettings

T = TypeVar("T")
TORCHRUN = (
    'torchrun --nnodes "$NNODES" --nproc_per_node "$NPROC_PER_NODE" --node_rank "$NODE_RANK" '
    '--master_addr "$MASTER_ADDR" --master_port "$MASTER_PORT" --tee 3 train.py '
    "--model qwen-0.5b --output_dir {ckpt} --learning_rate {lr} --seed {seed} --lora"
)
STEPS = 600


@dataclass(frozen=True)
class HistoryFacts:
    """What the run left in the database."""

    database: Path
    cluster_id: int
    cluster_name: str
    job_a: int
    job_b: int
    lost_node: str
    released_at: float


@contextmanager
def _home(home: Path) -> Iterator[None]:
    saved = {k: os.environ.get(k) for k in ("XYCLAW_HOME", "XYCLAW_SECRETS_BACKEND")}
    os.environ["XYCLAW_HOME"] = str(home)
    os.environ["XYCLAW_SECRETS_BACKEND"] = "file"
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def wait_for(what: str, probe: Callable[[], T | None], timeout: float = 60.0) -> T:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = probe()
        if found:
            return found
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def _spec(
    folder: Path, name: str, lr: str, seed: int, env: dict[str, str], steps: int = STEPS
) -> JobSpec:
    ckpt = f"/shared/ckpt/{name}"
    work = folder / name / "work"
    work.mkdir(parents=True, exist_ok=True)
    (work / "train.py").write_text(
        f"# sim: seq_len=1024 micro_batch=1 steps={steps} save_every=50\n"
        "print('the simulated node runs this as a training job')\n"
    )
    env_lines = "".join(f"  {k}: {v}\n" for k, v in env.items())
    path = folder / name / "job.yaml"
    path.write_text(
        f"name: {name}\nworkdir: work\ncheckpoint_dir: {ckpt}\n"
        "resume_arg: --resume_from_checkpoint {latest}\n"
        f"run: {TORCHRUN.format(ckpt=ckpt, lr=lr, seed=seed)}\n"
        f"env:\n{env_lines}"
        "recovery: {max_restarts: 2, on: [node_lost, xid, nccl_timeout]}\n"
    )
    return load_spec(path).spec


def _fault(paths: AppPaths, node_external_id: str, fault: str) -> None:
    """A fault on a node of the simulated cloud, through its API (docs/sim-api.md)."""
    from xyclaw.sim.cloud import launcher

    found = launcher.status(paths.data_dir / "sim")
    assert found.endpoint is not None, "the simulated cloud is not running"
    response = httpx.post(
        f"{found.endpoint.url}/_nodes/{node_external_id}/faults",
        json={"fault": fault},
        headers={"Authorization": f"Bearer {found.endpoint.token}"},
        timeout=10,
    )
    response.raise_for_status()


def _finished(engine: Any, job_id: int, timeout: float = 120.0) -> Any:
    def done() -> Any:
        job = engine.job(str(job_id))
        return job if job.state.finished else None

    return wait_for(f"job {job_id} to end", done, timeout)


def make_history(home: Path, *, settle_s: float = 2.0) -> HistoryFacts:
    """Run everything under ``home`` (its own XYCLAW_HOME) and leave the database there."""
    from xyclaw.sim.cloud import launcher

    work = home / "specs"
    with _home(home):
        paths = AppPaths.from_environment()
        config = load_config(
            paths.config_file,
            environ={
                "XYCLAW_SIM_PROVISION_DELAY_S": "0",
                "XYCLAW_TELEMETRY_SAMPLE_INTERVAL_S": "0.5",
            },
        )
        measure = MeasureSettings(min_bytes="32M", max_bytes="64M", iters=2, warmup=1, repeats=1)
        engine = build_engine(paths, config, measure=measure)
        try:
            quote = engine.quote_request(
                UpRequest(provider="sim", gpu="A800", gpu_count=16, name="review")
            )
            cluster = engine.up(quote).result(180)
            engine.sync_telemetry()
            engine.tune(cluster.name).result(300)
            cluster = engine.cluster(cluster.name)

            spec_a = _spec(work, "lora-a", "3e-4", 1, {"HF_HOME": "/shared/hf"})
            job_a = engine.launch(spec_a, cluster=cluster.name).result(120)
            wait_for(
                "a checkpoint of lora-a",
                lambda: (engine.job(str(job_a.id)).progress.checkpoint_step or 0) >= 100,
            )
            lost = cluster.nodes[1]
            _fault(paths, str(lost.external_id), "node_down")
            wait_for(
                "lora-a to lose contact",
                lambda: engine.job(str(job_a.id)).state is JobState.LOST_CONTACT,
            )
            _fault(paths, str(lost.external_id), "node_up")
            wait_for("attempt 2 of lora-a", lambda: engine.job(str(job_a.id)).attempt == 2)
            done_a = _finished(engine, job_a.id)
            assert done_a.state is JobState.SUCCEEDED, done_a.error

            spec_b = _spec(
                work, "lora-b", "1e-4", 7, {"HF_HOME": "/shared/hf", "NCCL_ALGO": "Ring"}, 400
            )
            job_b = engine.launch(spec_b, cluster=cluster.name).result(120)
            done_b = _finished(engine, job_b.id)
            assert done_b.state is JobState.SUCCEEDED, done_b.error

            time.sleep(settle_s)  # a few idle samples after the jobs
            engine.charge_meters()
            engine.down(cluster.name).result(180)
            released = engine.cluster(str(cluster.id))
        finally:
            engine.close()
            launcher.stop(paths.data_dir / "sim")
        return HistoryFacts(
            database=paths.database,
            cluster_id=cluster.id,
            cluster_name=cluster.name,
            job_a=job_a.id,
            job_b=job_b.id,
            lost_node=str(lost.hostname),
            released_at=float(released.released_at or time.time()),
        )


def shared_history(tmp_path_factory: pytest.TempPathFactory) -> HistoryFacts:
    """One run's history for every worker of a pytest-xdist session: the first worker makes
    it under the session's shared temporary root, holding a lock, and writes its facts; the
    others wait on the lock and read them (the database is only copied from then on)."""
    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent  # the folder above every worker's own
    folder = root / "history-run"
    folder.mkdir(exist_ok=True)
    facts_file = folder / "facts.json"
    with open(folder / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if facts_file.exists():
            saved = json.loads(facts_file.read_text())
            return HistoryFacts(**{**saved, "database": Path(saved["database"])})
        facts = make_history(folder / "home")
        facts_file.write_text(json.dumps({**asdict(facts), "database": str(facts.database)}))
        return facts


def copy_history(facts: HistoryFacts, home: Path) -> Path:
    """The run's database copied into another home's data folder (each test its own)."""
    target = AppPaths.under(home).ensure().database
    shutil.copyfile(facts.database, target)
    wal = facts.database.with_name(facts.database.name + "-wal")
    if wal.exists():
        shutil.copyfile(wal, target.with_name(target.name + "-wal"))
    return target
