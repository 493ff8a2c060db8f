"""The environment every process of a job gets on its node.

In order, later winning: the cluster's tuned NCCL settings (defaults the spec may
override), the spec's ``env``, the values read from this machine's environment, then
what XyClaw itself sets: torchrun's rendezvous (``MASTER_ADDR``, ``MASTER_PORT``,
``NODE_RANK``, ``NNODES``, ``NPROC_PER_NODE``), ``XYCLAW_NODE_IPS`` and its friends in
the shape of SkyPilot's variables (and SkyPilot's own for a SkyPilot spec), and the
resume variables (loading a spec warns about a value of these in ``env``).

A train job also gets PyTorch's Flight Recorder variables (issue 34), before the spec's
``env`` so the spec's own values win, and none at all when the spec's ``env`` says
``XYCLAW_FLIGHT_RECORDER: "0"``: when a collective hangs, every rank then leaves a dump
of its last collectives in one folder per attempt, which XyClaw reads to name the rank
the others wait for. And NCCL's Inspector where the node has the plugin (issue 34: the
bus bandwidth of its collectives, for the fabric-regression rule), unless the spec's
``env`` says ``XYCLAW_NCCL_INSPECTOR: "0"`` or loads a profiler plugin of its own.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from xyclaw.jobs.skypilot import skypilot_env
from xyclaw.jobs.spec import JobKind, JobSpec, resume_env
from xyclaw.jobs.step_hook import (
    STEP_TIMES_EVERY,
    STEP_TIMES_SWITCH,
    step_times_env,
    step_times_wanted,
)
from xyclaw.wording import Said, said

#: The spec's ``env`` switch: "0", "off", "false" or "no" leaves the variables out.
FLIGHT_RECORDER_SWITCH = "XYCLAW_FLIGHT_RECORDER"
#: Where the dumps go on a node: one folder per job and attempt, a file per rank. /tmp, as
#: PyTorch's own default (/tmp/nccl_trace_rank_), and never on the shared volume.
FLIGHT_RECORDER_BASE = "/tmp/xyclaw-fr"
#: The variable naming that folder; the launch script creates it (PyTorch does not).
FLIGHT_RECORDER_DIR = "XYCLAW_FR_DIR"
#: Ring entries per rank: PyTorch's default for TORCH_FR_BUFFER_SIZE (a few KB each).
FLIGHT_RECORDER_ENTRIES = 2000
#: How long a timed-out rank waits for its dump (and its peers') before it exits.
FLIGHT_RECORDER_DUMP_WAIT_MS = 60_000
_OFF = {"0", "off", "false", "no"}


def flight_recorder_dir(job_id: int, name: str, attempt: int) -> str:
    return f"{FLIGHT_RECORDER_BASE}/{name}-{job_id}/{attempt}"


def flight_recorder_wanted(spec: JobSpec) -> bool:
    """A train job gets the variables unless its spec's ``env`` turns them off."""
    if spec.kind is not JobKind.TRAIN:
        return False
    return spec.env.get(FLIGHT_RECORDER_SWITCH, "1").strip().lower() not in _OFF


def flight_recorder_pipe_stem(folder: str) -> str:
    """The debug pipe's stem: PyTorch's ``DumpPipe`` (torch/csrc/distributed/c10d/
    ProcessGroupNCCL.hpp, and the ``TORCH_FR_DEBUG_INFO_PIPE_FILE`` of the newer shared
    ProcessGroup header) makes a FIFO ``<stem><global rank>.pipe`` when the ring is on
    (buffer size > 0) and opens it ``O_RDONLY | O_NONBLOCK``; its watchdog monitor reads it
    and, when anything was written, dumps that rank's ring to the dump file (the
    ``TORCH_*_TEMP_FILE`` prefix and the rank) without a timeout and without stopping."""
    return f"{folder}/pipe_rank_"


