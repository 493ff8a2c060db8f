"""One node's collector: a streamed nvidia-smi, a NIC counter loop, the kernel log now and then.

The service's supervisor calls :meth:`NodeCollector.tick` a few times a
second; anything that can block (connecting, cancelling a stream, a
one-off command) runs on the service's worker pool, never on the
supervisor or on a stream's reader thread. When a stream ends or goes
silent the node is marked down, a gap opens in ``telemetry_gaps``, and the
collector reconnects with exponential backoff; the first sample after
that closes the gap.
"""

from __future__ import annotations

import logging
import math
import random
import re
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass

import numpy as np

from xyclaw.errors import RemoteError, XyclawError
from xyclaw.parsers.dcgm import DCGM_COMMAND, DcgmGpu, parse_dcgm
from xyclaw.parsers.nccl_inspector import inspector_command, parse_inspector
from xyclaw.parsers.nvsmi import QUERY_FIELDS, GpuSample, canonical_field, query_command
from xyclaw.records import ClusterRecord, NodeRecord
from xyclaw.store import Store
from xyclaw.store.samples import DCGM_FIELDS, GpuRecords, empty_dcgm_records
from xyclaw.store.telemetry import TelemetryTables
from xyclaw.telemetry.alerts import AlertBook
from xyclaw.telemetry.assemble import InstantAssembler
from xyclaw.telemetry.batch import SampleBatcher
from xyclaw.telemetry.link import NodeLink, Stream
from xyclaw.telemetry.live import LiveBuffers
from xyclaw.telemetry.nicstream import (
    NicBlockReader,
    NicRates,
    nic_source,
    read_once_command,
    stream_command,
)
from xyclaw.telemetry.options import TelemetryOptions
from xyclaw.telemetry.pack import GpuSlots, pack
from xyclaw.telemetry.ring import Ring
from xyclaw.telemetry.rules import NodeRef, instant_findings, xid_command, xid_findings
from xyclaw.wording import Said, said

log = logging.getLogger(__name__)

#: The parser's fields less the two nothing keeps (the name is in the inventory, the memory
#: clock moves only with pstate): every field costs parsing on each line of each node.
GPU_FIELDS = tuple(f for f in QUERY_FIELDS if f not in ("name", "clocks.mem"))
INVENTORY_COMMAND = (
    "TZ=UTC nvidia-smi --query-gpu=index,uuid,pci.bus_id,power.default_limit"
    " --format=csv,noheader,nounits"
)


#: Collectives smaller than this are latency-bound: their bus bandwidth says nothing of the
#: fabric (nccl-tests' peak, the baseline, is taken at hundreds of MB).
MIN_INSPECTED_BYTES = 32 * 1024 * 1024

#: What nvidia-smi prints (exit 2) for a field its driver does not know.
_REJECTED_FIELD_RE = re.compile(r'Field "([^"\n]{1,120})" is not a valid field to query')


def _wants_free_memory(dropped: set[str], fields: list[str]) -> bool:
    """The driver gives no total memory: ask for the free memory to add to the used."""
    return "memory.total" in dropped and "memory.used" in fields and "memory.free" not in fields


def gpu_stream_command(interval_s: float, fields: Sequence[str] = GPU_FIELDS) -> str:
    """nvidia-smi prints node-local time; run in UTC its stamps are epoch-true."""
    return "TZ=UTC " + query_command(fields, interval_ms=max(1, round(interval_s * 1000)))


def gpu_poll_command(fields: Sequence[str] = GPU_FIELDS) -> str:
    return "TZ=UTC " + query_command(fields)


@dataclass
class CollectorContext:
    """What every node collector of a service shares."""

    options: TelemetryOptions
    live: LiveBuffers
    batcher: SampleBatcher
    book: AlertBook
    store: Store
    executor: Executor
    job_running: Callable[[int], bool]
    clock: Callable[[], float] = time.time


