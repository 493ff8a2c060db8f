"""Cancelling a Slurm job is a destroy: it goes through a bound Action like any other."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from xyclaw.catalog import normalise_gpu_name
from xyclaw.engine.approvals import Action, ActionKind, Asker, Target, compare
from xyclaw.engine.operations import Progress
from xyclaw.errors import ProviderError, UsageError
from xyclaw.files import locked, write_private
from xyclaw.jobs.slurm_jobs import SlurmJobs, SlurmJobView
from xyclaw.jobs.spec import JobSpec
from xyclaw.providers.slurm import Partition, SlurmSite
from xyclaw.tuning.fabric import FabricReport
from xyclaw.tuning.probe import parse_node_probe, probe_script, summarize
from xyclaw.tuning.settings import NcclSettings, recommend
from xyclaw.wording import Said, said


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
        raise UsageError(
            said("error.slurm.card_cancel", site=jobs.site.name), hint=said("error.slurm.ask_again")
        )
    compare(approved, cancel_card(jobs, job_id, approved.asked_by))
    return jobs.cancel(job_id)


# -- submitting (issue 33, a33): "run this on the lab cluster" through a bound card ----------


def _site_options(site: SlurmSite) -> str:
    """The account and QoS every job XyClaw submits to the site is charged to."""
    return (f" --account={site.account}" if site.account else "") + (
        f" --qos={site.qos}" if site.qos else ""
    )


def _site_target(site: SlurmSite) -> Target:
    return Target("slurm_site", site.name, f"{site.name} (Slurm, {site.login})")


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
        + _site_options(site)
        + f" job.sbatch  # {spec.name or 'job'} at {site.name}"
    )
    return Action(
        operation="slurm_submit",
        kind=ActionKind.EXEC,
        ref=site.name,
        targets=(_site_target(site),),
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
        raise UsageError(
            said("error.slurm.card_submit", site=jobs.site.name), hint=said("error.slurm.ask_again")
        )
    partition = str(approved.inputs.get("partition") or "") or None
    compare(approved, submit_card(jobs, spec_ref, spec, spec_sha256, partition, approved.asked_by))
    return jobs.submit(spec, partition=partition, nccl=nccl)


# -- the fabric probe (issue 33, helper c33): NCCL settings for a site from its own nodes ----

#: Minutes the probe job may run (it takes seconds; the limit bounds a stuck node).
PROBE_TIME_MIN = 5
#: Nodes probed: two show what links them; a single-node partition has one.
PROBE_NODES = 2


@dataclass(frozen=True)
class SlurmProbe:
    """What the probe found at a site and the NCCL settings kept for its jobs."""

    site: str
    job_id: str
    partition: str
    nodes: tuple[str, ...]
    transport: str  # ib, roce, socket, mixed
    settings: NcclSettings
    findings: tuple[str, ...] = ()
    probed_at: float = 0.0
    #: The findings worded, one for each (issue 35): a view shows them in its language.
    findings_said: tuple[Said, ...] = field(default=(), compare=False)

    def worded_findings(self) -> tuple[Said | str, ...]:
        """The findings as said where each is (a probe kept before: its English)."""
        if len(self.findings_said) == len(self.findings):
            return self.findings_said
        return self.findings

    def to_json(self) -> dict[str, Any]:
        return {
            "site": self.site,
            "job_id": self.job_id,
            "partition": self.partition,
            "nodes": list(self.nodes),
            "transport": self.transport,
            "settings": self.settings.to_json(),
            "findings": list(self.findings),
            "findings_said": [f.to_json() for f in self.findings_said],
            "probed_at": self.probed_at,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> SlurmProbe:
        return cls(
            site=str(data["site"]),
            job_id=str(data.get("job_id", "")),
            partition=str(data.get("partition", "")),
            nodes=tuple(str(n) for n in data.get("nodes", [])),
            transport=str(data.get("transport", "")),
            settings=NcclSettings.from_json(data.get("settings", {})),
            findings=tuple(str(f) for f in data.get("findings", [])),
            probed_at=float(data.get("probed_at", 0.0)),
            findings_said=tuple(
                s for item in data.get("findings_said") or [] if (s := Said.from_json(item))
            ),
        )


def _probe_partition(jobs: SlurmJobs, partition: str | None) -> Partition:
    parts = jobs.client.partitions()
    if partition:
        found = [p for p in parts if p.name == partition]
        if not found:
            raise UsageError(
                said("error.slurm.no_partition", site=jobs.site.name, partition=repr(partition)),
                hint=said("error.slurm.partitions", names=", ".join(p.name for p in parts)),
            )
        return found[0]
    usable = [p for p in parts if p.up and p.nodes]
    if not usable:
        raise UsageError(
            said("error.slurm.none_up", site=jobs.site.name), hint=said("error.slurm.none_up_hint")
        )
    return max(usable, key=lambda p: (p.gpus_per_node, len(p.nodes)))


def probe_card(
    jobs: SlurmJobs, partition: str | None = None, asked_by: Asker = Asker.USER
) -> Action:
    """The card for probing a site's fabric: a short job on ``PROBE_NODES`` nodes of the
    partition (one ``srun`` task per node) that runs XyClaw's read-only probe script (an
    exec on the lab's nodes, through its scheduler); nothing runs until a yes."""
    part = _probe_partition(jobs, partition)
    nodes = max(1, min(PROBE_NODES, len(part.nodes)))
    time_min = min(PROBE_TIME_MIN, part.max_time_min or PROBE_TIME_MIN)
    per_node = part.gpus_per_node
    site = jobs.site
    command = (
        f"sbatch --parsable --partition={part.name} --nodes={nodes} --ntasks-per-node=1"
        f" --time={time_min}"
        + (f" --gres=gpu:{per_node}" if per_node else "")
        + _site_options(site)
        + f" job.sbatch  # srun: XyClaw's read-only fabric probe on each node of {site.name}"
    )
    return Action(
        operation="slurm_probe",
        kind=ActionKind.EXEC,
        ref=site.name,
        targets=(_site_target(site),),
        command=command,
        inputs={
            "partition": part.name,
            "nodes": nodes,
            "gpus_per_node": per_node,
            "time_min": time_min,
        },
        asked_by=asked_by,
    )


