"""SkyPilot task YAML read as it is: mapped fields, a warning for every field XyClaw does
not do (by name), errors that point at the SkyPilot field the user wrote."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from xyclaw.jobs import skypilot
from xyclaw.jobs.spec import JobKind, LoadedSpec, RecoveryCause, SpecError, parse_spec

Load = Callable[..., LoadedSpec]

DDP = """
name: minGPT-ddp

resources:
  accelerators: A100:8
  cloud: aws
  use_spot: true
  disk_size: 512

num_nodes: 2

workdir: code

envs:
  DATASET: shakespeare
  EPOCHS: 10
  WANDB_API_KEY:

setup: |
  pip install -r requirements.txt

run: |
  MASTER_ADDR=$(echo "$SKYPILOT_NODE_IPS" | head -n1)
  torchrun \\
    --nnodes=$SKYPILOT_NUM_NODES \\
    --nproc_per_node=$SKYPILOT_NUM_GPUS_PER_NODE \\
    --master_addr=$MASTER_ADDR --master_port=8008 \\
    --node_rank=${SKYPILOT_NODE_RANK} \\
    main.py
"""


def test_a_distributed_skypilot_task(load: Load) -> None:
    loaded = load(DDP, name="ddp.yaml")
    spec = loaded.spec
    assert loaded.source_format == "skypilot" and spec.skypilot
    assert spec.name == "minGPT-ddp"
    r = spec.resources
    assert (r.gpu, r.gpus_per_node, r.nodes) == ("A100-40G", 8, 2)  # SkyPilot's A100
    assert dict(spec.env) == {"DATASET": "shakespeare", "EPOCHS": "10"}
    assert spec.env_from_local == ("WANDB_API_KEY",)  # SkyPilot: "pass it with --env"
    assert spec.setup == "pip install -r requirements.txt\n"
    assert "--node_rank=${SKYPILOT_NODE_RANK}" in spec.run
    assert spec.workdir is not None and spec.workdir.endswith("/code")
    warned = {(w.field, w.line) for w in loaded.warnings}
    assert {("resources.cloud", 5), ("resources.disk_size", 7)} <= warned
    assert spec.spot  # use_spot: true is XyClaw's spot: true (issue 32)
    assert "resources.use_spot" not in {w.field for w in loaded.warnings}


def test_skypilot_environment_for_each_node() -> None:
    ips = ["10.0.0.1", "10.0.0.2"]
    env = skypilot.skypilot_env(
        ips,
        1,
        8,
        job_id=7,
        created_at=1_700_000_000.25,
        cluster="demo",
        provider="sim",
        region="xiamen",
        user="ana",
    )
    assert env == {
        "SKYPILOT_TASK_ID": "sky-2023-11-14-22-13-20-250000_demo_7",
        "SKYPILOT_NODE_IPS": "10.0.0.1\n10.0.0.2",
        "SKYPILOT_NODE_RANK": "1",
        "SKYPILOT_NUM_NODES": "2",
        "SKYPILOT_NUM_GPUS_PER_NODE": "8",
        "SKYPILOT_SETUP_NODE_IPS": "10.0.0.1\n10.0.0.2",
        "SKYPILOT_SETUP_NODE_RANK": "1",
        "SKYPILOT_SETUP_NUM_GPUS_PER_NODE": "8",
        "SKYPILOT_CLUSTER_INFO": '{"cluster_name": "demo", "cloud": "sim", "region": "xiamen", '
        '"zone": null}',
        "SKYPILOT_USER": "ana",
    }
    assert tuple(skypilot.skypilot_env(ips, 0, 8)) == skypilot.SKYPILOT_ENV


@pytest.mark.parametrize(
    ("accelerators", "gpu", "count", "warned"),
    [
        ("A100:8", "A100-40G", 8, False),  # SkyPilot's A100 is the 40 GB card
        ("A100-80GB:4", "A100-80G", 4, False),
        ("H100", "H100", 1, False),  # SkyPilot: a name alone is one GPU
        ("{A100: 8}", "A100-40G", 8, False),
        ("{H100:8, A100:8}", "H100", 8, True),  # a set of choices: the first is used
        ("['L4:1', 'A10G:1']", "L4", 1, True),
        ("[V100]", "V100", 1, False),
        ("{'RTX 4090': 2}", "RTX4090", 2, False),
    ],
)
def test_accelerator_forms(accelerators: str, gpu: str, count: int, warned: bool) -> None:
    loaded = parse_spec(
        f"num_nodes: 1\nresources:\n  accelerators: {accelerators}\nrun: x\n", check_paths=False
    )
    assert (loaded.spec.resources.gpu, loaded.spec.resources.gpus_per_node) == (gpu, count)
    assert any(w.field == "resources.accelerators" for w in loaded.warnings) is warned


def test_every_unsupported_field_is_warned_about_by_name() -> None:
    top = "\n".join(f"{k}: {{}}" for k in skypilot.TOP_UNSUPPORTED if k != "secrets")
    res = "\n".join(f"  {k}: 1" for k in skypilot.RESOURCES_UNSUPPORTED)
    svc = "\n".join(f"  {k}: 2" for k in skypilot.SERVICE_UNSUPPORTED)
    text = (
        f"{top}\nsecrets:\n  HF_TOKEN: hf_abc\nresources:\n  accelerators: A100:1\n"
        f"  ports: 8000\n{res}\nservice:\n  readiness_probe: /health\n{svc}\nrun: x\n"
    )
    loaded = parse_spec(text, check_paths=False)
    fields = {w.field for w in loaded.warnings}
    expected = (
        set(skypilot.TOP_UNSUPPORTED) - {"secrets"}
        | {"secrets"}
        | {f"resources.{k}" for k in skypilot.RESOURCES_UNSUPPORTED}
        | {f"service.{k}" for k in skypilot.SERVICE_UNSUPPORTED}
    )
    assert expected <= fields, expected - fields
    # each warning says what XyClaw does instead, and where it is
    assert all(w.line is not None and len(w.message) > 10 for w in loaded.warnings)
    # secrets: the names come from this machine, the values in the file are not kept
    assert loaded.spec.env_from_local == ("HF_TOKEN",)
    assert "hf_abc" not in loaded.spec.to_json()


def test_a_field_neither_skypilot_nor_xyclaw_is_an_error() -> None:
    with pytest.raises(SpecError) as err:
        parse_spec("num_nodes: 2\nrun: x\nnum_gpus: 8\n", file="t.yaml")
    assert (err.value.line, err.value.field) == (3, "num_gpus")
    with pytest.raises(SpecError) as err:
        parse_spec("num_nodes: 2\nrun: x\nresources:\n  acelerators: A100\n", file="t.yaml")
    assert (err.value.line, err.value.field) == (4, "resources.acelerators")
    assert "accelerators" in str(err.value)


@pytest.mark.parametrize(
    ("text", "line", "field", "word"),
    [
        ("num_nodes: -1\nrun: x\n", 1, "num_nodes", "-1"),
        (
            "num_nodes: 2\nresources:\n  accelerators: A100:1.5\nrun: x\n",
            3,
            "resources.accelerators",
            "whole GPUs",
        ),
        ("envs:\n  BAD-NAME: 1\nrun: x\n", 2, "envs.BAD-NAME", "not a variable name"),
        ("envs: {A: 1}\nrun: |\n", 2, "run", "no `run` command"),
        ("num_nodes: 2\nresources:\n  nodes: 2\nrun: x\n", 1, "num_nodes", "given twice"),
        ("envs: {A: 1}\nenv: {B: 2}\nrun: x\n", 2, "env", "envs"),
        (
            "num_nodes: 1\nresources:\n  ports: http\nservice: {readiness_probe: /}\nrun: x\n",
            3,
            "resources.ports",
            "not a port",
        ),
    ],
)
def test_errors_name_the_skypilot_field(text: str, line: int, field: str, word: str) -> None:
    with pytest.raises(SpecError) as err:
        parse_spec(text, file="sky.yaml", check_paths=False)
    assert (err.value.line, err.value.field) == (line, field), str(err.value)
    assert word in str(err.value)


def test_a_skyserve_service() -> None:
    loaded = parse_spec(
        """\