def flight_recorder_env(folder: str) -> dict[str, str]:
    """Both PyTorch's old ``TORCH_NCCL_*`` names (2.4 onwards) and the new ``TORCH_FR_*``
    ones, alike: a ring of collectives, a dump on a watchdog timeout to ``<folder>/rank_<N>``,
    time to write it before the process exits, and a pipe per rank that asks for a dump
    of a job that is stuck without a timeout (write anything to
    ``<folder>/pipe_rank_<N>.pipe``: :func:`flight_recorder_pipe_stem`)."""
    prefix = f"{folder}/rank_"
    entries = str(FLIGHT_RECORDER_ENTRIES)
    return {
        "TORCH_NCCL_TRACE_BUFFER_SIZE": entries,
        "TORCH_FR_BUFFER_SIZE": entries,
        "TORCH_NCCL_DUMP_ON_TIMEOUT": "1",
        "TORCH_FR_DUMP_ON_TIMEOUT": "1",
        "TORCH_NCCL_DEBUG_INFO_TEMP_FILE": prefix,
        "TORCH_FR_DUMP_TEMP_FILE": prefix,
        "TORCH_NCCL_WAIT_TIMEOUT_DUMP_MILSEC": str(FLIGHT_RECORDER_DUMP_WAIT_MS),
        "TORCH_NCCL_DEBUG_INFO_PIPE_FILE": flight_recorder_pipe_stem(folder),
        "TORCH_FR_DEBUG_INFO_PIPE_FILE": flight_recorder_pipe_stem(folder),
        FLIGHT_RECORDER_DIR: folder,
    }


#: The spec's ``env`` switch for NCCL's Inspector ("0", "off", "false", "no": left out).
INSPECTOR_SWITCH = "XYCLAW_NCCL_INSPECTOR"
#: Where XyClaw asks the Inspector to write (the telemetry reads it: parsers/nccl_inspector).
INSPECTOR_DUMP_DIR = "/tmp/xyclaw-inspector"
#: Where the launch script looks for the plugin on the node, first found wins. The name is
#: what NCCL's ext-profiler/inspector Makefile builds (NVIDIA/nccl
#: ext-profiler/inspector/README.md, "Build Output": libnccl-profiler-inspector.so).
INSPECTOR_LIBRARY = "libnccl-profiler-inspector.so"
INSPECTOR_PLACES = (
    "$NCCL_HOME/ext-profiler/inspector",
    "/usr/local/lib",
    "/usr/lib/x86_64-linux-gnu",
    "/usr/lib/aarch64-linux-gnu",
    "/opt/nccl/ext-profiler/inspector",
    "/usr/local/nccl/ext-profiler/inspector",
)


def inspector_wanted(spec: JobSpec) -> bool:
    """A train job gets NCCL's Inspector (where the node has the plugin) unless its spec's
    ``env`` turns it off or loads a profiler plugin of its own (NCCL loads one)."""
    if spec.kind is not JobKind.TRAIN or "NCCL_PROFILER_PLUGIN" in spec.env:
        return False
    return spec.env.get(INSPECTOR_SWITCH, "1").strip().lower() not in _OFF


def inspector_env() -> dict[str, str]:
    """The Inspector's own variables (NVIDIA/nccl ext-profiler/inspector/README.md: enable,
    the dump thread's interval as its examples set it, the dump folder). They do nothing
    without the plugin: the launch script sets ``NCCL_PROFILER_PLUGIN`` only where it finds
    the library (:func:`xyclaw.jobs.node_commands.inspector_lines`)."""
    return {
        INSPECTOR_SWITCH: "1",
        "NCCL_INSPECTOR_ENABLE": "1",
        "NCCL_INSPECTOR_DUMP_THREAD_INTERVAL_MICROSECONDS": "500",
        "NCCL_INSPECTOR_DUMP_DIR": INSPECTOR_DUMP_DIR,
    }


