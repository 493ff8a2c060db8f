"""The training process of a simulated node: `torchrun ... train.py`, `python train.py`.

Any Python script that exists on the node runs as a training job whose
shape comes from its command line (`--model`, `--max_steps`, `--save_steps`,
`--output_dir`, `--resume`...) and from `# sim: key=value` comment lines
in the script. Step time follows from FLOPs (6 x params x tokens, 4x for
LoRA), the GPUs' peak, the health of every GPU it uses and the network
NCCL picked; while it runs it holds GPU memory and drives utilization and
power, writes checkpoints to the shared volume, and reacts to signals and
faults the way PyTorch does.
"""

from __future__ import annotations

import dataclasses
import json
import math
import posixpath
import random
import re
import shlex
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from xyclaw.sim import limits, serving
from xyclaw.sim.context import Ctx
from xyclaw.sim.fabric import job_rail_factor
from xyclaw.sim.gpu import Load
from xyclaw.sim.lockstep import Lockstep
from xyclaw.sim.lockstep import join as join_peers
from xyclaw.sim.nccl import choose_network, link_model, nccl_debug_lines
from xyclaw.sim.procs import SIGABRT, SIGINT, SIGKILL, Proc, signal_name
from xyclaw.sim.vfs import FsError

PYTHON = "/usr/bin/python3"
PYTHON_VERSION = "Python 3.10.12"
TORCH_VERSION = "2.4.1+cu124"
DEFAULT_MFU = 0.42
PFS_BYTES_S = 12.5e9  # 100 Gb/s parallel file system
LOAD_SECONDS_PER_B = 1.5
NCCL_TIMEOUT_S = 600.0
#: How often a hung rank's watchdog reads its debug pipe (PyTorch's monitor checks it
#: every TORCH_NCCL_COORD_CHECK_MILSEC, 1000 ms by default), in simulated seconds.
_PIPE_POLL_S = 1.0
STATE_FILE = "trainer_state.json"  # written last: its presence marks a complete checkpoint


class TrainingError(Exception):
    """A training job could not start; the text is what the launcher prints."""

    def __init__(self, message: str, status: int = 1) -> None:
        super().__init__(message)
        self.status = status


@dataclass
class TrainConfig:
    script: str
    script_args: list[str]
    model: str = "llama-7b"
    params_b: float = 7.0
    steps: int = 1000
    save_every: int = 200
    log_every: int = 1
    seq_len: int = 4096
    micro_batch: int = 4
    grad_accum: int = 1
    global_batch: int | None = None
    lora: bool = False
    quant4: bool = False
    output_dir: str | None = None
    run_name: str = "run"
    resume: str | None = None
    lr: float = 3e-4
    seed: int = 1234
    mfu: float = DEFAULT_MFU
    nccl_timeout_s: float = NCCL_TIMEOUT_S
    fail_at_step: int | None = None
    finetune: bool = False
    print_env: bool = False
    busy_loop: bool = False  # 100% utilization, no tensor work: a spin, at idle-like power


@dataclass
class Launch:
    """How the job was started: which launcher, how many local workers, which node rank."""

    launcher: str  # torchrun, python, deepspeed
    nproc: int
    nnodes: int
    node_rank: int
    master_addr: str | None
    devices: list[int]
    master_port: int = 29500
    tee: int = 0  # torchrun --tee: 1 stdout, 2 stderr, 3 both get the rank prefix
    prefix_template: str = "[${role_name}${local_rank}]:"


_ARG_KEYS: dict[str, str] = {
    "model": "model",
    "model_name_or_path": "model_path",
    "model_name": "model",
    "model_size": "model",
    "model_path": "model_path",
    "max_steps": "steps",
    "steps": "steps",
    "train_iters": "steps",
    "total_steps": "steps",
    "num_steps": "steps",
    "save_steps": "save_every",
    "save_every": "save_every",
    "save_interval": "save_every",
    "checkpoint_every": "save_every",
    "ckpt_every": "save_every",
    "logging_steps": "log_every",
    "log_interval": "log_every",
    "log_every": "log_every",
    "seq_len": "seq_len",
    "seq_length": "seq_len",
    "max_seq_length": "seq_len",
    "block_size": "seq_len",
    "max_length": "seq_len",
    "per_device_train_batch_size": "micro_batch",
    "micro_batch_size": "micro_batch",
    "batch_size": "micro_batch",
    "gradient_accumulation_steps": "grad_accum",
    "global_batch_size": "global_batch",
    "output_dir": "output_dir",
    "save": "output_dir",
    "save_dir": "output_dir",
    "checkpoint_dir": "output_dir",
    "ckpt_dir": "output_dir",
    "run_name": "run_name",
    "job_name": "run_name",
    "exp_name": "run_name",
    "resume": "resume",
    "resume_from_checkpoint": "resume",
    "resume_from": "resume",
    "load": "resume",
    "learning_rate": "lr",
    "lr": "lr",
    "seed": "seed",
    "mfu": "mfu",
    "ddp_timeout": "nccl_timeout_s",
    "sim_fail_at_step": "fail_at_step",
    "fail_at_step": "fail_at_step",
}
_FLAG_KEYS = {
    "lora": "lora",
    "use_lora": "lora",
    "qlora": "quant4",
    "load_in_4bit": "quant4",
    "print_env": "print_env",
}
# What a worker's environment print shows: the rendezvous and what XyClaw and NCCL set.
_ENV_KEYS = frozenset(
    {
        "RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "GROUP_RANK", "ROLE_RANK",
        "MASTER_ADDR", "MASTER_PORT", "NODE_RANK", "NNODES", "NPROC_PER_NODE",
        "CUDA_VISIBLE_DEVICES", "CHECKPOINT_DIR",
    }
)  # fmt: skip
_ENV_PREFIXES = ("XYCLAW_", "NCCL_", "SKYPILOT_", "TORCHELASTIC_")


def parse_config(script: str, script_args: list[str], directives: dict[str, str]) -> TrainConfig:
    cfg = TrainConfig(script=script, script_args=list(script_args))
    values: dict[str, str] = dict(directives)
    i = 0
    while i < len(script_args):
        arg = script_args[i]
        if arg.startswith("--"):
            name, eq, value = arg[2:].partition("=")
            name = name.replace("-", "_")
            if name in _FLAG_KEYS and not eq:
                values[_FLAG_KEYS[name]] = "true"
            elif (
                name in ("peft", "method", "finetuning_type")
                and not eq
                and i + 1 < len(script_args)
            ):
                values["lora"] = "true" if "lora" in script_args[i + 1].lower() else "false"
                i += 1
            elif name in _ARG_KEYS:
                if not eq and i + 1 < len(script_args) and not script_args[i + 1].startswith("--"):
                    value = script_args[i + 1]
                    i += 1
                values[_ARG_KEYS[name]] = value or "true"
        i += 1
    for key, value in values.items():
        _apply(cfg, key, value)
    if cfg.steps < 1:
        cfg.steps = 1
    if cfg.save_every < 1:
        cfg.save_every = cfg.steps
    return cfg


