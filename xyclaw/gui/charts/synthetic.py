"""Made-up but plausible telemetry written into real ring buffers (``LiveBuffers``).

For the GUI benchmark, the chart tests and screenshots: a cluster training
at 90-99% with a dip every few minutes (evaluation, checkpoint), power and
temperature that follow the load, steady memory, NIC traffic in bursts, and
the troubles a user should be able to see: a straggler GPU, a node that
went silent for a while, and a GPU whose power reading is not available.
Nothing here is shown to users as real data.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from xyclaw.engine.values import LiveBuffers, NodeLive, empty_slots
from xyclaw.gui.charts.source import ClusterChoice
from xyclaw.store.samples import MISSING

MIB_80G = 81_920


@dataclass
class SyntheticCluster:
    """``nodes`` x ``gpus`` GPUs of cluster ``cluster_id`` in ``live``; call ``step(t_s)``
    once per sample interval (any pace: faster than real time is the point)."""

    live: LiveBuffers
    cluster_id: int = 1
    name: str = "llama-13b-lora"
    nodes: int = 4
    gpus: int = 8
    seed: int = 7
    straggler: tuple[int, int] | None = (1, 5)  # (node index, GPU) that lags
    silent_node: int | None = 2  # a node that stops reporting for ``silent_s``
    silent_from_s: float = 300.0  # seconds after the first step
    silent_s: float = 60.0
    no_power: tuple[int, int] | None = (0, 7)  # a GPU whose power reads [N/A]
    nics: int = 4
    node_lives: list[NodeLive] = field(init=False)

    def __post_init__(self) -> None:
        self.rng = np.random.default_rng(self.seed)
        self.node_lives = [
            self.live.node(self.cluster_id, 100 + i, f"{self.name}-node{i}", self.gpus)
            for i in range(self.nodes)
        ]
        self.start_s: float | None = None
        self.rx_total = np.zeros((self.nodes, self.nics))
        self.nic_names = tuple(f"mlx5_{i}:1" for i in range(self.nics))
        self._template = empty_slots(self.gpus)

    @property
    def choice(self) -> ClusterChoice:
        return ClusterChoice(self.cluster_id, self.name, "A800", self.nodes, self.nodes * self.gpus)

    def node_id(self, index: int) -> int:
        return 100 + index

    def utilization(self, t_s: float) -> np.ndarray:
        """(nodes, gpus) utilization at ``t_s`` before the troubles are applied."""
        start = self.start_s if self.start_s is not None else t_s
        phase = (t_s - start) % 240.0
        base = 96.0 if phase > 20.0 else 35.0  # an evaluation pass every 4 minutes
        util = base + self.rng.normal(0.0, 2.0, (self.nodes, self.gpus))
        if self.straggler is not None:
            n, g = self.straggler
            if n < self.nodes and g < self.gpus:
                util[n, g] *= 0.6
        return np.clip(util, 0, 100)

    def step(self, t_s: float) -> None:
        """One instant for every node (a silent node adds nothing while it is silent)."""
        if self.start_s is None:
            self.start_s = t_s
        ts_ms = int(t_s * 1000)
        util = self.utilization(t_s)
        since = t_s - self.start_s
        for i, live in enumerate(self.node_lives):
            silent = (
                self.silent_node == i
                and self.silent_from_s <= since < self.silent_from_s + self.silent_s
            )
            if silent:
                continue
            rec = self._template.copy()
            u = util[i]
            rec["util"] = np.round(u).astype(np.uint8)
            rec["mem_util"] = np.round(u * 0.55).astype(np.uint8)
            rec["temp_c"] = np.round(38 + u * 0.35 + self.rng.normal(0, 0.8, self.gpus)).astype(
                np.uint8
            )
            rec["fan"] = MISSING["fan"]
            rec["pstate"] = 0
            power = 75 + u * 3.0 + self.rng.normal(0, 6, self.gpus)
            rec["power_dw"] = np.round(np.clip(power, 50, 400) * 10).astype(np.uint16)
            rec["power_limit_w"] = 400
            rec["sm_mhz"] = np.round(1110 + u * 3).astype(np.uint16)
            rec["mem_total_mib"] = MIB_80G
            held = 0.62 + 0.03 * (np.arange(self.gpus) % 4) + 0.02 * (i % 3)  # per rank
            held = held + 0.04 * (u > 80) + self.rng.normal(0, 0.004, self.gpus)
            rec["mem_used_mib"] = (MIB_80G * np.clip(held, 0, 1)).astype(np.uint32)
            rec["throttle"] = 0
            rec["ecc_uncorrected"] = 0
            if self.no_power is not None and self.no_power[0] == i:
                rec["power_dw"][self.no_power[1]] = MISSING["power_dw"]
            live.add_gpu(ts_ms, rec)
            busy = float(u.mean()) / 100.0
            burst = 0.5 + 0.5 * np.sin(since / 7.0 + i)
            rate = 9e9 * busy * burst + self.rng.normal(0, 2e8, (self.nics,))  # bytes/s per port
            rate = np.clip(rate, 0, None)
            live.add_nic(ts_ms, self.nic_names, rate, rate * 0.97)

    def fill(self, end_s: float, seconds: float, interval_s: float = 1.0) -> None:
        """``seconds`` of samples ending at ``end_s``."""
        steps = int(seconds / interval_s)
        for k in range(steps):
            self.step(end_s - (steps - 1 - k) * interval_s)
