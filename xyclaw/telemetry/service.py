"""The telemetry service: watches clusters, keeps their live windows, saves, rolls up, alerts.

One supervisor thread drives every node collector (a few ticks a second),
evaluates the peer and network rules once per interval, hands the sample
batches to the store every ``flush_interval_s`` and rolls up and trims in
the background. Views read :attr:`TelemetryService.live` at their own pace.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from xyclaw.errors import UsageError, XyclawError
from xyclaw.events import EventBus
from xyclaw.parsers.joblog import JobLogParser, NcclTimeoutEvent, ProgressEvent
from xyclaw.parsers.steptimes import parse_step_time
from xyclaw.records import ClusterRecord, ClusterStore, NodeRecord
from xyclaw.remote.node_access import NodeAccess
from xyclaw.store import Store
from xyclaw.store.event_log import EventLog
from xyclaw.store.samples import MISSING, GpuRecords
from xyclaw.store.tuning import TuningTables
from xyclaw.telemetry.alerts import Alert, AlertBook, AlertSink, Finding, alert_from_row
from xyclaw.telemetry.batch import SampleBatcher
from xyclaw.telemetry.collector import CollectorContext, NodeCollector
from xyclaw.telemetry.fabric_fallback import Estimate, JobPace, estimate_busbw, node_tx_rate
from xyclaw.telemetry.health import cluster_health
from xyclaw.telemetry.link import NodeLink
from xyclaw.telemetry.live import LiveBuffers, NodeLive
from xyclaw.telemetry.options import TelemetryOptions
from xyclaw.telemetry.rollup import Rollups
from xyclaw.telemetry.rules import (
    FabricBaseline,
    NodeFabric,
    NodeStats,
    TrafficWatch,
    fabric_regression_findings,
    link_regression_findings,
    nccl_timeout_finding,
    node_stats,
    rank_straggler_finding,
    straggler_findings,
    unreachable_finding,
)
from xyclaw.telemetry.stragglers import RankTimes

log = logging.getLogger(__name__)


#: The alert scopes of one node (see AlertBook): per instant, kernel log, reachability,
#: network, its links, peers.
NODE_SCOPES = ("gpu", "xid", "reach", "net", "links", "peer")


@dataclass
class _Watched:
    cluster: ClusterRecord
    collectors: list[NodeCollector] = field(default_factory=list)


class TelemetryService:
    """Collects from every watched cluster; thread-safe; ``close()`` when done."""

    def __init__(
        self,
        store: Store,
        access: NodeAccess,
        clusters: ClusterStore,
        events: EventLog,
        bus: EventBus,
        options: TelemetryOptions | None = None,
        *,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.options = options or TelemetryOptions()
        self.store = store
        self.access = access
        self.clusters = clusters
        self.events = events
        self.bus = bus
        self.clock = clock
        self.live = LiveBuffers(self.options.ring_capacity)
        self.batcher = SampleBatcher(store)
        self.sink = AlertSink(events, bus)
        self.alerts = AlertBook(self.sink, self.options.thresholds.timing, clock)
        self.rollups = Rollups(store, clock)
        self._executor = ThreadPoolExecutor(
            max_workers=self.options.workers, thread_name_prefix="telemetry"
        )
        self._ctx = CollectorContext(
            options=self.options,
            live=self.live,
            batcher=self.batcher,
            book=self.alerts,
            store=store,
            executor=self._executor,
            job_running=self.job_running,
            clock=clock,
        )
        self._lock = threading.RLock()
        self._baselines: dict[int, tuple[float, FabricBaseline | None]] = {}
        self._watched: dict[int, _Watched] = {}
        self._jobs: dict[int, set[int | None]] = {}
        self._job_parsers: dict[tuple[int, int | None], JobLogParser] = {}
        self._job_timeouts: dict[tuple[int, int | None], list[Finding]] = {}
        self._rank_times: dict[tuple[int, int | None], RankTimes] = {}
        self._paces: dict[int, JobPace] = {}  # a cluster's job by its log (issue 34, b34)
        self._ended_jobs: set[tuple[int, int | None]] = set()
        self._traffic = TrafficWatch()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._closed = False

    # -- watching ---------------------------------------------------------------------------
    def watch(self, cluster: ClusterRecord | str | int) -> ClusterRecord:
        """Start collecting from every running node of a cluster. Watching a watched cluster
        again picks up nodes that were replaced, added or removed since."""
        record = self._record(cluster)
        if not record.live:
            raise UsageError(
                f"cluster {record.name} is {record.state}; only live clusters can be watched",
                hint="`xyclaw clusters` lists the live ones",
            )
        nodes = [n for n in record.nodes if n.state == "running" and n.ssh_host]
        if not nodes:
            raise UsageError(
                f"cluster {record.name} has no running node to watch yet",
                hint="wait until it is ready (`xyclaw clusters`)",
            )
        gone: list[NodeCollector] = []
        with self._lock:
            if self._closed:
                raise UsageError("telemetry is closed", hint="this is a bug: report it")
            watched = self._watched.get(record.id)
            if watched is None:
                self._restore_alerts(record.id)
                watched = self._watched[record.id] = _Watched(record)
            watched.cluster = record
            have = {c.ref.node_id: c for c in watched.collectors}
            wanted = {n.id for n in nodes}
            gone = [c for nid, c in have.items() if nid not in wanted]
            kept = [c for c in watched.collectors if c.ref.node_id in wanted]
            for node in nodes:
                if node.id not in have:
                    link = NodeLink(self.access, record, node)
                    kept.append(NodeCollector(self._ctx, record, node, link))
            watched.collectors = kept
            self._start_thread()
        self._stop_collectors(gone)
        for c in gone:  # the node left the cluster: so did the causes of its alerts
            for kind in NODE_SCOPES:
                self.alerts.close_scope((kind, record.id, c.ref.node_id))
            self.live.drop_node(record.id, c.ref.node_id)
        return record

    def unwatch(self, cluster_id: int, *, released: bool = False) -> None:
        """Stop collecting from a cluster; what was collected stays saved. Its open alerts
        stay open for the next watch, or clear now if the cluster was ``released``."""
        with self._lock:
            watched = self._watched.pop(cluster_id, None)
        if watched is None:
            return
        self._stop_collectors(watched.collectors)
        self.batcher.flush()
        if released:
            self.alerts.close_cluster(cluster_id)
        else:
            self.alerts.forget_cluster(cluster_id)
        self.live.drop(cluster_id)

    def feed(
        self, cluster: ClusterRecord, node: NodeRecord, ts_ms: int, records: GpuRecords
    ) -> None:
        """One instant of a node's GPUs read elsewhere (a Slurm job's sampler files, read
        over the login node): into the live window and the stored samples as a collector's
        would go. The cluster is listed as watched, with no collector of its own."""
        with self._lock:
            if self._closed:
                return
            watched = self._watched.get(cluster.id)
            if watched is None:
                watched = self._watched[cluster.id] = _Watched(cluster)
            elif not watched.collectors:
                watched.cluster = cluster
            self._start_thread()
        live = self.live.node(cluster.id, node.id, node.name, max(len(records), 1))
        live.add_gpu(ts_ms, records)
        self.batcher.add_gpu(cluster.id, ts_ms, node.id, records)

    def fed_nodes(self, cluster_id: int) -> list[NodeLive]:
        """The live windows of a cluster's nodes (those fed, or its collectors')."""
        collectors = self.collectors(cluster_id)
        if collectors:
            return [c.live for c in collectors]
        return list(self.live.nodes(cluster_id))

    def watched(self) -> list[ClusterRecord]:
        with self._lock:
            return [w.cluster for w in self._watched.values()]

    def collectors(self, cluster_id: int) -> list[NodeCollector]:
        with self._lock:
            watched = self._watched.get(cluster_id)
            return list(watched.collectors) if watched else []

    def _record(self, cluster: ClusterRecord | str | int) -> ClusterRecord:
        if isinstance(cluster, ClusterRecord):
            return self.clusters.get(cluster.id)
        if isinstance(cluster, int):
            return self.clusters.get(cluster)
        return self.clusters.find(cluster)

    def _restore_alerts(self, cluster_id: int) -> None:
        for row in reversed(self.events.open_alerts(cluster_id)):  # oldest first
            alert = alert_from_row(row)
            if alert is not None:
                self.alerts.restore(alert)

    # -- jobs -----------------------------------------------------------------------------------
    def job_started(
        self, cluster_id: int, job_id: int | None = None, nccl_env: Mapping[str, str] | None = None
    ) -> None:
        """A job runs on the cluster from now on (idle GPUs and quiet networks matter).
        ``nccl_env``: the NCCL variables it was launched with, for the fabric rule."""
        with self._lock:
            if nccl_env is not None:
                pace = self._paces.get(cluster_id)
                if pace is None:
                    pace = self._paces[cluster_id] = JobPace()
                pace.launch_env = dict(nccl_env)
            self._jobs.setdefault(cluster_id, set()).add(job_id)
            self._ended_jobs.discard((cluster_id, job_id))
        self.alerts.close_scope(("job", cluster_id, job_id))

    def job_ended(self, cluster_id: int, job_id: int | None = None) -> None:
        """The job stopped: its log's alerts clear, and lines still coming from it are
        ignored until a job of that id starts again."""
        with self._lock:
            jobs = self._jobs.get(cluster_id, set())
            jobs.discard(job_id)
            if not jobs:
                self._jobs.pop(cluster_id, None)
                self._paces.pop(cluster_id, None)
            self._job_parsers.pop((cluster_id, job_id), None)
            self._job_timeouts.pop((cluster_id, job_id), None)
            self._rank_times.pop((cluster_id, job_id), None)
            self._ended_jobs.add((cluster_id, job_id))
        self.alerts.close_scope(("job", cluster_id, job_id))
        self.alerts.close_scope(("ranks", cluster_id, job_id))

    def job_running(self, cluster_id: int) -> bool:
        with self._lock:
            return bool(self._jobs.get(cluster_id))

    def feed_job_log(self, cluster_id: int, line: str, job_id: int | None = None) -> None:
        """One line of a job's log (any rank, any launcher prefix): an NCCL watchdog
        timeout raises an alert; progress after it clears the alert. A per-rank step
        timing (issue 34) scores the ranks against each other: a slow one is a straggler."""
        key = (cluster_id, job_id)
        timing = parse_step_time(line)
        with self._lock:
            if key in self._ended_jobs:  # the last lines of an ended job say nothing new
                return
            pace = self._paces.get(cluster_id)
            if pace is None:
                pace = self._paces[cluster_id] = JobPace()
            if timing is not None:
                pace.add_compute(self.clock(), timing.step, timing.rank, timing.seconds)
            elif pace.add_env_line(line):
                return
            if timing is not None:
                times = self._rank_times.setdefault(key, RankTimes())
                times.add(timing.rank, timing.seconds)
                slow = [
                    rank_straggler_finding(
                        cluster_id, job_id, s.rank, s.seconds, s.relative, s.individual
                    )
                    for s in times.stragglers(self.options.thresholds.rank_straggler_score)
                ]
            else:
                parser = self._job_parsers.get(key)
                if parser is None:
                    parser = self._job_parsers[key] = JobLogParser()
                event = parser.feed(line)
                if isinstance(event, ProgressEvent) and event.iteration_time_s:
                    pace.add_step_time(self.clock(), event.iteration_time_s)
                findings: list[Finding] | None
                if isinstance(event, NcclTimeoutEvent):
                    found = self._job_timeouts.setdefault(key, [])
                    if not found:
                        found.append(nccl_timeout_finding(cluster_id, job_id, event))
                    findings = list(found)
                elif isinstance(event, ProgressEvent) and key in self._job_timeouts:
                    del self._job_timeouts[key]
                    findings = None
                else:
                    return
        if timing is not None:
            self.alerts.update(("ranks", cluster_id, job_id), slow)
        elif findings is None:  # the job moved on: the stall is over
            self.alerts.close_scope(("job", cluster_id, job_id))
        else:
            self.alerts.update(("job", cluster_id, job_id), findings)

    # -- reading ----------------------------------------------------------------------------------
    def open_alerts(self, cluster_id: int | None = None) -> list[Alert]:
        return self.alerts.open_alerts(cluster_id)

    def latest(self, cluster_id: int) -> list[tuple[NodeCollector, int, GpuRecords]]:
        """Each node's newest instant: (collector, ts_ms, records)."""
        out = []
        for collector in self.collectors(cluster_id):
            got = collector.live.latest()
            if got is not None:
                out.append((collector, got[0], got[1]))
        return out

    def watching(self, cluster_id: int) -> bool:
        """True while the cluster is watched (its nodes stream samples)."""
        with self._lock:
            return cluster_id in self._watched

    def gpu_utilization(
        self, cluster_id: int, max_age_s: float | None = None
    ) -> list[float] | None:
        """Every GPU's latest utilization (percent) on a watched cluster, from the live window,
        with no command on the nodes: what the guard's idle check reads. None when the
        cluster is not watched or a node has sent nothing for ``max_age_s`` (by default two
        sample intervals and two seconds)."""
        collectors = self.collectors(cluster_id)
        if not collectors:
            return None
        fresh_s = max_age_s if max_age_s is not None else 2 * self.options.interval_s + 2.0
        now = self.clock()
        missing = MISSING["util"]
        values: list[float] = []
        for collector in collectors:
            got = collector.live.latest()
            if got is None or collector.last_data is None or now - collector.last_data > fresh_s:
                return None
            values += [float(u) for u in got[1]["util"] if int(u) != missing]
        return values

    def wait_for_data(self, cluster_id: int, timeout: float, *, instants: int = 1) -> bool:
        """Wait until every node of the cluster has sent ``instants`` instants (or timeout)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            collectors = self.collectors(cluster_id)
            if collectors and all(c.live.instants >= instants for c in collectors):
                return True
            time.sleep(0.05)
        return False

    def cluster_health(
        self, cluster: ClusterRecord | str | int, window_s: float = 300.0
    ) -> dict[str, Any]:
        """A small summary of a watched cluster for agents and people (see health.py)."""
        record = self._record(cluster)
        return cluster_health(self, record, window_s)

    def stats(self) -> dict[str, Any]:
        """Counters for the benchmark and ``xyclaw doctor``-style checks."""
        with self._lock:
            collectors = [c for w in self._watched.values() for c in w.collectors]
        lat = [c.latency_ms.view() for c in collectors]
        latencies = np.concatenate(lat) if lat else np.zeros(0)
        return {
            "nodes": len(collectors),
            "instants": sum(c.assembler.instants for c in collectors),
            "partial_instants": sum(c.assembler.partial_instants for c in collectors),
            "bad_lines": sum(c.assembler.bad_lines for c in collectors),
            "lost_instants": sum(c.lost_instants for c in collectors),
            "gaps": sum(c.gaps for c in collectors),
            "reconnects": sum(c.reconnects for c in collectors),
            "nic_blocks": sum(c.nic.blocks for c in collectors),
            "nic_bad_blocks": sum(c.nic.bad_blocks for c in collectors),
            "latency_ms_p50": float(np.percentile(latencies, 50)) if latencies.size else None,
            "latency_ms_p99": float(np.percentile(latencies, 99)) if latencies.size else None,
            "latency_samples": int(latencies.size),
            "alerts_raised": self.alerts.raised,
            "alerts_cleared": self.alerts.cleared,
        }

    def flush(self) -> None:
        """Hand every buffered sample and alert to the store and wait until they are saved."""
        self.batcher.flush()
        self.sink.flush()
        self.store.writer.flush()

    # -- the supervisor ---------------------------------------------------------------------------
    def _start_thread(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(
                target=self._loop, name="telemetry-supervisor", daemon=True
            )
            self._thread.start()

    def _loop(self) -> None:
        opts = self.options
        tick = max(0.05, min(0.25, opts.interval_s / 4))
        now = self.clock()
        next_rules = now + opts.rules_every_s
        next_flush = now + opts.flush_interval_s
        next_rollup = now + opts.rollup_every_s
        rollup_busy = threading.Event()
        while not self._stop.wait(tick):
            now = self.clock()
            with self._lock:
                watched = list(self._watched.values())
            for w in watched:
                for collector in w.collectors:
                    collector.tick(now)
            try:
                if now >= next_rules:
                    next_rules = now + opts.rules_every_s
                    for w in watched:
                        self._cluster_rules(w, now)
                if now >= next_flush:
                    next_flush = now + opts.flush_interval_s
                    self.batcher.flush()
                if now >= next_rollup and not rollup_busy.is_set():
                    next_rollup = now + opts.rollup_every_s
                    rollup_busy.set()
                    ids = [w.cluster.id for w in watched]
                    self._executor.submit(self._maintain, ids, rollup_busy)
            except Exception:
                log.exception("telemetry supervisor step failed")

    def _maintain(self, cluster_ids: list[int], busy: threading.Event) -> None:
        opts = self.options
        try:
            for cluster_id in cluster_ids:
                self.rollups.roll(cluster_id, opts.rollup_lag_s)
            self.rollups.apply_retention(opts.raw_retention_hours, opts.rollup_retention_days)
        except Exception:
            log.exception("telemetry rollup or retention failed")
        finally:
            busy.clear()

    def _cluster_rules(self, watched: _Watched, now: float) -> None:
        th = self.options.thresholds
        cid = watched.cluster.id
        now_ms = int(now * 1000)
        fresh_s = 2 * self.options.interval_s + 1.0
        training = self.job_running(cid)
        stats: list[NodeStats] = []
        for c in watched.collectors:
            nid = c.ref.node_id
            silent = now - (c.last_data or c.watch_started)
            reach = (
                [unreachable_finding(c.ref, silent, c.last_error_said or c.last_error)]
                if silent >= th.unreachable_after_s
                else []
            )
            self.alerts.update(("reach", cid, nid), reach, now)
            if c.last_data is None or now - c.last_data > fresh_s:
                continue
            window = c.live.gpu_window(since_ms=now_ms - int(th.straggler_window_s * 1000))
            st = node_stats(c.ref, window)
            if st is not None:
                stats.append(st)
            if c.last_nic is not None and now - c.last_nic <= fresh_s:
                busy = st is not None and st.mean_util >= th.busy_util_percent
                nic_window = c.live.nic_window(since_ms=now_ms - int(th.nic_baseline_s * 1000))
                recent = node_stats(
                    c.ref, c.live.gpu_window(since_ms=now_ms - int(th.nic_recent_s * 1000))
                )
                nic_findings = self._traffic.findings(
                    c.ref,
                    nic_window,
                    now_ms,
                    training=training or busy,
                    gpu_util=float("nan") if recent is None else recent.mean_util,
                    th=th,
                )
                self.alerts.update(("net", cid, nid), nic_findings, now)
                links = link_regression_findings(
                    c.ref, nic_window, now_ms, training=training or busy, th=th
                )
                self.alerts.update(("links", cid, nid), links, now)
        self._fabric_rules(watched, now, training)
        peers = straggler_findings(stats, th)
        for st in stats:
            nid = st.node.node_id
            mine = [f for f in peers if f.key.node_id == nid]
            self.alerts.update(("peer", cid, nid), mine, now)

    def _fabric_rules(self, watched: _Watched, now: float, training: bool) -> None:
        """The job's bus bandwidth against the tune-time baseline (issue 34): NCCL's
        Inspector's where the job loads it, else the estimate from the log's step times and
        the NIC counters (:mod:`xyclaw.telemetry.fabric_fallback`)."""
        th = self.options.thresholds
        cid = watched.cluster.id
        now_ms = int(now * 1000)
        fresh_s = 2 * self.options.interval_s + 1.0
        nodes = [
            NodeFabric(
                c.ref,
                c.recent_busbw(now, th.fabric_window_s),
                c.live.nic_window(since_ms=now_ms - int(th.nic_recent_s * 1000) - 1000)
                if c.last_nic is not None and now - c.last_nic <= fresh_s
                else None,
                c.nic.errors.growth(th.fabric_counters_s),
            )
            for c in watched.collectors
        ]
        with self._lock:
            pace = self._paces.get(cid)
            job_env = pace.job_env() if pace is not None else {}
            env_complete = pace is not None and pace.launch_env is not None
            step = pace.step_s(now, th.fabric_steps_s) if pace is not None else None
            best = pace.best_step_s if pace is not None else None
            compute_grew = pace is not None and pace.compute_grew(now, th.fabric_steps_s)
        estimates: dict[int, Estimate] | None = None
        if not any(n.busbw_gbs is not None for n in nodes):
            baseline = self._baseline(cid, now) if training else None
            if baseline is None or step is None or compute_grew:
                self.alerts.update(("fabric", cid), [], now)
                return
            estimates = {}
            for i, n in enumerate(nodes):
                tx = node_tx_rate(n.nic, now_ms, th.nic_recent_s)
                found_estimate = estimate_busbw(tx, step, best, baseline.busbw_gbs)
                if found_estimate is not None:
                    estimates[n.node.node_id] = found_estimate
                    nodes[i] = NodeFabric(n.node, found_estimate.busbw_gbs, n.nic, n.errors)
        found = fabric_regression_findings(
            nodes,
            self._baseline(cid, now),
            now_ms,
            training=training,
            th=th,
            job_env=job_env,
            env_complete=env_complete,
            estimates=estimates,
        )
        self.alerts.update(("fabric", cid), found, now)

    def _baseline(self, cluster_id: int, now: float) -> FabricBaseline | None:
        """The cluster's tune-time bus bandwidth, read again every 30 s (a re-tune moves it)."""
        cached = self._baselines.get(cluster_id)
        if cached is not None and now - cached[0] < 30.0:
            return cached[1]
        try:
            found = TuningTables(self.store).fabric_baseline(cluster_id)
        except XyclawError as exc:
            log.debug("tune-time baseline of cluster %s: %s", cluster_id, exc.message)
            found = None
        baseline = None if found is None else FabricBaseline(found[0], tuple(found[1]))
        self._baselines[cluster_id] = (now, baseline)
        return baseline

    # -- closing ----------------------------------------------------------------------------------
    def _stop_collectors(self, collectors: list[NodeCollector]) -> None:
        if not collectors:
            return
        pool = ThreadPoolExecutor(max_workers=min(16, len(collectors)))
        try:
            wait([pool.submit(c.stop) for c in collectors], timeout=30)
        finally:
            pool.shutdown(wait=False)

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
            watched = list(self._watched.values())
            self._watched.clear()
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=10)
        self._stop_collectors([c for w in watched for c in w.collectors])
        self._executor.shutdown(wait=True, cancel_futures=True)
        try:
            self.batcher.flush()
        finally:
            self.sink.close()
