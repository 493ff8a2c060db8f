"""The lab's Slurm cluster through the Engine as the agents and the plan use it, against the
real loopback Slurm: a plan with no provider named ranks the lab's partition beside the
simulated cloud's rentals; "run this on the lab cluster" is a card first, and a yes submits
exactly what it showed; "how long is the queue" answers per partition."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.slurm.conftest import LoginNode, as_root
from tests.slurm.test_slurm_cli import configure
from xyclaw.agent.tools import ToolContext, all_tools
from xyclaw.engine import Engine
from xyclaw.engine.approvals import ApprovalMismatch
from xyclaw.paths import AppPaths
from xyclaw.planner import PlanRequest
from xyclaw.planner.report import side_by_side


@pytest.fixture
def engine(login_node: tuple[LoginNode, Path], make_jobs: object) -> Iterator[Engine]:
    from xyclaw.config import load_config
    from xyclaw.engine.compose import build_engine

    configure(login_node[0])
    paths = AppPaths.from_environment()
    built = build_engine(paths, load_config(paths.config_file), start_guard=False)
    try:
        yield built
    finally:
        built.close()


def test_a_plan_with_no_provider_named_ranks_the_lab_beside_the_rentals(engine: Engine) -> None:
    assert engine.slurm_sites() == ["lab"]
    request = PlanRequest.parse(
        task="finetune-lora", model_size="7B", tokens="1B", gpus="16", gpu="A800"
    )
    result = engine.plan(request, use_memory=False).result
    providers = {o.provider for o in result.options}
    assert {"lab", "sim"} <= providers, providers
    lab = next(o for o in result.options if o.provider == "lab")
    assert lab.queued and lab.runs_now and lab.cost_micro == 0  # both nodes idle: runs now
    line = side_by_side(result.options)
    assert line is not None and line.startswith("side by side: lab's 16 A800 now for 0.00 CNY")


def test_run_this_on_the_lab_cluster_is_a_card_and_the_yes_submits_what_it_showed(
    engine: Engine,
) -> None:
    spec = Path(os.environ["XYCLAW_HOME"]) / "agent.yaml"
    spec.write_text("name: agent-job\nresources:\n  accelerators: A800:8\nrun: sleep 60\n")
    ctx = ToolContext(engine, conversation_id=0)
    tool = all_tools()["slurm_launch"]
    assert tool.gated and tool.gate is not None

    gate = tool.gate(ctx, {"spec": str(spec)})
    assert gate.details["site"] == "lab" and gate.details["partition"] == "gpu"
    assert gate.details["command"].startswith(
        "sbatch --parsable --partition=gpu --nodes=1 --gres=gpu:8"
    )
    assert "Submit" in gate.title and "lab" in gate.title
    assert as_root("squeue", "-h", "-u", "xyclaw-slurm", "-o", "%i").strip() == ""  # nothing yet

    # the spec edited after the card: the yes to the old card submits nothing
    stale = tool.gate(ctx, {"spec": str(spec)})
    spec.write_text("name: agent-job\nresources:\n  accelerators: A800:8\nrun: sleep 61\n")
    with pytest.raises(ApprovalMismatch):
        tool.run(ctx, {"spec": str(spec)}, stale)
    assert as_root("squeue", "-h", "-u", "xyclaw-slurm", "-o", "%i").strip() == ""

    gate = tool.gate(ctx, {"spec": str(spec)})
    out = tool.run(ctx, {"spec": str(spec)}, gate)
    job_id = out.result["job"]["job_id"]
    assert out.summary == f"submitted job {job_id} to lab, partition gpu"
    assert job_id in as_root("squeue", "-h", "-u", "xyclaw-slurm", "-o", "%i")

    queue = all_tools()["slurm_queue"]
    answer = queue.run(ctx, {"gpus": 16, "gpu": "A800"}, None)
    [row] = answer.result["waits"]
    assert (answer.result["nodes"], answer.result["gpus_per_node"]) == (2, 8)
    assert row["site"] == "lab" and row["partition"] == "gpu"
    assert row["free_gpus"] in (8, 16)  # 8 once the submitted job holds its node
    assert "lab/gpu" in answer.summary


def test_xyclaw_plan_prints_when_each_option_starts_and_the_comparison(
    login_node: tuple[LoginNode, Path], make_jobs: object
) -> None:
    from tests.slurm.test_slurm_cli import xyclaw

    configure(login_node[0])
    done = xyclaw("plan", "--task", "finetune-lora", "--model-size", "7B", "--tokens", "1B",
                  "--gpus", "16", "--gpu", "A800", "--no-memory")  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "side by side: lab's 16 A800 now for 0.00 CNY, or sim's 16 A800 now for " in (
        done.stdout
    ), done.stdout
    header = next(line for line in done.stdout.splitlines() if line.lstrip().startswith("#"))
    assert header.rstrip().endswith("starts")
    assert any(
        "lab/gpu" in line and line.rstrip().endswith("now") for line in done.stdout.splitlines()
    )
