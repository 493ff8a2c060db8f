"""One job's life in this process: its attempts, each launched, followed and ended.

A :class:`JobRunner` holds the job's follower lease (so two XyClaw processes never follow
one job at once; a dead one's lease is taken over at once), and loops: start the
attempt's steps that are not done yet (all of them for a new attempt, none for a job it
reattaches to), follow every node's log, and watch once a tick for the end, a cancel
(asked from any process: it is a column of the job), ``max_runtime``, ``budget``, a
silent node, a fatal XID or an NCCL watchdog timeout. Then the policy says whether a
new attempt starts, resuming from the newest complete checkpoint.
"""

from __future__ import annotations

import logging
import os
import queue
import socket
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Protocol

from xyclaw.errors import RemoteError, UsageError, XyclawError
from xyclaw.jobs import forensics
from xyclaw.jobs.environment import (
    flight_recorder_dir,
    flight_recorder_env,
    flight_recorder_wanted,
    master_port,
    node_environment,
)
from xyclaw.jobs.errors import SetupFailed
from xyclaw.jobs.follow import Committed, LogFollower
from xyclaw.jobs.follower_lock import FollowerLock
from xyclaw.jobs.launch import AttemptLauncher
from xyclaw.jobs.lines import CutLine, Taken
from xyclaw.jobs.node_status import (
    CheckpointFound,
    LaunchOutcome,
    NodeProcessState,
    NodeProcessStatus,
)
from xyclaw.jobs.nodes import JobNode, NodeShell
from xyclaw.jobs.options import JobOptions
from xyclaw.jobs.outputs import (
    CopyRound,
    OutputCopier,
    copier_for,
    human_bytes,
    local_checkpoint,
)
from xyclaw.jobs.progress import ProgressTracker
from xyclaw.jobs.recovery import (
    BUDGET,
    CANCELLED,
    LAUNCH,
    MAX_RUNTIME,
    SETUP,
    Outcome,
    decide,
    node_failure,
    resume_note,
)
from xyclaw.jobs.serving import ServiceEndpoint
from xyclaw.jobs.skypilot import launching_user, node_command
from xyclaw.jobs.spec import JobKind, JobSpec, RecoveryCause, render_run
from xyclaw.jobs.spot_watch import SpotAsk, SpotWatch
from xyclaw.jobs.upload import Report, local_files, sync
from xyclaw.parsers.flight_recorder import Divergence, Finding
from xyclaw.records import ClusterRecord, ClusterState, ClusterStore, NodeRecord
from xyclaw.records.jobs import AttemptNode, JobRecord, JobState, JobStore
from xyclaw.store.event_log import EventLog, said_of
from xyclaw.wording import Said, said

log = logging.getLogger(__name__)


class JobTelemetry(Protocol):
    """What the runtime tells the telemetry service (it is passed in; jobs does not import it)."""

    def job_started(
        self, cluster_id: int, job_id: int | None = None, nccl_env: Mapping[str, str] | None = None
    ) -> None: ...
    def job_ended(self, cluster_id: int, job_id: int | None = None) -> None: ...
    def feed_job_log(self, cluster_id: int, line: str, job_id: int | None = None) -> None: ...


KeepWaiting = Callable[[], bool]
"""Called while a hook waits (for the user's answer): keeps the job's follower lease, and
says False once the job was cancelled meanwhile (stop waiting); raises when the runner
is told to stop."""


@dataclass(frozen=True)
class ReplacementWhy:
    """What a replacement is for, shown with its quote and bound into its card (issue 34):
    the verdict that blamed the nodes, and the checkpoint the job resumes from after it."""

    reason: Said | str | None = None
    resume: CheckpointFound | None = None


ReplaceNodes = Callable[
    [JobRecord, JobSpec, Sequence[JobNode], KeepWaiting, ReplacementWhy],
    Sequence[tuple[ClusterRecord, NodeRecord]] | None,
]
"""Replacements for lost nodes (same provider and region), or None when there are none
(the hook says why in the job's history): given by the engine, which rents, after the
user's approval of the quote unless the spec allows the spend (recovery.allow_spend)."""


def follower_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def dead_followers(names: Sequence[str]) -> list[str]:
    """Those of ``names`` that are processes of this machine that no longer run."""
    host = socket.gethostname()
    dead = []
    for name in names:
        where, _, pid = name.rpartition(":")
        if where != host or not pid.isdigit():
            continue
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            dead.append(name)
        except PermissionError:
            continue
    return dead


@dataclass
class RuntimeParts:
    """What every runner shares (built once by the JobService)."""

    jobs: JobStore
    clusters: ClusterStore
    shell: NodeShell
    events: EventLog
    options: JobOptions
    clock: Callable[[], float]
    nccl_env: Callable[[int], Mapping[str, str]]
    telemetry: JobTelemetry | None = None
    release_cluster: Callable[[int], None] | None = None
    replace_nodes: ReplaceNodes | None = None
    listeners: list[Callable[[Committed], None]] = field(default_factory=list)
    follower: str = field(default_factory=follower_name)
    lock_for: Callable[[int], FollowerLock] | None = None  # a job's follower lock, per process
    outputs_dir: Path | None = None  # where jobs' outputs are copied by default (issue 32)
    spot_notice: SpotAsk | None = None  # the provider's word on a spot cluster (issue 32)


class _Stopped(Exception):
    """The runner was asked to stop following (the app closes); the job keeps running."""


