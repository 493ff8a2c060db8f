"""Healthy training runs raise no warning (issue 34): 50 simulated 10-minute runs with jitter.

Each run is a real 2 x 8 A800 torchrun job launched through the Engine on simulated nodes
over SSH (the cluster tuned once first, so the jobs get the tuned NCCL variables and the
fabric-regression rule has its nccl-tests baseline), with NCCL's Inspector on. Every run
draws its own seed, model size and step count, on top of the sim's own jitter (each
step's time +-1.5% over InfiniBand, each collective's bus bandwidth the same, measurement
noise on every node). Telemetry watches the whole time with DCGM's fields, the Inspector
records and every rule on, at the thresholds the fault tests use (tests/telemetry_live:
their faults are found within seconds under them), save a node's silence: SSH's, in real
time, which the sim's clock does not shorten (10 s here, see ``run``), and the idle-GPU
hold, which keeps its real length in the sim's time (300 s: 6 s at the 50x clock; the
runner notices a job's end in real time).

Time: the nodes' simulated clock runs at ``--time-scale`` of real time (0.02: a 10-minute
run takes 12 s, 50x faster); the telemetry samples every 0.2 s of real time. The figure is
every alert raised during the runs, by rule (target 0), and apart those raised while the
job trained (from its first step to its last): at a run's start and end the nodes begin
and finish a moment apart and the runner notices the end in real time, which the rules'
holds, shortened about 100x, see as idle or straggling GPUs. A control run follows with one
link at half speed: it must warn (``control_run_link_at_half_warned``), or the zero would
prove nothing. Each warning comes with its rule, its figures, when it came (seconds after
the run's first step and before its last) and the machine's load (``warning_details``).
Prints ONE JSON object last.

    .venv/bin/python bench/healthy_runs_bench.py [--runs 50] [--minutes 10] [--smoke]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
import random
import re
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

STEP_TIME = re.compile(r"step_time (\d+\.\d+)s")
INSPECTOR_ENV = (
    "env:\n"
    "  NCCL_PROFILER_PLUGIN: inspector\n"
    '  NCCL_INSPECTOR_ENABLE: "1"\n'
    '  NCCL_INSPECTOR_DUMP_THREAD_INTERVAL_MICROSECONDS: "500"\n'
    "  NCCL_INSPECTOR_DUMP_DIR: /tmp/xyclaw-inspector\n"
)
#: Model sizes a run draws from, with the sim's step time on 2 x 8 A800 at seq 4096.
MODELS = ("llama-7b", "llama-3b", "llama-1b")


def _spec(folder: Path, name: str, model: str, steps: int, seed: int) -> Any:
    from tests.jobs_runtime.helpers import TORCHRUN, write_spec

    ckpt = f"/shared/ckpt/{name}"
    script = (
        f"# sim: model={model} steps={steps} save_every=100000 log_every=1 seed={seed}\n"
        "print('the simulated node runs this as a training job')\n"
    )
    text = (
        f"name: {name}\nworkdir: work\ncheckpoint_dir: {ckpt}\n"
        f"run: {TORCHRUN.format(ckpt=ckpt)}\nrecovery: false\n{INSPECTOR_ENV}"
    )
    return write_spec(folder, text, script=script)


def _one(
    engine: Any,
    telemetry: Any,
    sc: Any,
    folder: Path,
    name: str,
    model: str,
    steps: int,
    rng: random.Random,
) -> tuple[Any, list[float], str, float, float]:
    """One job through the Engine, start to end; the telemetry told while it trains.
    Also returns when its first and its last step were seen (wall clock)."""
    from tests.jobs_runtime.helpers import finished

    spec = _spec(folder / name, name, model, steps, rng.randrange(1 << 30))
    job = engine.launch(spec, cluster=sc.name).result(120)
    told = False
    first = last = math.inf
    while not (record := engine.job(str(job.id))).state.finished:
        step = record.progress.step or 0
        if step and not told:
            telemetry.job_started(sc.cluster_id, job.id)  # as the runner tells its own
            told, first = True, time.time()
        if step >= steps and last == math.inf:
            last = time.time()
        time.sleep(0.05)
    done = finished(engine, job.id, timeout=600)
    telemetry.job_ended(sc.cluster_id, job.id)
    times = [
        float(m.group(1))
        for line in engine.job_logs(str(job.id))
        if (m := STEP_TIME.search(line.text))
    ]
    return job, times, done.state.value, first, min(last, time.time())


def _detail(t: float, e: Any, first: float, last: float) -> dict[str, Any]:
    """One warning: its rule, where, its figures, and when, in seconds after the job's first
    step and before its last (negative: outside the training), with the machine's load."""
    return {
        "rule": e.rule,
        "node": e.node,
        "gpu": e.gpu,
        "message": e.message,
        "data": e.data,
        "after_first_s": round(t - first, 2) if math.isfinite(first) else None,
        "before_last_s": round(last - t, 2) if math.isfinite(last) else None,
        "load": round(os.getloadavg()[0], 2),
    }


