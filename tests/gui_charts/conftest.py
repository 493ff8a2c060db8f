"""Monitor-page fixtures: real ring buffers filled with known samples, and a page over them."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import numpy as np
import pytest

pytest.importorskip("PySide6")

from pytestqt.qtbot import QtBot

from xyclaw.gui.charts.source import AlertView, BuffersLiveSource, ClusterChoice, JobStatus
from xyclaw.gui.monitor_page import MonitorPage
from xyclaw.store.samples import MISSING
from xyclaw.telemetry.live import LiveBuffers
from xyclaw.telemetry.pack import empty_slots

pytestmark = pytest.mark.gui

NOW = 1_750_000_000.0  # a fixed clock, so columns and buckets fall where the tests expect


class Clock:
    def __init__(self, t: float = NOW) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


def records(util: list[int] | np.ndarray, **fields: list[int] | int) -> np.ndarray:
    """One instant of a node: ``util`` per GPU, sensible other fields, overrides by name."""
    util = np.asarray(util)
    rec = empty_slots(len(util))
    rec["util"] = util
    rec["temp_c"] = 40 + util // 3
    rec["power_dw"] = (80 + util * 3) * 10
    rec["power_limit_w"] = 400
    rec["mem_used_mib"] = 40_000
    rec["mem_total_mib"] = 80_000
    for name, value in fields.items():
        rec[name] = value
    return rec


@dataclass
class Fleet:
    """Nodes 10, 11, ... of cluster 1 with ``gpus`` GPUs each, in real LiveBuffers."""

    nodes: int = 2
    gpus: int = 8
    capacity: int = 900
    live: LiveBuffers = field(init=False)
    alerts: list[AlertView] = field(default_factory=list)
    job: JobStatus | None = None

    def __post_init__(self) -> None:
        self.live = LiveBuffers(self.capacity)
        for i in range(self.nodes):
            self.live.node(1, self.node_id(i), f"c1-node{i}", self.gpus)
        self.source = BuffersLiveSource(
            self.live,
            [ClusterChoice(1, "c1", "A800", self.nodes, self.nodes * self.gpus)],
            alerts_for=lambda cid: self.alerts,
        )

    @staticmethod
    def node_id(index: int) -> int:
        return 10 + index

    def add(self, index: int, t: float, util: list[int] | np.ndarray, **fields: object) -> None:
        self.live.get(1, self.node_id(index)).add_gpu(int(t * 1000), records(util, **fields))

    def add_nic(self, index: int, t: float, rx: list[float], tx: list[float]) -> None:
        names = [f"mlx5_{i}:1" for i in range(len(rx))]
        self.live.get(1, self.node_id(index)).add_nic(int(t * 1000), names, rx, tx)

    def fill(self, seconds: int, util: Callable[[int, int, float], int], end: float = NOW) -> None:
        """``util(node, gpu, t)`` for every node, once a second up to ``end``."""
        for k in range(seconds):
            t = end - (seconds - 1 - k)
            for i in range(self.nodes):
                self.add(i, t, [util(i, g, t) for g in range(self.gpus)])


@pytest.fixture
def fleet() -> Fleet:
    return Fleet()


@pytest.fixture
def make_page(qtbot: QtBot) -> Iterator[Callable[..., MonitorPage]]:

    def make(
        fleet: Fleet, clock: Clock | None = None, show: bool = True, **kw: object
    ) -> MonitorPage:
        page = MonitorPage(
            fleet.source, job_feed=lambda cid: fleet.job, clock=clock or Clock(), **kw
        )
        qtbot.addWidget(page)
        page.resize(1300, 860)
        if show:
            page.show()
            qtbot.waitExposed(page)
        return page

    yield make  # qtbot closes the pages (hiding one stops its timer)


MISSING_POWER = MISSING["power_dw"]
