"""Bootstrap checks on a fresh node: driver and CUDA, GPUs as ordered, fabric, disk, setup.

Each step reads the same command output a person would look at, with the
parsers that read real nodes; the first failing step says what it saw.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xyclaw.catalog import normalise_gpu_name
from xyclaw.errors import ParseError, RemoteError
from xyclaw.parsers.ibparse import parse_ibstat
from xyclaw.parsers.nvsmi import parse_csv, parse_query_header
from xyclaw.remote import CommandResult

Runner = Callable[[str], CommandResult]
StepReport = Callable[[str, str], None]

MIN_FREE_DISK_BYTES = 20 * 1024**3

#: Setup commands of the one-click images (seed 003 names PyTorch, DeepSpeed,
#: Megatron-LM and Colossal-AI images); each runs once per node after the checks.
IMAGE_SETUP: dict[str, tuple[str, ...]] = {
    "pytorch-2.1": ("mkdir -p /workspace/checkpoints /workspace/data", "test -d /workspace"),
    "deepspeed": ("mkdir -p /workspace/checkpoints /workspace/data", "test -d /workspace"),
    "megatron-lm": ("mkdir -p /workspace/checkpoints /workspace/data", "test -d /workspace"),
    "colossal-ai": ("mkdir -p /workspace/checkpoints /workspace/data", "test -d /workspace"),
}

STEPS = ("driver", "gpus", "fabric", "disk", "setup")


class BootstrapError(RemoteError):
    """A node failed a bootstrap step."""

    def __init__(self, step: str, message: str, *, host: str, hint: str | None = None) -> None:
        super().__init__(f"{host}: {step} check failed: {message}", host=host, hint=hint)
        self.step = step


@dataclass(frozen=True)
class NodeExpectation:
    gpu: str
    gpus: int
    fabric: str
    image: str | None = None
    min_free_disk_bytes: int = MIN_FREE_DISK_BYTES


def _ok(run: Runner, command: str, step: str, host: str) -> str:
    result = run(command)
    if not result.ok:
        tail = (result.stderr or result.stdout).strip().splitlines()[-1:] or [""]
        raise BootstrapError(step, f"`{command}` exited {result.exit_code}: {tail[0]}", host=host)
    return result.stdout


def check_driver(run: Runner, want: NodeExpectation, host: str) -> str:
    text = _ok(run, "nvidia-smi -q", "driver", host)
    try:
        details = parse_query_header(text)  # the versions are in the banner
    except ParseError as exc:
        raise BootstrapError("driver", exc.message, host=host) from exc
    if not details.driver_version or not details.cuda_version:
        raise BootstrapError(
            "driver",
            "nvidia-smi -q names no driver or CUDA version",
            host=host,
            hint="the image lacks the NVIDIA driver or CUDA; choose another image",
        )
    return f"driver {details.driver_version}, CUDA {details.cuda_version}"


def check_gpus(run: Runner, want: NodeExpectation, host: str) -> str:
    fields = ["index", "name", "memory.total"]
    text = _ok(
        run,
        f"nvidia-smi --query-gpu={','.join(fields)} --format=csv,noheader,nounits",
        "gpus",
        host,
    )
    try:
        samples = parse_csv(text, fields)
    except ParseError as exc:
        raise BootstrapError("gpus", exc.message, host=host) from exc
    models = {normalise_gpu_name(s.name or "") for s in samples}
    if len(samples) != want.gpus:
        raise BootstrapError(
            "gpus",
            f"{len(samples)} GPUs answer, {want.gpus} were ordered",
            host=host,
            hint="a GPU may have fallen off the bus (XID 79); ask the provider for another node",
        )
    if models != {want.gpu}:
        raise BootstrapError(
            "gpus", f"found {', '.join(sorted(models))}, ordered {want.gpu}", host=host
        )
    return f"{len(samples)} x {want.gpu}"


def check_fabric(run: Runner, want: NodeExpectation, host: str) -> str:
    if want.fabric.startswith("ib-"):
        layer = "InfiniBand"
    elif want.fabric.startswith("roce-"):
        layer = "Ethernet"
    else:
        return f"{want.fabric}: no RDMA fabric to check"
    text = _ok(run, "ibstat", "fabric", host)
    try:
        hcas = parse_ibstat(text)
    except ParseError as exc:
        raise BootstrapError("fabric", exc.message, host=host) from exc
    ports = [p for h in hcas for p in h.ports if p.link_layer == layer]
    active = [p for p in ports if p.is_active]
    if not active:
        raise BootstrapError(
            "fabric",
            f"no active {layer} port ({len(ports)} found, none ACTIVE)",
            host=host,
            hint="the node's network is not up; release it and rent another",
        )
    rates = sorted({int(p.rate_gbps) for p in active if p.rate_gbps})
    return f"{len(active)} active {layer} ports" + (f" at {rates} Gb/s" if rates else "")


def check_disk(run: Runner, want: NodeExpectation, host: str) -> str:
    text = _ok(run, "df -B1 /", "disk", host)
    lines = [line.split() for line in text.strip().splitlines()[1:] if line.strip()]
    try:
        available = int(lines[-1][3])
    except (IndexError, ValueError) as exc:
        raise BootstrapError("disk", f"cannot read df's output: {text[:80]!r}", host=host) from exc
    if available < want.min_free_disk_bytes:
        raise BootstrapError(
            "disk",
            f"{available / 1024**3:.1f} GiB free, {want.min_free_disk_bytes / 1024**3:.0f} "
            "GiB needed",
            host=host,
            hint="free space on the node or rent one with a larger disk",
        )
    return f"{available / 1024**3:.0f} GiB free"


def run_setup(run: Runner, want: NodeExpectation, host: str) -> str:
    commands: Sequence[str] = IMAGE_SETUP.get(want.image or "", ())
    if commands:
        _ok(run, " && ".join(commands), "setup", host)
    return f"{len(commands)} setup commands" if commands else "no setup commands"


_CHECKS: dict[str, Callable[[Runner, NodeExpectation, str], str]] = {
    "driver": check_driver,
    "gpus": check_gpus,
    "fabric": check_fabric,
    "disk": check_disk,
    "setup": run_setup,
}


_CHECK_COMMANDS = (
    "nvidia-smi -q",
    "nvidia-smi --query-gpu=index,name,memory.total --format=csv,noheader,nounits",
    "ibstat",
    "df -B1 /",
)
_MARK = "@@xyclaw"
#: One command's section of the batched output: its opening mark, its lines, its closing mark
#: with the exit status (found in one pass; the output of 8 GPUs' `nvidia-smi -q` is long).
_SECTION_RE = re.compile(
    rf"^{_MARK} (?P<index>[0-{len(_CHECK_COMMANDS) - 1}])[ \t]*\r?\n"
    rf"(?P<text>.*?)^{_MARK} (?P=index) (?P<status>\S*)[ \t]*\r?$",
    re.MULTILINE | re.DOTALL,
)


def _batched(run: Runner, host: str) -> Runner:
    """All the checks' commands in one round trip; then each check reads its own section.

    Real nodes sit tens of milliseconds away: one exec instead of five saves
    four round trips per node, and the checks stay as they would be run by hand.
    """
    script = "; ".join(
        f"echo '{_MARK} {i}'; {command} 2>&1; echo \"{_MARK} {i} $?\""
        for i, command in enumerate(_CHECK_COMMANDS)
    )
    combined = run(script)
    sections: dict[str, CommandResult] = {}
    for found in _SECTION_RE.finditer(combined.stdout):
        command = _CHECK_COMMANDS[int(found["index"])]
        status = found["status"]
        code = int(status) if status.lstrip("-").isdigit() else 1
        text = found["text"].replace("\r\n", "\n")
        sections[command] = CommandResult(
            host, command, code, text if code == 0 else "", "" if code == 0 else text
        )

    def cached(command: str) -> CommandResult:
        found = sections.get(command)
        return found if found is not None else run(command)

    return cached


def bootstrap_node(run: Runner, want: NodeExpectation, host: str, report: StepReport) -> None:
    """Run every step in order; ``report(step, what_was_seen)`` after each that passes."""
    checks = _batched(run, host)
    for step in STEPS:
        report(step, _CHECKS[step](run if step == "setup" else checks, want, host))