def probe_approved(
    jobs: SlurmJobs,
    approved: Action,
    progress: Progress,
    *,
    wait_s: float,
    poll_s: float = 1.0,
    clock: Callable[[], float] = time.time,
) -> SlurmProbe:
    """Carry out an approved probe card: submit the probe job, wait for it (at most
    ``wait_s``: a job still queued then is cancelled), parse each node's output, sum the
    nodes up with the site's fabric and recommend NCCL settings. Refused, submitting
    nothing, when the card was for another site or no longer matches."""
    site = jobs.site
    if approved.operation != "slurm_probe" or approved.ref != site.name:
        raise UsageError(
            said("error.slurm.card_probe", site=site.name), hint=said("error.slurm.ask_again")
        )
    partition = str(approved.inputs.get("partition") or "") or None
    compare(approved, probe_card(jobs, partition, approved.asked_by))
    part = _probe_partition(jobs, partition)
    nodes = int(approved.inputs["nodes"])
    job_id, folder = jobs.submit_probe(
        probe_script(),
        part,
        nodes,
        int(approved.inputs["gpus_per_node"]),
        int(approved.inputs["time_min"]),
    )
    progress.update(
        said(
            "op.slurm_probe.submitted",
            job_id=job_id,
            site=site.name,
            nodes=nodes,
            partition=part.name,
        ),
        0.1,
    )
    deadline = time.monotonic() + wait_s
    while (outputs := jobs.probe_output(folder)) is None:
        if progress.cancelled or time.monotonic() > deadline:
            jobs.cancel_probe(job_id)
            progress.check_cancelled()
            raise ProviderError(
                said("error.slurm.probe_slow", job=job_id, seconds=int(wait_s), site=site.name),
                hint=said("error.slurm.probe_slow_hint"),
            )
        time.sleep(poll_s)
    found = [parse_node_probe(name, text) for name, text in sorted(outputs.items())]
    summary = summarize(found, site.fabric)
    report = FabricReport(
        cluster_id=0,
        cluster_name=site.name,
        fabric=site.fabric,
        gpu=site.gpu or normalise_gpu_name(part.gpu_type or "GPU"),
        probed_at=clock(),
        nodes=tuple(found),
        summary=summary,
    )
    progress.update(said("op.slurm_probe.read", count=len(found), transport=summary.transport), 0.9)
    return SlurmProbe(
        site=site.name,
        job_id=job_id,
        partition=part.name,
        nodes=tuple(n.name for n in found),
        transport=summary.transport,
        settings=recommend(report),
        findings=tuple(str(f) for f in summary.findings),
        probed_at=report.probed_at,
        findings_said=tuple(summary.findings_said),
    )


def keep_probe(state_file: Path, probe: SlurmProbe) -> None:
    """Keep a site's probe (its NCCL settings) in the state file, replacing the last one."""
    state_file.parent.mkdir(parents=True, exist_ok=True)
    with locked(state_file):
        sites = {**_probes(state_file), probe.site: probe.to_json()}
        write_private(state_file, json.dumps({"sites": sites}, indent=1))


def kept_probe(state_file: Path, site: str) -> SlurmProbe | None:
    """The site's last probe, None when it was never probed (or its record does not read)."""
    data = _probes(state_file).get(site)
    try:
        return SlurmProbe.from_json(data) if isinstance(data, dict) else None
    except (KeyError, TypeError, ValueError):
        return None


def _probes(state_file: Path) -> dict[str, Any]:
    try:
        data = json.loads(state_file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        raise ProviderError(
            said("error.slurm.state_damaged", path=str(state_file)),
            hint=said("error.slurm.state_damaged_hint"),
        ) from exc
    sites = data.get("sites") if isinstance(data, dict) else None
    return sites if isinstance(sites, dict) else {}
