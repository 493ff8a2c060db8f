"""Jobs on a real OpenSSH server (Debian's sshd on a loopback port): a plain Python job
launched detached, the app gone, reattached by a new one that reads its exit code; cancel
kills the whole process group. Every file of the jobs goes to a temp folder."""

from __future__ import annotations

import dataclasses
import getpass
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.jobs_runtime.conftest import FAST, make_engine
from tests.jobs_runtime.helpers import finished, host_cluster, wait_for, write_spec
from tests.remote.sshd import MISSING, SSHD, Sshd, public_line
from xyclaw.engine import Engine
from xyclaw.jobs.options import JobOptions
from xyclaw.records.jobs import JobState
from xyclaw.remote.node_access import parse_public_key

pytestmark = pytest.mark.sshd


def group_members(pgid: int) -> list[str]:
    found = subprocess.run(
        ["ps", "-e", "-o", "pid=,pgid=,stat=,args="], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    members = []
    for line in found:
        pid, group, stat, *args = line.split(None, 3)
        if int(group) == pgid and not stat.startswith("Z"):
            members.append(f"{pid} {' '.join(args)}")
    return members


@dataclasses.dataclass
class World:
    engine: Engine
    cluster: str
    tmp_path: Path
    options: JobOptions


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    if not SSHD.exists():
        pytest.skip(MISSING)
    options = dataclasses.replace(
        FAST, node_base=str(tmp_path / "node-jobs"), workdir_base=str(tmp_path / "node-work")
    )
    engine = make_engine(options)
    app_key = parse_public_key(engine.ssh_public_key())
    server = Sshd(tmp_path / "sshd", [app_key]).start()
    try:
        host_cluster(
            engine,
            "own",
            [("127.0.0.1", server.port, getpass.getuser(), public_line(server.host_key))],
        )
        yield World(engine, "own", tmp_path, options)
    finally:
        engine.close()
        server.stop()


def test_a_plain_python_job_survives_the_app_and_a_new_one_reads_its_exit_code(
    world: World,
) -> None:
    engine, cluster, tmp_path, options = world.engine, world.cluster, world.tmp_path, world.options
    script = (
        "import os, time\n"
        "print('started on node', os.environ['XYCLAW_NODE_RANK'], flush=True)\n"
        "time.sleep(2.5)\n"
        "print('finished', flush=True)\n"
        "raise SystemExit(4)\n"
    )
    spec = write_spec(
        tmp_path / "spec",
        f"name: plain\nworkdir: work\nrun: {sys.executable} train.py\n",
        script=script,
    )
    job = engine.launch(spec, cluster=cluster).result(30)
    assert job.state is JobState.RUNNING
    pid_file = Path(options.node_base) / f"plain-{job.id}" / "1" / "rank0.pid"
    pgid = int(pid_file.read_text().split()[0])
    engine.close()  # the app and its SSH connections go away; the job must not
    assert any("train.py" in m for m in group_members(pgid))

    again = make_engine(options)
    try:
        assert [j.id for j in again.attach_job(str(job.id))] == [job.id]
        done = finished(again, job.id, timeout=30)
        assert done.state is JobState.FAILED and done.exit_code == 4
        assert done.cause == "exit_nonzero" and "not retried" in (done.error or "")
        assert [ln.text for ln in again.job_logs(str(job.id))] == ["started on node 0", "finished"]
        assert group_members(pgid) == []
    finally:
        again.close()


def test_cancel_kills_the_whole_process_group_on_the_server(world: World) -> None:
    engine, cluster, tmp_path, options = world.engine, world.cluster, world.tmp_path, world.options
    command = (
        f'{sys.executable} -c "import subprocess, time; '
        "[subprocess.Popen(['sleep', '300']) for _ in range(3)]; print('forked', flush=True); "
        'time.sleep(300)" & sleep 301 | cat; wait'
    )
    spec = write_spec(tmp_path / "spec2", "name: tree\nrun: |\n  " + command + "\n")
    job = engine.launch(spec, cluster=cluster).result(30)
    pid_file = Path(options.node_base) / f"tree-{job.id}" / "1" / "rank0.pid"
    pgid = int(pid_file.read_text().split()[0])
    wait_for("the tree", lambda: len(group_members(pgid)) >= 7)

    cancelled = engine.cancel_job(str(job.id))

    assert cancelled.state is JobState.CANCELLED
    assert "no process left" in (cancelled.attempts[0].message or "")
    assert group_members(pgid) == []
