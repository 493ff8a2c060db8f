"""The Inspector poll reads the newest dump files only, in a real shell (issue 34).

The plugin's files stay after their job. The poll used to tail every file in the folder each
time: after 30 jobs on one cluster it moved 512 MiB over one connection, and paramiko
re-keyed it (see tests/remote/test_sshd_rekey.py)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from xyclaw.parsers.nccl_inspector import inspector_command, parse_inspector

RECORD = (
    '{{"header": {{"id": "0x1", "rank": {rank}, "n_ranks": 16, "nnodes": 2}}, '
    '"metadata": {{"inspector_output_format_version": "v4.0", "dump_timestamp_us": 1, '
    '"hostname": "node-1", "pid": {pid}}}, "coll_perf": {{"coll": "AllReduce", '
    '"coll_sn": 7, "coll_msg_size_bytes": 1048576, "coll_exec_time_us": 100, '
    '"coll_algobw_gbs": 10.0, "coll_busbw_gbs": 18.75}}}}\n'
)


def _sh(command: str) -> subprocess.CompletedProcess[str]:
    # stdin stays open, as an SSH channel's does: a tail with no file would wait on it
    return subprocess.run(
        ["sh", "-c", command], stdin=subprocess.PIPE, capture_output=True, text=True, timeout=10
    )


def test_the_poll_reads_the_newest_files_and_not_every_past_jobs(tmp_path: Path) -> None:
    for pid in range(100, 140):  # 40 jobs' files; pid 139's is the newest
        path = tmp_path / f"node-1-pid{pid}.log"
        path.write_text(RECORD.format(rank=8, pid=pid))
        os.utime(path, (1_000_000 + pid, 1_000_000 + pid))

    done = _sh(inspector_command(str(tmp_path), files=32))

    assert done.returncode == 0
    pids = {record.pid for record in parse_inspector(done.stdout)}
    assert pids == set(range(108, 140))


def test_an_empty_or_missing_folder_gives_nothing_at_once(tmp_path: Path) -> None:
    for folder in (tmp_path, tmp_path / "absent"):
        done = _sh(inspector_command(str(folder)))
        assert (done.returncode, done.stdout) == (0, "")
