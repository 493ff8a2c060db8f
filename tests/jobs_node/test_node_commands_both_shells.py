"""The strings XyClaw sends to a node, run by real bash and by the simulated node: same answers.

Each test runs against both (the ``node`` fixture); a few compare the two
outputs side by side. Process-group ids, times and the home folder differ
between the two and are normalised before comparing.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable

import pytest

from tests.jobs_node.nodes import BashNode, Node, SimShellNode
from xyclaw.jobs import node_commands as nc
from xyclaw.jobs.node_status import (
    LogWatchDecoder,
    NodeProcessState,
    parse_cancel,
    parse_checkpoint,
    parse_launch,
    parse_log_chunk,
    parse_status,
)


def wait_until(predicate: Callable[[], bool], timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return False


def normalise(text: str, node: Node) -> str:
    text = text.replace(str(node.home), "~").replace("/root", "~")
    return re.sub(r"\b(pgid|started|ended)=\d+(\.\d+)?", r"\1=N", text)


def group_alive(node: Node, pgid: int) -> list[str]:
    """What is left of a process group, seen from outside the shell under test."""
    if isinstance(node, SimShellNode):
        return [p.cmdline for p in node.node.machine.procs.group(pgid)]
    from pathlib import Path

    left = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            left.append(entry.name)
    return left


def finished(node: Node, task: nc.NodeTask) -> Callable[[], bool]:
    return lambda: parse_status(node.run(nc.status(task)).out).finished


def test_a_short_job_runs_detached_with_its_environment_and_exit_code(node: Node) -> None:
    task = nc.NodeTask("job-7", 1, 0)
    node.mkdir("work")
    command = 'echo "hello $GREETING"; printenv XYCLAW_NODE_RANK; pwd; echo oops >&2; exit 3'

    launched = parse_launch(
        node.run(
            nc.launch(
                task,
                command,
                workdir="~/work",
                env={"GREETING": "wörld 'quoted' $NOT", "XYCLAW_NODE_RANK": "0"},
            )
        ).out
    )

    assert launched.started and launched.pgid is not None and launched.pgid > 1
    assert wait_until(finished(node, task))
    status = parse_status(node.run(nc.status(task)).out)
    assert status.state is NodeProcessState.EXITED
    assert status.exit_code == 3 and status.pgid == launched.pgid
    assert status.started_at is not None and status.ended_at is not None
    assert status.ended_at >= status.started_at
    log = node.read(task.path(".log")[2:])
    assert normalise(log, node) == "hello wörld 'quoted' $NOT\n0\n~/work\noops\n"
    # Launching the same task again does not start it twice.
    again = parse_launch(node.run(nc.launch(task, command, workdir="~/work", env={})).out)
    assert not again.started and again.status.exit_code == 3


def test_a_missing_working_directory_is_in_the_log_and_the_exit_code(node: Node) -> None:
    task = nc.NodeTask("job-8", 2, 1, kind="setup")
    assert parse_launch(node.run(nc.launch(task, "true", workdir="/no/such", env={})).out).started
    assert wait_until(finished(node, task))
    assert parse_status(node.run(nc.status(task)).out).exit_code == 1
    tail = node.run(nc.tail_log(task, 5)).out
    assert tail == "xyclaw: working directory /no/such does not exist\n"


def test_status_of_a_task_never_launched_is_lost(node: Node) -> None:
    ran = node.run(nc.status(nc.NodeTask("ghost", 1, 0)))
    assert ran.status == 0 and ran.out == "state=lost\n"
    assert parse_cancel(node.run(nc.cancel(nc.NodeTask("ghost", 1, 0))).out).lost


def test_log_reads_from_offsets_are_exact_on_bytes(node: Node) -> None:
    task = nc.NodeTask("bytes", 1, 0)
    data = "step 1 ünïcödé ✓\n".encode() + b"\xff\xfe raw bytes\r\n" + b"x" * 100 + b"\npartial"
    path = node.home / task.path(".log")[2:]
    path.parent.mkdir(parents=True)
    path.write_bytes(data)

    got = b""
    offset = 0
    outputs = []
    while True:
        ran = node.run(nc.read_log(task, offset, limit=7))
        outputs.append(ran.out)
        chunk = parse_log_chunk(ran.out, offset)
        assert chunk.error is None and chunk.size == len(data)
        if not chunk.data:
            break
        got += chunk.data
        offset = chunk.end
    assert got == data and offset == len(data)
    assert parse_log_chunk(node.run(nc.read_log(task, 3)).out, 3).data == data[3:]
    missing = parse_log_chunk(node.run(nc.read_log(nc.NodeTask("none", 1, 0), 0)).out, 0)
    assert missing.missing and missing.data == b""


def test_watch_streams_the_log_until_the_job_ends(node: Node) -> None:
    task = nc.NodeTask("watched", 1, 0)
    command = "for i in 1 2 3 4; do echo line $i; sleep 0.1; done; printf tail; exit 5"
    assert parse_launch(node.run(nc.launch(task, command, workdir="~", env={})).out).started

    ran = node.run(nc.watch_log(task, 0, limit=8, poll_s=0.05), timeout=20)

    decoder = LogWatchDecoder(0)
    data = b"".join(c.data for line in ran.out.splitlines() for c in decoder.feed(line))
    assert decoder.error is None
    assert data == b"line 1\nline 2\nline 3\nline 4\ntail"
    assert decoder.end is not None and decoder.end.exit_code == 5
    # resuming a watch from a later offset sends only the rest, then the end
    ran = node.run(nc.watch_log(task, 14), timeout=20)
    later = LogWatchDecoder(14)
    rest = b"".join(c.data for line in ran.out.splitlines() for c in later.feed(line))
    assert rest == b"line 3\nline 4\ntail" and later.end is not None


def test_follow_tails_from_an_offset(node: Node) -> None:
    task = nc.NodeTask("followed", 1, 0)
    path = node.home / task.path(".log")[2:]
    path.parent.mkdir(parents=True)
    path.write_bytes(b"first\nsecond\n")
    ran = node.run("timeout 0.5 " + nc.follow_log(task, 6))
    assert ran.status == 124 and ran.out == "second\n"


def test_cancel_stops_the_whole_process_group(node: Node) -> None:
    task = nc.NodeTask("sleeper", 1, 0)
    command = "sleep 300 & sleep 301 & sleep 302; wait"
    launched = parse_launch(node.run(nc.launch(task, command, workdir="~", env={})).out)
    assert launched.pgid is not None
    assert wait_until(lambda: len(group_alive(node, launched.pgid or 0)) >= 4)

    outcome = parse_cancel(node.run(nc.cancel(task, grace_s=5)).out)

    assert outcome.signal == "TERM" and outcome.clean
    assert group_alive(node, launched.pgid) == []
    status = parse_status(node.run(nc.status(task)).out)
    assert status.state is NodeProcessState.EXITED and status.cancelled
    assert status.exit_code == 143
    again = parse_cancel(node.run(nc.cancel(task)).out)
    assert again.signal == "none" and again.clean


def test_cancel_kills_what_ignores_sigterm(node: Node) -> None:
    task = nc.NodeTask("stubborn", 1, 0)
    launched = parse_launch(
        node.run(nc.launch(task, "trap '' TERM; sleep 300; echo survived", workdir="~", env={})).out
    )
    assert wait_until(lambda: len(group_alive(node, launched.pgid or 0)) >= 3)

    started = time.monotonic()
    outcome = parse_cancel(node.run(nc.cancel(task, grace_s=0.5)).out)

    assert outcome.signal == "KILL" and outcome.clean
    assert time.monotonic() - started < 8
    assert group_alive(node, launched.pgid or 0) == []
    status = parse_status(node.run(nc.status(task)).out)
    assert status.state is NodeProcessState.DEAD and status.cancelled
    assert "survived" not in node.read(task.path(".log")[2:])


CHECKPOINT_LAYOUTS: list[tuple[str, list[str], str]] = [
    ("empty", [], "checkpoint none\n"),
    (
        "marker on the newest",
        ["checkpoint-100/", "checkpoint-200/trainer_state.json", "checkpoint-50/x"],
        "checkpoint step=200 complete=marker path=ck/checkpoint-200\n",
    ),
    (
        "newest still being written",
        ["checkpoint-100/trainer_state.json", "checkpoint-200/model.safetensors"],
        "checkpoint step=100 complete=marker path=ck/checkpoint-100\n",
    ),
    (
        "no markers at all: the one before the newest",
        ["checkpoint-9/a", "checkpoint-10/a", "checkpoint-1000/a"],
        "checkpoint step=10 complete=newer path=ck/checkpoint-10\n",
    ),
    (
        "other names and files are ignored",
        ["checkpoint-x1/trainer_state.json", "checkpoint-7", "tmp-checkpoint-900/COMPLETE",
         "step_000300/trainer_state.json", "checkpoint-30/.metadata"],
        "checkpoint step=30 complete=marker path=ck/checkpoint-30\n",
    ),
    ("a lone unmarked folder", ["checkpoint-5/a"], "checkpoint none\n"),
]  # fmt: skip


@pytest.mark.parametrize(("layout", "files", "expected"), CHECKPOINT_LAYOUTS)
def test_newest_complete_checkpoint(
    node: Node, layout: str, files: list[str], expected: str
) -> None:
    node.mkdir("ck")
    for item in files:
        if item.endswith("/"):
            node.mkdir("ck/" + item)
        else:
            node.write("ck/" + item, "")
    ran = node.run(nc.latest_checkpoint("ck"))
    assert (ran.status, ran.out, ran.err) == (0, expected, ""), layout
    listing = parse_checkpoint(ran.out)
    assert listing.error is None
    if listing.latest is not None:
        assert f"step={listing.latest.step} " in expected
    missing = parse_checkpoint(node.run(nc.latest_checkpoint("nowhere")).out)
    assert missing.latest is None and missing.no_dir


def test_both_shells_print_the_same(bash_node: BashNode, sim_node: SimShellNode) -> None:
    """Side by side: every command's stdout, stderr and status, once normalised."""
    outputs: dict[str, list[tuple[int, str, str]]] = {}
    for node in (bash_node, sim_node):
        task = nc.NodeTask("same", 1, 2)
        node.mkdir("w")
        node.mkdir("ck/checkpoint-4")
        node.write("ck/checkpoint-2/trainer_state.json", "{}")
        node.write("w/data.txt", "a\nb\nc\n")
        runs = [node.run(nc.status(task))]
        runs.append(
            node.run(
                nc.launch(task, "cat data.txt; echo $X; exit 2", workdir="~/w", env={"X": "1"})
            )
        )
        assert wait_until(finished(node, task))
        runs += [
            node.run(nc.status(task)),
            node.run(nc.read_log(task, 2, limit=3)),
            node.run(nc.watch_log(task, 0)),
            node.run(nc.tail_log(task, 2)),
            node.run(nc.cancel(task)),
            node.run(nc.latest_checkpoint("ck")),
            node.run(nc.latest_checkpoint("~/ck")),
        ]
        outputs[node.name] = [(r.status, normalise(r.out, node), r.err) for r in runs]
    assert outputs["sim"] == outputs["bash"]