class JobRunner:
    def __init__(
        self,
        parts: RuntimeParts,
        job_id: int,
        *,
        local_env: Mapping[str, str] | None = None,
        report: Report | None = None,
    ) -> None:
        self.parts = parts
        self.job_id = job_id
        self.local_env = dict(local_env or {})
        self.report: Report = report or (lambda message, fraction: None)
        self.tracker = ProgressTracker(job_id, feed_telemetry=self._feed_telemetry)
        self.launcher = AttemptLauncher(parts.jobs, parts.shell, parts.options, self._committed)
        self.infra: queue.Queue[tuple[str, Said | str, int | None]] = queue.Queue()
        self.nodes: list[JobNode] = []
        self.endpoint: ServiceEndpoint | None = None
        self.hang_blamed: tuple[str, ...] = ()  # nodes the last hang's dumps blamed
        self.hang_verdict: Said | None = None
        # the attempt being watched: its spec, number and start (for "why is it stuck")
        self._watching: tuple[JobSpec, int, float] | None = None
        self._stall: forensics.StallWatch | None = None
        self._forensics_lock = threading.Lock()  # one look at a time: each clears old dumps
        self.ready = threading.Event()  # the attempt runs (a service: answers its readiness check)
        self.finished = threading.Event()
        self.error: XyclawError | None = None
        self._stop = threading.Event()
        self._cluster_id: int | None = None
        self._lease_at = 0.0
        self._unwatched_since: float | None = None  # when the job was last watched, if adopted
        self._lock = parts.lock_for(job_id) if parts.lock_for is not None else None
        self.outputs_copier: OutputCopier | None = None  # issue 32: outputs copied as they appear
        self._outputs_thread: threading.Thread | None = None
        self._outputs_at = 0.0
        self._outputs_limit_said = False
        self._outputs_lock = threading.Lock()  # one copy at a time (periodic, notice, last)
        self._spot_attempt: int | None = None  # the attempt a spot watch acts for
        self._thread = threading.Thread(target=self._main, name=f"job-{job_id}", daemon=True)

    # -- control ---------------------------------------------------------------------------
    def start(self) -> JobRunner:
        self._thread.start()
        return self

    @property
    def alive(self) -> bool:
        return self._thread.is_alive()

    def stop(self, timeout: float = 15.0) -> None:
        """Stop following; the job keeps running on its nodes (another process may resume)."""
        self._stop.set()
        if threading.current_thread() is not self._thread:
            self._thread.join(timeout)

    def join(self, timeout: float | None = None) -> None:
        self._thread.join(timeout)

    def infra_failure(self, cause: RecoveryCause, message: Said | str, node_id: int | None) -> None:
        """The telemetry says a node of this job broke (a fatal XID...)."""
        self.infra.put((cause.value, message, node_id))

    def stop_for(self, message: Said | str) -> None:
        """End the attempt and the job, cancelled, for ``message`` (its cluster goes away)."""
        self.infra.put((CANCELLED, message, None))

    def uses_node(self, cluster_id: int, node_id: int | None) -> bool:
        return any(
            jn.cluster.id == cluster_id and (node_id is None or jn.node.id == node_id)
            for jn in self.nodes
        )

    # -- the loop --------------------------------------------------------------------------
    def _main(self) -> None:
        p = self.parts
        try:
            if not self._claim():
                log.info("job %d is followed by another process", self.job_id)
                return
            while not self._stop.is_set():
                job = p.jobs.get(self.job_id)
                if job.state.finished:
                    return
                spec = JobSpec.from_json(job.spec_json)
                outcome = self._attempt(job, spec)
                if outcome is None:
                    return
                self._outputs_last(job, spec, outcome.lost_nodes)
                if not self._end_attempt(p.jobs.get(self.job_id), spec, outcome):
                    return
        except _Stopped:
            return
        except XyclawError as exc:
            self.error = exc
            log.warning("job %d: %s", self.job_id, exc.message)
            self._finish(JobState.FAILED, cause=LAUNCH, error=worded_error(exc), exit_code=None)
        except Exception as exc:
            log.exception("job %d: the runner crashed", self.job_id)
            self.error = XyclawError(
                said("error.runner.crashed", what=f"{type(exc).__name__}: {exc}")
            )
        finally:
            if self.endpoint is not None:
                self.endpoint.close()
            if self._lock is None or self._lock.held:
                p.jobs.release_claim(self.job_id, p.follower)
            if self._lock is not None and self._lock.held:
                self._lock.release()
            self.finished.set()
            self.ready.set()

    def _claim(self) -> bool:
        """Take (or keep) the job's follower lock, then its lease. Holding the lock proves
        that whoever the lease names no longer follows the job (a process that follows holds
        the lock until it ends), so it is taken over at once."""
        p = self.parts
        if self._lock is not None and not self._lock.acquire():
            return False
        row = p.jobs.table.row(self.job_id)
        holder = row["follower"] if row else None
        dead: list[str] = []
        if holder and holder != p.follower:
            dead = [holder] if self._lock is not None else dead_followers([holder])
        first = self._lease_at == 0.0
        self._lease_at = p.clock()
        claimed = p.jobs.claim(self.job_id, p.follower, lease_s=p.options.lease_s, dead=dead)
        if claimed and first and row is not None and holder != p.follower:
            seen = row["follower_seen"]
            self._unwatched_since = float(seen) if seen is not None else None
        return claimed

    def _heartbeat(self) -> None:
        p = self.parts
        if p.clock() - self._lease_at < p.options.lease_s / 3:
            return
        if not self._claim():
            raise _Stopped()

    def _check_stop(self) -> None:
        if self._stop.is_set():
            raise _Stopped()

    def _keep_waiting(self) -> bool:
        """While a hook waits: keep the lease, stop when told; False once cancelled."""
        self._check_stop()
        self._heartbeat()
        return not self._cancel_asked()

    def _cancel_asked(self) -> bool:
        row = self.parts.jobs.table.row(self.job_id)
        return bool(row and row["cancel_requested_at"])

    # -- one attempt -----------------------------------------------------------------------
    def _attempt(self, job: JobRecord, spec: JobSpec) -> Outcome | None:
        p = self.parts
        attempt = job.attempt
        self.tracker.new_attempt()
        if job.cluster_id is None:
            raise XyclawError(
                said("error.runner.no_cluster", name=job.name),
                hint=said("error.runner.no_cluster_hint"),
            )
        self._cluster_id = job.cluster_id
        saved = next((a for a in job.attempts if a.attempt == attempt), None)
        reattach = job.state in (JobState.RUNNING, JobState.LOST_CONTACT) and saved and saved.nodes
        self._note_unwatched(job)
        if reattach and saved is not None:
            self.nodes = self._nodes_from(saved.nodes)
            self._seed_progress(attempt)
            self.report(said("job.reattached", attempt=attempt, nodes=len(self.nodes)), None)
        else:
            if self._cancel_asked():
                return Outcome(False, CANCELLED, said("job.cancelled_before_start"))
            started = self._prepare(job, spec, attempt)
            if isinstance(started, Outcome):
                return started
        if p.telemetry is not None:
            p.telemetry.job_started(job.cluster_id, job.id, nccl_env=self._nccl_env(job, spec))
        return self._watch(p.jobs.get(self.job_id), spec, attempt)

    def _nccl_env(self, job: JobRecord, spec: JobSpec) -> dict[str, str]:
        """The NCCL variables the job's processes get (the tuned ones, then the spec's and the
        desktop's, as :func:`node_environment` orders them): the fabric rule compares them
        with the tuned ones (issue 34). Only ``NCCL_*``: no secret travels."""
        tuned = dict(self.parts.nccl_env(job.cluster_id)) if job.cluster_id is not None else {}
        merged = {**tuned, **spec.env, **self.local_env}
        return {k: v for k, v in merged.items() if k.startswith("NCCL_")}

    def _note_unwatched(self, job: JobRecord) -> None:
        """Adopted after a time nobody watched the job: say so in its history (its replay
        shows the span as not watched), once."""
        since, self._unwatched_since = self._unwatched_since, None
        p = self.parts
        now = p.clock()
        if since is None or now - since < p.options.lease_s / 3:
            return
        p.events.record(
            "job",
            "info",
            said("job.not_watched", name=job.name, seconds=f"{now - since:.0f}"),
            job_id=job.id,
            cluster_id=job.cluster_id,
            data={"not_watched_from": since, "not_watched_until": now},
        )

    def _true_end(self, statuses: Sequence[NodeProcessStatus | None], since: float) -> float | None:
        """When the last of ``statuses`` ended, on this machine's clock: each node's exit
        record, corrected by the clock offset measured when the node was bootstrapped. None
        when a node wrote none (killed): the end is when it was seen."""
        ends = []
        for jn, status in zip(self.nodes, statuses, strict=True):
            if status is None or status.ended_at is None:
                return None
            offset = jn.node.clock_offset_s or 0.0
            ends.append(status.ended_at - offset)
        if not ends:
            return None
        return min(max(max(ends), since), self.parts.clock())

    def _nodes_from(self, saved: Sequence[AttemptNode]) -> list[JobNode]:
        nodes = []
        clusters: dict[int, ClusterRecord] = {}
        for an in sorted(saved, key=lambda n: n.rank):
            cluster = clusters.get(an.cluster_id)
            if cluster is None:
                cluster = clusters[an.cluster_id] = self.parts.clusters.get(an.cluster_id)
            node = next((n for n in cluster.nodes if n.id == an.node_id), None)
            if node is None:
                raise XyclawError(said("error.runner.node_gone", node=an.node))
            nodes.append(JobNode(an.rank, cluster, node, ip=an.ip, hostname=an.node))
        return nodes

    def _choose_nodes(self, job: JobRecord, spec: JobSpec) -> list[JobNode]:
        assert job.cluster_id is not None
        cluster = self.parts.clusters.get(job.cluster_id)
        previous = next((a for a in job.attempts if a.attempt == job.attempt - 1), None)
        if previous is not None and previous.nodes:
            # a recovery runs on the previous attempt's nodes, wherever they are (a replacement
            # rented on another cluster, a cluster the provider took back): those that do not
            # answer are replaced or waited for (issue 32: a spot cluster preempted twice)
            try:
                before = self._nodes_from(previous.nodes)
            except XyclawError:
                before = []
            if before and len(before) == len(previous.nodes):
                return [JobNode(jn.rank, jn.cluster, jn.node) for jn in before]
        if not cluster.live:
            raise XyclawError(
                said("error.runner.cluster_state", name=cluster.name, state=f"{cluster.state}"),
                hint=said("error.runner.cluster_state_hint"),
            )
        running = sorted(cluster.running_nodes, key=lambda n: n.rank)
        want = spec.nodes_on(len(running))
        previous = next((a for a in job.attempts if a.attempt == job.attempt - 1), None)
        if previous is not None and previous.nodes:
            # a recovery runs on the same nodes (a replacement stands in for a lost one)
            by_id = {n.id: n for n in cluster.nodes}
            chosen = [by_id[an.node_id] for an in previous.nodes if an.node_id in by_id]
            if len(chosen) == len(previous.nodes):
                running = chosen
        if len(running) < want:
            raise XyclawError(
                said(
                    "error.runner.too_few_nodes", name=cluster.name, count=len(running), want=want
                ),
                hint=said("error.runner.too_few_nodes_hint"),
            )
        return [JobNode(rank, cluster, node) for rank, node in enumerate(running[:want])]

    def _prepare(self, job: JobRecord, spec: JobSpec, attempt: int) -> Outcome | None:
        """Probe, upload, setup and start the run on every node; an Outcome when it failed."""
        p = self.parts
        p.jobs.set_state(
            self.job_id,
            JobState.SETTING_UP,
            only_from=(JobState.QUEUED, JobState.RECOVERING, JobState.SETTING_UP),
        )
        nodes = self._choose_nodes(job, spec)
        self.report(said("job.checking_nodes", nodes=len(nodes)), 0.05)
        probed, bad = self.launcher.probe(nodes)
        if bad and attempt > 1:
            probed, bad = self._wait_for_nodes(job, spec, nodes, probed, bad)
            if self._cancel_asked():
                return Outcome(False, CANCELLED, said("job.cancelled_waiting_node"))
        if bad:
            name, exc = next(iter(bad.items()))
            cause = RecoveryCause.NODE_LOST.value if attempt > 1 else LAUNCH
            return Outcome(
                False,
                cause,
                said("job.node_does_not_answer", node=name, error=worded_error(exc)),
                lost_nodes=tuple(bad),
            )
        self.nodes = sorted(probed, key=lambda n: n.rank)
        pinned: CheckpointFound | None = None
        if attempt > 1:
            broken = self._open_fatal_alert()
            blamed = [jn for jn in self.nodes if jn.name in self.hang_blamed]
            if broken is None and blamed:  # the last attempt's hang named them (issue 34)
                broken = (RecoveryCause.NCCL_TIMEOUT.value, self.hang_verdict or "")
            self.hang_blamed = ()
            if broken is not None and p.replace_nodes is not None:
                sick = blamed or [jn for jn in self.nodes if jn.name in str(broken[1])]
                why = ReplacementWhy(broken[1], self._checkpoint_on(spec, sick))
                replacements = (
                    p.replace_nodes(job, spec, sick, self._keep_waiting, why) if sick else None
                )
                if replacements:
                    swapped = [
                        JobNode(lost.rank, c, n)
                        for lost, (c, n) in zip(sick, replacements, strict=False)
                    ]
                    fresh, failed = self.launcher.probe(swapped)
                    if not failed:
                        kept = [jn for jn in self.nodes if jn not in sick]
                        self.nodes = sorted(kept + fresh, key=lambda n: n.rank)
                        broken = None
                        pinned = why.resume  # the card named it: resume from exactly it
            if broken is not None:
                return Outcome(False, LAUNCH, said("job.no_replacement_for_alert", alert=broken[1]))
        now = p.clock()
        p.jobs.save_attempt(
            self.job_id,
            attempt,
            cluster_id=job.cluster_id,
            state=JobState.SETTING_UP.value,
            started_at=now,
            nodes=[jn.to_attempt_node() for jn in self.nodes],
        )
        self._check_stop()
        found = self.launcher.latest_checkpoint(spec, self.nodes[0]) if attempt > 1 else None
        if pinned is not None:
            found = pinned
        elif attempt > 1:
            found = self._restore_checkpoint(job, spec, found)
        note = resume_note(spec, found, attempt)
        if note is not None:
            p.events.record(
                "job",
                "warning",
                said("job.note", name=spec.name, note=note),
                job_id=self.job_id,
                cluster_id=job.cluster_id,
            )
            self.report(note, None)
        latest = found.path if found is not None else None
        env_of = self._env_factory(job, spec, attempt, latest)
        try:
            self.launcher.upload(spec, self.nodes, self.report)
            self._check_stop()
            if not self.launcher.setup(
                self.job_id, spec, attempt, self.nodes, env_of, self.report, self._cancel_asked
            ):
                return Outcome(False, CANCELLED, said("job.cancelled_in_setup"))
        except SetupFailed as exc:
            return Outcome(False, SETUP, worded_error(exc), exit_code=exc.node_exit_code)
        self._check_stop()
        if self._cancel_asked():
            return Outcome(False, CANCELLED, said("job.cancelled_before_run"))
        command = node_command(spec, render_run(spec, latest))
        self.report(said("job.starting_run", nodes=len(self.nodes)), 0.8)
        results = self.launcher.start(self.job_id, spec, attempt, self.nodes, command, env_of)
        not_started = self._start_failures(results)
        if not_started:
            return self._undo_start(spec, attempt, not_started)
        p.jobs.save_attempt(
            self.job_id,
            attempt,
            state=JobState.RUNNING.value,
            resumed_from=latest,
            resume_step=found.step if found is not None else None,
        )
        p.jobs.set_state(
            self.job_id,
            JobState.RUNNING,
            only_from=(JobState.SETTING_UP,),
            started_at=job.started_at or now,
        )
        return None

    def _start_failures(
        self, results: Sequence[LaunchOutcome | RemoteError]
    ) -> list[tuple[JobNode, Said | str]]:
        failed: list[tuple[JobNode, Said | str]] = []
        for jn, result in zip(self.nodes, results, strict=True):
            error = worded_error(result) if isinstance(result, RemoteError) else result.error
            if (
                error is None
                and not isinstance(result, RemoteError)
                and result.status.state is NodeProcessState.UNKNOWN
            ):
                error = result.status.reason or "unreadable answer"
            if error is not None:
                failed.append((jn, error))
        return failed

    def _undo_start(
        self,
        spec: JobSpec,
        attempt: int,
        failed: Sequence[tuple[JobNode, Said | str]],
    ) -> Outcome:
        """All or nothing: a node did not start, so the ranks that did are stopped (verified)
        and the attempt fails naming the node that did not."""
        bad = {jn.rank for jn, _ in failed}
        started = [jn for jn in self.nodes if jn.rank not in bad]
        left: dict[str, Said] = {}
        if started:
            tasks = {
                jn.rank: self.launcher.task(self.job_id, spec.name, attempt, jn.rank, "run")
                for jn in started
            }
            left = self.launcher.stop_tasks(
                started, tasks, grace_s=self.parts.options.cancel_grace_s
            )
        jn, error = failed[0]
        message: Said = said("job.could_not_start", node=jn.name, error=error)
        verdict: Said | None = None
        for name, what in reversed(left.items()):
            part = said("job.node_left", node=name, left=what)
            verdict = part if verdict is None else said("job.then", first=part, rest=verdict)
        if verdict is not None:
            message = said("job.stopped_with", message=message, verdict=verdict)
        return Outcome(False, LAUNCH, message)

    def _wait_for_nodes(
        self,
        job: JobRecord,
        spec: JobSpec,
        nodes: Sequence[JobNode],
        probed: list[JobNode],
        bad: dict[str, RemoteError],
    ) -> tuple[list[JobNode], dict[str, RemoteError]]:
        """A recovery whose node is still silent: a replacement if the engine gives one,
        else wait for the node up to the reconnect window."""
        p = self.parts
        missing = [jn for jn in nodes if jn.name in bad]
        if p.replace_nodes is not None:
            replacements = p.replace_nodes(job, spec, missing, self._keep_waiting, ReplacementWhy())
            if replacements:
                swapped = [
                    JobNode(lost.rank, cluster, node)
                    for lost, (cluster, node) in zip(missing, replacements, strict=False)
                ]
                found, still = self.launcher.probe(swapped)
                return probed + found, still
        deadline = p.clock() + p.options.reconnect_window_s
        while bad and p.clock() < deadline and self._keep_waiting():
            time.sleep(min(2.0, p.options.tick_s * 2))
            found, bad = self.launcher.probe([jn for jn in nodes if jn.name in bad])
            probed += found
        return probed, bad

    def _env_factory(
        self, job: JobRecord, spec: JobSpec, attempt: int, latest: str | None
    ) -> Callable[[JobNode], Mapping[str, str]]:
        ips = [jn.address() for jn in self.nodes]
        gpus = spec.resources.gpus_per_node or self.nodes[0].cluster.gpus_per_node
        port = master_port(self.parts.options.master_port, job.id, attempt)
        nccl = dict(self.parts.nccl_env(job.cluster_id)) if job.cluster_id is not None else {}

        def env_of(jn: JobNode) -> Mapping[str, str]:
            return node_environment(
                spec,
                job_id=job.id,
                attempt=attempt,
                node_rank=jn.rank,
                node_ips=ips,
                gpus_per_node=gpus,
                master_port=port,
                nccl=nccl,
                local=self.local_env,
                latest_checkpoint=latest,
                created_at=job.created_at,
                cluster=jn.cluster.name,
                provider=jn.cluster.provider_id,
                region=jn.cluster.region,
                user=launching_user(),
            )

        return env_of

    # -- following and watching ------------------------------------------------------------
    def _follower(self, spec: JobSpec, attempt: int, jn: JobNode) -> LogFollower:
        p = self.parts
        gpus = spec.resources.gpus_per_node or jn.cluster.gpus_per_node
        nproc = gpus if "torchrun" in spec.run or "deepspeed" in spec.run else 1
        return LogFollower(
            jobs=p.jobs,
            shell=p.shell,
            node=jn,
            task=self.launcher.task(self.job_id, spec.name, attempt, jn.rank, "run"),
            job_id=self.job_id,
            nproc=nproc,
            cap=p.options.log_cap,
            on_committed=self._committed,
            poll_s=p.options.poll_s,
            backoff_s=p.options.reconnect_backoff_s,
            max_line_chars=p.options.max_line_chars,
            clock=p.clock,
        ).start()

    def _watch(self, job: JobRecord, spec: JobSpec, attempt: int) -> Outcome | None:
        p = self.parts
        followers = {jn.rank: self._follower(spec, attempt, jn) for jn in self.nodes}
        was_silent: set[int] = set()
        if spec.kind is JobKind.SERVICE and spec.service is not None:
            self.endpoint = ServiceEndpoint(
                p.shell, self.nodes[0], spec.service.port, spec.service.readiness_path
            )
        else:
            self.ready.set()
        started = job.started_at or p.clock()
        attempt_started = p.clock()
        last_sample = 0.0
        stall = forensics.StallWatch(factor=p.options.stall_factor, floor_s=p.options.stall_min_s)
        self._watching = (spec, attempt, attempt_started)
        self._stall = stall
        self._outputs_at = time.monotonic()  # the first copy one interval after the start
        self._drop_stale_losses()
        spot = self._spot_watch(job, spec, attempt)
        try:
            while True:
                if self._stop.is_set():
                    return None
                self._heartbeat()
                now = p.clock()
                self._outputs_tick(job, spec, time.monotonic())
                if spot is not None:
                    spot.tick(time.monotonic())
                stop = self._limits(spec, job, started, now)
                if stop is not None:
                    return self._stop_attempt(spec, attempt, followers, stop)
                try:
                    cause, message, node_id = self.infra.get_nowait()
                    if cause == RecoveryCause.XID.value and flight_recorder_wanted(spec):
                        message = self._xid_forensics(
                            job, spec, attempt, message, node_id, since=attempt_started
                        )
                    return self._stop_attempt(
                        spec, attempt, followers, Outcome(False, cause, message)
                    )
                except queue.Empty:
                    pass
                timeout = self.tracker.nccl_timeout
                if timeout is not None:
                    who = (
                        said("job.rank", rank=timeout.rank)
                        if timeout.rank is not None
                        else said("job.a_rank")
                    )
                    message = said("job.nccl_timeout", who=who, node=timeout.node)
                    if flight_recorder_wanted(spec):
                        message = self._hang_forensics(
                            job, spec, attempt, message, since=attempt_started
                        )
                    return self._stop_attempt(
                        spec,
                        attempt,
                        followers,
                        Outcome(False, RecoveryCause.NCCL_TIMEOUT.value, message),
                    )
                if flight_recorder_wanted(spec):
                    self._watch_stall(job, spec, attempt, stall, now, since=attempt_started)
                silent = {
                    r: f.silent_since
                    for r, f in followers.items()
                    if f.silent_since is not None and not f.done
                }
                was_silent |= set(silent)
                if silent:
                    p.jobs.set_state(
                        self.job_id, JobState.LOST_CONTACT, only_from=(JobState.RUNNING,)
                    )
                    oldest_rank, since = min(silent.items(), key=lambda kv: kv[1])
                    taken = spot.notice_at if spot is not None else None
                    if taken is not None and now >= taken:  # the noticed preemption came
                        return self._stop_attempt(
                            spec,
                            attempt,
                            followers,
                            Outcome(
                                False,
                                RecoveryCause.NODE_LOST.value,
                                said("job.cluster_taken_back", cluster=self.nodes[0].cluster.name),
                            ),
                        )
                    if now - since > p.options.reconnect_window_s:
                        name = self.nodes[oldest_rank].name
                        return self._stop_attempt(
                            spec,
                            attempt,
                            followers,
                            Outcome(
                                False,
                                RecoveryCause.NODE_LOST.value,
                                said("job.silent_for", node=name, seconds=f"{now - since:.0f}"),
                                lost_nodes=(name,),
                            ),
                        )
                else:
                    p.jobs.set_state(
                        self.job_id, JobState.RUNNING, only_from=(JobState.LOST_CONTACT,)
                    )
                for rank, f in list(followers.items()):
                    if f.done and f.status is None and not self._stop.is_set():
                        followers[rank] = self._follower(spec, attempt, self.nodes[rank])
                ended = {r: f for r, f in followers.items() if f.done and f.status is not None}
                for rank in sorted(ended):
                    failure: tuple[str, Said | str] | None = node_failure(
                        self.nodes[rank].name, ended[rank].status, rank in was_silent
                    )
                    if failure is not None and failure[0] == RecoveryCause.EXIT_NONZERO.value:
                        # a GPU that broke makes the command fail too: give its alert a moment
                        wait = p.options.failure_grace_s if self.tracker.gpu_error else 0.0
                        found = self._infra_cause(attempt_started, wait)
                        if found is not None:
                            failure = found
                    if failure is not None:
                        status = ended[rank].status
                        code = status.exit_code if status is not None else None
                        lost = (self.nodes[rank].name,) if failure[0] == "node_lost" else ()
                        true_end = (
                            self._true_end([f.status for _, f in sorted(ended.items())], started)
                            if len(ended) == len(followers)
                            else None
                        )
                        return self._stop_attempt(
                            spec,
                            attempt,
                            followers,
                            Outcome(
                                False,
                                failure[0],
                                failure[1],
                                exit_code=code,
                                lost_nodes=lost,
                                ended_at=true_end,
                            ),
                        )
                if len(ended) == len(followers):
                    self._save_progress()
                    true_end = self._true_end([f.status for _, f in sorted(ended.items())], started)
                    return Outcome(
                        True, None, said("job.all_exited_0"), exit_code=0, ended_at=true_end
                    )
                if self.endpoint is not None and now - last_sample >= (
                    p.options.readiness_poll_s
                    if not self.ready.is_set()
                    else p.options.service_sample_s
                ):
                    last_sample = now
                    self._sample_service(spec, job, now - attempt_started)
                self._save_progress()
                followers[0].wait(p.options.tick_s)
        finally:
            self._spot_attempt = None
            self._watching = self._stall = None
            for f in followers.values():
                f.stop()
            self._record_nodes(attempt, followers)
            self._save_progress()

    def _infra_cause(self, since: float, wait_s: float) -> tuple[str, Said | str] | None:
        """A fatal GPU alert on a node of this attempt (queued, or open in the history since
        the attempt started), waiting up to ``wait_s`` for one to come (the command printed a
        CUDA error: the telemetry may not have read the kernel log yet)."""
        deadline = time.monotonic() + wait_s
        while True:
            try:
                cause, message, _node = self.infra.get_nowait()
                return cause, message
            except queue.Empty:
                pass
            found = self._open_fatal_alert(since)
            if found is not None:
                return found
            if time.monotonic() >= deadline:
                return None
            time.sleep(0.2)

    def _hang_forensics(
        self,
        job: JobRecord,
        spec: JobSpec,
        attempt: int,
        timeout: Said,
        *,
        since: float,
        trigger: str = "timeout",
    ) -> Said:
        """After a watchdog timeout (or a stall, ``trigger="stall"``: every rank asked for
        its dump through its debug pipe): every rank's Flight Recorder dump from every
        node, the rank the others waited for and its node, with that node's first alert
        (an XID, a link down). Kept in the job's history with the replacement it asks for;
        the next attempt, if the spec allows one, proposes that replacement (a spend the
        user approves). Never raises: a failed look leaves the timeout as it was."""
        found = self.explain_hang(job, spec, attempt, since=since, trigger=trigger)
        if found is None:
            return timeout
        return said("job.hang.explained", timeout=timeout, verdict=found[1])

    @property
    def watching(self) -> bool:
        """An attempt of the job is running and watched by this runner."""
        return self._watching is not None

    def why_stuck(self) -> tuple[forensics.HangReport, Said, Said | None] | None:
        """The user's "why is it stuck": every rank of the running attempt asked for its
        dump through its debug pipe, judged and recorded like a stall's. None when no
        attempt is being watched, or the dumps could not be read; a UsageError when the
        spec turned the Flight Recorder off."""
        watching = self._watching
        if watching is None or not self.nodes:
            return None
        spec, attempt, since = watching
        job = self.parts.jobs.get(self.job_id)
        if spec.kind is not JobKind.TRAIN:
            raise UsageError(
                said("error.job.why_service", name=job.name),
                hint=said("error.job.why_service_hint"),
            )
        if not flight_recorder_wanted(spec):
            raise UsageError(
                said("error.job.why_fr_off", name=job.name),
                hint=said("error.job.why_fr_off_hint"),
            )
        return self.explain_hang(job, spec, attempt, since=since, trigger="asked")

    def _xid_forensics(
        self,
        job: JobRecord,
        spec: JobSpec,
        attempt: int,
        message: Said | str,
        node_id: int | None,
        *,
        since: float,
    ) -> Said | str:
        """A fatal GPU error (an XID) on a node of a train job: its ranks are asked for their
        dumps before the attempt ends; when they name a rank on that node as the one the
        others wait for, the verdict is laid over the XID ("rank 11 on node 1 never entered
        all_reduce #N; before that, at 14:02: GPU 3 reported XID 79"). A verdict that names
        another node, or none, leaves the XID's message as it was (it is still recorded)."""
        if not self.nodes:
            return message
        found = self.explain_hang(job, spec, attempt, since=since, trigger="xid")
        if found is None:
            return message
        report, verdict, _action = found
        names = {jn.name for jn in self.nodes if node_id is None or jn.node.id == node_id}
        if not report.blames or not names & set(report.culprit_nodes):
            return message
        if verdict.key in ("job.hang.with_alert", "job.hang.with_xid"):  # the XID is in it
            return verdict
        return said("job.hang.explained", timeout=message, verdict=verdict)

    def _watch_stall(
        self,
        job: JobRecord,
        spec: JobSpec,
        attempt: int,
        stall: forensics.StallWatch,
        now: float,
        *,
        since: float,
    ) -> None:
        """No progress past the usual step time, and no watchdog line yet: the same
        forensics as after a timeout, with every rank asked for its dump through its debug
        pipe. The job keeps running (its watchdog, or the user, ends it); the verdict is in
        its history, and a later attempt proposes the replacement it names."""
        state = self.tracker.parser.state
        stall.see(state.step, state.updated_at or now)
        quiet = stall.stalled(now)
        if quiet is None:
            return
        log.info("job %s: no progress for %.0f s, asking every rank for its dump", job.id, quiet)
        self.explain_hang(job, spec, attempt, since=since, trigger="stall")

    def _still_moving(self, trigger: str, step_before: int | None) -> Said | None:
        """For a look the user asked for: the job is not stuck when its log showed a new
        step while its ranks were asked, or its last step is no older than its stall limit
        (the usual gap between progress lines times the stall factor)."""
        if trigger != "asked":
            return None
        state = self.tracker.parser.state
        stall = self._stall
        now = self.parts.clock()
        limit = stall.limit_s() if stall is not None else None
        quiet = now - state.updated_at if state.updated_at is not None else None
        advanced = state.step is not None and state.step != step_before
        recent = limit is not None and quiet is not None and quiet < limit
        if not (advanced or recent) or state.step is None:
            return None
        return said("job.hang.moving", step=state.step, seconds=f"{max(quiet or 0.0, 0.0):.0f}")

    def explain_hang(
        self,
        job: JobRecord,
        spec: JobSpec,
        attempt: int,
        *,
        since: float,
        trigger: str,
    ) -> tuple[forensics.HangReport, Said, Said | None] | None:
        """:meth:`_explain_hang`, one look at a time (the user's and a stall's may meet)."""
        with self._forensics_lock:
            return self._explain_hang(job, spec, attempt, since=since, trigger=trigger)

    def _explain_hang(
        self,
        job: JobRecord,
        spec: JobSpec,
        attempt: int,
        *,
        since: float,
        trigger: str,
    ) -> tuple[forensics.HangReport, Said, Said | None] | None:
        """Read the dumps (asking for them through the debug pipe unless a watchdog timeout
        already made them), judge them, and record the verdict as one event of the job
        (rule ``job.hang_forensics``, its data saying what triggered it). None when the
        dumps could not be read at all (the reason is logged)."""
        p = self.parts
        gpus = spec.resources.gpus_per_node or self.nodes[0].cluster.gpus_per_node
        env = flight_recorder_env(flight_recorder_dir(self.job_id, spec.name, attempt))
        prefix = (
            spec.env.get("TORCH_FR_DUMP_TEMP_FILE")
            or spec.env.get("TORCH_NCCL_DEBUG_INFO_TEMP_FILE")
            or env["TORCH_FR_DUMP_TEMP_FILE"]
        )
        stem = (
            spec.env.get("TORCH_FR_DEBUG_INFO_PIPE_FILE")
            or spec.env.get("TORCH_NCCL_DEBUG_INFO_PIPE_FILE")
            or env["TORCH_FR_DEBUG_INFO_PIPE_FILE"]
        )
        step_before = self.tracker.parser.state.step
        try:
            report = forensics.collect(
                p.shell,
                self.nodes,
                prefix,
                gpus,
                wait_s=p.options.flight_recorder_wait_s,
                pipe_stem=None if trigger == "timeout" else stem,
            )
        except XyclawError as exc:
            log.warning("job %s: Flight Recorder dumps not read: %s", self.job_id, exc)
            return None
        moving = self._still_moving(trigger, step_before)
        if moving is not None:
            # dumps of a job that runs are a moving snapshot (each rank at its own moment,
            # some inside the step's collectives): not evidence of a hang
            report = replace(report, divergence=Divergence(Finding.NONE, notes=("progressing",)))
        alerts = self._first_alerts(report.culprit_nodes, since)
        xids = self._first_xids(report.culprit_nodes, since) if moving is None else {}
        verdict = moving if moving is not None else forensics.verdict(report, alerts, xids)
        action = forensics.action(report)
        by_name = {jn.name: jn for jn in self.nodes}
        blamed = report.culprit_nodes if report.blames else ()
        p.events.record(
            "job",
            "error" if trigger == "timeout" or blamed else "info",
            verdict if trigger == "timeout" else said(f"job.hang.{trigger}", verdict=verdict),
            job_id=self.job_id,
            cluster_id=job.cluster_id,
            node_id=by_name[blamed[0]].node.id if blamed else None,
            rule="job.hang_forensics",
            data={
                "trigger": trigger,
                "finding": report.divergence.finding.value,
                "op": report.divergence.op,
                "seq": report.divergence.seq,
                "culprit_ranks": list(report.divergence.culprits),
                "silent_ranks": list(report.divergence.silent),
                "nodes": list(blamed),
                "dumps_read": report.files,
                "unreadable": list(report.unreadable),
            },
            action=str(action) if action is not None else None,
        )
        if blamed:
            self.hang_blamed = blamed
            self.hang_verdict = verdict
        return report, verdict, action

    def _checkpoint_on(self, spec: JobSpec, sick: Sequence[JobNode]) -> CheckpointFound | None:
        """The newest complete checkpoint, as a node that stays sees it (the one the job
        resumes from once the sick nodes are replaced); None when there is none or no
        healthy node answers."""
        healthy = [jn for jn in self.nodes if jn not in sick]
        if not healthy:
            return None
        try:
            return self.launcher.latest_checkpoint(spec, healthy[0])
        except XyclawError as exc:
            log.info("job %s: no checkpoint listing for the replacement: %s", self.job_id, exc)
            return None

    def _first_xids(self, names: Sequence[str], since: float) -> dict[str, forensics.NodeXid]:
        """The first XID each named node's driver logged since the attempt started, read
        from its kernel log (the telemetry's alert may title an XID by its symptom: XID 79
        and the GPU missing are one alert). A node that does not answer gives none (its
        alerts stand in)."""
        nodes = [jn for jn in self.nodes if jn.name in names]
        if not nodes:
            return {}
        shell = self.parts.shell
        command = forensics.KERNEL_XIDS_COMMAND
        results = shell.run_all(nodes, lambda jn: shell.run(jn, command, 10.0))
        now = self.parts.clock()
        found: dict[str, forensics.NodeXid] = {}
        for jn, result in zip(nodes, results, strict=True):
            if isinstance(result, RemoteError):
                log.info("job %s: kernel log of %s not read: %s", self.job_id, jn.name, result)
                continue
            xids = forensics.node_xids(jn.name, result.stdout, now, since)
            if xids:
                found[jn.name] = xids[0]
        return found

    def _first_alerts(
        self, names: Sequence[str], since: float
    ) -> dict[str, tuple[Said | str, str]]:
        """The first alert (open or cleared since) each named node of this attempt raised
        while it ran (an XID, a link down), and its local time."""
        ours = {(jn.cluster.id, jn.node.id): jn.name for jn in self.nodes if jn.name in names}
        found: dict[str, tuple[int, float, Said | str]] = {}
        for cluster_id in {c for c, _ in ours}:
            for row in self.parts.events.alerts(cluster_id):
                node_id = row.get("node_id")
                name = ours.get((cluster_id, int(node_id))) if node_id is not None else None
                rule = str(row.get("rule", ""))
                if name is None or rule.startswith("job."):
                    continue
                ts = float(row["ts"])
                if ts < since - 5:
                    continue
                # what breaks a collective first: the GPU's own errors (the driver's XID
                # line before its symptoms: a GPU missing), then the links
                rank = (
                    0
                    if rule == "gpu.xid"
                    else 1
                    if rule in _GPU_FAULT_RULES
                    else 2
                    if rule.startswith("net.")
                    else 3
                )
                if name not in found or (rank, ts) < found[name][:2]:
                    found[name] = (rank, ts, said_of(row) or str(row["message"]))
        return {
            name: (message, time.strftime("%H:%M:%S", time.localtime(ts)))
            for name, (_, ts, message) in found.items()
        }

    def _open_fatal_alert(self, since: float | None = None) -> tuple[str, Said | str] | None:
        """(cause, message) of an open fatal GPU alert on a node of this attempt."""
        ours = {(jn.cluster.id, jn.node.id): jn.name for jn in self.nodes}
        for cluster_id in {c for c, _ in ours}:
            for row in self.parts.events.open_alerts(cluster_id):
                node_id = row.get("node_id")
                name = ours.get((cluster_id, int(node_id))) if node_id is not None else None
                fatal = fatal_alert_cause(str(row.get("rule")), str(row.get("severity")))
                if name is None or fatal is None:
                    continue
                if since is not None and float(row["ts"]) < since - 5:
                    continue
                english = str(row["message"])
                message: Said | str = said_of(row) or english
                if name in english:
                    return fatal.value, message
                return fatal.value, said("job.alert_on_node", alert=message, node=name)
        return None

    def _limits(self, spec: JobSpec, job: JobRecord, started: float, now: float) -> Outcome | None:
        if self._cancel_asked():
            return Outcome(False, CANCELLED, said("job.cancelled"))
        if spec.max_runtime_s is not None and now - started >= spec.max_runtime_s:
            return Outcome(False, MAX_RUNTIME, said("job.max_runtime", seconds=spec.max_runtime_s))
        if spec.budget is not None:
            from xyclaw.jobs.cost import job_cost

            cost, currency = job_cost(self.parts.jobs.get(self.job_id), self.parts.clusters, now)
            if currency == spec.budget.currency and cost >= spec.budget.amount_micro:
                return Outcome(
                    False,
                    BUDGET,
                    said(
                        "job.over_budget",
                        cost=f"{cost / 1e6:.2f}",
                        currency=currency,
                        budget=str(spec.budget),
                    ),
                )
        return None

    def _sample_service(self, spec: JobSpec, job: JobRecord, waited_s: float) -> None:
        assert self.endpoint is not None and spec.service is not None
        p = self.parts
        probe = self.endpoint.probe()
        if not self.ready.is_set():
            if probe.ok:
                url = self.endpoint.url
                self.endpoint.count_from_now()
                p.jobs.update(self.job_id, service_url=url)
                p.events.record(
                    "job",
                    "info",
                    said("job.service_ready", name=spec.name, url=url),
                    job_id=self.job_id,
                    cluster_id=job.cluster_id,
                )
                self.ready.set()
            elif waited_s > spec.service.readiness_timeout_s:
                self.infra.put(
                    (
                        LAUNCH,
                        said(
                            "job.service_not_ready",
                            path=spec.service.readiness_path,
                            seconds=spec.service.readiness_timeout_s,
                            last=probe.error or probe.status,
                        ),
                        None,
                    )
                )
            return
        self.tracker.latency_ms = probe.latency_ms
        self.tracker.requests_per_s = self.endpoint.request_rate()
        served = self.endpoint.take_served()
        if self.tracker.requests_served is None:  # continue the count this job has kept
            self.tracker.requests_served = job.progress.requests_served or 0
        self.tracker.requests_served += served
        self.tracker.changed = True
        url = self.endpoint.url
        if url is not None:
            row = p.jobs.table.row(self.job_id)
            if row is not None and row["service_url"] != url:
                p.jobs.update(self.job_id, service_url=url)

    def _stop_attempt(
        self, spec: JobSpec, attempt: int, followers: dict[int, LogFollower], outcome: Outcome
    ) -> Outcome:
        """Stop every node's process of the attempt (verified) and say how it ended."""
        tasks = {
            jn.rank: self.launcher.task(self.job_id, spec.name, attempt, jn.rank, "run")
            for jn in self.nodes
        }
        reachable = [jn for jn in self.nodes if jn.name not in outcome.lost_nodes]
        grace = self.parts.options.cancel_grace_s
        left = self.launcher.stop_tasks(reachable, tasks, grace_s=grace)
        for f in followers.values():
            f.wait(5.0)
        verdict: Said | None = None
        for name, what in reversed(left.items()):
            part = said("job.node_left", node=name, left=what)
            verdict = part if verdict is None else said("job.then", first=part, rest=verdict)
        message = (
            said("job.stopped_with", message=outcome.message, verdict=verdict)
            if verdict is not None
            else outcome.message
        )
        return replace(outcome, message=message)

    def _record_nodes(self, attempt: int, followers: dict[int, LogFollower]) -> None:
        nodes = []
        for jn in self.nodes:
            f = followers.get(jn.rank)
            status = f.status if f is not None else None
            state = None if status is None else status.state.value
            if f is not None and status is None and f.silent_since is not None:
                state = "unreachable"
            nodes.append(jn.to_attempt_node(state, status.exit_code if status else None))
        if nodes:
            self.parts.jobs.save_attempt(self.job_id, attempt, nodes=nodes)

    def _seed_progress(self, attempt: int) -> None:
        """Reattached: read the attempt's stored lines again, so progress, the newest
        checkpoint and a timeout logged while nobody followed are known here too."""
        stored = self.parts.jobs.lines(self.job_id, attempt=attempt, stream="run", tail=20_000)
        by_node: dict[int, Taken] = {}
        for line in stored:
            by_node.setdefault(line.node_rank, Taken()).add(
                CutLine(line.offset, line.text, line.rank)
            )
        for jn in self.nodes:
            taken = by_node.get(jn.rank)
            if taken is not None:
                ts = stored[-1].ts
                self.tracker.feed(
                    Committed(
                        self.job_id,
                        attempt,
                        "run",
                        jn,
                        taken.texts,
                        taken.offsets,
                        taken.ranks,
                        [],
                        ts,
                    )
                )
        # points the last follower saved are not saved twice; those it lost are
        seen = [m["step"] for m in self.parts.jobs.metrics(self.job_id) if m["attempt"] == attempt]
        top = max((step for step in seen if step is not None), default=-1)
        missing = [
            row for row in self.tracker.take_metrics() if row[3] is not None and row[3] > top
        ]
        if missing:
            self.parts.jobs.add_metrics(missing)

    def _save_progress(self) -> None:
        rows = self.tracker.take_metrics()
        if rows:
            self.parts.jobs.add_metrics(rows)
        if self.tracker.changed:
            self.parts.jobs.update(self.job_id, progress=self.tracker.snapshot(self.parts.clock()))

    # -- after an attempt ------------------------------------------------------------------
    def _end_attempt(self, job: JobRecord, spec: JobSpec, outcome: Outcome) -> bool:
        """Record the attempt; True when another attempt follows."""
        p = self.parts
        now = outcome.ended_at if outcome.ended_at is not None else p.clock()
        attempt = job.attempt
        final = (
            JobState.SUCCEEDED
            if outcome.succeeded
            else JobState.CANCELLED
            if outcome.stopped
            else JobState.FAILED
        )
        p.jobs.save_attempt(
            self.job_id,
            attempt,
            state=final.value,
            ended_at=now,
            exit_code=outcome.exit_code,
            cause=outcome.cause,
            message=outcome.message,
        )
        self._save_progress()
        decision = decide(spec, outcome, attempt - 1)
        if decision.retry:
            text = said(
                "job.attempt_ended_retry",
                name=spec.name,
                attempt=attempt,
                message=outcome.message,
                next=attempt + 1,
            )
            p.events.record("job", "warning", text, job_id=self.job_id, cluster_id=job.cluster_id)
            self.report(text, None)
            changed = p.jobs.set_state(
                self.job_id,
                JobState.RECOVERING,
                only_from=(JobState.RUNNING, JobState.LOST_CONTACT, JobState.SETTING_UP),
                attempt=attempt + 1,
                cause=outcome.cause,
                error=outcome.message,
            )
            return changed is not None
        self._finish(
            final,
            cause=outcome.cause,
            error=None if outcome.succeeded else decision.reason,
            exit_code=outcome.exit_code,
            ended_at=outcome.ended_at,
        )
        return False

    def _finish(
        self,
        state: JobState,
        *,
        cause: str | None,
        error: Said | str | None,
        exit_code: int | None,
        ended_at: float | None = None,
    ) -> None:
        p = self.parts
        job = p.jobs.get(self.job_id)
        if job.state.finished:
            return
        end = ended_at if ended_at is not None else p.clock()
        # the history's note first: whoever sees the job ended finds why in the history
        severity = "info" if state is JobState.SUCCEEDED else "warning"
        p.events.record(
            "job",
            severity,
            job_ended(job.name, state, error),
            job_id=job.id,
            cluster_id=job.cluster_id,
        )
        p.jobs.set_state(
            self.job_id, state, ended_at=end, cause=cause, error=error, exit_code=exit_code
        )
        if job.cluster_id is not None and p.telemetry is not None:
            p.telemetry.job_ended(job.cluster_id, job.id)
        try:
            spec = JobSpec.from_json(job.spec_json)
        except XyclawError:
            return
        if (
            job.cluster_id is not None
            and p.release_cluster is not None
            and spec.releases_when_done(job.rented_cluster)
            and not p.jobs.on_cluster(job.cluster_id)
            and p.clusters.get(job.cluster_id).state == ClusterState.READY
        ):
            p.events.record(
                "job",
                "info",
                said("job.releasing_its_cluster", name=job.name),
                job_id=job.id,
                cluster_id=job.cluster_id,
            )
            try:
                p.release_cluster(job.cluster_id)
            except XyclawError as exc:
                p.events.record(
                    "job",
                    "error",
                    said("job.release_failed", name=job.name, error=worded_error(exc)),
                    job_id=job.id,
                    cluster_id=job.cluster_id,
                )

    # -- outputs (issue 32) ----------------------------------------------------------------
    def _copier(self, job: JobRecord, spec: JobSpec) -> OutputCopier | None:
        if self.outputs_copier is None:
            self.outputs_copier = copier_for(
                self.parts.shell, spec, job.name, job.id, self.parts.outputs_dir, self.report
            )
        return self.outputs_copier

    def _outputs_tick(self, job: JobRecord, spec: JobSpec, now: float) -> None:
        """Every ``outputs.every`` seconds (``now``: monotonic), copy what is new, in the
        background."""
        copier = self._copier(job, spec)
        if copier is None or now - self._outputs_at < copier.every_s:
            return
        if self._outputs_thread is not None and self._outputs_thread.is_alive():
            return
        self._outputs_at = now
        nodes = list(self.nodes)

        def work() -> None:
            try:
                with self._outputs_lock:
                    done = copier.copy(nodes)
                self._outputs_note(job, copier, done)
            except Exception:  # a copy never ends the job; the next one tries again
                log.exception("job %d: copying outputs failed", job.id)

        self._outputs_thread = threading.Thread(
            target=work, name=f"job-{job.id}-outputs", daemon=True
        )
        self._outputs_thread.start()

    def _outputs_last(self, job: JobRecord, spec: JobSpec, lost: Sequence[str]) -> None:
        """The attempt ended: copy what its nodes still hold (those that answer)."""
        copier = self._copier(job, spec)
        if copier is None:
            return
        if self._outputs_thread is not None:
            self._outputs_thread.join(600)
        nodes = [jn for jn in self.nodes if jn.name not in lost]
        if not nodes:
            return
        try:
            with self._outputs_lock:
                done = copier.copy(nodes)
            self._outputs_note(job, copier, done)
        except XyclawError as exc:
            log.warning("job %d: copying outputs at the end failed: %s", job.id, exc.message)

    def _outputs_note(self, job: JobRecord, copier: OutputCopier, done: CopyRound) -> None:
        p = self.parts
        if done.copied:
            p.events.record(
                "job",
                "info",
                said(
                    "job.outputs.copied",
                    name=job.name,
                    files=done.copied,
                    size=human_bytes(done.bytes_copied),
                    folder=str(copier.dest),
                ),
                job_id=job.id,
                cluster_id=job.cluster_id,
                data={"files": done.copied, "bytes": done.bytes_copied},
            )
        if done.over_limit and not self._outputs_limit_said:
            self._outputs_limit_said = True
            p.events.record(
                "job",
                "warning",
                said(
                    "job.outputs.over_limit",
                    name=job.name,
                    files=done.over_limit,
                    size=human_bytes(done.over_limit_bytes),
                    limit=human_bytes(copier.max_bytes or 0),
                ),
                job_id=job.id,
                cluster_id=job.cluster_id,
            )

    # -- a spot cluster's notice (issue 32) -------------------------------------------------
    def _drop_stale_losses(self) -> None:
        """A whole cluster's loss (``node_lost`` with no node: the provider took it back)
        heard between two attempts is the last attempt's: the new one runs on other nodes
        (a loss of its own is heard again from its nodes, its spot watch or the provider)."""
        kept = []
        while True:
            try:
                item = self.infra.get_nowait()
            except queue.Empty:
                break
            if not (item[0] == RecoveryCause.NODE_LOST.value and item[2] is None):
                kept.append(item)
        for item in kept:
            self.infra.put(item)

    def _spot_watch(self, job: JobRecord, spec: JobSpec, attempt: int) -> SpotWatch | None:
        """For an attempt of a spot job where the provider can say: the look-out for its
        notice (the first look at once, then every ``spot_poll_s``)."""
        ask = self.parts.spot_notice
        if not spec.spot or ask is None or not self.nodes:
            return None
        self._spot_attempt = attempt
        clusters = list({jn.cluster.id: jn.cluster for jn in self.nodes}.values())
        return SpotWatch(
            ask,
            clusters,
            self.parts.options.spot_poll_s,
            on_notice=lambda cluster, at: self._spot_noticed(job, spec, attempt, cluster, at),
            on_gone=lambda cluster: self._spot_gone(job, attempt, cluster),
        )

    def _spot_noticed(
        self, job: JobRecord, spec: JobSpec, attempt: int, cluster: ClusterRecord, at: float
    ) -> None:
        """The provider will take ``cluster`` back at ``at``: copy the outputs and the newest
        checkpoint now, and say so in the job's history (on the spot watch's thread)."""
        if self._spot_attempt != attempt:
            return
        p = self.parts
        left = max(0.0, at - p.clock())
        copier = self._copier(job, spec)
        p.events.record(
            "job",
            "warning",
            said(
                "job.spot.notice" if copier is not None else "job.spot.notice_no_outputs",
                name=job.name,
                cluster=cluster.name,
                seconds=f"{left:.0f}",
            ),
            job_id=job.id,
            cluster_id=cluster.id,
            data={"preempt_at": at},
        )
        if copier is None:
            return
        nodes = [jn for jn in self.nodes if jn.cluster.id == cluster.id]
        try:
            with self._outputs_lock:
                done = copier.copy(nodes)
        except XyclawError as exc:
            log.warning("job %d: copying outputs at the notice failed: %s", job.id, exc.message)
            return
        self._outputs_note(job, copier, done)
        local = local_checkpoint(copier)
        p.events.record(
            "job",
            "info",
            said(
                "job.spot.copied",
                name=job.name,
                cluster=cluster.name,
                files=done.copied,
                size=human_bytes(done.bytes_copied),
                step=local[0],
            )
            if local is not None
            else said(
                "job.spot.copied_no_checkpoint",
                name=job.name,
                cluster=cluster.name,
                files=done.copied,
                size=human_bytes(done.bytes_copied),
            ),
            job_id=job.id,
            cluster_id=cluster.id,
            data={"files": done.copied, "bytes": done.bytes_copied},
        )

    def _spot_gone(self, job: JobRecord, attempt: int, cluster: ClusterRecord) -> None:
        """The provider says the cluster is gone: the attempt ends now with its nodes lost,
        and the recovery (the replacement's card) follows without the reconnect window."""
        if self._spot_attempt != attempt:
            return
        message = said("job.cluster_taken_back", cluster=cluster.name)
        self.parts.events.record(
            "job",
            "warning",
            said("job.note", name=job.name, note=message),
            job_id=job.id,
            cluster_id=cluster.id,
        )
        self.infra.put((RecoveryCause.NODE_LOST.value, message, None))

    def _restore_checkpoint(
        self, job: JobRecord, spec: JobSpec, found: CheckpointFound | None
    ) -> CheckpointFound | None:
        """A recovered attempt whose nodes lack the newest checkpoint copied to this machine
        (the host that had it is gone): upload that one and resume from it."""
        copier = self._copier(job, spec)
        local = local_checkpoint(copier) if copier is not None else None
        if local is None or spec.checkpoint_dir is None:
            return found
        step, folder = local
        if found is not None and found.step >= step:
            return found
        remote = f"{spec.checkpoint_dir.rstrip('/')}/{folder.name}"
        files = local_files(folder)
        seen: set[int] = set()
        try:
            for jn in self.nodes:  # one node per cluster: a cluster's nodes share the volume
                if jn.cluster.id in seen:
                    continue
                seen.add(jn.cluster.id)
                sync(self.parts.shell, jn, folder, remote, files, self.report)
        except XyclawError as exc:  # the attempt still runs, from what the nodes have
            log.warning("job %d: uploading the copied checkpoint failed: %s", job.id, exc.message)
            return found
        self.parts.events.record(
            "job",
            "info",
            said(
                "job.outputs.restored",
                name=job.name,
                step=step,
                path=remote,
                size=human_bytes(sum(f.size for f in files)),
            ),
            job_id=job.id,
            cluster_id=job.cluster_id,
        )
        return CheckpointFound(step, remote, True)

    # -- logs ------------------------------------------------------------------------------
    def _committed(self, batch: Committed) -> None:
        self.tracker.feed(batch)
        for listener in self.parts.listeners:
            listener(batch)

    def _feed_telemetry(self, line: str) -> None:
        telemetry = self.parts.telemetry
        if telemetry is not None and self._cluster_id is not None:
            telemetry.feed_job_log(self._cluster_id, line, self.job_id)


def worded_error(exc: XyclawError) -> Said | str:
    """An error's message as a figure of a job's message: its :class:`Said` where it has one,
    else its English text."""
    return exc.said or exc.message


def job_ended(name: str, state: JobState, error: Said | str | None) -> Said | str:
    """The history's note of a job's end: "job NAME succeeded", "job NAME failed: why"."""
    key = f"job.ended.{state.value}" + ("_because" if error else "")
    try:
        return said(key, name=name, error=error) if error else said(key, name=name)
    except KeyError:  # not a state a job ends in: said as it is
        return f"job {name} {state.value}" + (f": {error}" if error else "")


_GPU_FAULT_RULES = frozenset({"gpu.xid", "gpu.missing", "gpu.ecc_uncorrectable"})


def fatal_alert_cause(rule: str, severity: str) -> RecoveryCause | None:
    """The recovery cause of a telemetry alert on a node of a job, if it ends the attempt."""
    if severity != "critical":
        return None
    if rule in ("gpu.xid", "gpu.missing", "gpu.ecc_uncorrectable"):
        return RecoveryCause.XID
    return None
