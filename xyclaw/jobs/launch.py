"""Starting one attempt of a job on its nodes: probe, upload, setup, checkpoint, run.

Every step can be repeated after a crash of the app: the upload sends only what changed,
and a setup or run task that was already started on a node is found by its pid file
and followed, not started twice.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from xyclaw.errors import RemoteError
from xyclaw.jobs import node_commands as nc
from xyclaw.jobs.errors import SetupFailed
from xyclaw.jobs.follow import LogFollower, OnCommitted
from xyclaw.jobs.node_status import (
    CheckpointFound,
    LaunchOutcome,
    NodeProcessState,
    parse_cancel,
    parse_checkpoint,
    parse_launch,
)
from xyclaw.jobs.nodes import JobNode, NodeShell
from xyclaw.jobs.options import JobOptions
from xyclaw.jobs.skypilot import node_command
from xyclaw.jobs.spec import JobSpec
from xyclaw.jobs.upload import Report, local_files, sync
from xyclaw.records.jobs import JobStore
from xyclaw.remote import CommandResult
from xyclaw.wording import Said, said

log = logging.getLogger(__name__)


def node_job_id(job_id: int, name: str) -> str:
    """The job's folder name on a node: readable, and unique per job of this history."""
    return f"{name}-{job_id}"[:128]


def workdir_on_node(spec: JobSpec, options: JobOptions) -> str:
    if spec.workdir is None:
        return "~"
    return f"{options.workdir_base.rstrip('/')}/{spec.name}"


