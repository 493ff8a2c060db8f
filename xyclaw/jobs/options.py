"""How the job runtime behaves: where it keeps a job's files on a node, how often it looks,
how long a silent node may stay silent, how many log lines a job keeps."""

from __future__ import annotations

from dataclasses import dataclass, field

from xyclaw.config import Config
from xyclaw.jobs.node_commands import DEFAULT_BASE
from xyclaw.store.jobs import LogCap


@dataclass(frozen=True)
class JobOptions:
    node_base: str = DEFAULT_BASE  # a job's files on a node: <base>/<job>/<attempt>/
    workdir_base: str = "~/.xyclaw/workdirs"  # uploaded workdirs, one folder per job name
    poll_s: float = 0.2  # how often the log stream on a node looks for new bytes
    tick_s: float = 1.0  # how often a job's supervisor checks limits, cancel and nodes
    reconnect_window_s: float = 120.0  # a node silent this long is lost (before: lost-contact)
    reconnect_backoff_s: float = 0.5  # first wait before reconnecting; doubles up to 8 s
    cancel_grace_s: float = 10.0  # SIGTERM, then SIGKILL after this
    failure_grace_s: float = 15.0  # a command failed: how long to wait for a GPU alert to say why
    command_timeout_s: float = 60.0  # one short command on a node
    setup_timeout_s: float = 6 * 3600.0
    lease_s: float = 15.0  # a follower that has not beaten for this long is taken over
    max_line_chars: int = 16_384
    log_cap: LogCap = field(default_factory=LogCap)
    master_port: int = 29500
    readiness_poll_s: float = 1.0
    service_sample_s: float = 5.0  # latency probe and request rate of a service
    flight_recorder_wait_s: float = 15.0  # after a watchdog timeout: for every rank's dump
    # a train job with no progress line for this many times its usual gap (and at least
    # stall_min_s) is stuck: every rank is asked for its dump through the debug pipe
    stall_factor: float = 5.0
    stall_min_s: float = 120.0
    # a release for budget waits for outputs to be copied up to this share of the budget
    outputs_budget_share: float = 0.05
    # a spot job asks the provider this often whether it gave notice (issue 32)
    spot_poll_s: float = 5.0

    @classmethod
    def from_config(cls, config: Config) -> JobOptions:
        """The runtime's behaviour with the ``[jobs]`` settings of config.toml."""
        return cls(log_cap=LogCap(head=config.jobs.log_head_lines, tail=config.jobs.log_tail_lines))
