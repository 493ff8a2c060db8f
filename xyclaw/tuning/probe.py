"""The fabric probe: one shell script per node, its output read back into a NodeFabric.

One SSH round trip per node collects everything (GPU list and topology, HCAs
with their ports and GIDs, IP interfaces, the NCCL variables the image sets,
GPUDirect's kernel module, the test tools). Each part is fenced by markers
with its exit status, so a missing tool spoils only its own part.
"""

from __future__ import annotations

import ipaddress
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import replace

from xyclaw.catalog.fabrics import parse_fabric
from xyclaw.errors import ParseError
from xyclaw.parsers.ibparse import (
    GidEntry,
    Hca,
    attach_gids,
    parse_gid_sysfs,
    parse_ibstat,
    parse_ibv_devinfo,
    parse_show_gids,
)
from xyclaw.parsers.nvsmi import parse_list, parse_topology
from xyclaw.tuning.fabric import (
    ETHERNET,
    INFINIBAND,
    PCI_DISTANCES,
    FabricSummary,
    GpuNic,
    IfaceInfo,
    NodeFabric,
    PortInfo,
)
from xyclaw.wording import Figure, Said, joined, said

_BEGIN = "@@xyclaw-begin "
_END = "@@xyclaw-end "

_PARTS: tuple[tuple[str, str], ...] = (
    ("hostname", "hostname"),
    ("gpus", "nvidia-smi -L"),
    ("topo", "nvidia-smi topo -m"),
    ("ibstat", "ibstat"),
    ("ibv_devinfo", "ibv_devinfo -v"),
    (
        "gids",
        "if command -v show_gids >/dev/null 2>&1; then show_gids; else grep -H . "
        "/sys/class/infiniband/*/ports/*/gids/* /sys/class/infiniband/*/ports/*/gid_attrs/types/* "
        "/sys/class/infiniband/*/ports/*/gid_attrs/ndevs/* 2>/dev/null; fi",
    ),
    ("ibdev2netdev", "ibdev2netdev"),
    ("ip_addr", "ip -o -4 addr show"),
    ("ip_route", "ip route show default"),
    (
        "netdev",
        "grep -H . /sys/class/net/*/operstate /sys/class/net/*/speed /sys/class/net/*/mtu "
        "2>/dev/null",
    ),
    ("nccl_env", "env | grep '^NCCL_'"),
    ("modules", "cat /proc/modules"),
    ("all_reduce_perf", "command -v all_reduce_perf"),
    ("mpirun", "command -v mpirun"),
)


def probe_script() -> str:
    """The script run on every node (POSIX shell, read-only, a few seconds at most)."""
    lines = []
    for name, command in _PARTS:
        lines.append(f'echo "{_BEGIN}{name}"; {command} 2>&1; echo "{_END}{name} $?"')
    return "\n".join(lines) + "\n"


def split_parts(text: str) -> dict[str, tuple[str, int]]:
    """Marker-fenced parts of the probe's output: name -> (text, exit status)."""
    parts: dict[str, tuple[str, int]] = {}
    name: str | None = None
    body: list[str] = []
    for line in text.splitlines():
        if line.startswith(_BEGIN):
            name, body = line[len(_BEGIN) :].strip(), []
            continue
        if line.startswith(_END) and name is not None:
            fields = line[len(_END) :].split()
            rc = int(fields[1]) if len(fields) > 1 and fields[1].lstrip("-").isdigit() else -1
            parts[name] = ("\n".join(body) + ("\n" if body else ""), rc)
            name = None
            continue
        if name is not None:
            body.append(line)
    return parts


def _missing(text: str, rc: int) -> bool:
    return rc == 127 or "command not found" in text or "No such file" in text


