"""The planner's answer: ranked options with their reasons, and what was rejected and why."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar, overload

import numpy as np
import numpy.typing as npt

from xyclaw.catalog.models import GIB
from xyclaw.catalog.money import to_display
from xyclaw.planner.request import PlanRequest
from xyclaw.wording import Said

T = TypeVar("T")
Reason = tuple[str, str]


@dataclass(frozen=True, slots=True)
class PlanOption:
    """One way to run the request: what to rent, how long it takes, what it costs, and why."""

    gpu: str
    gpus: int
    nodes: int
    gpus_per_node: int
    fabric: str
    provider: str
    region: str
    offer_id: str
    currency: str
    price_micro: int  # per card-hour, of the tier used
    tier: str  # "on-demand" or "30-day"
    seconds: int  # run time (for inference: the serving time), setup included
    cost_micro: int
    memory_per_gpu_bytes: int
    memory_usable_bytes: int
    utilization: float  # training: MFU x fabric factor; inference: target rate / capacity
    flops: float  # training FLOPs (0 for inference)
    tensor_parallel: int  # inference replicas' TP degree (0 for training)
    replicas: int  # inference replicas (0 for training)
    capacity_rps: float  # inference requests/s the option serves (0 for training)
    reasons: tuple[Reason, ...]
    #: per reason, the figures in its text (formatted), for wording it in another language
    reason_figures: tuple[dict[str, str], ...] = ()
    #: issue 32: the same run as spot, where the offer has it (never ranks the option)
    spot_cost_micro: int | None = None
    spot_preemptions_per_day: float | None = None
    #: issue 33: a scheduler's partition (Slurm): when it would start (0 or under a minute:
    #: runs now; None: the site does not say). ``queued`` False: a rental, which starts now.
    queued: bool = False
    wait_s: int | None = None

    @property
    def hours(self) -> float:
        return self.seconds / 3600

    @property
    def runs_now(self) -> bool:
        return not self.queued or (self.wait_s is not None and self.wait_s <= 60)

    @property
    def wait_minutes(self) -> int | None:
        """The queue's expected wait in whole minutes (None: unknown or no queue)."""
        if not self.queued or self.wait_s is None:
            return None
        return -(-self.wait_s // 60)

    @property
    def key(self) -> tuple[str, str, int]:
        """Identifies the rentable shape: provider, offer, cards."""
        return (self.provider, self.offer_id, self.gpus)

    @property
    def memory_per_gpu_gb(self) -> float:
        return self.memory_per_gpu_bytes / GIB

    def to_json(self) -> dict[str, Any]:
        return {
            **_shape_json(self),
            "price_per_gpu_hour": to_display(self.price_micro, 4),
            "currency": self.currency,
            "hours": round(self.hours, 2),
            "cost": to_display(self.cost_micro),
            "memory_per_gpu_gb": round(self.memory_per_gpu_gb, 1),
            "utilization": round(self.utilization, 3),
            "reasons": [{"rule": rule, "text": text} for rule, text in self.reasons],
            "offer_id": self.offer_id,
            "tier": self.tier,
            "seconds": self.seconds,
            "price_micro": self.price_micro,
            "cost_micro": self.cost_micro,
            **(
                {
                    "spot_cost_micro": self.spot_cost_micro,
                    "spot_preemptions_per_day": self.spot_preemptions_per_day,
                }
                if self.spot_cost_micro is not None
                else {}
            ),
            **(
                {"queued": True, "wait_s": self.wait_s, "runs_now": self.runs_now}
                if self.queued
                else {}
            ),
        }


@dataclass(frozen=True, slots=True)
class RejectedOption:
    """A shape that matched the request's filters but breaks a limit; ``why`` says which."""

    gpu: str
    gpus: int
    nodes: int
    gpus_per_node: int
    fabric: str
    provider: str
    region: str
    offer_id: str
    currency: str
    price_micro: int
    seconds: int | None
    cost_micro: int | None
    memory_per_gpu_bytes: int
    memory_usable_bytes: int
    utilization: float | None
    failed: tuple[str, ...]  # rule names: memory, precision, latency, rate, budget, ...
    why: str
    shortfall: float  # how far over the tightest broken limit (1.25 = 25% over); inf = never

    @property
    def hours(self) -> float | None:
        return None if self.seconds is None else self.seconds / 3600

    @property
    def key(self) -> tuple[str, str, int]:
        return (self.provider, self.offer_id, self.gpus)

    def to_json(self) -> dict[str, Any]:
        return {
            **_shape_json(self),
            "price_per_gpu_hour": to_display(self.price_micro, 4),
            "currency": self.currency,
            "hours": None if self.seconds is None else round(self.seconds / 3600, 2),
            "cost": None if self.cost_micro is None else to_display(self.cost_micro),
            "memory_per_gpu_gb": round(self.memory_per_gpu_bytes / GIB, 1),
            "utilization": None if self.utilization is None else round(self.utilization, 3),
            "why": self.why,
        }


def _shape_json(item: PlanOption | RejectedOption) -> dict[str, Any]:
    return {
        "gpu": item.gpu,
        "gpus": item.gpus,
        "nodes": item.nodes,
        "gpus_per_node": item.gpus_per_node,
        "fabric": item.fabric,
        "provider": item.provider,
        "region": item.region,
    }


class LazyList(Sequence[T]):
    """A ranked list whose items are built on first access (plans can hold thousands)."""

    def __init__(self, length: int, build: Callable[[int], T]) -> None:
        self._length = length
        self._build = build
        self._cache: dict[int, T] = {}

    def __len__(self) -> int:
        return self._length

    @overload
    def __getitem__(self, index: int) -> T: ...

    @overload
    def __getitem__(self, index: slice) -> list[T]: ...

    def __getitem__(self, index: int | slice) -> T | list[T]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self._length))]
        if index < 0:
            index += self._length
        if not 0 <= index < self._length:
            raise IndexError("plan option index out of range")
        item = self._cache.get(index)
        if item is None:
            item = self._build(index)
            self._cache[index] = item
        return item

    def __iter__(self) -> Iterator[T]:
        for i in range(self._length):
            yield self[i]