class AttemptLauncher:
    def __init__(
        self, jobs: JobStore, shell: NodeShell, options: JobOptions, on_committed: OnCommitted
    ) -> None:
        self.jobs = jobs
        self.shell = shell
        self.options = options
        self.on_committed = on_committed

    def task(
        self, job_id: int, name: str, attempt: int, rank: int, kind: nc.TaskKind
    ) -> nc.NodeTask:
        return nc.NodeTask(node_job_id(job_id, name), attempt, rank, kind, self.options.node_base)

    # -- steps -----------------------------------------------------------------------------
    def probe(self, nodes: Sequence[JobNode]) -> tuple[list[JobNode], dict[str, RemoteError]]:
        found = self.shell.run_all(nodes, self.shell.probe)
        good = [n for n in found if isinstance(n, JobNode)]
        bad = {jn.name: r for jn, r in zip(nodes, found, strict=True) if isinstance(r, RemoteError)}
        return good, bad

    def upload(self, spec: JobSpec, nodes: Sequence[JobNode], report: Report) -> None:
        """The workdir and the file mounts to every node, in parallel, only what changed."""
        items: list[tuple[Path, str]] = []
        if spec.workdir is not None:
            items.append((Path(spec.workdir), workdir_on_node(spec, self.options)))
        for mount in spec.file_mounts:
            items.append((Path(mount.source), mount.target))
        if not items:
            return
        listed = [(source, remote, local_files(source)) for source, remote in items]
        total = sum(len(files) for _, _, files in listed)
        report(said("job.uploading", files=total, nodes=len(nodes)), None)

        def one(jn: JobNode) -> int:
            sent = 0
            for source, remote, files in listed:
                manifests = f"{self.options.workdir_base.rstrip('/')}/.manifests"
                # no line per file (354 files x 2 nodes were 708 lines): one per node below
                sent += sync(self.shell, jn, source, remote, files, None, manifests).sent
            return sent

        results = self.shell.run_all(nodes, one)
        for jn, result in zip(nodes, results, strict=True):
            if isinstance(result, RemoteError):
                raise result
            report(said("job.uploaded_changed", node=jn.name, sent=result, files=total), None)

    def setup(
        self,
        job_id: int,
        spec: JobSpec,
        attempt: int,
        nodes: Sequence[JobNode],
        env_of: Callable[[JobNode], Mapping[str, str]],
        report: Report,
        should_stop: Callable[[], bool],
    ) -> bool:
        """Setup on every node at once, detached like the run (it survives the app); raises
        SetupFailed naming the first node that failed, with its last lines. False when
        ``should_stop`` said so (the setups are stopped)."""
        if not spec.setup:
            return True
        workdir = workdir_on_node(spec, self.options)
        tasks = {jn.rank: self.task(job_id, spec.name, attempt, jn.rank, "setup") for jn in nodes}

        def start(jn: JobNode) -> LaunchOutcome:
            setup = node_command(spec, spec.setup or "")
            command = nc.launch(tasks[jn.rank], setup, workdir=workdir, env=env_of(jn))
            return _launched(self.shell.run(jn, command))

        report(said("job.running_setup", nodes=len(nodes)), None)
        for jn, outcome in zip(nodes, self.shell.run_all(nodes, start), strict=True):
            if isinstance(outcome, RemoteError):
                raise outcome
            if outcome.error is not None or outcome.status.state is NodeProcessState.UNKNOWN:
                raise SetupFailed(
                    jn.name, None, [f"xyclaw: could not start setup: {outcome.error}"]
                )
        followers = {
            jn.rank: LogFollower(
                jobs=self.jobs,
                shell=self.shell,
                node=jn,
                task=tasks[jn.rank],
                job_id=job_id,
                nproc=1,
                cap=self.options.log_cap,
                on_committed=self.on_committed,
                poll_s=self.options.poll_s,
                backoff_s=self.options.reconnect_backoff_s,
            ).start()
            for jn in nodes
        }
        by_rank = {jn.rank: jn for jn in nodes}
        try:
            waited = 0.0
            while True:
                failed = [
                    (rank, f.status)
                    for rank, f in followers.items()
                    if f.done and (f.status is None or f.status.exit_code != 0)
                ]
                if failed:
                    rank, status = failed[0]
                    self.stop_tasks([by_rank[r] for r in followers], tasks, grace_s=2.0)
                    code = status.exit_code if status is not None else None
                    lines = [
                        line.text
                        for line in self.jobs.lines(
                            job_id, attempt=attempt, stream="setup", node=rank, tail=20
                        )
                    ]
                    raise SetupFailed(by_rank[rank].name, code, lines)
                if all(f.done for f in followers.values()):
                    report(said("job.setup_done"), None)
                    return True
                if should_stop():
                    self.stop_tasks(list(nodes), tasks, grace_s=self.options.cancel_grace_s)
                    return False
                if waited > self.options.setup_timeout_s:
                    self.stop_tasks(list(nodes), tasks, grace_s=2.0)
                    slow = next(by_rank[r].name for r, f in followers.items() if not f.done)
                    why = f"xyclaw: setup ran longer than {self.options.setup_timeout_s:.0f} s"
                    raise SetupFailed(slow, None, [why])
                for f in followers.values():
                    f.wait(self.options.tick_s / len(followers))
                waited += self.options.tick_s
        finally:
            for f in followers.values():
                f.stop()

    def latest_checkpoint(self, spec: JobSpec, head: JobNode) -> CheckpointFound | None:
        if spec.checkpoint_dir is None:
            return None
        listing = parse_checkpoint(
            self.shell.run(head, nc.latest_checkpoint(spec.checkpoint_dir)).stdout
        )
        if listing.error is not None:
            log.warning("checkpoint listing on %s: %s", head.name, listing.error)
        return listing.latest

    def start(
        self,
        job_id: int,
        spec: JobSpec,
        attempt: int,
        nodes: Sequence[JobNode],
        command: str,
        env_of: Callable[[JobNode], Mapping[str, str]],
    ) -> list[LaunchOutcome | RemoteError]:
        """The run command on every node as a detached process group (or the one there)."""
        workdir = workdir_on_node(spec, self.options)

        def one(jn: JobNode) -> LaunchOutcome:
            task = self.task(job_id, spec.name, attempt, jn.rank, "run")
            line = nc.launch(task, command, workdir=workdir, env=env_of(jn))
            return _launched(self.shell.run(jn, line))

        return self.shell.run_all(nodes, one)

    def stop_tasks(
        self, nodes: Sequence[JobNode], tasks: Mapping[int, nc.NodeTask], *, grace_s: float
    ) -> dict[str, Said]:
        """TERM, grace, KILL on every node's task; what each node says is left."""
        timeout = grace_s + 30.0

        def one(jn: JobNode) -> Said:
            out = parse_cancel(
                self.shell.run(jn, nc.cancel(tasks[jn.rank], grace_s), timeout).stdout
            )
            if out.lost:
                return said("job.left_not_started")
            if out.clean:
                return said("job.left_none" if out.signal != "none" else "job.left_already_ended")
            if out.left is not None:
                return said("job.left_some", count=out.left)
            return said("job.left_unreadable")

        results = self.shell.run_all(nodes, one)
        return {
            jn.name: (
                r
                if isinstance(r, Said)
                else said("job.left_unreachable", error=r.said or r.message)
            )
            for jn, r in zip(nodes, results, strict=True)
        }


def _launched(result: CommandResult) -> LaunchOutcome:
    """What a node said to a launch: when it printed no launch line, its own last line on
    stderr (a node that cannot run the script says why: a simulated node's "not supported by
    the simulated shell: ...") is the error, not "no launch line in the output"."""
    outcome = parse_launch(result.stdout)
    if outcome.started or outcome.status.state is not NodeProcessState.UNKNOWN:
        return outcome
    lines = [ln.strip() for ln in result.stderr.splitlines() if ln.strip()]
    if not lines:
        return outcome
    return LaunchOutcome(False, outcome.status, error=lines[-1])