def _apply(cfg: TrainConfig, key: str, value: str) -> None:
    if key in ("model", "model_path"):
        cfg.model = posixpath.basename(value.rstrip("/")) or value
        cfg.finetune = cfg.finetune or key == "model_path"
        m = re.search(r"(\d+(?:\.\d+)?)\s*[bB](?![a-zA-Z])", value)
        if m:
            cfg.params_b = float(m.group(1))
    elif key in (
        "steps",
        "save_every",
        "log_every",
        "seq_len",
        "micro_batch",
        "grad_accum",
        "seed",
    ):
        setattr(cfg, key, int(float(value)))
    elif key == "global_batch":
        cfg.global_batch = int(value)
    elif key in ("lr", "mfu", "nccl_timeout_s"):
        setattr(cfg, key, float(value))
    elif key == "print_env":
        cfg.print_env = value.lower() in ("1", "true", "yes")
    elif key == "busy_loop":
        cfg.busy_loop = value.lower() in ("1", "true", "yes")
    elif key in ("lora", "quant4"):
        setattr(cfg, key, value.lower() in ("1", "true", "yes", "lora", "qlora"))
        if key == "quant4" and cfg.quant4:
            cfg.lora = True
    elif key == "fail_at_step":
        cfg.fail_at_step = int(value)
    elif key in ("output_dir", "run_name", "resume"):
        setattr(cfg, key, value)
    elif key == "params_b":
        cfg.params_b = float(value)


def _directives(text: str) -> dict[str, str]:
    """`# sim: steps=100 save_every=50` lines in the script."""
    out: dict[str, str] = {}
    for line in text.splitlines():
        m = re.match(r"\s*#\s*sim:\s*(.*)", line)
        if m:
            for item in m.group(1).split():
                key, eq, value = item.partition("=")
                if eq:
                    out[key.strip()] = value.strip()
    return out


@dataclass
class _Job:
    ctx: Ctx
    cfg: TrainConfig
    launch: Launch
    main: Proc
    workers: list[Proc] = field(default_factory=list)
    crash: tuple[int, str] | None = None  # (local rank, CUDA error)
    worker_signal: tuple[int, int] | None = None  # (local rank, signal)
    lock: threading.Lock = field(default_factory=threading.Lock)


# -- launchers ---------------------------------------------------------------------------------


def python(ctx: Ctx) -> int:
    args = list(ctx.args)
    while args and args[0] in ("-u", "-B", "-O", "-OO", "-E", "-s", "-S", "-I", "-q"):
        args.pop(0)
    if not args:
        ctx.err("xyclaw-sim: the interactive Python prompt is not available on this node\n")
        return 1
    first = args[0]
    if first in ("--version", "-V"):
        ctx.out(PYTHON_VERSION + "\n")
        return 0
    if first == "-c":
        return _python_c(ctx, args[1] if len(args) > 1 else "")
    if first == "-m":
        module = args[1] if len(args) > 1 else ""
        if module in ("torch.distributed.run", "torch.distributed.launch"):
            return _launch(ctx, "torchrun", args[2:])
        if module == "vllm.entrypoints.openai.api_server":
            return serving.api_server(ctx, args[2:])
        if module == "pip":
            return limits.pip(dataclasses.replace(ctx, argv=["pip", *args[2:]]))
        ctx.err(limits.not_supported(f"python -m {module}") + "\n")
        return limits.STATUS
    return _launch(ctx, "python", args)


def torchrun(ctx: Ctx) -> int:
    return _launch(ctx, "torchrun", list(ctx.args))


def deepspeed(ctx: Ctx) -> int:
    return _launch(ctx, "deepspeed", list(ctx.args))


def _python_c(ctx: Ctx, code: str) -> int:
    machine = ctx.machine
    answers = {
        "torch.cuda.device_count()": str(len(_visible_devices(ctx))),
        "torch.cuda.is_available()": "True" if _visible_devices(ctx) else "False",
        "torch.__version__": TORCH_VERSION,
        "torch.version.cuda": "12.4",
        "torch.cuda.nccl.version()": "(2, 21, 5)",
        "torch.cuda.get_device_name(0)": f"'{machine.gpus.model.name}'",
    }
    printed = re.findall(r"print\((.*?)\)\s*(?:;|$)", code)
    if not printed or any(p.strip() not in answers for p in printed):
        ctx.err(
            "xyclaw-sim: python -c only answers print() of torch.cuda.device_count(), "
            "torch.cuda.is_available(), torch.__version__, torch.version.cuda, "
            "torch.cuda.nccl.version() and torch.cuda.get_device_name(0)\n"
        )
        return 1
    for expr in printed:
        ctx.out(answers[expr.strip()].strip("'") + "\n")
    return 0


def _visible_devices(ctx: Ctx) -> list[int]:
    visible = [g.index for g in ctx.machine.gpus.visible()]
    cvd = ctx.env.get("CUDA_VISIBLE_DEVICES")
    if cvd is None:
        return visible
    chosen: list[int] = []
    for item in cvd.split(","):
        item = item.strip()
        if item.isdigit() and int(item) < len(visible):
            chosen.append(visible[int(item)])
        elif not item.isdigit():
            break
    return chosen


def _int_or(value: str, default: int) -> int:
    try:
        return int(value.split(":")[-1])
    except ValueError:
        return default


