"""The catalog as columns: one row per (offer, node count), for fast vectorised planning.

Planning a request touches every rentable shape; with thousands of offers a
Python loop per shape is too slow for an interactive answer, so the planner
works on these numpy columns and only builds objects for what it shows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from xyclaw.catalog.fabrics import Fabric, parse_fabric
from xyclaw.catalog.models import GpuModel, Offer

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class OfferTable:
    """Columns over every rentable shape. Codes index the name lists beside them."""

    offer: IntArray  # index into offers
    gpus: IntArray
    nodes: IntArray
    gpus_per_node: IntArray
    gpu: IntArray  # index into gpu_models
    region: IntArray  # index into regions
    fabric: IntArray  # index into fabrics
    provider: IntArray  # index into providers
    currency: IntArray  # index into currencies
    price: FloatArray  # micro-units per card-hour, on demand
    price_30d: FloatArray  # micro-units per card-hour, NaN when no tier can be rented
    available: FloatArray  # cards free, inf when unknown
    offers: tuple[Offer, ...]
    gpu_models: tuple[GpuModel, ...]
    regions: tuple[str, ...]
    fabrics: tuple[Fabric, ...]
    providers: tuple[str, ...]
    currencies: tuple[str, ...]

    def __len__(self) -> int:
        return int(self.gpus.shape[0])

    @classmethod
    def build(cls, gpus: Sequence[GpuModel], offers: Sequence[Offer]) -> OfferTable:
        gpu_index = {g.name: i for i, g in enumerate(gpus)}
        regions: dict[str, int] = {}
        fabrics: dict[str, int] = {}
        providers: dict[str, int] = {}
        currencies: dict[str, int] = {}
        fabric_objects: list[Fabric] = []
        columns: list[list[float]] = [[] for _ in range(12)]
        for index, offer in enumerate(offers):
            if offer.fabric not in fabrics:
                fabrics[offer.fabric] = len(fabrics)
                fabric_objects.append(parse_fabric(offer.fabric))
            codes = (
                gpu_index[offer.gpu],
                regions.setdefault(offer.region, len(regions)),
                fabrics[offer.fabric],
                providers.setdefault(offer.provider, len(providers)),
                currencies.setdefault(offer.currency, len(currencies)),
            )
            tier = offer.rentable_price_30d_micro  # a tier nobody can rent prices nothing
            price_30d = float("nan") if tier is None else tier
            available = float("inf") if offer.available_gpus is None else offer.available_gpus
            for nodes in offer.node_counts:
                row = (
                    index,
                    nodes * offer.gpus_per_node,
                    nodes,
                    offer.gpus_per_node,
                    *codes,
                    offer.price_micro,
                    price_30d,
                    available,
                )
                for column, value in zip(columns, row, strict=True):
                    column.append(value)

        def ints(i: int) -> IntArray:
            return np.asarray(columns[i], dtype=np.int64)

        def floats(i: int) -> FloatArray:
            return np.asarray(columns[i], dtype=np.float64)

        return cls(
            offer=ints(0),
            gpus=ints(1),
            nodes=ints(2),
            gpus_per_node=ints(3),
            gpu=ints(4),
            region=ints(5),
            fabric=ints(6),
            provider=ints(7),
            currency=ints(8),
            price=floats(9),
            price_30d=floats(10),
            available=floats(11),
            offers=tuple(offers),
            gpu_models=tuple(gpus),
            regions=tuple(regions),
            fabrics=tuple(fabric_objects),
            providers=tuple(providers),
            currencies=tuple(currencies),
        )
