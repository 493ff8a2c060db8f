"""A Slurm job as the rest of XyClaw sees any cluster (issue 33, b33).

Each job XyClaw submitted to a site is mirrored into the History: an allocation (a cluster
row: provider = the site, its id = the Slurm job id, its nodes = the nodes Slurm gave it,
the partition as its region, the site's price, 0 by default) and a job row with the per-rank
logs. What the sampler the batch script starts on each node wrote (``gpu-R.csv``) goes
through the telemetry's ingest path: the Monitor page's live window and the stored samples,
as for any cluster. Everything is read over the login node (one command per job and
follow); the job's end, and so its GPU-hours, come from its exit record.

The queue state (pending with Slurm's reason, running, ending) and the job id are kept in
the site's state file beside the job (no schema change): :func:`allocations` reads them
back for the Clusters page without asking the cluster.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from xyclaw.catalog import normalise_gpu_name
from xyclaw.jobs.slurm_jobs import (
    ENDED_STATES,
    ExitRecord,
    SlurmJobs,
    SlurmJobView,
    parse_gpu_samples,
    sample_time,
)
from xyclaw.providers.slurm import expand_hostlist
from xyclaw.records import ClusterRecord, ClusterState, ClusterStore
from xyclaw.records.jobs import JobState, JobStore
from xyclaw.records.provider_view import ClusterInfo, NodeInfo
from xyclaw.store.jobs import LogCap, LogRows
from xyclaw.store.samples import GpuRecords, empty_gpu_records

if TYPE_CHECKING:
    from xyclaw.telemetry.service import TelemetryService

log = logging.getLogger(__name__)

#: Slurm's states of a job that has nodes and is winding down.
ENDING_STATES = frozenset({"COMPLETING", "STOPPED", "SIGNALING", "STAGE_OUT"})
#: Slurm's states of a job that holds its nodes.
HOLDING_STATES = frozenset({"RUNNING", "SUSPENDED", "CONFIGURING", "RESIZING"})
RUN_STREAM = "run"
ATTEMPT = 1  # Slurm requeues a job under the same id: one attempt, as XyClaw counts


@dataclass(frozen=True)
class SlurmAllocation:
    """What the Clusters page shows of a Slurm job beside its cluster row."""

    cluster_id: int
    site: str
    job_id: str
    queue_state: str  # pending, running, ending, ended
    slurm_state: str  # Slurm's own (PENDING, RUNNING, COMPLETING, COMPLETED, ...)
    reason: str  # Slurm's reason for a pending job, or the exit record's
    node_list: str
    gpus: int

    @property
    def words(self) -> str:
        """``pending (Resources)``, ``running``, ``ending``, ``ended``."""
        return self.queue_state + (f" ({self.reason})" if self.reason else "")


def queue_state(slurm_state: str) -> str:
    if slurm_state in ENDING_STATES:
        return "ending"
    if slurm_state in HOLDING_STATES:
        return "running"
    if slurm_state in ENDED_STATES or slurm_state in ("COMPLETED", "FAILED", "UNKNOWN"):
        return "ended"
    return "pending"  # PENDING, REQUEUED, REQUEUE_HOLD, RESV_DEL_HOLD, ...


_CLUSTER_STATE = {
    "pending": ClusterState.PROVISIONING,
    "running": ClusterState.READY,
    "ending": ClusterState.RELEASING,
    "ended": ClusterState.RELEASED,
}


def allocations(state_file: Path) -> list[SlurmAllocation]:
    """The mirrored allocations kept in the state file (read locally; asks no cluster)."""
    try:
        data = json.loads(state_file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    jobs = data.get("jobs") if isinstance(data, dict) else None
    out = []
    for key, rec in (jobs or {}).items():
        mirror = rec.get("mirror") if isinstance(rec, dict) else None
        if not isinstance(mirror, dict) or "cluster_id" not in mirror:
            continue
        site, _, job_id = str(key).rpartition(":")
        try:
            out.append(
                SlurmAllocation(
                    cluster_id=int(mirror["cluster_id"]),
                    site=site,
                    job_id=job_id,
                    queue_state=str(mirror.get("queue_state", "")),
                    slurm_state=str(mirror.get("slurm_state", "")),
                    reason=str(mirror.get("reason", "")),
                    node_list=str(rec.get("node_list", "")),
                    gpus=int(rec.get("nodes", 0)) * int(rec.get("gpus_per_node", 0)),
                )
            )
        except (TypeError, ValueError):
            continue
    return out


def sample_instants(node_rank: int, text: str) -> list[tuple[int, GpuRecords]]:
    """The sampler's CSV lines of one node as instants: (ts_ms, one record per GPU)."""
    by_time: dict[int, list[Any]] = {}
    for s in parse_gpu_samples(node_rank, text):
        at = sample_time(s.at)
        if at is None:
            continue
        by_time.setdefault(int(at * 1000), []).append(s)
    out = []
    for ts_ms in sorted(by_time):
        samples = sorted(by_time[ts_ms], key=lambda s: s.gpu)
        records = empty_gpu_records(len(samples))
        for i, s in enumerate(samples):
            records[i]["gpu"] = min(s.gpu, 254)
            records[i]["util"] = round(min(max(s.utilization_pct, 0), 100))
            records[i]["mem_used_mib"] = round(max(s.memory_used_mib, 0))
            records[i]["mem_total_mib"] = round(max(s.memory_total_mib, 0))
            if s.memory_total_mib > 0:
                records[i]["mem_util"] = round(
                    min(100.0, 100.0 * s.memory_used_mib / s.memory_total_mib)
                )
            if s.power_w is not None and s.power_w >= 0:
                records[i]["power_dw"] = min(round(s.power_w * 10), 65534)
        out.append((ts_ms, records))
    return out


