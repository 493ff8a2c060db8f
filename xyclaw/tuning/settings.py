"""NCCL settings for a cluster, each variable with the reason it is set.

Derived from a FabricReport only: what the nodes actually have decides the
values. ``NCCL_ALGO`` and ``NCCL_PROTO`` are never set (the NCCL docs warn
that forcing them can be slower or, for LL128 where unsupported, corrupt data).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from xyclaw.tuning.fabric import FabricReport
from xyclaw.wording import Said, said

NEVER_BY_DEFAULT = ("NCCL_ALGO", "NCCL_PROTO")
ROCE_TRAFFIC_CLASS = "106"  # DSCP 26 (<< 2) with ECN-capable transport: the usual lossless class
ROCE_QPS_PER_CONNECTION = "4"
IB_TIMEOUT = "22"


@dataclass(frozen=True)
class NcclSetting:
    name: str
    value: str
    reason: str
    # the reason's key and figures, for a view in another language (not stored: a setting
    # read back from the history has its English reason only)
    reason_said: Said | None = field(default=None, compare=False)

    def to_json(self) -> dict[str, str]:
        return {"name": self.name, "value": self.value, "reason": self.reason}


@dataclass(frozen=True)
class NcclSettings:
    """An environment for jobs with a reason per variable; ``notes`` are what NCCL cannot fix."""

    settings: tuple[NcclSetting, ...] = ()
    notes: tuple[str, ...] = ()
    #: The notes worded (issue 35): a view shows them in its language; ``notes`` is English.
    notes_said: tuple[Said | str, ...] = field(default=(), compare=False)

    def env(self) -> dict[str, str]:
        return {s.name: s.value for s in self.settings}

    def get(self, name: str) -> NcclSetting | None:
        return next((s for s in self.settings if s.name == name), None)

    def __len__(self) -> int:
        return len(self.settings)

    def to_json(self) -> dict[str, Any]:
        return {"settings": [s.to_json() for s in self.settings], "notes": list(self.notes)}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> NcclSettings:
        return cls(
            tuple(
                NcclSetting(str(s["name"]), str(s["value"]), str(s.get("reason", "")))
                for s in d.get("settings", [])
            ),
            tuple(str(n) for n in d.get("notes", [])),
        )

    @classmethod
    def from_env(cls, env: Mapping[str, str], reason: str) -> NcclSettings:
        return cls(tuple(NcclSetting(k, v, reason) for k, v in sorted(env.items())))


def match_list(spec: str, names: Sequence[str]) -> list[str]:
    """The names an NCCL list variable selects: prefixes, ``=`` exact, ``^`` exclude, ``:port``."""
    exclude = spec.startswith("^")
    body = spec[1:] if exclude else spec
    exact = body.startswith("=")
    if exact:
        body = body[1:]
    wanted = [item.strip().partition(":")[0] for item in body.split(",") if item.strip()]

    def hit(name: str) -> bool:
        return any((name == w) if exact else name.startswith(w) for w in wanted)

    return [n for n in names if hit(n) != exclude]


def recommend(report: FabricReport) -> NcclSettings:
    """The environment jobs on this cluster should run with, from what the probe found."""
    s = report.summary
    image = report.nccl_env
    out: list[NcclSetting] = []
    notes: list[Said | str] = []
    multi = report.node_count > 1
    rdma = s.transport in ("ib", "roce", "mixed") and bool(s.hcas)
    roce = s.transport == "roce" or (s.transport == "mixed" and s.roce_gid_index is not None)

    def add(name: str, value: str, reason: Said) -> None:
        was = image.get(name)
        if was is not None and was != value:
            reason = said("op.nccl.image_sets", reason=reason, name=name, was=was)
        out.append(NcclSetting(name, value, str(reason), reason_said=reason))

    if rdma:
        kind = "RoCE" if roce else "InfiniBand"
        reason = said("op.nccl.hca", count=len(s.hcas), kind=kind)
        if s.nic_count > len(s.hcas):
            reason = said("op.nccl.hca_left_out", reason=reason, count=s.nic_count - len(s.hcas))
        add("NCCL_IB_HCA", "=" + ",".join(s.hcas), reason)
        if image.get("NCCL_IB_DISABLE", "0") not in ("0", ""):
            add("NCCL_IB_DISABLE", "0", said("op.nccl.ib_enable"))
        if image.get("NCCL_NET", "").lower() == "socket":
            add("NCCL_NET", "IB", said("op.nccl.net_ib"))
        if roce:
            if s.roce_gid_index is not None:
                add(
                    "NCCL_IB_GID_INDEX",
                    str(s.roce_gid_index),
                    said("op.nccl.gid", index=s.roce_gid_index),
                )
            else:
                notes.append(said("op.note.no_roce_gid"))
            add(
                "NCCL_IB_TC",
                ROCE_TRAFFIC_CLASS,
                said("op.nccl.tc"),
            )
            notes.append(said("op.note.roce_pfc_ecn", tc=ROCE_TRAFFIC_CLASS))
            if multi:
                add(
                    "NCCL_IB_QPS_PER_CONNECTION",
                    ROCE_QPS_PER_CONNECTION,
                    said("op.nccl.qps"),
                )
        add(
            "NCCL_IB_TIMEOUT",
            IB_TIMEOUT,
            said("op.nccl.timeout"),
        )
        gdr = s.gdr_distance
        if gdr in ("PIX", "PXB"):
            add(
                "NCCL_NET_GDR_LEVEL",
                "PXB",
                said("op.nccl.gdr_pxb", gdr=gdr),
            )
        elif gdr == "PHB":
            add(
                "NCCL_NET_GDR_LEVEL",
                "PHB",
                said("op.nccl.gdr_phb"),
            )
        elif gdr in ("NODE", "SYS"):
            notes.append(said("op.note.gdr_across_cpu", gdr=gdr))
        if image.get("NCCL_NET_GDR_LEVEL", "").upper() in ("LOC", "0") and gdr not in (
            "PIX",
            "PXB",
            "PHB",
        ):
            add(
                "NCCL_NET_GDR_LEVEL",
                "PHB",
                said("op.nccl.gdr_image"),
            )
        if s.peermem is False:
            notes.append(said("op.note.no_peermem"))
    elif multi:
        add(
            "NCCL_IB_DISABLE",
            "1",
            said("op.nccl.ib_disable"),
        )
    if s.socket_ifaces:
        iface = s.socket_ifaces[0]
        if rdma or not multi:
            reason = said("op.nccl.socket_oob", iface=iface)
        else:
            speed = (
                said("op.nccl.speed", gbps=f"{s.socket_speed_mbps / 1000:g}")
                if s.socket_speed_mbps
                else ""
            )
            reason = said("op.nccl.socket_data", iface=iface, speed=speed)
        add("NCCL_SOCKET_IFNAME", "=" + iface, reason)
    add("NCCL_DEBUG", "WARN", said("op.nccl.debug"))
    for name in NEVER_BY_DEFAULT:
        if name in image:
            notes.append(said("op.note.image_forces", name=name, value=image[name]))
    return NcclSettings(tuple(out), tuple(str(note) for note in notes), notes_said=tuple(notes))
