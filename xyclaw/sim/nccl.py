"""NCCL on a simulated node: the transport it picks, the bandwidth it gets, and nccl-tests.

The transport follows the NCCL environment the way NCCL does: an
`NCCL_IB_HCA` that matches no device, `NCCL_IB_DISABLE=1`, or a RoCE GID
index the NIC does not have leave NCCL on sockets, which are slow. The
bus bandwidth comes from the fabric's line rate, the NICs in use and the
efficiency people report (docs/reference-figures.md); inside one node it
is the NVLink (or PCIe) figure of the GPU model.
"""

from __future__ import annotations

import math
import random
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol

from xyclaw.sim.context import Ctx
from xyclaw.sim.fabric import NetIf, Network, Nic
from xyclaw.sim.gpu import GpuBoard, Load
from xyclaw.sim.specs import NCCL_TESTS_VERSION, NCCL_VERSION


class Machine(Protocol):
    """What the link model and NCCL's debug lines read of a :class:`~xyclaw.sim.machine.Machine`.

    A Protocol, not an import: the machine holds this module's commands, and the type-only
    import back of its class closed a circle (issue 35)."""

    @property
    def hostname(self) -> str: ...

    @property
    def net(self) -> Network: ...

    @property
    def gpus(self) -> GpuBoard: ...


IPOIB_CAP_GBS = 4.5
SOCKET_EFFICIENCY = 0.75


@dataclass
class NetChoice:
    """What NCCL decided at init: IB verbs over some NICs, or plain sockets."""

    transport: str  # "IB" or "Socket"
    nics: list[Nic]
    socket_iface: NetIf | None
    bootstrap: NetIf | None
    info: list[str] = field(default_factory=list)  # NCCL INFO lines (text after "NCCL INFO ")
    warn: list[str] = field(default_factory=list)  # NCCL WARN lines
    error: str | None = None  # init fails (e.g. no socket interface matches)


def _match_list(spec: str, names: list[str]) -> list[str]:
    """NCCL's interface/HCA list syntax: prefixes, `=` exact, `^` exclude, `:port` suffixes."""
    exclude = spec.startswith("^")
    body = spec[1:] if exclude else spec
    exact = body.startswith("=")
    if exact:
        body = body[1:]
    wanted: list[tuple[str, str | None]] = []
    for item in body.split(","):
        item = item.strip()
        if not item:
            continue
        name, _, port = item.partition(":")
        wanted.append((name, port or None))

    def hit(name: str) -> bool:
        for want, port in wanted:
            if port not in (None, "1"):
                continue
            if (name == want) if exact else name.startswith(want):
                return True
        return False

    return [n for n in names if hit(n) != exclude]


def choose_network(net: Network, env: Mapping[str, str]) -> NetChoice:
    candidates = [i for i in net.ifaces if i.kind != "loopback" and i.up]
    ordered = [i for i in candidates if i.name.startswith("ib")] + [
        i for i in candidates if not i.name.startswith("ib")
    ]
    ifname = env.get("NCCL_SOCKET_IFNAME", "")
    if ifname:
        names = _match_list(ifname, [i.name for i in ordered])
        ordered = [i for i in ordered if i.name in names]
    if not ordered:
        return NetChoice(
            "Socket",
            [],
            None,
            None,
            warn=["Bootstrap : no socket interface found"],
            error="Bootstrap : no socket interface found",
        )
    bootstrap = ordered[0]
    oob = f"{bootstrap.name}:{bootstrap.ipv4}<0>"
    info = [
        f"Bootstrap : Using {oob}",
        "NET/Plugin : No plugin found (libnccl-net.so), using internal implementation",
    ]
    warn: list[str] = []
    use_ib = net.fabric.rdma and env.get("NCCL_IB_DISABLE", "0") not in ("1", "true")
    if env.get("NCCL_NET", "").lower() == "socket":
        use_ib = False
    nics: list[Nic] = []
    if use_ib:
        nics = [n for n in net.nics if n.up]
        hca = env.get("NCCL_IB_HCA", "")
        if hca:
            keep = set(_match_list(hca, [n.name for n in nics]))
            nics = [n for n in nics if n.name in keep]
        gid_text = env.get("NCCL_IB_GID_INDEX", "")
        if nics and net.fabric.link_layer == "Ethernet" and gid_text:
            try:
                gid_index = int(gid_text)
            except ValueError:
                gid_index = -1
            usable = [n for n in nics if 0 <= gid_index < len(net.gids(n))]
            for nic in nics:
                if nic not in usable:
                    warn.append(
                        f"NET/IB : {nic.name}:1 has no GID at index {gid_text} "
                        f"({len(net.gids(nic))} GIDs); ignoring the device"
                    )
            nics = usable
    if nics:
        layer = "IB" if net.fabric.link_layer == "InfiniBand" else "RoCE"
        listed = " ".join(f"[{k}]{n.name}:1/{layer}" for k, n in enumerate(nics))
        info.append(f"NET/IB : Using {listed} [RO]; OOB {oob}")
        info.append("Using network IB")
        return NetChoice("IB", nics, None, bootstrap, info=info, warn=warn)
    if net.fabric.rdma and use_ib:
        info.append("NET/IB : No device found.")
    info.append(f"NET/Socket : Using [0]{oob}")
    info.append("Using network Socket")
    return NetChoice("Socket", [], bootstrap, bootstrap, info=info, warn=warn)