_IP_ADDR_RE = re.compile(r"^\d+:\s+(\S+?)(?:@\S+)?\s+inet\s+(\d+\.\d+\.\d+\.\d+)/(\d+)")
_ROUTE_RE = re.compile(r"^default\s.*?\bdev\s+(\S+)")
_NETDEV_RE = re.compile(r"^/sys/class/net/([^/]+)/(operstate|speed|mtu):(.*)$")
_IBDEV2NETDEV_RE = re.compile(r"^(\S+)\s+port\s+(\d+)\s+==>\s+(\S+)")
_ENV_RE = re.compile(r"^(NCCL_[A-Z0-9_]+)=(.*)$")


def _ifaces(addr: str, route: str, netdev: str) -> tuple[IfaceInfo, ...]:
    ipv4: dict[str, tuple[str, int]] = {}
    for line in addr.splitlines():
        m = _IP_ADDR_RE.match(line.strip())
        if m and m.group(1) not in ipv4:
            ipv4[m.group(1)] = (m.group(2), int(m.group(3)))
    default = None
    for line in route.splitlines():
        m = _ROUTE_RE.match(line.strip())
        if m:
            default = m.group(1)
            break
    attrs: dict[str, dict[str, str]] = {}
    for line in netdev.splitlines():
        m = _NETDEV_RE.match(line.strip())
        if m:
            attrs.setdefault(m.group(1), {})[m.group(2)] = m.group(3).strip()
    names = list(dict.fromkeys([*ipv4, *attrs]))
    out = []
    for name in names:
        a = attrs.get(name, {})
        addr_prefix = ipv4.get(name)
        speed = _int(a.get("speed"))
        out.append(
            IfaceInfo(
                name=name,
                ipv4=addr_prefix[0] if addr_prefix else None,
                prefix=addr_prefix[1] if addr_prefix else None,
                state=a.get("operstate") or ("up" if addr_prefix else None),
                speed_mbps=speed if speed is not None and speed > 0 else None,
                mtu=_int(a.get("mtu")),
                default_route=name == default,
            )
        )
    return tuple(out)


def _int(value: str | None) -> int | None:
    if value is None:
        return None
    try:
        return int(value.strip())
    except ValueError:
        return None


def _hcas(parts: dict[str, tuple[str, int]], problems: list[Said]) -> list[Hca]:
    """HCAs from ibstat (state, rate), completed by ibv_devinfo (link layer, GIDs)."""
    stat_text, stat_rc = parts.get("ibstat", ("", 127))
    info_text, info_rc = parts.get("ibv_devinfo", ("", 127))
    from_stat: list[Hca] = []
    from_info: list[Hca] = []
    if stat_rc == 0 and stat_text.strip():
        try:
            from_stat = parse_ibstat(stat_text)
        except ParseError as exc:
            problems.append(said("op.probe.tool_error", tool="ibstat", error=_error(exc)))
    if info_rc == 0 and info_text.strip():
        try:
            from_info = parse_ibv_devinfo(info_text)
        except ParseError as exc:
            problems.append(said("op.probe.tool_error", tool="ibv_devinfo", error=_error(exc)))
    if not from_stat:
        return from_info
    info_by_name = {h.name: h for h in from_info}
    merged = []
    for hca in from_stat:
        other = info_by_name.get(hca.name)
        if other is None:
            merged.append(hca)
            continue
        ports = []
        for port in hca.ports:
            twin = other.port(port.port)
            if twin is None:
                ports.append(port)
                continue
            ports.append(
                replace(
                    port,
                    state=port.state or twin.state,
                    phys_state=port.phys_state or twin.phys_state,
                    rate_gbps=port.rate_gbps or twin.rate_gbps,
                    link_layer=port.link_layer or twin.link_layer,
                    active_mtu=twin.active_mtu,
                    width=twin.width,
                    speed_gbps=twin.speed_gbps,
                    gids=twin.gids,
                )
            )
        merged.append(replace(hca, ports=tuple(ports)))
    return merged


