"""What can be rented: GPU models (from public spec sheets) and offers (from providers)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from xyclaw.catalog.fabrics import parse_fabric
from xyclaw.catalog.names import normalise_gpu_name
from xyclaw.wording import SaidValueError, said

GIB = 1 << 30
INTERCONNECTS = ("nvlink", "pcie")
OFFER_KINDS = ("node", "cluster", "slice")
ASSUMED = "assumed"
_CURRENCY = re.compile(r"^[A-Z]{3}$")


@dataclass(frozen=True, slots=True)
class GpuModel:
    """One GPU model. TFLOP/s are dense tensor figures (no 2:4 sparsity).

    ``fp8_tflops`` is None for GPUs without FP8 tensor cores (Ampere and older).
    ``memory_gib`` is the memory on the board as the spec sheet gives it ("80 GB"
    HBM is 80 GiB); ``memory_bandwidth_gbs`` is in GB/s (1e9 bytes).
    """

    name: str
    memory_gib: float
    bf16_tflops: float
    fp8_tflops: float | None
    memory_bandwidth_gbs: float
    interconnect: str
    nvlink_gbs: float
    board_power_w: int
    source: str

    def __post_init__(self) -> None:
        if self.memory_gib <= 0 or self.bf16_tflops <= 0 or self.memory_bandwidth_gbs <= 0:
            raise SaidValueError(said("error.catalog.gpu_positive", name=self.name))
        if self.fp8_tflops is not None and self.fp8_tflops <= 0:
            raise SaidValueError(said("error.catalog.gpu_fp8", name=self.name))
        if self.interconnect not in INTERCONNECTS:
            raise SaidValueError(
                said("error.catalog.gpu_interconnect", name=self.name, choices=str(INTERCONNECTS))
            )

    @property
    def memory_bytes(self) -> int:
        return int(self.memory_gib * GIB)

    @property
    def has_nvlink(self) -> bool:
        return self.interconnect == "nvlink"

    @property
    def wants_gbps(self) -> int:
        """Seed 004 rule 6: H100/A100-class (NVLink) cards want >= 200 Gb/s between nodes;
        RTX 4090/A10-class (PCIe) cards are fine on 100 Gb/s."""
        return 200 if self.has_nvlink else 100


@dataclass(frozen=True, slots=True)
class Offer:
    """Something a provider rents: nodes of one GPU model, one or more at a time.

    ``node_counts`` lists the node counts one can rent (``(1,)`` for a single
    machine, ``(2, 4, 8)`` for a cluster, ``(8, 16)`` for 64/128-card slices of
    8-card nodes). Prices are micro-units of ``currency`` per card-hour;
    ``price_30d_micro`` is the 30-day tier (a commitment of 30 days or more) as the
    provider lists it; ``price_30d_rentable`` says whether it can be rented through
    XyClaw. A tier that cannot (every adapter rents on demand today) is never used to
    price a plan: it is shown as what a commitment would cost, not as the price.
    ``available_gpus`` is None where the provider does not say.
    """

    provider: str
    offer_id: str
    region: str
    gpu: str
    gpus_per_node: int
    node_counts: tuple[int, ...]
    fabric: str
    price_micro: int
    currency: str
    price_30d_micro: int | None = None
    kind: str = "node"
    available_gpus: int | None = None
    price_basis: str = ""
    price_30d_basis: str = ""
    price_30d_rentable: bool = False
    note: str = field(default="", compare=False)
    #: What a marketplace says about the host behind a live offer ("community host,
    #: reliability 0.97, ..."); the planner gives it as a reason. Empty elsewhere.
    host: str = field(default="", compare=False)
    community: bool = field(default=False, compare=False)  # a host not vetted by the provider
    # issue 32: the price of the same machines as spot (preemptible), where the provider rents
    # them so, and how often it takes them back (preemptions a day); never prices a plan
    spot_price_micro: int | None = None
    spot_preemptions_per_day: float | None = None
    # issue 33: a scheduler's partition (Slurm), not a rental. Its free GPUs now are
    # ``available_gpus``; a shape that needs more waits in the queue instead of being
    # refused: (node count, expected wait in seconds, None when the site does not say).
    # Empty for every offer that is rented.
    queue_waits: tuple[tuple[int, int | None], ...] = field(default=(), compare=False)

    @property
    def queued(self) -> bool:
        """A scheduler's partition: full now means a wait, not a refusal."""
        return bool(self.queue_waits)

    def queue_wait_s(self, nodes: int) -> int | None:
        """The expected wait for ``nodes`` nodes (0: runs now; None: unknown)."""
        return dict(self.queue_waits).get(nodes)

    def __post_init__(self) -> None:
        if not self.provider or not self.offer_id or not self.region or not self.gpu:
            raise SaidValueError(said("error.catalog.offer_needs"))
        # Providers spell things their own way; the catalog keeps one spelling.
        object.__setattr__(self, "gpu", normalise_gpu_name(self.gpu))
        object.__setattr__(self, "currency", self.currency.strip().upper())
        object.__setattr__(self, "node_counts", tuple(self.node_counts))
        if self.gpus_per_node < 1:
            raise SaidValueError(said("error.catalog.offer_gpus_per_node", offer=self.offer_id))
        if not self.node_counts or any(n < 1 for n in self.node_counts):
            raise SaidValueError(said("error.catalog.offer_nodes_min", offer=self.offer_id))
        if list(self.node_counts) != sorted(set(self.node_counts)):
            raise SaidValueError(said("error.catalog.offer_nodes_order", offer=self.offer_id))
        fabric = parse_fabric(self.fabric)
        object.__setattr__(self, "fabric", fabric.name)
        if max(self.node_counts) > 1 and not fabric.spans_nodes:
            raise SaidValueError(said("error.catalog.offer_fabric", offer=self.offer_id))
        if self.kind not in OFFER_KINDS:
            raise SaidValueError(
                said("error.catalog.offer_kind", offer=self.offer_id, choices=str(OFFER_KINDS))
            )
        if self.kind == "node" and self.node_counts != (1,):
            raise SaidValueError(said("error.catalog.offer_node_kind", offer=self.offer_id))
        if self.price_micro < 0:  # 0 is a machine you own: it costs nothing to use
            raise SaidValueError(said("error.catalog.offer_price", offer=self.offer_id))
        if self.price_30d_micro is not None and not 0 < self.price_30d_micro <= self.price_micro:
            raise SaidValueError(said("error.catalog.offer_price_30d", offer=self.offer_id))
        if not _CURRENCY.match(self.currency):
            raise SaidValueError(said("error.catalog.offer_currency", offer=self.offer_id))
        if self.available_gpus is not None and self.available_gpus < 0:
            raise SaidValueError(said("error.catalog.offer_available", offer=self.offer_id))

    @property
    def key(self) -> tuple[str, str]:
        return (self.provider, self.offer_id)

    @property
    def gpu_counts(self) -> tuple[int, ...]:
        """The total card counts this offer can be rented at."""
        return tuple(n * self.gpus_per_node for n in self.node_counts)

    @property
    def price_assumed(self) -> bool:
        return self.price_basis == ASSUMED

    @property
    def rentable_price_30d_micro(self) -> int | None:
        """The 30-day price where the provider rents that tier, else None: what prices a plan."""
        return self.price_30d_micro if self.price_30d_rentable else None

    @property
    def price_30d_assumed(self) -> bool:
        return self.price_30d_basis == ASSUMED
