"""The operating system of one simulated node: files, GPUs, network, processes, commands.

A `Machine` knows nothing of SSH; `SimNode` serves it. Tests and the
fault API reach into it directly.
"""

from __future__ import annotations

import hashlib
import os
import random
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from xyclaw.sim.fabric import Network, register_peer
from xyclaw.sim.gpu import GpuBoard
from xyclaw.sim.kernel import KernelLog
from xyclaw.sim.nodespec import SimClusterInfo, SimNodeSpec, mgmt_ip
from xyclaw.sim.procs import SIGKILL, ProcessTable
from xyclaw.sim.specs import (
    CUDA_VERSION,
    DRIVER_VERSION,
    FABRICS,
    GPU_MODELS,
    KERNEL_RELEASE,
    host_shape,
)
from xyclaw.sim.vfs import NodeFS

_GIB = 1024**3
_TIB = 1024**4
PATH = (
    "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:/usr/local/cuda/bin:"
    "/opt/nccl-tests/build"
)
_INSTALL_DIRS = {
    "nvidia-smi": "/usr/bin",
    "python": "/usr/bin",
    "python3": "/usr/bin",
    "pip": "/usr/bin",
    "pip3": "/usr/bin",
    "torchrun": "/usr/local/bin",
    "vllm": "/usr/local/bin",
    "deepspeed": "/usr/local/bin",
    "mpirun": "/usr/local/bin",
    "mpiexec": "/usr/local/bin",
    "ibstat": "/usr/sbin",
    "ibv_devinfo": "/usr/bin",
    "ibv_devices": "/usr/bin",
    "show_gids": "/usr/sbin",
    "ibdev2netdev": "/usr/bin",
    "ip": "/usr/sbin",
    "dmesg": "/usr/bin",
    "lscpu": "/usr/bin",
}


@dataclass
class MachineFaults:
    """Fault flags the node's programs consult while they run."""

    nccl_watchdog: bool = False
    hung_rank: int | None = None  # with nccl_watchdog: the one rank that never enters it
    hung_at: int | None = None  # with nccl_watchdog: the collective (sequence number) it hangs in


@dataclass(frozen=True)
class Mount:
    source: str
    fstype: str
    mount: str
    size: int
    base_used: int
    usage: Callable[[], int]

    def used(self) -> int:
        return min(self.size, self.base_used + self.usage())


#: A command as the machine keeps it: called with its :class:`~xyclaw.sim.context.Ctx` (not
#: named here: the context names this class, and the commands import the context).
Command = Callable[..., int]


