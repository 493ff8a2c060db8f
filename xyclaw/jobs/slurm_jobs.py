"""Jobs on a Slurm cluster, through the scheduler: ``sbatch --parsable``, ``srun``,
``squeue --me``, ``scancel``; never a launcher of XyClaw's own on the nodes.

A job is a folder on the login node's (shared) file system, ``~/.xyclaw/slurm/NAME-STAMP``:
the batch script, the spec's setup and run as node scripts, the environment, Slurm's
per-rank output files, and the exit record the batch script writes on EXIT. That record is
the source of truth for a job's end: ``scontrol show job`` forgets ended jobs after
``MinJobAge`` and ``sacct`` needs slurmdbd, which many sites do not run.

XyClaw touches only the job ids ``sbatch --parsable`` returned to it (kept in a state file),
asks Slurm only about the login user's jobs (``squeue --me``), and cancels only through an
approved :class:`~xyclaw.engine.approvals.Action`.
"""

from __future__ import annotations

import base64
import dataclasses
import io
import json
import re
import tarfile
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from xyclaw.catalog import normalise_gpu_name
from xyclaw.errors import ProviderError, UsageError
from xyclaw.files import locked, write_private
from xyclaw.jobs.environment import node_environment
from xyclaw.jobs.skypilot import launching_user, node_command
from xyclaw.jobs.spec import JobSpec
from xyclaw.providers.slurm import Partition, QueuedJob, SlurmClient, expand_hostlist, quote

#: The variables that depend on the nodes Slurm picks: set by the batch script at run time.
RUNTIME_KEYS = frozenset(
    {
        "MASTER_ADDR",
        "MASTER_PORT",
        "NODE_RANK",
        "XYCLAW_NODE_IPS",
        "XYCLAW_NODE_RANK",
        "XYCLAW_JOB_ID",
        "SKYPILOT_NODE_IPS",
        "SKYPILOT_NODE_RANK",
        "SKYPILOT_SETUP_NODE_IPS",
        "SKYPILOT_SETUP_NODE_RANK",
    }
)
MASTER_PORT_BASE = 29500
#: Seconds before the time limit at which Slurm sends SIGUSR1 (a checkpoint's cue).
SIGNAL_BEFORE_S = 120
#: Slurm's states of a job that has ended (squeue lists one until MinJobAge passes).
ENDED_STATES = frozenset(
    {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY", "PREEMPTED",
     "BOOT_FAIL", "DEADLINE"}
)  # fmt: skip
#: What the sampler on each node reads, every SAMPLE_EVERY_S seconds (nvidia-smi's CSV).
SAMPLE_FIELDS = "timestamp,index,utilization.gpu,memory.used,memory.total,power.draw"
SAMPLE_EVERY_S = 5
_JOB_ID = re.compile(r"^\d+(?:_\d+)?$")
#: The most bytes one read takes of a sampler file or a rank's log (the rest comes next time).
READ_LIMIT = 4 * 1024 * 1024


@dataclass(frozen=True)
class BatchJob:
    """What is submitted: the batch script and the files beside it in the job's folder."""

    name: str
    folder: str  # absolute, on the login node
    partition: str
    nodes: int
    gpus_per_node: int
    time_min: int
    script: str
    files: Mapping[str, str]


def _export(env: Mapping[str, str]) -> str:
    return "".join(f"export {k}={quote(v)}\n" for k, v in sorted(env.items()))


