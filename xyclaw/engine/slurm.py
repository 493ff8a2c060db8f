"""Cancelling a Slurm job is a destroy: it goes through a bound Action like any other."""

from __future__ import annotations

from xyclaw.engine.approvals import Action, ActionKind, Asker, Target, compare
from xyclaw.errors import UsageError
from xyclaw.jobs.slurm_jobs import SlurmJobs, SlurmJobView


def cancel_card(jobs: SlurmJobs, job_id: str, asked_by: Asker = Asker.USER) -> Action:
    """The card for cancelling one of XyClaw's jobs at a site: its id and the exact scancel
    (a job XyClaw did not submit has no card: UsageError)."""
    key = f"{jobs.site.name}:{job_id}"
    return Action(
        operation="slurm_cancel",
        kind=ActionKind.DESTROY,
        ref=key,
        targets=(Target("job", key, jobs.name_of(job_id)),),
        command=f"scancel {job_id}",
        asked_by=asked_by,
    )


def cancel_approved(jobs: SlurmJobs, approved: Action) -> SlurmJobView:
    """Carry out an approved cancel card: refused, cancelling nothing, when the card was for
    another site or job or no longer matches what it would do."""
    site, _, job_id = str(approved.ref or "").partition(":")
    if approved.operation != "slurm_cancel" or site != jobs.site.name:
        raise UsageError(f"this card does not cancel a job on {jobs.site.name}", hint="ask again")
    compare(approved, cancel_card(jobs, job_id, approved.asked_by))
    return jobs.cancel(job_id)
