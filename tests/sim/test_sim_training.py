"""The training process: progress, GPU load, checkpoints on the shared volume, signals, exit."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from pathlib import Path

from tests.sim.conftest import Client
from xyclaw.sim.node import SimClusterInfo, SimNode

SCRIPT = "# sim: steps=40 save_every=20\nimport torch\n"
STEP = re.compile(
    r"^step (\d+)/(\d+) \| loss ([\d.]+) \| lr [\d.e+-]+ \| grad_norm [\d.]+ \| "
    r"tokens/s ([\d.]+) \| step_time ([\d.]+)s \| mem [\d.]+GiB$"
)


def _cluster(tmp_path: Path, n: int = 2) -> SimClusterInfo:
    return SimClusterInfo(
        tuple(f"node-{i}" for i in range(n)), gpus_per_node=8, shared_dir=tmp_path / "shared"
    )


def _upload(ssh, text: str = SCRIPT, name: str = "train.py") -> None:
    sftp = ssh.ssh.open_sftp()
    with sftp.open(name, "w") as handle:
        handle.write(text)
    sftp.close()


def _wait_for(predicate: Callable[[], bool], timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return False


def test_torchrun_prints_progress_and_saves_checkpoints(make_node, connect, tmp_path) -> None:
    node = make_node(cluster=_cluster(tmp_path))
    ssh = connect(node)
    _upload(ssh)
    r = ssh.run("torchrun --nproc_per_node=8 train.py --model llama-7b --run_name demo")
    assert r.status == 0, r.err
    steps = [STEP.match(line) for line in r.out.splitlines() if line.startswith("step ")]
    assert len(steps) == 40 and all(steps)
    losses = [float(m.group(3)) for m in steps if m]
    assert losses[-1] < losses[0]
    tokens = float(steps[0].group(4)) if steps[0] else 0.0
    assert 15000 < tokens < 40000  # 8 x A800 on a 7B model, ~42% MFU
    assert "checkpoint saved: /shared/checkpoints/demo/checkpoint-20 (step 20)" in r.out
    assert r.out.rstrip().splitlines()[-1].startswith("training finished: 40 steps")
    state = tmp_path / "shared/checkpoints/demo/checkpoint-40/trainer_state.json"
    meta = json.loads(state.read_text())
    assert meta["global_step"] == 40 and meta["world_size"] == 8
    assert "OMP_NUM_THREADS" in r.err  # torchrun's banner goes to stderr


def test_resume_continues_from_the_shared_checkpoint(make_node, connect, tmp_path) -> None:
    cluster = _cluster(tmp_path)
    first = make_node("node-0", cluster=cluster)
    second = make_node("node-1", cluster=cluster)
    a = connect(first)
    _upload(a, "# sim: steps=30 save_every=10 fail_at_step=25\n")
    r = a.run("torchrun --nproc_per_node=8 train.py --run_name job")
    assert r.status == 1
    assert "ChildFailedError" in r.err
    b = connect(second)
    _upload(b, "# sim: steps=30 save_every=10\n")
    r = b.run("torchrun --nproc_per_node=8 train.py --run_name job --resume auto")
    assert r.status == 0
    assert "resumed from /shared/checkpoints/job/checkpoint-20 (step 20)" in r.out
    first_step = next(line for line in r.out.splitlines() if line.startswith("step "))
    assert first_step.startswith("step 21/30")


def test_training_drives_gpu_utilization_memory_and_power(make_node, connect) -> None:
    node = make_node(time_scale=0.02)
    ssh = connect(node)
    _upload(ssh, "# sim: steps=100000\n")
    idle_power = node.gpus[0].power_w
    ssh.run("nohup torchrun --nproc_per_node=4 train.py > train.log 2>&1 &")
    assert _wait_for(lambda: "step 2/" in ssh.run("cat train.log").out)
    time.sleep(0.6)
    rows = ssh.run(
        "nvidia-smi --query-gpu=utilization.gpu,memory.used,power.draw "
        "--format=csv,noheader,nounits"
    ).out.splitlines()
    busy = [tuple(float(x) for x in row.split(", ")) for row in rows[:4]]
    idle = [tuple(float(x) for x in row.split(", ")) for row in rows[4:]]
    assert all(u > 80 and mem > 10000 for u, mem, _ in busy)
    assert all(u == 0 and mem == 0 for u, mem, _ in idle)
    assert all(p > idle_power + 100 for _, _, p in busy)
    apps = ssh.run("nvidia-smi --query-compute-apps=pid,process_name --format=csv,noheader").out
    assert len(apps.splitlines()) == 4
    assert ssh.run("pkill -f train.py").status == 0
    assert _wait_for(lambda: node.machine.procs.match("train.py", full=True) == [])
    assert _wait_for(lambda: all(not g.loads for g in node.gpus))
    assert "Received Signals.SIGTERM death signal" in ssh.run("cat train.log").out


def test_kill_9_of_a_worker_fails_the_job(make_node, connect) -> None:
    node = make_node(time_scale=0.02)
    ssh = connect(node)
    _upload(ssh, "# sim: steps=100000\n")
    channel = ssh.ssh.get_transport().open_session()
    channel.exec_command("torchrun --nproc_per_node=2 train.py")
    assert _wait_for(lambda: len(node.machine.procs.match("^/usr/bin/python3", full=True)) == 2)
    worker = node.machine.procs.match("^/usr/bin/python3", full=True)[1]
    assert ssh.run(f"kill -9 {worker.pid}").status == 0
    assert channel.recv_exit_status() == 1
    err = channel.makefile_stderr("rb").read().decode()
    assert f"failed (exitcode: -9) local_rank: 1 (pid: {worker.pid})" in err


def test_closing_the_session_stops_a_foreground_training(make_node, connect) -> None:
    node = make_node(time_scale=0.02)
    ssh = connect(node)
    _upload(ssh, "# sim: steps=100000\n")
    channel = ssh.ssh.get_transport().open_session()
    channel.exec_command("python train.py")
    assert _wait_for(lambda: node.machine.procs.match("train.py", full=True) != [])
    channel.close()
    assert _wait_for(lambda: node.machine.procs.match("train.py", full=True) == [])


def test_python_launcher_and_missing_script(ssh) -> None:
    r = ssh.run("python3 nope.py")
    assert r.status == 2
    assert "can't open file '/root/nope.py': [Errno 2] No such file or directory" in r.err
    assert ssh.run("python3 --version").out == "Python 3.10.12\n"
    r = ssh.run('python -c "import torch; print(torch.cuda.device_count())"')
    assert r.out == "8\n"


def test_out_of_memory_on_a_small_gpu(make_node, connect) -> None:
    node = make_node(gpu_model="RTX4090", gpu_count=1, fabric="eth-25")
    ssh = connect(node)
    _upload(ssh, "# sim: steps=10\n")
    r = ssh.run("python train.py --model_name_or_path meta-llama/Llama-2-13b-hf")
    assert r.status == 1
    assert "torch.OutOfMemoryError: CUDA out of memory." in r.err


def test_multi_node_rank_one_is_quiet_and_master_must_resolve(make_node, connect, tmp_path) -> None:
    node = make_node("node-1", cluster=_cluster(tmp_path))
    ssh = connect(node)
    _upload(ssh, "# sim: steps=5\n")
    r = ssh.run(
        "torchrun --nnodes=2 --node_rank=1 --master_addr=node-0 --nproc_per_node=8 train.py"
    )
    assert r.status == 0
    assert "step " not in r.out
    r = ssh.run("torchrun --nnodes=2 --node_rank=1 --master_addr=ghost --nproc_per_node=8 train.py")
    assert r.status == 1
    assert "Name or service not known" in r.err


def test_socket_fallback_slows_multi_node_training(make_node, connect, tmp_path) -> None:
    node: SimNode = make_node(cluster=_cluster(tmp_path))
    ssh = connect(node)
    _upload(ssh, "# sim: steps=3\n")
    command = "torchrun --nnodes=2 --node_rank=0 --master_addr=node-0 --nproc_per_node=8 train.py"

    def tokens(out: str) -> float:
        return min(float(m.group(4)) for m in map(STEP.match, out.splitlines()) if m)

    good = tokens(ssh.run(command).out)
    slow = tokens(ssh.run(f"NCCL_IB_HCA=mlx5_9 {command}").out)
    assert slow < good * 0.8


def test_every_rank_prints_its_environment_under_torchrun_with_rank_prefixes(
    make_node, connect, tmp_path
) -> None:
    cluster = _cluster(tmp_path)
    nodes = [make_node(f"node-{i}", cluster=cluster) for i in range(2)]
    outs = []
    for rank, node in enumerate(nodes):
        ssh = connect(node)
        _upload(ssh, "# sim: steps=3 print_env=1\n")
        r = ssh.run(
            f"NODE_RANK={rank} NNODES=2 XYCLAW_NUM_NODES=2 NCCL_IB_HCA=mlx5 torchrun --tee 3 "
            f"--nnodes 2 --nproc_per_node 8 --node_rank {rank} --master_addr node-0 "
            "--master_port 29400 train.py"
        )
        assert r.status == 0, r.err
        outs.append(r.out)
    envs = [line for out in outs for line in out.splitlines() if "env rank=" in line]
    assert len(envs) == 16
    ranks = set()
    for line in envs:
        m = re.match(r"\[default(\d)\]:env rank=(\d+) local_rank=(\d) host=node-(\d): (.*)", line)
        assert m, line
        local, rank, node = int(m.group(1)), int(m.group(2)), int(m.group(4))
        assert int(m.group(3)) == local and rank == node * 8 + local
        ranks.add(rank)
        words = dict(word.split("=", 1) for word in m.group(5).split())
        assert words["RANK"] == str(rank) and words["LOCAL_RANK"] == str(local)
        assert words["WORLD_SIZE"] == "16" and words["LOCAL_WORLD_SIZE"] == "8"
        assert words["MASTER_ADDR"] == "node-0" and words["MASTER_PORT"] == "29400"
        assert words["NODE_RANK"] == str(node) and words["GROUP_RANK"] == str(node)
        assert words["NNODES"] == "2" and words["XYCLAW_NUM_NODES"] == "2"
        assert words["NCCL_IB_HCA"] == "mlx5"
    assert ranks == set(range(16))
    steps = [line for line in outs[0].splitlines() if "step 3/3" in line]
    assert steps and steps[0].startswith("[default0]:step 3/3 | loss")
    assert not any(line.startswith("[default0]:step") for line in outs[1].splitlines())


def test_checkpoint_dir_from_the_environment_and_resume_from_a_path(
    make_node, connect, tmp_path
) -> None:
    node = make_node(cluster=_cluster(tmp_path))
    ssh = connect(node)
    _upload(ssh, "# sim: steps=30 save_every=10 fail_at_step=25\n")
    r = ssh.run("CHECKPOINT_DIR=/shared/ck python train.py --model llama-1b")
    assert r.status == 1
    folders = sorted(p.name for p in (tmp_path / "shared/ck").iterdir())
    assert folders == ["checkpoint-10", "checkpoint-20"]
    assert (tmp_path / "shared/ck/checkpoint-20/trainer_state.json").is_file()
    _upload(ssh, "# sim: steps=30 save_every=10\n")
    r = ssh.run(
        "python train.py --model llama-1b --output_dir /shared/ck "
        "--resume_from_checkpoint /shared/ck/checkpoint-10"
    )
    assert r.status == 0, r.err
    assert "resumed from /shared/ck/checkpoint-10 (step 10)" in r.out
    assert next(x for x in r.out.splitlines() if x.startswith("step ")).startswith("step 11/30")


def test_a_save_cut_short_leaves_no_trainer_state(make_node, connect, tmp_path) -> None:
    node = make_node(cluster=_cluster(tmp_path), time_scale=0.1)
    ssh = connect(node)
    # 13B: a save takes ~15 simulated seconds, 1.5 s here; the job is killed during the first
    _upload(ssh, "# sim: steps=100 save_every=1 seq_len=512\n")
    ssh.run(
        "nohup torchrun --nproc_per_node 8 train.py --model llama-13b --output_dir /shared/c "
        "> log 2>&1 &"
    )
    folder = tmp_path / "shared/c/checkpoint-1"
    assert _wait_for(lambda: (folder / "model.safetensors").is_file(), timeout=20)
    assert ssh.run("pkill -9 -f train.py").status == 0
    assert _wait_for(lambda: node.machine.procs.match("train.py", full=True) == [])
    assert not (folder / "trainer_state.json").exists()
    r = ssh.run(
        "torchrun --nproc_per_node 8 train.py --model llama-13b --output_dir /shared/c "
        "--resume auto --max_steps 1"
    )
    assert "no checkpoint found in /shared/c; starting from step 0" in r.out


def test_pip_install_on_a_node_says_nothing_can_be_installed(ssh) -> None:  # type: ignore[no-untyped-def]
    # issue 30: an install on the simulated node fails with one honest line, never a fake
    # "Requirement already satisfied" for something its image does not have
    _upload(ssh, "transformers>=4.44\nflash-attn==2.6\n", "requirements.txt")
    done = ssh.run("pip install -r requirements.txt && echo installed")
    assert done.status == 1 and done.out == ""
    assert done.err == (
        "simulated node: no network; nothing can be installed here; "
        "use your own host or a provider for real setup\n"
    )
    assert ssh.run("pip3 install flash-attn").err == done.err
    assert ssh.run("python3 -m pip install bitsandbytes").err == done.err
    assert ssh.run("pip --version").status == 0
    assert ssh.run("which pip").out.strip() == "/usr/bin/pip"


def test_pip_install_of_what_the_image_ships_says_so_and_installs_nothing(ssh) -> None:  # type: ignore[no-untyped-def]
    # the bundled examples' setup (transformers, peft, datasets, accelerate) runs on the demo
    # cloud: pip's own answer where they are present, then a line saying nothing was installed
    _upload(ssh, "transformers>=4.45\npeft>=0.13  # LoRA\ndatasets>=3.0\n", "requirements.txt")
    done = ssh.run("pip install -r requirements.txt && echo installed")
    assert done.status == 0
    site = "/usr/local/lib/python3.10/dist-packages"
    assert done.out.splitlines() == [
        f"Requirement already satisfied: transformers>=4.45 in {site}",
        f"Requirement already satisfied: peft>=0.13 in {site}",
        f"Requirement already satisfied: datasets>=3.0 in {site}",
        "simulated node: these come with its image; nothing was installed or downloaded",
        "installed",
    ]
    assert ssh.run('python3 -m pip install "vllm>=0.6"').status == 0


def _trained(ssh: Client, command: str) -> tuple[float, float]:
    """(wall seconds, simulated seconds it says it spent) of one training run."""
    started = time.monotonic()
    r = ssh.run(command)
    wall = time.monotonic() - started
    assert r.status == 0, r.err
    done = re.search(r"training finished: \d+ steps, final loss [\d.]+, ([\d.]+)s", r.out)
    assert done, r.out[-500:]
    return wall, float(done.group(1))
