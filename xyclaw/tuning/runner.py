"""Running nccl-tests' ``all_reduce_perf`` across a cluster's nodes.

Across nodes the test runs under ``mpirun`` from the first node, one rank per
GPU, with every NCCL variable passed by ``-x NAME=VALUE`` so the remote ranks
get it too. On one node it runs alone with ``-g`` GPUs. ``NCCL_DEBUG=INFO``
is added for the test only: its ``NET/IB`` or ``NET/Socket`` line says which
transport NCCL really used.
"""

from __future__ import annotations

import shlex
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from xyclaw.errors import ParseError, RemoteError
from xyclaw.parsers.nccltests import NcclTestRun, parse_nccl_tests
from xyclaw.wording import Said, said

if TYPE_CHECKING:
    from xyclaw.records import ClusterRecord, NodeRecord
    from xyclaw.remote.node_access import NodeAccess

# Only the lines that tell the transport; INFO from every subsystem floods the log.
TEST_DEBUG_ENV = {"NCCL_DEBUG": "INFO", "NCCL_DEBUG_SUBSYS": "INIT,NET"}


@dataclass(frozen=True)
class MeasureSettings:
    """How big and how long a test run is. The defaults suit a real cluster: large
    messages (where bus bandwidth plateaus) and three repeats for jitter."""

    binary: str = "all_reduce_perf"
    min_bytes: str = "64M"
    max_bytes: str = "1G"
    step_factor: int = 2
    iters: int = 20
    warmup: int = 5
    repeats: int = 3
    timeout_s: float = 900.0
    mpirun_args: tuple[str, ...] = ("--allow-run-as-root", "--bind-to", "none")


@dataclass(frozen=True)
class MeasuredRun:
    """One run: what ran, how it ended and, when the output was readable, its figures."""

    command: str
    env: dict[str, str]
    exit_code: int | None
    run: NcclTestRun | None
    error: str | None = None
    duration_s: float = 0.0
    output_tail: tuple[str, ...] = field(default=(), compare=False)
    # ``error`` worded, where it is XyClaw's own sentence (a tool's output stays as it is).
    error_said: Said | None = field(default=None, compare=False)

    @property
    def ok(self) -> bool:
        return self.error is None and self.run is not None and bool(self.run.rows)


def nccl_test_command(
    hosts: Sequence[str],
    gpus_per_node: int,
    env: Mapping[str, str],
    settings: MeasureSettings,
) -> str:
    """The shell command that runs the test on the first host."""
    m = settings
    test_args = [
        "-b",
        m.min_bytes,
        "-e",
        m.max_bytes,
        "-f",
        str(m.step_factor),
        "-n",
        str(m.iters),
        "-w",
        str(m.warmup),
    ]
    full_env = {**env, **TEST_DEBUG_ENV}
    if len(hosts) <= 1:
        prefix = [f"{k}={shlex.quote(v)}" for k, v in sorted(full_env.items())]
        return " ".join([*prefix, shlex.quote(m.binary), *test_args, "-g", str(gpus_per_node)])
    parts = [
        "mpirun",
        *m.mpirun_args,
        "-np",
        str(len(hosts) * gpus_per_node),
        "-H",
        ",".join(f"{h}:{gpus_per_node}" for h in hosts),
    ]
    for k, v in sorted(full_env.items()):
        parts += ["-x", f"{k}={v}"]
    parts += [m.binary, *test_args, "-g", "1"]
    return " ".join(shlex.quote(p) for p in parts)


class NcclTestRunner:
    """Runs the test through the engine's node access and reads its output."""

    def __init__(self, access: NodeAccess) -> None:
        self.access = access

    def run(
        self,
        cluster: ClusterRecord,
        head: NodeRecord,
        hosts: Sequence[str],
        gpus_per_node: int,
        env: Mapping[str, str],
        settings: MeasureSettings,
    ) -> MeasuredRun:
        command = nccl_test_command(hosts, gpus_per_node, env, settings)
        started = time.monotonic()
        try:
            result = self.access.run(cluster, head, command, timeout=settings.timeout_s)
        except RemoteError as exc:
            return MeasuredRun(
                command,
                dict(env),
                None,
                None,
                error=exc.message,
                duration_s=time.monotonic() - started,
                error_said=exc.said,
            )
        elapsed = time.monotonic() - started
        output = result.stdout + ("\n" + result.stderr if result.stderr else "")
        tail = tuple(line for line in output.strip().splitlines()[-12:])
        run: NcclTestRun | None = None
        error: Said | None = None
        binary = settings.binary
        try:
            run = parse_nccl_tests(result.stdout + "\n" + result.stderr)
        except ParseError as exc:
            error = said("op.nccltest.no_output", binary=binary, error=exc.said or exc.message)
        if result.exit_code != 0:
            last = next((line for line in reversed(tail) if line.strip()), None)
            error = said(
                "op.nccltest.exited",
                binary=binary,
                code=result.exit_code,
                node=head.name,
                last=last if last is not None else said("op.probe.no_output"),
            )
        elif run is not None and not run.rows:
            error = said("op.nccltest.no_rows", binary=binary, node=head.name)
        return MeasuredRun(
            command,
            dict(env),
            result.exit_code,
            run,
            error.english if error is not None else None,
            elapsed,
            tail,
            error_said=error,
        )