@dataclass(frozen=True)
class LinkModel:
    """Peak bus bandwidth (GB/s), small-message latency (us) and run-to-run noise."""

    busbw: float
    latency_us: float
    jitter: float
    net_bytes_s: float  # what each node puts on its NICs at peak (both directions)


def link_model(
    machine: Machine, choice: NetChoice, *, nodes: int, ranks_per_node: int, env: Mapping[str, str]
) -> LinkModel:
    model = machine.gpus.model
    intra = model.intra_busbw
    if model.intra_busbw > 400 and ranks_per_node < 8:
        intra = 370.0  # NVLS needs all eight GPUs of the node
    if nodes <= 1:
        return LinkModel(intra, 14.0 if model.nvlink else 24.0, 0.01, 0.0)
    fabric = machine.net.fabric
    scale = math.log2(nodes)
    if choice.transport == "IB":
        efficiency = fabric.efficiency
        jitter = 0.015
        if fabric.link_layer == "Ethernet":
            traffic_class = env.get("NCCL_IB_TC", "")
            if not traffic_class or traffic_class == "0":
                efficiency -= 0.08  # no lossless class: PFC/ECN not in use, retransmissions
                jitter = 0.06
            if (
                env.get("NCCL_IB_QPS_PER_CONNECTION", "1").isdigit()
                and int(env.get("NCCL_IB_QPS_PER_CONNECTION", "1")) >= 4
            ):
                efficiency = min(0.93, efficiency + 0.03)
        if env.get("NCCL_NET_GDR_LEVEL", "").upper() in ("LOC", "0"):
            efficiency *= 0.75  # no GPUDirect RDMA: bounce through host memory
        used = min(len(choice.nics), max(1, ranks_per_node))
        net = used * fabric.rate_gbps / 8.0 * efficiency
        busbw = min(intra, net)
        return LinkModel(busbw, fabric.latency_us + 3.0 * scale, jitter, busbw * 1e9)
    iface = choice.socket_iface
    speed = (iface.speed_mbps / 1000.0) if iface is not None else 25.0
    net = speed / 8.0 * SOCKET_EFFICIENCY
    if iface is not None and iface.kind == "infiniband":
        net = min(net, IPOIB_CAP_GBS)
    busbw = min(intra, net)
    return LinkModel(busbw, 180.0 + 25.0 * scale, 0.05, busbw * 1e9)


def nccl_debug_lines(
    machine: Machine,
    choice: NetChoice,
    pid: int,
    *,
    rank0: bool,
    env: Mapping[str, str] | None = None,
) -> list[str]:
    prefix = f"{machine.hostname}:{pid}:{pid} [0] NCCL"
    # NCCL names each of its variables it read from the environment (src/misc/param.cc)
    lines = [
        f"{prefix} INFO {name} set by environment to {value}"
        for name, value in sorted((env or {}).items())
        if name.startswith("NCCL_") and name != "NCCL_DEBUG"
    ]
    lines += [f"{prefix} INFO {text}" for text in choice.info[:2]]
    for text in choice.warn:
        lines.append(f"{machine.hostname}:{pid}:{pid} [0] transport/net_ib.cc:455 NCCL WARN {text}")
    lines += [f"{prefix} INFO {text}" for text in choice.info[2:]]
    if rank0:
        lines.insert(0, f"{prefix} INFO cudaDriverVersion 12040")
        lines.append(f"{prefix} INFO NCCL version {NCCL_VERSION}+cuda12.4")
    return lines


