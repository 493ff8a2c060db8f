"""The commands a simulated node answers, and a machine built with them.

The command modules run inside a :class:`~xyclaw.sim.machine.Machine` (their context names
it), so the machine does not import them: this module, above both, hands it their tables
(issue 35).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from pathlib import Path

from xyclaw.sim import (
    coreutils,
    dcgmi,
    limits,
    nccl,
    nettools,
    nvsmi,
    serving,
    sysinfo,
    training,
)
from xyclaw.sim.context import Command
from xyclaw.sim.machine import Machine
from xyclaw.sim.nodespec import SimClusterInfo, SimNodeSpec

COMMANDS: tuple[Mapping[str, Command], ...] = (
    coreutils.COMMANDS,
    sysinfo.COMMANDS,
    nvsmi.COMMANDS,
    nettools.COMMANDS,
    nccl.COMMANDS,
    training.COMMANDS,
    serving.COMMANDS,
    limits.COMMANDS,  # installers and downloads: the one honest line
)


def new_machine(
    spec: SimNodeSpec,
    *,
    root: Path,
    cluster: SimClusterInfo | None = None,
    clock: Callable[[], float] = time.time,
    time_scale: float = 1.0,
) -> Machine:
    """A :class:`Machine` for ``spec`` that answers every simulated command."""
    return Machine(
        spec,
        root=root,
        cluster=cluster,
        clock=clock,
        time_scale=time_scale,
        commands=COMMANDS,
        rdma_commands=nettools.RDMA_COMMANDS,
        dcgm_commands=dcgmi.COMMANDS,
    )
