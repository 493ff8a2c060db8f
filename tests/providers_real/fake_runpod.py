"""A fake RunPod: REST v1 pods and the GraphQL ``gpuTypes`` query, on 127.0.0.1.

Shapes: REST v1 pods as docs.runpod.io api-reference/pods and
../shared/docs/anchors-wave3.md section 2 describe them (``POST/GET /v1/pods``,
``GET/DELETE /v1/pods/{id}``; ``publicIp`` and ``portMappings``); errors as
runpod/runpod-python's ``runpod/api/rest.py`` reads them (``detail``/``title``); GraphQL
as ``runpod/api/queries/gpus.py`` asks it, errors as HTTP 200 with ``errors``.
``listing_mode``: ``"410"``, ``"success-false"``, ``"renamed"`` (``desiredStatus``
renamed), ``"shape"`` (the list wrapped in an object); it applies to the cluster listing
too.

Instant Clusters: GraphQL ``createCluster`` / ``deleteCluster`` as dstack
(``src/dstack/_internal/core/backends/runpod/api_client.py`` at 511c318c) writes them
(``deployCost`` required, ``minCudaVersion`` refused as RunPod did in dstack #3910, an
unknown cluster answers ``extensions.code`` "Cluster not found"); the cluster GPU types
as gpuhunt asks them (``clusterPrice``, ``nodeGroupDatacenters``, no ``minVcpu`` when out
of stock); REST v2 ``GET /v2/clusters``, ``/v2/clusters/{id}`` and
``/v2/clusters/{id}/pods`` (docs.runpod.io/api-reference-v2/clusters). A cluster's pods
are pods too (``/v1/pods`` lists them) and bill until each is terminated;
``linger_s`` keeps them running that long after ``deleteCluster``. ``hidden`` pods bill but are
neither listed nor found by id.
"""

from __future__ import annotations

import itertools
import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tests.providers_real.fakehttp import Answer, FakeCloud

KEY = "runpod-test-key"


def default_types() -> list[dict[str, Any]]:
    def gpu(
        type_id: str, name: str, secure: float | None, community: float | None, stock: str | None
    ) -> dict[str, Any]:
        return {
            "id": type_id,
            "displayName": name,
            "memoryInGb": 80,
            "maxGpuCount": 8,
            "secureCloud": secure is not None,
            "communityCloud": community is not None,
            "securePrice": secure,
            "communityPrice": community,
            "lowestPrice": {"uninterruptablePrice": community or secure, "stockStatus": stock},
        }

    return [
        gpu("NVIDIA H100 80GB HBM3", "H100 SXM", 2.69, 1.99, "High"),
        gpu("NVIDIA GeForce RTX 4090", "RTX 4090", 0.69, 0.34, "Medium"),
        gpu("NVIDIA A40", "A40", 0.40, None, None),  # out of stock
    ]


def default_cluster_types() -> list[dict[str, Any]]:
    def kind(
        type_id: str, name: str, price: float, centres: list[str], stocked: bool
    ) -> dict[str, Any]:
        lowest: dict[str, Any] = {"stockStatus": "High" if stocked else None}
        if stocked:  # RunPod gives no CPU and memory for a type out of stock (gpuhunt)
            lowest.update(minVcpu=128, minMemory=1000)
        return {
            "id": type_id,
            "displayName": name,
            "memoryInGb": 80,
            "maxGpuCount": 8,
            "clusterPrice": price,
            "nodeGroupDatacenters": [{"id": c} for c in centres],
            "lowestPrice": lowest,
        }

    return [
        kind("NVIDIA H100 80GB HBM3", "H100 SXM", 2.99, ["EU-RO-1", "US-TX-3"], True),
        kind("NVIDIA A100-SXM4-80GB", "A100 SXM", 1.79, ["EU-RO-1"], False),
    ]


@dataclass
class Cluster:
    id: str
    name: str
    pod_ids: list[str]
    deleted_at: float | None = None


@dataclass
class Pod:
    id: str
    name: str
    type_id: str
    count: int
    cloud: str
    price: float
    body: dict[str, Any]
    started: float
    status: str = "RUNNING"
    ssh: tuple[str, int] | None = None  # (host, port) of its node, once it runs
    cluster_ip: str | None = None  # its address on an Instant Cluster's network
    cluster_idx: int | None = None
    cluster: str | None = None  # the id of the Instant Cluster it belongs to
    ends_at: float | None = None  # a deleted cluster's pod: terminated at this time


