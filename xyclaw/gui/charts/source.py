"""What the Monitor page reads, and adapters over the telemetry's live ring buffers.

The page pulls a :class:`ClusterFrame` at its own frame rate; nothing is
pushed per sample. A frame holds *views* of the ring buffers (no copy, no
``np.roll``): each node's instant times and its packed GPU records shaped
``(instants, gpus)``, and its NIC rates. Views are taken one row short of a
full ring, so the one append a collector thread can make while a frame is
drawn lands outside them (see ``xyclaw/telemetry/ring.py``). This module has
no Qt in it, so the numbers can be checked without a display.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
import numpy.typing as npt

from xyclaw.wording import Said

if TYPE_CHECKING:  # the adapters take these objects; importing them costs nothing here
    from xyclaw.engine.values import Alert, LiveBuffers, NodeLive, TelemetryService

I64 = npt.NDArray[np.int64]


@dataclass(frozen=True)
class ClusterChoice:
    """One entry of the cluster picker."""

    id: int
    name: str
    gpu: str = ""
    nodes: int = 0
    gpus: int = 0

    @property
    def label(self) -> str:
        size = f"{self.nodes} x {self.gpus // max(self.nodes, 1)} {self.gpu}".strip()
        return f"{self.name}  ({size})" if self.nodes else self.name


@dataclass(frozen=True)
class NodeSeries:
    """One node's live window: ``records[i, g]`` is GPU slot ``g`` at ``ts_ms[i]``.

    ``records`` has the fields of ``xyclaw.store.samples.GPU_SAMPLE_DTYPE`` (missing values
    are the type's maximum); ``nic_rates[i, n, 0/1]`` is receive/transmit bytes/s of
    interface ``n`` at ``nic_ts_ms[i]`` (NaN when unknown). All arrays are ring views."""

    node_id: int
    name: str
    ts_ms: I64
    records: npt.NDArray[Any]
    nic_ts_ms: I64
    nic_rates: npt.NDArray[np.float32]
    instants: int  # instants ever added: tells a reader whether anything is new
    #: DCGM's newest profiling reading, one record per GPU (``DCGM_SAMPLE_DTYPE``, ratios in
    #: thousandths), a copy; None where the node has no DCGM (issue 34)
    dcgm: npt.NDArray[Any] | None = None

    @property
    def gpus(self) -> int:
        return int(self.records.shape[1]) if self.records.ndim == 2 else 0


@dataclass(frozen=True)
class HonestUtilization:
    """nvidia-smi's utilization beside DCGM's profiling fields, averaged over the GPUs of a
    cluster's newest readings (percent; None where no node gave them), and how many nodes
    have DCGM: utilization counts any kernel running, the DCGM fields the work done."""

    util: float | None
    sm_active: float | None
    tensor_active: float | None
    dram_active: float | None
    nodes_with_dcgm: int
    nodes: int


def honest_utilization(frame: ClusterFrame, *, whole_window: bool = False) -> HonestUtilization:
    """The newest instant's utilization (the Monitor), or its mean over the frame
    (``whole_window``: a replay, whose DCGM ratios are the window's means too)."""
    from xyclaw.store.samples import MISSING, dcgm_ratios

    utils: list[float] = []
    fields: dict[str, list[float]] = {"sm_active": [], "tensor_active": [], "dram_active": []}
    with_dcgm = 0
    for node in frame.nodes:
        if node.records.shape[0] and node.records.ndim == 2:
            shown = node.records["util"] if whole_window else node.records[-1]["util"]
            raw = np.asarray(shown).ravel()
            utils += [float(u) for u in raw[raw != MISSING["util"]]]
        if node.dcgm is not None and len(node.dcgm):
            with_dcgm += 1
            for name, values in fields.items():
                ratios = dcgm_ratios(node.dcgm, name)
                values += [float(r) * 100 for r in ratios if not np.isnan(r)]

    def mean(values: list[float]) -> float | None:
        return sum(values) / len(values) if values else None

    return HonestUtilization(
        mean(utils),
        mean(fields["sm_active"]),
        mean(fields["tensor_active"]),
        mean(fields["dram_active"]),
        with_dcgm,
        len(frame.nodes),
    )


@dataclass(frozen=True)
class ClusterFrame:
    """Every node of one cluster, as the live window holds it now."""

    cluster_id: int
    name: str
    interval_s: float
    window_s: float
    nodes: tuple[NodeSeries, ...]

    @property
    def version(self) -> int:
        """Changes whenever a node has a new instant (for skipping redraws)."""
        return sum(n.instants for n in self.nodes)

    @property
    def gpu_count(self) -> int:
        return sum(n.gpus for n in self.nodes)

    def newest_ms(self) -> int | None:
        newest = [int(n.ts_ms[-1]) for n in self.nodes if n.ts_ms.shape[0]]
        return max(newest) if newest else None

    def oldest_ms(self) -> int | None:
        """The cluster's first sample the window holds (None before any)."""
        oldest = [int(n.ts_ms[0]) for n in self.nodes if n.ts_ms.shape[0]]
        return min(oldest) if oldest else None


#: The spans the charts' x axis takes while a cluster is newer than the window (seconds):
#: a step at most 1.5 times the one before, so the data fills at least two thirds of the
#: chart, and the axis slides between steps instead of rescaling every frame.
SHOWN_SPANS_S = (60, 90, 120, 180, 240, 300, 420, 600, 900, 1200, 1800, 2700, 3600)


def shown_start_s(frame: ClusterFrame, start_s: float, end_s: float) -> float:
    """Where the charts' x axis starts: the window's start, or, while the cluster has less
    than a window of samples, the start of the shortest span in SHOWN_SPANS_S that holds
    its first sample (a new cluster's data fills the chart instead of a sliver at the right
    edge of a 15-minute window)."""
    oldest = frame.oldest_ms()
    if oldest is None:
        return start_s
    need = end_s - oldest / 1000.0 + frame.interval_s
    span = next((s for s in SHOWN_SPANS_S if s >= need), None)
    if span is None:
        return start_s
    return max(start_s, end_s - span)


@dataclass(frozen=True)
class AlertView:
    """An open alert as the page shows it; ``id`` is its row in the events table (None for
    the moment between being raised and being stored)."""

    id: int | None
    rule: str
    severity: str
    message: str
    action: str
    cluster_id: int
    node: str | None = None
    node_id: int | None = None
    gpu: int | None = None
    since: float = 0.0
    said: Said | None = None  # ``message`` as a key and figures (None: an older stored alert)
    action_said: Said | None = None  # ``action`` likewise


@dataclass(frozen=True)
class JobStatus:
    """The running job's progress for the job area; fields are None when not known yet."""

    name: str
    state: str = "running"
    step: int | None = None
    total_steps: int | None = None
    loss: float | None = None
    eta_s: float | None = None
    tokens_per_s: float | None = None
    extra: dict[str, Any] = field(default_factory=dict)


#: Gives the job area its numbers: the running job of a cluster, or None for "no job".
JobFeed = Callable[[int], JobStatus | None]


class LiveSource(Protocol):
    """What the Monitor page pulls from, at its frame rate, on the GUI thread: every call
    must return in well under a millisecond (read memory, never the network or SQLite)."""

    def clusters(self) -> Sequence[ClusterChoice]:
        """The clusters that have live data (or will, once their first samples arrive)."""
        ...

    def snapshot(self, cluster_id: int) -> ClusterFrame | None:
        """Ring-buffer views of every node of the cluster; None when it is not watched."""
        ...

    def alerts(self, cluster_id: int) -> Sequence[AlertView]:
        """The cluster's open alerts, gravest first."""
        ...


SEVERITY_ORDER = {"critical": 0, "error": 1, "warning": 2, "info": 3}


def node_series(live: NodeLive) -> NodeSeries:
    """Views of one node's rings, one row short of full (see the module docstring)."""
    ts, records, nic_ts, rates, instants = live.views(last=max(1, live.capacity - 1))
    dcgm_ts, dcgm = live.dcgm_window(last=1)
    newest = dcgm[0].copy() if len(dcgm_ts) else None
    return NodeSeries(live.node_id, live.name, ts, records, nic_ts, rates, instants, newest)


def alert_view(alert: Alert) -> AlertView:
    return AlertView(
        id=alert.event_id,
        rule=alert.rule,
        severity=alert.severity,
        message=alert.message,
        action=alert.action,
        cluster_id=alert.cluster_id,
        node=alert.node,
        node_id=alert.key.node_id,
        gpu=alert.key.gpu,
        since=alert.raised_at,
        said=alert.said,
        action_said=alert.action_said,
    )


def sort_alerts(alerts: Sequence[AlertView]) -> list[AlertView]:
    return sorted(alerts, key=lambda a: (SEVERITY_ORDER.get(a.severity, 9), -a.since))


class TelemetryLiveSource:
    """The page's source over the app's ``TelemetryService`` (``engine.telemetry``): the
    watched clusters, their nodes' live windows in the order the cluster lists its nodes,
    and the open alerts from the alert book (memory only)."""

    def __init__(self, telemetry: TelemetryService) -> None:
        self.telemetry = telemetry

    def clusters(self) -> list[ClusterChoice]:
        return [
            ClusterChoice(c.id, c.name, c.gpu, len(c.nodes), c.gpu_count)
            for c in self.telemetry.watched()
        ]

    def snapshot(self, cluster_id: int) -> ClusterFrame | None:
        record = next((c for c in self.telemetry.watched() if c.id == cluster_id), None)
        if record is None:
            return None
        opts = self.telemetry.options
        nodes = tuple(node_series(live) for live in self.telemetry.fed_nodes(cluster_id))
        return ClusterFrame(
            cluster_id=cluster_id,
            name=record.name,
            interval_s=opts.interval_s,
            window_s=opts.ring_capacity * opts.interval_s,
            nodes=nodes,
        )

    def alerts(self, cluster_id: int) -> list[AlertView]:
        return sort_alerts([alert_view(a) for a in self.telemetry.open_alerts(cluster_id)])


class BuffersLiveSource:
    """A source over bare ``LiveBuffers`` (benchmarks, tests, replays): clusters are named
    by the caller, alerts are whatever ``alerts_for`` returns."""

    def __init__(
        self,
        live: LiveBuffers,
        clusters: Sequence[ClusterChoice],
        *,
        interval_s: float = 1.0,
        alerts_for: Callable[[int], Sequence[AlertView]] | None = None,
    ) -> None:
        self.live = live
        self._clusters = list(clusters)
        self.interval_s = interval_s
        self._alerts_for = alerts_for
        self.snapshots = 0  # how often a frame was pulled (the page must not pull while hidden)

    def clusters(self) -> list[ClusterChoice]:
        return list(self._clusters)

    def set_clusters(self, clusters: Sequence[ClusterChoice]) -> None:
        """The clusters offered from now on (a replay or test adding or ending one)."""
        self._clusters = list(clusters)

    def snapshot(self, cluster_id: int) -> ClusterFrame | None:
        choice = next((c for c in self._clusters if c.id == cluster_id), None)
        if choice is None:
            return None
        self.snapshots += 1
        nodes = tuple(node_series(n) for n in self.live.nodes(cluster_id))
        return ClusterFrame(
            cluster_id=cluster_id,
            name=choice.name,
            interval_s=self.interval_s,
            window_s=self.live.capacity * self.interval_s,
            nodes=nodes,
        )

    def alerts(self, cluster_id: int) -> list[AlertView]:
        if self._alerts_for is None:
            return []
        return sort_alerts(list(self._alerts_for(cluster_id)))


def short_node_name(name: str, cluster: str = "", limit: int = 12) -> str:
    """A node's name for a narrow label: without the cluster's name in front, without a
    domain, and at most ``limit`` characters (``llama-13b-node3.example.com`` -> ``node3``)."""
    short = name.split(".", 1)[0] if not name.replace(".", "").isdigit() else name
    if cluster and short.startswith(cluster) and len(short) > len(cluster) + 1:
        short = short[len(cluster) :].lstrip("-_.")
    return short if len(short) <= limit else "…" + short[-(limit - 1) :]


def wall_clock() -> float:
    return time.time()
