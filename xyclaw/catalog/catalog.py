"""The catalog: GPU models plus the offers of every provider, immutable once built.

A catalog never changes in place: merging offers from a provider returns a new
catalog, so a plan computed on one thread never sees half an update from another.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from xyclaw.catalog.fabrics import Fabric, matches, parse_fabric
from xyclaw.catalog.loader import load_gpus, load_offers
from xyclaw.catalog.models import GpuModel, Offer
from xyclaw.catalog.names import normalise_gpu_name, same_name
from xyclaw.errors import CatalogError

if TYPE_CHECKING:  # numpy: only when the planner ranks offers
    from xyclaw.catalog.table import OfferTable

BUILTIN_PROVIDER = "sim"


class UnknownGpuError(CatalogError):
    """A GPU model that is not in the catalog was asked for."""


def builtin_dir() -> Path:
    """Where the bundled catalog files live (a source checkout or an installed wheel)."""
    from xyclaw.paths import bundled

    return bundled("resources") / "catalog"


class Catalog:
    """GPU models and the offers that rent them. Build with :meth:`builtin` or the constructor."""

    def __init__(self, gpus: Iterable[GpuModel], offers: Iterable[Offer] = ()) -> None:
        self._gpus: dict[str, GpuModel] = {}
        for gpu in gpus:
            if gpu.name in self._gpus:
                raise CatalogError(
                    f"GPU model {gpu.name} is listed twice", hint="keep one row per GPU model"
                )
            self._gpus[gpu.name] = gpu
        self._offers: tuple[Offer, ...] = tuple(offers)
        seen: set[tuple[str, str]] = set()
        for offer in self._offers:
            if offer.gpu not in self._gpus:
                raise CatalogError(
                    f"offer {offer.offer_id} of {offer.provider} rents {offer.gpu!r}, "
                    "which is not a known GPU model",
                    hint=f"add the model to the GPU list first; known: {', '.join(self._gpus)}",
                )
            if offer.key in seen:
                raise CatalogError(
                    f"offer {offer.offer_id} of {offer.provider} is listed twice",
                    hint="offer ids must be unique per provider",
                )
            seen.add(offer.key)
        self._table: OfferTable | None = None
        self._lock = threading.Lock()

    @classmethod
    def builtin(cls) -> Catalog:
        """The bundled GPU models and the built-in simulated cloud's offers (loaded once)."""
        return _builtin()

    @classmethod
    def from_files(cls, gpus_path: Path, offer_paths: Sequence[Path] = ()) -> Catalog:
        gpus = load_gpus(gpus_path)
        names = {g.name for g in gpus}
        offers = [o for path in offer_paths for o in load_offers(path, known_gpus=names)]
        return cls(gpus, offers)

    @property
    def gpus(self) -> tuple[GpuModel, ...]:
        return tuple(self._gpus.values())

    @property
    def offers(self) -> tuple[Offer, ...]:
        return self._offers

    def gpu(self, name: str) -> GpuModel:
        """The model called ``name`` in any usual spelling ("rtx 4090", "A100 80GB")."""
        canonical = normalise_gpu_name(name)
        try:
            return self._gpus[canonical]
        except KeyError:
            raise UnknownGpuError(
                f"unknown GPU model {name!r}",
                hint=f"known models: {', '.join(self._gpus)}",
            ) from None

    def has_gpu(self, name: str) -> bool:
        return normalise_gpu_name(name) in self._gpus

    @property
    def regions(self) -> tuple[str, ...]:
        return tuple(sorted({o.region for o in self._offers}))

    @property
    def providers(self) -> tuple[str, ...]:
        return tuple(sorted({o.provider for o in self._offers}))

    @property
    def fabrics(self) -> tuple[Fabric, ...]:
        names = sorted({o.fabric for o in self._offers})
        return tuple(parse_fabric(name) for name in names)

    @property
    def currencies(self) -> tuple[str, ...]:
        return tuple(sorted({o.currency for o in self._offers}))

    def find(
        self,
        *,
        provider: str | None = None,
        region: str | None = None,
        gpu: str | None = None,
        fabric: str | None = None,
    ) -> list[Offer]:
        """Offers matching every filter given (fabric may be a family such as ``ib``)."""
        wanted_gpu = normalise_gpu_name(gpu) if gpu else None
        return [
            o
            for o in self._offers
            if (provider is None or same_name(o.provider, provider))
            and (region is None or same_name(o.region, region))
            and (wanted_gpu is None or o.gpu == wanted_gpu)
            and (fabric is None or matches(parse_fabric(o.fabric), fabric))
        ]

    def merge(self, offers: Iterable[Offer], *, replace_provider: str | None = None) -> Catalog:
        """A new catalog with ``offers`` added; an offer with the same provider and id replaces
        the old one. With ``replace_provider`` every old offer of that provider is dropped first
        (a provider's fresh list replaces its stale one)."""
        incoming = list(offers)
        keys = {o.key for o in incoming}
        kept = [
            o
            for o in self._offers
            if o.key not in keys
            and (replace_provider is None or not same_name(o.provider, replace_provider))
        ]
        return Catalog(self._gpus.values(), [*kept, *incoming])

    def with_gpus(self, gpus: Iterable[GpuModel]) -> Catalog:
        """A new catalog that also knows ``gpus`` (a model of the same name is replaced)."""
        models = dict(self._gpus)
        for gpu in gpus:
            models[gpu.name] = gpu
        return Catalog(models.values(), self._offers)

    def table(self) -> OfferTable:
        """The columns the planner works on, built on first use and kept."""
        if self._table is None:
            with self._lock:
                if self._table is None:
                    from xyclaw.catalog.table import OfferTable

                    self._table = OfferTable.build(self.gpus, self._offers)
        return self._table

    def __repr__(self) -> str:
        return f"Catalog({len(self._gpus)} GPU models, {len(self._offers)} offers)"


@lru_cache(maxsize=1)
def _builtin() -> Catalog:
    folder = builtin_dir()
    return Catalog.from_files(folder / "gpus.csv", [folder / "offers.csv"])