class SlurmMirror:
    """Mirrors one site's jobs into the store and the telemetry (see the module)."""

    def __init__(
        self,
        clusters: ClusterStore,
        jobs: JobStore,
        telemetry: Callable[[], TelemetryService | None],
        *,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.clusters = clusters
        self.jobs = jobs
        self.telemetry = telemetry
        self.clock = clock

    def follow(self, slurm: SlurmJobs, *, fresh: bool = False) -> list[ClusterRecord]:
        """Mirror every job XyClaw submitted to the site; the allocations changed or read."""
        out = []
        for view in slurm.jobs(fresh=fresh):
            mirror = slurm.noted(view.job_id).get("mirror") or {}
            if mirror.get("final"):
                continue
            try:
                out.append(self._one(slurm, view, dict(mirror)))
            except Exception:  # one job's trouble must not stop the others' mirroring
                log.exception("could not mirror Slurm job %s of %s", view.job_id, slurm.site.name)
        telemetry = self.telemetry()
        if telemetry is not None:
            telemetry.flush()
        return out

    # -- one job ---------------------------------------------------------------------------
    def _one(self, slurm: SlurmJobs, view: SlurmJobView, mirror: dict[str, Any]) -> ClusterRecord:
        state = queue_state(view.state)
        record = view.exit
        node_list = view.node_list or (record.node_list if record else "")
        names = expand_hostlist(node_list) if node_list else []
        cluster_id = mirror.get("cluster_id")
        if cluster_id is None:
            cluster_id = self._create(slurm, view)
        ran = state in ("running", "ending") or (state == "ended" and record is not None)
        if names and ran:
            self._nodes(cluster_id, view, names, record if state == "ended" else None)
        job_id = mirror.get("job") or self._job(cluster_id, view)
        if ran:  # what the nodes wrote until now, before the end is recorded
            offsets = self._read(slurm, view, cluster_id, job_id, dict(mirror.get("read", {})))
            mirror["read"] = offsets
        self._states(cluster_id, job_id, view, state, record)
        mirror.update(
            cluster_id=cluster_id,
            job=job_id,
            queue_state=state,
            slurm_state=view.state,
            reason=view.reason,
            final=state == "ended" and view.state not in ("UNKNOWN",),
        )
        slurm.note(view.job_id, mirror=mirror)
        return self.clusters.get(cluster_id)

    def _create(self, slurm: SlurmJobs, view: SlurmJobView) -> int:
        site = slurm.site
        gpu = site.gpu
        if not gpu:
            parts = {p.name: p for p in slurm.client.partitions()}
            part = parts.get(view.partition)
            gpu = normalise_gpu_name(part.gpu_type or "GPU") if part else "GPU"
        self.clusters.ensure_provider(site.name, "slurm")
        return self.clusters.add_intent(
            {
                "provider_id": site.name,
                "external_id": view.job_id,
                "name": f"{site.name}-{view.job_id}",
                "gpu": gpu,
                "gpu_count": view.gpus,
                "gpus_per_node": view.gpus_per_node,
                "fabric": site.fabric if view.nodes > 1 else "none",
                "region": view.partition,
                "currency": site.currency,
                "price_per_gpu_hour_micros": site.price_per_gpu_hour_micros,
                "idempotency_key": f"slurm:{site.name}:{view.job_id}",
            }
        )

    def _nodes(
        self, cluster_id: int, view: SlurmJobView, names: list[str], ended: ExitRecord | None
    ) -> None:
        cluster = self.clusters.get(cluster_id)
        started = ended.started_at if ended else self.clock()
        info = ClusterInfo(
            external_id=view.job_id,
            name=cluster.name,
            state="running",
            gpu=cluster.gpu,
            gpu_count=view.gpus,
            gpus_per_node=view.gpus_per_node,
            fabric=cluster.fabric,
            region=view.partition,
            price_per_gpu_hour_micros=cluster.price_per_gpu_hour_micros,
            currency=cluster.currency,
            nodes=tuple(
                NodeInfo(external_id=name, rank=rank, hostname=name, state="running")
                for rank, name in enumerate(names)
            ),
        )
        self.clusters.apply_provider_view(cluster_id, info)
        if ended is not None:  # the exit record's span is the truth (GPU-hours)
            for node in self.clusters.get(cluster_id).nodes:
                self.clusters.set_node_span(node.id, started, ended.ended_at)

    def _job(self, cluster_id: int, view: SlurmJobView) -> int:
        spec = {"slurm": {"site": view.site, "job_id": view.job_id, "folder": view.folder}}
        return self.jobs.add(
            name=view.name,
            kind="slurm",
            spec_json=json.dumps(spec),
            cluster_id=cluster_id,
            rented_cluster=False,
        )

    def _states(
        self,
        cluster_id: int,
        job_id: int,
        view: SlurmJobView,
        state: str,
        record: ExitRecord | None,
    ) -> None:
        now = self.clock()
        # the job first: a released cluster's unfinished jobs are ended as lost with it
        job = self.jobs.get(job_id, with_attempts=False)
        if state == "pending" and job.state is not JobState.QUEUED:
            self.jobs.set_state(job_id, JobState.QUEUED)
        elif state in ("running", "ending") and job.state is not JobState.RUNNING:
            self.jobs.set_state(job_id, JobState.RUNNING, started_at=job.started_at or now)
        elif state == "ended" and not job.state.finished:
            if view.state == "CANCELLED":
                final = JobState.CANCELLED
            elif record is not None and record.exit_code == 0:
                final = JobState.SUCCEEDED
            else:
                final = JobState.FAILED
            ended: dict[str, Any] = {"ended_at": record.ended_at if record else now}
            if record is not None:
                ended.update(started_at=record.started_at, exit_code=record.exit_code)
            if final is JobState.FAILED and (record is None or record.reason):
                ended["error"] = (record.reason if record else "") or view.reason
            self.jobs.set_state(job_id, final, **ended)
        cluster_state = _CLUSTER_STATE[state]
        if state == "ended" and record is None:
            cluster_state = ClusterState.GONE
        values: dict[str, Any] = {"state": cluster_state, "region": view.partition}
        cluster = self.clusters.get(cluster_id)
        if state == "running" and cluster.ready_at is None:
            values["ready_at"] = now
        if state == "ended":
            values["released_at"] = record.ended_at if record else now
        if cluster.state != cluster_state or state == "ended":
            self.clusters.update(cluster_id, **values)

    # -- what the nodes wrote ------------------------------------------------------------
    def _read(
        self,
        slurm: SlurmJobs,
        view: SlurmJobView,
        cluster_id: int,
        job_id: int,
        offsets: dict[str, int],
    ) -> dict[str, int]:
        new = slurm.read_new(view.job_id, offsets)
        nodes = {n.rank: n for n in self.clusters.get(cluster_id).nodes}
        telemetry = self.telemetry()
        cluster = self.clusters.get(cluster_id)
        for name, (start, data) in sorted(new.items()):
            rank = int(name.split("-")[1].split(".")[0])
            node = nodes.get(rank)
            if node is None or not data:
                continue
            text = data.decode("utf-8", "replace")
            if name.startswith("gpu-"):
                if telemetry is not None:
                    for ts_ms, records in sample_instants(rank, text):
                        telemetry.feed(cluster, node, ts_ms, records)
            else:
                self._log(job_id, node.name, rank, start, data)
            offsets[name] = start + len(data)
        return offsets

    def _log(self, job_id: int, node: str, rank: int, start: int, data: bytes) -> None:
        texts: list[str] = []
        starts: list[int] = []
        at = start
        for raw in data.splitlines(keepends=True):
            starts.append(at)
            texts.append(raw.decode("utf-8", "replace").rstrip("\r\n"))
            at += len(raw)
        expected = self.jobs.log_offset(job_id, ATTEMPT, RUN_STREAM, rank)
        if expected != start:
            return  # stored already (another window follows it too)
        self.jobs.append_log(
            job_id,
            ATTEMPT,
            RUN_STREAM,
            rank,
            expected_offset=start,
            new_offset=at,
            lines=LogRows(node, self.clock(), starts, [rank] * len(texts), texts),
            cap=LogCap(),
        )
