"""The ``sim`` provider: an HTTP client of the simulated cloud's control plane."""

from __future__ import annotations

import ssl
from collections.abc import Callable
from typing import Any

import httpx

from xyclaw.catalog import Offer
from xyclaw.errors import CapacityError, ProviderError
from xyclaw.providers.base import (
    Capabilities,
    ClusterInfo,
    ClusterOrder,
    LedgerEntry,
    NodeInfo,
)
from xyclaw.providers.http_retry import (
    RetryPolicy,
    error_from_response,
    request_with_retries,
)
from xyclaw.wording import Said
from xyclaw.wording.catalogue import CATALOGUE

REGIONS = ("Xiamen", "Yinchuan", "Ulanqab")


def _error(raw: dict[str, Any]) -> Said | str | None:
    """What the simulated cloud says went wrong: its Said (one of the simulated cloud's own
    entries, so the view words it in the user's language) where it sent one, else its text."""
    kept = Said.from_json(raw.get("error_said"))
    if kept is not None and kept.key.startswith("provider.sim.") and kept.key in CATALOGUE:
        return kept
    error = raw.get("error")
    return None if error is None else str(error)


def _node(raw: dict[str, Any]) -> NodeInfo:
    ssh = raw.get("ssh") or {}
    return NodeInfo(
        external_id=str(raw["id"]),
        rank=int(raw["rank"]),
        hostname=str(raw.get("hostname") or raw["id"]),
        state=str(raw["state"]),
        ssh_host=ssh.get("host"),
        ssh_port=ssh.get("port"),
        ssh_user=ssh.get("user"),
        host_key=ssh.get("host_key"),
        error=_error(raw),
    )


def cluster_from_json(raw: dict[str, Any]) -> ClusterInfo:
    try:
        return ClusterInfo(
            external_id=str(raw["id"]),
            name=str(raw.get("name") or raw["id"]),
            state=str(raw["state"]),
            gpu=str(raw["gpu"]),
            gpu_count=int(raw["gpu_count"]),
            gpus_per_node=int(raw["gpus_per_node"]),
            fabric=str(raw["fabric"]),
            region=raw.get("region"),
            price_per_gpu_hour_micros=int(raw["price_per_gpu_hour_micros"]),
            currency=str(raw.get("currency", "CNY")),
            nodes=tuple(_node(n) for n in raw.get("nodes", [])),
            created_at=raw.get("created_at"),
            running_at=raw.get("running_at"),
            terminated_at=raw.get("terminated_at"),
            error=_error(raw),
            idempotency_key=raw.get("idempotency_key"),
            extra={
                "terminate_at": raw.get("terminate_at"),
                "ended_by": raw.get("ended_by"),
                "spot": bool(raw.get("spot", False)),
                "preempt_at": raw.get("preempt_at"),
            },
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise ProviderError(
            f"the simulated cloud sent a cluster record XyClaw cannot read ({exc!r})",
            hint="the cloud and the app may be different versions: run `xyclaw sim stop`",
        ) from exc


def _plain_http_transport() -> httpx.HTTPTransport:
    """httpx's own transport for a plain-HTTP endpoint (the simulated cloud on loopback): the
    same settings, but its TLS context loads no CA bundle, since no TLS is ever spoken
    (reading certifi's certificates costs every new client 30-50 ms: a tenth of `xyclaw
    clusters`). A context with no CA refuses every TLS peer, should one ever answer. Being
    given, the transport also keeps HTTP_PROXY and the like from routing loopback calls to a
    proxy."""
    return httpx.HTTPTransport(verify=ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT))


