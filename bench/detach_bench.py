"""Detached multi-node jobs, their launcher killed at a random moment: is every job followed?

Each trial, in a data folder of its own with the simulated cloud in the background (fast
settings) and the background guard as a user gets it: ``xyclaw launch task.yaml --yes
--detach`` of a 2-node SkyPilot task whose ``run`` only echoes, the ``launch`` process
killed with SIGKILL at a random moment after it made its job (while it rents, bootstraps,
starts the ranks, or after it returned: uniformly over 1.1 x that part of a first trial,
which is not killed; ``--from-start`` counts from the command's start instead). Then,
without any other command, it waits for what the user would see:

- the job ends in its true state: ``succeeded`` once it got its cluster (whoever started
  its ranks), or ``failed`` saying its launcher ended before it got one; a job seen ended
  within 10 s of its last rank's end (the nodes' exit records: the job's recorded end);
- both ranks' lines in its log (a job that ran);
- every cluster rented for it released (the spec rents its own: released when done), and
  the cloud's ledger closed for each (nothing bills any more).

Prints one line per trial and a summary; the last line is one JSON object. ``--smoke``:
two trials. Run: ``.venv/bin/python bench/detach_bench.py [--trials 20] [--seed N]``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from xyclaw.paths import AppPaths  # noqa: E402

TASK = """\
name: echo2
resources:
  accelerators: A800:8
num_nodes: 2
run: |
  echo "rank $SKYPILOT_NODE_RANK says hello"
"""
END_WITHIN_S = 10.0
LIVE_STATES = ("requested", "provisioning", "bootstrapping", "ready", "releasing")


@dataclass
class Trial:
    number: int
    kill_after_s: float
    killed: bool = False  # the launcher was still running when the kill came
    launch_s: float | None = None  # how long the launch took when it returned by itself
    job_made_s: float | None = None  # when the launch had made its job
    job_state: str | None = None  # None: no job was made before the kill
    job_cause: str | None = None
    seen_end_after_s: float | None = None  # seen ended this long after the nodes' end
    ranks_logged: list[int] = field(default_factory=list)
    clusters: int = 0
    clusters_released: int = 0
    ledger_open: int = 0  # the cloud's billing entries still without an end
    took_s: float = 0.0
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("XYCLAW_")}
    env.update(
        XYCLAW_HOME=str(home),
        XYCLAW_SECRETS_BACKEND="file",
        XYCLAW_GUARD_AUTOSTART="1",
        XYCLAW_GUARD_POLL_S="0.5",
        XYCLAW_GUARD_LINGER_MINUTES="0.2",
        XYCLAW_RECONCILE_INTERVAL_S="5",
        NO_COLOR="1",
    )
    return env


def _xyclaw(
    env: dict[str, str], *args: str, timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "xyclaw.cli.main", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )


def _rows(paths: AppPaths) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The jobs and clusters as the history has them (read only; none before it exists)."""
    from xyclaw.errors import XyclawError
    from xyclaw.store.jobs import JobTable
    from xyclaw.store.replay import ReadOnlyStore, past_clusters

    if not paths.database.exists():
        return [], []
    try:
        store = ReadOnlyStore(paths.database)
    except XyclawError:
        return [], []
    try:
        return JobTable(store).rows(), past_clusters(store)
    except Exception:  # the first command is still making the database
        return [], []
    finally:
        store.close()