def _gids(text: str, rc: int, problems: list[Said]) -> list[GidEntry]:
    if not text.strip() or _missing(text, rc):
        return []
    try:
        if text.lstrip().startswith("/sys/"):
            return parse_gid_sysfs(text)
        return parse_show_gids(text)
    except ParseError as exc:
        problems.append(said("op.probe.gid_table", error=_error(exc)))
        return []


def parse_node_probe(name: str, text: str) -> NodeFabric:
    """A node's probe output as a NodeFabric; unreadable parts become ``problems``."""
    parts = split_parts(text)
    if not parts:
        unreadable = said("op.probe.unreadable")
        return NodeFabric(name=name, error=unreadable.english, error_said=unreadable)
    problems: list[Said] = []
    hostname_text, rc = parts.get("hostname", ("", 1))
    hostname = hostname_text.strip().splitlines()[0] if rc == 0 and hostname_text.strip() else None

    gpu_name = None
    gpu_count = 0
    gpus_text, rc = parts.get("gpus", ("", 127))
    if rc == 0:
        try:
            listed = parse_list(gpus_text)
            gpu_count = len(listed)
            gpu_name = listed[0].name if listed else None
        except ParseError as exc:
            problems.append(said("op.probe.tool_error", tool="nvidia-smi -L", error=_error(exc)))
    else:
        problems.append(said("op.probe.gpus_failed", line=_first_line(gpus_text)))

    nvlinks = 0
    gpu_nics: list[GpuNic] = []
    topo_text, rc = parts.get("topo", ("", 127))
    if rc == 0 and topo_text.strip():
        try:
            topo = parse_topology(topo_text)
            gpus = topo.gpus
            if len(gpus) >= 2:
                nvlinks = topo.nvlinks(gpus[0], gpus[1])
            for index, gpu in enumerate(gpus):
                nearest = topo.nearest_nics(gpu)
                if nearest:
                    gpu_nics.append(
                        GpuNic(index, topo.nic_name(nearest[0]), topo.link(gpu, nearest[0]))
                    )
        except (ParseError, KeyError) as exc:
            error = _with_hint(exc) if isinstance(exc, ParseError) else str(exc)
            problems.append(said("op.probe.tool_error", tool="nvidia-smi topo -m", error=error))

    hcas = _hcas(parts, problems)
    gid_text, gid_rc = parts.get("gids", ("", 127))
    gid_entries = _gids(gid_text, gid_rc, problems)
    if gid_entries:
        hcas = attach_gids(hcas, gid_entries)
    netdevs: dict[tuple[str, int], str] = {}
    for line in parts.get("ibdev2netdev", ("", 127))[0].splitlines():
        m = _IBDEV2NETDEV_RE.match(line.strip())
        if m:
            netdevs[(m.group(1), int(m.group(2)))] = m.group(3)
    ports = []
    for hca in hcas:
        for port in hca.ports:
            netdev = netdevs.get((hca.name, port.port)) or next(
                (g.netdev for g in port.gids if g.netdev), None
            )
            ports.append(
                PortInfo(
                    hca=hca.name,
                    port=port.port,
                    state=port.state,
                    rate_gbps=port.rate_gbps,
                    link_layer=port.link_layer,
                    roce_v2_gid_index=port.roce_v2_gid_index() if port.is_roce else None,
                    gid_count=len(port.gids),
                    netdev=netdev,
                )
            )

    ifaces = _ifaces(
        parts.get("ip_addr", ("", 1))[0],
        parts.get("ip_route", ("", 1))[0],
        parts.get("netdev", ("", 1))[0],
    )
    env: dict[str, str] = {}
    for line in parts.get("nccl_env", ("", 1))[0].splitlines():
        m = _ENV_RE.match(line.strip())
        if m:
            env[m.group(1)] = m.group(2)
    modules_text, rc = parts.get("modules", ("", 1))
    peermem: bool | None = None
    if rc == 0 and modules_text.strip():
        loaded = {line.split()[0] for line in modules_text.splitlines() if line.strip()}
        peermem = bool(loaded & {"nvidia_peermem", "nv_peer_mem"})
    tools: dict[str, str | None] = {}
    for tool in ("all_reduce_perf", "mpirun"):
        tool_text, rc = parts.get(tool, ("", 1))
        tools[tool] = tool_text.strip().splitlines()[0] if rc == 0 and tool_text.strip() else None
    return NodeFabric(
        name=name,
        hostname=hostname,
        gpu_name=gpu_name,
        gpu_count=gpu_count,
        nvlinks=nvlinks,
        gpu_nics=tuple(gpu_nics),
        ports=tuple(ports),
        ifaces=ifaces,
        nccl_env=env,
        peermem=peermem,
        tools=tools,
        problems=tuple(p.english for p in problems),
        problems_said=tuple(problems),
    )