# -- nccl-tests --------------------------------------------------------------------------------

_TYPES = {
    "int8": 1,
    "char": 1,
    "uint8": 1,
    "int32": 4,
    "int": 4,
    "uint32": 4,
    "int64": 8,
    "uint64": 8,
    "half": 2,
    "float16": 2,
    "float": 4,
    "float32": 4,
    "double": 8,
    "float64": 8,
    "bfloat16": 2,
    "f8e4m3": 1,
    "f8e5m2": 1,
}
_CANON_TYPE = {
    "char": "int8",
    "int": "int32",
    "float16": "half",
    "float32": "float",
    "float64": "double",
}
_TESTS = {
    "all_reduce_perf": ("all_reduce", "ar"),
    "all_gather_perf": ("all_gather", "ring"),
    "reduce_scatter_perf": ("reduce_scatter", "ring"),
    "alltoall_perf": ("alltoall", "ring"),
    "broadcast_perf": ("broadcast", "one"),
    "reduce_perf": ("reduce", "one"),
}


def _size(text: str) -> int:
    m = re.fullmatch(r"(\d+)([KkMmGgTt]?)[Bb]?", text.strip())
    if not m:
        raise ValueError(text)
    mult = {"": 1, "k": 1024, "m": 1024**2, "g": 1024**3, "t": 1024**4}[m.group(2).lower()]
    return int(m.group(1)) * mult


def _float_str(value: float, width: int) -> str:
    """nccl-tests' getFloatStr: as many decimals as fit the column."""
    power = 0
    threshold = 1
    while value >= threshold:
        power += 1
        threshold *= 10
    if power < width - 2:
        return f"{value:{width}.2f}"
    if power < width - 1:
        return f"{value:{width}.1f}"
    if power < width + 1:
        return f"{value:{width}.0f}"
    return f"{value:{width}.1e}"


@dataclass
class World:
    """Who takes part in a collective test: nodes (hostnames) and ranks per node."""

    hosts: list[str]
    procs_per_node: int
    env: dict[str, str]


@dataclass
class _TestArgs:
    min_bytes: int = 32 * 1024 * 1024
    max_bytes: int = 32 * 1024 * 1024
    step_factor: int = 1
    step_bytes: int = 1024 * 1024
    ngpus: int = 1
    nthreads: int = 1
    iters: int = 20
    warmup: int = 5
    check: int = 1
    dtype: str = "float"
    op: str = "sum"
    root: int = 0
    blocking: int = 0
    graph: int = 0
    agg: int = 1


def _parse_test_args(args: list[str]) -> _TestArgs:
    parsed = _TestArgs()
    long_names = {
        "--minbytes": "-b",
        "--maxbytes": "-e",
        "--stepbytes": "-i",
        "--stepfactor": "-f",
        "--ngpus": "-g",
        "--nthreads": "-t",
        "--iters": "-n",
        "--warmup_iters": "-w",
        "--check": "-c",
        "--datatype": "-d",
        "--op": "-o",
        "--root": "-r",
        "--blocking": "-z",
        "--cudagraph": "-G",
        "--agg_iters": "-m",
    }
    i = 0
    while i < len(args):
        arg = args[i]
        if "=" in arg and arg.startswith("--"):
            key, value = arg.split("=", 1)
        else:
            key = arg
            value = args[i + 1] if i + 1 < len(args) else ""
            i += 1
        key = long_names.get(key, key)
        if key == "-b":
            parsed.min_bytes = _size(value)
        elif key == "-e":
            parsed.max_bytes = _size(value)
        elif key == "-i":
            parsed.step_bytes = _size(value)
        elif key == "-f":
            parsed.step_factor = int(value)
        elif key == "-g":
            parsed.ngpus = int(value)
        elif key == "-t":
            parsed.nthreads = int(value)
        elif key == "-n":
            parsed.iters = int(value)
        elif key == "-w":
            parsed.warmup = int(value)
        elif key == "-c":
            parsed.check = int(value)
        elif key == "-d":
            if value != "all" and value not in _TYPES:
                raise ValueError(value)
            parsed.dtype = _CANON_TYPE.get(value, value)
        elif key == "-o":
            parsed.op = value
        elif key == "-r":
            parsed.root = int(value)
        elif key == "-z":
            parsed.blocking = int(value)
        elif key == "-G":
            parsed.graph = int(value)
        elif key == "-m":
            parsed.agg = int(value)
        elif key in ("-a", "-p", "-N", "-C", "-R", "-T", "-J", "-S", "-M", "-u"):
            pass
        else:
            raise ValueError(arg)
        i += 1
    return parsed