def _wait_for_job(paths: AppPaths, launch: subprocess.Popen[str], timeout_s: float) -> bool:
    """Until the launch has made its job (True), or ended, or ``timeout_s`` passed."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and launch.poll() is None:
        if _rows(paths)[0]:
            return True
        time.sleep(0.05)
    return False


def run_trial(
    number: int,
    folder: Path,
    kill_after_s: float,
    timeout_s: float = 90,
    *,
    after_job: bool = False,
) -> Trial:
    """One trial in ``folder`` (its own data folder); everything it started is stopped.
    ``after_job``: ``kill_after_s`` counts from the moment the launch made its job (the
    rent, bootstrap and start of the ranks), not from the command's start."""
    from xyclaw.billing.guard_process import stop_guard
    from xyclaw.providers.sim import SimProvider
    from xyclaw.sim.cloud.launcher import ensure_running
    from xyclaw.sim.cloud.launcher import stop as stop_cloud

    trial = Trial(number, round(kill_after_s, 2))
    home = folder / f"trial-{number}"
    env = _env(home)
    paths = AppPaths.under(home).ensure()
    spec = home / "task.yaml"
    spec.write_text(TASK)
    endpoint = ensure_running(paths.data_dir / "sim", fast=True)
    provider = SimProvider(endpoint.url, endpoint.token)
    started, wall_started = time.monotonic(), time.time()
    try:
        launch = subprocess.Popen(
            [sys.executable, "-m", "xyclaw.cli.main", "launch", str(spec), "--yes", "--detach"],
            cwd=ROOT,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        kill_at: float | None = started + kill_after_s
        if after_job:
            made = _wait_for_job(paths, launch, 60.0)
            kill_at = time.monotonic() + kill_after_s if made else None
        try:
            launch.wait(60.0 if kill_at is None else max(0.0, kill_at - time.monotonic()))
            trial.launch_s = round(time.monotonic() - started, 2)
        except subprocess.TimeoutExpired:
            trial.killed = True
            launch.send_signal(signal.SIGKILL)
            launch.wait(10)
        stderr = launch.stderr.read() if launch.stderr else ""
        if launch.stderr:
            launch.stderr.close()
        if not trial.killed and launch.returncode != 0:
            trial.problems.append(f"launch failed by itself: {stderr.strip()[-300:]}")
        deadline = time.monotonic() + timeout_s
        seen_end: float | None = None
        jobs: list[dict[str, Any]] = []
        clusters: list[dict[str, Any]] = []
        while time.monotonic() < deadline:
            jobs, clusters = _rows(paths)
            now = time.time()
            if jobs and seen_end is None and jobs[0]["state"] in ("succeeded", "failed",
                                                                  "cancelled"):  # fmt: skip
                seen_end = now
            live = [c for c in clusters if c["state"] in LIVE_STATES]
            if (not jobs or seen_end is not None) and not live:
                break
            time.sleep(0.2)
        trial.clusters = len(clusters)
        if jobs:
            trial.job_made_s = round(float(jobs[0]["created_at"]) - wall_started, 2)
        trial.clusters_released = sum(c["state"] not in LIVE_STATES for c in clusters)
        if trial.clusters_released < trial.clusters:
            trial.problems.append(f"{trial.clusters - trial.clusters_released} cluster(s) live")
        entries = provider.billing()
        trial.ledger_open = sum(1 for e in entries if not e.end)
        if trial.ledger_open:
            trial.problems.append(f"{trial.ledger_open} ledger entr(ies) still billing")
        if jobs:
            job = jobs[0]
            trial.job_state, trial.job_cause = job["state"], job.get("cause")
            if seen_end is None:
                trial.problems.append(f"the job stayed {job['state']}")
            elif job["state"] == "succeeded":
                trial.seen_end_after_s = round(seen_end - float(job["ended_at"]), 2)
                if trial.seen_end_after_s > END_WITHIN_S:
                    trial.problems.append(f"seen ended {trial.seen_end_after_s} s after its end")
                logged = _xyclaw(env, "logs", str(job["id"])).stdout
                trial.ranks_logged = [r for r in (0, 1) if f"rank {r} says hello" in logged]
                if trial.ranks_logged != [0, 1]:
                    trial.problems.append(f"only ranks {trial.ranks_logged} in its log")
            elif job["state"] == "failed" and job.get("cluster_id") is None:
                pass  # its launcher ended while it rented: nothing of it ran
            else:
                trial.problems.append(f"the job {job['state']}: {job.get('error')}")
    finally:
        trial.took_s = round(time.monotonic() - started, 1)
        provider.close()
        try:
            stop_guard(paths)
        except Exception as exc:  # a bench reports, it does not stop
            trial.problems.append(f"stopping the guard: {exc}")
        stop_cloud(paths.data_dir / "sim")
    return trial


CALIBRATE_S = 120.0  # the first trial is never killed: its launch time sets the window


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", type=int, default=20)
    parser.add_argument("--seed", type=int, default=27)
    parser.add_argument("--smoke", action="store_true", help="two trials")
    parser.add_argument(
        "--kill-window",
        type=float,
        nargs=2,
        metavar=("FROM", "TO"),
        help="seconds within which the launch is killed (uniformly), counted from the moment it"
        " made its job; default: 0 to 1.1 x the rest of the first trial's launch (that trial is"
        " not killed)",
    )
    parser.add_argument(
        "--from-start",
        action="store_true",
        help="count the kill moment from the command's start (most kills then come before the"
        " job exists, while Python starts and the guard is started)",
    )
    args = parser.parse_args()
    trials = 2 if args.smoke else args.trials
    with tempfile.TemporaryDirectory(prefix="xyclaw-detach-") as tmp:
        results: list[Trial] = []
        rng = random.Random(args.seed)
        window: tuple[float, float] | None = tuple(args.kill_window) if args.kill_window else None
        for i in range(trials):
            if window is None:
                trial = run_trial(i + 1, Path(tmp), CALIBRATE_S)
                launch_s = trial.launch_s or 6.0
                if args.from_start:
                    window = (0.2, 1.1 * launch_s)
                else:
                    window = (0.0, 1.1 * max(0.5, launch_s - (trial.job_made_s or 0.0)))
            else:
                at = rng.uniform(*window)
                trial = run_trial(i + 1, Path(tmp), at, after_job=not args.from_start)
            results.append(trial)
            verdict = "ok" if trial.ok else "; ".join(trial.problems)
            print(
                f"trial {trial.number:2d}: kill at {trial.kill_after_s:5.2f} s"
                f" {'after its job was made' if not args.from_start and i else 'after start'}"
                f" ({'killed' if trial.killed else 'had returned'}), job {trial.job_state}"
                f" seen {trial.seen_end_after_s} s after its end, ranks {trial.ranks_logged},"
                f" clusters released {trial.clusters_released}/{trial.clusters}"
                f" [{trial.took_s} s]: {verdict}",
                flush=True,
            )
    ok = sum(t.ok for t in results)
    lags = [t.seen_end_after_s for t in results if t.seen_end_after_s is not None]
    summary = {
        "bench": "detach",
        "trials": trials,
        "ok": ok,
        "killed": sum(t.killed for t in results),
        "succeeded": sum(t.job_state == "succeeded" for t in results),
        "failed_before_cluster": sum(t.job_state == "failed" for t in results),
        "no_job": sum(t.job_state is None for t in results),
        "max_seen_end_after_s": max(lags) if lags else None,
        "kill_window_s": window,
        "target_s": END_WITHIN_S,
        "results": [asdict(t) for t in results],
    }
    print(f"{ok}/{trials} trials ok; the slowest end seen {summary['max_seen_end_after_s']} s")
    print(json.dumps(summary))
    return 0 if ok == trials else 1


if __name__ == "__main__":
    raise SystemExit(main())
