"""What the real cloud adapters (Lambda Cloud, AutoDL) share: refusals, paced creates, JSON.

Neither Lambda's nor AutoDL's API takes an idempotency key, so a create is made
safe to repeat here: each attempt first looks for the instance by the name
XyClaw gave it, and only then sends the create once. A create that timed out,
or that the cloud answered with 429 or 5xx, is tried again the same way, so a
retry never rents a second machine.
"""

from __future__ import annotations

import hashlib
import json
import logging
import random
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any, TypeVar

import httpx

from xyclaw.errors import CapacityError, ProviderError
from xyclaw.files import write_private
from xyclaw.providers.http_retry import RETRY_STATUSES, RetryPolicy
from xyclaw.records.provider_view import TERMINATED, ClusterInfo, NodeInfo
from xyclaw.wording import Said, said

log = logging.getLogger(__name__)

T = TypeVar("T")

#: Names of instances XyClaw rents start with this, so it never touches anyone else's.
NAME_PREFIX = "xyclaw-"


class QuotaError(CapacityError):
    """The account's quota or balance does not allow this rental (nothing was created)."""


class UnsupportedRequestError(CapacityError):
    """The provider cannot rent this shape at all (nothing was created); says why."""


def instance_name(idempotency_key: str, max_length: int) -> str:
    """The name a rental carries at the provider: the idempotency key, owned by XyClaw."""
    name = (
        idempotency_key
        if idempotency_key.startswith(NAME_PREFIX)
        else NAME_PREFIX + idempotency_key
    )
    if len(name) <= max_length:
        return name
    digest = hashlib.sha256(idempotency_key.encode()).hexdigest()
    return (NAME_PREFIX + digest)[:max_length]


def key_from_name(name: str | None) -> str | None:
    """The idempotency key back from an instance's name; None for instances not XyClaw's."""
    if name and name.startswith(NAME_PREFIX):
        return name
    return None


def retry_after_s(response: httpx.Response) -> float | None:
    value = response.headers.get("Retry-After")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        return None


def backoff_s(policy: RetryPolicy, attempt: int) -> float:
    """Full-jitter exponential backoff, as :mod:`xyclaw.providers.http_retry` uses."""
    ceiling = min(policy.max_delay_s, policy.base_delay_s * 2 ** (attempt - 1))
    return random.uniform(0, ceiling)


