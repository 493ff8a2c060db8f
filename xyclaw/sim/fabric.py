"""The network of a simulated node: RDMA NICs, netdevs, their counters and the tools that show them.

InfiniBand fabrics show HCAs with the InfiniBand link layer and IPoIB
netdevs (ib0...); RoCE fabrics show the same HCAs with the Ethernet link
layer, Ethernet netdevs and RoCE v1/v2 GIDs; plain Ethernet (eth-25) has
no RDMA device at all. Counters grow with the traffic the node's
workloads declare (`set_traffic`).
"""

from __future__ import annotations

import hashlib
import threading
import weakref
from collections.abc import Callable
from dataclasses import dataclass

from xyclaw.sim.specs import MGMT_RATE_GBPS, Fabric
from xyclaw.sim.vfs import NodeFS

IB_MTU = 4096
#: port_xmit_wait counts ticks a port had data but could not send; the sim's tick rate.
XMIT_WAIT_TICKS_S = 1_000_000.0
#: How often a flapping link goes down and retrains (seconds of the node's clock).
FLAP_PERIOD_S = 2.0
_BASE_RATE_BYTES_S = 2400.0  # management chatter on eth0 (ssh, ntp, monitoring)


@dataclass
class NetIf:
    """One netdev as /proc/net/dev and `ip addr` show it."""

    index: int
    name: str
    kind: str  # loopback, ether, infiniband
    ipv4: str
    prefix: int
    mac: str
    mtu: int
    speed_mbps: int
    rx_bytes: float = 0.0
    tx_bytes: float = 0.0
    up: bool = True

    @property
    def packet_size(self) -> int:
        return 1500 if self.kind == "ether" and self.mtu <= 1500 else min(self.mtu, 4096)


@dataclass
class Nic:
    """One RDMA device (mlx5_N) with one port."""

    index: int
    name: str
    netdev: NetIf
    guid: str  # 16 hex digits
    lid: int
    xmit_bytes: float = 0.0
    rcv_bytes: float = 0.0
    up: bool = True
    speed: float = 1.0  # share of its even part of the traffic it carries (a slowed link)
    # issue 34: the error counters a fabric-regression cause is read from
    paused: float = 0.0  # share of the time the switch pauses the port (PFC): port_xmit_wait
    flapping: bool = False  # the link retrains every FLAP_PERIOD_S: link_downed grows
    link_downed: int = 0
    link_error_recovery: int = 0
    xmit_wait: float = 0.0
    flap_clock: float = 0.0

    def guid_colon(self) -> str:
        g = self.guid
        return f"{g[0:4]}:{g[4:8]}:{g[8:12]}:{g[12:16]}"


@dataclass(frozen=True)
class Gid:
    index: int
    gid: str
    ipv4: str
    version: str  # v1 / v2
    sysfs_type: str
    netdev: str


@dataclass
class _Traffic:
    rdma_bytes_s: float
    socket_iface: str | None
    socket_bytes_s: float


def _hex(seed: str, digits: int) -> str:
    return hashlib.sha256(seed.encode()).hexdigest()[:digits]


