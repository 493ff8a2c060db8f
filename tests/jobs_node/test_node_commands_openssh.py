"""A job on a real OpenSSH server: launched detached, the connection dropped, reattached, cancelled.

The server is Debian's sshd on a loopback port (tests/remote/sshd.py); the
job's folder is a temp folder so the real home is never written.
"""

from __future__ import annotations

import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.remote.helpers import Keys, spec_for, trust
from tests.remote.sshd import Sshd
from xyclaw.jobs import node_commands as nc
from xyclaw.jobs.node_status import (
    NodeProcessState,
    parse_cancel,
    parse_launch,
    parse_log_chunk,
    parse_status,
)
from xyclaw.remote import KnownHosts, SshPool

pytestmark = pytest.mark.sshd


def group_members(pgid: int) -> list[str]:
    """Live (non-zombie) processes of a process group on this machine, as pgrep sees them."""
    found = subprocess.run(
        ["ps", "-e", "-o", "pid=,pgid=,stat=,args="], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    members = []
    for line in found:
        pid, group, stat, *args = line.split(None, 3)
        if int(group) == pgid and not stat.startswith("Z"):
            members.append(f"{pid} {' '.join(args)}")
    return members


def wait_until(predicate: Callable[[], bool], timeout: float = 15.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.1)
    return False


def test_detached_python_job_survives_the_connection_and_reports_its_exit_code(
    sshd: Sshd, keys: Keys, known: KnownHosts, make_pool: Callable[..., SshPool], tmp_path: Path
) -> None:
    trust(known, sshd)
    host = spec_for(sshd, keys.client_path)
    task = nc.NodeTask(f"py-{uuid.uuid4().hex[:8]}", 1, 0, base=str(tmp_path / "jobs"))
    script = (
        "import os, time\n"
        "print('started', os.environ['XYCLAW_JOB'], flush=True)\n"
        "time.sleep(2.0)\n"
        "print('finished', flush=True)\n"
        "raise SystemExit(4)\n"
    )
    (tmp_path / "work").mkdir()
    (tmp_path / "work" / "job.py").write_text(script)

    first = make_pool()
    launched = parse_launch(
        first.run(
            host,
            nc.launch(task, f"{sys.executable} job.py", workdir=str(tmp_path / "work"),
                      env={"XYCLAW_JOB": task.job_id}),
        ).check().stdout
    )  # fmt: skip
    assert launched.started and launched.pgid is not None
    first.close()  # the app goes away; the job must not

    assert any("job.py" in member for member in group_members(launched.pgid))
    second = make_pool()
    running = parse_status(second.run(host, nc.status(task)).check().stdout)
    assert running.state is NodeProcessState.RUNNING and running.pgid == launched.pgid

    assert wait_until(lambda: parse_status(second.run(host, nc.status(task)).stdout).finished)
    done = parse_status(second.run(host, nc.status(task)).stdout)
    assert done.state is NodeProcessState.EXITED and done.exit_code == 4
    log = parse_log_chunk(second.run(host, nc.read_log(task, 0)).stdout, 0)
    assert log.data == f"started {task.job_id}\nfinished\n".encode()
    assert group_members(launched.pgid) == []


def test_cancel_kills_the_whole_process_group_on_the_server(
    sshd: Sshd, keys: Keys, known: KnownHosts, make_pool: Callable[..., SshPool], tmp_path: Path
) -> None:
    trust(known, sshd)
    host = spec_for(sshd, keys.client_path)
    task = nc.NodeTask(f"tree-{uuid.uuid4().hex[:8]}", 1, 0, base=str(tmp_path / "jobs"))
    # a parent that forks workers (like torchrun) and a shell pipeline beside it
    command = (
        f'{sys.executable} -c "import subprocess, time; '
        "[subprocess.Popen(['sleep', '300']) for _ in range(3)]; time.sleep(300)\" & "
        "sleep 301 | cat; wait"
    )
    pool = make_pool()
    launched = parse_launch(
        pool.run(host, nc.launch(task, command, workdir=str(tmp_path), env={})).check().stdout
    )
    assert launched.pgid is not None
    pgid = launched.pgid
    assert wait_until(lambda: len(group_members(pgid)) >= 7)  # sh, bash, python, 3 sleep, sleep|cat
    pool.close()

    again = make_pool()
    outcome = parse_cancel(again.run(host, nc.cancel(task, grace_s=5)).check().stdout)

    assert outcome.signal == "TERM" and outcome.clean
    assert group_members(pgid) == []
    leftover = subprocess.run(["pgrep", "-g", str(pgid)], capture_output=True, text=True)
    assert leftover.stdout.strip() == "" or all(
        "Z" in subprocess.run(["ps", "-o", "stat=", "-p", pid], capture_output=True,
                              text=True).stdout for pid in leftover.stdout.split()
    )  # fmt: skip
    status = parse_status(again.run(host, nc.status(task)).stdout)
    assert status.cancelled and status.state in (NodeProcessState.EXITED, NodeProcessState.DEAD)
