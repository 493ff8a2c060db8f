"""The per-rank timing hook (issue 34, b34) on a real OpenSSH server with real Python: the
launch script writes XyClaw's sitecustomize and puts it first on PYTHONPATH; two ranks of a
script that imports a stand-in ``torch.optim`` (the hook uses only PyTorch's global
optimizer-step hooks, which the stand-in implements as torch does) print their step
times, and the slower rank is named against the best rank. Off in the spec: no line. A
sitecustomize the job had on its own PYTHONPATH still runs."""

from __future__ import annotations

import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.remote.helpers import Keys, spec_for, trust
from tests.remote.sshd import Sshd
from xyclaw.jobs import node_commands as nc
from xyclaw.jobs.node_status import NodeProcessState, parse_launch, parse_log_chunk, parse_status
from xyclaw.jobs.step_hook import step_times_env
from xyclaw.parsers.steptimes import parse_step_time
from xyclaw.remote import HostSpec, KnownHosts, SshPool
from xyclaw.telemetry.stragglers import RankTimes

pytestmark = pytest.mark.sshd

# what torch.optim.optimizer offers since 2.0: global pre/post hooks of Optimizer.step
OPTIMIZER = """
_pre, _post = [], []
def register_optimizer_step_pre_hook(hook):
    _pre.append(hook)
def register_optimizer_step_post_hook(hook):
    _post.append(hook)
class Optimizer:
    def __init__(self, seconds):
        self.seconds = seconds
    def step(self):
        import time
        for hook in _pre:
            hook(self, (), {})
        time.sleep(self.seconds)
        for hook in _post:
            hook(self, (), {})
"""
TRAIN = """
import os
import torch.optim
slow = 0.06 if os.environ["RANK"] == "1" else 0.02
opt = torch.optim.optimizer.Optimizer(slow)
for _ in range(10):
    opt.step()
print("done", flush=True)
"""


def _workdir(tmp_path: Path) -> Path:
    work = tmp_path / "work"
    (work / "torch" / "optim").mkdir(parents=True)
    (work / "torch" / "__init__.py").write_text("")
    (work / "torch" / "optim" / "__init__.py").write_text("from . import optimizer\n")
    (work / "torch" / "optim" / "optimizer.py").write_text(OPTIMIZER)
    (work / "train.py").write_text(TRAIN)
    return work


def _run(pool: SshPool, host: HostSpec, base: Path, work: Path, env: dict[str, str]) -> str:
    task = nc.NodeTask(f"hook-{uuid.uuid4().hex[:8]}", 1, 0, base=str(base))
    command = f"{sys.executable} train.py"
    launched = parse_launch(
        pool.run(host, nc.launch(task, command, workdir=str(work), env=env)).check().stdout
    )
    assert launched.started, launched
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        status = parse_status(pool.run(host, nc.status(task)).check().stdout)
        if status.state is NodeProcessState.EXITED:
            break
        time.sleep(0.2)
    chunk = parse_log_chunk(pool.run(host, nc.read_log(task, 0)).check().stdout, 0)
    return chunk.data.decode()


@pytest.fixture
def host(sshd: Sshd, keys: Keys, known: KnownHosts) -> HostSpec:
    trust(known, sshd)
    return spec_for(sshd, keys.client_path)


def test_the_hook_times_each_rank_s_optimizer_step_and_names_the_slow_rank(
    host: HostSpec, make_pool: Callable[..., SshPool], tmp_path: Path
) -> None:
    work = _workdir(tmp_path)
    pool = make_pool()
    env = {**step_times_env(), "XYCLAW_STEP_TIMES_EVERY": "2"}
    logs = {r: _run(pool, host, tmp_path / "jobs", work, {**env, "RANK": str(r)}) for r in (0, 1)}
    times = RankTimes(min_samples=3)
    for rank, log in logs.items():
        assert log.rstrip().endswith("done"), log
        lines = [t for t in map(parse_step_time, log.splitlines()) if t is not None]
        assert [t.step for t in lines] == [2, 4, 6, 8, 10] and {t.rank for t in lines} == {rank}
        for t in lines:
            times.add(t.rank, t.seconds)
    (slow,) = times.stragglers(0.8)
    assert slow.rank == 1 and slow.relative < 0.5  # 0.06 s against 0.02 s
    assert 0.05 < slow.seconds < 0.2


def test_off_in_the_spec_no_line_and_a_job_s_own_sitecustomize_still_runs(
    host: HostSpec, make_pool: Callable[..., SshPool], tmp_path: Path
) -> None:
    work = _workdir(tmp_path)
    own = tmp_path / "own"
    own.mkdir()
    (own / "sitecustomize.py").write_text("print('own sitecustomize ran', flush=True)\n")
    pool = make_pool()
    on = _run(
        pool, host, tmp_path / "jobs", work,
        {**step_times_env(), "XYCLAW_STEP_TIMES_EVERY": "5", "RANK": "0", "PYTHONPATH": str(own)},
    )  # fmt: skip
    assert "own sitecustomize ran" in on
    assert [t.step for t in map(parse_step_time, on.splitlines()) if t is not None] == [5, 10]
    off = _run(pool, host, tmp_path / "jobs", work, {"XYCLAW_STEP_TIMES": "0", "RANK": "0"})
    assert "xyclaw-step" not in off and off.rstrip().endswith("done")
