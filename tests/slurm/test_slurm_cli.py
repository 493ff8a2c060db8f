"""`xyclaw offers` and `xyclaw slurm ...` as a user runs them: a [[slurm]] table in hosts.toml,
XyClaw's own key on the login node, the real loopback Slurm behind it."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

from tests.slurm.approve import submit
from tests.slurm.conftest import USER, LoginNode, as_root
from xyclaw.paths import AppPaths
from xyclaw.remote import KnownHosts
from xyclaw.remote.node_access import load_or_create_app_key

ROOT = Path(__file__).resolve().parents[2]


def xyclaw(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "xyclaw.cli.main", *args],
        cwd=ROOT,
        env=dict(os.environ),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
    )


def configure(server: LoginNode) -> None:
    """hosts.toml names the login node; XyClaw's key is authorized there and its host key
    trusted, as after a user's first `ssh` to it."""
    paths = AppPaths.from_environment()
    paths.ensure()
    (paths.config_dir / "hosts.toml").write_text(
        f'[[slurm]]\nname = "lab"\nlogin = "{USER}@127.0.0.1:{server.port}"\n'
        'partitions = ["gpu"]\nprice_per_gpu_hour = 0\n'
    )
    line = load_or_create_app_key(paths.data_dir / "ssh" / "id_ecdsa")[1]
    with server.authorized_keys.open("a") as keys:
        keys.write(line + "\n")
    KnownHosts(paths.known_hosts).add("127.0.0.1", server.port, server.host_key)


def test_offers_queue_submit_jobs_and_cancel_from_the_command_line(
    login_node: tuple[LoginNode, Path], make_jobs: object
) -> None:
    configure(login_node[0])
    offers = xyclaw("offers", "--provider", "lab")
    assert offers.returncode == 0, offers.stderr
    assert re.search(r"gpu\s+A800\s+8,16\s+eth-25\s+0\.00 CNY\s+16\n", offers.stdout), offers.stdout
    assert "partition gpu: 2 idle, 0 mixed, 0 allocated; time limit 60 min" in offers.stdout
    assert "one node runs now" in offers.stdout
    assert "short" not in offers.stdout  # hosts.toml lists only "gpu"
    providers = xyclaw("providers")
    assert providers.returncode == 0, providers.stdout + providers.stderr
    assert re.search(r"lab\s+yes\s+yes \(\d+\.\d s\)\s+1 offer\(s\)", providers.stdout)
    plan = xyclaw("plan", "--task", "finetune-lora", "--model-size", "7B", "--tokens", "20M",
                  "--provider", "lab", "--json")  # fmt: skip
    assert plan.returncode == 0, plan.stderr
    assert '"provider": "lab"' in plan.stdout and '"region": "gpu"' in plan.stdout

    spec = Path(os.environ["XYCLAW_HOME"]) / "hold.yaml"
    spec.write_text(
        "name: hold\nnum_nodes: 2\nresources:\n  accelerators: A800:8\nrun: sleep 300\n"
    )
    refused = xyclaw("slurm", "submit", "lab", str(spec))  # not at a terminal, no --yes
    assert refused.returncode != 0 and "confirm with --yes" in refused.stderr
    assert "sbatch --parsable --partition=gpu" in refused.stderr  # the card was shown
    assert "submitted job" not in refused.stdout
    submitted = xyclaw("slurm", "submit", "lab", str(spec), "--yes")
    assert submitted.returncode == 0, submitted.stderr
    # what bounds the job, shown before it is submitted (no slurmdbd here: said so)
    assert "partition gpu: MaxTime=01:00:00" in submitted.stderr
    assert "association and QoS limits unknown" in submitted.stderr
    job_id = re.search(r"submitted job (\d+) to lab, partition gpu", submitted.stdout)
    assert job_id is not None, submitted.stdout
    deadline = time.monotonic() + 30
    while "RUNNING" not in as_root("squeue", "-h", "-j", job_id.group(1), "-o", "%T"):
        assert time.monotonic() < deadline
        time.sleep(0.5)
    queue = xyclaw("slurm", "queue", "lab", "--nodes", "2", "--gpus-per-node", "8")
    assert queue.returncode == 0, queue.stderr
    waits = re.search(r"gpu: 0 GPU\(s\) free; 2 x 8 GPU\(s\) waits about (\d+) min", queue.stdout)
    assert waits is not None, queue.stdout
    assert 1 < int(waits.group(1)) <= 61  # behind the running job's 60 min limit
    listed = xyclaw("slurm", "jobs", "lab")
    assert f"{job_id.group(1)}  hold  RUNNING  gpu  2 node(s)" in listed.stdout, listed.stdout

    refused = xyclaw("slurm", "cancel", "lab", job_id.group(1))
    assert refused.returncode == 2 and "confirm with --yes" in refused.stderr
    assert (
        "action: slurm_cancel" in refused.stderr and f"scancel {job_id.group(1)}" in refused.stderr
    )
    assert "RUNNING" in as_root("squeue", "-h", "-j", job_id.group(1), "-o", "%T")
    cancelled = xyclaw("slurm", "cancel", "lab", job_id.group(1), "--yes")
    assert cancelled.returncode == 0, cancelled.stderr
    assert "Traceback" not in cancelled.stderr


def test_the_engine_submits_and_answers_for_the_queue_and_the_jobs(
    login_node: tuple[LoginNode, Path], make_jobs: object
) -> None:
    """What a window or an agent would call: the Engine's Slurm methods, in this process."""
    from xyclaw.config import load_config
    from xyclaw.engine.compose import build_engine

    configure(login_node[0])
    paths = AppPaths.from_environment()
    engine = build_engine(paths, load_config(paths.config_file), start_guard=False)
    try:
        spec = Path(os.environ["XYCLAW_HOME"]) / "one.yaml"
        spec.write_text("name: one\nresources:\n  accelerators: A800:8\nrun: sleep 120\n")
        view = submit(engine, str(spec))
        (wait,) = engine.slurm_queue("lab", nodes=2, gpus_per_node=8)
        assert wait.partition == "gpu" and (wait.nodes, wait.gpus_per_node) == (2, 8)
        assert wait.free_gpus in (8, 16)  # 8 once the submitted job holds its node
        assert [j.job_id for j in engine.slurm_jobs("lab", fresh=True)] == [view.job_id]
        card = engine.slurm_cancel_card("lab", view.job_id)
        assert engine.slurm_cancel("lab", view.job_id, approved=card).job_id == view.job_id
    finally:
        engine.close()
