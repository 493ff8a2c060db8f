"""GUI figures: Monitor page frame time, memory over an hour of telemetry, cold start, and
the History page's replay and comparison of one-hour 64 x 8-GPU jobs.

1. Frame time of the Monitor page for 64 nodes x 8 GPUs with 16 curves, fed
   from real ring buffers (``LiveBuffers``, a 15-minute window at 1 Hz) filled
   with synthetic samples. Each measured frame has one new instant on every
   node (the frame that has to redraw everything: at 5 frames a second the
   other four find nothing new and return at once). A frame is the page's
   ``tick()`` (pull views, update the heatmap image, bucket the curves) plus
   the event-loop turn that paints what changed. Median and p99 of wall time
   (target median <= 16 ms), and of the GUI thread's CPU time, which other
   processes on a busy machine inflate less (not at all only on an idle one: the
   load average is printed with the figures; p10 is the least disturbed).
2. Memory: an hour of telemetry at 1 Hz, run faster than real time, one frame
   per simulated second, with the picked GPUs, the alerts and the job box
   changing as they would. Reports the resident-memory growth from the end of
   the first window (the rings are full from there on) to the end; target
   <= 30 MB.
3. Cold start to the first paint of the main window: a fresh ``python -c``
   that goes the app's own way (``xyclaw.gui.app.run_app`` on a new engine)
   and stops at the window's first paint event. Median of ``--starts``.

4. History: opening a one-hour 64 x 8-GPU job's replay from its history database (the
   read, the heatmap and curves built, the first paint; target <= 300 ms) and comparing
   two such jobs (target <= 500 ms), medians of ``--history-runs``.

Offscreen (QT_QPA_PLATFORM=offscreen). Prints ONE JSON object last.

    .venv/bin/python bench/gui_bench.py [--frames 300] [--hour-s 3600] [--starts 3]
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

NODES, GPUS, CURVES = 64, 8, 16
WIDTH, HEIGHT = 1400, 900


def rss_mb() -> float:
    with open("/proc/self/status", encoding="ascii") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    return float("nan")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    k = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[k]


class SimClock:
    def __init__(self, t: float) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


def build_page(start_s: float) -> tuple[Any, Any, Any, SimClock, dict[str, Any]]:
    from PySide6.QtWidgets import QApplication

    from xyclaw.gui.charts.source import AlertView, BuffersLiveSource, JobStatus
    from xyclaw.gui.charts.synthetic import SyntheticCluster
    from xyclaw.gui.monitor_page import MonitorPage
    from xyclaw.telemetry.live import LiveBuffers

    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setStyleSheet((ROOT / "ui" / "themes" / "light.qss").read_text(encoding="utf-8"))
    live = LiveBuffers(900)
    sim = SyntheticCluster(live, nodes=NODES, gpus=GPUS, name="bench")
    clock = SimClock(start_s)
    state: dict[str, Any] = {"alerts": [], "job": None}

    def alerts_for(cluster_id: int) -> list[AlertView]:
        return list(state["alerts"])

    def job_feed(cluster_id: int) -> JobStatus | None:
        job = state["job"]
        return job if isinstance(job, JobStatus) else None

    source = BuffersLiveSource(live, [sim.choice], alerts_for=alerts_for)
    page = MonitorPage(source, job_feed=job_feed, clock=clock)
    page.timer.setInterval(10**7)  # the bench drives the frames itself
    page.resize(WIDTH, HEIGHT)
    page.show()
    app.processEvents()
    return app, page, sim, clock, state


def spread_selection(page: Any, sim: Any, offset: int = 0) -> None:
    """16 GPUs on 16 different nodes: the most work per frame for the curves."""
    keys = [(sim.node_id((offset + i) % NODES), (offset + i) % GPUS) for i in range(CURVES)]
    page.set_selection(keys)


def frame(app: Any, page: Any) -> tuple[float, float, float]:
    """(tick ms, tick + paint ms, tick + paint CPU ms) for one frame: the page's tick, then
    the event loop's turn that paints what it changed (once per view)."""
    c0 = time.thread_time()
    t0 = time.perf_counter()
    page.tick()
    t1 = time.perf_counter()
    app.processEvents()
    t2 = time.perf_counter()
    c1 = time.thread_time()
    return (t1 - t0) * 1000, (t2 - t0) * 1000, (c1 - c0) * 1000


