"""Bootstrap checks on a fresh node: driver and CUDA, GPUs as ordered, fabric, disk, setup.

Each step reads the same command output a person would look at, with the
parsers that read real nodes; the first failing step says what it saw.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xyclaw.catalog import normalise_gpu_name
from xyclaw.engine.operations import step_said
from xyclaw.errors import ParseError, RemoteError
from xyclaw.parsers.ibparse import parse_ibstat
from xyclaw.parsers.nvsmi import parse_csv, parse_query_header
from xyclaw.remote import CommandResult
from xyclaw.wording import Said, said

Runner = Callable[[str], CommandResult]
#: ``report(step, what_was_seen)``: what was seen is a :class:`Said` (``str()`` is English).
StepReport = Callable[[str, Said], None]

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

    def __init__(
        self, step: str, message: str | Said, *, host: str, hint: str | Said | None = None
    ) -> None:
        super().__init__(
            said("op.boot.failed", host=host, step=step_said(step), message=message),
            host=host,
            hint=hint,
        )
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
        raise BootstrapError(
            step,
            said("op.boot.exited", command=command, code=result.exit_code, tail=tail[0]),
            host=host,
        )
    return result.stdout


def check_driver(run: Runner, want: NodeExpectation, host: str) -> Said:
    text = _ok(run, "nvidia-smi -q", "driver", host)
    try:
        details = parse_query_header(text)  # the versions are in the banner
    except ParseError as exc:
        raise BootstrapError("driver", exc.said or exc.message, host=host) from exc
    if not details.driver_version or not details.cuda_version:
        raise BootstrapError(
            "driver",
            said("op.boot.no_versions"),
            host=host,
            hint=said("op.boot.no_versions_hint"),
        )
    return said("op.boot.driver", driver=details.driver_version, cuda=details.cuda_version)


def check_gpus(run: Runner, want: NodeExpectation, host: str) -> Said:
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
        raise BootstrapError("gpus", exc.said or exc.message, host=host) from exc
    models = {normalise_gpu_name(s.name or "") for s in samples}
    if len(samples) != want.gpus:
        raise BootstrapError(
            "gpus",
            said("op.boot.gpu_count", count=len(samples), ordered=want.gpus),
            host=host,
            hint=said("op.boot.gpu_count_hint"),
        )
    if models != {want.gpu}:
        raise BootstrapError(
            "gpus",
            said("op.boot.gpu_model", found=", ".join(sorted(models)), ordered=want.gpu),
            host=host,
        )
    return said("op.boot.gpus", count=len(samples), gpu=want.gpu)


def check_fabric(run: Runner, want: NodeExpectation, host: str) -> Said:
    if want.fabric.startswith("ib-"):
        layer = "InfiniBand"
    elif want.fabric.startswith("roce-"):
        layer = "Ethernet"
    else:
        return said("op.boot.no_rdma", fabric=want.fabric)
    text = _ok(run, "ibstat", "fabric", host)
    try:
        hcas = parse_ibstat(text)
    except ParseError as exc:
        raise BootstrapError("fabric", exc.said or exc.message, host=host) from exc
    ports = [p for h in hcas for p in h.ports if p.link_layer == layer]
    active = [p for p in ports if p.is_active]
    if not active:
        raise BootstrapError(
            "fabric",
            said("op.boot.no_port", layer=Said(f"op.boot.layer.{layer}"), count=len(ports)),
            host=host,
            hint=said("op.boot.no_port_hint"),
        )
    rates = sorted({int(p.rate_gbps) for p in active if p.rate_gbps})
    layer_said = Said(f"op.boot.layer.{layer}")
    if rates:
        return said("op.boot.ports_rate", count=len(active), layer=layer_said, rates=str(rates))
    return said("op.boot.ports", count=len(active), layer=layer_said)


def check_disk(run: Runner, want: NodeExpectation, host: str) -> Said:
    text = _ok(run, "df -B1 /", "disk", host)
    lines = [line.split() for line in text.strip().splitlines()[1:] if line.strip()]
    try:
        available = int(lines[-1][3])
    except (IndexError, ValueError) as exc:
        raise BootstrapError(
            "disk", said("op.boot.df_unreadable", text=repr(text[:80])), host=host
        ) from exc
    if available < want.min_free_disk_bytes:
        raise BootstrapError(
            "disk",
            said(
                "op.boot.disk_low",
                free=f"{available / 1024**3:.1f}",
                needed=f"{want.min_free_disk_bytes / 1024**3:.0f}",
            ),
            host=host,
            hint=said("op.boot.disk_low_hint"),
        )
    return said("op.boot.disk", gib=f"{available / 1024**3:.0f}")


def run_setup(run: Runner, want: NodeExpectation, host: str) -> Said:
    commands: Sequence[str] = IMAGE_SETUP.get(want.image or "", ())
    if commands:
        _ok(run, " && ".join(commands), "setup", host)
    if commands:
        return said("op.boot.setup", count=len(commands))
    return said("op.boot.no_setup")


_CHECKS: dict[str, Callable[[Runner, NodeExpectation, str], Said]] = {
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


CLOCK_COMMAND = "date +%s.%N"
_EPOCH = re.compile(r"^\s*(\d{9,12})(?:\.(\d+)|\.\S*)?\s*$")


def parse_epoch(text: str) -> float | None:
    """``date +%s.%N`` as seconds; a ``date`` without ``%N`` (busybox prints ``N``) gives
    whole seconds; None for anything else."""
    found = _EPOCH.match(text.strip().splitlines()[-1] if text.strip() else "")
    if found is None:
        return None
    fraction = found.group(2)
    return int(found.group(1)) + (float("0." + fraction) if fraction else 0.0)


def measure_clock_offset(
    run: Runner, clock: Callable[[], float], *, tries: int = 3
) -> float | None:
    """The node's clock minus ``clock``, in seconds: the node's ``date`` against the
    midpoint of the exec's round trip, from the quickest of ``tries`` round trips (the
    error is at most half of it). None when the node does not say the time."""
    best: tuple[float, float] | None = None
    for _ in range(tries):
        sent = clock()
        result = run(CLOCK_COMMAND)
        back = clock()
        node = parse_epoch(result.stdout) if result.ok else None
        if node is None:
            return None
        trip = back - sent
        if best is None or trip < best[0]:
            best = (trip, node - (sent + back) / 2)
    return None if best is None else best[1]


def bootstrap_node(run: Runner, want: NodeExpectation, host: str, report: StepReport) -> None:
    """Run every step in order; ``report(step, what_was_seen)`` after each that passes."""
    checks = _batched(run, host)
    for step in STEPS:
        report(step, _CHECKS[step](run if step == "setup" else checks, want, host))
