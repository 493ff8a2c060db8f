"""Network fabrics between nodes, named ``<family>-<Gb/s>`` (``ib-hdr-200``, ``roce-100``).

``none`` is the fabric of an offer that never spans nodes: its GPUs talk over
NVLink or PCIe inside one machine (which one the GPU model says), so there is
no inter-node network to pay a penalty for. Other providers may list other
rates (``roce-400``, ``ib-ndr-400``, ``eth-100``); the name carries family and
rate, so they need no code change.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from xyclaw.wording import SaidValueError, said

FAMILIES = ("ib", "roce", "eth", "none")
NONE = "none"
BUILTIN_FABRICS = ("ib-hdr-200", "ib-ndr-400", "roce-100", "roce-200", "eth-25", NONE)

# InfiniBand generations and their per-port rate in Gb/s (4x links).
_IB_GENERATIONS = {"edr": 100, "hdr": 200, "ndr": 400, "xdr": 800}
_PATTERN = re.compile(r"^(?:ib-(?P<gen>[a-z]+)|(?P<family>roce|eth))-(?P<gbps>\d+)$")


@dataclass(frozen=True, slots=True)
class Fabric:
    """A fabric's family (``ib``, ``roce``, ``eth``, ``none``) and its link rate per node."""

    name: str
    family: str
    gbps: int

    @property
    def rdma(self) -> bool:
        """InfiniBand and RoCE move data GPU to GPU without the CPU; plain Ethernet does not."""
        return self.family in ("ib", "roce")

    @property
    def spans_nodes(self) -> bool:
        return self.family != NONE


def parse_fabric(text: str) -> Fabric:
    """``"IB-HDR-200"`` -> ``Fabric("ib-hdr-200", "ib", 200)``; ValueError says what is expected."""
    name = text.strip().lower()
    if name == NONE:
        return Fabric(NONE, NONE, 0)
    match = _PATTERN.match(name)
    if match is None:
        raise SaidValueError(
            said("error.typed.not_fabric", text=repr(text), names=", ".join(BUILTIN_FABRICS))
        )
    gbps = int(match["gbps"])
    if gbps <= 0:
        raise SaidValueError(said("error.typed.no_link_rate", text=repr(text)))
    generation = match["gen"]
    if generation is not None:
        expected = _IB_GENERATIONS.get(generation)
        if expected is None:
            raise SaidValueError(
                said(
                    "error.typed.ib_generation",
                    text=repr(text),
                    generation=repr(generation),
                    names=", ".join(_IB_GENERATIONS),
                )
            )
        if expected != gbps:
            raise SaidValueError(
                said(
                    "error.typed.ib_rate",
                    text=repr(text),
                    generation=generation.upper(),
                    gbps=expected,
                )
            )
        return Fabric(name, "ib", gbps)
    return Fabric(name, match["family"], gbps)


def matches(fabric: Fabric, wanted: str) -> bool:
    """A fabric filter is either a family (``ib``, ``roce``, ``eth``, ``none``) or a full name."""
    wanted = wanted.strip().lower()
    return fabric.family == wanted if wanted in FAMILIES else fabric.name == wanted
