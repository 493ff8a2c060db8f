"""Readers for RDMA device tools: ``ibstat``, ``ibv_devinfo [-v]``, ``show_gids``
and the sysfs ``gid_attrs`` files.

They tell the tuner which HCAs exist, whether each port is up, how fast it is,
whether it is InfiniBand or Ethernet (RoCE), and which GID index carries RoCE v2
over IPv4, the one ``NCCL_IB_GID_INDEX`` must name on RoCE fabrics.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

from xyclaw.errors import ParseError
from xyclaw.parsers.guard import parse_guard
from xyclaw.parsers.paste import clean_paste
from xyclaw.wording import Said, said

ZERO_GID = "0000:0000:0000:0000:0000:0000:0000:0000"
# The port number is kept under a key no "name: value" line of the text can set.
_PORT_KEY = "\x00port"


@dataclass(frozen=True, slots=True)
class GidEntry:
    hca: str
    port: int
    index: int
    gid: str
    type: str | None = None  # "IB", "RoCE v1", "RoCE v2"
    ipv4: str | None = None
    netdev: str | None = None

    @property
    def is_roce_v2(self) -> bool:
        return self.type == "RoCE v2"


@dataclass(frozen=True, slots=True)
class IbPort:
    hca: str
    port: int
    state: str | None = None  # ACTIVE, DOWN, INIT, ARMED
    phys_state: str | None = None  # LINK_UP, POLLING, DISABLED, ...
    rate_gbps: float | None = None
    link_layer: str | None = None  # "InfiniBand" or "Ethernet"
    lid: int | None = None
    sm_lid: int | None = None
    port_guid: str | None = None
    active_mtu: int | None = None
    width: str | None = None
    speed_gbps: float | None = None
    gids: tuple[GidEntry, ...] = ()

    @property
    def name(self) -> str:
        return f"{self.hca}:{self.port}"

    @property
    def is_active(self) -> bool:
        return self.state == "ACTIVE"

    @property
    def is_roce(self) -> bool:
        return self.link_layer == "Ethernet"

    def roce_v2_gid_index(self, family: str = "ipv4") -> int | None:
        """The lowest GID index that carries RoCE v2 on an IPv4 (or IPv6) address."""
        for g in sorted(self.gids, key=lambda g: g.index):
            if not g.is_roce_v2:
                continue
            if (family == "ipv4") == _is_ipv4_mapped(g):
                return g.index
        return None


@dataclass(frozen=True, slots=True)
class Hca:
    name: str
    ports: tuple[IbPort, ...]
    ca_type: str | None = None
    firmware: str | None = None
    node_guid: str | None = None
    transport: str | None = None
    vendor_part_id: str | None = None
    board_id: str | None = None
    extra: dict[str, str] = field(default_factory=dict, compare=False)

    def port(self, number: int) -> IbPort | None:
        return next((p for p in self.ports if p.port == number), None)


def _is_ipv4_mapped(g: GidEntry) -> bool:
    if g.ipv4:
        return True
    low = g.gid.lower()
    return low.startswith("0000:0000:0000:0000:0000:ffff:") or low.startswith("::ffff:")


def _norm_state(value: str) -> str:
    """``Active``, ``PORT_ACTIVE (4)`` -> ``ACTIVE``; ``LinkUp``, ``LINK_UP (5)`` -> ``LINK_UP``."""
    v = re.sub(r"\s*\(\d+\)\s*$", "", value.strip())
    v = v.removeprefix("PORT_")
    if "_" not in v and not v.isupper():
        v = re.sub(r"(?<=[a-z])(?=[A-Z])", "_", v)
    v = v.upper().replace(" ", "_")
    return {"INITIALIZING": "INIT", "INITIALIZE": "INIT"}.get(v, v)


def _int_or_none(value: str | None) -> int | None:
    if value is None:
        return None
    m = re.match(r"^\s*(?:0x([0-9a-fA-F]+)|(\d+))", value)
    if not m:
        return None
    return int(m.group(1), 16) if m.group(1) else int(m.group(2))


_WIDTH_LANES = {"1X": 1, "2X": 2, "4X": 4, "8X": 8, "12X": 12}


def _rate_from(width: str | None, speed: float | None) -> float | None:
    lanes = _WIDTH_LANES.get((width or "").upper())
    if lanes is None or speed is None:
        return None
    return lanes * speed


# --- ibstat ----------------------------------------------------------------------

_IBSTAT_CA_RE = re.compile(r"^CA '([^']+)'\s*$")
_IBSTAT_PORT_RE = re.compile(r"^Port (\d+):\s*$")
_KV_RE = re.compile(r"^([^:]+?):\s*(.*)$")


@parse_guard("ibstat", Said("error.parse.hint.pass", {"command": "ibstat"}))
def parse_ibstat(text: str) -> list[Hca]:
    """``ibstat``: every CA with its ports."""
    hcas: list[Hca] = []
    ca: dict[str, str] | None = None
    name = ""
    ports: list[dict[str, str]] = []
    port: dict[str, str] | None = None

    def flush() -> None:
        if ca is not None:
            hcas.append(_ibstat_hca(name, ca, ports))

    cleaned = clean_paste(text)
    seen_ca = any(_IBSTAT_CA_RE.match(raw.strip()) for raw in cleaned.splitlines())
    for raw in cleaned.splitlines():
        line = raw.strip()
        if not line:
            continue
        m = _IBSTAT_CA_RE.match(line)
        if m:
            flush()
            name, ca, ports, port = m.group(1), {}, [], None
            continue
        if ca is None:
            # what a paste holds before the first CA (a shell trace, "...", another command's
            # lines) is skipped; an error of ibstat itself or of the shell is not
            if seen_ca and not line.startswith("ibstat:") and "not found" not in line:
                continue
            raise ParseError(
                said("error.parse.ibstat_before_ca", line=repr(line[:80])),
                hint=said("error.parse.hint.pass", command="ibstat"),
            )
        m = _IBSTAT_PORT_RE.match(line)
        if m:
            port = {_PORT_KEY: m.group(1)}
            ports.append(port)
            continue
        m = _KV_RE.match(line)
        if not m:
            raise ParseError(
                said("error.parse.ibstat_line", line=repr(line[:80]), name=name),
                hint=said("error.parse.hint.pass_unchanged", command="ibstat"),
            )
        (port if port is not None else ca)[m.group(1).strip()] = m.group(2).strip()
    flush()
    if not hcas:
        raise ParseError(
            said("error.parse.ibstat_no_ca"),
            hint=said("error.parse.hint.pass_short", command="ibstat"),
        )
    return hcas


def _ibstat_hca(name: str, ca: dict[str, str], ports: list[dict[str, str]]) -> Hca:
    out = []
    for p in ports:
        rate = p.get("Rate")
        out.append(
            IbPort(
                hca=name,
                port=int(p[_PORT_KEY]),
                state=_norm_state(p["State"]) if "State" in p else None,
                phys_state=_norm_state(p["Physical state"]) if "Physical state" in p else None,
                rate_gbps=float(rate) if rate and _is_float(rate) else None,
                link_layer=p.get("Link layer"),
                lid=_int_or_none(p.get("Base lid")),
                sm_lid=_int_or_none(p.get("SM lid")),
                port_guid=p.get("Port GUID"),
            )
        )
    return Hca(
        name=name,
        ports=tuple(out),
        ca_type=ca.get("CA type"),
        firmware=ca.get("Firmware version"),
        node_guid=ca.get("Node GUID"),
        extra=dict(ca),
    )


def _is_float(v: str) -> bool:
    try:
        float(v)
    except ValueError:
        return False
    return True


# --- ibv_devinfo -------------------------------------------------------------------

_HCA_ID_RE = re.compile(r"^hca_id:\s*(\S+)\s*$")
_DEV_PORT_RE = re.compile(r"^port:\s*(\d+)\s*$")
_GID_LINE_RE = re.compile(r"^GID\[\s*(\d+)\]:\s*(\S+?)(?:,\s*(.*))?\s*$")
_SPEED_RE = re.compile(r"^([\d.]+)\s*Gbps")


@parse_guard("ibv_devinfo", Said("error.parse.hint.ibv_devinfo_v"))
def parse_ibv_devinfo(text: str) -> list[Hca]:
    """``ibv_devinfo`` or ``ibv_devinfo -v``: HCAs, ports, and (``-v``) GIDs."""
    hcas: list[Hca] = []
    name: str | None = None
    dev: dict[str, str] = {}
    ports: list[dict[str, str]] = []
    gids: dict[int, list[GidEntry]] = {}
    port: dict[str, str] | None = None

    def flush() -> None:
        if name is not None:
            hcas.append(_devinfo_hca(name, dev, ports, gids))

    for raw in clean_paste(text).splitlines():
        line = raw.strip()
        if not line:
            continue
        m = _HCA_ID_RE.match(line)
        if m:
            flush()
            name, dev, ports, gids, port = m.group(1), {}, [], {}, None
            continue
        if name is None:
            if line.startswith("No IB devices found"):
                return []
            raise ParseError(
                said("error.parse.devinfo_before_hca", line=repr(line[:80])),
                hint=said("error.parse.hint.ibv_devinfo"),
            )
        m = _DEV_PORT_RE.match(line)
        if m:
            port = {_PORT_KEY: m.group(1)}
            ports.append(port)
            continue
        m = _GID_LINE_RE.match(line)
        if m and port is not None:
            pnum = int(port[_PORT_KEY])
            gid_type = _gid_type(m.group(3)) if m.group(3) else None
            gids.setdefault(pnum, []).append(
                GidEntry(name, pnum, int(m.group(1)), m.group(2), gid_type)
            )
            continue
        m = _KV_RE.match(line)
        if m:
            (port if port is not None else dev)[m.group(1).strip()] = m.group(2).strip()
        # Capability flag lists and free-text lines of -v carry nothing we use.
    flush()
    if not hcas and text.strip():
        raise ParseError(
            said("error.parse.devinfo_no_hca"), hint=said("error.parse.hint.ibv_devinfo_short")
        )
    return hcas


def _devinfo_hca(
    name: str, dev: dict[str, str], ports: list[dict[str, str]], gids: dict[int, list[GidEntry]]
) -> Hca:
    out = []
    for p in ports:
        num = int(p[_PORT_KEY])
        width = re.sub(r"\s*\(\d+\)$", "", p.get("active_width", "")) or None
        sm = _SPEED_RE.match(p.get("active_speed", ""))
        speed = float(sm.group(1)) if sm else None
        out.append(
            IbPort(
                hca=name,
                port=num,
                state=_norm_state(p["state"]) if "state" in p else None,
                phys_state=_norm_state(p["phys_state"]) if "phys_state" in p else None,
                rate_gbps=_rate_from(width, speed),
                link_layer=p.get("link_layer"),
                lid=_int_or_none(p.get("port_lid")),
                sm_lid=_int_or_none(p.get("sm_lid")),
                active_mtu=_int_or_none(p.get("active_mtu")),
                width=width,
                speed_gbps=speed,
                gids=tuple(g for g in gids.get(num, []) if not _is_zero(g.gid)),
            )
        )
    return Hca(
        name=name,
        ports=tuple(out),
        firmware=dev.get("fw_ver"),
        node_guid=dev.get("node_guid"),
        transport=re.sub(r"\s*\(\d+\)$", "", dev["transport"]) if "transport" in dev else None,
        vendor_part_id=dev.get("vendor_part_id"),
        board_id=dev.get("board_id"),
        extra=dict(dev),
    )


def _is_zero(gid: str) -> bool:
    return gid in (ZERO_GID, "::", "0000:0000:0000:0000:0000:0000:0000:0000")


def _gid_type(text: str | None) -> str | None:
    """``RoCE v2``, ``RoCE V2``, ``IB/RoCE v1``, ``v2`` -> ``RoCE v2`` / ``RoCE v1`` / ``IB``."""
    if not text:
        return None
    t = text.strip().lower()
    if t.endswith("v2") or "roce v2" in t or "rocev2" in t:
        return "RoCE v2"
    if t.endswith("v1") or "roce" in t:
        return "RoCE v1"
    if t == "ib":
        return "IB"
    return text.strip()


# --- show_gids -----------------------------------------------------------------------

_IPV4_RE = re.compile(r"^\d{1,3}(?:\.\d{1,3}){3}$")


@parse_guard("show_gids", Said("error.parse.hint.pass", {"command": "show_gids"}))
def parse_show_gids(text: str) -> list[GidEntry]:
    """Mellanox ``show_gids``: ``DEV PORT INDEX GID [IPv4] VER DEV`` rows."""
    out: list[GidEntry] = []
    saw_header = False
    for raw in clean_paste(text).splitlines():
        line = raw.strip()
        if not line or line.startswith("---") or line.startswith("n_gids_found"):
            continue
        tokens = line.split()
        if tokens[:3] == ["DEV", "PORT", "INDEX"]:
            saw_header = True
            continue
        if len(tokens) not in (5, 6, 7) or not tokens[1].isdigit() or not tokens[2].isdigit():
            raise ParseError(
                said("error.parse.gids_row", line=repr(line[:100])),
                hint=said("error.parse.hint.pass_unchanged", command="show_gids"),
            )
        hca, port, index, gid = tokens[0], int(tokens[1]), int(tokens[2]), tokens[3]
        rest = tokens[4:]
        ipv4 = rest.pop(0) if rest and _IPV4_RE.match(rest[0]) else None
        ver = rest.pop(0) if rest else None
        netdev = rest.pop(0) if rest else None
        if _is_zero(gid):
            continue
        out.append(GidEntry(hca, port, index, gid, _gid_type(ver), ipv4, netdev))
    if not out and not saw_header and text.strip():
        raise ParseError(
            said("error.parse.gids_none"), hint=said("error.parse.hint.pass", command="show_gids")
        )
    return out


# --- sysfs -------------------------------------------------------------------------------

#: What follows ``DEV/ports/``: ``N/gids/I``, ``N/gid_attrs/types/I`` or ``N/gid_attrs/ndevs/I``,
#: then ``:`` (grep -H) or blanks. Matched anchored at each ``/ports/``, so a line costs time
#: in proportion to its length (an unanchored search took 14 s on one 40,000-character line).
_SYSFS_TAIL_RE = re.compile(
    r"(?P<port>\d+)/(?P<kind>gids|gid_attrs/types|gid_attrs/ndevs)/(?P<index>\d+)[ \t]*[:\s]"
)
_PORTS = "/ports/"


def _sysfs_gid_line(line: str) -> tuple[str, int, str, int, str] | None:
    """``(hca, port, kind, index, value)`` of one grep -H line, or None."""
    at = line.find(_PORTS)
    while at >= 0:
        start = at
        while start > 0 and line[start - 1] not in "/:" and not line[start - 1].isspace():
            start -= 1
        m = _SYSFS_TAIL_RE.match(line, at + len(_PORTS))
        if m and start < at:
            value = line[m.end() :].strip()
            return (
                line[start:at],
                int(m.group("port")),
                m.group("kind"),
                int(m.group("index")),
                value,
            )
        at = line.find(_PORTS, at + 1)
    return None


@parse_guard("gid_sysfs", Said("error.parse.hint.gid_sysfs"))
def parse_gid_sysfs(text: str) -> list[GidEntry]:
    """``grep -H . /sys/class/infiniband/*/ports/*/{gids,gid_attrs/types,gid_attrs/ndevs}/*``.

    Unset entries (zero GIDs, unreadable types) are left out."""
    parts: dict[tuple[str, int, int], dict[str, str]] = {}
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith(("grep:", "cat:")):
            continue  # the tool complaining about an unset GID slot
        found = _sysfs_gid_line(line)
        if found is None:
            raise ParseError(
                said("error.parse.gid_sysfs_line", line=repr(line[:100])),
                hint=said("error.parse.hint.gid_sysfs_lines"),
            )
        hca, port, kind, index, value = found
        parts.setdefault((hca, port, index), {})[kind] = value
    out = []
    for (hca, port, index), p in sorted(parts.items()):
        gid = p.get("gids")
        if not gid or _is_zero(gid):
            continue
        out.append(
            GidEntry(
                hca,
                port,
                index,
                gid,
                _gid_type(p.get("gid_attrs/types")),
                _ipv4_of(gid),
                p.get("gid_attrs/ndevs") or None,
            )
        )
    return out


def _ipv4_of(gid: str) -> str | None:
    low = gid.lower()
    if not low.startswith("0000:0000:0000:0000:0000:ffff:"):
        return None
    h = low.split(":")[-2:]
    try:
        a, b = int(h[0], 16), int(h[1], 16)
    except ValueError:
        return None
    return f"{a >> 8}.{a & 0xFF}.{b >> 8}.{b & 0xFF}"


def attach_gids(hcas: Sequence[Hca], gids: Iterable[GidEntry]) -> list[Hca]:
    """HCAs with their ports' GID tables replaced by ``gids`` (from show_gids or sysfs)."""
    by_port: dict[tuple[str, int], list[GidEntry]] = {}
    for g in gids:
        by_port.setdefault((g.hca, g.port), []).append(g)
    out = []
    for h in hcas:
        ports = tuple(
            replace(p, gids=tuple(sorted(by_port[(h.name, p.port)], key=lambda g: g.index)))
            if (h.name, p.port) in by_port
            else p
            for p in h.ports
        )
        out.append(replace(h, ports=ports))
    return out