def _launch(ctx: Ctx, launcher: str, args: list[str]) -> int:
    env = ctx.env
    devices = _visible_devices(ctx)
    nproc = 1
    nnodes = (
        _int_or(env.get("NNODES", env.get("WORLD_SIZE", "1")), 1) if launcher == "python" else 1
    )
    node_rank = _int_or(env.get("NODE_RANK", env.get("RANK", "0")), 0)
    master_addr = env.get("MASTER_ADDR")
    master_port = _int_or(env.get("MASTER_PORT", "29500"), 29500)
    tee = 0
    rest = list(args)
    if launcher in ("torchrun", "deepspeed"):
        nproc = len(devices) if launcher == "deepspeed" else 1
        while rest and rest[0].startswith("-"):
            opt = rest.pop(0)
            name, eq, value = opt.lstrip("-").partition("=")
            name = name.replace("-", "_")
            takes_value = name not in (
                "standalone",
                "no_python",
                "module",
                "m",
                "no_local_rank",
                "run_path",
            )
            if takes_value and not eq and rest:
                value = rest.pop(0)
            if name in ("nproc_per_node", "num_gpus"):
                nproc = len(devices) if value in ("gpu", "auto") else _int_or(value, 1)
            elif name in ("nnodes", "num_nodes"):
                nnodes = _int_or(value, 1)
            elif name == "node_rank":
                node_rank = _int_or(value, 0)
            elif name in ("master_addr",):
                master_addr = value
            elif name == "master_port":
                master_port = _int_or(value, 29500)
            elif name == "rdzv_endpoint":
                host, colon, port = value.rpartition(":")
                master_addr = (host if colon else value) or master_addr
                master_port = _int_or(port, master_port) if colon else master_port
            elif name in ("tee", "t"):
                tee = _int_or(value, 0)
            elif name == "include" and value.startswith("localhost:"):
                nproc = len(value.split(":", 1)[1].split(","))
    if not rest:
        ctx.err(f"{launcher}: error: the following arguments are required: training_script\n")
        return 2
    script = rest[0]
    vpath = ctx.path(script)
    try:
        text = ctx.machine.fs.read_text(vpath)
    except FsError:
        ctx.err(f"{PYTHON}: can't open file '{vpath}': [Errno 2] No such file or directory\n")
        return 2
    cfg = parse_config(vpath, rest[1:], _directives(text))
    if env.get("XYCLAW_SIM_PRINT_ENV", "").lower() in ("1", "true", "yes"):
        cfg.print_env = True
    if not cfg.output_dir:
        cfg.output_dir = env.get("CHECKPOINT_DIR") or env.get("XYCLAW_CHECKPOINT_DIR") or None
    launch = Launch(
        launcher,
        nproc,
        max(1, nnodes),
        node_rank,
        master_addr,
        devices[:nproc],
        master_port=master_port,
        tee=tee if launcher == "torchrun" else 0,
        prefix_template=env.get(
            "TORCHELASTIC_LOG_LINE_PREFIX_TEMPLATE", "[${role_name}${local_rank}]:"
        ),
    )
    try:
        return _Runner(ctx, cfg, launch).run()
    except TrainingError as exc:
        ctx.err(str(exc))
        return exc.status


#: How long (real seconds, at the least) a node waits for a peer before it goes on alone.
_RENDEZVOUS_PATIENCE_S = 2.0


# -- the run -----------------------------------------------------------------------------------