def run_collective_test(ctx: Ctx, program: str, args: list[str], world: World | None) -> int:
    machine = ctx.machine
    try:
        opts = _parse_test_args(args)
    except (ValueError, IndexError):
        ctx.err(
            f"{program}: invalid argument\nUSAGE: {program} \n\t[-t,--nthreads <num threads>] "
            "\n\t[-g,--ngpus <gpus per thread>] \n\t[-b,--minbytes <min size in bytes>] "
            "\n\t[-e,--maxbytes <max size in bytes>] \n"
        )
        return 1
    env = dict(ctx.env)
    hosts = [machine.hostname]
    procs_per_node = 1
    if world is not None:
        hosts = world.hosts
        procs_per_node = world.procs_per_node
        env.update(world.env)
    ranks_per_node = procs_per_node * opts.nthreads * opts.ngpus
    visible = machine.gpus.visible()
    if ranks_per_node > len(visible):
        ctx.err(
            f"Invalid number of GPUs: {ranks_per_node} requested but only {len(visible)} were "
            "found.\nPlease check the number of processes and GPUs per process.\n"
        )
        return 1
    nodes = len(hosts)
    nranks = nodes * ranks_per_node
    choice = choose_network(machine.net, env)
    assert ctx.proc is not None
    pid = ctx.proc.pid
    debug = env.get("NCCL_DEBUG", "").upper() in ("INFO", "TRACE", "WARN")
    kind, shape = _TESTS[program]
    lines = [
        f"# nccl-tests version {NCCL_TESTS_VERSION} nccl-headers=22105 nccl-library=22105",
        f"# Collective test starting: {program}",
        f"# nThread {opts.nthreads} nGpus {opts.ngpus} minBytes {opts.min_bytes} maxBytes "
        f"{opts.max_bytes} step: "
        + (f"{opts.step_factor}(factor)" if opts.step_factor > 1 else f"{opts.step_bytes}(bytes)")
        + f" warmup iters: {opts.warmup} iters: {opts.iters} agg iters: {opts.agg} validation: "
        f"{opts.check} graph: {opts.graph}",
        "#",
        "# Using devices",
    ]
    rng = random.Random(f"{machine.hostname}/{pid}/{program}")
    rank = 0
    for host in hosts:
        base_pid = pid if host == machine.hostname else 10000 + rng.randrange(3_000_000)
        for proc_index in range(procs_per_node):
            for local in range(opts.nthreads * opts.ngpus):
                device = proc_index * opts.nthreads * opts.ngpus + local
                gpu = visible[device] if host == machine.hostname else machine.gpus.gpus[device]
                lines.append(
                    f"#  Rank {rank:2d} Group  0 Pid {base_pid + proc_index:6d} on {host:>10} "
                    f"device {device:2d} [{gpu.pci_short}] {gpu.model.name}"
                )
                rank += 1
    lines.append("#")
    mem_bytes = visible[0].model.memory_mib * 1024 * 1024 - 1024**3
    limit = mem_bytes // (3 if opts.check else 2)
    max_bytes = opts.max_bytes
    if max_bytes > limit:
        max_bytes = limit
        lines += [f"# Reducing maxBytes to {limit} due to memory limitation", "#"]
    if debug:
        lines += nccl_debug_lines(machine, choice, pid, rank0=True)
    if choice.error is not None:
        ctx.out("\n".join(lines) + "\n")
        ctx.out(
            f"{machine.hostname}: Test NCCL failure common.cu:1279 'unhandled system error "
            "(run with NCCL_DEBUG=INFO for details) / '\n"
        )
        return 3
    lines += [
        "#",
        f"# {'':>10}  {'':>12}  {'':>8}  {'':>6}  {'':>6}           out-of-place"
        "                       in-place          ",
        f"# {'size':>10}  {'count':>12}  {'type':>8}  {'redop':>6}  {'root':>6}  {'time':>7}  "
        f"{'algbw':>6}  {'busbw':>6}  {'#wrong':>6}  {'time':>7}  {'algbw':>6}  {'busbw':>6}  "
        f"{'#wrong':>6} ",
        f"# {'(B)':>10}  {'(elements)':>12}  {'':>8}  {'':>6}  {'':>6}  {'(us)':>7}  "
        f"{'(GB/s)':>6}  {'(GB/s)':>6}  {'':>6}  {'(us)':>7}  {'(GB/s)':>6}  {'(GB/s)':>6}  "
        f"{'':>6} ",
    ]
    ctx.out("\n".join(lines) + "\n")
    link = link_model(machine, choice, nodes=nodes, ranks_per_node=ranks_per_node, env=env)
    if shape == "ar":
        factor = 2.0 * (nranks - 1) / nranks
    elif shape == "ring":
        factor = (nranks - 1) / nranks
    else:
        factor = 1.0
    types = list(_TYPES) if opts.dtype == "all" else [opts.dtype]
    types = [_CANON_TYPE.get(t, t) for t in dict.fromkeys(types)]
    ops = ["sum", "prod", "max", "min", "avg"] if opts.op == "all" else [opts.op]
    if kind not in ("all_reduce", "reduce_scatter", "reduce"):
        ops = ["none"]
    root = opts.root if kind in ("broadcast", "reduce") else -1
    owner = pid
    for gpu in visible[:ranks_per_node]:
        machine.gpus.add_load(
            machine.gpus.gpus.index(gpu),
            Load(
                owner,
                ctx.name,
                100.0,
                int(3 * max_bytes / 1024**2) + 610,
                intensity=0.35,
                mem_util=55.0,
            ),
        )
    if nodes > 1:
        if choice.transport == "IB":
            machine.net.set_traffic(owner, rdma_bytes_s=link.net_bytes_s)
        else:
            iface = choice.socket_iface.name if choice.socket_iface else None
            machine.net.set_traffic(owner, socket_iface=iface, socket_bytes_s=link.net_bytes_s)
    busbws: list[float] = []
    wrong_total = 0
    try:
        if ctx.wait(1.5 * machine.time_scale):
            return ctx.killed_status()
        for dtype in types:
            width = _TYPES[dtype]
            for op in ops:
                size = opts.min_bytes
                while size <= max_bytes:
                    count = size // width
                    nbytes = count * width
                    cells: list[str] = []
                    row_seconds = 0.0
                    for _ in range(2):
                        wire = nbytes * factor if factor else nbytes
                        t_us = link.latency_us + (wire / (link.busbw * 1e3) if nbytes else 0.0)
                        t_us *= 1.0 + rng.uniform(-link.jitter, link.jitter)
                        algbw = nbytes / 1e3 / t_us if t_us > 0 else 0.0
                        busbw = algbw * factor
                        busbws.append(busbw)
                        wrong = "0" if opts.check else "N/A"
                        cells.append(
                            f"  {_float_str(t_us, 7)}  {_float_str(algbw, 6)}  "
                            f"{_float_str(busbw, 6)}  {wrong:>6}"
                        )
                        row_seconds += t_us * 1e-6 * (opts.iters + opts.warmup)
                    if ctx.wait(row_seconds * machine.time_scale):
                        return ctx.killed_status()
                    ctx.out(
                        f"{nbytes:12d}  {count:12d}  {dtype:>8}  {op:>6}  {root:6d}"
                        + "".join(cells)
                        + "\n"
                    )
                    if opts.step_factor > 1:
                        size *= opts.step_factor
                    else:
                        size += opts.step_bytes
                    if size == 0:
                        break
        avg = sum(busbws) / len(busbws) if busbws else 0.0
        ctx.out(
            f"# Out of bounds values : {wrong_total} OK\n"
            f"# Avg bus bandwidth    : {avg:g} \n#\n"
            f"# Collective test concluded: {program}\n#\n"
        )
        return 0
    finally:
        machine.gpus.remove_pid(owner)
        machine.net.clear_traffic(owner)