service:
  readiness_probe:
    path: /v1/models
    initial_delay_seconds: 1800
    headers: {Authorization: x}
  replicas: 2
resources:
  accelerators: {L4: 1}
  ports: [8000, 8001]
  image_id: docker:vllm/vllm-openai:latest
run: |
  vllm serve Qwen/Qwen2.5-7B-Instruct --port 8000
""",
        check_paths=False,
    )
    spec = loaded.spec
    assert spec.kind is JobKind.SERVICE and spec.service is not None
    assert (spec.service.port, spec.service.readiness_path) == (8000, "/v1/models")
    assert spec.service.readiness_timeout_s == 1800
    assert spec.image == "vllm/vllm-openai:latest"
    warned = {w.field for w in loaded.warnings}
    assert {"service.readiness_probe.headers", "service.replicas", "resources.ports"} <= warned


def test_ports_on_a_train_task_are_warned_about() -> None:
    loaded = parse_spec("num_nodes: 1\nresources: {ports: 6006}\nrun: x\n", check_paths=False)
    assert loaded.spec.kind is JobKind.TRAIN
    assert any(w.field == "resources.ports" for w in loaded.warnings)


def test_job_recovery_maps_to_the_recovery_policy() -> None:
    spec = parse_spec(
        "num_nodes: 2\nresources:\n  job_recovery:\n    strategy: EAGER_NEXT_REGION\n"
        "    max_restarts_on_errors: 5\nrun: x\ncheckpoint_dir: /c\nresume_arg: --r {latest}\n",
        check_paths=False,
    )
    assert spec.spec.recovery.max_restarts == 5
    assert RecoveryCause.EXIT_NONZERO in spec.spec.recovery.on
    assert any("EAGER_NEXT_REGION" in w.message for w in spec.warnings)
    plain = parse_spec(
        "num_nodes: 2\nresources:\n  job_recovery: FAILOVER\nrun: x\n", check_paths=False
    ).spec
    assert RecoveryCause.EXIT_NONZERO not in plain.recovery.on


def test_file_mounts_keep_local_paths_and_warn_about_buckets(load: Load) -> None:
    loaded = load(
        """
        num_nodes: 1
        file_mounts:
          /data/in.txt: data.txt
          /datasets: s3://my-bucket/data
          /ckpt:
            name: my-ckpt
            store: gcs
            mode: MOUNT
        run: x
        """
    )
    assert [m.target for m in loaded.spec.file_mounts] == ["/data/in.txt"]
    warned = {w.field: w.line for w in loaded.warnings}
    assert warned["file_mounts./datasets"] == 4 and warned["file_mounts./ckpt"] == 5


def test_xyclaw_fields_work_in_a_skypilot_file() -> None:
    spec = parse_spec(
        "num_nodes: 2\nresources: {accelerators: H800:8}\nrun: python train.py\n"
        "checkpoint_dir: /shared/ck\nresume_arg: --resume_from_checkpoint {latest}\n"
        "max_runtime: 12h\nbudget: 2000 CNY\nrelease_when_done: false\n",
        check_paths=False,
    ).spec
    assert spec.skypilot and spec.max_runtime_s == 12 * 3600
    assert spec.budget is not None and spec.budget.amount_micro == 2_000_000_000
    assert (spec.checkpoint_dir, spec.release_when_done) == ("/shared/ck", False)


def test_a_run_that_reads_skypilot_variables_is_a_skypilot_task() -> None:
    loaded = parse_spec("run: echo $SKYPILOT_NODE_RANK\n", check_paths=False)
    assert loaded.source_format == "skypilot" and loaded.spec.skypilot
    native = parse_spec("run: echo $XYCLAW_NODE_RANK\n", check_paths=False)
    assert native.source_format == "xyclaw" and not native.spec.skypilot
    forced = parse_spec("run: x\n", source_format="skypilot", check_paths=False)
    assert forced.spec.skypilot


SPOT_SHAPES = {
    "plain": "resources:\n  accelerators: A100:8\n  use_spot: {value}\n",
    "any_of": (
        "resources:\n  any_of:\n    - {{accelerators: A100:8, use_spot: {value}}}\n"
        "    - {{accelerators: H100:8, use_spot: false}}\n"
    ),
    "ordered": (
        "resources:\n  ordered:\n    - accelerators: A100:8\n      use_spot: {value}\n"
        "    - accelerators: A100:8\n"
    ),
}


@pytest.mark.parametrize("shape", sorted(SPOT_SHAPES))
@pytest.mark.parametrize("value", [True, False])
def test_use_spot_reads_as_spot_also_inside_any_of_and_ordered(
    load: Load, shape: str, value: bool
) -> None:
    text = SPOT_SHAPES[shape].format(value=str(value).lower()) + "run: python train.py\n"
    loaded = load(text, name=f"{shape}.yaml")
    assert loaded.source_format == "skypilot"
    assert loaded.spec.spot is value
    assert not [w for w in loaded.warnings if "use_spot" in w.field]


def test_xyclaws_own_spot_wins_over_use_spot_with_a_warning(load: Load) -> None:
    text = "resources:\n  accelerators: A100:8\n  use_spot: true\nspot: false\nrun: python x.py\n"
    loaded = load(text, name="both.yaml")
    assert loaded.spec.spot is False
    (warning,) = [w for w in loaded.warnings if w.field == "resources.use_spot"]
    assert "XyClaw's own `spot`" in warning.message and warning.line == 3


def test_use_spot_that_is_not_a_boolean_points_at_skypilots_field(load: Load) -> None:
    text = "resources:\n  accelerators: A100:8\n  use_spot: sometimes\nrun: python x.py\n"
    with pytest.raises(SpecError) as raised:
        load(text, name="bad.yaml")
    assert raised.value.line == 3 and "use_spot" in str(raised.value.field)