class _Runner:
    def __init__(self, ctx: Ctx, cfg: TrainConfig, launch: Launch) -> None:
        self.ctx = ctx
        self.machine = ctx.machine
        self.cfg = cfg
        self.launch = launch
        assert ctx.proc is not None
        self.job = _Job(ctx, cfg, launch, ctx.proc)
        self.world = launch.nproc * launch.nnodes
        self.global_rank0 = launch.node_rank * launch.nproc
        self.rank0 = self.global_rank0 == 0
        self.rng = random.Random(f"{cfg.seed}/{self.machine.hostname}")
        self.elapsed = 0.0  # simulated seconds spent
        # the timing hook's lines, one per rank every N steps (XyClaw's launcher sets N)
        self._step_every = max(1, _int_or(ctx.env.get("XYCLAW_STEP_TIMES_EVERY", "1"), 1))
        self._pipe_looked = 0.0  # when (simulated seconds) the ranks last read their pipes
        self._peers: Lockstep | None = None  # the job's other nodes, kept in step
        self._sync_points = 0

    # output helpers
    def out(self, text: str) -> None:
        self.ctx.out(text + "\n")

    def err(self, text: str) -> None:
        self.ctx.err(text + "\n")

    def _prefix(self, local: int) -> str:
        return (
            self.launch.prefix_template.replace("${role_name}", "default")
            .replace("${local_rank}", str(local))
            .replace("${rank}", str(self.global_rank0 + local))
        )

    def wout(self, local: int, text: str) -> None:
        """A line a worker prints on stdout; torchrun --tee puts its rank prefix in front."""
        prefix = self._prefix(local) if self.launch.tee in (1, 3) else ""
        self.ctx.out("".join(f"{prefix}{line}\n" for line in text.split("\n")))

    def werr(self, local: int, text: str) -> None:
        prefix = self._prefix(local) if self.launch.tee in (2, 3) else ""
        self.ctx.err("".join(f"{prefix}{line}\n" for line in text.split("\n")))

    def worker_env(self, local: int) -> dict[str, str]:
        """What a worker process sees: the launcher's environment plus what torchrun sets."""
        env = dict(self.ctx.env)
        launch = self.launch
        if launch.launcher != "python":
            env.update(
                {
                    "RANK": str(self.global_rank0 + local),
                    "LOCAL_RANK": str(local),
                    "GROUP_RANK": str(launch.node_rank),
                    "ROLE_RANK": str(self.global_rank0 + local),
                    "WORLD_SIZE": str(self.world),
                    "LOCAL_WORLD_SIZE": str(launch.nproc),
                    "MASTER_ADDR": launch.master_addr or "127.0.0.1",
                    "MASTER_PORT": str(launch.master_port),
                    "TORCHELASTIC_RUN_ID": env.get("TORCHELASTIC_RUN_ID", "none"),
                }
            )
            if "CUDA_VISIBLE_DEVICES" not in env:
                env["CUDA_VISIBLE_DEVICES"] = ",".join(str(d) for d in launch.devices)
        return env

    def _print_env(self) -> None:
        for local in range(len(self.job.workers)):
            env = self.worker_env(local)
            shown = sorted(
                k for k in env if k in _ENV_KEYS or any(k.startswith(p) for p in _ENV_PREFIXES)
            )
            rank = env.get("RANK", str(self.global_rank0 + local))
            self.wout(
                local,
                f"env rank={rank} local_rank={local} host={self.machine.hostname}: "
                + " ".join(f"{k}={_one_line(env[k])}" for k in shown),
            )

    def _glog(self, level: str, where: str, text: str) -> str:
        now = self.machine.now()
        stamp = time.strftime("%m%d %H:%M:%S", time.gmtime(now)) + f".{int(now % 1 * 1e6):06d}"
        return f"{level}{stamp} {self.job.main.pid} {where}] {text}"

    # phases
    def run(self) -> int:
        machine = self.machine
        launch = self.launch
        if launch.node_rank >= launch.nnodes:
            raise TrainingError(
                f"ValueError: node_rank {launch.node_rank} must be smaller than nnodes "
                f"{launch.nnodes}\n"
            )
        cluster = machine.cluster
        if launch.nnodes > 1 and cluster is not None:
            master = launch.master_addr or "localhost"
            key = (
                f"{cluster.name}:{cluster.shared_dir}",
                machine.resolve_host(master) or master,
                launch.master_port,
                launch.nnodes,
            )
            self._peers = join_peers(key, launch.node_rank)
        try:
            if launch.nnodes > 1 or launch.master_addr:
                addr = launch.master_addr or "localhost"
                if machine.resolve_host(addr) is None:
                    raise TrainingError(_gaierror(addr))
            self._spawn_workers()
            try:
                return self._run_workers()
            finally:
                machine.gpus.remove_pid(self.job.main.pid)
                for worker in self.job.workers:
                    machine.gpus.remove_pid(worker.pid)
                    machine.procs.reap(worker)
                machine.net.clear_traffic(self.job.main.pid)
                machine.release_host_memory(self.job.main.pid)
        finally:
            if self._peers is not None:
                self._peers.leave(launch.node_rank)

    def _spawn_workers(self) -> None:
        machine = self.machine
        job = self.job
        job.main.cpu_percent = 3.0
        if self.launch.launcher == "python":
            job.workers = [job.main]
            job.main.cpu_percent = 110.0
            job.main.rss_kib = 18 * 1024 * 1024
        else:
            for _ in range(self.launch.nproc):
                worker = machine.procs.spawn(
                    [PYTHON, "-u", self.cfg.script, *self.cfg.script_args],
                    ppid=job.main.pid,
                    session=job.main.session,
                    nohup=job.main.nohup,
                )
                worker.cpu_percent = 110.0
                worker.rss_kib = 12 * 1024 * 1024
                job.workers.append(worker)
        for local, worker in enumerate(job.workers):
            if worker is not job.main:
                worker.on_signal(self._signal_forwarder(local))
        machine.reserve_host_memory(job.main.pid, int((10 + 6 * len(job.workers)) * 1024**3))

    def _signal_forwarder(self, local: int) -> Callable[[int], None]:
        return lambda sig: self._worker_signalled(local, sig)

    def _worker_signalled(self, local: int, sig: int) -> None:
        with self.job.lock:
            if self.job.worker_signal is None:
                self.job.worker_signal = (local, sig)
        self.job.main.wake()

    def _gpu_error(self, gpu_index: int, message: str) -> None:
        local = next((i for i, d in enumerate(self.launch.devices) if d == gpu_index), 0)
        with self.job.lock:
            if self.job.crash is None:
                self.job.crash = (local, message)
        self.job.main.wake()

    def _interrupted(self) -> int | None:
        """An exit status when a signal, a dead worker or a GPU error ends the run."""
        job = self.job
        if job.crash is not None:
            return self._fail_cuda(*job.crash)
        sig = job.main.signalled
        if sig is None:
            if job.worker_signal is not None:
                local, worker_sig = job.worker_signal
                return self._fail_child(
                    local,
                    -worker_sig,
                    f"Signal {worker_sig} ({signal_name(worker_sig)}) received by PID "
                    f"{job.workers[local].pid}",
                )
            return None
        if sig == SIGKILL:
            return 128 + SIGKILL
        if self.launch.launcher == "python":
            if sig == SIGINT:
                self.err("Traceback (most recent call last):")
                self.err(f'  File "{self.cfg.script}", line 187, in main')
                self.err("    loss.backward()")
                self.err("KeyboardInterrupt")
            return 128 + sig
        name = signal_name(sig)
        self.err(
            self._glog(
                "W",
                "torch/distributed/elastic/agent/server/api.py:704",
                f"Received Signals.{name} death signal, shutting down workers",
            )
        )
        for worker in job.workers:
            self.err(
                self._glog(
                    "W",
                    "torch/distributed/elastic/multiprocessing/api.py:858",
                    f"Sending process {worker.pid} closing signal {name}",
                )
            )
        self.err("Traceback (most recent call last):")
        self.err('  File "/usr/local/bin/torchrun", line 8, in <module>')
        self.err("    sys.exit(main())")
        self.err(
            "torch.distributed.elastic.multiprocessing.api.SignalException: Process "
            f"{job.main.pid} got signal: {sig}"
        )
        return 1

    def _wait(self, seconds: float) -> int | None:
        self.elapsed += seconds
        if self.job.crash is not None or self.job.worker_signal is not None:
            return self._interrupted()
        self.ctx.wait(seconds * self.machine.time_scale)
        return self._interrupted()

    def _keep_pace(self, patience_sim_s: float) -> int | None:
        """Wait for the job's other nodes at the next sync point (see
        :mod:`xyclaw.sim.lockstep`), ``patience_sim_s`` simulated seconds and at least
        ``_RENDEZVOUS_PATIENCE_S`` real ones; an exit status when a signal came meanwhile."""
        if self._peers is None:
            return None
        self._sync_points += 1
        job = self.job
        self._peers.reach(
            self.launch.node_rank,
            self._sync_points,
            max(_RENDEZVOUS_PATIENCE_S, patience_sim_s * self.machine.time_scale),
            lambda: (
                job.crash is not None
                or job.worker_signal is not None
                or job.main.signalled is not None
            ),
        )
        return self._interrupted()

    def _loads(self, util: float, mem_mib: int, intensity: float, mem_util: float) -> None:
        board = self.machine.gpus
        for local, device in enumerate(self.launch.devices):
            worker = self.job.workers[local] if local < len(self.job.workers) else self.job.main
            board.add_load(
                device,
                Load(
                    worker.pid,
                    PYTHON,
                    util,
                    mem_mib,
                    intensity=intensity,
                    mem_util=mem_util,
                    on_error=self._gpu_error,
                    # matrix work keeps the tensor pipe about half busy; a spin, a wait in
                    # a collective or data loading leaves it idle (DCGM field 1004)
                    tensor_active=0.5 if intensity >= 0.5 else 0.0,
                ),
            )

    def _memory_need_mib(self) -> int:
        cfg = self.cfg
        params = cfg.params_b * 1e9
        activ = 2.0 * cfg.micro_batch * (cfg.seq_len / 4096) * math.sqrt(max(cfg.params_b, 0.1) / 7)
        if cfg.quant4:
            state = 0.6 * params
        elif cfg.lora:
            state = 2.0 * params
        else:
            state = 16.0 * params / max(1, self.world)
        return int((state + activ * 1024**3) / 1024**2) + 600

    def _run_workers(self) -> int:
        cfg = self.cfg
        launch = self.launch
        machine = self.machine
        if launch.launcher != "python":
            for line in (
                "",
                "*****************************************",
                "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, "
                "to avoid your system being overloaded, please further tune the variable for "
                "optimal performance in your application as needed. ",
                "*****************************************",
            ):
                self.err(self._glog("W", "torch/distributed/run.py:779", line))
        if len(launch.devices) < launch.nproc:
            local = len(launch.devices)
            self._rank_traceback(local, "RuntimeError: CUDA error: invalid device ordinal")
            return self._fail_child(local, 1, None)
        # torchrun's rendezvous: the workers start once every node's agent has joined
        status = self._keep_pace(60.0)
        if status is not None:
            return status
        choice = choose_network(machine.net, self.ctx.env)
        if self.ctx.env.get("NCCL_DEBUG", "").upper() in ("INFO", "TRACE"):
            for line in nccl_debug_lines(
                machine, choice, self.job.workers[0].pid, rank0=self.rank0, env=self.ctx.env
            ):
                self.wout(0, line)
        if cfg.print_env:
            self._print_env()
        if choice.error is not None:
            self._rank_traceback(
                0,
                "torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1970, "
                f"unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version "
                f"2.21.5\nncclSystemError: System call (e.g. socket, malloc) or external library "
                f"call failed or device error.\nLast error:\n{choice.error}",
            )
            return self._fail_child(0, 1, None)
        link = link_model(
            machine, choice, nodes=launch.nnodes, ranks_per_node=launch.nproc, env=self.ctx.env
        )
        tokens_per_step = (
            cfg.global_batch * cfg.seq_len
            if cfg.global_batch
            else cfg.micro_batch * cfg.grad_accum * self.world * cfg.seq_len
        )
        if self.rank0:
            method = "qlora" if cfg.quant4 else "lora" if cfg.lora else "full"
            self.wout(
                0,
                f"world_size={self.world} nodes={launch.nnodes} gpus_per_node={launch.nproc} "
                f"model={cfg.model} params={cfg.params_b:.2f}B method={method} "
                f"seq_len={cfg.seq_len} tokens_per_step={tokens_per_step}",
            )
        self._open_pipes()
        start_step = self._resume_step()
        if start_step is None:
            return 1
        need = self._memory_need_mib()
        load_s = 10.0 + LOAD_SECONDS_PER_B * cfg.params_b
        self._loads(4.0, min(need, 2000), 0.1, 2.0)
        status = self._wait(load_s)
        if status is not None:
            return status
        # the process group's first collective: every rank has loaded its model
        status = self._keep_pace(60.0)
        if status is not None:
            return status
        gpu0 = machine.gpus.gpus[launch.devices[0]]
        free = gpu0.model.memory_mib - gpu0.memory_reserved_mib
        if need > free:
            total_gib = (gpu0.model.memory_mib - gpu0.memory_reserved_mib) / 1024
            self._rank_traceback(
                0,
                "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has "
                f"a total capacity of {total_gib:.2f} GiB of which {max(0.0, 1.2):.2f} GiB is "
                f"free. Including non-PyTorch memory, this process has {total_gib - 1.2:.2f} GiB "
                "memory in use.",
            )
            return self._fail_child(0, 1, None)
        self._loads(97.0, need, 0.92, 40.0)
        flops_per_token = (4.0 if cfg.lora else 6.0) * cfg.params_b * 1e9
        grad_bytes = 2.0 * cfg.params_b * 1e9 * (0.01 if cfg.lora else 3.0)
        owner = self.job.main.pid
        if launch.nnodes > 1:
            traffic = min(link.net_bytes_s, grad_bytes / 2.0)
            if choice.transport == "IB":
                machine.net.set_traffic(owner, rdma_bytes_s=traffic)
            else:
                iface = choice.socket_iface.name if choice.socket_iface else None
                machine.net.set_traffic(owner, socket_iface=iface, socket_bytes_s=traffic)
        self.elapsed = 0.0
        loss = self._loss(start_step)
        step = start_step
        while step < cfg.steps:
            step += 1
            faults = machine.faults
            reached = faults.hung_at is None or step * 4 + 3 >= faults.hung_at
            if faults.nccl_watchdog and self.world > 1 and reached:
                return self._watchdog(step)
            if cfg.fail_at_step is not None and step == cfg.fail_at_step:
                self._rank_traceback(
                    0, f"RuntimeError: simulated failure requested by fail_at_step={step}"
                )
                return self._fail_child(0, 1, None)
            perf = min(machine.gpus.gpus[d].perf_factor() for d in launch.devices)
            peak = gpu0.model.bf16_tflops * 1e12 * self.world
            compute = tokens_per_step * flops_per_token / (peak * cfg.mfu * perf)
            ranks = max(1, self.world)
            cluster = machine.cluster.name if machine.cluster is not None else None
            busbw = link.busbw * (
                job_rail_factor(cluster, machine.net) if launch.nnodes > 1 else 1.0
            )
            busbw *= 1.0 + self.rng.uniform(-link.jitter, link.jitter)
            comm = grad_bytes * (ranks - 1) / ranks / (busbw * 1e9) if ranks > 1 else 0.0
            exposed = max(0.0, comm - 0.7 * compute)
            step_time = (compute + exposed) * (1.0 + self.rng.uniform(-link.jitter, link.jitter))
            util = 97.0 * (compute + 0.3 * exposed) / max(compute + exposed, 1e-9)
            if launch.nnodes > 1 and ranks > 1:
                # issue 34: the node's NICs send what the step's all-reduce moves across
                # nodes (the sim's comm: these bytes at the bus bandwidth), spread over the
                # step, so the counters' bytes per step are the job's and not a constant rate
                per_step = grad_bytes * (ranks - 1) / ranks / max(step_time, 1e-6)
                if choice.transport == "IB":
                    machine.net.set_traffic(owner, rdma_bytes_s=per_step)
                else:
                    iface = choice.socket_iface.name if choice.socket_iface else None
                    machine.net.set_traffic(owner, socket_iface=iface, socket_bytes_s=per_step)
            if cfg.busy_loop:
                self._loads(100.0, need, 0.03, 1.0)
            else:
                self._loads(util, need, 0.92, 40.0)
            status = self._wait(step_time)
            if status is not None:
                return status
            # the step's all-reduce: no node begins the next step before every node is done
            status = self._keep_pace(10.0 * step_time)
            if status is not None:
                return status
            if ranks > 1 and launch.nnodes > 1:
                self._inspector(step, grad_bytes, busbw, comm)
            if self.ctx.env.get("XYCLAW_STEP_TIMES") == "1" and step % self._step_every == 0:
                self._step_times(step, compute * perf)
            if self._pipe_due() and self._pipe_poked():  # a healthy job's dump on demand
                timeout_ms = int(cfg.nccl_timeout_s * 1000)
                numel = int(cfg.params_b * 1e9 / 64)
                self._flight_recorder_dumps(
                    step * 4 + 4, numel, timeout_ms, None, on_timeout=False, pending=False
                )
            loss = self._loss(step)
            if self.rank0 and (step % max(1, cfg.log_every) == 0 or step == cfg.steps):
                lr = self._lr(step)
                grad_norm = 0.4 + 6.0 * math.exp(-step / 80.0) + self._noise(step, 0.05)
                self.wout(
                    0,
                    f"step {step}/{cfg.steps} | loss {loss:.4f} | lr {lr:.3e} | "
                    f"grad_norm {grad_norm:.3f} | tokens/s {tokens_per_step / step_time:.1f} | "
                    f"step_time {step_time:.3f}s | mem {need / 1024:.1f}GiB",
                )
            if step % cfg.save_every == 0 or step == cfg.steps:
                status = self._checkpoint(step, loss, need)
                if status is not None:
                    return status
        if self.rank0:
            self.wout(
                0,
                f"training finished: {cfg.steps} steps, final loss {loss:.4f}, {self.elapsed:.1f}s",
            )
        return 0

    # pieces
    def _noise(self, step: int, spread: float) -> float:
        return random.Random(f"{self.cfg.seed}/{step}").uniform(-spread, spread)

    def _loss(self, step: int) -> float:
        cfg = self.cfg
        start, floor = (
            (2.4, 1.25)
            if cfg.finetune or cfg.lora
            else (10.4, 2.9 - 0.12 * math.log2(max(cfg.params_b, 0.5)))
        )
        tau = cfg.steps / 6.0 + 20.0
        return floor + (start - floor) * math.exp(-step / tau) + self._noise(step, 0.03)

    def _lr(self, step: int) -> float:
        cfg = self.cfg
        warmup = max(1, cfg.steps // 50)
        if step < warmup:
            return cfg.lr * step / warmup
        progress = (step - warmup) / max(1, cfg.steps - warmup)
        return cfg.lr * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * progress)))

    def _output_dir(self) -> str:
        if self.cfg.output_dir:
            return self.ctx.path(self.cfg.output_dir)
        return f"{self.machine.shared_mount}/checkpoints/{self.cfg.run_name}"

    def _resume_step(self) -> int | None:
        resume = self.cfg.resume
        if not resume or resume.lower() in ("false", "0", "none", "no"):
            return 0
        fs = self.machine.fs
        out_dir = self._output_dir()
        if resume.lower() in ("auto", "latest", "true", "1", "yes"):
            candidate = self._latest(out_dir)
            if candidate is None:
                if self.rank0:
                    self.wout(0, f"no checkpoint found in {out_dir}; starting from step 0")
                return 0
        else:
            candidate = self.ctx.path(resume)
            if fs.is_dir(candidate) and not fs.is_file(f"{candidate}/{STATE_FILE}"):
                candidate = self._latest(candidate) or candidate
        try:
            state = json.loads(fs.read_text(f"{candidate}/{STATE_FILE}"))
            step = int(state["global_step"])
        except (FsError, ValueError, KeyError, TypeError):
            self._rank_traceback(
                0,
                f"FileNotFoundError: [Errno 2] No such file or directory: "
                f"'{candidate}/{STATE_FILE}'",
            )
            self._fail_child(0, 1, None)
            return None
        if self.rank0:
            self.wout(0, f"resumed from {candidate} (step {step})")
        return step

    def _latest(self, out_dir: str) -> str | None:
        """The highest `checkpoint-<step>` folder with its trainer state (what HF's
        get_last_checkpoint finds, skipping a save that never finished)."""
        fs = self.machine.fs
        try:
            names = fs.listdir(out_dir)
        except FsError:
            return None
        steps = sorted(
            (int(m.group(1)), name)
            for name in names
            if (m := re.fullmatch(r"checkpoint-(\d+)", name))
        )
        for _, name in reversed(steps):
            if fs.is_file(f"{out_dir}/{name}/{STATE_FILE}"):
                return f"{out_dir}/{name}"
        return None

    def _checkpoint(self, step: int, loss: float, need: int) -> int | None:
        """Global rank 0 writes `checkpoint-<step>`: the weights first, the trainer state
        last, once the save is done (a process killed mid-save leaves no state file)."""
        cfg = self.cfg
        size = cfg.params_b * 1e9 * (2.0 if cfg.lora else 14.0) * (0.01 if cfg.lora else 1.0)
        self._loads(2.0, need, 0.1, 1.0)
        fs = self.machine.fs
        out_dir = self._output_dir()
        target = f"{out_dir}/checkpoint-{step}"
        if self.rank0:
            try:
                fs.mkdir(target, parents=True)
                fs.write_bytes(
                    f"{target}/{'adapter_model' if cfg.lora else 'model'}.safetensors",
                    f"xyclaw-sim: {int(size)} bytes of weights at step {step}\n".encode(),
                )
            except FsError as exc:
                self._rank_traceback(0, f"OSError: [Errno 30] {exc}: '{target}'")
                return self._fail_child(0, 1, None)
        status = self._wait(size / PFS_BYTES_S)
        if status is not None:
            return status
        if not self.rank0:
            self._loads(97.0, need, 0.92, 40.0)
            return None
        state = {
            "global_step": step,
            "max_steps": cfg.steps,
            "log_history": [{"step": step, "loss": round(loss, 6)}],
            "model": cfg.model,
            "params_b": cfg.params_b,
            "world_size": self.world,
            "method": "lora" if cfg.lora else "full",
            "time": self.machine.now(),
            "host": self.machine.hostname,
            "bytes": int(size),
        }
        try:
            fs.write_bytes(f"{target}/{STATE_FILE}", (json.dumps(state, indent=2) + "\n").encode())
        except FsError as exc:
            self._rank_traceback(0, f"OSError: [Errno 30] {exc}: '{target}'")
            return self._fail_child(0, 1, None)
        self.wout(0, f"checkpoint saved: {target} (step {step})")
        self._loads(97.0, need, 0.92, 40.0)
        return None

    def _watchdog(self, step: int) -> int:
        """An NCCL collective that never completes: GPUs spin, then the watchdog aborts."""
        cfg = self.cfg
        need = self._memory_need_mib()
        self._loads(100.0, need, 0.15, 0.0)
        self.machine.net.clear_traffic(self.job.main.pid)
        timeout_ms = int(cfg.nccl_timeout_s * 1000)
        seq = self.machine.faults.hung_at or step * 4 + 3
        numel = int(cfg.params_b * 1e9 / 64)
        hung = self.machine.faults.hung_rank
        waited = 0.0
        while waited < cfg.nccl_timeout_s:  # the debug pipe is read while the ranks hang
            chunk = min(_PIPE_POLL_S, cfg.nccl_timeout_s - waited)
            status = self._wait(chunk)
            if status is not None:
                return status
            waited += chunk
            if self._pipe_poked():
                self._flight_recorder_dumps(seq, numel, timeout_ms, hung, on_timeout=False)
        self._flight_recorder_dumps(seq, numel, timeout_ms, hung)
        for local, _worker in enumerate(self.job.workers):
            rank = self.global_rank0 + local
            if rank == hung:
                continue  # it never entered the collective: its watchdog has nothing to time
            where = "ProcessGroupNCCL.cpp:607"
            prefix = f"[rank{rank}]:"
            self.werr(
                local,
                prefix
                + self._glog(
                    "E",
                    where,
                    f"[Rank {rank}] Watchdog caught collective operation timeout: "
                    f"WorkNCCL(SeqNum={seq}, OpType=ALLREDUCE, NumelIn={numel}, "
                    f"NumelOut={numel}, Timeout(ms)={timeout_ms}) ran for {timeout_ms + 60} "
                    "milliseconds before timing out.",
                ),
            )
            self.werr(
                local,
                prefix
                + self._glog(
                    "E",
                    "ProcessGroupNCCL.cpp:1664",
                    f"[PG 0 (default_pg) Rank {rank}] Exception (either an error or timeout) "
                    "detected by watchdog at work: "
                    f"{seq}, last enqueued NCCL work: {seq}, last completed NCCL work: "
                    f"{seq - 1}.",
                ),
            )
            self.werr(
                local,
                prefix
                + self._glog(
                    "E",
                    "ProcessGroupNCCL.cpp:621",
                    f"[Rank {rank}] Some NCCL operations have failed or timed out. Due to the "
                    "asynchronous nature of CUDA kernels, subsequent GPU operations might run "
                    "on corrupted/incomplete data.",
                ),
            )
            self.werr(
                local,
                prefix
                + self._glog(
                    "E",
                    "ProcessGroupNCCL.cpp:627",
                    f"[Rank {rank}] To avoid data inconsistency, we are taking the entire "
                    "process down.",
                ),
            )
        if self.launch.launcher == "python":
            return 128 + SIGABRT
        return self._fail_child(
            0, -SIGABRT, f"Signal 6 (SIGABRT) received by PID {self.job.workers[0].pid}"
        )

    def _step_times(self, step: int, healthy_s: float) -> None:
        """The per-rank timing hook's lines (issue 34): each rank's compute before it
        waits for the others; a slow GPU's rank computes longer."""
        for local, device in enumerate(self.launch.devices[: len(self.job.workers)]):
            perf = self.machine.gpus.gpus[device].perf_factor()
            seconds = healthy_s / perf * (1.0 + self.rng.uniform(-0.02, 0.02))
            rank = self.global_rank0 + local
            self.wout(local, f"xyclaw-step rank={rank} step={step} compute_s={seconds:.4f}")

    def _pipe_paths(self) -> list[str]:
        """This node's ranks' debug pipes, as PyTorch's ``DumpPipe`` names them:
        ``<TORCH_FR_DEBUG_INFO_PIPE_FILE or TORCH_NCCL_DEBUG_INFO_PIPE_FILE><rank>.pipe``,
        only with a ring (a buffer size above 0)."""
        env = self.ctx.env
        stem = env.get("TORCH_FR_DEBUG_INFO_PIPE_FILE") or env.get(
            "TORCH_NCCL_DEBUG_INFO_PIPE_FILE", ""
        )
        size = env.get("TORCH_FR_BUFFER_SIZE") or env.get("TORCH_NCCL_TRACE_BUFFER_SIZE") or "0"
        if not stem or _int_or(size, 0) <= 0:
            return []
        return [f"{stem}{self.global_rank0 + i}.pipe" for i in range(len(self.job.workers))]

    def _open_pipes(self) -> None:
        """Each rank makes its pipe when its process group starts (PyTorch: mkfifo; the
        sim's file system has no FIFOs, so an empty file stands in: a write makes it
        non-empty, as a write makes a FIFO readable)."""
        for path in self._pipe_paths():
            try:
                self.machine.fs.write_bytes(path, b"")
            except FsError:
                continue

    def _pipe_due(self) -> bool:
        """The running job's ranks look at their pipes once a simulated second, as
        PyTorch's monitor does, not at every step."""
        if self.elapsed - self._pipe_looked < _PIPE_POLL_S:
            return False
        self._pipe_looked = self.elapsed
        return True

    def _pipe_poked(self) -> bool:
        """True when something was written to any rank's pipe since the last look (read
        and emptied, as PyTorch's watchdog reads the FIFO); then every rank dumps."""
        poked = False
        fs = self.machine.fs
        for path in self._pipe_paths():
            try:
                if fs.is_file(path) and fs.size(path) > 0:
                    fs.write_bytes(path, b"")
                    poked = True
            except FsError:
                continue
        return poked

    def _flight_recorder_dumps(
        self,
        seq: int,
        numel: int,
        timeout_ms: int,
        hung: int | None,
        *,
        on_timeout: bool = True,
        pending: bool = True,
    ) -> None:
        """Each rank of this node writes its Flight Recorder dump, as PyTorch does on a
        watchdog timeout when the job's environment asks for it (a ring size, dump on
        timeout, a file prefix), or when its debug pipe was written to (``on_timeout``
        False; no dump-on-timeout needed): the last collectives of the default group, the
        hung one "started" and never completed; the hung rank's ring ends one collective
        earlier. ``pending`` False: a healthy job's dump, collective ``seq`` not yet begun.
        The sim writes the JSON form (the fields of ``_dump_fr_trace_json``), not a pickle."""
        env = self.ctx.env
        size = env.get("TORCH_FR_BUFFER_SIZE") or env.get("TORCH_NCCL_TRACE_BUFFER_SIZE") or "0"
        on = env.get("TORCH_FR_DUMP_ON_TIMEOUT") or env.get("TORCH_NCCL_DUMP_ON_TIMEOUT") or ""
        prefix = env.get("TORCH_FR_DUMP_TEMP_FILE") or env.get(
            "TORCH_NCCL_DEBUG_INFO_TEMP_FILE", "/tmp/nccl_trace_rank_"
        )
        if _int_or(size, 0) <= 0 or (on_timeout and on.lower() not in ("1", "true")):
            return
        ring = min(_int_or(size, 0), 32)  # the newest collectives are what a reader needs
        now_ns = int(self.machine.now() * 1e9)
        ranks = str(list(range(self.world)))
        ops = ("broadcast", "all_reduce", "all_reduce", "all_reduce")
        for local in range(len(self.job.workers)):
            rank = self.global_rank0 + local
            last = seq - 1 if rank == hung or not pending else seq
            entries = []
            for index, s in enumerate(range(max(1, last - ring + 1), last + 1)):
                done = s < seq
                entries.append(
                    {
                        "record_id": s - 1,
                        "pg_id": 0,
                        "process_group": ["0", "default_pg"],
                        "collective_seq_id": s,
                        "p2p_seq_id": 0,
                        "op_id": s,
                        "profiling_name": f"nccl:{ops[s % 4]}",
                        "time_created_ns": now_ns - (last - s + 1) * 1_000_000 - index,
                        "input_sizes": [[numel]],
                        "input_dtypes": ["BFloat16"],
                        "output_sizes": [[numel]],
                        "output_dtypes": ["BFloat16"],
                        "state": "completed" if done else "started",
                        "time_discovered_started_ns": now_ns,
                        "time_discovered_completed_ns": now_ns if done else None,
                        "retired": done,
                        "timeout_ms": timeout_ms,
                        "is_p2p": False,
                    }
                )
            dump = {
                "version": "2.4",
                "pg_config": {"0": {"name": "0", "desc": "default_pg", "ranks": ranks}},
                "pg_status": {
                    "0": {
                        "last_enqueued_collective": last,
                        "last_started_collective": last,
                        "last_completed_collective": seq - 1,
                    }
                },
                "entries": entries,
            }
            path = f"{prefix}{rank}"
            try:  # PyTorch makes no folder: the launcher must have
                self.machine.fs.write_bytes(path, json.dumps(dump).encode())
            except FsError:
                continue  # PyTorch logs a failed dump and goes on to abort

    def _inspector(self, step: int, grad_bytes: float, busbw: float, comm_s: float) -> None:
        """NCCL's Inspector profiler plugin (NCCL 2.23+ ext-profiler/inspector), when the job
        loads it: one JSON object per collective in its dump folder, in the plugin's output
        format v4.0 (header, metadata, coll_perf). Written by the node's first rank for the
        step's gradient all-reduce, so a reader sees what bus bandwidth the job got."""
        env = self.ctx.env
        if env.get("NCCL_INSPECTOR_ENABLE") != "1" or "inspector" not in env.get(
            "NCCL_PROFILER_PLUGIN", ""
        ):
            return
        folder = env.get("NCCL_INSPECTOR_DUMP_DIR") or posixpath.join(
            self.ctx.cwd, "nccl-inspector-unknown-jobid"
        )
        n = self.world
        record = {
            "header": {
                "id": f"0x{abs(hash((self.machine.hostname, self.job.main.pid))) % (1 << 56):x}",
                "rank": self.global_rank0,
                "n_ranks": n,
                "nnodes": self.launch.nnodes,
            },
            "metadata": {
                "inspector_output_format_version": "v4.0",
                "git_rev": "",
                "rec_mechanism": "profiler_plugin",
                "dump_timestamp_us": int(self.machine.now() * 1e6),
                "hostname": self.machine.hostname,
                "pid": self.job.main.pid,
            },
            "coll_perf": {
                "coll": "AllReduce",
                "coll_sn": step,
                "coll_msg_size_bytes": int(grad_bytes),
                "coll_exec_time_us": int(comm_s * 1e6),
                "coll_timing_source": "kernel_gpu",
                "coll_algobw_gbs": round(busbw * n / (2 * (n - 1)), 6),
                "coll_busbw_gbs": round(busbw, 6),
            },
        }
        path = posixpath.join(folder, f"{self.machine.hostname}-pid{self.job.main.pid}.log")
        try:
            if not self.machine.fs.exists(folder):
                self.machine.fs.mkdir(folder, parents=True)
            self.machine.fs.write_bytes(path, (json.dumps(record) + "\n").encode(), append=True)
        except FsError:
            return  # the plugin logs a warning and the job goes on

    def _rank_traceback(self, local: int, error: str) -> None:
        rank = self.global_rank0 + local
        prefix = f"[rank{rank}]: " if self.launch.launcher != "python" else ""
        lines = [
            "Traceback (most recent call last):",
            f'  File "{self.cfg.script}", line 212, in <module>',
            "    main()",
            f'  File "{self.cfg.script}", line 187, in main',
            "    loss.backward()",
            *error.split("\n"),
        ]
        if error.startswith("RuntimeError: CUDA error"):
            lines += [
                "CUDA kernel errors might be asynchronously reported at some other API call, so "
                "the stacktrace below might be incorrect.",
                "For debugging consider passing CUDA_LAUNCH_BLOCKING=1",
                "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.",
            ]
        for line in lines:
            self.werr(local, prefix + line)

    def _fail_cuda(self, local: int, message: str) -> int:
        self._rank_traceback(local, f"RuntimeError: {message}")
        return self._fail_child(local, 1, None)

    def _fail_child(self, local: int, exitcode: int, traceback: str | None) -> int:
        """What torchrun prints when a worker dies; plain python just exits."""
        if self.launch.launcher == "python":
            return exitcode if exitcode > 0 else 128 - exitcode
        job = self.job
        workers = job.workers
        failed = workers[local] if local < len(workers) else job.main
        for index, worker in enumerate(workers):
            if index != local:
                self.err(
                    self._glog(
                        "W",
                        "torch/distributed/elastic/multiprocessing/api.py:858",
                        f"Sending process {worker.pid} closing signal SIGTERM",
                    )
                )
        self.err(
            self._glog(
                "E",
                "torch/distributed/elastic/multiprocessing/api.py:833",
                f"failed (exitcode: {exitcode}) local_rank: {local} (pid: "
                f"{failed.pid}) of binary: {PYTHON}",
            )
        )
        now = self.machine.now()
        rank = self.global_rank0 + local
        script = posixpath.basename(self.cfg.script)
        self.err(
            "Traceback (most recent call last):\n"
            '  File "/usr/local/bin/torchrun", line 8, in <module>\n'
            "    sys.exit(main())\n"
            "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n"
            "============================================================\n"
            f"{script} FAILED\n"
            "------------------------------------------------------------\n"
            "Failures:\n"
            "  <NO_OTHER_FAILURES>\n"
            "------------------------------------------------------------\n"
            "Root Cause (first observed failure):\n"
            "[0]:\n"
            f"  time      : {time.strftime('%Y-%m-%d_%H:%M:%S', time.gmtime(now))}\n"
            f"  host      : {self.machine.hostname}\n"
            f"  rank      : {rank} (local_rank: {local})\n"
            f"  exitcode  : {exitcode} (pid: {failed.pid})\n"
            "  error_file: <N/A>\n"
            "  traceback : "
            + (
                traceback
                or "To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html"
            )
            + "\n============================================================"
        )
        return 1


def _one_line(value: str) -> str:
    """An environment value quoted for the shell, newlines (SKYPILOT_NODE_IPS) as `\\n`."""
    return shlex.quote(value.replace("\n", "\\n"))


def _gaierror(addr: str) -> str:
    return (
        "Traceback (most recent call last):\n"
        '  File "/usr/local/bin/torchrun", line 8, in <module>\n'
        "    sys.exit(main())\n"
        "torch.distributed.DistNetworkError: The client socket has failed to connect to any "
        f"network address of ({addr}, 29500). The client socket has failed to connect to "
        f"({addr}, 29500) (errno: -2 - Name or service not known).\n"
    )


COMMANDS = {
    "python": python,
    "python3": python,
    "torchrun": torchrun,
    "deepspeed": deepspeed,
}
