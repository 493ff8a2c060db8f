"""`xyclaw slurm ...` with ``[gui] language = "zh_CN"`` against the real loopback Slurm (issue 35,
a35): queue, submit (refused without a yes, then with --yes), jobs, logs, cancel (refused,
then --yes), and probe, as a person reads them. The word check is the one of
tests/foundation/test_cli_chinese.py; what is Slurm's or the nodes' own text (a state word
such as RUNNING, a job's log lines, a card's bound fields: `action: slurm_cancel`, and the
exact command the card binds, `command: sbatch ... # hold at lab`) is data.
These tests live here for the loopback Slurm's fixtures (tests/slurm/conftest.py)."""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

from tests.foundation.test_cli_chinese import english_runs
from tests.slurm.conftest import LoginNode, as_root
from tests.slurm.test_slurm_cli import configure, xyclaw
from xyclaw.paths import AppPaths


def _chinese() -> None:
    config = AppPaths.from_environment().config_file
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('[gui]\nlanguage = "zh_CN"\n', encoding="utf-8")


def test_the_slurm_commands_are_chinese(
    login_node: tuple[LoginNode, Path], make_jobs: object
) -> None:
    configure(login_node[0])
    _chinese()
    spec = Path(os.environ["XYCLAW_HOME"]) / "hold.yaml"
    spec.write_text(
        "name: hold\nnum_nodes: 2\nresources:\n  accelerators: A800:8\nrun: echo 开始; sleep 300\n"
    )
    said: dict[str, str] = {}
    found: dict[str, list[str]] = {}

    def run(*args: str, code: int = 0, remote: bool = False) -> str:
        done = xyclaw(*args)
        text = done.stdout + done.stderr
        assert done.returncode == code, (args, text)
        assert "Traceback" not in text, text
        said[" ".join(args[:2])] = text
        # a card's command row is the exact command the yes binds (its digest), comment and
        # all: data, like a command in backticks
        read = "\n".join(line for line in text.splitlines() if not line.startswith("  command: "))
        if not remote and english_runs(read):
            found[" ".join(args)] = english_runs(read)
        return text

    refused = run("slurm", "submit", "lab", str(spec), code=2)
    assert "不在终端里运行时请加 --yes 确认" in refused and "sbatch --parsable" in refused
    submitted = run("slurm", "submit", "lab", str(spec), "--yes")
    assert "分区 gpu：MaxTime=01:00:00" in submitted, submitted
    assert "关联和 QoS 限制未知" in submitted
    job = re.search(r"已提交作业 (\d+) 到 lab，分区 gpu", submitted)
    assert job is not None, submitted
    job_id = job.group(1)
    assert "它在登录节点上的文件夹" in submitted
    deadline = time.monotonic() + 30
    while "RUNNING" not in as_root("squeue", "-h", "-j", job_id, "-o", "%T"):
        assert time.monotonic() < deadline
        time.sleep(0.5)
    queue = run("slurm", "queue", "lab", "--nodes", "2", "--gpus-per-node", "8")
    assert re.search(r"gpu：空闲 0 张 GPU；2 × 8 张 GPU 约需等待 \d+ 分钟", queue), queue
    listed = run("slurm", "jobs", "lab")
    assert f"{job_id}  hold  RUNNING  gpu  2 个节点" in listed, listed
    # The job's own files, as the nodes wrote them, are data: on a loaded machine srun writes
    # its English there too ("srun: Job 24 step creation temporarily disabled, retrying").
    logged = run("slurm", "logs", "lab", job_id, remote=True)
    assert logged.startswith("==> ") and " <==" in logged, logged
    refused = run("slurm", "cancel", "lab", job_id, code=2)
    assert "取消会停止作业" in refused and f"scancel {job_id}" in refused
    run("slurm", "cancel", "lab", job_id, "--yes")
    refused = run("slurm", "probe", "lab", code=2)
    assert "action: slurm_probe" in refused
    probed = run("slurm", "probe", "lab", "--yes")
    assert "NCCL_" in probed and "已为 lab 保存" in probed, probed
    assert not found, found


def test_the_slurm_commands_read_as_before_in_english(
    login_node: tuple[LoginNode, Path], make_jobs: object
) -> None:
    """The lines moved into the catalogue (a35) read as test_slurm_cli.py has them, and the
    queue's shape of any GPU count too."""
    configure(login_node[0])
    queue = xyclaw("slurm", "queue", "lab", "--nodes", "1")
    assert queue.returncode == 0, queue.stderr
    assert re.search(r"gpu: \d+ GPU\(s\) free; 1 x any GPU\(s\) runs now", queue.stdout), queue
    none = xyclaw("slurm", "queue", "lab", "--nodes", "1", "--gpu", "H100")
    assert none.returncode == 1 and none.stdout == "no partition has that shape\n", none
