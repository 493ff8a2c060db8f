"""A provider that is one function: for unit tests and demos that need no cloud at all.

Like httpx's ``MockTransport``, every call becomes a :class:`ProviderCall` handed to
one handler, which answers it (or raises a XyclawError, as a real cloud's adapter
would). :func:`memory_cloud` is a ready handler that keeps clusters in a dict.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from xyclaw.catalog import Offer
from xyclaw.errors import CapacityError
from xyclaw.providers.base import (
    RUNNING,
    TERMINATED,
    Capabilities,
    ClusterInfo,
    ClusterOrder,
    LedgerEntry,
    NodeInfo,
)
from xyclaw.wording import said


@dataclass(frozen=True)
class ProviderCall:
    op: str  # offers | create | get | clusters | terminate | billing
    args: dict[str, Any] = field(default_factory=dict)


Handler = Callable[[ProviderCall], Any]


class MemoryProvider:
    kind = "memory"

    def __init__(
        self,
        handler: Handler,
        *,
        name: str = "memory",
        capabilities: Capabilities | None = None,
    ) -> None:
        self.name = name
        self.capabilities = capabilities or Capabilities(rents=True, multi_node=True)
        self._handle = handler

    def offers(self) -> list[Offer]:
        return list(self._handle(ProviderCall("offers")))

    def create(self, order: ClusterOrder) -> ClusterInfo:
        info: ClusterInfo = self._handle(ProviderCall("create", {"order": order}))
        return info

    def get(self, external_id: str) -> ClusterInfo | None:
        info: ClusterInfo | None = self._handle(ProviderCall("get", {"id": external_id}))
        return info

    def clusters(self) -> list[ClusterInfo]:
        return list(self._handle(ProviderCall("clusters")))

    def terminate(self, external_id: str) -> ClusterInfo:
        info: ClusterInfo = self._handle(ProviderCall("terminate", {"id": external_id}))
        return info

    def billing(self) -> list[LedgerEntry]:
        return list(self._handle(ProviderCall("billing")))

    def close(self) -> None:
        return None


class MemoryCloud:
    """A handler with state: clusters come up running at once; ``offers`` can be changed."""

    def __init__(
        self, offers: Iterable[Offer], *, provider: str = "memory", clock: Any = time.time
    ) -> None:
        self.offers = [replace(o, provider=provider) for o in offers]
        self.clusters: dict[str, ClusterInfo] = {}
        self.calls: list[ProviderCall] = []
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._clock = clock

    def __call__(self, call: ProviderCall) -> Any:
        with self._lock:
            self.calls.append(call)
            if call.op == "offers":
                return list(self.offers)
            if call.op == "create":
                return self._create(call.args["order"])
            if call.op == "get":
                return self.clusters.get(call.args["id"])
            if call.op == "clusters":
                return list(self.clusters.values())
            if call.op == "terminate":
                info = replace(
                    self.clusters[call.args["id"]], state=TERMINATED, terminated_at=self._clock()
                )
                self.clusters[info.external_id] = info
                return info
            if call.op == "billing":
                return []
            raise ValueError(f"unknown provider call {call.op!r}")

    def _create(self, order: ClusterOrder) -> ClusterInfo:
        for info in self.clusters.values():
            if info.idempotency_key == order.idempotency_key:
                return info
        offer = next((o for o in self.offers if o.gpu == order.gpu), None)
        if offer is None:
            raise CapacityError(
                said("error.memory.no_gpu", gpu=order.gpu), hint=said("error.memory.no_gpu_hint")
            )
        per_node = order.gpus_per_node or offer.gpus_per_node
        cid = f"mem-{next(self._ids)}"
        now = self._clock()
        nodes = tuple(
            NodeInfo(external_id=f"{cid}-n{r}", rank=r, hostname=f"{cid}-{r}", state=RUNNING)
            for r in range(max(1, order.gpu_count // per_node))
        )
        info = ClusterInfo(
            external_id=cid,
            name=order.name or cid,
            state=RUNNING,
            gpu=order.gpu,
            gpu_count=order.gpu_count,
            gpus_per_node=per_node,
            fabric=order.fabric or offer.fabric,
            region=order.region or offer.region,
            price_per_gpu_hour_micros=offer.price_micro,
            currency=offer.currency,
            nodes=nodes,
            created_at=now,
            running_at=now,
            idempotency_key=order.idempotency_key,
        )
        self.clusters[cid] = info
        return info