def missing_tools(
    head: NodeFabric, *, multi_node: bool, binary: str = "all_reduce_perf"
) -> tuple[str, str] | None:
    """(message, hint) when the node that starts the test lacks nccl-tests or MPI."""
    found = missing_tools_said(head, multi_node=multi_node, binary=binary)
    return None if found is None else (found[0].english, found[1].english)


def missing_tools_said(
    head: NodeFabric, *, multi_node: bool, binary: str = "all_reduce_perf"
) -> tuple[Said, Said] | None:
    """:func:`missing_tools`, worded."""
    if binary == "all_reduce_perf" and not head.tools.get("all_reduce_perf"):
        return (
            said("op.probe.no_tool", tool="all_reduce_perf", nodes=head.name),
            said("op.probe.no_tool.fix"),
        )
    if multi_node and not head.tools.get("mpirun"):
        return (said("op.probe.no_mpirun", node=head.name), said("op.probe.no_mpirun.fix"))
    return None


def _first_line(text: str) -> Figure:
    """The tool's own first line (data), or XyClaw's words when it printed none."""
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[0][:160] if lines else said("op.probe.no_output")


def _error(exc: ParseError) -> Figure:
    return exc.said or exc.message


def _with_hint(exc: ParseError) -> Figure:
    """The error as ``str(exc)`` has it: its message, then its hint on a line of its own."""
    if exc.hint is None:
        return _error(exc)
    return said("op.probe.with_hint", message=_error(exc), hint=exc.hint_said or exc.hint)


# --- the cluster-wide summary ---------------------------------------------------------------

_VIRTUAL_IFACES = (
    "lo",
    "docker",
    "veth",
    "br-",
    "virbr",
    "cni",
    "flannel",
    "cali",
    "tun",
    "tap",
    "lxc",
    "kube",
    "vxlan",
    "cilium",
    "weave",
)


def _node_layer(node: NodeFabric) -> str | None:
    """The link layer most of a node's RDMA ports use (active ones first)."""
    ports = node.active_ports or node.rdma_ports
    if not ports:
        return None
    counts = Counter(p.link_layer for p in ports)
    return str(counts.most_common(1)[0][0])


def _network(iface: IfaceInfo) -> ipaddress.IPv4Network | None:
    if iface.ipv4 is None or iface.prefix is None:
        return None
    try:
        return ipaddress.IPv4Network(f"{iface.ipv4}/{iface.prefix}", strict=False)
    except ValueError:
        return None


