"""Testing one of your own hosts: connect as ``up`` would, list its GPUs, compare them with
what its ``hosts.toml`` entry says. ``xyclaw hosts test`` and the desktop's Settings > Hosts
"Test" both use :func:`check_host` and :meth:`HostCheck.matches`; each brings its own SSH
pool (and with it the question asked about a host key XyClaw does not know yet).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from xyclaw.catalog import normalise_gpu_name
from xyclaw.errors import ParseError, RemoteError
from xyclaw.parsers.nvsmi import parse_csv
from xyclaw.remote.pool import SshPool

GPU_QUERY = "nvidia-smi --query-gpu=index,name,memory.total --format=csv,noheader,nounits"
GPU_FIELDS = ("index", "name", "memory.total")


@dataclass(frozen=True)
class HostGpu:
    index: int
    name: str | None
    memory_mib: int | None


@dataclass(frozen=True)
class HostCheck:
    """What a host answered: its GPUs and how long it took."""

    host: str
    gpus: tuple[HostGpu, ...]
    seconds: float

    def has(self, count: int, model: str) -> bool:
        """Whether the host has the GPUs hosts.toml says: ``count`` of them, all ``model``."""
        models = {normalise_gpu_name(g.name or "") for g in self.gpus}
        return len(self.gpus) == count and models <= {model}


def check_host(pool: SshPool, destination: str, *, timeout: float) -> HostCheck:
    """Run nvidia-smi on ``destination`` through ``pool``; RemoteError (with what to do) when
    the host cannot be reached, nvidia-smi fails there or its list cannot be read."""
    started = time.monotonic()
    result = pool.run(destination, GPU_QUERY, timeout=timeout)
    seconds = time.monotonic() - started
    if result.exit_code != 0:
        raise RemoteError(
            f"{destination} answered, but nvidia-smi failed there (exit {result.exit_code}):"
            f" {(result.stderr or result.stdout).strip()[:200]}",
            host=destination,
            hint="install the NVIDIA driver on the host, or check that it sees its GPUs",
        )
    try:
        samples = parse_csv(result.stdout, GPU_FIELDS)
    except ParseError as exc:
        raise RemoteError(
            f"{destination} answered, but its GPU list could not be read: {exc.message}",
            host=destination,
            hint="run nvidia-smi on the host and check its output",
        ) from exc
    gpus = tuple(
        HostGpu(s.index if s.index is not None else i, s.name, s.memory_total_mib)
        for i, s in enumerate(samples)
    )
    return HostCheck(host=destination, gpus=gpus, seconds=seconds)


__all__ = ["GPU_FIELDS", "GPU_QUERY", "HostCheck", "HostGpu", "check_host"]
