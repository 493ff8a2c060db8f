"""Cancelling a Slurm job is a destroy: it goes through a bound Action like any other."""

from __future__ import annotations

from collections.abc import Mapping

from xyclaw.engine.approvals import Action, ActionKind, Asker, Target, compare
from xyclaw.errors import UsageError
from xyclaw.jobs.slurm_jobs import SlurmJobs, SlurmJobView
from xyclaw.jobs.spec import JobSpec


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


# -- submitting (issue 33, a33): "run this on the lab cluster" through a bound card ----------


def submit_card(
    jobs: SlurmJobs,
    spec_ref: str,
    spec: JobSpec,
    spec_sha256: str | None,
    partition: str | None = None,
    asked_by: Asker = Asker.AGENT,
) -> Action:
    """The card for submitting a spec to a Slurm site: the site, the partition Slurm is asked
    for, the shape, the spec (by its digest) and the exact ``sbatch`` line. It runs code on the
    lab's nodes (an exec), through the site's scheduler, and changes nothing until a yes."""
    part = jobs.choose_partition(spec, partition)
    nodes = max(1, spec.resources.nodes or 1)
    per_node = spec.resources.gpus_per_node or part.gpus_per_node
    site = jobs.site
    command = (
        f"sbatch --parsable --partition={part.name} --nodes={nodes} --gres=gpu:{per_node}"
        + (f" --account={site.account}" if site.account else "")
        + (f" --qos={site.qos}" if site.qos else "")
        + f" job.sbatch  # {spec.name or 'job'} at {site.name}"
    )
    return Action(
        operation="slurm_submit",
        kind=ActionKind.EXEC,
        ref=site.name,
        targets=(Target("slurm_site", site.name, f"{site.name} (Slurm, {site.login})"),),
        command=command,
        inputs={
            "spec": spec_ref,
            "spec_sha256": spec_sha256,
            "partition": part.name,
            "nodes": nodes,
            "gpus_per_node": per_node,
        },
        asked_by=asked_by,
    )


def submit_approved(
    jobs: SlurmJobs,
    approved: Action,
    spec_ref: str,
    spec: JobSpec,
    spec_sha256: str | None,
    *,
    nccl: Mapping[str, str] | None = None,
) -> SlurmJobView:
    """Carry out an approved submit card: refused, submitting nothing, when the card was for
    another site, or the spec, its file or the partition no longer match what was shown."""
    if approved.operation != "slurm_submit" or approved.ref != jobs.site.name:
        raise UsageError(f"this card does not submit to {jobs.site.name}", hint="ask again")
    partition = str(approved.inputs.get("partition") or "") or None
    compare(approved, submit_card(jobs, spec_ref, spec, spec_sha256, partition, approved.asked_by))
    return jobs.submit(spec, partition=partition, nccl=nccl)
