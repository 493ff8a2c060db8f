"""Issue 29, "How well": ten of SkyPilot's own task files (tests/jobs_runtime/skypilot_real,
unchanged, Apache-2.0), launched through the Engine on two simulated A800 nodes. Each
succeeds, or fails with the simulated node's one line on what it cannot do (no network, a
construct its shell lacks); a task whose GPU is not the cluster's is warned before it runs.
The outcomes below were written by hand from reading each file."""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest

from tests.jobs_runtime.conftest import MakeCluster
from tests.jobs_runtime.helpers import finished
from xyclaw.engine import Engine
from xyclaw.engine.operations import OperationProgress
from xyclaw.errors import JobError
from xyclaw.records.jobs import JobState
from xyclaw.sim.limits import NO_NETWORK

HERE = Path(__file__).parent / "skypilot_real"
NO_BRACES = "not supported by the simulated shell: brace expansion"

# file -> (the state it ends in, a line it must say, the GPU it asks for when not the A800)
EXPECTED: dict[str, tuple[JobState, str, str | None]] = {
    # its setup clones from GitHub and builds a conda env: the node has no network
    "autogluon.yaml": (JobState.FAILED, NO_NETWORK, None),
    # echo only; a V100 task with an AMI image_id (warned: not used) runs on the A800
    "custom_image.yaml": (JobState.SUCCEEDED, "hello sky", "V100"),
    # pip install of torchtune from git, then `tune download`: no network
    "llama-3_1-finetuning__lora.yaml": (JobState.FAILED, NO_NETWORK, "A100-40G"),
    # setup's `pip install tqdm` (not in the node's image): no network
    "managed_job.yaml": (JobState.FAILED, NO_NETWORK, None),
    # run is `conda env list`: the node has no conda, said as no network; the job fails
    "minimal.yaml": (JobState.FAILED, NO_NETWORK, None),
    # nvidia-smi on the first of five GPU choices (A100-40GB)
    "multi_accelerators.yaml": (JobState.SUCCEEDED, "NVIDIA-SMI", "A100-40G"),
    # each of its two nodes echoes its hostname
    "multi_hostname.yaml": (JobState.SUCCEEDED, "My hostname: {cluster}-node1", None),
    # `sudo apt install perftest`: no network
    "nebius_infiniband__infiniband.yaml": (JobState.FAILED, NO_NETWORK, "H100"),
    # two CPU nodes, `workdir: .` (this folder); `for i in {1..10}`: brace expansion, which
    # the simulated shell refuses before running; the node's line is the job's error
    "oci__oci_cpu-sky.yaml": (JobState.FAILED, NO_BRACES, None),
    # runs `conda env list` then `exit 1` by design: it fails
    "playground__min_fail.yaml": (JobState.FAILED, NO_NETWORK, None),
}


def test_ten_real_skypilot_tasks_on_two_simulated_nodes(
    engine: Engine, make_cluster: MakeCluster, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = sorted(p.name for p in HERE.glob("*.yaml"))
    assert files == sorted(EXPECTED)
    monkeypatch.setenv("HF_TOKEN", "hf_not_a_real_token_29")  # lora.yaml's `secrets: HF_TOKEN`
    monkeypatch.chdir(HERE)  # SkyPilot reads relative paths (./configs, workdir: .) from here
    cluster = make_cluster(nodes=2, time_scale=0.02)
    heard: list[str] = []
    engine.subscribe(OperationProgress, lambda e: heard.append(str(e.message)))
    for name in files:
        state, line, asks = EXPECTED[name]
        line = line.format(cluster=cluster.name)
        heard.clear()
        before = {job.id for job in engine.jobs(include_finished=True)}
        with contextlib.suppress(JobError):  # a setup or a start that failed: the job says why
            engine.launch(str(HERE / name), cluster=cluster.name).result(120)
        [job_id] = {job.id for job in engine.jobs(include_finished=True)} - before
        job = finished(engine, job_id)
        said = [job.error or ""] + [
            ln.text for rank in (0, 1) for ln in engine.job_logs(str(job_id), node=rank)
        ]
        assert job.state is state, (name, said)
        assert any(line in text for text in said), (name, said)
        differs = [h for h in heard if "but cluster" in h]
        if asks is None:
            assert differs == [], (name, differs)
        else:
            assert differs == [
                f"warning: the task asks for {asks} but cluster {cluster.name} has A800: "
                "it runs there on A800"
            ], name
