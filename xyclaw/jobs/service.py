"""The job runtime as one part: submit, follow, reattach, cancel, read; built from parts
passed in (the store's tables, the SSH access, the event log, hooks for what lives above).

The engine owns one :class:`JobService`. It never imports the engine: renting a
replacement node, releasing a cluster, the cluster's tuned NCCL settings and the
telemetry service come in as callables.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from xyclaw.errors import UsageError, XyclawError
from xyclaw.events import AlertRaised, ClusterChanged, EventBus, Subscription
from xyclaw.jobs.cost import job_cost
from xyclaw.jobs.follow import Committed
from xyclaw.jobs.follower_lock import FollowerLock, followed_elsewhere
from xyclaw.jobs.nodes import NodeShell
from xyclaw.jobs.options import JobOptions
from xyclaw.jobs.runner import (
    JobRunner,
    JobTelemetry,
    ReplaceNodes,
    RuntimeParts,
    fatal_alert_cause,
)
from xyclaw.jobs.spec import JobSpec
from xyclaw.jobs.upload import Report
from xyclaw.records import ClusterRecord, ClusterStore
from xyclaw.records.jobs import JobRecord, JobState, JobStore, LogLine
from xyclaw.remote.node_access import NodeAccess
from xyclaw.store import Store
from xyclaw.store.event_log import EventLog
from xyclaw.wording import Said, said

log = logging.getLogger(__name__)
#: The kind of a job mirrored from a Slurm site (xyclaw.engine.slurm_mirror): Slurm runs it.
SLURM_KIND = "slurm"

_CLUSTER_GONE = ("releasing", "released", "gone", "failed")


class JobService:
    def __init__(
        self,
        *,
        store: Store,
        bus: EventBus,
        clusters: ClusterStore,
        access: NodeAccess,
        events: EventLog,
        options: JobOptions | None = None,
        clock: Callable[[], float] = time.time,
        nccl_env: Callable[[int], Mapping[str, str]] | None = None,
        telemetry: JobTelemetry | None = None,
        release_cluster: Callable[[int], None] | None = None,
        replace_nodes: ReplaceNodes | None = None,
        lock_dir: Path | None = None,
        register_job_secrets: Callable[[Iterable[str]], None] | None = None,
        outputs_dir: Path | None = None,
    ) -> None:
        """``lock_dir``: where the per-job follower locks live (the data folder's
        ``followers``); without it the follower lease alone keeps followers apart.
        ``register_job_secrets``: given a job's secret variable names (``HF_TOKEN``) when
        this process follows a job it did not launch (the guard adopting it, the app after a
        restart), registers their values for masking before its first log line is kept."""
        self._register_job_secrets = register_job_secrets
        self.options = options or JobOptions()
        self.jobs = JobStore(store, bus, clock)
        self.clusters = clusters
        self.parts = RuntimeParts(
            jobs=self.jobs,
            clusters=clusters,
            shell=NodeShell(access, timeout_s=self.options.command_timeout_s),
            events=events,
            options=self.options,
            clock=clock,
            nccl_env=nccl_env or (lambda cluster_id: {}),
            telemetry=telemetry,
            release_cluster=release_cluster,
            replace_nodes=replace_nodes,
            lock_for=self._lock_for if lock_dir is not None else None,
            outputs_dir=outputs_dir,
        )
        self._lock_dir = lock_dir
        self._follow_locks: dict[int, FollowerLock] = {}
        self._follow_locks_lock = threading.Lock()  # not self._lock: start() holds that one
        self._clock = clock
        self._lock = threading.Lock()
        self._runners: dict[int, JobRunner] = {}
        self._closed = False
        self._alerts: Subscription = bus.subscribe(AlertRaised, self._on_alert)
        self._clusters_sub: Subscription = bus.subscribe(ClusterChanged, self._on_cluster)
        self._events = events

    # -- starting ----------------------------------------------------------------------------
    def create(self, spec: JobSpec, *, cluster_id: int | None, rented: bool) -> int:
        """The job's record, queued; nothing runs until :meth:`start`. This process holds
        the job's follower lock from now on (while it rents the job's cluster too), so a
        guard that finds the lock free knows the launching process has ended."""
        job_id = self.jobs.add(
            name=spec.name,
            kind=spec.kind.value,
            spec_json=spec.to_json(),
            cluster_id=cluster_id,
            rented_cluster=rented,
        )
        if self._lock_dir is not None:
            self._lock_for(job_id).acquire()
        return job_id

    def _lock_for(self, job_id: int) -> FollowerLock:
        """This process's one lock object per job (a second open file would be refused by
        the lock the first one holds)."""
        assert self._lock_dir is not None
        with self._follow_locks_lock:
            lock = self._follow_locks.get(job_id)
            if lock is None:
                lock = self._follow_locks[job_id] = FollowerLock(self._lock_dir, job_id)
            return lock

    def assign_cluster(self, job_id: int, cluster: ClusterRecord) -> None:
        self.jobs.update(job_id, cluster_id=cluster.id)

    def fail(self, job_id: int, message: Said | str, cause: str = "launch_failed") -> None:
        """A job that never got to run (renting failed): failed, with why."""
        self.jobs.set_state(
            job_id, JobState.FAILED, ended_at=self._clock(), cause=cause, error=message
        )
        lock = self._follow_locks.get(job_id)
        if lock is not None:
            lock.release()

    def start(
        self,
        job_id: int,
        *,
        local_env: Mapping[str, str] | None = None,
        report: Report | None = None,
    ) -> JobRunner:
        """Run (or follow) the job from this process; the one runner if it has one already."""
        if local_env is None and self._register_job_secrets is not None:
            # Followed here without the launch's values: its secrets are looked up by name.
            spec = JobSpec.from_json(self.jobs.get(job_id, with_attempts=False).spec_json)
            self._register_job_secrets(spec.env_from_local)
        with self._lock:
            if self._closed:
                raise XyclawError("the job runtime is closed", hint="restart XyClaw")
            runner = self._runners.get(job_id)
            if runner is not None and runner.alive:
                return runner
            runner = JobRunner(self.parts, job_id, local_env=local_env, report=report)
            self._runners[job_id] = runner
        return runner.start()

    def attach(self, job_id: int) -> JobRunner | None:
        """Follow an active job from this process if nobody does (after an app restart)."""
        job = self.jobs.get(job_id, with_attempts=False)
        if job.state.finished or job.cluster_id is None or job.kind == SLURM_KIND:
            return None
        return self.start(job_id)

    def adopt(self) -> list[int]:
        """Follow every active job that no process follows (the guard calls this at start
        and at each look): its ranks are read again from the nodes (exit records, processes,
        the log from the stored offset) before anything else. A job still queued without a
        cluster whose launching process has ended never got to run: it fails, saying so
        (the cluster it was renting, if any, is released by reconciliation as work left
        unfinished). Returns the ids followed here now."""
        if self._lock_dir is None:
            return self.attach_all()
        adopted = []
        for job in self.jobs.all(active_only=True):
            if job.kind == SLURM_KIND:  # followed through its site's scheduler, not here
                continue
            if self.followed_here(job.id) or followed_elsewhere(self._lock_dir, job.id):
                continue
            if job.cluster_id is None:
                lock = self._lock_for(job.id)
                if not lock.acquire():
                    continue
                try:
                    if self.jobs.get(job.id, with_attempts=False).cluster_id is None:
                        self.fail(job.id, said("job.launch_interrupted", name=job.name))
                finally:
                    lock.release()
                continue
            runner = self.start(job.id)
            runner.join(0.05)
            if runner.alive:
                adopted.append(job.id)
        return adopted

    def attach_all(self) -> list[int]:
        """Follow every active job nobody follows; the ids of those now followed here."""
        followed = []
        for job in self.jobs.all(active_only=True):
            if job.cluster_id is None or job.kind == SLURM_KIND:
                continue
            runner = self.start(job.id)
            runner.join(0.05)
            if runner.alive:
                followed.append(job.id)
        return followed

    def wait_started(
        self,
        job_id: int,
        *,
        timeout: float | None = None,
        cancelled: Callable[[], bool] | None = None,
    ) -> JobRecord:
        """Wait until the job runs (a service: answers its readiness check) or ended."""
        runner = self._runners.get(job_id)
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            if runner is not None and runner.ready.wait(0.2):
                break
            job = self.jobs.get(job_id, with_attempts=False)
            if job.state.finished:
                break
            if runner is None and job.state is JobState.RUNNING:
                break
            if cancelled is not None and cancelled():
                break
            if deadline is not None and time.monotonic() > deadline:
                break
        job = self.record(job_id)
        if job.state is JobState.FAILED and runner is not None and runner.error is not None:
            raise runner.error
        return job

    def wait_finished(self, job_id: int, timeout: float | None = None) -> JobRecord:
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            job = self.jobs.get(job_id, with_attempts=False)
            if job.state.finished:
                return self.record(job_id)
            if deadline is not None and time.monotonic() > deadline:
                return self.record(job_id)
            runner = self._runners.get(job_id)
            if runner is not None:
                runner.finished.wait(0.25)
            else:
                time.sleep(0.25)

    # -- stopping ----------------------------------------------------------------------------
    def cancel(self, job_id: int, *, timeout: float | None = None) -> JobRecord:
        """Ask the job to stop (from any process: the runner that follows it sees it within
        a tick), follow it here if nobody does, and wait until it is cancelled."""
        job = self.jobs.get(job_id, with_attempts=False)
        if job.state.finished:
            return self.record(job_id)
        if job.kind == SLURM_KIND:  # only Slurm stops it: scancel, through its own card
            _refuse_slurm_cancel(job)
        self.jobs.update(job_id, cancel_requested_at=self._clock())
        if job.cluster_id is None:
            self.jobs.set_state(
                job_id,
                JobState.CANCELLED,
                ended_at=self._clock(),
                cause="cancelled",
                error=said("job.cancelled_before_cluster"),
            )
            return self.record(job_id)
        if job.state is JobState.QUEUED and job_id not in self._runners:
            self.jobs.set_state(
                job_id,
                JobState.CANCELLED,
                ended_at=self._clock(),
                cause="cancelled",
                error=said("job.cancelled_before_start"),
            )
            return self.record(job_id)
        self.start(job_id)
        limit = timeout if timeout is not None else self.options.cancel_grace_s + 120.0
        return self.wait_finished(job_id, limit)

    def stop_following(self, job_id: int) -> None:
        with self._lock:
            runner = self._runners.pop(job_id, None)
        if runner is not None:
            runner.stop()

    # -- reading -----------------------------------------------------------------------------
    def find(self, ref: str | int) -> JobRecord:
        return self.record(self.jobs.find(ref).id)

    def record(self, job_id: int) -> JobRecord:
        """The job with its attempts, cluster name and cost so far."""
        job = self.jobs.get(job_id)
        cost, currency = job_cost(job, self.clusters, self._clock())
        name = None
        if job.cluster_id is not None:
            try:
                name = self.clusters.get(job.cluster_id).name
            except UsageError:
                name = None
        return replace(job, cluster=name, cost_micros=cost, currency=currency)

    def all(self, *, include_finished: bool = False, limit: int = 200) -> list[JobRecord]:
        jobs = self.jobs.all(
            active_only=not include_finished, limit=None if not include_finished else limit
        )
        return [self.record(j.id) for j in jobs]

    def lines(self, job_id: int, **filters: Any) -> list[LogLine]:
        return self.jobs.lines(job_id, **filters)

    def followed_here(self, job_id: int) -> bool:
        runner = self._runners.get(job_id)
        return runner is not None and runner.alive

    def runner(self, job_id: int) -> JobRunner | None:
        return self._runners.get(job_id)

    def add_listener(self, listener: Callable[[Committed], None]) -> None:
        """Hear of every batch of lines right after it was stored (benchmarks, live views)."""
        self.parts.listeners.append(listener)

    # -- alerts -------------------------------------------------------------------------------
    def _on_alert(self, alert: AlertRaised) -> None:
        cause = fatal_alert_cause(alert.rule, alert.severity)
        if cause is None:
            return
        with self._lock:
            runners = list(self._runners.values())
        for runner in runners:
            if runner.alive and runner.uses_node(alert.cluster_id, alert.node_id):
                where = alert.node or f"node {alert.node_id}"
                xid = alert.data.get("xid")
                what = f"XID {xid}" if xid is not None else alert.rule
                message = (
                    said("job.fault_on_gpu", what=what, node=where, gpu=alert.gpu)
                    if alert.gpu is not None
                    else said("job.fault_on", what=what, node=where)
                )
                runner.infra_failure(cause, message, alert.node_id)

    def cluster_changed(self, event: ClusterChanged) -> None:
        """Hear of a cluster's change (the service subscribes itself once built; the engine's
        composition passes on the change that made it build the service)."""
        self._on_cluster(event)

    def _on_cluster(self, event: ClusterChanged) -> None:
        """A cluster going away stops its jobs first (the guard releases at a budget, the
        user with `xyclaw down`): cancelled, saying why, rather than lost node by node."""
        if event.state not in _CLUSTER_GONE:
            return
        try:
            active = self.jobs.on_cluster(event.cluster_id)
        except XyclawError:
            return
        for job in active:
            if event.state == "gone" and self._recover_from_gone(job, event):
                continue
            why = said(f"job.cluster_gone.{event.state}", cluster=event.name)
            self._events.record(
                "job",
                "warning",
                said("job.is_stopped", name=job.name, why=why),
                job_id=job.id,
                cluster_id=event.cluster_id,
            )
            runner = self._runners.get(job.id)
            if runner is not None and runner.alive:
                runner.stop_for(said("job.stopped_because", why=why))
            else:
                self.jobs.update(job.id, cancel_requested_at=self._clock())
                self.jobs.set_state(
                    job.id,
                    JobState.CANCELLED,
                    ended_at=self._clock(),
                    cause="cluster_released",
                    error=why,
                )

    def _recover_from_gone(self, job: JobRecord, event: ClusterChanged) -> bool:
        """The provider took the cluster back (a spot preemption, a host reclaimed): for a
        job whose recovery covers a lost node, the attempt ends with its nodes lost and the
        recovery the job has (a replacement after the yes, the copied checkpoint) follows,
        rather than a cancel (issue 32). True when that was done."""
        from xyclaw.jobs.spec import RecoveryCause

        runner = self._runners.get(job.id)
        try:
            spec = JobSpec.from_json(job.spec_json)
        except XyclawError:
            return False
        if runner is None or not runner.alive or RecoveryCause.NODE_LOST not in spec.recovery.on:
            return False
        if runner.nodes and not runner.uses_node(event.cluster_id, None):
            return True  # an earlier attempt's cluster: the attempt now runs elsewhere
        message = said("job.cluster_taken_back", cluster=event.name)
        self._events.record(
            "job",
            "warning",
            said("job.note", name=job.name, note=message),
            job_id=job.id,
            cluster_id=event.cluster_id,
        )
        runner.infra_failure(RecoveryCause.NODE_LOST, message, None)
        return True

    # -- closing ------------------------------------------------------------------------------
    def keep_outputs(self, cluster_id: int, reason: str, report: Report | None = None) -> None:
        """Before the cluster is released: copy its jobs' outputs not yet on this machine,
        and say in the history what was (not) copied (issue 32). Never raises: a release
        goes on whatever happens here."""
        from xyclaw.jobs.outputs import copier_for
        from xyclaw.jobs.release_outputs import budget_wait_s, keep_before_release

        try:
            jobs = self.jobs.on_cluster(cluster_id, active_only=False)
            if not jobs:
                return
            cluster = self.clusters.get(cluster_id)

            def copier_of(job: JobRecord, spec: JobSpec) -> Any:
                runner = self._runners.get(job.id)
                if runner is not None and runner.outputs_copier is not None:
                    return runner.outputs_copier  # one copier (and manifest) per job in a process
                return copier_for(self.parts.shell, spec, job.name, job.id, self.parts.outputs_dir)

            wait = (
                budget_wait_s(cluster, self.options.outputs_budget_share)
                if reason == "budget"
                else None
            )
            keep_before_release(
                self.parts.shell,
                self._events,
                cluster,
                jobs,
                copier_of,
                reason,
                wait_s=wait,
                report=report,
            )
        except XyclawError as exc:
            log.warning("outputs before releasing cluster %d: %s", cluster_id, exc.message)

    def close(self) -> None:
        """Stop following (every job keeps running on its nodes)."""
        with self._lock:
            self._closed = True
            runners = list(self._runners.values())
            self._runners.clear()
        self._alerts.unsubscribe()
        self._clusters_sub.unsubscribe()
        for runner in runners:
            runner.stop()


def _refuse_slurm_cancel(job: JobRecord) -> None:
    """A job mirrored from a Slurm site is stopped by ``scancel`` (Engine.slurm_cancel, after
    its own card), never by signals from XyClaw: say where."""
    import json

    try:
        slurm = json.loads(job.spec_json).get("slurm", {})
    except (ValueError, AttributeError):
        slurm = {}
    figures = {
        "name": job.name,
        "site": str(slurm.get("site", "SITE")),
        "job": str(slurm.get("job_id", "?")),
    }
    raise UsageError(
        said("job.slurm_cancel_there", **figures),
        hint=said("job.slurm_cancel_there.fix", **figures),
    )
