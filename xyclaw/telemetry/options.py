"""The collector's settings, from the app's config or given by a test or benchmark."""

from __future__ import annotations

from dataclasses import dataclass, field

from xyclaw.config import Config
from xyclaw.telemetry.rules import AlertThresholds

MODES = ("stream", "poll")


@dataclass(frozen=True)
class TelemetryOptions:
    """``gpu_mode``/``nic_mode``: ``stream`` (one long-running command per node) or ``poll``
    (one command per node per interval: the fallback, and the benchmark's comparison)."""

    interval_s: float = 1.0
    live_window_minutes: float = 15.0
    raw_retention_hours: float = 72.0
    rollup_retention_days: float = 365.0
    flush_interval_s: float = 10.0
    rollup_every_s: float = 60.0
    rollup_lag_s: float = 30.0
    stale_after_s: float = 0.0  # 0: five intervals, at least 3 s
    reconnect_max_s: float = 30.0
    xid_interval_s: float = 30.0
    inspector_interval_s: float = 5.0  # NCCL Inspector records, while a job runs (issue 34)
    dcgm_interval_s: float = 5.0  # DCGM's profiling fields, where the node has them (issue 34)
    command_timeout_s: float = 20.0
    gpu_mode: str = "stream"
    nic_mode: str = "stream"
    nic: bool = True
    workers: int = 16
    thresholds: AlertThresholds = field(default_factory=AlertThresholds)

    def __post_init__(self) -> None:
        if self.interval_s <= 0:
            raise ValueError("interval_s must be positive")
        if self.gpu_mode not in MODES or self.nic_mode not in MODES:
            raise ValueError(f"modes are {MODES}")

    @property
    def stale_s(self) -> float:
        """Silence after which a stream that has not ended is taken for hung."""
        return self.stale_after_s or max(5 * self.interval_s, 3.0)

    @property
    def rules_every_s(self) -> float:
        """How often the window rules (peers, network, reachability) run: a tenth of their
        shortest window, at most every 5 s and at least once per interval."""
        th = self.thresholds
        shortest = min(th.straggler_window_s / 10, th.nic_recent_s / 3, th.unreachable_after_s / 6)
        return max(self.interval_s, min(5.0, shortest))

    @property
    def ring_capacity(self) -> int:
        return max(16, round(self.live_window_minutes * 60 / self.interval_s))

    @classmethod
    def from_config(cls, config: Config) -> TelemetryOptions:
        interval = config.telemetry.sample_interval_s
        return cls(
            interval_s=interval,
            live_window_minutes=config.telemetry.live_window_minutes,
            raw_retention_hours=config.store.raw_retention_hours,
            rollup_retention_days=config.store.rollup_retention_days,
            flush_interval_s=max(10.0, interval),
            rollup_lag_s=max(30.0, 3 * interval + 10.0),
            command_timeout_s=max(20.0, config.ssh.connect_timeout_s * 2),
            workers=min(32, max(4, config.ssh.max_parallel // 2)),
        )