def launch_additions(spec: JobSpec) -> list[Said]:
    """What XyClaw adds to a train job's processes, for its launch card (issue 34): the
    per-rank step timer and the Flight Recorder, each named, or said to be off when the
    spec's ``env`` turned it off. A service gets neither, and nothing is said."""
    if spec.kind is not JobKind.TRAIN:
        return []
    out: list[Said] = []
    if step_times_wanted(spec):
        out.append(said("job.adds.step_timer", every=STEP_TIMES_EVERY))
    else:
        out.append(said("job.adds.step_timer_off", value=spec.env.get(STEP_TIMES_SWITCH, "")))
    if flight_recorder_wanted(spec):
        out.append(said("job.adds.flight_recorder"))
    else:
        value = spec.env.get(FLIGHT_RECORDER_SWITCH, "")
        out.append(said("job.adds.flight_recorder_off", value=value))
    if inspector_wanted(spec):
        out.append(said("job.adds.inspector", folder=INSPECTOR_DUMP_DIR))
    elif "NCCL_PROFILER_PLUGIN" in spec.env:
        out.append(said("job.adds.inspector_own", plugin=spec.env["NCCL_PROFILER_PLUGIN"]))
    else:
        out.append(said("job.adds.inspector_off", value=spec.env.get(INSPECTOR_SWITCH, "")))
    return out


def launch_sends(spec: JobSpec) -> list[Said]:
    """What a job sends to its nodes, for its launch card (issue 31): the secrets it takes
    from this machine, named apart from the plain variables its spec sets, so a user sees
    before a host they cannot trust gets them which of their secrets it would get. XyClaw
    sends no secret the spec does not name; a job that names none is said to send none."""
    out: list[Said] = []
    if spec.env_from_local:
        out.append(said("job.sends.secrets", names=", ".join(sorted(spec.env_from_local))))
    else:
        out.append(said("job.sends.no_secrets"))
    if spec.env:
        out.append(said("job.sends.variables", names=", ".join(sorted(spec.env))))
    return out


def node_environment(
    spec: JobSpec,
    *,
    job_id: int,
    attempt: int,
    node_rank: int,
    node_ips: Sequence[str],
    gpus_per_node: int,
    master_port: int,
    nccl: Mapping[str, str],
    local: Mapping[str, str],
    latest_checkpoint: str | None,
    created_at: float = 0.0,
    cluster: str = "",
    provider: str = "",
    region: str | None = None,
    user: str = "",
) -> dict[str, str]:
    env: dict[str, str] = dict(nccl)
    if flight_recorder_wanted(spec):
        env.update(flight_recorder_env(flight_recorder_dir(job_id, spec.name, attempt)))
    if step_times_wanted(spec):  # issue 34 (b34): the per-rank timing hook
        env.update(step_times_env())
    if inspector_wanted(spec):  # issue 34 (b34): NCCL's Inspector where the node has it
        env.update(inspector_env())
    env.update(spec.env)
    env.update(local)
    env.update(
        {
            "MASTER_ADDR": node_ips[0],
            "MASTER_PORT": str(master_port),
            "NODE_RANK": str(node_rank),
            "NNODES": str(len(node_ips)),
            "NPROC_PER_NODE": str(gpus_per_node),
            "XYCLAW_NODE_IPS": "\n".join(node_ips),
            "XYCLAW_NODE_RANK": str(node_rank),
            "XYCLAW_NUM_NODES": str(len(node_ips)),
            "XYCLAW_GPUS_PER_NODE": str(gpus_per_node),
            "XYCLAW_JOB_ID": str(job_id),
            "XYCLAW_JOB_NAME": spec.name,
            "XYCLAW_ATTEMPT": str(attempt),
        }
    )
    if spec.checkpoint_dir:
        env["XYCLAW_CHECKPOINT_DIR"] = spec.checkpoint_dir
    if spec.skypilot:
        env.update(
            skypilot_env(
                node_ips,
                node_rank,
                gpus_per_node,
                job_id=job_id,
                created_at=created_at,
                cluster=cluster,
                provider=provider,
                region=region,
                user=user,
            )
        )
    env.update(resume_env(spec, latest_checkpoint))
    return env


def master_port(base: int, job_id: int, attempt: int) -> int:
    """A rendezvous port per attempt, so a straggler of the last attempt cannot hold it."""
    return base + (job_id * 7 + attempt) % 500
