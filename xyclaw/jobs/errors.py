"""What can go wrong when running a job, each with what to do about it."""

from __future__ import annotations

from typing import Any

from xyclaw.errors import JobError
from xyclaw.wording import Said, said


class SetupFailed(JobError):
    """``setup`` failed on a node: the node is named and its last lines are shown."""

    def __init__(self, node: str, exit_code: int | None, last_lines: list[str]) -> None:
        lines = "\n".join(f"    {line}" for line in last_lines[-20:])
        shown: str | Said = lines or said("error.job.no_output")
        code = (
            said("error.job.killed")
            if exit_code is None
            else said("error.job.exited", code=exit_code)
        )
        super().__init__(
            said("error.job.setup_failed", node=node, how=code, lines=shown),
            hint=said("error.job.setup_failed_hint"),
        )
        self.node = node
        self.node_exit_code = exit_code
        self.last_lines = last_lines


class LaunchNeedsApproval(JobError):
    """The spec rents its own cluster: the launch needs the user's yes to this quote first."""

    exit_code = 3

    def __init__(self, quote: Any, description: str) -> None:
        super().__init__(
            said("error.job.needs_approval", quote=description),
            hint=said("error.job.needs_approval_hint"),
        )
        self.quote = quote


class JobNotFollowed(JobError):
    """Another XyClaw process follows this job; this one does not take it over."""
