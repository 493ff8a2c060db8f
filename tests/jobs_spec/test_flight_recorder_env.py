"""Every train job gets PyTorch's Flight Recorder variables (issue 34): both the old
TORCH_NCCL_* and the new TORCH_FR_* names, a dump folder per job and attempt, unless the
spec turns them off; the spec's own values win. Seen as the dry run shows them."""

from __future__ import annotations

from pathlib import Path

import pytest

from xyclaw.catalog import Catalog
from xyclaw.jobs.dryrun import dry_run

KNOWN = {g.name for g in Catalog.builtin().gpus}
NOW = 1_750_000_000.0


def _env(tmp_path: Path, body: str) -> dict[str, str]:
    spec = tmp_path / "job.yaml"
    spec.write_text(body)
    got = dry_run(spec, known_gpus=KNOWN, environ={}, now=NOW)
    assert got.accepted, got.refusal
    return dict(got.environment)


TRAIN = "name: llama\nrun: torchrun --nproc_per_node 8 train.py\nresources:\n  gpu: H100:8\n"


def test_a_train_job_gets_both_names_alike_and_a_dump_path_per_rank(tmp_path: Path) -> None:
    env = _env(tmp_path, TRAIN)
    prefix = "/tmp/xyclaw-fr/llama-0/1/rank_"  # the dry run's job 0, attempt 1
    assert env["TORCH_NCCL_DEBUG_INFO_TEMP_FILE"] == env["TORCH_FR_DUMP_TEMP_FILE"] == prefix
    assert env["TORCH_NCCL_TRACE_BUFFER_SIZE"] == env["TORCH_FR_BUFFER_SIZE"] == "2000"
    assert env["TORCH_NCCL_DUMP_ON_TIMEOUT"] == env["TORCH_FR_DUMP_ON_TIMEOUT"] == "1"
    assert int(env["TORCH_NCCL_WAIT_TIMEOUT_DUMP_MILSEC"]) >= 15_000
    # the debug pipe, both names: PyTorch makes <stem><rank>.pipe and dumps when it is written
    pipe = "/tmp/xyclaw-fr/llama-0/1/pipe_rank_"
    assert env["TORCH_NCCL_DEBUG_INFO_PIPE_FILE"] == env["TORCH_FR_DEBUG_INFO_PIPE_FILE"] == pipe
    assert env["XYCLAW_FR_DIR"] == "/tmp/xyclaw-fr/llama-0/1"


@pytest.mark.parametrize("off", ["0", "off", "false", "No"])
def test_the_spec_turns_them_off(tmp_path: Path, off: str) -> None:
    env = _env(tmp_path, TRAIN + f"env:\n  XYCLAW_FLIGHT_RECORDER: '{off}'\n")
    assert not [k for k in env if k.startswith(("TORCH_NCCL_", "TORCH_FR_", "XYCLAW_FR_"))]


def test_the_spec_s_own_values_win(tmp_path: Path) -> None:
    env = _env(tmp_path, TRAIN + "env:\n  TORCH_NCCL_TRACE_BUFFER_SIZE: '20000'\n")
    assert env["TORCH_NCCL_TRACE_BUFFER_SIZE"] == "20000"
    assert env["TORCH_FR_BUFFER_SIZE"] == "2000"  # what the spec did not say stays


def test_a_service_gets_none(tmp_path: Path) -> None:
    env = _env(
        tmp_path,
        "name: chat\nkind: service\nrun: vllm serve m\nservice:\n  port: 8000\n"
        "resources:\n  gpu: H100:1\n",
    )
    assert not [k for k in env if k.startswith(("TORCH_NCCL_", "TORCH_FR_"))]


def test_the_dry_run_names_what_xyclaw_adds_and_what_the_spec_turned_off(tmp_path: Path) -> None:
    """Issue 34 (b34): the step timer and the Flight Recorder, on the dry run's card."""
    spec = tmp_path / "job.yaml"
    spec.write_text(TRAIN + 'env:\n  XYCLAW_STEP_TIMES: "0"\n')
    got = dry_run(spec, known_gpus=KNOWN, environ={}, now=NOW)
    timer, recorder, inspector = got.additions
    assert timer.startswith("the per-rank step timer is off")
    assert inspector.startswith("XyClaw loads NCCL's Inspector plugin where a node has it")
    assert recorder.startswith("XyClaw adds PyTorch's Flight Recorder variables")
    assert "XYCLAW_STEP_TIMES" not in got.environment or got.environment["XYCLAW_STEP_TIMES"] == "0"
    on = tmp_path / "on.yaml"
    on.write_text(TRAIN)
    env = _env(tmp_path, TRAIN)
    assert env["XYCLAW_STEP_TIMES"] == "1" and env["XYCLAW_STEP_TIMES_EVERY"] == "20"
    assert (
        dry_run(on, known_gpus=KNOWN, environ={}, now=NOW)
        .additions[0]
        .startswith("XyClaw adds a per-rank step timer")
    )


def test_the_dry_run_names_the_secrets_it_would_send_apart(tmp_path: Path) -> None:
    """Issue 31: the dry run says which secrets leave this machine, apart from variables,
    and still shows no value."""
    spec = tmp_path / "job.yaml"
    spec.write_text(TRAIN + "env:\n  HF_TOKEN:\n  EPOCHS: '3'\n")
    got = dry_run(spec, known_gpus=KNOWN, environ={"HF_TOKEN": "hf_very_secret"}, now=NOW)
    secrets, variables = got.sends
    assert secrets.startswith("Sends these secrets from this machine to every node: HF_TOKEN")
    assert variables == "Sets the spec's own variables: EPOCHS"
    assert "hf_very_secret" not in str(got.to_json())
