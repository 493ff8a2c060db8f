"""This machine as a one-node cluster, with its GPUs if ``nvidia-smi`` is there.

Commands for its node run here through a subprocess, not over SSH (the node's
``ssh_host`` is :data:`LOCAL_HOST`).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from xyclaw.catalog import normalise_gpu_name
from xyclaw.providers.base import Capabilities
from xyclaw.providers.own_hosts import OwnHost, OwnHostsProvider
from xyclaw.records.provider_view import LOCAL_HOST


def detect_local_gpus(nvidia_smi: str | None = None) -> tuple[str, int]:
    """(GPU model, count) of this machine; ("NONE", 0) without NVIDIA GPUs."""
    exe = nvidia_smi or shutil.which("nvidia-smi")
    if not exe:
        return ("NONE", 0)
    try:
        out = subprocess.run(
            [exe, "--query-gpu=name", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            timeout=20,
        )
    except (OSError, subprocess.TimeoutExpired):
        return ("NONE", 0)
    names = [line.strip() for line in out.stdout.splitlines() if line.strip()]
    if out.returncode != 0 or not names:
        return ("NONE", 0)
    return (normalise_gpu_name(names[0]), len(names))


class LocalProvider(OwnHostsProvider):
    """Clusters of one node: this machine."""

    kind = "local"
    capabilities = Capabilities(rents=False, multi_node=False)

    def __init__(self, state_file: Path, *, name: str = "local") -> None:
        super().__init__(state_file, state_file, name=name, hosts=self._detect)

    @staticmethod
    def _detect() -> list[OwnHost]:
        gpu, count = detect_local_gpus()
        if count == 0:
            return []
        return [OwnHost(LOCAL_HOST, gpu, count, "none", 0, "CNY")]
