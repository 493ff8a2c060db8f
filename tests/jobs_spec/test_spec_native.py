"""XyClaw's own spec form: every field read as the user means it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from xyclaw.jobs.spec import (
    Budget,
    JobKind,
    LoadedSpec,
    RecoveryCause,
    RecoveryPolicy,
    SpecError,
    local_env,
    parse_budget,
    parse_duration,
)
from xyclaw.jobs.specmodel import InvalidValue

Load = Callable[..., LoadedSpec]

FULL = """
name: llama13b-lora
kind: train
resources:
  gpu: NVIDIA A100 80GB
  nodes: 2
  gpus_per_node: 8
  region: xiamen
image: nvcr.io/nvidia/pytorch:24.05-py3
workdir: code
setup: |
  pip install -r requirements.txt
run: |
  torchrun --nnodes $NNODES train.py --output_dir /shared/ckpt/llama
env:
  HF_HOME: /shared/hf
  VERSION: 1.10
  FLAG: yes
  HF_TOKEN:
checkpoint_dir: /shared/ckpt/llama/
resume_arg: --resume_from_checkpoint {latest}
max_runtime: 6h
budget: 500
recovery:
  max_restarts: 5
  on: [node_lost, xid, nccl_timeout, exit_nonzero]
  allow_spend: true
