"""Nothing lost at release (issue 32): before a cluster goes back, copy the outputs of its
jobs that are not on this machine yet, and say in the history what was copied and what
was not.

A release at a job's end, for idleness or on the user's word waits for the copy (bounded
by the size limit). A release because the budget is spent waits only as long as the
user allowed: ``outputs_budget_share`` of the budget, at the cluster's rate, turned into
seconds; what is left then is named, with its size, in the release's note.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xyclaw.errors import RemoteError, XyclawError
from xyclaw.jobs.nodes import JobNode, NodeShell
from xyclaw.jobs.outputs import CopyRound, OutputCopier, human_bytes
from xyclaw.jobs.spec import JobSpec
from xyclaw.records import ClusterRecord
from xyclaw.records.jobs import JobRecord
from xyclaw.store.event_log import EventLog
from xyclaw.wording import Said, said

log = logging.getLogger(__name__)

ASSUMED_BYTES_PER_S = 20e6  # until a copy of this job measured its own rate
REASONS = ("job_end", "idle", "budget", "user")


@dataclass
class Kept:
    """What one job's outputs came to before the release."""

    job: str
    folder: str
    done: CopyRound
    held: int  # bytes of its outputs on this machine after the copy


def budget_wait_s(cluster: ClusterRecord, share: float) -> float:
    """How long a release for budget may wait: ``share`` of the budget at the cluster's
    rate (0: not at all; what is not copied is named in the release's note)."""
    per_s = cluster.price_per_gpu_hour_micros * max(cluster.gpu_count, 1) / 3600
    budget = cluster.budget_micros or 0
    if per_s <= 0:
        return float("inf")
    return budget * share / per_s


def keep_before_release(
    shell: NodeShell,
    events: EventLog,
    cluster: ClusterRecord,
    jobs: Sequence[JobRecord],
    copier_of: Callable[[JobRecord, JobSpec], OutputCopier | None],
    reason: str,
    *,
    wait_s: float | None = None,
    report: Callable[[Said | str, float | None], None] | None = None,
) -> list[Kept]:
    """Copy what the cluster's jobs' outputs still hold only there; one note per job."""
    kept: list[Kept] = []
    nodes: list[JobNode] | None = None
    silent: list[str] = []
    for job in jobs:
        try:
            spec = JobSpec.from_json(job.spec_json)
        except XyclawError:
            continue
        copier = copier_of(job, spec)
        if copier is None:
            continue
        if nodes is None:
            nodes, silent = _nodes(shell, cluster)
        deadline = time.monotonic() + wait_s if wait_s is not None else None
        try:
            done = copier.copy(nodes, deadline=deadline, report=report)
        except XyclawError as exc:
            log.warning("outputs of job %s before release: %s", job.name, exc.message)
            done = CopyRound(failed=[n.name for n in nodes])
        wanted = {n.rank for n in copier.nodes_of(nodes)} if nodes else set()
        if silent and (copier.every_node or 0 not in wanted):
            done.failed = sorted({*done.failed, *silent})
        item = Kept(job.name, str(copier.dest), done, copier.copied_bytes)
        kept.append(item)
        events.record(
            "job",
            "warning" if done.pending or done.failed or done.over_limit else "info",
            note(cluster.name, reason, item),
            job_id=job.id,
            cluster_id=cluster.id,
            data={
                "reason": reason,
                "copied": done.copied,
                "copied_bytes": done.bytes_copied,
                "left": done.pending,
                "left_bytes": done.pending_bytes,
                "over_limit": done.over_limit,
            },
        )
    return kept


def _nodes(shell: NodeShell, cluster: ClusterRecord) -> tuple[list[JobNode], list[str]]:
    """The cluster's nodes that answer, with their home folder (for ``~/`` outputs), and
    the names of those that do not."""
    found = []
    silent = []
    for rank, node in enumerate(sorted(cluster.running_nodes, key=lambda n: n.rank)):
        try:
            found.append(shell.probe(JobNode(rank, cluster, node)))
        except (RemoteError, XyclawError) as exc:
            log.info("before releasing %s: %s does not answer: %s", cluster.name, node.name, exc)
            silent.append(node.name)
    return found, silent


def note(cluster: str, reason: str, kept: Kept) -> Said:
    """The release's note for one job: what was copied, and what was not (how much)."""
    done = kept.done
    why = said(f"job.outputs.release.{reason if reason in REASONS else 'user'}")
    copied = said(
        "job.outputs.release.copied",
        files=done.copied,
        size=human_bytes(done.bytes_copied),
        folder=kept.folder,
        held=human_bytes(kept.held),
    )
    if done.pending or done.failed or done.over_limit:
        left = said(
            "job.outputs.release.lost",
            files=done.pending + done.over_limit,
            size=human_bytes(done.pending_bytes + done.over_limit_bytes),
            nodes=", ".join(done.failed) or "-",
        )
        return said(
            "job.outputs.release.note_lost",
            cluster=cluster,
            why=why,
            job=kept.job,
            copied=copied,
            left=left,
        )
    return said("job.outputs.release.note", cluster=cluster, why=why, job=kept.job, copied=copied)
