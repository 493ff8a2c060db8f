"""The ``runpod`` provider: RunPod pods over its REST API, GPU prices over GraphQL.

Shapes: REST v1 ``https://rest.runpod.io/v1`` (``Authorization: Bearer <key>``):
``POST /pods`` with ``name``, ``imageName``, ``gpuTypeIds``, ``gpuCount``, ``cloudType``
(SECURE | COMMUNITY), ``containerDiskInGb``, ``ports`` ["22/tcp"], ``env``,
``interruptible``, ``supportPublicIp``, ``dataCenterIds``, ``dockerStartCmd``;
``GET /pods``, ``GET /pods/{id}``, ``DELETE /pods/{id}`` (docs.runpod.io
api-reference/pods, cited in ../shared/docs/anchors-wave3.md section 2; the pod's SSH
is ``publicIp`` with ``portMappings["22"]``). REST has no price list, so offers come
from GraphQL ``gpuTypes`` as runpod/runpod-python 1.12.0 asks it
(``runpod/api/queries/gpus.py``: ``securePrice``, ``communityPrice``,
``lowestPrice(input: {gpuCount}) { uninterruptablePrice }``; GraphQL errors arrive as
HTTP 200 with ``errors``); its REST error envelope (``detail`` / ``title`` /
``errors``) is read as ``runpod/api/rest.py`` reads it.

One pod is one cluster. RunPod has no idempotency key: the pod's ``name`` carries the
intent's key and a create first lists pods for it, so a crash between the rent and the
record leaks nothing. The basic SSH proxy needs a PTY and has no SCP/SFTP, so pods are
rented with a public IP and 22/tcp exposed, and sshd started with only the cluster's key.
A listing XyClaw cannot read raises :class:`ProviderStateUnknownError`: a pod is never
taken for terminated because the API (or the network) answered oddly (dstack #1551).

What RunPod charged each pod comes from REST ``GET /billing/pods`` with ``startTime``,
``endTime`` (ISO 8601), ``bucketSize`` ``day`` and ``grouping`` ``podId``: a JSON list of
records ``{amount (USD, after discounts), diskSpaceBilledGb, podId, time, timeBilledMs}``
(shapes as the ``runpod-sdk`` Rust crate's ``model/v1/billing.rs`` ``BillingRecord`` and
``PodBillingQuery`` carry them); it is compared with the meter, never used as the meter.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

from xyclaw.catalog import Offer, normalise_gpu_name
from xyclaw.errors import CapacityError, ProviderError, ProviderStateUnknownError
from xyclaw.providers.base import (
    FAILED,
    PROVISIONING,
    RUNNING,
    TERMINATED,
    Capabilities,
    ClusterInfo,
    ClusterOrder,
    Feature,
    LedgerEntry,
    NodeInfo,
)
from xyclaw.providers.cloud_api import (
    LastViews,
    UnsupportedRequestError,
    create_once_per_name,
    instance_name,
    json_object,
    key_from_name,
    unreadable,
)
from xyclaw.providers.endpoints import RUNPOD_GRAPHQL_URL, RUNPOD_REST_URL
from xyclaw.providers.http_retry import ApiError, RetryPolicy, request_with_retries
from xyclaw.providers.vastai import start_script

log = logging.getLogger(__name__)

CURRENCY = "USD"
MAX_NAME_LENGTH = 60
DEFAULT_IMAGE = "runpod/pytorch:2.4.0-py3.11-cuda12.4.1-devel-ubuntu22.04"
CONTAINER_DISK_GB = 40
SSH_USER = "root"
GPU_COUNTS = (1, 2, 4, 8)
CLOUDS = {"SECURE": "secure cloud", "COMMUNITY": "community cloud"}

KEY_HINT = (
    "create a key at https://www.runpod.io/console/user/settings (API Keys) and store it "
    "with `xyclaw secrets set runpod_api_key`"
)

GPU_TYPES_QUERY = """
query GpuTypes {
  gpuTypes {
    id
    displayName
    memoryInGb
    maxGpuCount
    secureCloud
    communityCloud
    securePrice
    communityPrice
    lowestPrice(input: {gpuCount: 1}) {
      uninterruptablePrice
      stockStatus
    }
  }
}
"""

WHY_NOT: dict[str, str] = {
    Feature.MULTI_NODE: "RunPod pods are single machines; multi-node needs RunPod Instant "
    "Clusters (GraphQL createCluster), which XyClaw does not rent yet",
    Feature.FABRIC: "single RunPod pods share no fabric (Instant Clusters have one; "
    "XyClaw does not rent them yet)",
    Feature.STOP_START: "XyClaw releases a RunPod pod by terminating it: a stopped pod "
    "keeps billing its volume, and its GPU may be gone when it starts again",
    Feature.SPOT: "RunPod interruptible pods are bids (GraphQL podRentInterruptable); "
    "XyClaw rents on demand only",
    Feature.BILLING_LEDGER: "XyClaw meters a RunPod pod from the price RunPod reports for it "
    "after renting it (adjustedCostPerHr); RunPod's billing history is read to compare, "
    "not to meter",
    Feature.HOST_KEYS: "RunPod does not hand over host keys: the first SSH connection "
    "trusts the key it sees",
    Feature.HOST_SYSTEM: "RunPod pods are Docker containers: no systemd and no sysctl "
    "(XyClaw's bootstrap and NCCL tuning use neither; a step that needs them must ask for "
    "this capability)",
}


CHARGE_DAYS = 90  # how far back `xyclaw billing` asks for RunPod's charges


def _iso(ts: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(ts))


def json_object_or_list(response: httpx.Response, provider: str) -> Any:
    """The JSON body (a list or an object); unreadable text is a ProviderError."""
    try:
        return response.json()
    except ValueError as exc:
        raise unreadable(provider, "an answer", exc) from exc


def _money(value: Any) -> float | None:
    try:
        return None if value is None else float(value)
    except (TypeError, ValueError):
        return None


class RunPodProvider:
    """Rents RunPod pods (secure or community cloud); one pod is one cluster."""

    kind = "runpod"
    #: Hosts are run by strangers: each cluster gets an SSH key of its own, not the app's.
    untrusted_hosts = True
    capabilities = Capabilities(
        rents=True,
        multi_node=False,
        stop_start=False,
        spot=False,
        billing_ledger=True,  # /billing/pods: compared with the meter
        why_not=WHY_NOT,
    )

    def __init__(
        self,
        api_key: str,
        *,
        name: str = "runpod",
        rest_url: str = RUNPOD_REST_URL,
        graphql_url: str = RUNPOD_GRAPHQL_URL,
        timeout_s: float = 30.0,
        retry: RetryPolicy | None = None,
        sleep: Callable[[float], None] = time.sleep,
        secure_only: bool = False,
        state_file: Path | None = None,
    ) -> None:
        """``secure_only`` leaves community-cloud offers out; ``state_file`` keeps the last
        view of each pod, so a release finished by another process knows its price."""
        if not api_key:
            raise ProviderError("no RunPod API key", hint=KEY_HINT)
        self.name = name
        self._rest = rest_url.rstrip("/")
        self._graphql = graphql_url
        self._retry = retry or RetryPolicy(attempts=6, base_delay_s=1.0, max_delay_s=15.0)
        self._sleep = sleep
        self._secure_only = secure_only
        self.filtered: list[tuple[str, str]] = []
        self._views = LastViews(state_file)
        self._client = httpx.Client(
            headers={"Authorization": f"Bearer {api_key}", "Accept": "application/json"},
            timeout=timeout_s,
        )

    # -- HTTP ------------------------------------------------------------------------------
    def _call(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        return request_with_retries(
            self._client,
            method,
            f"{self._rest}{path}",
            provider=self.name,
            policy=self._retry,
            sleep=self._sleep,
            **kwargs,
        )

    def _error(self, response: httpx.Response) -> ProviderError:
        try:
            body = response.json()
        except ValueError:
            body = {}
        if not isinstance(body, dict):
            body = {}
        message = str(
            body.get("detail")
            or body.get("error")
            or body.get("title")
            or response.text[:200]
            or response.reason_phrase
        )
        if response.status_code in (401, 403):
            return ApiError(
                f"RunPod did not accept the API key ({message})",
                status=response.status_code,
                code="unauthorized",
                hint=KEY_HINT,
            )
        lowered = message.lower()
        if "no longer any instances available" in lowered or "not enough" in lowered:
            return CapacityError(
                f"RunPod refused: {message}",
                hint="try the other cloud (secure or community) or another GPU",
            )
        return ApiError(
            f"RunPod refused: {message}",
            status=response.status_code,
            code=f"http/{response.status_code}",
        )

    def _unknown(self, what: str) -> ProviderStateUnknownError:
        return ProviderStateUnknownError(
            f"RunPod answered the pod listing {what}: the state of its pods is unknown, so "
            "XyClaw keeps them as last seen and keeps metering them",
            hint="XyClaw asks again every minute; check https://www.runpod.io/console/pods "
            "and update XyClaw if its API changed",
        )

    def _listing(self, response: httpx.Response) -> Any:
        if response.status_code in (401, 403):
            raise self._error(response)
        if response.status_code >= 400:
            raise self._unknown(f"with HTTP {response.status_code}")
        try:
            body = response.json()
        except ValueError:
            raise self._unknown("with something that is not JSON") from None
        if isinstance(body, dict) and body.get("success") is False:
            raise self._unknown("with success: false")
        return body

    def graphql(self, query: str) -> dict[str, Any]:
        """A GraphQL query; its ``errors`` (HTTP 200) become a ProviderError."""
        response = request_with_retries(
            self._client,
            "POST",
            self._graphql,
            provider=self.name,
            policy=self._retry,
            sleep=self._sleep,
            json={"query": query},
        )
        if response.status_code >= 400:
            raise self._error(response)
        body = json_object(response, self.name)
        errors = body.get("errors")
        if errors:
            first = errors[0] if isinstance(errors, list) and errors else errors
            message = first.get("message") if isinstance(first, dict) else str(first)
            if "unauthorized" in str(message).lower() or "api key" in str(message).lower():
                raise ApiError(
                    f"RunPod did not accept the API key ({message})",
                    status=response.status_code,
                    code="unauthorized",
                    hint=KEY_HINT,
                )
            raise ApiError(
                f"RunPod's GraphQL API refused: {message}",
                status=response.status_code,
                code="graphql",
            )
        data = body.get("data")
        if not isinstance(data, dict):
            raise unreadable(self.name, "a GraphQL answer", KeyError("data"))
        return data

    # -- offers ----------------------------------------------------------------------------
    def gpu_types(self) -> list[dict[str, Any]]:
        types = self.graphql(GPU_TYPES_QUERY).get("gpuTypes")
        if not isinstance(types, list):
            raise unreadable(self.name, "GPU types", KeyError("gpuTypes"))
        return [t for t in types if isinstance(t, dict)]

    def offers(self) -> list[Offer]:
        result: list[Offer] = []
        filtered: list[tuple[str, str]] = []
        for raw in self.gpu_types():
            try:
                type_id = str(raw["id"])
                gpu = str(raw.get("displayName") or type_id)
                most = int(raw.get("maxGpuCount") or 1)
            except (KeyError, TypeError, ValueError) as exc:
                raise unreadable(self.name, "a GPU type", exc) from exc
            lowest = raw.get("lowestPrice") or {}
            stock = lowest.get("stockStatus") if isinstance(lowest, dict) else None
            for cloud, label in CLOUDS.items():
                if cloud == "COMMUNITY" and self._secure_only:
                    continue
                offered = raw.get("secureCloud" if cloud == "SECURE" else "communityCloud")
                price = _money(raw.get("securePrice" if cloud == "SECURE" else "communityPrice"))
                if not offered or not price:
                    continue
                if not stock:
                    filtered.append((f"{type_id}@{cloud}", "out of stock"))
                    continue
                for count in (c for c in GPU_COUNTS if c <= most):
                    result.append(
                        Offer(
                            provider=self.name,
                            offer_id=f"{type_id}@{cloud}x{count}",
                            region=cloud.lower(),
                            gpu=gpu,
                            gpus_per_node=count,
                            node_counts=(1,),
                            fabric="none",
                            price_micro=round(price * 1_000_000),
                            currency=CURRENCY,
                            kind="node",
                            price_basis="live",
                            note=f"{label}, stock {str(stock).lower()}",
                            host=f"{label}, stock {str(stock).lower()}",
                            community=cloud == "COMMUNITY",
                        )
                    )
        self.filtered = filtered
        return result

    # -- clusters --------------------------------------------------------------------------
    def _type_for(self, order: ClusterOrder) -> tuple[str, str]:
        """(gpuTypeId, cloudType) for an order: the cheapest cloud with stock."""
        if order.gpus_per_node not in (None, order.gpu_count):
            raise UnsupportedRequestError(
                f"RunPod cannot rent {order.gpu_count} x {order.gpu} over several pods",
                hint=WHY_NOT[Feature.MULTI_NODE],
            )
        if order.fabric not in (None, "none"):
            raise UnsupportedRequestError(
                f"RunPod cannot rent a {order.fabric} fabric", hint=WHY_NOT[Feature.FABRIC]
            )
        wanted = normalise_gpu_name(order.gpu)
        region = (order.region or "").upper()
        best: tuple[float, str, str] | None = None
        for offer in self.offers():
            if offer.gpu != wanted or offer.gpus_per_node != order.gpu_count:
                continue
            type_id, _, rest = offer.offer_id.rpartition("@")
            cloud = rest.split("x")[0]
            if region and region != cloud:
                continue
            if best is None or offer.price_micro < best[0]:
                best = (offer.price_micro, type_id, cloud)
        if best is None:
            raise CapacityError(
                f"RunPod has no {order.gpu_count} x {wanted} in stock"
                + (f" in the {order.region}" if order.region else ""),
                hint="`xyclaw offers --provider runpod` lists what is in stock now",
            )
        return best[1], best[2]

    def create(self, order: ClusterOrder) -> ClusterInfo:
        name = instance_name(order.idempotency_key, MAX_NAME_LENGTH)
        existing = self._find_named(name)
        if existing is not None:
            return existing
        type_id, cloud = self._type_for(order)
        payload = {
            "name": name,
            "imageName": order.image or DEFAULT_IMAGE,
            "gpuTypeIds": [type_id],
            "gpuCount": order.gpu_count,
            "cloudType": cloud,
            "containerDiskInGb": CONTAINER_DISK_GB,
            "volumeInGb": 0,  # nothing that bills after release
            "ports": ["22/tcp"],
            "env": {},  # no secret the spec does not name
            "interruptible": False,
            "supportPublicIp": True,
            "dockerStartCmd": ["bash", "-c", start_script(order.ssh_public_key)],
        }

        def accept(response: httpx.Response) -> ClusterInfo:
            if response.status_code >= 400:
                raise self._error(response)
            body = json_object(response, self.name)
            if "id" not in body:
                raise unreadable(self.name, "a create answer", KeyError("id"))
            info = self.get(str(body["id"]))
            return info if info is not None else self._info(body)

        return create_once_per_name(
            provider=self.name,
            find=lambda: self._find_named(name),
            send=lambda: self._client.post(f"{self._rest}/pods", json=payload),
            accept=accept,
            policy=self._retry,
            sleep=self._sleep,
        )

    def pods(self) -> list[dict[str, Any]]:
        body = self._listing(self._call("GET", "/pods"))
        if not isinstance(body, list):
            raise self._unknown("without a list of pods (its shape changed)")
        for row in body:
            if not isinstance(row, dict) or "id" not in row or "desiredStatus" not in row:
                raise self._unknown("with a pod lacking id or desiredStatus")
        return body

    def _find_named(self, name: str) -> ClusterInfo | None:
        for raw in self.pods():
            if raw.get("name") == name and raw.get("desiredStatus") != "TERMINATED":
                return self._info(raw)
        return None

    def get(self, external_id: str) -> ClusterInfo | None:
        response = self._call("GET", f"/pods/{external_id}")
        if response.status_code == 404:
            return self._gone(external_id)
        body = self._listing(response)
        if not isinstance(body, dict) or "desiredStatus" not in body:
            raise self._unknown("for one pod in a shape XyClaw cannot read")
        return self._info(body)

    def clusters(self) -> list[ClusterInfo]:
        return [
            self._info(raw)
            for raw in self.pods()
            if key_from_name(raw.get("name")) is not None
            and raw.get("desiredStatus") != "TERMINATED"
        ]

    def terminate(self, external_id: str) -> ClusterInfo:
        """Terminate (never stop: a stopped pod bills its volume)."""
        response = self._call("DELETE", f"/pods/{external_id}")
        if response.status_code >= 400 and response.status_code != 404:
            raise self._error(response)
        gone = self._gone(external_id)
        if gone is None:
            raise ProviderError(
                f"RunPod terminated {external_id}, which XyClaw had never seen",
                hint="check `xyclaw clusters`",
            )
        return gone

    def billing(self) -> list[LedgerEntry]:
        """What RunPod charged each pod in the last ``CHARGE_DAYS`` days, per day."""
        now = time.time()
        params = {
            "startTime": _iso(now - CHARGE_DAYS * 86400),
            "endTime": _iso(now),
            "bucketSize": "day",
            "grouping": "podId",
        }
        response = self._call("GET", "/billing/pods", params=params)
        if response.status_code >= 400:
            raise self._error(response)
        body = json_object_or_list(response, self.name)
        if not isinstance(body, list):
            raise unreadable(self.name, "the billing history", KeyError("records"))
        entries: list[LedgerEntry] = []
        for record in body:
            if not isinstance(record, dict) or not record.get("podId"):
                continue  # another grouping's line: not a pod's
            amount = _money(record.get("amount"))
            if amount is None:
                raise unreadable(self.name, "a billing record", KeyError("amount"))
            billed_ms = _money(record.get("timeBilledMs")) or 0.0
            pod = str(record["podId"])
            entries.append(
                LedgerEntry(
                    cluster_external_id=pod,
                    node_external_id=pod,
                    start=0.0,
                    end=None,
                    seconds=int(billed_ms // 1000),
                    amount_micros=round(amount * 1_000_000),
                    currency="USD",
                )
            )
        return entries

    def close(self) -> None:
        self._client.close()

    # -- records ---------------------------------------------------------------------------
    def _gone(self, external_id: str) -> ClusterInfo | None:
        return self._views.ended(external_id)

    def _info(self, raw: dict[str, Any]) -> ClusterInfo:
        try:
            pod_id = str(raw["id"])
            gpu_raw = raw.get("gpu") or {}
            count = int(gpu_raw.get("count") or raw.get("gpuCount") or 0)
            gpu = normalise_gpu_name(
                str(gpu_raw.get("displayName") or gpu_raw.get("id") or "unknown")
            )
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise unreadable(self.name, "a pod record", exc) from exc
        # What RunPod bills (its console's figure), not a list price (SkyPilot #4914).
        hourly = _money(raw.get("adjustedCostPerHr")) or _money(raw.get("costPerHr")) or 0.0
        price = round(hourly * 1_000_000 / max(1, count))
        status = str(raw.get("desiredStatus"))
        mapped = raw.get("portMappings") or {}
        port = mapped.get("22") if isinstance(mapped, dict) else None
        ip = raw.get("publicIp") or None
        error = None
        if status == "RUNNING":
            state = RUNNING if ip and port else PROVISIONING
        elif status == "EXITED":
            state, error = FAILED, "the pod exited; its disk bills until it is released"
        elif status == "TERMINATED":
            state = TERMINATED
        else:
            state = PROVISIONING
        machine = raw.get("machine") or {}
        region = (machine.get("dataCenterId") if isinstance(machine, dict) else None) or None
        cloud = str(raw.get("cloudType") or "")
        name = str(raw.get("name") or pod_id)
        node = NodeInfo(
            external_id=pod_id,
            rank=0,
            hostname=f"runpod-{pod_id}",
            state=state,
            ssh_host=str(ip) if state == RUNNING else None,
            ssh_port=int(port) if state == RUNNING and port else None,
            ssh_user=SSH_USER,
            error=error,
        )
        info = ClusterInfo(
            external_id=pod_id,
            name=name,
            state=state,
            gpu=gpu,
            gpu_count=count,
            gpus_per_node=count,
            fabric="none",
            region=region,
            price_per_gpu_hour_micros=price,
            currency=CURRENCY,
            nodes=(node,),
            error=error,
            idempotency_key=key_from_name(name),
            extra={"cloud": cloud.lower() or None, "community": cloud == "COMMUNITY"},
        )
        if state != TERMINATED and price > 0 and count > 0:
            self._views.remember(info)
        return info


__all__ = ["RUNPOD_GRAPHQL_URL", "RUNPOD_REST_URL", "RunPodProvider"]