class SimProvider:
    """Rents from the built-in simulated cloud over HTTP."""

    kind = "sim"
    # One node added to a running cluster, on its fabric, at its offer's price: a cluster
    # offer rents 2 nodes or more, but a replacement is one (issue 34).
    joins_clusters = True
    capabilities = Capabilities(
        rents=True,
        multi_node=True,
        stop_start=False,
        spot=True,  # issue 32: spot clusters, taken back with a notice
        regions=REGIONS,
        billing_ledger=True,
        scheduled_termination=True,
    )

    def __init__(
        self,
        base_url: str,
        token: str,
        *,
        name: str = "sim",
        timeout_s: float = 10.0,
        retry: RetryPolicy | None = None,
        transport: httpx.BaseTransport | None = None,
        sleep: Callable[[float], None] | None = None,
    ) -> None:
        self.name = name
        # How to stop the cloud, set by whoever started it for this process (None when it
        # ran already): the desktop stops it on quit when no simulated cluster is left.
        self.stop_cloud: Callable[[], object] | None = None
        base = base_url.rstrip("/")
        self._base = base[: -len("/v1")] if base.endswith("/v1") else base
        self._retry = retry or RetryPolicy()
        self._sleep = sleep
        if transport is None and self._base.startswith("http://"):
            transport = _plain_http_transport()
        self._client = httpx.Client(
            headers={"Authorization": f"Bearer {token}"},
            timeout=timeout_s,
            transport=transport,
        )

    def _call(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        extra = {"sleep": self._sleep} if self._sleep else {}
        return request_with_retries(
            self._client,
            method,
            f"{self._base}{path}",
            provider=self.name,
            policy=self._retry,
            **extra,
            **kwargs,
        )

    def _json(self, response: httpx.Response) -> dict[str, Any]:
        if response.status_code >= 400:
            error = error_from_response(response, self.name)
            if response.status_code == 422:
                raise CapacityError(error.message, hint=error.hint) from error
            raise error
        try:
            body = response.json()
        except ValueError as exc:
            raise ProviderError(
                f"the {self.name} provider answered with something that is not JSON"
            ) from exc
        if not isinstance(body, dict):
            raise ProviderError(f"the {self.name} provider answered with unexpected JSON")
        return body

    def offers(self) -> list[Offer]:
        body = self._json(self._call("GET", "/v1/offers"))
        result = []
        for raw in body.get("offers", []):
            result.append(
                Offer(
                    provider=self.name,
                    offer_id=str(raw["offer_id"]),
                    region=str(raw["region"]),
                    gpu=str(raw["gpu"]),
                    gpus_per_node=int(raw["gpus_per_node"]),
                    node_counts=tuple(int(n) for n in raw["node_counts"]),
                    fabric=str(raw["fabric"]),
                    price_micro=int(raw["price_per_gpu_hour_micros"]),
                    price_30d_micro=raw.get("price_30d_per_gpu_hour_micros"),
                    currency=str(raw.get("currency", "CNY")),
                    kind=str(raw.get("kind", "node")),
                    available_gpus=raw.get("available_gpus"),
                    spot_price_micro=raw.get("spot_price_per_gpu_hour_micros"),
                    spot_preemptions_per_day=raw.get("spot_preemptions_per_day"),
                )
            )
        return result

    def create(self, order: ClusterOrder) -> ClusterInfo:
        payload: dict[str, Any] = {
            "gpu": order.gpu,
            "gpu_count": order.gpu_count,
            "ssh_public_key": order.ssh_public_key,
        }
        for key in ("region", "fabric", "gpus_per_node", "image", "name", "terminate_at"):
            value = getattr(order, key)
            if value is not None:
                payload[key] = value
        if order.spot:
            payload["spot"] = True
        if order.joins is not None:
            payload["joins"] = order.joins
        response = self._call(
            "POST",
            "/v1/clusters",
            json=payload,
            headers={"Idempotency-Key": order.idempotency_key},
        )
        return cluster_from_json(self._json(response)["cluster"])

    def get(self, external_id: str) -> ClusterInfo | None:
        response = self._call("GET", f"/v1/clusters/{external_id}")
        if response.status_code == 404:
            return None
        return cluster_from_json(self._json(response)["cluster"])

    def clusters(self) -> list[ClusterInfo]:
        body = self._json(self._call("GET", "/v1/clusters"))
        return [cluster_from_json(raw) for raw in body.get("clusters", [])]

    def terminate(self, external_id: str) -> ClusterInfo:
        response = self._call("DELETE", f"/v1/clusters/{external_id}")
        return cluster_from_json(self._json(response)["cluster"])

    def set_terminate_at(self, external_id: str, at: float | None) -> ClusterInfo:
        """Move the cloud's own termination deadline (None: drop it)."""
        response = self._call("PATCH", f"/v1/clusters/{external_id}", json={"terminate_at": at})
        return cluster_from_json(self._json(response)["cluster"])

    def billing(self) -> list[LedgerEntry]:
        body = self._json(self._call("GET", "/v1/billing"))
        currency = str(body.get("currency", "CNY"))
        return [
            LedgerEntry(
                cluster_external_id=str(e["cluster_id"]),
                node_external_id=e.get("node_id"),
                start=float(e["start"]),
                end=e.get("end"),
                seconds=int(e["seconds"]),
                amount_micros=int(e["amount_micros"]),
                currency=currency,
            )
            for e in body.get("entries", [])
        ]

    def fault(self, **settings: Any) -> dict[str, Any]:
        """Set the simulated cloud's injected faults (tests and demos)."""
        return self._json(self._call("POST", "/v1/_faults", json=settings))

    def close(self) -> None:
        self._client.close()