class NodeCollector:
    def __init__(
        self, ctx: CollectorContext, cluster: ClusterRecord, node: NodeRecord, link: NodeLink
    ) -> None:
        self.ctx = ctx
        self.link = link
        self.ref = NodeRef(cluster.id, node.id, node.name, cluster.gpus_per_node)
        opts = ctx.options
        self.interval_s = opts.interval_s
        self.slots = GpuSlots(cluster.gpus_per_node)
        #: The fields asked of this node's driver, and those it does not give (unavailable,
        #: never zero): older drivers reject some of GPU_FIELDS.
        self.fields: tuple[str, ...] = GPU_FIELDS
        self.unavailable: tuple[str, ...] = ()
        self.assembler = self._new_assembler()
        self._bad_seen = 0
        self.nic_source = nic_source(cluster.fabric)
        self.nic = NicBlockReader(self.nic_source, self._on_nic, ctx.clock)
        self.live = ctx.live.node(cluster.id, node.id, node.name, cluster.gpus_per_node)
        self.gpu_mode = opts.gpu_mode
        self.nic_mode = opts.nic_mode
        self._rng = random.Random(node.id)
        self._lock = threading.Lock()
        self._instant_lock = threading.Lock()
        self._inflight: set[str] = set()
        self._gpu_stream: Stream | None = None
        self._nic_stream: Stream | None = None
        now = ctx.clock()
        self.watch_started = now
        self.stream_started = now
        self.state = "new"  # new, up, down, stopped
        self.last_data: float | None = None
        self.last_nic: float | None = None
        self.last_error: str | None = None
        self.last_error_said: Said | None = None  # last_error as a key and figures, if worded
        self.latest: tuple[GpuRecords, np.ndarray] | None = None
        self.failures = 0
        self.next_attempt = 0.0
        self.next_nic_attempt = 0.0
        self.next_poll = 0.0
        self.next_nic_poll = 0.0
        self.next_xid = now + min(opts.xid_interval_s, 2 * opts.interval_s)
        # DCGM's profiling fields (issue 34): unknown until asked, then "yes" or "no"
        self.dcgm = "unknown"
        self.dcgm_latest: tuple[float, dict[int, DcgmGpu]] | None = None
        self._dcgm_misses = 0
        self.next_dcgm = now + min(opts.dcgm_interval_s, 2 * opts.interval_s)
        # NCCL Inspector (issue 34): (arrival, bus bandwidth GB/s) of the job's collectives
        self.busbw: deque[tuple[float, float]] = deque(maxlen=512)
        self._inspector_seen: dict[tuple[str | None, int | None, int | None], int] = {}
        self.next_inspector = now
        self.inspector_records = 0  # read since the watch began (benchmarks, `top`)
        self.dcgm_readings = 0
        self.inventoried = False
        self.gap_open = False
        self.gaps = 0
        self.reconnects = 0
        self.lost_instants = 0
        self.latency_ms = Ring(8192, np.float64)
        self._prev_ts_ms: int | None = None
        self._stream_instants = 0
        self._empty_stream_ends = 0

    # -- the supervisor's tick ------------------------------------------------------------------
    def tick(self, now: float) -> None:
        if self.state == "stopped":
            return
        opts = self.ctx.options
        if self.gpu_mode == "stream":
            stream = self._gpu_stream
            silent = now - max(self.last_data or 0.0, self.stream_started)
            dead = stream is None or stream.done
            stale = not dead and silent > opts.stale_s
            if dead or stale:
                if self.state == "up":
                    why = said("alert.down.no_samples", silent=silent) if stale else None
                    self._went_down(why or self._ended_reason())
                elif self.state == "new" and (stale or stream is not None):
                    # Never came up: say why rather than stay "new" with no error.
                    self.state = "down"
                    self._set_error(
                        said("alert.down.no_samples", silent=silent)
                        if stale
                        else self._ended_reason()
                    )
                if now >= self.next_attempt:
                    self._submit("restart", lambda: self._restart(stale))
                self.assembler.sweep(self._sweep_s())
                return
        elif now >= self.next_poll and (self.state == "up" or now >= self.next_attempt):
            # On a fixed grid, so the ticks' granularity does not stretch the interval; a node
            # that stopped answering is tried again with the same backoff as a stream.
            due = self.next_poll + self.interval_s
            self.next_poll = due if due > now else now + self.interval_s
            self._submit("poll", self._poll_gpu)
        self.assembler.sweep(self._sweep_s())
        if self.state != "up":
            return
        if opts.nic and self.nic_mode == "stream":
            nic = self._nic_stream
            if (nic is None or nic.done) and now >= self.next_nic_attempt:
                self.next_nic_attempt = now + max(opts.reconnect_max_s / 4, 2 * self.interval_s)
                self._submit("nic", self._start_nic)
        elif opts.nic and now >= self.next_nic_poll:
            due = self.next_nic_poll + self.interval_s
            self.next_nic_poll = due if due > now else now + self.interval_s
            self._submit("nic", self._poll_nic)
        if now >= self.next_xid:
            self.next_xid = now + opts.xid_interval_s
            self._submit("xid", self._poll_xid)
        if now >= self.next_inspector and self.ctx.job_running(self.ref.cluster_id):
            self.next_inspector = now + opts.inspector_interval_s
            self._submit("inspector", self._poll_inspector)
        if now >= self.next_dcgm:
            # a node without DCGM is asked again now and then (DCGM may be installed later)
            every = opts.dcgm_interval_s * (12 if self.dcgm == "no" else 1)
            self.next_dcgm = now + every
            self._submit("dcgm", self._poll_dcgm)

    def _new_assembler(self) -> InstantAssembler:
        return InstantAssembler(
            self.fields,
            self.ref.expected_gpus,
            self._on_instant,
            split_s=self.interval_s / 2,
            clock=self.ctx.clock,
        )

    def _sweep_s(self) -> float:
        return max(0.2, 0.5 * self.interval_s)

    def _ended_reason(self) -> Said:
        stream = self._gpu_stream
        if stream is None:
            return said("alert.down.not_connected")
        code = stream.exit_code
        if code in (None, -1):
            return said("alert.down.connection_lost")
        unread = self.assembler.parser.last_error if self._stream_instants == 0 else None
        if unread:
            return said("alert.down.smi_exited_unread", code=code, unread=unread)
        return said("alert.down.smi_exited", code=code)

    def _set_error(self, reason: str | Said | None) -> None:
        """Why telemetry is not flowing: English in ``last_error``, the wording beside it."""
        self.last_error = None if reason is None else str(reason)
        self.last_error_said = reason if isinstance(reason, Said) else None

    def _submit(self, what: str, fn: Callable[[], None]) -> None:
        with self._lock:
            if what in self._inflight:
                return
            self._inflight.add(what)

        def run() -> None:
            try:
                fn()
            except Exception:
                log.exception("telemetry task %s on %s failed", what, self.ref.name)
            finally:
                with self._lock:
                    self._inflight.discard(what)

        try:
            self.ctx.executor.submit(run)
        except RuntimeError:  # the pool is shutting down
            with self._lock:
                self._inflight.discard(what)

    # -- state changes ---------------------------------------------------------------------------
    def _went_down(self, reason: str | Said) -> None:
        self.state = "down"
        self._set_error(reason)
        reason = str(reason)
        self.assembler.reset()
        self.nic.reset()
        self._prev_ts_ms = None
        start = self.last_data or self.ctx.clock()
        self.gap_open = True
        self.gaps += 1
        TelemetryTables(self.ctx.store).open_gap(
            self.ref.cluster_id, self.ref.node_id, start, reason
        )
        log.info("telemetry of %s stopped: %s", self.ref.name, reason)

    def _came_up(self, at: float) -> None:
        was = self.state
        self.state = "up"
        self.failures = 0
        self._set_error(None)
        if self.gap_open:
            self.gap_open = False
            self.close_gap(at)
        if was == "down":
            log.info("telemetry of %s is back", self.ref.name)

    def close_gap(self, at: float) -> None:
        TelemetryTables(self.ctx.store).close_gap(self.ref.cluster_id, self.ref.node_id, at)

    def _backoff(self) -> float:
        base = max(0.1, self.interval_s)
        delay = min(self.ctx.options.reconnect_max_s, base * 2.0 ** max(0, self.failures - 1))
        return delay * self._rng.uniform(0.8, 1.2)

    def _failed(self, exc: XyclawError) -> None:
        self.failures += 1
        self._set_error(exc.said or exc.message)
        self.next_attempt = self.ctx.clock() + self._backoff()
        if self.state == "up":
            self._went_down(exc.said or exc.message)
        elif self.state == "new":
            self.state = "down"
        log.debug("telemetry of %s: %s (attempt %d)", self.ref.name, exc.message, self.failures)

    # -- work on the pool -----------------------------------------------------------------------
    def _restart(self, stale: bool) -> None:
        old = (self._gpu_stream, self._nic_stream)
        ended_empty = (
            old[0] is not None
            and old[0].done
            and self._stream_instants == 0
            and old[0].exit_code not in (None, -1)
        )
        # Lines came, none readable: nvidia-smi printed fewer (or other) columns than asked.
        garbled = old[0] is not None and self._stream_instants == 0 and self.assembler.bad_lines
        self._gpu_stream = self._nic_stream = None
        for stream in old:
            if stream is not None and not stream.done:
                try:
                    stream.cancel(0.5)
                except Exception as exc:  # a hung node: nothing more to do than drop it
                    log.debug("cancelling a stream on %s: %s", self.ref.name, exc)
        if stale:
            self.link.drop()
        if self.state != "new" or self.failures:
            self.reconnects += 1
        try:
            if ended_empty or garbled:
                changed, why = self._check_fields()
                if why is not None:
                    self._failed(RemoteError(why, host=self.ref.name))
                    return
                if changed:
                    ended_empty = False  # stream again, with the fields the driver gives
                elif garbled:
                    unread = self.assembler.parser.last_error
                    self._set_error(said("alert.down.smi_unreadable", unread=unread))
            if ended_empty:  # it runs but prints no sample: wait longer each time
                self._empty_stream_ends += 1
                self.failures += 1
                if self._empty_stream_ends >= 2 and self._poll_works():
                    log.info(
                        "%s cannot stream nvidia-smi; polling every %.1f s instead",
                        self.ref.name,
                        self.interval_s,
                    )
                    self.gpu_mode = "poll"
                    self.nic_mode = "poll"
                    return
            if not self.inventoried or self.state == "down":
                self._inventory()
            self._stream_instants = 0
            self.stream_started = self.ctx.clock()
            self._gpu_stream = self.link.stream(
                gpu_stream_command(self.interval_s, self.fields), self._gpu_line
            )
            self.next_attempt = self.ctx.clock() + self._backoff()
            self.next_nic_attempt = 0.0  # the tick starts the NIC loop once samples flow
        except XyclawError as exc:
            self._failed(exc)

    def _check_fields(self) -> tuple[bool, str | None]:
        """Ask nvidia-smi once, with a header, for the fields in use, and keep those its
        driver gives: drop each it rejects (exit 2, ``Field "X" is not a valid field``) and
        each it leaves out. Returns (the fields changed, why nvidia-smi cannot be read)."""
        fields = list(self.fields)
        timeout = self.ctx.options.command_timeout_s
        for _attempt in range(len(fields) + 1):
            result = self.link.run("TZ=UTC " + query_command(fields, header=True), timeout)
            output = f"{result.stdout}\n{result.stderr}"
            rejected = {f for f in _REJECTED_FIELD_RE.findall(output) if f in fields}
            if rejected:
                fields = [f for f in fields if f not in rejected]
                if not fields:
                    return False, "nvidia-smi accepts none of the fields XyClaw reads"
                if _wants_free_memory(rejected, fields):
                    fields.append("memory.free")  # total = used + free (older P100 drivers)
                continue
            lines = [line.strip() for line in output.splitlines() if line.strip()]
            first = lines[0] if lines else ""
            if not result.ok:
                return False, f"nvidia-smi exited with {result.exit_code}" + (
                    f": {first[:200]}" if first else ""
                )
            printed = {canonical_field(cell) for cell in first.split(",")}
            left_out = [f for f in fields if canonical_field(f) not in printed]
            if len(left_out) == len(fields):
                return False, f"nvidia-smi printed no CSV XyClaw can read: {first[:200]!r}"
            fields = [f for f in fields if f not in left_out]
            if _wants_free_memory(set(left_out), fields):
                fields.append("memory.free")
                continue
            break
        if tuple(fields) == self.fields:
            return False, None
        self.fields = tuple(fields)
        derived = {"memory.total"} if {"memory.used", "memory.free"} <= set(fields) else set()
        self.unavailable = tuple(f for f in GPU_FIELDS if f not in self.fields and f not in derived)
        self.assembler = self._new_assembler()
        self._bad_seen = 0
        log.info(
            "%s: nvidia-smi does not give %s; those metrics are unavailable",
            self.ref.name,
            ", ".join(self.unavailable),
        )
        return True, None

    def _poll_works(self) -> bool:
        try:
            result = self.link.run(
                gpu_poll_command(self.fields), self.ctx.options.command_timeout_s
            )
        except RemoteError:
            return False
        return result.ok and bool(result.stdout.strip())

    def _inventory(self) -> None:
        result = self.link.run(INVENTORY_COMMAND, self.ctx.options.command_timeout_s)
        if not result.ok:
            return  # the stream will tell what is wrong; slots are then learnt from it
        for line in result.stdout.splitlines():
            cells = [c.strip() for c in line.split(",")]
            if len(cells) < 4 or not cells[1].startswith("GPU-"):
                continue
            try:
                limit = float(cells[3])
            except ValueError:
                limit = 0.0
            self.slots.learn(cells[1], cells[2], limit or None)
        self.inventoried = True

    def _start_nic(self) -> None:
        old, self._nic_stream = self._nic_stream, None
        if old is not None and not old.done:
            try:
                old.cancel(0.5)
            except Exception as exc:
                log.debug("cancelling the NIC stream on %s: %s", self.ref.name, exc)
        self.nic.reset()
        try:
            self._nic_stream = self.link.stream(
                stream_command(self.nic_source, self.interval_s), self._nic_line
            )
        except XyclawError as exc:
            log.debug("NIC counters of %s: %s", self.ref.name, exc.message)

    def _poll_gpu(self) -> None:
        try:
            result = self.link.run(
                gpu_poll_command(self.fields), self.ctx.options.command_timeout_s
            )
            if not result.ok:
                _changed, why = self._check_fields()
                if why is not None:
                    raise RemoteError(why, host=self.ref.name)
                return
        except XyclawError as exc:
            self._failed(exc)
            return
        if not self.inventoried:
            try:
                self._inventory()
            except XyclawError as exc:
                log.debug("GPU inventory of %s: %s", self.ref.name, exc.message)
        for line in result.stdout.splitlines():
            self.assembler.feed(line)
        self.assembler.sweep(0.0)

    def _poll_nic(self) -> None:
        try:
            result = self.link.run(
                read_once_command(self.nic_source), self.ctx.options.command_timeout_s
            )
        except XyclawError as exc:
            log.debug("NIC counters of %s: %s", self.ref.name, exc.message)
            return
        for line in result.stdout.splitlines():
            self.nic.feed(line)

    def _poll_xid(self) -> None:
        try:
            result = self.link.run(xid_command(), self.ctx.options.command_timeout_s)
        except XyclawError as exc:
            log.debug("kernel log of %s: %s", self.ref.name, exc.message)
            return
        if result.exit_code not in (0, 1):  # grep: 1 is "no XID lines"
            return
        findings = xid_findings(
            self.ref, result.stdout, self.slots, self.latest, self.ctx.options.thresholds
        )
        self.ctx.book.update(("xid", self.ref.cluster_id, self.ref.node_id), findings)

    def _poll_dcgm(self) -> None:
        """One reading of DCGM's SM, tensor pipe and DRAM activity (dcgmi, else the exporter)."""
        try:
            result = self.link.run(DCGM_COMMAND, self.ctx.options.command_timeout_s)
        except XyclawError as exc:
            log.debug("DCGM on %s: %s", self.ref.name, exc.message)
            return
        readings = [r for r in parse_dcgm(result.stdout) if r.complete]
        arrival = self.ctx.clock()
        if not readings:
            self._dcgm_misses += 1
            if self._dcgm_misses >= 2 or self.dcgm == "unknown":
                self.dcgm = "no"  # the power proxy stands in (rules.py)
                self.dcgm_latest = None
            return
        self._dcgm_misses = 0
        self.dcgm = "yes"
        # dcgmi numbers GPUs as nvidia-smi does; a GPU lost before collection shifts both
        by_slot = {r.gpu: r for r in readings if r.gpu < 255}
        records = empty_dcgm_records(max(by_slot) + 1)
        for slot, r in by_slot.items():
            for name in DCGM_FIELDS:
                value = getattr(r, name)
                if not math.isnan(value):
                    records[name][slot] = min(1000, round(value * 1000))
        ts_ms = round(arrival * 1000)
        self.live.add_dcgm(ts_ms, records)
        self.ctx.batcher.add_dcgm(self.ref.cluster_id, ts_ms, self.ref.node_id, records)
        self.dcgm_latest = (arrival, by_slot)
        self.dcgm_readings += 1

    def _poll_inspector(self) -> None:
        """The job's newest collectives as NCCL's Inspector plugin wrote them, if it runs."""
        try:
            result = self.link.run(inspector_command(), self.ctx.options.command_timeout_s)
        except XyclawError as exc:
            log.debug("NCCL Inspector on %s: %s", self.ref.name, exc.message)
            return
        arrival = self.ctx.clock()
        records = parse_inspector(result.stdout)
        # The folder keeps earlier jobs' files: only what was written lately (by the node's
        # clock, against its newest record) is the running job's.
        stamps = [r.ts_us for r in records if r.ts_us is not None]
        oldest_us = max(stamps) - self.ctx.options.thresholds.fabric_window_s * 1e6 if stamps else 0
        for record in records:
            if 0 < record.msg_bytes < MIN_INSPECTED_BYTES:
                continue  # small messages never reach the fabric's bandwidth
            if record.ts_us is not None and record.ts_us < oldest_us:
                continue
            who = (record.hostname, record.pid, record.rank)
            if record.seq and record.seq <= self._inspector_seen.get(who, 0):
                continue  # seen at an earlier look
            self._inspector_seen[who] = max(record.seq, self._inspector_seen.get(who, 0))
            self.busbw.append((arrival, record.busbw_gbs))
            self.inspector_records += 1

    def recent_busbw(self, now: float, window_s: float) -> float | None:
        """The median bus bandwidth of the collectives read over the last ``window_s``."""
        values = [b for at, b in list(self.busbw) if at >= now - window_s]
        return float(np.median(values)) if values else None

    def fresh_dcgm(self, now: float) -> dict[int, DcgmGpu] | None:
        """The last DCGM reading by slot while it is recent (three reading intervals)."""
        latest = self.dcgm_latest
        if latest is None or self.dcgm != "yes":
            return None
        at, by_slot = latest
        if now - at > 3 * self.ctx.options.dcgm_interval_s + self.ctx.options.command_timeout_s:
            return None
        return by_slot

    def stop(self) -> None:
        """Stop both streams (blocks briefly; call it from a worker)."""
        self.state = "stopped"
        for stream in (self._gpu_stream, self._nic_stream):
            if stream is not None and not stream.done:
                try:
                    stream.cancel(0.5)
                except Exception as exc:
                    log.debug("stopping a stream on %s: %s", self.ref.name, exc)
        if self.gap_open:
            self.gap_open = False
            self.close_gap(self.ctx.clock())

    # -- data, on the streams' threads ---------------------------------------------------------
    def _gpu_line(self, line: str) -> None:
        try:
            self.assembler.feed(line)
        except Exception:  # never let a line stop the stream
            log.exception("GPU line from %s", self.ref.name)

    def _nic_line(self, line: str) -> None:
        try:
            self.nic.feed(line)
        except Exception:
            log.exception("NIC line from %s", self.ref.name)

    def _on_instant(self, ts: float | None, samples: list[GpuSample], arrival: float) -> None:
        if self.state == "stopped":
            return
        with self._instant_lock:
            records, present = pack(samples, self.slots)
            bad = self.assembler.bad_lines
            unreadable, self._bad_seen = bad > self._bad_seen, bad
            ts_ms = round((ts if ts is not None else arrival) * 1000)
            if ts is not None:
                self.latency_ms.append((arrival - ts) * 1000.0)
            prev = self._prev_ts_ms
            interval_ms = self.interval_s * 1000
            if prev is not None and ts_ms - prev > 1.5 * interval_ms:
                self.lost_instants += round((ts_ms - prev) / interval_ms) - 1
            self._prev_ts_ms = ts_ms
            self._stream_instants += 1
            self._empty_stream_ends = 0
            self.live.add_gpu(ts_ms, records)
            self.ctx.batcher.add_gpu(self.ref.cluster_id, ts_ms, self.ref.node_id, records)
            self.latest = (records, present)
            self.last_data = arrival
            if self.state != "up":
                self._came_up(arrival)
            if unreadable and not present[: self.ref.expected_gpus].all():
                return  # a line could not be read: a parsing gap, not a GPU gone
            findings = instant_findings(
                self.ref,
                records,
                present,
                self.slots,
                job_running=self.ctx.job_running(self.ref.cluster_id),
                th=self.ctx.options.thresholds,
                dcgm=self.fresh_dcgm(arrival),
            )
            self.ctx.book.update(("gpu", self.ref.cluster_id, self.ref.node_id), findings, arrival)

    def _on_nic(self, rates: NicRates, arrival: float) -> None:
        ts_ms = round(rates.ts * 1000)
        self.live.add_nic(ts_ms, rates.names, rates.rx, rates.tx)
        self.ctx.batcher.add_nic(self.ref.cluster_id, ts_ms, self.ref.node_id, rates.rx, rates.tx)
        self.last_nic = arrival