release_when_done: false
"""


def test_every_field_of_a_full_spec(load: Load, project: Path) -> None:
    loaded = load(FULL)
    spec = loaded.spec
    assert loaded.source_format == "xyclaw" and loaded.warnings == ()
    assert (spec.name, spec.kind) == ("llama13b-lora", JobKind.TRAIN)
    r = spec.resources
    assert (r.gpu, r.nodes, r.gpus_per_node, r.total_gpus) == ("A100-80G", 2, 8, 16)
    assert (r.region, r.cluster) == ("xiamen", None) and spec.rents_cluster
    assert spec.image == "nvcr.io/nvidia/pytorch:24.05-py3"
    assert spec.workdir == str(project / "code")  # relative to the spec file, made absolute
    assert spec.setup == "pip install -r requirements.txt\n"
    assert spec.run.startswith("torchrun --nnodes $NNODES train.py")
    # values as typed: 1.10 is not the float 1.1, yes is not True
    assert dict(spec.env) == {"HF_HOME": "/shared/hf", "VERSION": "1.10", "FLAG": "yes"}
    assert spec.env_from_local == ("HF_TOKEN",)
    assert spec.checkpoint_dir == "/shared/ckpt/llama"
    assert spec.resume_arg == "--resume_from_checkpoint {latest}"
    assert spec.max_runtime_s == 6 * 3600
    assert spec.budget == Budget(500_000_000, "CNY")
    assert spec.recovery == RecoveryPolicy(5, tuple(RecoveryCause), True)
    assert spec.release_when_done is False and not spec.releases_when_done(True)
    assert spec.service is None and spec.skypilot is False


def test_a_minimal_spec_gets_the_defaults(load: Load) -> None:
    spec = load("run: python train.py\n", name="My first job!.yaml").spec
    assert spec.name == "My-first-job"  # from the file name
    assert spec.kind is JobKind.TRAIN and spec.resources.nodes == 1
    assert spec.resources.gpu is None and not spec.rents_cluster  # needs --cluster at launch
    # recovery by default: infrastructure failures only, never the user's own exit code
    assert spec.recovery.on == (
        RecoveryCause.NODE_LOST,
        RecoveryCause.XID,
        RecoveryCause.NCCL_TIMEOUT,
    )
    assert spec.recovery.retries("node_lost", 0) and not spec.recovery.retries("exit_nonzero", 0)
    assert not spec.recovery.retries("node_lost", 3) and not spec.recovery.allow_spend
    # release_when_done unset: only a cluster rented for the job goes back
    assert spec.releases_when_done(True) and not spec.releases_when_done(False)


def test_the_key_on_is_a_name_not_yaml_true(load: Load) -> None:
    # PyYAML reads a bare `on:` key as the boolean True; the spec reader must not
    spec = load("run: x\nrecovery:\n  on: exit_nonzero\n  max_restarts: 1\n").spec
    assert spec.recovery.on == (RecoveryCause.EXIT_NONZERO,)
    assert spec.recovery.retries(RecoveryCause.EXIT_NONZERO, 0)


@pytest.mark.parametrize(
    ("text", "policy"),
    [
        ("recovery: false", RecoveryPolicy.none()),
        ("recovery:", RecoveryPolicy.none()),
        ("recovery: true", RecoveryPolicy()),
        ("recovery: {max_restarts: 0}", RecoveryPolicy(max_restarts=0)),
        ("recovery: {on: []}", RecoveryPolicy(on=())),
        (
            "recovery: {on: [xid, xid, NODE_LOST]}",
            RecoveryPolicy(on=(RecoveryCause.XID, RecoveryCause.NODE_LOST)),
        ),
    ],
)
def test_recovery_forms(load: Load, text: str, policy: RecoveryPolicy) -> None:
    assert load(f"run: x\n{text}\n").spec.recovery == policy


def test_gpu_with_count_and_a_cluster_reference(load: Load) -> None:
    spec = load("run: x\nresources: {gpu: 'h100 sxm5:8', nodes: 4}\n").spec
    assert (spec.resources.gpu, spec.resources.gpus_per_node) == ("H100", 8)
    spec = load("run: x\nresources: {cluster: my-a800s}\n").spec
    assert spec.resources.cluster == "my-a800s" and not spec.rents_cluster


def test_known_gpus_turn_an_unknown_model_into_an_error(load: Load) -> None:
    with pytest.raises(SpecError) as err:
        load("run: x\nresources:\n  gpu: B300\n", known_gpus=["A100-80G", "H100"])
    assert err.value.line == 3 and err.value.field == "resources.gpu"
    assert "A100-80G, H100" in str(err.value)
    spec = load("run: x\nresources:\n  gpu: NVIDIA H100\n", known_gpus=["H100"]).spec
    assert spec.resources.gpu == "H100"


def test_a_service(load: Load) -> None:
    spec = load(
        """
        name: qwen-chat
        kind: service
        resources: {gpu: L40S, gpus_per_node: 1}
        run: vllm serve Qwen/Qwen2.5-7B-Instruct --port 8000
        service:
          port: 8000
          readiness_path: /v1/models
          readiness_timeout: 15m
        """
    ).spec
    assert spec.kind is JobKind.SERVICE and spec.service is not None
    assert (spec.service.port, spec.service.readiness_path) == (8000, "/v1/models")
    assert spec.service.readiness_timeout_s == 900


@pytest.mark.parametrize(
    ("value", "seconds"),
    [
        (3600, 3600),
        ("3600", 3600),
        ("2h", 7200),
        ("90m", 5400),
        ("90 min", 5400),
        ("1h30m", 5400),
        ("1h 30m 15s", 5415),
        ("1.5h", 5400),
        ("45s", 45),
        ("2d", 172800),
        (0.4, 1),
    ],
)
def test_durations(value: object, seconds: int) -> None:
    assert parse_duration(value) == seconds


@pytest.mark.parametrize("value", [0, -5, "0m", "", "2 weeks", "h", "1h-", True, None, [1]])
def test_bad_durations(value: object) -> None:
    with pytest.raises(InvalidValue):
        parse_duration(value)


@pytest.mark.parametrize(
    ("value", "budget"),
    [
        (500, Budget(500_000_000, "CNY")),
        ("0.1", Budget(100_000, "CNY")),
        ("12.30 USD", Budget(12_300_000, "USD")),
        ("usd 12.3", Budget(12_300_000, "USD")),
        ("¥1,500", Budget(1_500_000_000, "CNY")),
        ("99元", Budget(99_000_000, "CNY")),
        ("$20", Budget(20_000_000, "USD")),
        ({"amount": 20, "currency": "eur"}, Budget(20_000_000, "EUR")),
    ],
)
def test_budgets(value: object, budget: Budget) -> None:
    assert parse_budget(value) == budget


@pytest.mark.parametrize(
    "value", [0, "-3", "1.1234567", "500 CNY USD", "$5 CNY", "lots", True, {"currency": "USD"}]
)
def test_bad_budgets(value: object) -> None:
    with pytest.raises(InvalidValue):
        parse_budget(value)


def test_a_float_budget_is_read_from_its_text_not_through_a_float(load: Load) -> None:
    spec = load("run: x\nbudget: 0.3\n").spec
    assert spec.budget == Budget(300_000, "CNY")
    assert str(spec.budget) == "0.30 CNY"
    spec = load("run: x\nbudget: {amount: 19.99, currency: USD}\n").spec
    assert spec.budget == Budget(19_990_000, "USD")


def test_advice_warnings_name_their_field(load: Load) -> None:
    loaded = load(
        """
        run: python train.py
        env:
          MASTER_ADDR: 10.0.0.1
        """
    )
    by_field = {w.field: w for w in loaded.warnings}
    assert "step 0" in by_field["run"].message  # recovery on, no checkpoint_dir
    assert by_field["env.MASTER_ADDR"].line == 3
    assert "set by XyClaw" in by_field["env.MASTER_ADDR"].message
    assert str(by_field["env.MASTER_ADDR"]).endswith(
        "job.yaml:3: env.MASTER_ADDR: is set by XyClaw on every node; this value is replaced"
    )


def test_resume_arg_that_cannot_be_appended_is_warned_about(load: Load) -> None:
    loaded = load(
        """
        run: |
          python train.py &
          wait
        checkpoint_dir: /shared/ck
        resume_arg: --resume {latest}
        """
    )
    (warning,) = loaded.warnings
    assert warning.field == "resume_arg" and "$XYCLAW_RESUME_ARG" in warning.message
    quiet = load(
        """
        run: |
          python train.py $XYCLAW_RESUME_ARG &
          wait
        checkpoint_dir: /shared/ck
        resume_arg: --resume {latest}
        """
    )
    assert quiet.warnings == ()


def test_env_from_local_is_read_at_launch_and_missing_names_are_listed(load: Load) -> None:
    spec = load("run: x\nenv:\n  HF_TOKEN:\n  WANDB_API_KEY:\n  A: b\n").spec
    assert local_env(spec, {"HF_TOKEN": "t", "WANDB_API_KEY": "w"}) == {
        "HF_TOKEN": "t",
        "WANDB_API_KEY": "w",
    }
    with pytest.raises(SpecError) as err:
        local_env(spec, {"HF_TOKEN": "t"})
    assert "WANDB_API_KEY" in str(err.value) and "HF_TOKEN" not in err.value.problem
    assert '"env_from_local": ["HF_TOKEN", "WANDB_API_KEY"]' in spec.to_json()


def test_file_mounts_upload_local_paths(load: Load, project: Path) -> None:
    spec = load("run: x\nfile_mounts:\n  /data/in.txt: data.txt\n  ~/code: ./code\n").spec
    assert [(m.target, m.source) for m in spec.file_mounts] == [
        ("/data/in.txt", str(project / "data.txt")),
        ("~/code", str(project / "code")),
    ]


def test_check_paths_off_reads_a_spec_from_elsewhere(load: Load) -> None:
    spec = load("run: x\nworkdir: /nowhere/at/all\n", check_paths=False).spec
    assert spec.workdir == "/nowhere/at/all"
