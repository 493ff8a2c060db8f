"""Issue 29 "How well": task files in the shapes of SkyPilot's examples/ and llm/, each
through the dry run, against expectations written by hand (nodes, GPUs, environment, the
command each node runs, or the refusal and its reason)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from xyclaw.catalog import Catalog
from xyclaw.jobs.dryrun import HIDDEN, dry_run
from xyclaw.jobs.skypilot import task_script
from xyclaw.records import ClusterRecord, ClusterState
from xyclaw.records.clusters import NodeRecord, NodeState

SHAPES = Path(__file__).parent / "skypilot_shapes"
KNOWN = {g.name for g in Catalog.builtin().gpus}
NOW = 1_750_000_000.0
ENVIRON = {"HF_TOKEN": "hf_secret_value"}  # WANDB_API_KEY is not set

# file -> what the dry run must say: nodes, gpu, gpus_per_node, some environment values,
# a line of the user's run that the wrapped command holds, fields warned about; or the
# refusal's words.
EXPECTED: dict[str, dict[str, Any]] = {
    # nothing in it is SkyPilot's own: read as XyClaw's form, run as written on one node
    "minimal": {
        "format": "xyclaw",
        "nodes": 1,
        "gpu": None,
        "gpn": None,
        "env": {"XYCLAW_NUM_NODES": "1"},
        "run": 'echo "hello world"',
        "warned": set(),
    },
    "env_echo": {
        "nodes": 1,
        "gpu": None,
        "gpn": None,
        "env": {
            "MY_VAR": "hello",
            "SKYPILOT_NODE_RANK": "0",
            "SKYPILOT_TASK_ID": "sky-2025-06-15-15-06-40-000000_<new cluster>_0",
        },
        "run": 'echo "$MY_VAR $SKYPILOT_TASK_ID"',
        "warned": set(),
    },
    "torch_ddp": {
        "nodes": 2,
        "gpu": "A100-40G",
        "gpn": 8,
        "env": {
            "SKYPILOT_NUM_NODES": "2",
            "SKYPILOT_NUM_GPUS_PER_NODE": "8",
            "SKYPILOT_NODE_IPS": "<node 0>\n<node 1>",
        },
        "run": "--master_port=12375 --master_addr=$MASTER_ADDR --node_rank=$SKYPILOT_NODE_RANK",
        "warned": set(),
    },
    "vllm_serve": {
        "nodes": 1,
        "gpu": "L4",
        "gpn": 1,
        "env": {"MODEL_NAME": "meta-llama/Llama-3.1-8B-Instruct", "HF_TOKEN": HIDDEN},
        "run": "vllm serve $MODEL_NAME --port 8000",
        "warned": {"resources.accelerators", "service.replicas"},
    },
    "gpus_list": {
        "nodes": 1,
        "gpu": "H100",
        "gpn": 8,
        "env": {"SKYPILOT_NUM_GPUS_PER_NODE": "8"},
        "run": "python train.py",
        "warned": {"resources.accelerators", "resources.disk_size"},
    },
    "newer_gpus": {
        "nodes": 1,
        "gpu": "H200",
        "gpn": 8,
        "env": {"SKYPILOT_NUM_GPUS_PER_NODE": "8"},
        "run": "nvidia-smi",
        "warned": {"resources.infra"},
    },
    "fractional": {
        "nodes": 1,
        "gpu": "T4",
        "gpn": 1,
        "env": {"SKYPILOT_NUM_GPUS_PER_NODE": "1"},
        "run": "python small.py",
        "warned": {"resources.accelerators"},
    },
    "any_of": {
        "nodes": 1,
        "gpu": "L40S",
        "gpn": 4,
        "env": {"NPROC_PER_NODE": "4"},
        "run": "python infer.py",
        "warned": {"resources.any_of", "resources.any_of[0].cloud"},
    },
    "setup_rank": {
        "nodes": 3,
        "gpu": "V100",
        "gpn": 4,
        "env": {
            "SKYPILOT_SETUP_NODE_RANK": "0",
            "SKYPILOT_SETUP_NODE_IPS": "<node 0>\n<node 1>\n<node 2>",
        },
        "run": 'echo "$SKYPILOT_CLUSTER_INFO"',
        "setup": "setup on $SKYPILOT_SETUP_NODE_RANK",
        "warned": set(),
    },
    "bucket_mounts": {
        "nodes": 1,
        "gpu": None,
        "gpn": None,
        "env": {},
        "run": "python train.py --data /datasets",
        "warned": {"file_mounts./datasets", "file_mounts./ckpt"},
    },
    "gh200": {
        "nodes": 1,
        "gpu": "GH200",
        "gpn": 1,
        "env": {},
        "run": "python serve.py",
        "warned": {"resources.cpus"},
    },
    "rtx_a6000": {
        "nodes": 1,
        "gpu": "RTXA6000",
        "gpn": 2,
        "env": {"SKYPILOT_NUM_GPUS_PER_NODE": "2"},
        "run": "python launch.py --listen",
        "warned": {"resources.ports"},
    },
    "secrets": {
        "nodes": 1,
        "gpu": "L4",
        "gpn": 1,
        "env": {"EPOCHS": "3", "WANDB_API_KEY": HIDDEN},
        "run": "python train.py --epochs $EPOCHS",
        "warned": {"secrets", "envs"},
    },
    "job_recovery": {
        "nodes": 1,
        "gpu": "A10G",
        "gpn": 1,
        "env": {},
        "run": "python train.py",
        "warned": set(),
    },
    "b200_multi": {
        "nodes": 4,
        "gpu": "B200",
        "gpn": 8,
        "env": {"SKYPILOT_NUM_NODES": "4", "NNODES": "4"},
        "run": "torchrun --nnodes $SKYPILOT_NUM_NODES",
        "warned": {"resources.network_tier"},
    },
    "ray_train": {
        "nodes": 2,
        "gpu": "L4",
        "gpn": 2,
        "env": {"SKYPILOT_NODE_IPS": "<node 0>\n<node 1>", "SKYPILOT_NUM_GPUS_PER_NODE": "2"},
        "run": 'head_ip=`echo "$SKYPILOT_NODE_IPS" | head -n1`',
        "setup": "conda activate ray",
        "warned": set(),
    },
    "nccl_efa": {
        "nodes": 2,
        "gpu": "A100-40G",
        "gpn": 8,
        "env": {"USE_EFA": "true", "SKYPILOT_NUM_NODES": "2"},
        "run": "mpirun -np $NP all_reduce_perf",
        "warned": {"resources.infra", "resources.cpus", "config"},
    },
    "gemma_serve": {
        "nodes": 1,
        "gpu": "L4",
        "gpn": 1,
        "env": {"MODEL_NAME": "google/gemma-7b"},
        "run": "--tensor-parallel-size $SKYPILOT_NUM_GPUS_PER_NODE",
        "warned": {
            "resources.accelerators",
            "resources.disk_tier",
            "service.readiness_probe.post_data",
            "service.replica_policy",
        },
    },
    "llama3_spot": {
        "nodes": 1,
        "gpu": "L4",
        "gpn": 8,
        "env": {"SKYPILOT_NUM_GPUS_PER_NODE": "8"},
        "run": "vllm serve $MODEL_NAME --port 8081",
        "warned": {
            "resources.accelerators",
            "resources.disk_size",
            "resources.ports",
        },
    },
    "gpt2_any_of_clouds": {
        "nodes": 1,
        "gpu": "A100-40G",
        "gpn": 8,
        "env": {},
        "run": "mpirun -np $SKYPILOT_NUM_GPUS_PER_NODE ./train_gpt2cu",
        "warned": {
            "resources.any_of",
            "resources.any_of[0].cloud",
            "file_mounts.~/.cache/huggingface",
        },
    },
    "falcon_bucket_var": {
        "nodes": 1,
        "gpu": "A100-80G",
        "gpn": 1,
        "env": {"MODEL_NAME": "tiiuae/falcon-7b", "WANDB_API_KEY": HIDDEN},
        "run": "python train.py --model_name $MODEL_NAME",
        "warned": {"secrets", "envs", "file_mounts./results"},
    },
    "deepseek_ports_list": {
        "nodes": 1,
        "gpu": "L4",
        "gpn": 1,
        "env": {"MAX_MODEL_LEN": "4096"},
        "run": "--max-model-len $MAX_MODEL_LEN",
        "warned": {"resources.accelerators", "resources.ports"},
    },
    "timm_candidates": {
        "nodes": 1,
        "gpu": "T4",
        "gpn": 4,
        "env": {"NPROC_PER_NODE": "4"},
        "run": "--nproc_per_node=4 train.py",
        "warned": {"resources.candidates"},
    },
    "git_workdir": {
        "nodes": 2,
        "gpu": "H100",
        "gpn": 8,
        "env": {"SKYPILOT_NUM_NODES": "2"},
        "run": "cd ~/sky_workdir\ntorchrun --nnodes $SKYPILOT_NUM_NODES train.py",
        "setup": "git clone --quiet https://github.com/karpathy/nanoGPT ~/sky_workdir",
        "warned": {"workdir"},
    },
    "env_mount": {
        "nodes": 1,
        "gpu": None,
        "gpn": None,
        "env": {"DATA": "/data"},
        "run": "ls $DATA",
        "warned": {"file_mounts.${DATA}/bucket"},  # the field as written
    },
    "inferentia": {"refused": ["Neuron SDK"], "line": 3},
    "tpu": {"refused": ["TPUs are not GPUs"], "line": 2},
    "mi300": {"refused": ["AMD GPUs are planned", "NVIDIA-only"], "line": 2},
    "pool": {"refused": ["SkyPilot pool"], "line": 1},
    # a job group's tasks run at once and talk to each other: run in order they would hang
    "job_group": {"refused": ["SkyPilot job group", "execution: parallel"], "line": 4},
    # SkyServe v2: a model id, no command; refused as what it is, not as a cluster-only file
    "serve_model": {"refused": ["SkyServe model spec", "vllm serve Qwen/Qwen2.5-7B"], "line": 2},
    # examples/serve/llama-3-8b.yaml: nothing but the model id (no XyClaw field is `model`)
    "serve_model_only": {"refused": ["SkyServe model spec", "resources.ports: 8000"], "line": 3},
    # `sky launch` ignores `service`; without a port it runs as a job, with a warning
    "serve_no_port": {
        "nodes": 1,
        "gpu": "L4",
        "gpn": 1,
        "env": {"MODEL_NAME": "Qwen/Qwen1.5-7B-Chat", "SKYPILOT_NUM_GPUS_PER_NODE": "1"},
        "run": "--tensor-parallel-size $SKYPILOT_NUM_GPUS_PER_NODE",
        "warned": {"service"},
    },
}


def test_every_shape_has_an_expectation() -> None:
    assert {p.stem for p in SHAPES.glob("*.yaml")} == set(EXPECTED) | {"chain_dag", "serial_group"}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_the_dry_run_matches_the_hand_written_expectation(name: str) -> None:
    want = EXPECTED[name]
    got = dry_run(SHAPES / f"{name}.yaml", known_gpus=KNOWN, environ=ENVIRON, now=NOW)
    data = got.to_json()
    json.dumps(data)  # --json prints it as it is
    if "refused" in want:
        assert not got.accepted and got.refusal is not None
        for words in want["refused"]:
            assert words in got.refusal.message + (got.refusal.hint or "")
        assert got.refusal.line == want["line"]
        return
    assert got.accepted, got.refusal
    assert (got.nodes, got.gpu, got.gpus_per_node) == (want["nodes"], want["gpu"], want["gpn"])
    for key, value in want["env"].items():
        assert got.environment[key] == value, key
    assert "hf_secret_value" not in json.dumps(data)  # a secret's value is never shown
    assert got.run is not None and want["run"] in got.run
    if want.get("format") == "xyclaw":
        assert got.source_format == "xyclaw" and "bash -i" not in got.run
    else:  # SkyPilot's task script, through bash -i
        assert got.source_format == "skypilot" and got.run.startswith(task_script("")[:30])
    if "setup" in want:
        assert got.setup is not None and want["setup"] in got.setup
    fields = {w.field for w in got.warnings if "no checkpoint_dir" not in w.message}
    assert fields == want["warned"], [(w.field, w.message) for w in got.warnings]
    assert all(w.line is not None for w in got.warnings if w.field != "envs")


def test_a_pipeline_is_its_tasks_in_order_with_their_own_lines() -> None:
    got = dry_run(SHAPES / "chain_dag.yaml", known_gpus=KNOWN, environ=ENVIRON, now=NOW)
    assert got.accepted and [t.name for t in got.tasks] == ["simple-1", "simple-2"]
    first, second = got.tasks
    assert (first.nodes, first.gpu, second.nodes) == (1, None, 1)
    assert first.run is not None and "echo run for task 1" in first.run
    assert second.run is not None and "echo run for task 2" in second.run
    assert [w.line for w in first.warnings] == [5] and [w.line for w in second.warnings] == [8]


def test_a_service_without_a_port_runs_as_the_job_sky_launch_runs() -> None:
    got = dry_run(SHAPES / "serve_no_port.yaml", known_gpus=KNOWN, environ=ENVIRON, now=NOW)
    assert got.accepted and got.loaded is not None
    assert got.loaded.spec.service is None
    (warning,) = [w for w in got.warnings if w.field == "service"]
    assert warning.line == 5 and "as `sky launch` runs it" in warning.message


def test_a_serial_job_group_header_is_the_pipeline_s_own_and_its_tasks_run_in_order() -> None:
    got = dry_run(SHAPES / "serial_group.yaml", known_gpus=KNOWN, environ=ENVIRON, now=NOW)
    assert got.accepted and [t.name for t in got.tasks] == ["prepare", "train"]
    assert (got.tasks[0].gpu, got.tasks[1].gpu, got.tasks[1].gpus_per_node) == (None, "A100-40G", 1)


def _cluster(gpu: str, nodes: int) -> ClusterRecord:
    return ClusterRecord(
        id=1,
        provider_id="ssh",
        external_id=None,
        name="lab",
        state=ClusterState.READY,
        gpu=gpu,
        gpu_count=8 * nodes,
        gpus_per_node=8,
        fabric="ib-hdr-200",
        region=None,
        currency="CNY",
        price_per_gpu_hour_micros=0,
        budget_micros=None,
        idempotency_key=None,
        keep_partial=False,
        image=None,
        error=None,
        worker_pid=None,
        budget_warned_at=None,
        created_at=NOW,
        ready_at=NOW,
        release_requested_at=None,
        released_at=None,
        last_seen_at=None,
        nodes=tuple(
            NodeRecord(
                id=i + 1,
                cluster_id=1,
                rank=i,
                external_id=None,
                hostname=f"n{i}",
                ssh_host=f"10.0.0.{i + 1}",
                ssh_port=22,
                ssh_user="me",
                host_key=None,
                state=NodeState.RUNNING,
                error=None,
                running_at=NOW,
                terminated_at=None,
            )
            for i in range(nodes)
        ),
    )


def test_on_a_cluster_with_another_gpu_the_difference_is_warned() -> None:
    got = dry_run(SHAPES / "torch_ddp.yaml", known_gpus=KNOWN, cluster=_cluster("A800", 4))
    assert got.accepted and got.where == "lab" and got.nodes == 2  # num_nodes, not all 4
    assert got.environment["SKYPILOT_NODE_IPS"] == "10.0.0.1\n10.0.0.2"
    assert any("asks for A100-40G but cluster lab has A800" in w.message for w in got.warnings)


def test_a_cpu_task_without_num_nodes_runs_once_on_a_bigger_cluster() -> None:
    got = dry_run(SHAPES / "env_echo.yaml", known_gpus=KNOWN, cluster=_cluster("H100", 2))
    assert got.nodes == 1 and got.environment["SKYPILOT_NUM_NODES"] == "1"
    info = json.loads(got.environment["SKYPILOT_CLUSTER_INFO"])
    assert info["cluster_name"] == "lab" and info["cloud"] == "ssh"


def test_an_uncatalogued_gpu_runs_on_a_cluster_with_a_note(tmp_path: Path) -> None:
    spec = tmp_path / "old.yaml"
    spec.write_text("resources:\n  accelerators: RTX2080Ti:8\nrun: python x.py\n")
    refused = dry_run(spec, known_gpus=KNOWN)
    assert not refused.accepted and refused.refusal is not None
    assert refused.refusal.line == 2 and "--cluster" in (refused.refusal.hint or "")
    got = dry_run(spec, known_gpus=KNOWN, cluster=_cluster("RTX2080TI", 1))
    assert got.accepted
    assert any("estimates are missing" in w.message for w in got.warnings)


def test_uploads_are_summed_not_listed(tmp_path: Path) -> None:
    work = tmp_path / "work"
    (work / "pkg").mkdir(parents=True)
    for i in range(5):
        (work / "pkg" / f"m{i}.py").write_text("x" * 10)
    spec = tmp_path / "task.yaml"
    spec.write_text(f"num_nodes: 1\nworkdir: {work}\nrun: python -m pkg\n")
    got = dry_run(spec, known_gpus=KNOWN)
    [upload] = got.uploads
    assert (upload.files, upload.bytes) == (5, 50)