def collective_test(ctx: Ctx) -> int:
    return run_collective_test(ctx, ctx.name, ctx.args, None)


# -- mpirun ------------------------------------------------------------------------------------


def mpirun(ctx: Ctx) -> int:
    machine = ctx.machine
    args = list(ctx.args)
    nprocs: int | None = None
    per_node: int | None = None
    hosts: list[tuple[str, int | None]] = []
    env: dict[str, str] = {}
    while args and args[0].startswith("-"):
        opt = args.pop(0)
        if opt in ("-np", "-n", "--np", "-c") and args:
            nprocs = int(args.pop(0))
        elif opt in ("-H", "-host", "--host") and args:
            for item in args.pop(0).split(","):
                name, _, count_text = item.partition(":")
                hosts.append((name, int(count_text) if count_text.isdigit() else None))
        elif opt in ("--hostfile", "-hostfile", "--machinefile", "-machinefile") and args:
            path = ctx.path(args.pop(0))
            try:
                text = machine.fs.read_text(path)
            except Exception:
                ctx.err(f"Open RTE was unable to open the hostfile:\n    {path}\n")
                return 1
            for line in text.splitlines():
                line = line.split("#", 1)[0].strip()
                if not line:
                    continue
                parts = line.split()
                count = next(
                    (int(p.split("=")[1]) for p in parts[1:] if p.startswith("slots=")), None
                )
                hosts.append((parts[0], count))
        elif opt in ("-N", "-npernode", "--npernode") and args:
            per_node = int(args.pop(0))
        elif opt in ("-x",) and args:
            item = args.pop(0)
            key, eq, value = item.partition("=")
            if eq:
                env[key] = value
            elif key in ctx.env:
                env[key] = ctx.env[key]
        elif (
            opt
            in (
                "--mca",
                "-mca",
                "--map-by",
                "-map-by",
                "--bind-to",
                "-bind-to",
                "--rank-by",
                "-wdir",
                "--wdir",
                "--prefix",
            )
            and args
        ):
            args.pop(0)
    if not args:
        ctx.err("mpirun could not find anything to do.\n")
        return 1
    program = args[0].rsplit("/", 1)[-1]
    names = hosts or [(machine.hostname, None)]
    resolved: list[tuple[str, int | None]] = []
    for name, slots in names:
        host = machine.resolve_host(name)
        if host is None:
            ctx.err(
                f"ssh: Could not resolve hostname {name}: Name or service not known\n"
                "--------------------------------------------------------------------------\n"
                "ORTE was unable to reliably start one or more daemons.\n"
            )
            return 1
        resolved.append((host, slots))
    gpus = machine.gpus_per_node
    if per_node is None:
        slots_known = [s for _, s in resolved if s is not None]
        per_node = slots_known[0] if slots_known else None
    if nprocs is None:
        nprocs = (per_node or gpus) * len(resolved) if (per_node or hosts) else 1
    if per_node is None:
        per_node = -(-nprocs // len(resolved))
        if hosts and all(s is None for _, s in resolved) and per_node > 1:
            ctx.err(
                "--------------------------------------------------------------------------\n"
                f"There are not enough slots available in the system to satisfy the {nprocs}\n"
                "slots that were requested by the application:\n\n"
                f"  {args[0]}\n\n"
                "Either request fewer slots for your application, or make more slots\n"
                "available for use.\n"
                "--------------------------------------------------------------------------\n"
            )
            return 1
    used_hosts = [h for h, _ in resolved][: max(1, -(-nprocs // per_node))]
    if program in _TESTS:
        world = World(hosts=used_hosts, procs_per_node=min(per_node, nprocs), env=env)
        if ctx.proc is not None:
            ctx.proc.argv = list(args)
        return run_collective_test(ctx, program, args[1:], world)
    status = 0
    for _ in range(nprocs):
        sub = ctx.shell.subshell()
        sub.vars.update(env)
        sub.exported.update(env)
        status = max(status, sub.dispatch(args, ctx.io))
    return status


COMMANDS = {name: collective_test for name in _TESTS} | {"mpirun": mpirun, "mpiexec": mpirun}
