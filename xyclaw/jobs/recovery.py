"""Why an attempt ended, whether the job's policy gives it another, and where it resumes.

An attempt ends for one cause, the first seen: a node lost (silent past the reconnect
window, or it came back without the job's processes: a reboot), a fatal XID on a GPU of
the job (the telemetry's alert), PyTorch's NCCL watchdog timing out (read from the log),
the command failing on a node (``exit_nonzero``, retried only when the policy lists it),
or a stop XyClaw was asked for (cancel, ``max_runtime``, ``budget``). A node that is
merely silent is never a failure until the window ends.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xyclaw.jobs.node_status import CheckpointFound, NodeProcessState, NodeProcessStatus
from xyclaw.jobs.spec import JobSpec, RecoveryCause
from xyclaw.wording import Said, said

CANCELLED = "cancelled"
MAX_RUNTIME = "max_runtime"
BUDGET = "budget"
SETUP = "setup_failed"
LAUNCH = "launch_failed"
STOPS = (CANCELLED, MAX_RUNTIME, BUDGET)


@dataclass(frozen=True)
class Outcome:
    """How an attempt ended."""

    succeeded: bool
    cause: str | None  # a RecoveryCause value, one of STOPS, SETUP, LAUNCH; None on success
    message: Said | str  # "exit code 1 on node-0", "XID 79 on node-1 (GPU 3)"
    exit_code: int | None = None
    lost_nodes: tuple[str, ...] = field(default=())
    ended_at: float | None = None  # when it truly ended, from the nodes' exit records

    @property
    def stopped(self) -> bool:
        return self.cause in STOPS


@dataclass(frozen=True)
class Decision:
    retry: bool
    reason: Said | str


def node_failure(
    node: str, status: NodeProcessStatus | None, was_silent: bool
) -> tuple[str, Said] | None:
    """(cause, message) for one node's ended process, or None when it ended well."""
    if status is None:
        return None
    if status.state is NodeProcessState.EXITED:
        if status.exit_code == 0:
            return None
        return RecoveryCause.EXIT_NONZERO.value, said(
            "job.exit_code_on", code=status.exit_code, node=node
        )
    if status.state in (NodeProcessState.DEAD, NodeProcessState.LOST):
        if was_silent:
            return RecoveryCause.NODE_LOST.value, said("job.node_came_back_empty", node=node)
        return RecoveryCause.EXIT_NONZERO.value, said("job.killed_without_code", node=node)
    return None


def decide(spec: JobSpec, outcome: Outcome, restarts_so_far: int) -> Decision:
    """Whether the job gets another attempt, and the sentence that says why (not)."""
    if outcome.succeeded:
        return Decision(False, said("job.succeeded"))
    if outcome.stopped or outcome.cause in (SETUP, LAUNCH) or outcome.cause is None:
        return Decision(False, outcome.message)
    policy = spec.recovery
    cause = RecoveryCause(outcome.cause)
    if cause not in policy.on:
        if cause is RecoveryCause.EXIT_NONZERO:
            return Decision(False, said("job.not_retried", message=outcome.message))
        return Decision(
            False, said("job.cause_not_listed", message=outcome.message, cause=cause.value)
        )
    if restarts_so_far >= policy.max_restarts:
        return Decision(
            False,
            said("job.no_restarts_left", message=outcome.message, allowed=policy.max_restarts),
        )
    return Decision(True, outcome.message)


def resume_note(spec: JobSpec, found: CheckpointFound | None, attempt: int) -> Said | None:
    """What to tell the user before attempt ``attempt`` starts, when it does not resume."""
    if attempt <= 1:
        return None
    if spec.checkpoint_dir is None:
        return said("job.from_step_0_no_dir", attempt=attempt)
    if found is None:
        return said("job.from_step_0_none_yet", attempt=attempt, folder=spec.checkpoint_dir)
    return None