class Pacer:
    """Keeps calls at least ``interval_s`` apart (Lambda allows a launch every few seconds)."""

    def __init__(
        self,
        interval_s: float,
        *,
        sleep: Callable[[float], None] = time.sleep,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.interval_s = interval_s
        self._sleep = sleep
        self._monotonic = monotonic
        self._lock = threading.Lock()
        self._last: float | None = None

    def wait(self) -> float:
        """Block until the next call may go; returns the seconds waited."""
        with self._lock:
            now = self._monotonic()
            waited = 0.0
            if self._last is not None:
                waited = max(0.0, self._last + self.interval_s - now)
                if waited > 0:
                    self._sleep(waited)
            self._last = self._monotonic()
            return waited

    def push_back(self, seconds: float) -> None:
        """The cloud said to wait (Retry-After): the next call waits at least that long."""
        with self._lock:
            self._last = self._monotonic() + max(0.0, seconds) - self.interval_s


def create_once_per_name(
    *,
    provider: str,
    find: Callable[[], T | None],
    send: Callable[[], httpx.Response],
    accept: Callable[[httpx.Response], T],
    policy: RetryPolicy,
    pacer: Pacer | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> T:
    """Create something at most once: look it up by name before every attempt, then send.

    ``find`` returns what an earlier attempt (or an earlier process) created, if anything;
    ``send`` posts the create once; ``accept`` turns a final answer into the result or raises
    the translated error. Timeouts, 429 and 5xx are retried within ``policy``.
    """
    started = time.monotonic()
    problem: Said | str = ""
    for attempt in range(1, policy.attempts + 1):
        existing = find()
        if existing is not None:
            return existing
        if pacer is not None:
            pacer.wait()
        wait: float | None = None
        try:
            response = send()
        except httpx.TimeoutException as exc:
            problem = said("provider.problem.timed_out_created", error=type(exc).__name__)
        except httpx.TransportError as exc:
            problem = said("provider.problem.unreachable", error=type(exc).__name__)
        else:
            if response.status_code not in RETRY_STATUSES:
                return accept(response)
            problem = said("provider.problem.http", status=response.status_code)
            wait = retry_after_s(response)
            if response.status_code == 429 and pacer is not None:
                pacer.push_back(wait if wait is not None else pacer.interval_s)
                wait = 0.0  # the pacer waits before the next send
        if attempt == policy.attempts:
            break
        if wait is None:
            wait = backoff_s(policy, attempt)
        if time.monotonic() - started + wait > policy.deadline_s:
            break
        log.info(
            "%s create %s; looking again and retrying (%d) in %.2fs",
            provider,
            problem,
            attempt,
            wait,
        )
        if wait > 0:
            sleep(wait)
    # The last attempt may have created it after all.
    existing = find()
    if existing is not None:
        return existing
    raise ProviderError(
        said("provider.create.gave_up", provider=provider, problem=problem, attempts=attempt),
        hint=said("provider.create.gave_up_hint"),
    )


def json_object(response: httpx.Response, provider: str) -> dict[str, Any]:
    """The response's JSON object, or a ProviderError that says the answer was unreadable."""
    try:
        body = response.json()
    except ValueError as exc:
        raise ProviderError(
            said("provider.json.not_json", provider=provider, status=response.status_code),
            hint=said("provider.json.not_json_hint"),
        ) from exc
    if not isinstance(body, dict):
        raise ProviderError(said("provider.json.not_object", provider=provider))
    return body


def unreadable(provider: str, what: Said, exc: Exception) -> ProviderError:
    """A record from the provider that lacks what XyClaw needs (its API may have changed);
    ``what`` names the record (a ``provider.what.*`` wording), the exception stays as data."""
    return ProviderError(
        said(
            "provider.unreadable",
            provider=provider,
            what=what,
            error=f"{type(exc).__name__}: {exc}",
        ),
        hint=said("provider.unreadable_hint"),
    )


class LastViews:
    """The last view of each instance (no keys), kept in a small private file: a release
    confirmed after the provider forgot the instance (or by another process than the one
    that saw it) is still recorded with its price and shape.

    ``currency`` is for views written before they carried one; ``with_nodes``: whether an
    ended instance is reported with its nodes (an instance is a machine, a RunPod cluster
    its pods) or with none (an AutoDL deployment's containers are not remembered)."""

    def __init__(
        self, path: Path | None, limit: int = 500, *, currency: str = "USD", with_nodes: bool = True
    ) -> None:
        self._path = path
        self._limit = limit
        self._currency = currency
        self._with_nodes = with_nodes
        self._lock = threading.Lock()
        self._views: dict[str, dict[str, Any]] = self._load()

    def _load(self) -> dict[str, dict[str, Any]]:
        if self._path is None:
            return {}
        try:
            data = json.loads(self._path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError):
            log.warning("%s is damaged; starting without remembered instances", self._path)
            return {}
        return data if isinstance(data, dict) else {}

    def remember(self, info: ClusterInfo) -> None:
        view = {
            "name": info.name,
            "gpu": info.gpu,
            "gpus": info.gpu_count,
            "region": info.region,
            "price": info.price_per_gpu_hour_micros,
            "currency": info.currency,
            "state": info.state,
        }
        if len(info.nodes) > 1:
            # several nodes (a RunPod Instant Cluster): its shape, and the nodes to look for
            # until each is gone
            view.update(
                per_node=info.gpus_per_node,
                fabric=info.fabric,
                nodes=[n.external_id for n in info.nodes],
            )
        seen = time.time()
        with self._lock:
            old = self._views.get(info.external_id)
            if old is not None and all(old.get(k) == v for k, v in view.items()):
                old["seen"] = seen  # nothing new to write: only the eviction order moves
                return
            self._views[info.external_id] = {**view, "seen": seen}
            if len(self._views) > self._limit:
                oldest = sorted(self._views, key=lambda k: self._views[k].get("seen", 0))
                for key in oldest[: len(self._views) - self._limit]:
                    del self._views[key]
            if self._path is not None:
                write_private(self._path, json.dumps(self._views))

    def state_of(self, external_id: str) -> str | None:
        """The state the instance was last seen in (None: never seen)."""
        with self._lock:
            view = self._views.get(external_id)
        return None if view is None else str(view.get("state"))

    def nodes_of(self, external_id: str) -> list[str]:
        """The node ids last seen in a cluster of several nodes (empty: none remembered)."""
        with self._lock:
            view = self._views.get(external_id) or {}
        return [str(n) for n in view.get("nodes") or ()]

    def ended(self, external_id: str) -> ClusterInfo | None:
        """The last view of an instance the provider no longer has, marked terminated."""
        with self._lock:
            view = self._views.get(external_id)
        if view is None:
            return None
        info = ClusterInfo(
            external_id=external_id,
            name=str(view["name"]),
            state=TERMINATED,
            gpu=str(view["gpu"]),
            gpu_count=int(view["gpus"]),
            gpus_per_node=int(view.get("per_node") or view["gpus"]),
            fabric=str(view.get("fabric") or "none"),
            region=view.get("region"),
            price_per_gpu_hour_micros=int(view["price"]),
            currency=str(view.get("currency") or self._currency),
            idempotency_key=key_from_name(str(view["name"])),
        )
        if not self._with_nodes:
            return replace(info, nodes=())
        ids = [str(n) for n in view.get("nodes") or ()] or [external_id]
        nodes = tuple(
            NodeInfo(
                external_id=node_id,
                rank=rank,
                hostname=info.name if len(ids) == 1 else f"{info.name}-{rank}",
                state=TERMINATED,
            )
            for rank, node_id in enumerate(ids)
        )
        return replace(info, nodes=nodes)


__all__ = [
    "NAME_PREFIX",
    "LastViews",
    "Pacer",
    "QuotaError",
    "UnsupportedRequestError",
    "backoff_s",
    "create_once_per_name",
    "instance_name",
    "json_object",
    "key_from_name",
    "retry_after_s",
    "unreadable",
]
