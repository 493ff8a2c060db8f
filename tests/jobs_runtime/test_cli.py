"""The jobs commands, run as a user runs them (a separate `xyclaw` process each), against a
cluster of simulated nodes: launch, jobs, jobs show, logs -f, cancel, serve."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

from tests.jobs_runtime.conftest import MakeCluster
from tests.jobs_runtime.helpers import train_spec, write_spec
from xyclaw.engine import Engine
from xyclaw.paths import AppPaths
from xyclaw.records.jobs import JobState

ROOT = Path(__file__).resolve().parents[2]


def env(*, guard: bool = False) -> dict[str, str]:
    """This test's environment (its own XYCLAW_HOME), without a background guard unless
    ``guard`` (a launch with --detach or --json starts one to follow the job; the root
    conftest stops it)."""
    return {**os.environ, "XYCLAW_GUARD_AUTOSTART": "1" if guard else "false", "NO_COLOR": "1"}


def xyclaw(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    detached = args[0] == "launch" and ("--json" in args or "--detach" in args)
    return subprocess.run(
        [sys.executable, "-m", "xyclaw.cli.main", *args],
        cwd=ROOT,
        env=env(guard=detached),
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def test_launch_then_jobs_show_and_logs_follow_until_it_ends(
    engine: Engine, make_cluster: MakeCluster, tmp_path: Path
) -> None:
    cluster = make_cluster(nodes=2, gpus_per_node=8, time_scale=0.02)
    train_spec(tmp_path, "clijob", steps=60, save_every=20, model="llama-0.5b")

    launched = xyclaw("launch", str(tmp_path / "job.yaml"), "--cluster", cluster.name, "--json")
    assert launched.returncode == 0, launched.stderr
    job = json.loads(launched.stdout)
    assert job["state"] == "running" and job["cluster"] == cluster.name

    followed = xyclaw("logs", str(job["id"]), "-f")
    assert followed.returncode == 0, followed.stderr
    assert "step 60/60" in followed.stdout and "training finished: 60 steps" in followed.stdout
    assert f"job {job['id']} clijob: succeeded" in followed.stderr
    shown = xyclaw("jobs", "show", str(job["id"]))
    assert "succeeded, attempt 1" in shown.stdout and "newest checkpoint: step 60" in shown.stdout
    listed = xyclaw("jobs", "--all", "--json")
    assert [j["state"] for j in json.loads(listed.stdout) if j["id"] == job["id"]] == ["succeeded"]
    rank0 = xyclaw("logs", str(job["id"]), "--node", "0", "--tail", "1")
    (last,) = rank0.stdout.splitlines()  # the last line of node 0
    head = cluster.nodes[0].spec.hostname
    assert last.startswith(f"[{head} rank 0] [default0]:training finished: 60 steps")


def test_cancel_from_another_process_stops_a_job_nobody_follows(
    engine: Engine, make_cluster: MakeCluster, tmp_path: Path
) -> None:
    cluster = make_cluster(nodes=2, gpus_per_node=8, time_scale=0.05)
    train_spec(tmp_path, "clilong", steps=100_000, save_every=100_000)
    launched = xyclaw("launch", str(tmp_path / "job.yaml"), "--cluster", cluster.name, "--detach")
    assert launched.returncode == 0, launched.stderr
    job_id = int(launched.stdout.split()[1])

    cancelled = xyclaw("cancel", str(job_id))

    assert cancelled.returncode == 0, cancelled.stderr
    assert f"job {job_id} clilong: cancelled" in cancelled.stdout
    assert "no process left" in cancelled.stdout
    assert engine.job(str(job_id)).state is JobState.CANCELLED


def test_serve_prints_the_local_url_that_answers(
    engine: Engine, make_cluster: MakeCluster, tmp_path: Path
) -> None:
    cluster = make_cluster(nodes=1, gpus_per_node=8, time_scale=0.05)
    write_spec(
        tmp_path,
        "name: clisvc\nkind: service\nrun: vllm serve facebook/opt-125m "
        "--port 8000\nservice: {port: 8000, readiness_path: /health}\n",
    )
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "xyclaw.cli.main",
            "serve",
            str(tmp_path / "job.yaml"),
            "--cluster",
            cluster.name,
        ],
        cwd=ROOT,
        env=env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # Ctrl-C as at a terminal: a shell's background job (CI under `cmd &`) starts its
        # children with SIGINT ignored, and Python then installs no KeyboardInterrupt.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert " is ready at http://127.0.0.1:" in line, proc.stderr.read() if proc.stderr else ""
        url = line.rsplit(" ", 1)[1].strip()
        with urllib.request.urlopen(f"{url}/v1/models", timeout=10) as answer:
            models = json.loads(answer.read())
        assert [m["id"] for m in models["data"]] == ["facebook/opt-125m"]
    finally:
        proc.send_signal(signal.SIGINT)
        try:  # about 1 s on a quiet machine
            proc.wait(60)
        except subprocess.TimeoutExpired:
            proc.kill()
            stderr = proc.communicate()[1][-2000:]
            raise AssertionError(f"serve did not stop after Ctrl-C: {stderr}") from None
    job = engine.jobs()[-1]
    assert job.state is JobState.RUNNING  # Ctrl-C stops forwarding, not the service
    assert engine.cancel_job(str(job.id)).state is JobState.CANCELLED


def test_a_spec_that_rents_asks_first_and_rents_nothing_without_yes(tmp_path: Path) -> None:
    write_spec(
        tmp_path, "name: rents\nresources: {gpu: A800, nodes: 1, gpus_per_node: 8}\nrun: echo hi\n"
    )
    refused = xyclaw("launch", str(tmp_path / "job.yaml"))
    assert refused.returncode == 2
    assert "this job rents: 8 x A800" in refused.stderr
    assert "confirm with --yes" in refused.stderr
    assert "Traceback" not in refused.stderr
    clusters = xyclaw("clusters", "--all", "--json")
    assert json.loads(clusters.stdout) == []


def test_the_log_cap_set_in_config_toml_keeps_the_head_and_the_tail_and_marks_the_cut(
    engine: Engine, make_cluster: MakeCluster, tmp_path: Path
) -> None:
    cluster = make_cluster(nodes=1, gpus_per_node=1)
    AppPaths.from_environment().config_file.write_text(
        "[jobs]\nlog_head_lines = 5\nlog_tail_lines = 100\n"
    )
    write_spec(tmp_path, 'name: chatty\nrun: for i in $(seq 1 400); do echo "line $i"; done\n')
    launched = xyclaw("launch", str(tmp_path / "job.yaml"), "--cluster", cluster.name, "--json")
    assert launched.returncode == 0, launched.stderr
    job_id = json.loads(launched.stdout)["id"]

    followed = xyclaw("logs", str(job_id), "-f")

    assert followed.returncode == 0, followed.stderr
    stored = xyclaw("logs", str(job_id)).stdout.splitlines()
    texts = [line.split("] ", 1)[1] if "] " in line else line for line in stored]
    assert texts[:5] == [f"line {i}" for i in range(1, 6)]
    assert "lines cut here" in texts[5]
    assert texts[-100:] == [f"line {i}" for i in range(301, 401)]
    assert len(texts) <= 5 + 1 + 110  # the cut runs again once a tenth of the tail is over
    record = engine.job(str(job_id))
    assert record.log_lines + record.log_cut_lines == 400