def build_batch(
    spec: JobSpec,
    partition: Partition,
    *,
    folder: str,
    account: str = "",
    qos: str = "",
    nccl: Mapping[str, str] | None = None,
    requeue: bool = True,
    created_at: float | None = None,
    cluster: str = "",
    workdir: str = "",
) -> BatchJob:
    """The batch script for ``spec`` on ``partition``: ``#SBATCH`` lines (nodes, GPUs, a time
    limit that is never UNLIMITED, partition, account, QoS, name, ``--signal=USR1@120``),
    setup once per node and run on every node through ``srun``, with the SkyPilot and
    torchrun variables of each rank and the tuned NCCL environment, and an exit record."""
    nodes = spec.resources.nodes
    per_node = spec.resources.gpus_per_node or partition.gpus_per_node
    if spec.max_runtime_s:
        time_min = -(-spec.max_runtime_s // 60)
        if partition.max_time_min and time_min > partition.max_time_min:
            raise UsageError(
                f"the job asks for {time_min} min; partition {partition.name} allows "
                f"{partition.max_time_min} min",
                hint="shorten max_runtime or pick a partition with a longer MaxTime",
            )
    else:
        limit = partition.time_limit_min()
        if limit is None:
            raise UsageError(
                f"partition {partition.name} has no time limit and the spec gives none",
                hint="give the spec a max_runtime: a job asking for UNLIMITED can wait forever "
                "behind a maintenance reservation",
            )
        time_min = limit
    env = node_environment(
        spec,
        job_id=0,
        attempt=0,
        node_rank=0,
        node_ips=["0.0.0.0"] * nodes,
        gpus_per_node=per_node,
        master_port=MASTER_PORT_BASE,
        nccl=nccl or {},
        local={},
        latest_checkpoint=None,
        created_at=created_at if created_at is not None else time.time(),
        cluster=cluster or spec.name,
        provider="slurm",
        region=partition.name,
        user=launching_user(),
    )
    static = {k: v for k, v in env.items() if k not in RUNTIME_KEYS}
    static["XYCLAW_JOB_FOLDER"] = folder
    if workdir:
        static["XYCLAW_WORKDIR"] = workdir
    name = re.sub(r"[^A-Za-z0-9_.-]", "-", spec.name)[:64] or "xyclaw"
    lines = [
        "#!/bin/bash",
        f"#SBATCH --job-name={name}",
        f"#SBATCH --nodes={nodes}",
        "#SBATCH --ntasks-per-node=1",
        f"#SBATCH --time={time_min}",
        f"#SBATCH --partition={partition.name}",
        f"#SBATCH --signal=USR1@{SIGNAL_BEFORE_S}",
        f"#SBATCH --output={folder}/batch.log",
        "#SBATCH --open-mode=append",
        "#SBATCH --requeue" if requeue else "#SBATCH --no-requeue",
    ]
    if per_node:
        lines.append(f"#SBATCH --gres=gpu:{per_node}")
    if account:
        lines.append(f"#SBATCH --account={account}")
    if qos:
        lines.append(f"#SBATCH --qos={qos}")
    steps = f"srun --nodes={nodes} --ntasks-per-node=1 --kill-on-bad-exit=1"
    body = f"""
# Written by XyClaw. The exit record below is how XyClaw learns this job's end.
JOB_DIR={quote(folder)}
xyclaw_started=$(date +%s)
xyclaw_reason=""
rm -f "$JOB_DIR/exit.json"
xyclaw_end() {{
  rc=$?
  printf '{{"job_id": "%s", "exit_code": %d, "started_at": %d, "ended_at": %d, '\\
'"nodes": %d, "gpus_per_node": %d, "restarts": %d, "reason": "%s", "node_list": "%s"}}\\n' \\
    "$SLURM_JOB_ID" "$rc" "$xyclaw_started" "$(date +%s)" "$SLURM_JOB_NUM_NODES" {per_node} \\
    "${{SLURM_RESTART_COUNT:-0}}" "$xyclaw_reason" "$SLURM_JOB_NODELIST" > "$JOB_DIR/exit.json.tmp"
  mv -f "$JOB_DIR/exit.json.tmp" "$JOB_DIR/exit.json"
}}
trap xyclaw_end EXIT
trap 'xyclaw_reason="stopped by Slurm (scancel, time limit or node failure)"; exit 143' TERM
xyclaw_ips=""
for xyclaw_host in $(scontrol show hostnames "$SLURM_JOB_NODELIST"); do
  xyclaw_addr=$(scontrol show -o node "$xyclaw_host" | tr ' ' '\\n' | sed -n 's/^NodeAddr=//p')
  xyclaw_ips="$xyclaw_ips${{xyclaw_ips:+$'\\n'}}${{xyclaw_addr:-$xyclaw_host}}"
done
export XYCLAW_NODE_IPS="$xyclaw_ips" SKYPILOT_NODE_IPS="$xyclaw_ips"
export SKYPILOT_SETUP_NODE_IPS="$xyclaw_ips"
export MASTER_ADDR=$(printf '%s\\n' "$xyclaw_ips" | head -n 1)
export MASTER_PORT=$(({MASTER_PORT_BASE} + SLURM_JOB_ID % 1000)) XYCLAW_JOB_ID="$SLURM_JOB_ID"
. "$JOB_DIR/env.sh"
if ! {steps} --output=/dev/null test -f "$JOB_DIR/rank.sh"; then
  xyclaw_reason="the job folder is not on every node: no file system shared with the login node"
  exit 97
fi
{steps} --output="$JOB_DIR/setup-%t.log" bash "$JOB_DIR/rank.sh" setup ||
  {{ xyclaw_reason="setup failed"; exit 98; }}
{steps} --output="$JOB_DIR/rank-%t.log" bash "$JOB_DIR/rank.sh" run
"""
    rank = (
        "# one node's part: its rank from Slurm, then the spec's command\n"
        'export NODE_RANK="$SLURM_NODEID" XYCLAW_NODE_RANK="$SLURM_NODEID"\n'
        'export SKYPILOT_NODE_RANK="$SLURM_NODEID" SKYPILOT_SETUP_NODE_RANK="$SLURM_NODEID"\n'
        'cd "${XYCLAW_WORKDIR:-$XYCLAW_JOB_FOLDER}" || exit 1\n'
        "# the GPU sampler runs inside the run step: it sees the GPUs the step was given (an\n"
        "# extra srun --overlap step may not, under ConstrainDevices) and ends with the step\n"
        'if [ "$1" = run ] && command -v nvidia-smi >/dev/null 2>&1; then\n'
        f"  TZ=UTC nvidia-smi --query-gpu={SAMPLE_FIELDS} --format=csv,noheader,nounits"
        f" -l {SAMPLE_EVERY_S} \\\n"
        '    >> "$XYCLAW_JOB_FOLDER/gpu-$SLURM_NODEID.csv" 2>/dev/null &\n'
        "  xyclaw_sampler=$!\n"
        '  bash "$XYCLAW_JOB_FOLDER/run.sh"\n'
        "  xyclaw_rc=$?\n"
        '  kill "$xyclaw_sampler" 2>/dev/null\n'
        '  exit "$xyclaw_rc"\n'
        "fi\n"
        'exec bash "$XYCLAW_JOB_FOLDER/$1.sh"\n'
    )
    files = {
        "env.sh": _export(static),
        "rank.sh": rank,
        "setup.sh": node_command(spec, spec.setup or "true") + "\n",
        "run.sh": node_command(spec, spec.run) + "\n",
    }
    return BatchJob(
        name=name,
        folder=folder,
        partition=partition.name,
        nodes=nodes,
        gpus_per_node=per_node,
        time_min=time_min,
        script="\n".join(lines) + "\n" + body,
        files=files,
    )


def _bundle(files: Mapping[str, str]) -> str:
    """The files as a base64 tar.gz: one command line puts them all on the login node."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for name, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mode = 0o700 if name.endswith(".sh") or name == "job.sbatch" else 0o600
            tar.addfile(info, io.BytesIO(data))
    return base64.b64encode(buffer.getvalue()).decode()


@dataclass(frozen=True)
class ExitRecord:
    """What the batch script wrote when it ended."""

    exit_code: int
    started_at: float
    ended_at: float
    nodes: int
    gpus_per_node: int
    restarts: int = 0
    reason: str = ""
    node_list: str = ""  # Slurm's host list of the nodes it ran on (n[1-2])

    @property
    def gpu_hours(self) -> float:
        return max(0.0, self.ended_at - self.started_at) * self.nodes * self.gpus_per_node / 3600


def _exit_from(text: str) -> ExitRecord | None:
    """An exit record from its JSON (None for a half-written or foreign file)."""
    try:
        data = json.loads(text)
        return ExitRecord(
            exit_code=int(data["exit_code"]),
            started_at=float(data["started_at"]),
            ended_at=float(data["ended_at"]),
            nodes=int(data["nodes"]),
            gpus_per_node=int(data["gpus_per_node"]),
            restarts=int(data.get("restarts", 0)),
            reason=str(data.get("reason", "")),
            node_list=str(data.get("node_list", "")),
        )
    except (ValueError, KeyError, TypeError):
        return None


@dataclass(frozen=True)
class GpuSample:
    """One GPU at one moment, as the job's sampler on its node read it."""

    node_rank: int
    at: str  # nvidia-smi's timestamp, the node's local time
    gpu: int
    utilization_pct: float
    memory_used_mib: float
    memory_total_mib: float
    power_w: float | None


def sample_time(at: str) -> float | None:
    """nvidia-smi's timestamp (``2026/12/06 23:00:15.462``, UTC: the sampler runs it with
    TZ=UTC) as epoch seconds; None for anything else."""
    import datetime as dt

    for form in ("%Y/%m/%d %H:%M:%S.%f", "%Y/%m/%d %H:%M:%S"):
        try:
            return dt.datetime.strptime(at.strip(), form).replace(tzinfo=dt.UTC).timestamp()
        except ValueError:
            continue
    return None


def parse_gpu_samples(node_rank: int, text: str) -> list[GpuSample]:
    """Lines of the sampler's CSV (``nvidia-smi --query-gpu=SAMPLE_FIELDS --format=csv,
    noheader,nounits``); a line cut short or "[N/A]" where a number belongs is skipped."""

    def number(value: str) -> float | None:
        try:
            return float(value)
        except ValueError:
            return None

    out = []
    for line in text.splitlines():
        parts = [p.strip() for p in line.split(",")]
        if len(parts) != 6 or not parts[1].isdigit():
            continue
        util, used, total = number(parts[2]), number(parts[3]), number(parts[4])
        if util is None or used is None or total is None:
            continue
        out.append(
            GpuSample(node_rank, parts[0], int(parts[1]), util, used, total, number(parts[5]))
        )
    return out


@dataclass(frozen=True)
class SlurmJobView:
    """One of the user's Slurm jobs as XyClaw shows it."""

    site: str
    job_id: str
    name: str
    folder: str
    state: str  # Slurm's state (PENDING, RUNNING, ...), or ENDED / FAILED from the exit record
    reason: str  # Slurm's own reason for a pending job, or the record's
    partition: str
    nodes: int
    node_list: str = ""
    exit: ExitRecord | None = None
    node_problems: tuple[str, ...] = ()  # "n2 down: Not responding", of the job's nodes
    expected_start: str = ""  # a pending job's start as Slurm expects it (squeue's %S)
    gpus_per_node: int = 0

    @property
    def gpus(self) -> int:
        return self.nodes * self.gpus_per_node

    @property
    def gpu_hours(self) -> float:
        return self.exit.gpu_hours if self.exit else 0.0


class SlurmJobs:
    """The jobs XyClaw submitted to one Slurm site, and nothing else."""

    def __init__(self, client: SlurmClient, state_file: Path) -> None:
        self.client = client
        self.site = client.site
        self._state_file = state_file

    # -- the ids XyClaw owns ----------------------------------------------------------------
    def _read(self) -> dict[str, Any]:
        try:
            data = json.loads(self._state_file.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {"jobs": {}}
        except (OSError, ValueError) as exc:
            raise ProviderError(
                f"{self._state_file} is damaged",
                hint="move it away; your jobs on the cluster are not affected",
            ) from exc
        return (
            data if isinstance(data, dict) and isinstance(data.get("jobs"), dict) else {"jobs": {}}
        )

    def _own(self) -> dict[str, dict[str, Any]]:
        prefix = f"{self.site.name}:"
        return {
            key[len(prefix) :]: rec
            for key, rec in self._read()["jobs"].items()
            if key.startswith(prefix)
        }

    def _remember(self, job_id: str, rec: dict[str, Any]) -> None:
        self._state_file.parent.mkdir(parents=True, exist_ok=True)
        with locked(self._state_file):
            state = self._read()
            state["jobs"][f"{self.site.name}:{job_id}"] = rec
            write_private(self._state_file, json.dumps(state, indent=1))

    def _owned(self, job_id: str) -> dict[str, Any]:
        rec = self._own().get(job_id)
        if rec is None:
            raise UsageError(
                f"job {job_id} on {self.site.name} was not submitted by XyClaw",
                hint="XyClaw reads and cancels only the jobs it submitted",
            )
        return rec

    # -- submitting -------------------------------------------------------------------------
    def choose_partition(self, spec: JobSpec, partition: str | None = None) -> Partition:
        """The partition named, or the first with enough nodes and GPUs per node of the model."""
        parts = self.client.partitions()
        if partition:
            found = [p for p in parts if p.name == partition]
            if not found:
                raise UsageError(
                    f"{self.site.name} has no partition {partition!r}",
                    hint="partitions: " + ", ".join(p.name for p in parts),
                )
            return found[0]
        want_gpu = normalise_gpu_name(spec.resources.gpu) if spec.resources.gpu else ""
        per_node = spec.resources.gpus_per_node or 0
        for part in parts:
            model = self.site.gpu or normalise_gpu_name(part.gpu_type or "GPU")
            if want_gpu and model != want_gpu:
                continue
            if (
                part.up
                and len(part.nodes) >= spec.resources.nodes
                and part.gpus_per_node >= per_node
            ):
                return part
        raise UsageError(
            f"no partition of {self.site.name} has {spec.resources.nodes} node(s) with "
            f"{per_node or 'any'} x {want_gpu or 'GPU'}",
            hint="see the partitions: xyclaw offers --provider " + self.site.name,
        )

    def submit(
        self,
        spec: JobSpec,
        *,
        partition: str | None = None,
        nccl: Mapping[str, str] | None = None,
    ) -> SlurmJobView:
        """Write the job's folder on the login node and ``sbatch --parsable`` it; a refusal is
        shown with Slurm's own reason."""
        if spec.image and not self.has_pyxis():
            raise UsageError(
                f"the spec runs in the container image {spec.image}, and {self.site.name} has no "
                "pyxis plugin (srun --container-image)",
                hint="drop the image and use the site's modules or a conda environment",
            )
        part = self.choose_partition(spec, partition)
        home = self.client.run('printf %s "$HOME"').stdout.strip()
        stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime()) + f"-{time.time_ns() % 1000000:06d}"
        folder = f"{home}/.xyclaw/slurm/{re.sub(r'[^A-Za-z0-9_.-]', '-', spec.name)}-{stamp}"
        workdir = f"{folder}/workdir" if spec.workdir else ""
        batch = build_batch(
            spec,
            part,
            folder=folder,
            account=self.site.account,
            qos=self.site.qos,
            nccl=nccl,
            workdir=workdir,
        )
        files = dict(batch.files)
        files["job.sbatch"] = batch.script
        unpack = ""
        if spec.workdir:
            self._send_workdir(Path(spec.workdir), folder)
            unpack = (
                "mkdir -p workdir && tar -xzf workdir.tar.gz -C workdir && rm workdir.tar.gz && "
            )
        result = self.client.run(
            f"mkdir -p {quote(folder)} && chmod 700 {quote(folder)} && cd {quote(folder)} && "
            f"{unpack}printf %s {_bundle(files)} | base64 -d | tar -xzf - && "
            "sbatch --parsable job.sbatch",
            check=False,
        )
        if result.exit_code != 0:
            said = (result.stderr.strip() or result.stdout.strip()).splitlines()
            raise ProviderError(
                f"Slurm at {self.site.name} refused the job: "
                + (said[-1] if said else f"exit code {result.exit_code}"),
                hint="Slurm's own reason; change the spec or ask the site's admins",
            )
        job_id = result.stdout.strip().splitlines()[-1].split(";")[0].strip()
        if not _JOB_ID.match(job_id):
            raise ProviderError(
                f"sbatch at {self.site.name} answered {result.stdout.strip()!r}, not a job id",
                hint="check the login node's sbatch (a wrapper script may print more)",
            )
        self.client.forget_queue()  # the next listing shows the new job
        self._remember(
            job_id,
            {
                "name": batch.name,
                "folder": folder,
                "partition": part.name,
                "nodes": batch.nodes,
                "gpus_per_node": batch.gpus_per_node,
                "submitted_at": time.time(),
            },
        )
        return SlurmJobView(
            self.site.name, job_id, batch.name, folder, "PENDING", "", part.name, batch.nodes
        )

    def _send_workdir(self, source: Path, folder: str) -> None:
        """The spec's workdir, packed here (the files a cluster upload takes) and unpacked
        into the job's folder on the login node, which the nodes share."""
        import tempfile

        from xyclaw.jobs.upload import local_files

        if self.client.send is None:
            raise UsageError(
                f"the spec has a workdir and {self.site.name} takes no uploads here",
                hint="drop the workdir and refer to files already on the cluster",
            )
        found = local_files(source)
        with tempfile.TemporaryDirectory(prefix="xyclaw-slurm-") as tmp:
            packed = Path(tmp) / "workdir.tar.gz"
            with tarfile.open(packed, "w:gz") as tar:
                for item in found:
                    tar.add(item.path, arcname=item.relative)
            self.client.run(f"mkdir -p {quote(folder)} && chmod 700 {quote(folder)}")
            self.client.send(packed, f"{folder}/workdir.tar.gz")

    def has_pyxis(self) -> bool:
        result = self.client.run("srun --help 2>&1 | grep -q -- --container-image", check=False)
        return result.exit_code == 0

    # -- reading ----------------------------------------------------------------------------
    def exit_record(self, job_id: str) -> ExitRecord | None:
        rec = self._owned(job_id)
        result = self.client.run(f"cat {quote(rec['folder'])}/exit.json", check=False)
        if result.exit_code != 0:
            return None
        return _exit_from(result.stdout)

    def _final_record(self, job_id: str, rec: dict[str, Any]) -> ExitRecord | None:
        """The exit record of a job Slurm no longer lists: final, so kept in the state file
        once read (the login node is asked once per ended job, not at every listing)."""
        kept = rec.get("exit")
        if isinstance(kept, str):
            return _exit_from(kept)
        record = self.exit_record(job_id)
        if record is not None:
            self._remember(job_id, {**rec, "exit": json.dumps(dataclasses.asdict(record))})
        return record

    def jobs(self, *, fresh: bool = False) -> list[SlurmJobView]:
        """XyClaw's jobs at this site: those Slurm still lists under ``squeue --me``, the
        others from their exit records. A job of another user is never in either."""
        own = self._own()
        queued: dict[str, QueuedJob] = {q.job_id: q for q in self.client.my_jobs(fresh=fresh)}
        for job_id, listed in queued.items():  # the nodes a job ran on, kept after a failure
            seen = listed.node_list
            if job_id in own and seen and seen != own[job_id].get("node_list"):
                own[job_id] = {**own[job_id], "node_list": seen}
                self._remember(job_id, own[job_id])
        watched = [
            expand_hostlist(own[j].get("node_list", ""))
            for j, listed in queued.items()
            if j in own and listed.state not in ENDED_STATES
        ]
        problems = self.client.node_problems() if any(watched) else {}
        out = []
        for job_id, rec in sorted(own.items(), key=lambda kv: kv[1].get("submitted_at", 0)):
            q = queued.get(job_id)
            if q is not None and q.state not in ENDED_STATES:
                out.append(
                    SlurmJobView(
                        self.site.name,
                        job_id,
                        rec["name"],
                        rec["folder"],
                        q.state,
                        "" if q.reason == "None" else q.reason,
                        q.partition,
                        q.nodes,
                        q.node_list,
                        node_problems=tuple(
                            problems[n].words
                            for n in expand_hostlist(own[job_id].get("node_list", ""))
                            if n in problems
                        ),
                        expected_start=(
                            q.start if q.state == "PENDING" and q.start not in ("N/A", "") else ""
                        ),
                        gpus_per_node=int(rec.get("gpus_per_node", 0)),
                    )
                )
                continue
            record = self.exit_record(job_id) if q is not None else self._final_record(job_id, rec)
            if record is None and q is not None:
                state, reason = q.state, "" if q.reason == "None" else q.reason
            elif record is None:
                state, reason = "UNKNOWN", "Slurm no longer lists it and it left no exit record"
            elif q is not None and q.state != "COMPLETED":
                state, reason = q.state, record.reason
            else:
                state = "COMPLETED" if record.exit_code == 0 else "FAILED"
                reason = record.reason
            out.append(
                SlurmJobView(
                    self.site.name,
                    job_id,
                    rec["name"],
                    rec["folder"],
                    state,
                    reason,
                    rec["partition"],
                    rec["nodes"],
                    rec.get("node_list", ""),
                    exit=record,
                    gpus_per_node=int(rec.get("gpus_per_node", 0)),
                )
            )
        return out

    def job(self, job_id: str, *, fresh: bool = True) -> SlurmJobView:
        self._owned(job_id)
        return next(j for j in self.jobs(fresh=fresh) if j.job_id == job_id)

    def logs(self, job_id: str, *, lines: int = 200) -> dict[str, str]:
        """Slurm's per-rank output files of the job (``rank-N.log``), and the batch log."""
        rec = self._owned(job_id)
        folder = quote(rec["folder"])
        result = self.client.run(
            f"cd {folder} && for f in setup-*.log rank-*.log batch.log; do "
            f'[ -f "$f" ] && printf "==> %s <==\\n" "$f" && tail -n {int(lines)} "$f"; done',
            check=False,
        )
        out: dict[str, str] = {}
        current = ""
        for line in result.stdout.splitlines():
            header = re.match(r"^==> (\S+) <==$", line)
            if header:
                current = header.group(1)
                out[current] = ""
            elif current:
                out[current] += line + "\n"
        return out

    def gpu_samples(self, job_id: str, *, last: int = 120) -> list[GpuSample]:
        """The last ``last`` lines each node's sampler wrote (none where a node has no
        nvidia-smi)."""
        rec = self._owned(job_id)
        result = self.client.run(
            f"cd {quote(rec['folder'])} && for f in gpu-*.csv; do "
            f'[ -f "$f" ] && printf "==> %s <==\\n" "$f" && tail -n {int(last)} "$f"; done',
            check=False,
        )
        samples: list[GpuSample] = []
        rank = -1
        chunk: list[str] = []
        for line in [*result.stdout.splitlines(), "==> gpu-end.csv <=="]:
            header = re.match(r"^==> gpu-(\w+)\.csv <==$", line)
            if header:
                if rank >= 0:
                    samples += parse_gpu_samples(rank, "\n".join(chunk))
                rank = int(header.group(1)) if header.group(1).isdigit() else -1
                chunk = []
            else:
                chunk.append(line)
        return samples

    # -- following (the Engine mirrors a job into its History: xyclaw.engine.slurm_mirror) --
    def note(self, job_id: str, **values: Any) -> dict[str, Any]:
        """Keep ``values`` beside one of XyClaw's jobs in the state file (what was mirrored,
        how far its files were read); returns the job's record."""
        rec = {**self._owned(job_id), **values}
        self._remember(job_id, rec)
        return rec

    def noted(self, job_id: str) -> dict[str, Any]:
        return dict(self._owned(job_id))

    def read_new(
        self, job_id: str, offsets: Mapping[str, int], *, limit: int = READ_LIMIT
    ) -> dict[str, tuple[int, bytes]]:
        """What was appended to the job's sampler files (``gpu-R.csv``) and per-rank logs
        (``rank-R.log``) since ``offsets`` (bytes, by file name; 0 for a file not named), in
        one command at the login node: ``{name: (offset, complete lines)}``. At most
        ``limit`` bytes a file; a line still being written is left for the next read."""
        rec = self._owned(job_id)
        starts = ";".join(f"{name}={int(off)}" for name, off in sorted(offsets.items()))
        result = self.client.run(
            f"cd {quote(rec['folder'])} && for f in gpu-*.csv rank-*.log; do "
            '[ -f "$f" ] || continue; o=0; '
            f"for kv in $(echo {quote(starts)} | tr ';' ' '); do "
            '[ "${kv%%=*}" = "$f" ] && o=${kv#*=}; done; '
            'printf "%s %s\\n" "$f" "$o"; '
            f'tail -c +$((o + 1)) "$f" | head -c {int(limit)} | base64 -w0; echo; done',
            check=False,
        )
        out: dict[str, tuple[int, bytes]] = {}
        lines = result.stdout.splitlines()
        for head, body in zip(lines[::2], lines[1::2], strict=False):
            name, _, start = head.partition(" ")
            if not re.match(r"^(gpu|rank)-\d+\.(csv|log)$", name) or not start.isdigit():
                continue
            try:
                data = base64.b64decode(body.strip(), validate=True)
            except ValueError:
                continue
            cut = data.rfind(b"\n") + 1
            out[name] = (int(start), data[:cut])
        return out

    # -- cancelling (the Engine asks first: xyclaw.engine.slurm) ------------------------------
    def cancel(self, job_id: str) -> SlurmJobView:
        """``scancel`` one of XyClaw's own jobs, only while Slurm lists it under the login's
        uid (``squeue --me``); called by the Engine once the user approved the card."""
        self._owned(job_id)
        if job_id not in {q.job_id for q in self.client.my_jobs(fresh=True)}:
            raise UsageError(
                f"job {job_id} is no longer queued or running on {self.site.name}",
                hint="nothing was cancelled",
            )
        self.client.run(f"scancel {job_id}")
        return self.job(job_id)

    def name_of(self, job_id: str) -> str:
        return str(self._owned(job_id)["name"])

    # -- the fabric probe (issue 33, helper c33): XyClaw's tuning probe on the nodes ---------
    def submit_probe(
        self, script: str, partition: Partition, nodes: int, gpus_per_node: int, time_min: int
    ) -> tuple[str, str]:
        """Submit a short job that runs the read-only ``script`` once on each of ``nodes``
        nodes of ``partition`` (``srun``, one task per node; each node's output in
        ``probe-R.log`` of the job's folder, an ``exit`` file when it ends): the probe SSH
        cannot run where compute nodes are not reachable. Returns (job id, folder). Not
        listed or mirrored as a job: the Engine waits for it and reads its output."""
        home = self.client.run('printf %s "$HOME"').stdout.strip()
        stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime()) + f"-{time.time_ns() % 1000000:06d}"
        folder = f"{home}/.xyclaw/slurm/probe-{stamp}"
        lines = [
            "#!/bin/bash",
            "#SBATCH --job-name=xyclaw-probe",
            f"#SBATCH --nodes={nodes}",
            "#SBATCH --ntasks-per-node=1",
            f"#SBATCH --time={time_min}",
            f"#SBATCH --partition={partition.name}",
            f"#SBATCH --output={folder}/batch.log",
            "#SBATCH --no-requeue",
        ]
        if gpus_per_node:  # the GPUs a job gets, so the probe sees their topology as it will
            lines.append(f"#SBATCH --gres=gpu:{gpus_per_node}")
        if self.site.account:
            lines.append(f"#SBATCH --account={self.site.account}")
        if self.site.qos:
            lines.append(f"#SBATCH --qos={self.site.qos}")
        body = (
            f"JOB_DIR={quote(folder)}\n"
            'trap \'printf "%s\\n" "$?" > "$JOB_DIR/exit.tmp"; '
            'mv -f "$JOB_DIR/exit.tmp" "$JOB_DIR/exit"\' EXIT\n'
            f"srun --nodes={nodes} --ntasks-per-node=1 "
            '--output="$JOB_DIR/probe-%t.log" sh "$JOB_DIR/probe.sh"\n'
        )
        files = {
            "job.sbatch": "\n".join(lines) + "\n" + body,
            # the node's Slurm name first: the output files are named by task, not node
            "probe.sh": 'echo "XYCLAW_NODE=${SLURMD_NODENAME:-$(hostname)}"\n' + script,
        }
        result = self.client.run(
            f"mkdir -p {quote(folder)} && chmod 700 {quote(folder)} && cd {quote(folder)} && "
            f"printf %s {_bundle(files)} | base64 -d | tar -xzf - && "
            "sbatch --parsable job.sbatch",
            check=False,
        )
        if result.exit_code != 0:
            said = (result.stderr.strip() or result.stdout.strip()).splitlines()
            raise ProviderError(
                f"Slurm at {self.site.name} refused the probe job: "
                + (said[-1] if said else f"exit code {result.exit_code}"),
                hint="Slurm's own reason; pick another partition or ask the site's admins",
            )
        job_id = result.stdout.strip().splitlines()[-1].split(";")[0].strip()
        if not _JOB_ID.match(job_id):
            raise ProviderError(
                f"sbatch at {self.site.name} answered {result.stdout.strip()!r}, not a job id",
                hint="check the login node's sbatch (a wrapper script may print more)",
            )
        self.client.forget_queue()
        return job_id, folder

    def probe_output(self, folder: str) -> dict[str, str] | None:
        """Each node's probe output by its Slurm name, once the probe job ended (None while
        it has not)."""
        result = self.client.run(
            f"cd {quote(folder)} && [ -f exit ] && echo XYCLAW_ENDED && for f in probe-*.log; do "
            '[ -f "$f" ] && printf "==> %s <==\\n" "$f" && cat "$f"; done',
            check=False,
        )
        if not result.stdout.startswith("XYCLAW_ENDED"):
            return None
        out: dict[str, str] = {}
        chunks = re.split(r"^==> probe-\d+\.log <==$\n?", result.stdout, flags=re.M)
        for chunk in chunks[1:]:
            first, _, rest = chunk.partition("\n")
            name = first.removeprefix("XYCLAW_NODE=").strip() if first.startswith("XYCLAW_") else ""
            out[name or f"node{len(out)}"] = rest
        return out

    def cancel_probe(self, job_id: str) -> None:
        """``scancel`` a probe job this site's probe submitted, while the login's own
        ``squeue --me`` lists it (the probe's card covered it: it runs a few minutes at most)."""
        if job_id in {q.job_id for q in self.client.my_jobs(fresh=True)}:
            self.client.run(f"scancel {job_id}", check=False)