def bench_frames(frames: int) -> tuple[dict[str, Any], Any]:
    start = time.time() - 900
    app, page, sim, clock, state = build_page(start)
    sim.fill(start, 900)  # a full window before the first frame
    clock.t = start
    for _ in range(3):
        page.tick()
        app.processEvents()
    spread_selection(page, sim)
    for _ in range(20):  # warm up: caches, first paths
        clock.t += 1
        sim.step(clock.t)
        frame(app, page)
    ticks, totals, cpu, quiet = [], [], [], []
    for _ in range(frames):
        clock.t += 1
        sim.step(clock.t)
        tick_ms, total_ms, cpu_ms = frame(app, page)
        ticks.append(tick_ms)
        totals.append(total_ms)
        cpu.append(cpu_ms)
        t0 = time.perf_counter()  # the same second again: nothing new
        page.tick()
        quiet.append((time.perf_counter() - t0) * 1000)
    shown = page.curves.selection
    load = os.getloadavg()[0]
    result = {
        "nodes": NODES,
        "gpus": NODES * GPUS,
        "curves": len(shown),
        "window_instants": 900,
        "frame_ms_median": round(percentile(totals, 50), 2),
        "frame_ms_p99": round(percentile(totals, 99), 2),
        "frame_cpu_ms_p10": round(percentile(cpu, 10), 2),
        "frame_cpu_ms_median": round(percentile(cpu, 50), 2),
        "frame_cpu_ms_p99": round(percentile(cpu, 99), 2),
        "tick_ms_median": round(percentile(ticks, 50), 2),
        "tick_ms_p99": round(percentile(ticks, 99), 2),
        "frame_without_new_samples_ms_median": round(percentile(quiet, 50), 3),
        "frames": frames,
        "load_avg_1min": round(load, 2),  # other processes on this machine while it ran
        "cpus": os.cpu_count(),
    }
    return result, (app, page, sim, clock, state)


def turn(app: Any) -> None:
    """What one turn of the app's event loop does: paint, and delete the widgets that were
    let go with deleteLater() (processEvents() alone leaves those to the loop, so without
    this a bench "leaks" every replaced alert card and legend chip)."""
    from PySide6.QtCore import QCoreApplication, QEvent

    app.processEvents()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)