def _socket_ifaces(
    nodes: Sequence[NodeFabric], transport: str
) -> tuple[tuple[str, ...], int | None]:
    """The interface every node has, up, with addresses in one subnet; the default route's
    first, or the fastest when sockets carry the data."""
    candidates: list[str] | None = None
    for node in nodes:
        names = [
            i.name
            for i in node.ifaces
            if i.up and i.ipv4 and not i.name.startswith(_VIRTUAL_IFACES)
        ]
        candidates = names if candidates is None else [n for n in candidates if n in names]
    if not candidates:
        return (), None
    shared = []
    for name in candidates:
        nets = {_network(i) for n in nodes if (i := n.iface(name)) is not None}
        if len(nets) == 1 and None not in nets:
            shared.append(name)
    if not shared:
        shared = candidates
    first = nodes[0]

    def speed(name: str) -> int:
        values = [i.speed_mbps or 0 for n in nodes if (i := n.iface(name)) is not None]
        return min(values) if values else 0

    if transport == "socket":
        chosen = max(shared, key=lambda n: (speed(n), -shared.index(n)))
    else:
        default = next((i.name for i in first.ifaces if i.default_route and i.name in shared), None)
        chosen = default or shared[0]
    return (chosen,), (speed(chosen) or None)


def _farthest(distances: Iterable[str]) -> str | None:
    known = [d for d in distances if d in PCI_DISTANCES]
    if not known:
        return None
    return max(known, key=PCI_DISTANCES.index)