def run(args: argparse.Namespace) -> dict[str, Any]:
    from tests.jobs_runtime.conftest import make_engine
    from tests.support.simcluster import sim_cluster
    from tests.telemetry_live.conftest import FAST_THRESHOLDS, fast_options
    from xyclaw.events import Event
    from xyclaw.telemetry.alerts import AlertRaised
    from xyclaw.telemetry.rules import AlertThresholds
    from xyclaw.telemetry.service import TelemetryService

    thresholds = dataclasses.replace(
        FAST_THRESHOLDS,
        underuse_for_s=1.0,
        link_regression_for_s=1.0,
        rank_straggler_for_s=1.0,
        fabric_window_s=1.5,
        fabric_regression_for_s=1.0,
        # A node's silence is SSH's, in real time: the sim's clock does not shorten it. The
        # simulated nodes are threads of this very process, so on a loaded 2-core machine
        # the process's own stalls read as every node silent at once (1.7 s at a load of
        # 17); the fault tests' 1 s hold would call that an outage. 10 s, a third of the
        # 30 s a real cluster gets, is still far below any real outage.
        unreachable_after_s=10.0,
        # The idle-GPU hold, in the sim's time as long as a real cluster's (300 s: 6 s at
        # 0.02), not 500x shorter while the clock runs 50x faster. A job's end is noticed
        # by the runner in real time (1 to 2 s here at a load of 20 to 36), which the fault
        # tests' 0.6 s hold (30 simulated seconds) saw as GPUs idle under a running job.
        idle_for_s=max(FAST_THRESHOLDS.idle_for_s, AlertThresholds().idle_for_s * args.time_scale),
    )
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory(prefix="xyclaw-healthy-bench-") as tmp:
        folder = Path(tmp)
        os.environ["XYCLAW_HOME"] = str(folder / "home")
        engine = make_engine()
        raised: list[tuple[float, AlertRaised]] = []
        sub = engine.subscribe(
            Event, lambda e: raised.append((time.time(), e)) if isinstance(e, AlertRaised) else None
        )
        runs: list[dict[str, Any]] = []
        calibration_alerts = 0
        baseline = None
        inspector = dcgm = 0
        control: list[str] = []
        instants = None
        started = time.monotonic()
        try:
            with sim_cluster(engine, folder, nodes=2, gpus_per_node=8) as sc:
                for node in sc.nodes:
                    node.machine.time_scale = args.time_scale
                tuned = engine.tune(sc.name).result(300)
                baseline = tuned.verdict.peak_busbw
                telemetry = TelemetryService(
                    engine._store, engine._access, engine._clusters, engine._events, engine._bus,
                    fast_options(thresholds=thresholds, inspector_interval_s=0.3,
                                 dcgm_interval_s=0.5),
                )  # fmt: skip
                try:
                    telemetry.watch(sc.record)
                    telemetry.wait_for_data(sc.cluster_id, 15, instants=2)
                    step_s: dict[str, float] = {}
                    for model in MODELS:  # each model's step time, from a short run
                        _job, times, *_ = _one(
                            engine, telemetry, sc, folder, f"cal-{model}", model, 5, rng
                        )
                        step_s[model] = sum(times) / max(1, len(times))
                    calibration_alerts = len(raised)
                    for i in range(args.runs):
                        model = rng.choice(MODELS)
                        seconds = args.minutes * 60 * rng.uniform(0.95, 1.05)
                        steps = max(3, round(seconds / step_s[model]))
                        before = len(raised)
                        _job, times, state, first, last = _one(
                            engine, telemetry, sc, folder, f"healthy{i}", model, steps, rng
                        )
                        runs.append(
                            {
                                "run": i,
                                "model": model,
                                "state": state,
                                "steps": len(times),
                                "sim_minutes": round(sum(times) / 60, 2),
                                # the training's wall time: sim_minutes * 60 * time_scale when
                                # the sim keeps its clock
                                "train_wall_s": round(last - first, 2),
                                "alerts": [e.rule for _, e in raised[before:]],
                                "alert_details": [
                                    _detail(t, e, first, last) for t, e in raised[before:]
                                ],
                                # a run's first and last seconds: the nodes start and end a
                                # moment apart, and the runner's noticing the end is not
                                # sped up with the sim's clock while the rules' holds are
                                "alerts_while_training": [
                                    e.rule for t, e in raised[before:] if first <= t <= last
                                ],
                            }
                        )
                        print(json.dumps(runs[-1]), flush=True)
                    # the control: the same run with one link at half speed must warn, or
                    # the zero above would prove nothing
                    before = len(raised)
                    sc.nodes[1].faults.slow_nic(2, 0.5)
                    model = MODELS[0]
                    steps = max(3, round(max(args.minutes, 5.0) * 60 / step_s[model]))
                    _one(engine, telemetry, sc, folder, "control", model, steps, rng)
                    control = sorted({e.rule for _, e in raised[before:]})
                    seen = telemetry.collectors(sc.cluster_id)
                    inspector = sum(c.inspector_records for c in seen)
                    dcgm = sum(c.dcgm_readings for c in seen)
                    instants = telemetry.stats().get("instants")
                finally:
                    telemetry.close()
        finally:
            sub.unsubscribe()
            engine.close()
    full = [r for r in runs if r["sim_minutes"] >= 0.9 * args.minutes]
    healthy = [e for r in runs for e in r["alerts"]]
    by_rule = Counter(healthy)
    training = [e for r in runs for e in r["alerts_while_training"]]
    return {
        "bench": "healthy_runs",
        "runs": len(runs),
        "runs_at_full_length": len(full),
        "runs_succeeded": sum(r["state"] == "succeeded" for r in runs),
        "sim_minutes_per_run_mean": round(
            sum(r["sim_minutes"] for r in full) / max(1, len(full)), 2
        ),
        "time_scale": args.time_scale,
        "baseline_busbw_gbs": baseline,
        "inspector_records_read": inspector,
        "dcgm_readings": dcgm,
        "gpu_instants": instants,
        "warnings": len(healthy),
        "warnings_while_training": len(training),
        "warnings_while_training_by_rule": dict(Counter(training)),
        "warnings_in_calibration_runs": calibration_alerts,
        "warnings_by_rule": dict(by_rule),
        "warning_details": [dict(d, run=r["run"]) for r in runs for d in r["alert_details"]],
        "warnings_in_full_runs": sum(len(r["alerts"]) for r in full),
        "target_warnings": 0,
        "control_run_link_at_half_warned": control,
        "wall_s": round(time.monotonic() - started, 1),
        "load_avg_1_5_15": [round(x, 2) for x in os.getloadavg()],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--minutes", type=float, default=10.0, help="simulated minutes a run")
    parser.add_argument("--time-scale", type=float, default=0.02)
    parser.add_argument("--seed", type=int, default=34)
    parser.add_argument("--smoke", action="store_true", help="3 runs of 1 simulated minute")
    args = parser.parse_args()
    if args.smoke:
        args.runs, args.minutes = 3, 1.0
    print(json.dumps(run(args)), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