def bench_memory(ctx: Any, hour_s: int) -> dict[str, Any]:
    from xyclaw.gui.charts.source import AlertView, JobStatus

    app, page, sim, clock, state = ctx
    for _ in range(900):  # one more full window so every ring has wrapped
        clock.t += 1
        sim.step(clock.t)
        page.tick()
    turn(app)
    gc.collect()
    before = rss_mb()
    samples = []
    for s in range(hour_s):
        clock.t += 1
        sim.step(clock.t)
        if s % 60 == 0:
            spread_selection(page, sim, offset=s // 60)
        if s % 30 == 0:
            n = (s // 30) % 4
            state["alerts"] = [
                AlertView(
                    1000 + s + i,
                    "gpu.straggler",
                    "warning",
                    f"bench-node{i}: GPU {i % 8} lags its peers",
                    "check its clocks and temperature",
                    sim.cluster_id,
                    f"bench-node{i}",
                    sim.node_id(i),
                    i % 8,
                    clock.t,
                )
                for i in range(n)
            ]
            state["job"] = JobStatus("bench-job", step=s, total_steps=hour_s, loss=2.0 - s / 1e4)
        page.tick()
        if s % 10 == 0:
            turn(app)
        if s % 600 == 0:
            samples.append(round(rss_mb() - before, 1))
    turn(app)
    gc.collect()
    after = rss_mb()
    return {
        "simulated_s": hour_s,
        "rss_mb_start": round(before, 1),
        "rss_mb_end": round(after, 1),
        "memory_growth_mb": round(after - before, 1),
        "memory_growth_every_10min_mb": samples,
    }


CHILD = r"""
import json, os, sys, time
began = time.time()
from PySide6.QtCore import QEvent, QObject
from xyclaw.config import load_config
from xyclaw.engine.compose import build_engine
from xyclaw.gui import app as gui_app
from xyclaw.paths import AppPaths
from xyclaw.store import Store
imported = time.time()
qapp = gui_app.create_app()
marks = {}
class FirstPaint(QObject):
    def eventFilter(self, obj, event):
        if event.type() == QEvent.Type.Paint and "paint" not in marks:
            window = getattr(obj, "window", None)
            if callable(window) and window() is not None and window().isWindow():
                marks["paint"] = time.time()
                qapp.quit()
        return False
watcher = FirstPaint()
qapp.installEventFilter(watcher)
paths = AppPaths.from_environment()
paths.ensure()
store = Store(paths.database)  # the engine's history, handed to the agents too
engine = build_engine(paths, load_config(paths.config_file), store=store)
built = time.time()
try:
    gui_app.run_app(engine, store)
finally:
    engine.close()
print(json.dumps({"began": began, "imported": imported, "engine": built,
                  "paint": marks.get("paint")}))
"""


def bench_cold_start(starts: int) -> dict[str, Any]:
    runs = []
    for _ in range(starts):
        with tempfile.TemporaryDirectory() as home:
            env = dict(os.environ)
            env.update(
                XYCLAW_HOME=home,
                XYCLAW_SECRETS_BACKEND="file",
                QT_QPA_PLATFORM="offscreen",
                PYTHONPATH=str(ROOT),
            )
            spawned = time.time()
            out = subprocess.run(
                [sys.executable, "-c", CHILD],
                env=env,
                cwd=ROOT,
                capture_output=True,
                text=True,
                timeout=120,
            )
            line = out.stdout.strip().splitlines()[-1] if out.stdout.strip() else ""
            if out.returncode != 0 or not line.startswith("{"):
                raise SystemExit(f"cold start run failed:\n{out.stdout}\n{out.stderr}")
            marks = json.loads(line)
            if marks["paint"] is None:
                raise SystemExit("the main window was never painted")
            runs.append(
                {
                    "to_first_paint_s": marks["paint"] - spawned,
                    "interpreter_s": marks["began"] - spawned,
                    "imports_s": marks["imported"] - marks["began"],
                    "engine_s": marks["engine"] - marks["imported"],
                    "window_s": marks["paint"] - marks["engine"],
                }
            )
    firsts = [r["to_first_paint_s"] for r in runs]
    mid = runs[firsts.index(percentile(firsts, 50))]
    return {
        "cold_start_first_paint_s_median": round(percentile(firsts, 50), 3),
        "cold_start_first_paint_s_runs": [round(f, 3) for f in firsts],
        "cold_start_breakdown_s": {
            k: round(v, 3) for k, v in mid.items() if k != "to_first_paint_s"
        },
    }


# -- History: a one-hour 64 x 8-GPU job's replay, and two such jobs compared -----------------


def make_review_history(path: Path, jobs: int = 2, seconds: int = 3600) -> list[int]:
    """A history database with ``jobs`` one-hour jobs, each on its own 64 x 8-GPU cluster
    with every GPU sampled once a second (the store's own packed rows) and a metrics point
    a second: what the History page reads for a large run. Returns the job ids."""
    import numpy as np

    from xyclaw.events import EventBus
    from xyclaw.providers import ClusterInfo, NodeInfo
    from xyclaw.records import ClusterState, ClusterStore
    from xyclaw.store import Store
    from xyclaw.store.jobs import JobTable
    from xyclaw.store.samples import empty_gpu_records

    start = 1_750_000_000.0
    ids = []
    with Store(path) as store:
        clusters = ClusterStore(store, EventBus(), lambda: start)
        table = JobTable(store, clock=lambda: start)
        clusters.ensure_provider("sim", "sim")
        rng = np.random.default_rng(7)
        for j in range(jobs):
            name = f"big-{j}"
            cid = clusters.add_intent(
                {"provider_id": "sim", "name": name, "gpu": "H100", "gpu_count": NODES * GPUS,
                 "gpus_per_node": GPUS, "fabric": "ib-ndr-400", "region": "r1",
                 "currency": "CNY", "price_per_gpu_hour_micros": 20_000_000,
                 "idempotency_key": f"bench-{j}"}
            )  # fmt: skip
            nodes = tuple(
                NodeInfo(external_id=f"{name}-{n}", rank=n, hostname=f"{name}-node{n}",
                         state="running", ssh_host="127.0.0.1", ssh_port=22, ssh_user="root")
                for n in range(NODES)
            )  # fmt: skip
            clusters.apply_provider_view(
                cid,
                ClusterInfo(external_id=f"{name}-x", name=name, state="running", gpu="H100",
                            gpu_count=NODES * GPUS, gpus_per_node=GPUS, fabric="ib-ndr-400",
                            region="r1", price_per_gpu_hour_micros=20_000_000, currency="CNY",
                            nodes=nodes),
            )  # fmt: skip
            clusters.update(cid, state=ClusterState.READY, ready_at=start)
            record = clusters.get(cid)
            t0_ms = int(start * 1000)
            for node in record.nodes:
                recs = empty_gpu_records(seconds * GPUS).reshape(seconds, GPUS)
                recs["gpu"] = np.arange(GPUS, dtype=np.uint8)
                recs["util"] = rng.integers(60, 100, size=(seconds, GPUS), dtype=np.uint8)
                recs["temp_c"], recs["power_dw"] = 60, 5000
                recs["mem_used_mib"], recs["mem_total_mib"] = 60_000, 81_559
                store.add_gpu_samples(
                    cid, ((t0_ms + i * 1000, node.id, recs[i]) for i in range(seconds))
                )
            job = table.insert(name=f"train-{j}", kind="train", spec_json="{}", state="running",
                               cluster_id=cid, rented_cluster=False)  # fmt: skip
            table.set_state(job, "succeeded", started_at=start, ended_at=start + seconds)
            table.upsert_attempt(job, 1, state="succeeded", started_at=start,
                                 ended_at=start + seconds, cluster_id=cid)  # fmt: skip
            loss = 3.0 * np.exp(-np.arange(seconds) / (900 + 300 * j)) + 1.2
            table.add_metrics(
                [(job, 1, start + i, i + 1, seconds, float(loss[i]), 1e-4, 1.0, 4.0e5, None, None)
                 for i in range(seconds)]
            )  # fmt: skip
            store.writer.call(lambda db: None)  # everything queued is written
            ids.append(job)
    return ids


def bench_history(runs: int, seconds: int = 3600) -> dict[str, Any]:
    """Opening a one-hour 64 x 8-GPU job's replay (read the history, build the charts, the
    first paint; target <= 300 ms) and comparing two such jobs (<= 500 ms); medians."""
    from PySide6.QtWidgets import QApplication

    from xyclaw.gui.history_compare import CompareView
    from xyclaw.gui.history_data import HistorySource
    from xyclaw.gui.history_replay import ReplayView

    app = QApplication.instance() or QApplication([])
    folder = Path(tempfile.mkdtemp(prefix="xyclaw-review-bench-"))
    path = folder / "history.db"
    made = time.perf_counter()
    job_a, job_b = make_review_history(path, seconds=seconds)
    built_s = time.perf_counter() - made
    replay_view, compare_view = ReplayView(), CompareView()
    for view in (replay_view, compare_view):
        view.resize(WIDTH - 200, HEIGHT - 260)
        view.show()
    app.processEvents()
    opened, compared = [], []
    for _ in range(runs):
        source = HistorySource(path)  # a fresh reader each time: nothing cached in the app
        t0 = time.perf_counter()
        replay = source.replay_job(job_a)
        replay_view.set_replay(replay)
        app.processEvents()  # the paint
        opened.append((time.perf_counter() - t0) * 1000)
        t0 = time.perf_counter()
        compare_view.set_comparison(source.compare([job_a, job_b]))
        app.processEvents()
        compared.append((time.perf_counter() - t0) * 1000)
        source.close()
    frame = replay_view.frame
    replay_view.close()
    compare_view.close()
    size_mb = path.stat().st_size / 1e6
    import shutil

    shutil.rmtree(folder, ignore_errors=True)
    return {
        "replay_open_ms_median": round(percentile(opened, 50), 1),
        "replay_open_ms_runs": [round(v, 1) for v in opened],
        "compare_ms_median": round(percentile(compared, 50), 1),
        "compare_ms_runs": [round(v, 1) for v in compared],
        "replay_gpus": frame.gpu_count if frame else 0,
        "replay_columns": replay_view.heatmap.image.shape[1],
        "review_history_mb": round(size_mb, 1),
        "review_history_built_s": round(built_s, 1),
    }


def main(argv: list[str] | None = None) -> int:
    global NODES  # the bench's size, read by every part of it
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--frames", type=int, default=300)
    parser.add_argument("--hour-s", type=int, default=3600, help="simulated seconds")
    parser.add_argument("--starts", type=int, default=3, help="cold starts to time")
    parser.add_argument("--history-runs", type=int, default=5, help="replays and comparisons")
    parser.add_argument("--history-s", type=int, default=3600, help="seconds of each past job")
    parser.add_argument("--nodes", type=int, default=NODES, help="nodes of 8 GPUs")
    parser.add_argument(
        "--smoke",
        action="store_true",
        help="4 nodes, 3 frames, 30 s, 1 start, 1 replay of a minute: that it runs",
    )
    args = parser.parse_args(argv)
    if args.smoke:
        args.nodes, args.frames, args.hour_s, args.starts = 4, 3, 30, 1
        args.history_runs, args.history_s = 1, 60
    NODES = args.nodes

    result: dict[str, Any] = {}
    frames, ctx = bench_frames(args.frames)
    result.update(frames)
    print(f"frames: {frames}", flush=True)
    memory = bench_memory(ctx, args.hour_s)
    result.update(memory)
    print(f"memory: {memory}", flush=True)
    ctx[1].close()
    cold = bench_cold_start(args.starts)
    result.update(cold)
    print(f"cold start: {cold}", flush=True)
    history = bench_history(args.history_runs, args.history_s)
    result.update(history)
    print(f"history: {history}", flush=True)
    result["targets"] = {
        "frame_ms_median": 16,
        "memory_growth_mb": 30,
        "replay_open_ms_median": 300,
        "compare_ms_median": 500,
    }
    result["ok"] = all(result[k] <= v for k, v in result["targets"].items())
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
