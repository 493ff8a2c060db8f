"""What can go wrong when running a job, each with what to do about it."""

from __future__ import annotations

from typing import Any

from xyclaw.errors import JobError


class SetupFailed(JobError):
    """``setup`` failed on a node: the node is named and its last lines are shown."""

    def __init__(self, node: str, exit_code: int | None, last_lines: list[str]) -> None:
        shown = "\n".join(f"    {line}" for line in last_lines[-20:]) or "    (no output)"
        code = "was killed" if exit_code is None else f"exited with code {exit_code}"
        super().__init__(
            f"setup failed on {node}: it {code}; its last lines:\n{shown}",
            hint="fix the spec's setup (try it with `xyclaw exec CLUSTER -- ...`) and launch again",
        )
        self.node = node
        self.node_exit_code = exit_code
        self.last_lines = last_lines


class LaunchNeedsApproval(JobError):
    """The spec rents its own cluster: the launch needs the user's yes to this quote first."""

    exit_code = 3

    def __init__(self, quote: Any, description: str) -> None:
        super().__init__(
            f"launching this job rents a cluster first: {description}",
            hint="approve the quote and launch with it (CLI: --yes; Engine: launch(spec, "
            "quote=...)), or name an existing cluster with --cluster",
        )
        self.quote = quote


class JobNotFollowed(JobError):
    """Another XyClaw process follows this job; this one does not take it over."""