def pareto_front(options: Iterable[PlanOption]) -> list[PlanOption]:
    """Options no other option beats on both cost and time, cheapest first.

    An option stays when every cheaper (or equally cheap) option is slower.
    """
    ordered = sorted(options, key=lambda o: (o.cost_micro, o.seconds))
    front: list[PlanOption] = []
    for option in ordered:
        if not front or option.seconds < front[-1].seconds:
            front.append(option)
    return front


class PlanResult:
    """Ranked options (cheapest first, or fastest first when asked), and the rejected shapes.

    ``options`` and ``rejected`` are sequences built lazily; ``unmatched`` says why
    nothing was considered at all (the filters left no offer), else None.
    """

    def __init__(
        self,
        request: PlanRequest,
        options: Sequence[PlanOption],
        rejected: Sequence[RejectedOption],
        *,
        considered: int,
        unmatched: str | None = None,
        unmatched_said: Said | None = None,
        option_costs: npt.NDArray[np.float64] | None = None,
        option_seconds: npt.NDArray[np.float64] | None = None,
    ) -> None:
        self.request = request
        self.options = options
        self.rejected = rejected
        self.considered = considered
        self.unmatched = unmatched
        self.unmatched_said = unmatched_said  # the same, as said (worded in any language)
        self._costs = option_costs
        self._seconds = option_seconds

    @property
    def best(self) -> PlanOption | None:
        return self.options[0] if self.options else None

    def pareto_front(self) -> list[PlanOption]:
        """Cost-vs-time Pareto front of the options, cheapest first (for "compare")."""
        if self._costs is None or self._seconds is None:
            return pareto_front(self.options)
        order = np.lexsort((self._seconds, self._costs))
        best = np.minimum.accumulate(self._seconds[order])
        previous = np.concatenate(([np.inf], best[:-1]))
        keep = order[self._seconds[order] < previous]
        return [self.options[int(i)] for i in keep]

    def to_json(
        self, *, max_options: int | None = None, max_rejected: int | None = None
    ) -> dict[str, Any]:
        """``{"request", "options", "rejected"}``; the lists cut to the limits when given."""
        options = self.options[: len(self.options) if max_options is None else max_options]
        rejected = self.rejected[: len(self.rejected) if max_rejected is None else max_rejected]
        return {
            "request": self.request.to_json(),
            "options": [o.to_json() for o in options],
            "rejected": [r.to_json() for r in rejected],
        }
