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

One pod is one single-node cluster. Several nodes are a RunPod Instant Cluster: GraphQL
``createCluster`` / ``deleteCluster`` as dstack asks them (dstackai/dstack
``src/dstack/_internal/core/backends/runpod/api_client.py`` and ``compute.py`` at commit
511c318c, 2026-08-21), listed through REST v2 ``GET /v2/clusters`` and
``GET /v2/clusters/{id}/pods`` (docs.runpod.io/api-reference-v2/clusters: "Returns all
clusters owned by the authenticated user"; "returns each member as a complete Pod
object"), the only listing of clusters RunPod documents. RunPod has no idempotency key:
the pod's (or cluster's) ``name`` carries the intent's key and a create first lists for
it, so a crash between the rent and the record leaks nothing. The basic SSH proxy needs
a PTY and has no SCP/SFTP, so pods are rented with a public IP and 22/tcp exposed, and
sshd started with only the cluster's key.
A listing XyClaw cannot read raises :class:`ProviderStateUnknownError`: a pod is never
taken for terminated because the API (or the network) answered oddly (dstack #1551).

What RunPod charged each pod comes from REST ``GET /billing/pods`` with ``startTime``,
``endTime`` (ISO 8601), ``bucketSize`` ``day`` and ``grouping`` ``podId``: a JSON list of
records ``{amount (USD, after discounts), diskSpaceBilledGb, podId, time, timeBilledMs}``
(shapes as the ``runpod-sdk`` Rust crate's ``model/v1/billing.rs`` ``BillingRecord`` and
``PodBillingQuery`` carry them); it is compared with the meter, never used as the meter.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

from xyclaw.catalog import Offer, normalise_gpu_name, parse_fabric
from xyclaw.catalog.fabrics import matches
from xyclaw.errors import CapacityError, ProviderError, ProviderStateUnknownError, XyclawError
from xyclaw.providers.base import (
    FAILED,
    PROVISIONING,
    RUNNING,
    TERMINATED,
    TERMINATING,
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
from xyclaw.providers.endpoints import (
    RUNPOD_CLUSTERS_URL,
    RUNPOD_GRAPHQL_URL,
    RUNPOD_REST_URL,
)
from xyclaw.providers.http_retry import ApiError, RetryPolicy, request_with_retries
from xyclaw.providers.vastai import start_script
from xyclaw.wording import Said, said

log = logging.getLogger(__name__)

CURRENCY = "USD"
MAX_NAME_LENGTH = 60
DEFAULT_IMAGE = "runpod/pytorch:2.4.0-py3.11-cuda12.4.1-devel-ubuntu22.04"
CONTAINER_DISK_GB = 40
SSH_USER = "root"
GPU_COUNTS = (1, 2, 4, 8)
CLOUDS = {"SECURE": "secure cloud", "COMMUNITY": "community cloud"}

KEY_HINT = said("provider.runpod.key_hint")

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

# -- Instant Clusters ---------------------------------------------------------------------
#: GPU types sold as clusters, as gpuhunt asks them for dstack (dstackai/gpuhunt
#: ``src/gpuhunt/providers/runpod.py`` at 35841515, 2026-08-19: ``query_pod_types`` with
#: ``gpuTypesInput: {cluster: true}`` and ``lowestPriceInput: {gpuCount: 8}``): the price
#: per GPU-hour is ``clusterPrice``, a pod has ``maxGpuCount`` GPUs, and the data centres
#: that have them are ``nodeGroupDatacenters``. "Runpod returns no CPU and memory if the
#: offer is out of stock", so a type without ``minVcpu``/``minMemory`` is left out.
CLUSTER_TYPES_QUERY = """
query ClusterGpuTypes {
  gpuTypes(input: {cluster: true}) {
    id
    displayName
    memoryInGb
    maxGpuCount
    clusterPrice
    nodeGroupDatacenters {
      id
    }
    lowestPrice(input: {gpuCount: 8}) {
      minVcpu
      minMemory
      stockStatus
    }
  }
}
"""
#: 2 to 8 pods: gpuhunt ("The API does not return supported pod counts but for now it's
#: always 2-8") and dstack PR #3214 ("multi-node tasks (2-8 nodes)").
POD_COUNTS = (2, 3, 4, 5, 6, 7, 8)
#: The network of an Instant Cluster as RunPod names it: "Fast local networking with
#: bandwidths from 100 Gbps to 3200 Gbps within a single data center", a private network
#: on eth1..eth8 beside the management eth0 (runpod/docs ``docs/instant-clusters/index.md``).
#: RunPod does not say RDMA and gives no rate per GPU type, so XyClaw plans with the
#: floor it promises (Ethernet, 100 Gb/s) and nccl-tests measure the rest; dstack found
#: NCCL bandwidth on them "suboptimal" (PR #3214).
CLUSTER_FABRIC = "eth-100"
_CLUSTER_NETWORK = said("provider.runpod.cluster_network")
CLUSTER_NETWORK = _CLUSTER_NETWORK.english
CLUSTER_PREFIX = "cluster:"  # the external id of an Instant Cluster (a bare id is a pod)
CLUSTER_NODE_PORT = "22/tcp"

WHY_NOT: dict[str, str | Said] = {
    Feature.STOP_START: said("provider.runpod.why_not.stop_start"),
    Feature.SPOT: said("provider.runpod.why_not.spot"),
    Feature.BILLING_LEDGER: said("provider.runpod.why_not.billing_ledger"),
    Feature.HOST_KEYS: said("provider.why_not.host_keys", provider="RunPod"),
    Feature.HOST_SYSTEM: said("provider.runpod.why_not.host_system"),
}


CHARGE_DAYS = 90  # how far back `xyclaw billing` asks for RunPod's charges


def _iso(ts: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(ts))


def json_object_or_list(response: httpx.Response, provider: str) -> Any:
    """The JSON body (a list or an object); unreadable text is a ProviderError."""
    try:
        return response.json()
    except ValueError as exc:
        raise unreadable(provider, said("provider.what.answer"), exc) from exc


def _not_read(exc: XyclawError) -> Said:
    """Why the Instant Clusters were left out of the offers: what went wrong reading them."""
    return said("provider.left_out.not_read", error=exc.said or exc.message)


def _money(value: Any) -> float | None:
    try:
        return None if value is None else float(value)
    except (TypeError, ValueError):
        return None


class RunPodProvider:
    """Rents RunPod pods (secure or community cloud) and Instant Clusters of 2-8 pods."""

    kind = "runpod"
    #: Hosts are run by strangers: each cluster gets an SSH key of its own, not the app's.
    untrusted_hosts = True
    capabilities = Capabilities(
        rents=True,
        multi_node=True,  # RunPod Instant Clusters (2 to 8 pods); single pods are one node
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
        clusters_url: str | None = None,
    ) -> None:
        """``secure_only`` leaves community-cloud offers out; ``state_file`` keeps the last
        view of each pod, so a release finished by another process knows its price.
        ``clusters_url`` is REST v2 (the clusters listing); by default RunPod's, or beside
        a ``rest_url`` that is not RunPod's (``.../v1`` -> ``.../v2``: a proxy, a fake)."""
        if not api_key:
            raise ProviderError(said("provider.runpod.no_key"), hint=KEY_HINT)
        self.name = name
        self._rest = rest_url.rstrip("/")
        self._graphql = graphql_url
        if clusters_url is None:
            clusters_url = (
                RUNPOD_CLUSTERS_URL
                if self._rest == RUNPOD_REST_URL
                else self._rest.removesuffix("/v1") + "/v2"
            )
        self._v2 = clusters_url.rstrip("/")
        self._deleting: set[str] = set()  # clusters this process asked RunPod to delete
        self._retry = retry or RetryPolicy(attempts=6, base_delay_s=1.0, max_delay_s=15.0)
        self._sleep = sleep
        self._secure_only = secure_only
        self.filtered: list[tuple[str, Said]] = []
        self._views = LastViews(state_file)
        self._client = httpx.Client(
            headers={"Authorization": f"Bearer {api_key}", "Accept": "application/json"},
            timeout=timeout_s,
        )

    # -- HTTP ------------------------------------------------------------------------------
    def _call(self, method: str, path: str, *, base: str = "", **kwargs: Any) -> httpx.Response:
        return request_with_retries(
            self._client,
            method,
            f"{base or self._rest}{path}",
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
                said("provider.runpod.key_refused", message=str(message)),
                status=response.status_code,
                code="unauthorized",
                hint=KEY_HINT,
            )
        lowered = message.lower()
        if "no longer any instances available" in lowered or "not enough" in lowered:
            return CapacityError(
                said("provider.runpod.refused", message=message),
                hint=said("provider.runpod.cloud_hint"),
            )
        return ApiError(
            said("provider.runpod.refused", message=message),
            status=response.status_code,
            code=f"http/{response.status_code}",
        )

    def _unknown(self, what: Said, listing: str = "pod") -> ProviderStateUnknownError:
        """``what``: how the listing answered (a ``provider.listing.*`` wording);
        ``listing``: ``pod`` or ``cluster``."""
        return ProviderStateUnknownError(
            said(
                "provider.runpod.unknown",
                listing=said(f"provider.runpod.listing.{listing}"),
                what=what,
            ),
            hint=said("provider.runpod.unknown_hint"),
        )

    def _listing(self, response: httpx.Response, listing: str = "pod") -> Any:
        if response.status_code in (401, 403):
            raise self._error(response)
        if response.status_code >= 400:
            raise self._unknown(said("provider.listing.http", status=response.status_code), listing)
        try:
            body = response.json()
        except ValueError:
            raise self._unknown(said("provider.listing.not_json"), listing) from None
        if isinstance(body, dict) and body.get("success") is False:
            raise self._unknown(said("provider.listing.not_success_bare"), listing)
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
        return self._graphql_data(response)

    def _graphql_data(self, response: httpx.Response) -> dict[str, Any]:
        """The ``data`` of a GraphQL answer; ``errors`` (which RunPod sends with HTTP 200,
        as dstack's ``_make_request`` notes) become a ProviderError."""
        if response.status_code >= 400:
            raise self._error(response)
        body = json_object(response, self.name)
        errors = body.get("errors")
        if errors:
            first = errors[0] if isinstance(errors, list) and errors else errors
            message = first.get("message") if isinstance(first, dict) else str(first)
            if "unauthorized" in str(message).lower() or "api key" in str(message).lower():
                raise ApiError(
                    said("provider.runpod.key_refused", message=str(message)),
                    status=response.status_code,
                    code="unauthorized",
                    hint=KEY_HINT,
                )
            extensions = first.get("extensions") if isinstance(first, dict) else None
            code = extensions.get("code") if isinstance(extensions, dict) else None
            lowered = str(message).lower()
            if "insufficient resources" in lowered or "no longer any" in lowered:
                raise CapacityError(
                    said("provider.runpod.refused", message=str(message)),
                    hint=said("provider.runpod.resources_hint"),
                )
            raise ApiError(
                said("provider.runpod.graphql_refused", message=str(message)),
                status=response.status_code,
                # dstack's terminate_compute_group reads extensions.code "Cluster not found"
                code=f"graphql/{code}" if code else "graphql",
            )
        data = body.get("data")
        if not isinstance(data, dict):
            raise unreadable(self.name, said("provider.what.graphql_answer"), KeyError("data"))
        return data

    # -- offers ----------------------------------------------------------------------------
    def gpu_types(self) -> list[dict[str, Any]]:
        types = self.graphql(GPU_TYPES_QUERY).get("gpuTypes")
        if not isinstance(types, list):
            raise unreadable(self.name, said("provider.what.gpu_types"), KeyError("gpuTypes"))
        return [t for t in types if isinstance(t, dict)]

    def offers(self) -> list[Offer]:
        result: list[Offer] = []
        filtered: list[tuple[str, Said]] = []
        for raw in self.gpu_types():
            try:
                type_id = str(raw["id"])
                gpu = str(raw.get("displayName") or type_id)
                most = int(raw.get("maxGpuCount") or 1)
            except (KeyError, TypeError, ValueError) as exc:
                raise unreadable(self.name, said("provider.what.gpu_type"), exc) from exc
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
                    filtered.append((f"{type_id}@{cloud}", said("provider.left_out.out_of_stock")))
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
        result.extend(self._cluster_offers(filtered))
        self.filtered = filtered
        return result

    def cluster_types(self) -> list[dict[str, Any]]:
        types = self.graphql(CLUSTER_TYPES_QUERY).get("gpuTypes")
        if not isinstance(types, list):
            raise unreadable(
                self.name, said("provider.what.cluster_gpu_types"), KeyError("gpuTypes")
            )
        return [t for t in types if isinstance(t, dict)]

    def _cluster_offers(self, filtered: list[tuple[str, Said]]) -> list[Offer]:
        """Instant Cluster capacity: one offer per GPU type and data centre, 2-8 pods of
        ``maxGpuCount`` GPUs each (secure data centres: RunPod runs them itself)."""
        try:
            types = self.cluster_types()
        except ApiError as exc:
            if exc.code == "unauthorized":
                raise
            filtered.append(("Instant Clusters", _not_read(exc)))
            return []
        except ProviderError as exc:
            filtered.append(("Instant Clusters", _not_read(exc)))
            return []
        result: list[Offer] = []
        for raw in types:
            try:
                type_id = str(raw["id"])
                gpu = str(raw.get("displayName") or type_id)
                per_pod = int(raw["maxGpuCount"])
                centres = [str(dc["id"]) for dc in raw.get("nodeGroupDatacenters") or ()]
            except (KeyError, TypeError, ValueError) as exc:
                raise unreadable(self.name, said("provider.what.cluster_gpu_type"), exc) from exc
            price = _money(raw.get("clusterPrice"))
            lowest = raw.get("lowestPrice") or {}
            if not isinstance(lowest, dict):
                lowest = {}
            if not price or per_pod < 1:
                filtered.append((f"cluster {type_id}", said("provider.left_out.no_cluster_price")))
                continue
            if lowest.get("minVcpu") is None or lowest.get("minMemory") is None:
                filtered.append((f"cluster {type_id}", said("provider.left_out.out_of_stock")))
                continue
            stock = str(lowest.get("stockStatus") or "unknown").lower()
            for centre in centres:
                host = f"{CLUSTER_NETWORK}; secure cloud, {centre}, stock {stock}"
                result.append(
                    Offer(
                        provider=self.name,
                        offer_id=f"{CLUSTER_PREFIX}{type_id}@{centre}",
                        region=centre,
                        gpu=gpu,
                        gpus_per_node=per_pod,
                        node_counts=POD_COUNTS,
                        fabric=CLUSTER_FABRIC,
                        price_micro=round(price * 1_000_000),
                        currency=CURRENCY,
                        kind="cluster",
                        price_basis="live",
                        note=f"Instant Cluster of 2-8 pods, stock {stock}",
                        host=host,
                        community=False,
                    )
                )
        return result

    # -- clusters --------------------------------------------------------------------------
    def _type_for(self, order: ClusterOrder) -> tuple[str, str]:
        """(gpuTypeId, cloudType) for an order: the cheapest cloud with stock."""
        if order.gpus_per_node not in (None, order.gpu_count):
            # RunPod's WHY_NOT has no multi-node reason (its clusters are the way to several
            # pods): looking one up here raised KeyError, a traceback instead of this error.
            raise UnsupportedRequestError(
                said("provider.runpod.several_pods", count=order.gpu_count, gpu=order.gpu)
            )
        if order.fabric not in (None, "none"):
            raise UnsupportedRequestError(
                said("provider.cannot_fabric", title="RunPod", fabric=order.fabric)
            )
        wanted = normalise_gpu_name(order.gpu)
        region = (order.region or "").upper()
        best: tuple[float, str, str] | None = None
        for offer in self.offers():
            if offer.kind != "node":
                continue
            if offer.gpu != wanted or offer.gpus_per_node != order.gpu_count:
                continue
            if order.offer_id is not None and offer.offer_id != order.offer_id:
                continue  # the cloud the user approved (secure or community), no other
            type_id, _, rest = offer.offer_id.rpartition("@")
            cloud = rest.split("x")[0]
            if region and region != cloud:
                continue
            if best is None or offer.price_micro < best[0]:
                best = (offer.price_micro, type_id, cloud)
        if best is None:
            raise CapacityError(
                said(
                    "provider.runpod.no_stock_in" if order.region else "provider.runpod.no_stock",
                    count=order.gpu_count,
                    gpu=wanted,
                    region=order.region,
                ),
                hint=said("provider.runpod.in_stock_hint"),
            )
        return best[1], best[2]

    def _cluster_for(self, order: ClusterOrder, pods: int) -> tuple[Offer, str]:
        """The cheapest Instant Cluster offer for an order of several pods, and its type."""
        per_pod = order.gpu_count // pods
        if order.fabric not in (None, "none") and not matches(
            parse_fabric(CLUSTER_FABRIC), order.fabric
        ):
            raise UnsupportedRequestError(
                said("provider.runpod.cluster_fabric", fabric=order.fabric),
                hint=said("provider.runpod.cluster_network_hint", network=_CLUSTER_NETWORK),
            )
        if pods not in POD_COUNTS:
            raise UnsupportedRequestError(
                said("provider.runpod.cluster_pods", pods=pods),
                hint=said("provider.runpod.cluster_pods_hint"),
            )
        wanted = normalise_gpu_name(order.gpu)
        region = (order.region or "").upper()
        best: Offer | None = None
        for offer in self.offers():
            if offer.kind != "cluster" or offer.gpu != wanted:
                continue
            if offer.gpus_per_node != per_pod or (region and offer.region.upper() != region):
                continue
            if order.offer_id is not None and offer.offer_id != order.offer_id:
                continue  # the data centre the user approved, no other
            if best is None or offer.price_micro < best.price_micro:
                best = offer
        if best is None:
            raise CapacityError(
                said(
                    "provider.runpod.no_cluster_in"
                    if order.region
                    else "provider.runpod.no_cluster",
                    pods=pods,
                    per_pod=per_pod,
                    gpu=wanted,
                    region=order.region,
                ),
                hint=said("provider.runpod.no_cluster_hint"),
            )
        type_id = best.offer_id.removeprefix(CLUSTER_PREFIX).rpartition("@")[0]
        return best, type_id

    def _create_cluster(self, order: ClusterOrder, name: str, pods: int) -> ClusterInfo:
        """``createCluster`` (type TRAINING) once per name: look for it first, every try."""
        existing = self._find_cluster(name)
        if existing is not None:
            return existing
        offer, type_id = self._cluster_for(order, pods)
        per_pod = order.gpu_count // pods
        # dstack passes the hourly price of the whole cluster; without it RunPod answers
        # "Insufficient resources" (compute.py run_jobs, api_client.py).
        deploy_cost = f"{offer.price_micro * per_pod * pods / 1_000_000:.2f}"
        mutation = create_cluster_mutation(
            name=name,
            gpu_type_id=type_id,
            pod_count=pods,
            gpus_per_pod=per_pod,
            image=order.image or DEFAULT_IMAGE,
            deploy_cost=deploy_cost,
            data_center_id=offer.region,
            docker_args=docker_args(start_script(order.ssh_public_key)),
        )

        def accept(response: httpx.Response) -> ClusterInfo:
            made = self._graphql_data(response).get("createCluster")
            if not isinstance(made, dict) or "id" not in made:
                raise unreadable(
                    self.name, said("provider.what.create_cluster_answer"), KeyError("id")
                )
            external_id = CLUSTER_PREFIX + str(made["id"])
            info = self.get(external_id)
            if info is None:  # not listed yet: what the create answered, still provisioning
                return self._cluster_info({"id": made["id"], "name": name}, [])
            return info

        return create_once_per_name(
            provider=self.name,
            find=lambda: self._find_cluster(name),
            send=lambda: self._client.post(self._graphql, json={"query": mutation}),
            accept=accept,
            policy=self._retry,
            sleep=self._sleep,
        )

    def create(self, order: ClusterOrder) -> ClusterInfo:
        name = instance_name(order.idempotency_key, MAX_NAME_LENGTH)
        per_pod = order.gpus_per_node or order.gpu_count
        if order.gpu_count > per_pod:
            if order.gpu_count % per_pod:
                raise UnsupportedRequestError(
                    said("provider.runpod.no_split", count=order.gpu_count, per_pod=per_pod),
                    hint=said("provider.runpod.no_split_hint"),
                )
            return self._create_cluster(order, name, order.gpu_count // per_pod)
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
                raise unreadable(self.name, said("provider.what.create_answer"), KeyError("id"))
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
            raise self._unknown(said("provider.listing.no_pods"))
        for row in body:
            if not isinstance(row, dict) or "id" not in row or "desiredStatus" not in row:
                raise self._unknown(said("provider.listing.pod_fields"))
        return body

    def _find_named(self, name: str) -> ClusterInfo | None:
        for raw in self.pods():
            if raw.get("name") == name and raw.get("desiredStatus") != "TERMINATED":
                return self._info(raw)
        return None

    # -- Instant Clusters: listing ---------------------------------------------------------
    def instant_clusters(self) -> list[dict[str, Any]]:
        """``GET /v2/clusters``: every cluster of the account (read: ``id``, ``name``)."""
        body = self._listing(self._call("GET", "/clusters", base=self._v2), "cluster")
        if not isinstance(body, list):
            raise self._unknown(said("provider.listing.no_clusters"), "cluster")
        for row in body:
            if not isinstance(row, dict) or "id" not in row or "name" not in row:
                raise self._unknown(said("provider.listing.cluster_fields"), "cluster")
        return body

    def cluster_pods(self, cluster_id: str) -> list[dict[str, Any]] | None:
        """``GET /v2/clusters/{id}/pods``: the cluster's pods as REST pods; None: 404."""
        response = self._call("GET", f"/clusters/{cluster_id}/pods", base=self._v2)
        if response.status_code == 404:
            return None
        body = self._listing(response, "cluster")
        if not isinstance(body, list):
            raise self._unknown(said("provider.listing.no_cluster_pods"), "cluster")
        for row in body:
            if not isinstance(row, dict) or "id" not in row or "desiredStatus" not in row:
                raise self._unknown(said("provider.listing.cluster_pod_fields"), "cluster")
        return body

    def _find_cluster(self, name: str) -> ClusterInfo | None:
        for summary in self.instant_clusters():
            if summary.get("name") != name:
                continue
            pods = self.cluster_pods(str(summary["id"]))
            info = self._cluster_info(summary, pods or [])
            if info.state != TERMINATED:
                return info
        return None

    def _get_cluster(self, external_id: str) -> ClusterInfo | None:
        cluster_id = external_id.removeprefix(CLUSTER_PREFIX)
        response = self._call("GET", f"/clusters/{cluster_id}", base=self._v2)
        if response.status_code != 404:
            summary = self._listing(response, "cluster")
            if not isinstance(summary, dict) or "id" not in summary or "name" not in summary:
                raise self._unknown(said("provider.listing.one_cluster_shape"), "cluster")
            pods = self.cluster_pods(cluster_id)
            if pods is not None:
                return self._cluster_info(summary, pods)
        # RunPod no longer knows the cluster: it is gone only once each pod it had is.
        left = [pod for pod in map(self._pod_left, self._views.nodes_of(external_id)) if pod]
        if left:
            seen = self._views.ended(external_id)
            name = seen.name if seen is not None else external_id
            return self._cluster_info({"id": cluster_id, "name": name}, left)
        return self._gone(external_id)

    def _pod_left(self, pod_id: str) -> dict[str, Any] | None:
        """A pod of a deleted cluster if it is still there (not 404, not TERMINATED)."""
        response = self._call("GET", f"/pods/{pod_id}")
        if response.status_code == 404:
            return None
        body = self._listing(response)
        if not isinstance(body, dict) or "desiredStatus" not in body:
            raise self._unknown(said("provider.listing.one_pod_shape"))
        return None if body.get("desiredStatus") == "TERMINATED" else body

    def _terminate_cluster(self, external_id: str) -> ClusterInfo:
        """``deleteCluster`` as dstack sends it, then look until every pod is gone."""
        before = self._get_cluster(external_id)
        if before is None:
            raise ProviderError(
                said("provider.runpod.no_cluster_id", id=external_id),
                hint=said("provider.check_clusters_hint"),
            )
        cluster_id = external_id.removeprefix(CLUSTER_PREFIX)
        if before.state != TERMINATED:
            self._deleting.add(cluster_id)
            try:
                self.graphql(delete_cluster_mutation(cluster_id))
            except ApiError as exc:
                # dstack compute.py: extensions.code "Cluster not found" means already deleted
                if exc.code != "graphql/Cluster not found":
                    raise
        after = self._get_cluster(external_id)
        if after is None:
            raise ProviderError(
                said("provider.runpod.deleted_unseen", id=external_id),
                hint=said("provider.check_clusters_hint"),
            )
        return after

    def get(self, external_id: str) -> ClusterInfo | None:
        if external_id.startswith(CLUSTER_PREFIX):
            return self._get_cluster(external_id)
        response = self._call("GET", f"/pods/{external_id}")
        if response.status_code == 404:
            return self._gone(external_id)
        body = self._listing(response)
        if not isinstance(body, dict) or "desiredStatus" not in body:
            raise self._unknown(said("provider.listing.one_pod_shape"))
        return self._info(body)

    def clusters(self) -> list[ClusterInfo]:
        """XyClaw's pods and Instant Clusters; a cluster's pods are listed as the cluster."""
        found: list[ClusterInfo] = []
        in_clusters: set[str] = set()
        for summary in self.instant_clusters():
            if key_from_name(str(summary.get("name"))) is None:
                continue
            pods = self.cluster_pods(str(summary["id"]))
            if pods is None:  # deleted between the two calls: its pods are checked below
                continue
            in_clusters.update(str(p["id"]) for p in pods)
            info = self._cluster_info(summary, pods)
            if info.state != TERMINATED:
                found.append(info)
        singles = [
            self._info(raw)
            for raw in self.pods()
            if key_from_name(raw.get("name")) is not None
            and raw.get("desiredStatus") != "TERMINATED"
            and str(raw["id"]) not in in_clusters
            and not raw.get("clusterIp")  # a pod of a cluster deleted since it was listed
        ]
        return found + singles

    def terminate(self, external_id: str) -> ClusterInfo:
        """Terminate (never stop: a stopped pod bills its volume); a cluster is deleted
        whole, and reported terminated only once each of its pods is gone."""
        if external_id.startswith(CLUSTER_PREFIX):
            return self._terminate_cluster(external_id)
        response = self._call("DELETE", f"/pods/{external_id}")
        if response.status_code >= 400 and response.status_code != 404:
            raise self._error(response)
        gone = self._gone(external_id)
        if gone is None:
            raise ProviderError(
                said("provider.runpod.terminated_unseen", id=external_id),
                hint=said("provider.check_clusters_hint"),
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
            raise unreadable(self.name, said("provider.what.billing_history"), KeyError("records"))
        entries: list[LedgerEntry] = []
        for record in body:
            if not isinstance(record, dict) or not record.get("podId"):
                continue  # another grouping's line: not a pod's
            amount = _money(record.get("amount"))
            if amount is None:
                raise unreadable(
                    self.name, said("provider.what.billing_record"), KeyError("amount")
                )
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
            raise unreadable(self.name, said("provider.what.pod_record"), exc) from exc
        # What RunPod bills (its console's figure), not a list price (SkyPilot #4914).
        hourly = _money(raw.get("adjustedCostPerHr")) or _money(raw.get("costPerHr")) or 0.0
        price = round(hourly * 1_000_000 / max(1, count))
        status = str(raw.get("desiredStatus"))
        mapped = raw.get("portMappings") or {}
        port = mapped.get("22") if isinstance(mapped, dict) else None
        ip = raw.get("publicIp") or None
        error: Said | None = None
        if status == "RUNNING":
            state = RUNNING if ip and port else PROVISIONING
        elif status == "EXITED":
            state, error = FAILED, said("provider.runpod.state.exited")
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

    def _cluster_info(self, summary: dict[str, Any], pods: list[dict[str, Any]]) -> ClusterInfo:
        """An Instant Cluster from its summary and its pods (REST pod objects, plus each
        pod's ``clusterIp``, its address on the cluster network, and ``clusterIdx``)."""
        cluster_id = str(summary["id"])
        external_id = CLUSTER_PREFIX + cluster_id
        name = str(summary.get("name") or external_id)
        deleting = cluster_id in self._deleting
        members = sorted(pods, key=lambda p: (int(p.get("clusterIdx") or 0), str(p["id"])))
        nodes: list[NodeInfo] = []
        private: list[str | None] = []
        count = hourly = 0.0
        gpu, per_pod, region = "unknown", 0, None
        for rank, raw in enumerate(members):
            one = self._info(raw)  # the pod read as a single pod: SSH, state, billed price
            node = one.nodes[0]
            nodes.append(
                NodeInfo(
                    external_id=node.external_id,
                    rank=rank,
                    hostname=node.hostname,
                    state=TERMINATING if deleting and node.state != TERMINATED else node.state,
                    ssh_host=node.ssh_host,
                    ssh_port=node.ssh_port,
                    ssh_user=node.ssh_user,
                    error=node.error,
                    private_ip=str(raw["clusterIp"]) if raw.get("clusterIp") else None,
                )
            )
            private.append(str(raw["clusterIp"]) if raw.get("clusterIp") else None)
            count += one.gpu_count
            hourly += one.price_per_gpu_hour_micros * one.gpu_count
            gpu, per_pod, region = one.gpu, per_pod or one.gpu_count, region or one.region
        states = {n.state for n in nodes}
        if not nodes:
            state = TERMINATING if deleting else PROVISIONING
        elif states == {TERMINATED}:
            state = TERMINATED
        elif deleting:
            state = TERMINATING
        elif FAILED in states:
            state = FAILED
        elif states == {RUNNING}:
            state = RUNNING
        else:
            state = PROVISIONING
        info = ClusterInfo(
            external_id=external_id,
            name=name,
            state=state,
            gpu=gpu,
            gpu_count=int(count),
            gpus_per_node=per_pod,
            fabric=CLUSTER_FABRIC,
            region=region,
            price_per_gpu_hour_micros=round(hourly / count) if count else 0,
            currency=CURRENCY,
            nodes=tuple(nodes),
            error=next((n.error for n in nodes if n.error), None),
            idempotency_key=key_from_name(name),
            extra={
                "cloud": "secure",
                "community": False,
                "instant_cluster": cluster_id,
                # each node's address on the cluster network (eth1), by rank: what NCCL
                # and torchrun's MASTER_ADDR should use, not the public SSH address
                "private_ips": tuple(private),
            },
        )
        if state != TERMINATED and nodes:
            self._views.remember(info)
        return info


def graphql_string(text: str) -> str:
    """A GraphQL string literal (JSON's escapes are GraphQL's)."""
    return json.dumps(text)


def docker_args(command: str) -> str:
    """``dockerArgs`` of a cluster pod: its start command, as dstack's ``_get_docker_args``
    builds it (a JSON object of ``cmd`` and ``entrypoint``)."""
    return json.dumps({"cmd": [command], "entrypoint": ["/bin/sh", "-c"]})


def create_cluster_mutation(
    *,
    name: str,
    gpu_type_id: str,
    pod_count: int,
    gpus_per_pod: int,
    image: str,
    deploy_cost: str,
    data_center_id: str,
    docker_args: str,
) -> str:
    """``createCluster`` as dstack's ``_generate_create_cluster_mutation`` writes it: the
    required fields (``deployCost`` too), no ``minCudaVersion`` (it makes the create fail,
    dstack #3910), only 22/tcp exposed and no env (no secret the spec does not name)."""
    fields = [
        f"clusterName: {graphql_string(name)}",
        f"gpuTypeId: {graphql_string(gpu_type_id)}",
        f"podCount: {int(pod_count)}",
        f"imageName: {graphql_string(image)}",
        "type: TRAINING",
        f"gpuCountPerPod: {int(gpus_per_pod)}",
        f"deployCost: {deploy_cost}",
        f"dataCenterId: {graphql_string(data_center_id)}",
        f"containerDiskInGb: {CONTAINER_DISK_GB}",
        f"dockerArgs: {graphql_string(docker_args)}",
        f"ports: {graphql_string(CLUSTER_NODE_PORT)}",
    ]
    return (
        "mutation {\n  createCluster(\n    input: {\n      "
        + ", ".join(fields)
        + "\n    }\n  ) {\n    id\n    name\n    pods {\n      id\n      clusterIp\n"
        "      clusterIdx\n      desiredStatus\n    }\n  }\n}\n"
    )


def delete_cluster_mutation(cluster_id: str) -> str:
    """``deleteCluster`` as dstack's ``_generate_delete_cluster_mutation`` writes it."""
    return f"mutation {{\n  deleteCluster(input: {{id: {graphql_string(cluster_id)}}})\n}}\n"


__all__ = [
    "CLUSTER_FABRIC",
    "RUNPOD_CLUSTERS_URL",
    "RUNPOD_GRAPHQL_URL",
    "RUNPOD_REST_URL",
    "RunPodProvider",
    "create_cluster_mutation",
    "delete_cluster_mutation",
]