def test_a_skypilot_task_script_runs_through_the_rank_wrapper(node: Node) -> None:
    """Issue 29: a SkyPilot task's command (its task script through `bash -i`) launched as a
    rank is: the same output and exit code on real bash and on the simulated node."""
    from xyclaw.jobs.skypilot import BASH_NOISE, task_script

    task = nc.NodeTask("job-sky", 1, 0)
    node.mkdir("sky_workdir")
    # Debian's early return for a non-interactive shell is checked with real bash in
    # tests/jobs_spec/test_skypilot_task_script.py; the simulated shell has no `case`
    node.write(".bashrc", "export FROM_BASHRC=yes\n")
    command = task_script('echo "rank $SKYPILOT_NODE_RANK bashrc=$FROM_BASHRC"; pwd; exit 4')
    env = {"SKYPILOT_NODE_RANK": "0"}
    launched = parse_launch(
        node.run(nc.launch(task, command, workdir="~/sky_workdir", env=env)).out
    )
    assert launched.started
    assert wait_until(finished(node, task))
    status = parse_status(node.run(nc.status(task)).out)
    log = normalise(node.read(task.path(".log")[2:]), node)
    assert status.state is NodeProcessState.EXITED and status.exit_code == 4, log
    assert log == "rank 0 bashrc=yes\n~/sky_workdir\n", log
    assert not any(noise in log for noise in BASH_NOISE)