@dataclass
class FakeRunPod(FakeCloud):
    key: str = KEY
    boot_s: float = 0.0
    listing_mode: str = ""
    types: list[dict[str, Any]] = field(default_factory=default_types)
    pods: dict[str, Pod] = field(default_factory=dict)
    # Starts the pod's machine from its start command; gives its SSH (host, port).
    on_running: Callable[[Pod, str], tuple[str, int]] | None = None
    create_delay_s: float = 0.0  # the create's answer is slow *after* the pod is made
    terminate_delay_s: float = 0.0
    cluster_types: list[dict[str, Any]] = field(default_factory=default_cluster_types)
    clusters: dict[str, Cluster] = field(default_factory=dict)
    linger_s: float = 0.0  # a deleted cluster's pods run (and bill) this long after
    # "renamed-types": the cluster type query fails on a field; "no-capacity": every
    # createCluster answers "Insufficient resources" (HTTP 200 with errors)
    cluster_mode: str = ""
    forget_on_delete: bool = False  # the cluster leaves the listing while its pods linger
    # Pods the listing and the per-id read leave out while they go on billing (dstack #1551).
    hidden: set[str] = field(default_factory=set)
    charge_factor: float = 1.0  # what RunPod's billing history charges against the price
    ended: dict[str, float] = field(default_factory=dict)  # pod id -> when it was terminated

    def __post_init__(self) -> None:
        super().__init__()
        self._ids = itertools.count(1)

    def billing(self) -> list[Pod]:
        with self.lock:
            self._settle()
            return [p for p in self.pods.values() if p.status != "TERMINATED"]

    def _settle(self) -> None:
        """Pods of a deleted cluster end once their time is up; the cluster with them."""
        now = time.time()
        for pod in self.pods.values():
            if pod.ends_at is not None and now >= pod.ends_at:
                pod.status = "TERMINATED"
        for cluster in list(self.clusters.values()):
            if cluster.deleted_at is not None and all(
                self.pods[i].status == "TERMINATED" for i in cluster.pod_ids
            ):
                del self.clusters[cluster.id]

    def add_pod(self, name: str, type_id: str = "NVIDIA GeForce RTX 4090") -> str:
        with self.lock:
            return self._create({"name": name, "gpuTypeIds": [type_id], "gpuCount": 1,
                                 "cloudType": "COMMUNITY"})[1]["id"]  # fmt: skip

    def error_answer(self, status: int) -> Answer:
        return status, {"title": "injected", "detail": f"injected {status}"}, {}

    def _row(self, pod: Pod) -> dict[str, Any]:
        booted = time.time() - pod.started >= self.boot_s
        if booted and pod.ssh is None and pod.status == "RUNNING":
            if self.on_running is not None and pod.name.startswith("xyclaw-"):
                pod.ssh = self.on_running(pod, (pod.body.get("dockerStartCmd") or [""])[-1])
            else:
                pod.ssh = ("127.0.0.1", 40000 + int(pod.id))
        host, port = pod.ssh or ("127.0.0.1", 0)
        row: dict[str, Any] = {
            "id": pod.id,
            "name": pod.name,
            "desiredStatus": pod.status,
            "costPerHr": pod.price * pod.count,
            # What RunPod bills after its discounts (its console's figure).
            "adjustedCostPerHr": round(pod.price * pod.count * 0.9, 4),
            "gpu": {"id": pod.type_id, "count": pod.count, "displayName": self._name(pod)},
            "machine": {"dataCenterId": "EU-RO-1"},
            "cloudType": pod.cloud,
            "publicIp": host if booted and pod.status == "RUNNING" else None,
            "portMappings": {"22": port} if booted else {},
            "interruptible": False,
            "env": pod.body.get("env", {}),
        }
        if pod.cluster_ip is not None:
            row.update(clusterIp=pod.cluster_ip, clusterIdx=pod.cluster_idx)
        if self.listing_mode == "renamed":
            row["status"] = row.pop("desiredStatus")
        return row

    def _name(self, pod: Pod) -> str:
        kinds = self.types + self.cluster_types
        return str(next(t["displayName"] for t in kinds if t["id"] == pod.type_id))

    def route(
        self, method: str, path: str, query: dict[str, list[str]], body: Any, headers: Any
    ) -> Answer:
        if headers.get("Authorization") != f"Bearer {self.key}":
            if path == "/graphql":
                return 200, {"errors": [{"message": "Unauthorized: invalid API key"}]}, {}
            return 401, {"title": "Unauthorized", "detail": "invalid api key"}, {}
        answer = self._route(method, path, body, query)
        if method == "POST" and path == "/v1/pods" and answer[0] == 201:
            time.sleep(self.create_delay_s)
        if method == "DELETE" and answer[0] == 200:
            time.sleep(self.terminate_delay_s)
        if path == "/graphql" and isinstance(answer[1], dict) and "data" in answer[1]:
            # the answer to a cluster's create or delete is slow *after* it is done
            if "createCluster" in answer[1]["data"]:
                time.sleep(self.create_delay_s)
            if "deleteCluster" in answer[1]["data"]:
                time.sleep(self.terminate_delay_s)
        return answer

    def charged(self, pod: Pod) -> float:
        """What this fake RunPod charges a pod so far, in USD (adjustedCostPerHr x hours)."""
        end = self.ended.get(pod.id) or time.time()
        hours = max(0.0, end - pod.started) / 3600
        return hours * round(pod.price * pod.count * 0.9, 4) * self.charge_factor

    def _billing(self, query: dict[str, list[str]]) -> Answer:
        """``/v1/billing/pods``: one record per pod (grouping podId), one bucket."""
        if query.get("grouping") != ["podId"] or "startTime" not in query:
            return 400, {"title": "Bad Request", "detail": "grouping"}, {}
        return 200, [
            {"amount": round(self.charged(p), 6), "diskSpaceBilledGb": 0, "podId": p.id,
             "time": query["startTime"][0], "timeBilledMs": 0}
            for p in self.pods.values()
        ], {}  # fmt: skip

    def _route(
        self, method: str, path: str, body: Any, query: dict[str, list[str]] | None = None
    ) -> Answer:
        query = query or {}
        with self.lock:
            self._settle()
            if path == "/graphql" and method == "POST":
                query = str((body or {}).get("query"))
                if "createCluster" in query:
                    return self._create_cluster(query)
                if "deleteCluster" in query:
                    return self._delete_cluster(query)
                if "gpuTypes(input: {cluster: true})" in query:
                    if self.cluster_mode == "renamed-types":
                        return 200, {"errors": [{"message": 'Cannot query field "clusterPrice"'
                                                 ' on type "GpuType".'}]}, {}  # fmt: skip
                    return 200, {"data": {"gpuTypes": self.cluster_types}}, {}
                if "gpuTypes" in query:
                    return 200, {"data": {"gpuTypes": self.types}}, {}
                return 200, {"errors": [{"message": "unknown query"}]}, {}
            if path.startswith("/v2/clusters"):
                return self._v2(method, path)
            if path == "/v1/pods" and method == "POST":
                return self._create(body or {})
            if path == "/v1/pods" and method == "GET":
                return self._list()
            if path == "/v1/billing/pods" and method == "GET":
                return self._billing(query)
            match = re.fullmatch(r"/v1/pods/([^/]+)", path)
            if match:
                pod = self.pods.get(match[1])
                if method == "GET":
                    if self.listing_mode in ("410", "success-false"):
                        return self._list()
                    if pod is None or pod.id in self.hidden:
                        return 404, {"title": "Not Found", "detail": "pod not found"}, {}
                    return 200, self._row(pod), {}
                if method == "DELETE":
                    if pod is None:
                        return 404, {"title": "Not Found", "detail": "pod not found"}, {}
                    pod.status = "TERMINATED"
                    self.ended.setdefault(pod.id, time.time())
                    return 200, {}, {}
        return 404, {"title": "Not Found", "detail": path}, {}

    def _create(self, body: dict[str, Any]) -> Answer:
        type_id = body["gpuTypeIds"][0]
        kind = next((t for t in self.types if t["id"] == type_id), None)
        cloud = body.get("cloudType", "SECURE")
        price = None
        if kind is not None and kind["lowestPrice"]["stockStatus"]:
            price = kind["securePrice"] if cloud == "SECURE" else kind["communityPrice"]
        if price is None:
            return 400, {"title": "Bad Request", "detail": "There are no longer any instances "
                         "available with the requested specifications."}, {}  # fmt: skip
        pod = Pod(str(next(self._ids)), body.get("name", ""), type_id, int(body.get("gpuCount", 1)),
                  cloud, float(price), dict(body), time.time())  # fmt: skip
        self.pods[pod.id] = pod
        return 201, self._row(pod), {}

    # -- Instant Clusters ----------------------------------------------------------------
    def _create_cluster(self, query: str) -> Answer:
        def field_of(name: str) -> str | None:
            match = re.search(rf'\b{name}: ("(?:[^"\\]|\\.)*"|[^,\s}}]+)', query)
            if match is None:
                return None
            text = match[1]
            return str(json.loads(text)) if text.startswith('"') else text

        if "minCudaVersion" in query:  # dstack #3910: RunPod fails such a create
            return 200, {"errors": [{"message": "Something went wrong. Please try again "
                                     "later or contact support."}]}, {}  # fmt: skip
        if field_of("deployCost") is None or self.cluster_mode == "no-capacity":
            # dstack: without deployCost "Runpod returns Insufficient resources error"
            return 200, {"errors": [{"message": "Insufficient resources"}]}, {}
        type_id, centre = field_of("gpuTypeId"), field_of("dataCenterId")
        kind = next((t for t in self.cluster_types if t["id"] == type_id), None)
        if (
            kind is None
            or kind["lowestPrice"].get("minVcpu") is None
            or centre not in [c["id"] for c in kind["nodeGroupDatacenters"]]
            or field_of("type") != "TRAINING"
        ):
            return 200, {"errors": [{"message": "Insufficient resources"}]}, {}
        count, per_pod = int(field_of("podCount") or 0), int(field_of("gpuCountPerPod") or 0)
        name = field_of("clusterName") or ""
        args = json.loads(field_of("dockerArgs") or "{}")
        cluster = Cluster(f"c{next(self._ids)}", name, [])
        for idx in range(count):
            pod = Pod(str(next(self._ids)), f"{name}-{idx}", str(type_id), per_pod, "SECURE",
                      float(kind["clusterPrice"]), {"dockerStartCmd": list(args.get("cmd") or [])},
                      time.time(), cluster_ip=f"10.65.0.{idx + 2}", cluster_idx=idx,
                      cluster=cluster.id)  # fmt: skip
            self.pods[pod.id] = pod
            cluster.pod_ids.append(pod.id)
        self.clusters[cluster.id] = cluster
        made = {
            "id": cluster.id,
            "name": name,
            "pods": [
                {"id": i, "clusterIp": self.pods[i].cluster_ip, "clusterIdx": n,
                 "desiredStatus": "RUNNING"}
                for n, i in enumerate(cluster.pod_ids)
            ],
        }  # fmt: skip
        return 200, {"data": {"createCluster": made}}, {}

    def _delete_cluster(self, query: str) -> Answer:
        match = re.search(r'deleteCluster\(input: \{id: "([^"]+)"\}\)', query)
        cluster = self.clusters.get(match[1]) if match else None
        if cluster is None or cluster.deleted_at is not None:
            error = {"message": "Cluster not found", "extensions": {"code": "Cluster not found"}}
            return 200, {"errors": [error]}, {}
        cluster.deleted_at = time.time()
        for pod_id in cluster.pod_ids:
            self.pods[pod_id].ends_at = cluster.deleted_at + self.linger_s
        if self.forget_on_delete:
            del self.clusters[cluster.id]
        self._settle()
        return 200, {"data": {"deleteCluster": True}}, {}

    def _summary(self, cluster: Cluster) -> dict[str, Any]:
        return {"id": cluster.id, "name": cluster.name, "podCount": len(cluster.pod_ids)}

    def _v2(self, method: str, path: str) -> Answer:
        if method != "GET":
            return 404, {"title": "Not Found", "detail": path}, {}
        if path == "/v2/clusters":
            if self.listing_mode in ("410", "success-false"):
                return self._list()
            rows = [self._summary(c) for c in self.clusters.values()]
            if self.listing_mode == "renamed":
                rows = [{"clusterId": r["id"], "name": r["name"]} for r in rows]
            if self.listing_mode == "shape":
                return 200, {"clusters": rows}, {}
            return 200, rows, {}
        match = re.fullmatch(r"/v2/clusters/([^/]+)(/pods)?", path)
        cluster = self.clusters.get(match[1]) if match else None
        if match is None or cluster is None:
            return 404, {"title": "Not Found", "detail": "cluster not found"}, {}
        if self.listing_mode in ("410", "success-false"):
            return self._list()
        if not match[2]:
            return 200, self._summary(cluster), {}
        pods = [self._row(self.pods[i]) for i in cluster.pod_ids]
        return 200, [p for p in pods if p.get("desiredStatus", "") != "TERMINATED"], {}

    def _list(self) -> Answer:
        if self.listing_mode == "410":
            return 410, {"title": "Gone", "detail": "deprecated endpoint"}, {}
        if self.listing_mode == "success-false":
            return 200, {"success": False, "error": "try later"}, {}
        rows = [
            self._row(p)
            for p in self.pods.values()
            if p.status != "TERMINATED" and p.id not in self.hidden
        ]
        if self.listing_mode == "shape":
            return 200, {"pods": rows}, {}
        return 200, rows, {}
