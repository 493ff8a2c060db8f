"""How the simulated cloud behaves: delays, capacity and the faults a test can switch on.

``CloudSettings`` is what the cloud starts with; ``Faults`` is the live copy
that ``/v1/_faults`` changes. Faults are not persisted: a restarted cloud
starts from its settings again.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from xyclaw.catalog import Offer

# A few hundred cards of each GPU per region, and room for two of the largest slices.
DEFAULT_CARDS_PER_REGION = 256
ERROR_STATUSES = (500, 502, 503)


def default_capacity(offers: Iterable[Offer]) -> dict[str, dict[str, int]]:
    """Cards per region and GPU: 256, or four times the largest rentable size if that is more."""
    largest: dict[tuple[str, str], int] = {}
    for offer in offers:
        key = (offer.region, offer.gpu)
        largest[key] = max(largest.get(key, 0), max(offer.gpu_counts))
    capacity: dict[str, dict[str, int]] = {}
    for (region, gpu), cards in sorted(largest.items()):
        capacity.setdefault(region, {})[gpu] = max(DEFAULT_CARDS_PER_REGION, 4 * cards)
    return capacity


@dataclass(frozen=True)
class CloudSettings:
    """Defaults are realistic: a cluster takes about 8 s to come up, a release about 3 s."""

    provision_delay_s: float = 8.0
    per_node_delay_s: float = 0.25
    terminate_delay_s: float = 3.0
    rate_limit_per_s: float = 0.0
    error_rate: float = 0.0
    error_status: int = 503
    timeout_rate: float = 0.0
    timeout_s: float = 30.0
    capacity: Mapping[str, Mapping[str, int]] | None = None  # None: default_capacity(offers)
    host: str = "127.0.0.1"
    ssh_user: str = "root"
    # Spot (issue 32): how often the cloud takes a running spot cluster back on its own (an
    # average rate per hour of the cluster's life, drawn from ``spot_seed``'s generator, so a
    # test gets the same draws), after a notice of ``spot_notice_s`` seconds.
    spot_preemptions_per_hour: float = 1.0 / 24
    spot_notice_s: float = 30.0
    spot_seed: int | None = None

    @classmethod
    def fast(cls, **overrides: Any) -> CloudSettings:
        """Everything immediate: for tests and demos."""
        base = cls(provision_delay_s=0.0, per_node_delay_s=0.0, terminate_delay_s=0.0)
        return replace(base, **overrides)


@dataclass
class Faults:
    """The live behaviour; every field can be changed through ``POST /v1/_faults``."""

    error_rate: float
    error_status: int
    timeout_rate: float
    timeout_s: float
    provision_delay_s: float
    per_node_delay_s: float
    terminate_delay_s: float
    fail_nodes: int
    rate_limit_per_s: float
    capacity: dict[str, dict[str, int]] = field(default_factory=dict)
    spot_preemptions_per_hour: float = 0.0
    spot_notice_s: float = 30.0

    @classmethod
    def from_settings(cls, settings: CloudSettings, offers: Iterable[Offer]) -> Faults:
        capacity = (
            default_capacity(offers)
            if settings.capacity is None
            else {r: dict(g) for r, g in settings.capacity.items()}
        )
        return cls(
            error_rate=settings.error_rate,
            error_status=settings.error_status,
            timeout_rate=settings.timeout_rate,
            timeout_s=settings.timeout_s,
            provision_delay_s=settings.provision_delay_s,
            per_node_delay_s=settings.per_node_delay_s,
            terminate_delay_s=settings.terminate_delay_s,
            fail_nodes=0,
            rate_limit_per_s=settings.rate_limit_per_s,
            capacity=capacity,
            spot_preemptions_per_hour=settings.spot_preemptions_per_hour,
            spot_notice_s=settings.spot_notice_s,
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "error_rate": self.error_rate,
            "error_status": self.error_status,
            "timeout_rate": self.timeout_rate,
            "timeout_s": self.timeout_s,
            "provision_delay_s": self.provision_delay_s,
            "per_node_delay_s": self.per_node_delay_s,
            "terminate_delay_s": self.terminate_delay_s,
            "fail_nodes": self.fail_nodes,
            "rate_limit_per_s": self.rate_limit_per_s,
            "capacity": {r: dict(g) for r, g in self.capacity.items()},
            "spot_preemptions_per_hour": self.spot_preemptions_per_hour,
            "spot_notice_s": self.spot_notice_s,
        }
