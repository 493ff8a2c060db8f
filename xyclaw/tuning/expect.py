"""What all-reduce bus bandwidth a cluster should reach, and from what.

Across nodes the ceiling is the NICs of one node: per-NIC line rate / 8 (GB/s)
times the NICs NCCL can use (at most one per GPU). Inside one node it is the
GPU's NVLink (half its bidirectional figure) or PCIe. A right fabric gives
80-95% of line rate (docs/reference-figures.md); NVLink all-reduce about
75-80% of the link (230 GB/s on 8x A100, 370 GB/s Ring on 8x H100); sockets
far less. The healthy fractions below sit at the low end of those ranges.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from xyclaw.catalog import Catalog, GpuModel, parse_fabric
from xyclaw.errors import XyclawError
from xyclaw.wording import Said, said

PCIE_GBS = 32.0  # PCIe 4.0 x16, one direction
HEALTHY = {"rdma": 0.80, "socket": 0.60, "nvlink": 0.70, "pcie": 0.30}


@dataclass(frozen=True)
class Expectation:
    """``busbw_gbs``: the ceiling of the path that limits the run; healthy at
    ``healthy_fraction`` of it. ``path`` is rdma, socket, nvlink or pcie."""

    busbw_gbs: float
    healthy_fraction: float
    path: str
    basis: str
    assumptions: tuple[str, ...] = ()
    basis_said: Said | None = field(default=None, compare=False)  # the basis's wording
    #: The assumptions worded (issue 35); ``assumptions`` is the English.
    assumptions_said: tuple[Said | str, ...] = field(default=(), compare=False)

    @property
    def healthy_busbw(self) -> float:
        return self.busbw_gbs * self.healthy_fraction

    def to_json(self) -> dict[str, Any]:
        return {
            "busbw_gbs": round(self.busbw_gbs, 3),
            "healthy_fraction": self.healthy_fraction,
            "healthy_busbw_gbs": round(self.healthy_busbw, 3),
            "path": self.path,
            "basis": self.basis,
            "assumptions": list(self.assumptions),
        }


def gpu_model(name: str | None, catalog: Catalog | None = None) -> GpuModel | None:
    """The catalog model for a name as a user, a provider or nvidia-smi spells it."""
    if not name:
        return None
    cat = catalog or Catalog.builtin()
    tries = [name]
    bare = re.sub(r"(?i)\bNVIDIA\s+", "", name).strip()
    bare = re.sub(r"(?i)-?(SXM\d?|PCIE|NVL|HBM\d?e?)\b", "", bare).strip(" -")
    tries.append(bare)
    m = re.match(r"(?i)^([A-Z]+\d+[A-Z]*)[\s-]*(\d+)\s*GB?\b", bare)
    if m:
        tries += [f"{m.group(1)}-{m.group(2)}G", m.group(1)]
    tries.append(bare.split()[0] if bare.split() else bare)
    for t in tries:
        try:
            return cat.gpu(t)
        except XyclawError:
            continue
    return None


def _intra(gpu: GpuModel | None, gpus_per_node: int) -> Expectation | None:
    if gpu is None or gpus_per_node < 2:
        return None
    if gpu.has_nvlink and gpu.nvlink_gbs > 0:
        link = gpu.nvlink_gbs / 2
        basis = said(
            "op.expect.nvlink",
            n=gpus_per_node,
            gpu=gpu.name,
            per_gpu=f"{gpu.nvlink_gbs:g}",
            link=f"{link:g}",
        )
        return Expectation(link, HEALTHY["nvlink"], "nvlink", str(basis), basis_said=basis)
    basis = said("op.expect.pcie", n=gpus_per_node, gpu=gpu.name, gbs=f"{PCIE_GBS:g}")
    return Expectation(PCIE_GBS, HEALTHY["pcie"], "pcie", str(basis), basis_said=basis)


def expect(
    *,
    nodes: int,
    gpus_per_node: int,
    gpu: GpuModel | None,
    fabric: str | None,
    nic_count: int | None = None,
    nic_rate_gbps: float | None = None,
    socket_speed_mbps: int | None = None,
    rdma: bool | None = None,
) -> Expectation | None:
    """The ceiling that limits an all-reduce of this shape; None when nothing is known."""
    intra = _intra(gpu, gpus_per_node)
    if nodes <= 1:
        return intra
    assumptions: list[Said | str] = []
    family = None
    fabric_gbps: float | None = None
    if fabric:
        try:
            parsed = parse_fabric(fabric)
        except ValueError:
            parsed = None
        if parsed is not None and parsed.spans_nodes:
            family = parsed.family
            fabric_gbps = float(parsed.gbps)
    if rdma is None:
        rdma = family in ("ib", "roce")
    rate = fabric_gbps or nic_rate_gbps
    if rdma:
        if rate is None:
            return intra
        count = nic_count
        if not count:
            count = gpus_per_node
            assumptions.append(said("op.note.nics_assumed", count=count))
        used = max(1, min(count, gpus_per_node))
        kind = {"ib": "InfiniBand", "roce": "RoCE"}.get(family or "", "RDMA")
        basis = said(
            "op.expect.rdma", used=used, rate=f"{rate:g}", kind=kind, gbs=f"{used * rate / 8.0:g}"
        )
        net = Expectation(
            used * rate / 8.0,
            HEALTHY["rdma"],
            "rdma",
            str(basis),
            tuple(str(a) for a in assumptions),
            basis_said=basis,
            assumptions_said=tuple(assumptions),
        )
    else:
        speed = socket_speed_mbps / 1000.0 if socket_speed_mbps else rate
        if speed is None:
            return intra
        basis = said("op.expect.socket", speed=f"{speed:g}", gbs=f"{speed / 8.0:g}")
        net = Expectation(
            speed / 8.0,
            HEALTHY["socket"],
            "socket",
            str(basis),
            tuple(str(a) for a in assumptions),
            basis_said=basis,
            assumptions_said=tuple(assumptions),
        )
    if intra is not None and intra.healthy_busbw < net.healthy_busbw:
        basis = said(
            "op.expect.below", basis=intra.basis_said or intra.basis, gbs=f"{net.busbw_gbs:g}"
        )
        return Expectation(
            intra.busbw_gbs,
            intra.healthy_fraction,
            intra.path,
            str(basis),
            tuple(str(a) for a in assumptions),
            basis_said=basis,
            assumptions_said=tuple(assumptions),
        )
    return net