def summarize(nodes: Sequence[NodeFabric], fabric: str) -> FabricSummary:
    """What the whole cluster has in common, and what looks wrong."""
    findings: list[Said] = []
    up = [n for n in nodes if n.reachable]
    for n in nodes:
        if not n.reachable:
            findings.append(said("op.probe.not_probed", node=n.name, error=n.error_said or n.error))
        for problem in _problems(n):
            findings.append(said("op.probe.node", node=n.name, problem=problem))
    if not up:
        return FabricSummary(
            "socket", (), 0, 0, None, None, None, (), None, 0, 0, None, None, *_both(findings)
        )
    layers = {_node_layer(n) for n in up}
    if layers == {INFINIBAND}:
        transport = "ib"
    elif layers == {ETHERNET}:
        transport = "roce"
    elif layers == {None}:
        transport = "socket"
    else:
        transport = "mixed"
        layers_of: list[Figure] = [
            said("op.probe.is", name=n.name, value=_node_layer(n) or said("op.probe.none"))
            for n in up
        ]
        findings.append(said("op.probe.mixed", nodes=_listed(layers_of)))
    layer = INFINIBAND if transport == "ib" else ETHERNET if transport == "roce" else None
    if transport == "mixed":
        layer = Counter(_node_layer(n) for n in up).most_common(1)[0][0]

    def ports_of(n: NodeFabric) -> list[PortInfo]:
        return [p for p in n.rdma_ports if p.link_layer == layer]

    hcas: list[str] = []
    if layer is not None:
        active_sets = [{p.hca for p in ports_of(n) if p.active} for n in up]
        common = set.intersection(*active_sets) if active_sets else set()
        hcas = [p.hca for p in ports_of(up[0]) if p.hca in common]
        hcas = list(dict.fromkeys(hcas))
    nic_count = min((len(ports_of(n)) for n in up), default=0)
    active_nic_count = min((len([p for p in ports_of(n) if p.active]) for n in up), default=0)
    rates = [p.rate_gbps for n in up for p in ports_of(n) if p.active and p.rate_gbps]
    nic_rate = min(rates) if rates else None
    for n in up:
        for p in ports_of(n):
            if not p.active:
                state = p.state or said("op.probe.not_active")
                findings.append(
                    said("op.probe.port_state", node=n.name, hca=p.hca, port=p.port, state=state)
                )
    try:
        rented = parse_fabric(fabric)
    except ValueError:
        rented = None
    if rented is not None and rented.rdma:
        expect_layer = INFINIBAND if rented.family == "ib" else ETHERNET
        if transport == "socket":
            findings.append(said("op.probe.no_rdma_device", fabric=rented.name))
        elif layer != expect_layer:
            findings.append(
                said(
                    "op.probe.wrong_layer", fabric=rented.name, layer=layer or said("op.probe.null")
                )
            )
        slow = sorted(
            {
                f"{n.name}:{p.hca}"
                for n in up
                for p in ports_of(n)
                if p.active and p.rate_gbps and p.rate_gbps < rented.gbps
            }
        )
        if slow:
            more = said("op.probe.more", count=len(slow) - 8) if len(slow) > 8 else ""
            findings.append(
                said(
                    "op.probe.slow_ports",
                    gbps=rented.gbps,
                    ports=_listed(list(slow[:8])),
                    more=more,
                )
            )
    gid_index = None
    if transport == "roce" or (transport == "mixed" and layer == ETHERNET):
        indexes = Counter(
            p.roce_v2_gid_index for n in up for p in ports_of(n) if p.active and p.hca in hcas
        )
        usable = Counter({k: v for k, v in indexes.items() if k is not None})
        if usable:
            gid_index = int(usable.most_common(1)[0][0])
            if len(indexes) > 1:
                counts: list[Figure] = [
                    said(
                        "op.probe.gid_ports",
                        index=said("op.probe.null") if k is None else k,
                        count=v,
                    )
                    for k, v in sorted(indexes.items(), key=str)
                ]
                findings.append(
                    said("op.probe.gid_differs", counts=_listed(counts), index=gid_index)
                )
        elif hcas:
            findings.append(said("op.probe.no_roce_gid"))
    gpu_counts = {n.gpu_count for n in up}
    if len(gpu_counts) > 1:
        counted: list[Figure] = [said("op.probe.is", name=n.name, value=n.gpu_count) for n in up]
        findings.append(said("op.probe.gpu_counts", nodes=_listed(counted)))
    in_use = set(hcas)
    gdr = _farthest(g.distance for n in up for g in n.gpu_nics if not in_use or g.nic in in_use)
    peer = {n.peermem for n in up}
    peermem = True if peer == {True} else False if False in peer else None
    if peermem is False and transport in ("ib", "roce"):
        missing = [n.name for n in up if n.peermem is False]
        findings.append(said("op.probe.no_peermem", nodes=_listed(list(missing))))
    socket_ifaces, socket_speed = _socket_ifaces(up, transport)
    if not socket_ifaces:
        findings.append(said("op.probe.no_common_iface"))
    image_env = {k: v for k, v in up[0].nccl_env.items() if all(n.nccl_env.get(k) == v for n in up)}
    if image_env:
        settings: list[Figure] = [
            said("op.probe.is", name=k, value=v) for k, v in sorted(image_env.items())
        ]
        findings.append(said("op.probe.image_env", env=_listed(settings)))
    for tool in ("all_reduce_perf",):
        lacking = [n.name for n in up if not n.tools.get(tool)]
        if lacking:
            findings.append(said("op.probe.no_tool", tool=tool, nodes=_listed(list(lacking))))
    return FabricSummary(
        transport=transport,
        hcas=tuple(hcas),
        nic_count=nic_count,
        active_nic_count=active_nic_count,
        nic_rate_gbps=nic_rate,
        roce_gid_index=gid_index,
        gdr_distance=gdr,
        socket_ifaces=socket_ifaces,
        socket_speed_mbps=socket_speed,
        nvlinks=min(n.nvlinks for n in up),
        gpus_per_node=min(gpu_counts),
        gpu_name=up[0].gpu_name,
        peermem=peermem,
        findings=tuple(f.english for f in findings),
        findings_said=tuple(findings),
    )


def _both(findings: list[Said]) -> tuple[tuple[str, ...], tuple[Said, ...]]:
    return tuple(f.english for f in findings), tuple(findings)


def _problems(node: NodeFabric) -> tuple[Said | str, ...]:
    """A node's problems worded where they are (a stored report from before: English)."""
    if len(node.problems_said) == len(node.problems):
        return node.problems_said
    return node.problems


def _listed(items: list[Figure]) -> Figure:
    """``a, b, c`` (``a、b、c`` in Chinese), as the findings have always listed things."""
    return joined(items)
