"""GPU models and offers: what can be rented, where, on which fabric, at what price.

``Catalog.builtin()`` loads the bundled spec sheet figures and the built-in
simulated cloud's offers; ``Catalog.merge`` adds offers from other providers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from xyclaw.catalog.catalog import BUILTIN_PROVIDER, Catalog, UnknownGpuError, builtin_dir
from xyclaw.catalog.fabrics import BUILTIN_FABRICS, FAMILIES, Fabric, parse_fabric
from xyclaw.catalog.loader import CatalogRowError, load_gpus, load_offers, offers_from_rows
from xyclaw.catalog.models import GpuModel, Offer
from xyclaw.catalog.money import MICRO_PER_UNIT, format_amount, parse_amount, to_display
from xyclaw.catalog.names import normalise_gpu_name
from xyclaw.errors import CatalogError

if TYPE_CHECKING:
    from xyclaw.catalog.table import OfferTable


def __getattr__(name: str) -> Any:
    """``OfferTable`` (numpy's arrays of the offers) is imported when first asked for."""
    if name == "OfferTable":
        from xyclaw.catalog.table import OfferTable

        return OfferTable
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "BUILTIN_FABRICS",
    "BUILTIN_PROVIDER",
    "FAMILIES",
    "MICRO_PER_UNIT",
    "Catalog",
    "CatalogError",
    "CatalogRowError",
    "Fabric",
    "GpuModel",
    "Offer",
    "OfferTable",
    "UnknownGpuError",
    "builtin_dir",
    "format_amount",
    "load_gpus",
    "load_offers",
    "normalise_gpu_name",
    "offers_from_rows",
    "parse_amount",
    "parse_fabric",
    "to_display",
]
