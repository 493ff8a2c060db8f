"""The environment every process of a job gets on its node.

In order, later winning: the cluster's tuned NCCL settings (defaults the spec may
override), the spec's ``env``, the values read from this machine's environment, then
what XyClaw itself sets: torchrun's rendezvous (``MASTER_ADDR``, ``MASTER_PORT``,
``NODE_RANK``, ``NNODES``, ``NPROC_PER_NODE``), ``XYCLAW_NODE_IPS`` and its friends in
the shape of SkyPilot's variables (and SkyPilot's own for a SkyPilot spec), and the
resume variables (loading a spec warns about a value of these in ``env``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from xyclaw.jobs.skypilot import skypilot_env
from xyclaw.jobs.spec import JobSpec, resume_env


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