class Network:
    """NICs and netdevs of one node, with counters integrated from the node clock."""

    def __init__(
        self,
        fabric: Fabric,
        nic_count: int,
        *,
        hostname: str,
        node_index: int,
        clock: Callable[[], float],
    ) -> None:
        self.fabric = fabric
        self._clock = clock
        self._lock = threading.Lock()
        self._last = clock()
        self._traffic: dict[int, _Traffic] = {}
        host_octet = node_index % 250 + 10
        subnet = node_index // 250
        self.ifaces: list[NetIf] = [
            NetIf(
                1,
                "lo",
                "loopback",
                "127.0.0.1",
                8,
                "00:00:00:00:00:00",
                65536,
                0,
                rx_bytes=81234.0,
                tx_bytes=81234.0,
            ),
            NetIf(
                2,
                "eth0",
                "ether",
                f"10.1.{subnet}.{host_octet}",
                16,
                "52:54:00:" + ":".join(_hex(f"{hostname}/eth0", 6)[i : i + 2] for i in (0, 2, 4)),
                1500,
                (fabric.rate_gbps if not fabric.rdma else MGMT_RATE_GBPS) * 1000,
                rx_bytes=3.2e8,
                tx_bytes=1.1e8,
            ),
        ]
        self.nics: list[Nic] = []
        if fabric.rdma:
            for j in range(nic_count):
                if fabric.link_layer == "InfiniBand":
                    netdev = NetIf(
                        3 + j,
                        f"ib{j}",
                        "infiniband",
                        f"172.16.{j}.{node_index + 1}",
                        16,
                        "",
                        2044,
                        fabric.rate_gbps * 1000,
                    )
                else:
                    mac = "b8:3f:d2:" + ":".join(
                        _hex(f"{hostname}/eth{j + 1}", 6)[i : i + 2] for i in (0, 2, 4)
                    )
                    netdev = NetIf(
                        3 + j,
                        f"eth{j + 1}",
                        "ether",
                        f"10.{100 + j}.{subnet}.{host_octet}",
                        16,
                        mac,
                        9000,
                        fabric.rate_gbps * 1000,
                    )
                self.ifaces.append(netdev)
                self.nics.append(
                    Nic(
                        j,
                        f"mlx5_{j}",
                        netdev,
                        "0c42a10300" + _hex(f"{hostname}/mlx5_{j}", 6),
                        lid=(node_index * 16 + j + 2) % 49151
                        if fabric.link_layer == "InfiniBand"
                        else 0,
                    )
                )
        for netdev in self.ifaces:
            if netdev.kind == "infiniband":
                nic = self.nics[netdev.index - 3]
                netdev.mac = "00:00:10:29:fe:80:00:00:00:00:00:00:" + ":".join(
                    nic.guid[i : i + 2] for i in range(0, 16, 2)
                )

    # -- traffic and counters ------------------------------------------------------------------

    def advance(self) -> None:
        with self._lock:
            now = self._clock()
            dt = now - self._last
            if dt <= 0:
                return
            self._last = now
            self._integrate(dt)

    def _integrate(self, dt: float) -> None:
        for nic in self.nics:  # issue 34: a paused port waits; a flapping one goes down
            nic.xmit_wait += nic.paused * dt * XMIT_WAIT_TICKS_S
            if nic.flapping:
                nic.flap_clock += dt
                while nic.flap_clock >= FLAP_PERIOD_S:
                    nic.flap_clock -= FLAP_PERIOD_S
                    nic.link_downed += 1
                    nic.link_error_recovery += 1
        rdma = sum(t.rdma_bytes_s for t in self._traffic.values())
        active = [n for n in self.nics if n.up]
        for nic in active:
            share = rdma / len(active) * dt * nic.speed
            nic.xmit_bytes += share
            nic.rcv_bytes += share
        by_iface: dict[str, float] = {"eth0": _BASE_RATE_BYTES_S}
        for t in self._traffic.values():
            if t.socket_iface:
                by_iface[t.socket_iface] = by_iface.get(t.socket_iface, 0.0) + t.socket_bytes_s
        for netdev in self.ifaces:
            rate = by_iface.get(netdev.name, 0.0) * dt
            netdev.rx_bytes += rate
            netdev.tx_bytes += rate * (0.35 if netdev.name == "eth0" and rate < 1e5 else 1.0)
            if netdev.kind == "infiniband":
                # IPoIB rides on the HCA port: its bytes show in the port counters too.
                nic = self.nics[netdev.index - 3]
                nic.xmit_bytes += rate
                nic.rcv_bytes += rate

    def rail_factor(self) -> float:
        """The share of the tuned bus bandwidth a collective gets through this node's RDMA
        ports (issue 34): NCCL splits it evenly over the rails, so the slowest port sets the
        pace and a port that went down takes its share away."""
        if not self.nics:
            return 1.0
        up = [n for n in self.nics if n.up]
        if not up:
            return 0.05
        return max(0.05, min(n.speed for n in up) * len(up) / len(self.nics))

    def carries_rdma(self) -> bool:
        """A workload sends over the RDMA ports now (a multi-node job runs here)."""
        with self._lock:
            return any(t.rdma_bytes_s > 0 for t in self._traffic.values())

    def set_traffic(
        self,
        owner: int,
        *,
        rdma_bytes_s: float = 0.0,
        socket_iface: str | None = None,
        socket_bytes_s: float = 0.0,
    ) -> None:
        """Declare what a workload sends per second (both directions), from now on."""
        self.advance()
        with self._lock:
            self._traffic[owner] = _Traffic(rdma_bytes_s, socket_iface, socket_bytes_s)

    def clear_traffic(self, owner: int) -> None:
        self.advance()
        with self._lock:
            self._traffic.pop(owner, None)

    def reset(self) -> None:
        with self._lock:
            self._traffic.clear()
            for nic in self.nics:
                nic.up = True
                nic.xmit_bytes = nic.rcv_bytes = 0.0

    # -- lookups -------------------------------------------------------------------------------

    def iface(self, name: str) -> NetIf | None:
        return next((i for i in self.ifaces if i.name == name), None)

    def nic(self, name: str) -> Nic | None:
        return next((n for n in self.nics if n.name == name), None)

    def gids(self, nic: Nic) -> list[Gid]:
        if self.fabric.link_layer == "InfiniBand":
            gid = "fe80:0000:0000:0000:" + nic.guid_colon()
            return [Gid(0, gid, "", "v1", "IB/RoCE v1", "")]
        mac = nic.netdev.mac.split(":")
        eui = [mac[0], mac[1], mac[2], "ff", "fe", mac[3], mac[4], mac[5]]
        eui[0] = f"{int(eui[0], 16) ^ 0x02:02x}"
        link_local = "fe80:0000:0000:0000:" + ":".join(eui[i] + eui[i + 1] for i in range(0, 8, 2))
        octets = [int(x) for x in nic.netdev.ipv4.split(".")]
        mapped = "0000:0000:0000:0000:0000:ffff:" + (
            f"{octets[0]:02x}{octets[1]:02x}:{octets[2]:02x}{octets[3]:02x}"
        )
        dev = nic.netdev.name
        return [
            Gid(0, link_local, "", "v1", "IB/RoCE v1", dev),
            Gid(1, link_local, "", "v2", "RoCE v2", dev),
            Gid(2, mapped, nic.netdev.ipv4, "v1", "IB/RoCE v1", dev),
            Gid(3, mapped, nic.netdev.ipv4, "v2", "RoCE v2", dev),
        ]

    # -- tool output ---------------------------------------------------------------------------

    def ibstat(self, names: list[str] | None = None) -> str:
        lines: list[str] = []
        fab = self.fabric
        ib = fab.link_layer == "InfiniBand"
        for nic in self.nics:
            if names and nic.name not in names:
                continue
            lines += [
                f"CA '{nic.name}'",
                f"\tCA type: {fab.ca_type}",
                "\tNumber of ports: 1",
                f"\tFirmware version: {fab.fw_ver}",
                "\tHardware version: 0",
                f"\tNode GUID: 0x{nic.guid}",
                f"\tSystem image GUID: 0x{nic.guid}",
                "\tPort 1:",
                f"\t\tState: {'Active' if nic.up else 'Down'}",
                f"\t\tPhysical state: {'LinkUp' if nic.up else 'Disabled'}",
                f"\t\tRate: {fab.rate_gbps if nic.up else 10}",
                f"\t\tBase lid: {nic.lid if ib else 0}",
                "\t\tLMC: 0",
                f"\t\tSM lid: {1 if ib else 0}",
                f"\t\tCapability mask: {'0xa651e848' if ib else '0x00010000'}",
                f"\t\tPort GUID: 0x{nic.guid if ib else self._roce_port_guid(nic)}",
                f"\t\tLink layer: {fab.link_layer}",
            ]
        return "\n".join(lines) + ("\n" if lines else "")

    def _roce_port_guid(self, nic: Nic) -> str:
        return self.gids(nic)[0].gid.replace(":", "")[16:]

    def ibv_devinfo(self, name: str | None = None, *, verbose: bool = False) -> str:
        fab = self.fabric
        ib = fab.link_layer == "InfiniBand"
        out: list[str] = []
        for nic in self.nics:
            if name and nic.name != name:
                continue
            mtu = "4096 (5)"
            out += [
                f"hca_id:\t{nic.name}",
                "\ttransport:\t\t\tInfiniBand (0)",
                f"\tfw_ver:\t\t\t\t{fab.fw_ver}",
                f"\tnode_guid:\t\t\t{nic.guid_colon()}",
                f"\tsys_image_guid:\t\t\t{nic.guid_colon()}",
                "\tvendor_id:\t\t\t0x02c9",
                f"\tvendor_part_id:\t\t\t{fab.vendor_part_id}",
                "\thw_ver:\t\t\t\t0x0",
                f"\tboard_id:\t\t\t{fab.board_id}",
                "\tphys_port_cnt:\t\t\t1",
                "\t\tport:\t1",
                f"\t\t\tstate:\t\t\t{'PORT_ACTIVE (4)' if nic.up else 'PORT_DOWN (1)'}",
                f"\t\t\tmax_mtu:\t\t{mtu}",
                f"\t\t\tactive_mtu:\t\t{mtu if ib or nic.netdev.mtu >= 4200 else '1024 (3)'}",
                f"\t\t\tsm_lid:\t\t\t{1 if ib else 0}",
                f"\t\t\tport_lid:\t\t{nic.lid if ib else 0}",
                "\t\t\tport_lmc:\t\t0x00",
                f"\t\t\tlink_layer:\t\t{fab.link_layer}",
            ]
            if verbose:
                for gid in self.gids(nic):
                    suffix = f", {gid.sysfs_type}" if not ib else ""
                    out.append(f"\t\t\tGID[{gid.index:3d}]:\t\t{gid.gid}{suffix}")
            out.append("")
        return "\n".join(out) + ("\n" if out else "")

    def show_gids(self, device: str | None = None) -> str:
        lines = [
            "DEV\tPORT\tINDEX\tGID\t\t\t\t\tIPv4  \t\tVER\tDEV",
            "---\t----\t-----\t---\t\t\t\t\t------------  \t---\t---",
        ]
        count = 0
        for nic in self.nics:
            if device and nic.name != device:
                continue
            for gid in self.gids(nic):
                lines.append(
                    f"{nic.name}\t1\t{gid.index}\t{gid.gid}\t{gid.ipv4:<16}\t{gid.version}\t"
                    f"{gid.netdev}"
                )
                count += 1
        lines.append(f"n_gids_found={count}")
        return "\n".join(lines) + "\n"

    def ibdev2netdev(self) -> str:
        return "".join(
            f"{n.name} port 1 ==> {n.netdev.name} ({'Up' if n.up else 'Down'})\n" for n in self.nics
        )

    def proc_net_dev(self) -> str:
        self.advance()
        lines = [
            "Inter-|   Receive                                                |  Transmit",
            " face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets"
            " errs drop fifo colls carrier compressed",
        ]
        with self._lock:
            for i in self.ifaces:
                rb, tb = int(i.rx_bytes), int(i.tx_bytes)
                rp, tp = rb // i.packet_size + 1, tb // i.packet_size + 1
                lines.append(
                    f"{i.name:>6}:{rb:8d} {rp:7d} {0:4d} {0:4d} {0:4d} {0:5d} {0:10d} {0:9d} "
                    f"{tb:8d} {tp:7d} {0:4d} {0:4d} {0:4d} {0:5d} {0:7d} {0:10d}"
                )
        return "\n".join(lines) + "\n"

    def ip_addr(
        self,
        *,
        brief: bool = False,
        oneline: bool = False,
        dev: str | None = None,
        link_only: bool = False,
    ) -> str:
        out: list[str] = []
        for i in self.ifaces:
            if dev and i.name != dev:
                continue
            state = "UNKNOWN" if i.kind == "loopback" else "UP" if i.up else "DOWN"
            if brief:
                addr = "" if link_only else f"{i.ipv4}/{i.prefix}"
                out.append(f"{i.name:<16} {state:<14} {addr}".rstrip())
                continue
            brd = self._broadcast(i)
            if oneline:
                if not link_only:
                    out.append(
                        f"{i.index}: {i.name}    inet {i.ipv4}/{i.prefix}"
                        + (f" brd {brd}" if brd else "")
                        + f" scope {'host' if i.kind == 'loopback' else 'global'} {i.name}"
                        + "\\       valid_lft forever preferred_lft forever"
                    )
                continue
            flags = (
                "LOOPBACK,UP,LOWER_UP"
                if i.kind == "loopback"
                else "BROADCAST,MULTICAST,UP,LOWER_UP"
            )
            qdisc = "noqueue" if i.kind == "loopback" else "mq"
            out.append(
                f"{i.index}: {i.name}: <{flags}> mtu {i.mtu} qdisc {qdisc} state {state} "
                f"group default qlen {256 if i.kind == 'infiniband' else 1000}"
            )
            if i.kind == "loopback":
                out.append("    link/loopback 00:00:00:00:00:00 brd 00:00:00:00:00:00")
            elif i.kind == "infiniband":
                out.append(
                    f"    link/infiniband {i.mac} brd 00:ff:ff:ff:ff:12:40:1b:ff:ff:00:00:00:00:"
                    "00:00:ff:ff:ff:ff"
                )
            else:
                out.append(f"    link/ether {i.mac} brd ff:ff:ff:ff:ff:ff")
            if not link_only:
                scope = "host lo" if i.kind == "loopback" else f"global {i.name}"
                out.append(
                    f"    inet {i.ipv4}/{i.prefix}"
                    + (f" brd {brd}" if brd else "")
                    + f" scope {scope}"
                )
                out.append("       valid_lft forever preferred_lft forever")
        return "\n".join(out) + ("\n" if out else "")

    @staticmethod
    def _broadcast(i: NetIf) -> str:
        if i.kind == "loopback":
            return ""
        octets = i.ipv4.split(".")
        if i.prefix == 16:
            return f"{octets[0]}.{octets[1]}.255.255"
        return f"{octets[0]}.{octets[1]}.{octets[2]}.255"

    # -- sysfs ---------------------------------------------------------------------------------

    def register_files(self, fs: NodeFS) -> None:
        """Expose /proc/net/dev, /sys/class/net and /sys/class/infiniband to the node's files."""
        fs.add_virtual("/proc/net/dev", self.proc_net_dev)
        for netdev in self.ifaces:
            base = f"/sys/class/net/{netdev.name}"
            fs.add_virtual_text(f"{base}/mtu", f"{netdev.mtu}\n")
            fs.add_virtual_text(f"{base}/address", f"{netdev.mac}\n")
            fs.add_virtual(f"{base}/operstate", self._reader_operstate(netdev))
            if netdev.kind != "loopback":
                fs.add_virtual_text(f"{base}/speed", f"{netdev.speed_mbps}\n")
            for stat in ("rx_bytes", "tx_bytes", "rx_packets", "tx_packets"):
                fs.add_virtual(f"{base}/statistics/{stat}", self._reader_netstat(netdev, stat))
        fab = self.fabric
        for nic in self.nics:
            base = f"/sys/class/infiniband/{nic.name}"
            fs.add_virtual_text(f"{base}/node_guid", f"{nic.guid_colon()}\n")
            fs.add_virtual_text(f"{base}/sys_image_guid", f"{nic.guid_colon()}\n")
            fs.add_virtual_text(f"{base}/fw_ver", f"{fab.fw_ver}\n")
            fs.add_virtual_text(f"{base}/hca_type", f"{fab.ca_type}\n")
            fs.add_virtual_text(f"{base}/board_id", f"{fab.board_id}\n")
            fs.add_virtual_text(f"{base}/node_type", "1: CA\n")
            port = f"{base}/ports/1"
            fs.add_virtual(f"{port}/state", self._reader_port(nic, "state"))
            fs.add_virtual(f"{port}/phys_state", self._reader_port(nic, "phys_state"))
            fs.add_virtual_text(f"{port}/rate", f"{fab.sysfs_rate}\n")
            fs.add_virtual_text(f"{port}/link_layer", f"{fab.link_layer}\n")
            fs.add_virtual_text(f"{port}/lid", f"0x{nic.lid:x}\n")
            fs.add_virtual_text(f"{port}/sm_lid", "0x1\n" if nic.lid else "0x0\n")
            for gid in self.gids(nic):
                fs.add_virtual_text(f"{port}/gids/{gid.index}", f"{gid.gid}\n")
                fs.add_virtual_text(f"{port}/gid_attrs/types/{gid.index}", f"{gid.sysfs_type}\n")
                fs.add_virtual_text(f"{port}/gid_attrs/ndevs/{gid.index}", f"{gid.netdev}\n")
            for counter in (
                "port_xmit_data",
                "port_rcv_data",
                "port_xmit_packets",
                "port_rcv_packets",
                "port_xmit_discards",
                "port_rcv_errors",
                "symbol_error",
                "link_downed",
                "link_error_recovery",
                "port_xmit_wait",
            ):
                fs.add_virtual(f"{port}/counters/{counter}", self._reader_counter(nic, counter))

    def _reader_operstate(self, netdev: NetIf) -> Callable[[], str]:
        def read() -> str:
            if netdev.kind == "loopback":
                return "unknown\n"
            return "up\n" if netdev.up else "down\n"

        return read

    def _reader_netstat(self, netdev: NetIf, stat: str) -> Callable[[], str]:
        def read() -> str:
            self.advance()
            value = {
                "rx_bytes": netdev.rx_bytes,
                "tx_bytes": netdev.tx_bytes,
                "rx_packets": netdev.rx_bytes // netdev.packet_size + 1,
                "tx_packets": netdev.tx_bytes // netdev.packet_size + 1,
            }[stat]
            return f"{int(value)}\n"

        return read

    def _reader_port(self, nic: Nic, what: str) -> Callable[[], str]:
        def read() -> str:
            if what == "state":
                return "4: ACTIVE\n" if nic.up else "1: DOWN\n"
            return "5: LinkUp\n" if nic.up else "3: Disabled\n"

        return read

    def _reader_counter(self, nic: Nic, counter: str) -> Callable[[], str]:
        def read() -> str:
            self.advance()
            value = 0
            if counter == "port_xmit_data":
                value = int(nic.xmit_bytes) // 4  # the IB counters count 4-byte words
            elif counter == "port_rcv_data":
                value = int(nic.rcv_bytes) // 4
            elif counter == "port_xmit_packets":
                value = int(nic.xmit_bytes) // IB_MTU
            elif counter == "port_rcv_packets":
                value = int(nic.rcv_bytes) // IB_MTU
            elif counter == "link_downed":
                value = nic.link_downed
            elif counter == "link_error_recovery":
                value = nic.link_error_recovery
            elif counter == "port_xmit_wait":
                value = int(nic.xmit_wait)
            return f"{value}\n"

        return read


#: The networks of every simulated node by (cluster, hostname), so a multi-node job's
#: collective can go at its slowest node's pace as a real one does (issue 34).
_PEERS: weakref.WeakValueDictionary[tuple[str, str], Network] = weakref.WeakValueDictionary()


def register_peer(cluster: str, hostname: str, net: Network) -> None:
    _PEERS[(cluster, hostname)] = net


def job_rail_factor(cluster: str | None, own: Network) -> float:
    """The rail factor a multi-node job's collectives get: the lowest of this node's and of
    the cluster's other nodes that carry RDMA traffic now (a ring waits for its slowest
    link). Without a cluster, this node's."""
    factor = own.rail_factor()
    if cluster is None:
        return factor
    for (name, _), net in list(_PEERS.items()):
        if name == cluster and net is not own and net.carries_rdma():
            factor = min(factor, net.rail_factor())
    return factor