class Machine:
    """Everything on one node except the SSH server."""

    def __init__(
        self,
        spec: SimNodeSpec,
        *,
        root: Path,
        cluster: SimClusterInfo | None = None,
        clock: Callable[[], float] = time.time,
        time_scale: float = 1.0,
        commands: Iterable[Mapping[str, Command]],
        rdma_commands: Mapping[str, Command],
        dcgm_commands: Mapping[str, Command],
    ) -> None:
        """``commands``: the command tables this node answers (``xyclaw.sim.commands`` has
        them, and :func:`~xyclaw.sim.commands.new_machine` passes them); ``rdma_commands``
        only on an RDMA fabric, ``dcgm_commands`` (``dcgmi``) on a datacenter GPU's node
        unless its spec says it has no DCGM."""
        self.spec = spec
        self.hostname = spec.hostname
        self.cluster = cluster
        self.node_index = cluster.index_of(spec.hostname) if cluster is not None else 0
        self.time_scale = time_scale
        self._clock = clock
        seed = int(hashlib.sha256(spec.hostname.encode()).hexdigest()[:8], 16)
        self.rng = random.Random(seed)
        gpu_model = GPU_MODELS[spec.gpu_model]
        fabric = FABRICS[spec.fabric]
        self.shape = host_shape(gpu_model, spec.gpu_count)
        self.cpu_model = (
            "Intel(R) Xeon(R) Platinum 8480+"
            if gpu_model.architecture == "Hopper"
            else "Intel(R) Xeon(R) Platinum 8358 CPU @ 2.60GHz"
            if gpu_model.hbm
            else "AMD EPYC 7543 32-Core Processor"
        )
        self.boot_time = clock() - (7200.0 + seed % 86400)
        self.root = root
        self.root.mkdir(parents=True, exist_ok=True)
        mounts: dict[str, Path] = {}
        self.shared_mount = cluster.shared_mount if cluster is not None else "/shared"
        if cluster is not None and cluster.shared_dir is not None:
            cluster.shared_dir.mkdir(parents=True, exist_ok=True)
            mounts[self.shared_mount] = cluster.shared_dir
        self.fs = NodeFS(root, mounts)
        self.gpus = GpuBoard(gpu_model, spec.gpu_count, hostname=spec.hostname, clock=clock)
        self.net = Network(
            fabric,
            spec.nic_count if fabric.rdma else 0,
            hostname=spec.hostname,
            node_index=self.node_index,
            clock=clock,
        )
        if cluster is not None:  # a multi-node job goes at its slowest node's fabric pace
            register_peer(cluster.name, spec.hostname, self.net)
        self.procs = ProcessTable(clock, first_pid=1000 + seed % 20000, boot_time=self.boot_time)
        self.kernel = KernelLog(clock, self.boot_time, spec.hostname)
        self.faults = MachineFaults()
        self._host_mem: dict[int, int] = {}
        self._env_cache: tuple[tuple[int, int], str] | None = None
        self._env_path = os.path.join(root, "etc", "environment")
        self._mem_lock = threading.Lock()
        self._ports: dict[int, tuple[str, int]] = {}
        self._ports_lock = threading.Lock()
        self.commands: dict[str, Command] = {}
        for table in commands:
            self.commands.update(table)
        if fabric.rdma:
            self.commands.update(rdma_commands)
        if spec.dcgm if spec.dcgm is not None else not gpu_model.consumer:
            self.commands.update(dcgm_commands)  # DCGM's profiling fields (issue 34)
        self.command_paths: dict[str, str] = {}
        for name in self.commands:
            directory = _INSTALL_DIRS.get(name, "/usr/bin")
            if name.endswith("_perf"):
                directory = "/opt/nccl-tests/build"
            self.command_paths[name] = f"{directory}/{name}"
        self._prepare_fs()

    # -- time ----------------------------------------------------------------------------------

    def now(self) -> float:
        return self._clock()

    @property
    def gpus_per_node(self) -> int:
        return self.spec.gpu_count

    # -- files ---------------------------------------------------------------------------------

    def _prepare_fs(self) -> None:
        fs = self.fs
        for folder in ("root", "home", "tmp", "etc", "var/log", "opt", "usr/local", "mnt"):
            (self.root / folder).mkdir(parents=True, exist_ok=True)
        if self.shared_mount not in fs.mounts:
            real = fs.real(self.shared_mount)
            if real is not None:
                real.mkdir(parents=True, exist_ok=True)
        (self.root / "etc" / "hostname").write_text(self.hostname + "\n")
        hosts = ["127.0.0.1\tlocalhost", f"{self.net.ifaces[1].ipv4}\t{self.hostname}"]
        if self.cluster is not None:
            hosts = ["127.0.0.1\tlocalhost"] + [
                f"{mgmt_ip(i)}\t{name}" for i, name in enumerate(self.cluster.hostnames)
            ]
        (self.root / "etc" / "hosts").write_text("\n".join(hosts) + "\n")
        (self.root / "etc" / "os-release").write_text(
            'PRETTY_NAME="Ubuntu 22.04.4 LTS"\nNAME="Ubuntu"\nVERSION_ID="22.04"\n'
            'VERSION="22.04.4 LTS (Jammy Jellyfish)"\nVERSION_CODENAME=jammy\nID=ubuntu\n'
            "ID_LIKE=debian\n"
        )
        fs.add_virtual("/proc/cpuinfo", self._cpuinfo)
        fs.add_virtual("/proc/meminfo", self._meminfo)
        fs.add_virtual("/proc/loadavg", self._loadavg)
        fs.add_virtual("/proc/uptime", self._uptime)
        fs.add_virtual_text(
            "/proc/version",
            f"Linux version {KERNEL_RELEASE} (buildd@lcy02-amd64-034) (gcc (Ubuntu "
            "11.4.0-1ubuntu1~22.04) 11.4.0) #132-Ubuntu SMP Thu Aug 29 13:45:52 UTC 2024\n",
        )
        fs.add_virtual_text(
            "/proc/driver/nvidia/version",
            f"NVRM version: NVIDIA UNIX x86_64 Kernel Module  {DRIVER_VERSION}  Tue Oct  1 "
            "21:03:56 UTC 2024\nGCC version:  gcc version 11.4.0 (Ubuntu 11.4.0-1ubuntu1~22.04)\n",
        )
        fs.add_virtual_text(
            "/usr/local/cuda/version.json",
            f'{{"cuda": {{"name": "CUDA SDK", "version": "{CUDA_VERSION}.1"}}}}\n',
        )
        fs.add_virtual_text("/dev/nvidiactl", "")
        for gpu in self.gpus.gpus:
            fs.add_virtual_text(f"/dev/nvidia{gpu.index}", "")
        for nic in self.net.nics:
            fs.add_virtual_text(f"/dev/infiniband/uverbs{nic.index}", "")
        self.net.register_files(fs)

    def _cpuinfo(self) -> str:
        blocks = []
        for cpu in range(self.shape.cpus):
            blocks.append(
                f"processor\t: {cpu}\nvendor_id\t: GenuineIntel\nmodel name\t: {self.cpu_model}\n"
                f"cpu cores\t: {self.shape.cpus // 4}\nsiblings\t: {self.shape.cpus // 2}\n"
            )
        return "\n".join(blocks) + "\n"

    def _meminfo(self) -> str:
        total, used, shared, cache = self.memory()
        free = max(0, total - used - cache)
        return (
            f"MemTotal:       {total // 1024:>12} kB\n"
            f"MemFree:        {free // 1024:>12} kB\n"
            f"MemAvailable:   {(free + int(cache * 0.9)) // 1024:>12} kB\n"
            f"Buffers:        {cache // 20 // 1024:>12} kB\n"
            f"Cached:         {cache // 1024:>12} kB\n"
            f"Shmem:          {shared // 1024:>12} kB\n"
            "SwapTotal:                 0 kB\nSwapFree:                  0 kB\n"
        )

    def _loadavg(self) -> str:
        load = self.load_average()
        running = len([p for p in self.procs.all() if p.cpu_percent > 50])
        return f"{load:.2f} {load:.2f} {load:.2f} {running + 1}/{len(self.procs.all())} 4242\n"

    def _uptime(self) -> str:
        up = self.now() - self.boot_time
        return f"{up:.2f} {up * self.shape.cpus * 0.97:.2f}\n"

    def mounts(self) -> list[Mount]:
        fs = self.fs
        disk = self.shape.disk_gib * _GIB
        ram = self.shape.ram_gib * _GIB
        shared_source = (
            "10.1.255.250@o2ib:/pfs"
            if self.net.fabric.link_layer == "InfiniBand"
            else "10.1.255.250:/export/pfs"
        )
        shared_type = "lustre" if self.net.fabric.link_layer == "InfiniBand" else "nfs4"
        return [
            Mount("tmpfs", "tmpfs", "/run", ram // 10, 3 * 1024**2, lambda: 0),
            Mount(
                "/dev/nvme0n1p2",
                "ext4",
                "/",
                disk,
                46 * _GIB,
                lambda: fs.disk_usage("/root") + fs.disk_usage("/tmp") + fs.disk_usage("/opt"),
            ),
            Mount("tmpfs", "tmpfs", "/dev/shm", ram // 2, 0, lambda: 0),
            Mount(
                shared_source,
                shared_type,
                self.shared_mount,
                500 * _TIB,
                180 * _TIB,
                lambda: fs.disk_usage(self.shared_mount),
            ),
        ]

    # -- memory and load -----------------------------------------------------------------------

    def memory(self) -> tuple[int, int, int, int]:
        """(total, used, shared, buff/cache) bytes of host RAM."""
        total = self.shape.ram_gib * _GIB
        with self._mem_lock:
            jobs = sum(self._host_mem.values())
        used = int(total * 0.012) + 3 * _GIB + jobs
        cache = int(total * 0.04) + jobs // 4
        return total, min(used, total), 64 * 1024**2, cache

    def reserve_host_memory(self, owner: int, nbytes: int) -> None:
        with self._mem_lock:
            self._host_mem[owner] = nbytes

    def release_host_memory(self, owner: int) -> None:
        with self._mem_lock:
            self._host_mem.pop(owner, None)

    def load_average(self) -> float:
        busy = sum(p.cpu_percent for p in self.procs.all()) / 100.0
        return round(0.05 + busy, 2)

    # -- names and processes -------------------------------------------------------------------

    def resolve_host(self, name: str) -> str | None:
        """A cluster hostname for a name or address; None when it does not resolve."""
        if name in ("localhost", "127.0.0.1", "::1", self.hostname, "0.0.0.0"):
            return self.hostname
        if any(i.ipv4 == name for i in self.net.ifaces):
            return self.hostname
        if self.cluster is not None:
            return self.cluster.lookup(name)
        return None

    def listen_port(self, port: int, target: tuple[str, int]) -> bool:
        """A service of the node listens on `port`, served at `target` on this machine's
        loopback; False when the port is taken."""
        with self._ports_lock:
            if port in self._ports:
                return False
            self._ports[port] = target
            return True

    def close_port(self, port: int, target: tuple[str, int]) -> None:
        with self._ports_lock:
            if self._ports.get(port) == target:
                del self._ports[port]

    def port_target(self, port: int) -> tuple[str, int] | None:
        """Where a connection to the node's own `port` goes; None: nothing listens there."""
        with self._ports_lock:
            return self._ports.get(port)

    def signal_pid(self, pid: int, sig: int) -> bool:
        proc = self.procs.get(pid)
        if proc is None:
            return False
        if proc.system:
            return True
        proc.deliver(sig)
        return True

    def base_env(self, user: str) -> dict[str, str]:
        home = "/root" if user == "root" else f"/home/{user}"
        env = {
            "HOME": home,
            "USER": user,
            "LOGNAME": user,
            "SHELL": "/bin/bash",
            "PATH": PATH,
            "LANG": "C.UTF-8",
            "CUDA_HOME": "/usr/local/cuda",
        }
        for line in self._etc_environment().splitlines():
            line = line.strip()
            if not line or line.startswith("#") or "=" not in line:
                continue
            if line.startswith("export "):
                line = line[len("export ") :]
            key, _, value = line.partition("=")
            env[key.strip()] = value.strip().strip('"').strip("'")
        return env

    def _etc_environment(self) -> str:
        """/etc/environment, read again only when it changed (it is read at every login)."""
        path = self._env_path
        try:
            stat = os.stat(path)
        except OSError:
            return ""
        key = (stat.st_mtime_ns, stat.st_size)
        if self._env_cache is None or self._env_cache[0] != key:
            try:
                with open(path, encoding="utf-8", errors="replace") as handle:
                    text = handle.read()
            except OSError:
                return ""
            self._env_cache = (key, text)
        return self._env_cache[1]

    def ensure_home(self, user: str) -> str:
        home = "/root" if user == "root" else f"/home/{user}"
        real = self.fs.real(home)
        if real is not None:
            real.mkdir(parents=True, exist_ok=True)
        return home

    # -- whole-node events ---------------------------------------------------------------------

    def crash(self) -> None:
        """Power loss: every process dies at once, GPUs stop."""
        self.procs.kill_all(SIGKILL)
        self.faults.nccl_watchdog = False
        self.faults.hung_rank = None
        self.faults.hung_at = None

    def reboot(self) -> None:
        """Back up after a crash: fresh boot time and kernel log, GPUs and NICs reset."""
        self.procs.kill_all(SIGKILL)
        self.gpus.reset()
        self.net.reset()
        self.boot_time = self.now() - 35.0
        self.kernel = KernelLog(self._clock, self.boot_time, self.hostname)
        self.faults = MachineFaults()
        with self._mem_lock:
            self._host_mem.clear()
