"""The ``lambda`` provider: Lambda Cloud's public REST API (v1), with an API key.

Endpoints used (https://cloud.lambdalabs.com/api/v1, ``Authorization: Bearer <key>``):
``GET /instance-types`` (prices and regions with capacity), ``GET/POST /ssh-keys``,
``POST /instance-operations/launch``, ``POST /instance-operations/terminate``,
``GET /instances`` and ``GET /instances/{id}``. Errors come as
``{"error": {"code", "message", "suggestion"}}``.

One cluster is one instance (1 to 8 GPUs on one machine): on-demand instances
have no fabric between them that XyClaw could promise NCCL. The instance's name
is the cluster's idempotency key, so a retried or interrupted launch is found
again instead of renting twice, and instances not named by XyClaw are never
listed (reconciliation must not release the user's own machines). Lambda keeps
no ledger: the meter bills from the instance's price.
"""

from __future__ import annotations

import hashlib
import logging
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

from xyclaw.catalog import Offer, normalise_gpu_name
from xyclaw.errors import CapacityError, ProviderError
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
    Pacer,
    QuotaError,
    UnsupportedRequestError,
    create_once_per_name,
    instance_name,
    json_object,
    key_from_name,
    unreadable,
)
from xyclaw.providers.endpoints import LAMBDA_API_URL
from xyclaw.providers.http_retry import ApiError, RetryPolicy, request_with_retries
from xyclaw.wording import Said, said

log = logging.getLogger(__name__)

CURRENCY = "USD"
MAX_NAME_LENGTH = 64  # Lambda's limit for an instance name
#: Lambda allows about one launch request every 12 seconds (others: about one a second).
LAUNCH_INTERVAL_S = 12.0
SSH_USER = "ubuntu"  # Lambda Stack images log in as ubuntu, with passwordless sudo
KEY_NAME_PREFIX = "xyclaw-"

#: Regions Lambda listed when this was written; offers() reports the live ones.
REGIONS = (
    "us-east-1",
    "us-east-2",
    "us-east-3",
    "us-west-1",
    "us-west-2",
    "us-west-3",
    "us-south-1",
    "us-south-2",
    "us-south-3",
    "us-midwest-1",
    "europe-central-1",
    "asia-south-1",
    "asia-northeast-1",
    "asia-northeast-2",
    "me-west-1",
    "australia-east-1",
)

#: Lambda's instance statuses in XyClaw's words.
STATES = {
    "booting": PROVISIONING,
    "active": RUNNING,
    "unhealthy": FAILED,
    "terminating": TERMINATING,
    "terminated": TERMINATED,
    "preempted": TERMINATED,
}

CAPACITY = "instance-operations/launch/insufficient-capacity"
QUOTA = "global/quota-exceeded"
INVALID_KEY = "global/invalid-api-key"
INACTIVE = "global/account-inactive"
NOT_FOUND = "global/object-does-not-exist"

KEY_HINT = said("provider.lambda.key_hint")
_MULTI_NODE = said("provider.lambda.why_not.multi_node")
_FABRIC = said("provider.lambda.why_not.fabric")

WHY_NOT: dict[str, str | Said] = {
    Feature.MULTI_NODE: _MULTI_NODE,
    Feature.FABRIC: _FABRIC,
    Feature.STOP_START: said("provider.lambda.why_not.stop_start"),
    Feature.SPOT: said("provider.lambda.why_not.spot"),
    Feature.BILLING_LEDGER: said("provider.lambda.why_not.billing_ledger"),
    Feature.CUSTOM_IMAGE: said("provider.lambda.why_not.custom_image"),
    Feature.HOST_KEYS: said("provider.why_not.host_keys", provider="Lambda"),
}

_GPU_COUNT = re.compile(r"^\s*(\d+)\s*x\s*", re.IGNORECASE)
_PAREN = re.compile(r"^(?P<model>[^(]+?)\s*\((?P<inside>[^)]*)\)")
_MEMORY = re.compile(r"(\d+)\s*GB", re.IGNORECASE)


def gpu_of(instance_type: dict[str, Any]) -> tuple[str, int]:
    """(canonical GPU model, GPUs) of an instance type: "8x H100 (80 GB SXM5)" -> ("H100", 8)."""
    specs = instance_type.get("specs") or {}
    count = int(specs.get("gpus", 0) or 0)
    text = str(instance_type.get("gpu_description") or instance_type.get("description") or "")
    match = _GPU_COUNT.match(text)
    if match:
        if "gpus" not in specs:
            count = int(match.group(1))
        text = text[match.end() :]
    paren = _PAREN.match(text)
    if paren:
        memory = _MEMORY.search(paren["inside"])
        text = f"{paren['model']} {memory.group(1)}GB" if memory else paren["model"]
    if not text.strip():
        # "gpu_1x_a100_sxm4": the model is the third part of the name.
        parts = str(instance_type.get("name", "")).split("_")
        text = parts[2] if len(parts) > 2 else "unknown"
    return normalise_gpu_name(text), count


def price_per_gpu_micros(cents_per_hour: int, gpus: int) -> int:
    """Lambda prices instances in US cents per hour; XyClaw keeps micro-dollars per GPU-hour."""
    total = int(cents_per_hour) * 10_000
    per_gpu, rest = divmod(total, max(1, gpus))
    return per_gpu + (1 if 2 * rest >= gpus else 0)


def key_name_for(public_key: str) -> str:
    """The name XyClaw registers its public key under: stable for one key."""
    body = " ".join(public_key.split()[:2])
    return KEY_NAME_PREFIX + hashlib.sha256(body.encode()).hexdigest()[:12]


def _same_key(left: str, right: str) -> bool:
    return left.split()[:2] == right.split()[:2]


class LambdaProvider:
    """Rents Lambda Cloud instances; one instance is one cluster."""

    kind = "lambda"
    capabilities = Capabilities(
        rents=True,
        multi_node=False,
        stop_start=False,
        spot=False,
        regions=REGIONS,
        billing_ledger=False,
        why_not=WHY_NOT,
    )

    def __init__(
        self,
        api_key: str,
        *,
        name: str = "lambda",
        base_url: str = LAMBDA_API_URL,
        state_file: Path | None = None,
        timeout_s: float = 30.0,
        retry: RetryPolicy | None = None,
        launch_interval_s: float = LAUNCH_INTERVAL_S,
        ssh_port: int = 22,
        transport: httpx.BaseTransport | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        """``state_file`` keeps the last view of each instance, so a release confirmed after
        Lambda forgot the instance still knows its price; ``ssh_port`` is for tunnels and tests."""
        if not api_key:
            raise ProviderError(said("provider.lambda.no_key"), hint=KEY_HINT)
        self.name = name
        self._base = base_url.rstrip("/")
        self._retry = retry or RetryPolicy(attempts=6, base_delay_s=1.0, max_delay_s=15.0)
        self._sleep = sleep
        self._pacer = Pacer(launch_interval_s, sleep=sleep)
        self._ssh_port = ssh_port
        self._views = LastViews(state_file, currency=CURRENCY, with_nodes=True)
        self._key_names: dict[str, str] = {}
        self._client = httpx.Client(
            headers={"Authorization": f"Bearer {api_key}", "Accept": "application/json"},
            timeout=timeout_s,
            transport=transport,
        )

    # -- HTTP ------------------------------------------------------------------------------
    def _call(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        return request_with_retries(
            self._client,
            method,
            f"{self._base}{path}",
            provider=self.name,
            policy=self._retry,
            sleep=self._sleep,
            **kwargs,
        )

    def _data(self, response: httpx.Response) -> Any:
        if response.status_code >= 400:
            raise self._error(response)
        body = json_object(response, self.name)
        if "data" not in body:
            raise ProviderError(said("provider.no_data", provider=self.name))
        return body["data"]

    def _error(self, response: httpx.Response) -> ProviderError:
        """Lambda's error envelope, translated once into the XyclawError tree."""
        try:
            raw = response.json().get("error") or {}
        except (ValueError, AttributeError):
            raw = {}
        if not isinstance(raw, dict):
            raw = {}
        code = str(raw.get("code") or f"http/{response.status_code}")
        message = str(raw.get("message") or response.reason_phrase or "no message")
        suggestion = raw.get("suggestion")
        refused = said("provider.lambda.refused", message=message)
        if code == CAPACITY:
            return CapacityError(refused, hint=said("provider.lambda.capacity_hint"))
        if code == QUOTA:
            return QuotaError(refused, hint=said("provider.lambda.quota_hint"))
        if code == INVALID_KEY or response.status_code == 401:
            return ApiError(refused, status=response.status_code, code=code, hint=KEY_HINT)
        if code == INACTIVE:
            return ApiError(
                refused,
                status=response.status_code,
                code=code,
                hint=said("provider.lambda.inactive_hint"),
            )
        return ApiError(
            refused,
            status=response.status_code,
            code=code,
            hint=str(suggestion) if suggestion else None,
        )

    # -- what Lambda rents -----------------------------------------------------------------
    def instance_types(self) -> dict[str, dict[str, Any]]:
        """The raw answer: type name -> {instance_type, regions_with_capacity_available}."""
        data = self._data(self._call("GET", "/instance-types"))
        if not isinstance(data, dict):
            raise ProviderError(
                said(
                    "provider.sent_as",
                    provider=self.name,
                    what=said("provider.what.instance_types"),
                    kind=str(type(data)),
                )
            )
        return data

    def offers(self) -> list[Offer]:
        result: list[Offer] = []
        for type_name, entry in sorted(self.instance_types().items()):
            try:
                kind = entry["instance_type"]
                gpu, gpus = gpu_of(kind)
                if gpus < 1:
                    continue  # CPU-only instance types
                price = price_per_gpu_micros(int(kind["price_cents_per_hour"]), gpus)
                regions = [str(r["name"]) for r in entry.get("regions_with_capacity_available", [])]
            except (KeyError, TypeError, ValueError) as exc:
                raise unreadable(
                    self.name, said("provider.what.instance_type", name=repr(type_name)), exc
                ) from exc
            for region in regions:
                result.append(
                    Offer(
                        provider=self.name,
                        offer_id=f"{type_name}@{region}",
                        region=region,
                        gpu=gpu,
                        gpus_per_node=gpus,
                        node_counts=(1,),
                        fabric="none",
                        price_micro=price,
                        currency=CURRENCY,
                        kind="node",
                        price_basis="live",
                        note=str(kind.get("description", type_name)),
                    )
                )
        return result

    def _choose_type(self, order: ClusterOrder, types: dict[str, dict[str, Any]]) -> str:
        if order.gpus_per_node not in (None, order.gpu_count):
            raise UnsupportedRequestError(
                said(
                    "provider.lambda.as_nodes",
                    count=order.gpu_count,
                    gpu=order.gpu,
                    nodes=order.gpu_count // max(1, order.gpus_per_node or 1),
                ),
                hint=_MULTI_NODE,
            )
        if order.fabric not in (None, "none"):
            raise UnsupportedRequestError(
                said("provider.cannot_fabric", title="Lambda", fabric=order.fabric), hint=_FABRIC
            )
        wanted = normalise_gpu_name(order.gpu)
        counts: list[int] = []
        for type_name, entry in sorted(types.items()):
            gpu, gpus = gpu_of(entry.get("instance_type") or {})
            if gpu != wanted:
                continue
            if gpus == order.gpu_count:
                return type_name
            counts.append(gpus)
        if not counts:
            raise UnsupportedRequestError(
                said("provider.lambda.no_type", gpu=wanted),
                hint=said("provider.lambda.no_type_hint"),
            )
        raise UnsupportedRequestError(
            said(
                "provider.lambda.only_as",
                gpu=wanted,
                counts=", ".join(f"{n} x" for n in sorted(set(counts))),
                count=order.gpu_count,
            ),
            hint=_MULTI_NODE if order.gpu_count > max(counts) else None,
        )

    # -- SSH key ---------------------------------------------------------------------------
    def ssh_key_name(self, public_key: str) -> str:
        """The name of the app's key at Lambda, registering it under XyClaw's name if needed."""
        cached = self._key_names.get(public_key)
        if cached:
            return cached
        keys = self._data(self._call("GET", "/ssh-keys"))
        for key in keys if isinstance(keys, list) else []:
            if _same_key(str(key.get("public_key", "")), public_key):
                self._key_names[public_key] = str(key["name"])
                return str(key["name"])
        name = key_name_for(public_key)
        response = self._call("POST", "/ssh-keys", json={"name": name, "public_key": public_key})
        if response.status_code >= 400:
            error = self._error(response)
            # Another XyClaw may have registered it a moment ago; look once more.
            again = self._data(self._call("GET", "/ssh-keys"))
            if not any(str(k.get("name")) == name for k in again or []):
                raise error
        else:
            self._data(response)
        log.info("registered the app's SSH key at Lambda as %s", name)
        self._key_names[public_key] = name
        return name

    # -- clusters --------------------------------------------------------------------------
    def create(self, order: ClusterOrder) -> ClusterInfo:
        types = self.instance_types()
        type_name = self._choose_type(order, types)
        with_capacity = [
            str(r["name"]) for r in types[type_name].get("regions_with_capacity_available", [])
        ]
        region = order.region or (with_capacity[0] if with_capacity else None)
        if region is None or region not in with_capacity:
            # Checked here because a launch request costs ~12 s of Lambda's rate limit.
            raise CapacityError(
                said("provider.lambda.no_free", type=type_name, region=region)
                if region
                else said("provider.lambda.no_free_any", type=type_name),
                hint=(
                    said("provider.lambda.regions_now", regions=", ".join(with_capacity))
                    if with_capacity
                    else said("provider.lambda.none_now")
                ),
            )
        name = instance_name(order.idempotency_key, MAX_NAME_LENGTH)
        payload = {
            "region_name": region,
            "instance_type_name": type_name,
            "ssh_key_names": [self.ssh_key_name(order.ssh_public_key)],
            "quantity": 1,
            "name": name,
        }

        def accept(response: httpx.Response) -> ClusterInfo:
            data = self._data(response)
            try:
                instance_id = str(data["instance_ids"][0])
            except (KeyError, IndexError, TypeError) as exc:
                raise unreadable(self.name, said("provider.what.launch_answer"), exc) from exc
            info = self.get(instance_id)
            if info is not None:
                return info
            kind = types[type_name]["instance_type"]
            gpu, gpus = gpu_of(kind)
            return ClusterInfo(
                external_id=instance_id,
                name=name,
                state=PROVISIONING,
                gpu=gpu,
                gpu_count=gpus,
                gpus_per_node=gpus,
                fabric="none",
                region=region,
                price_per_gpu_hour_micros=price_per_gpu_micros(kind["price_cents_per_hour"], gpus),
                currency=CURRENCY,
                idempotency_key=key_from_name(name),
            )

        return create_once_per_name(
            provider=self.name,
            find=lambda: self._find_named(name),
            send=lambda: self._client.post(
                f"{self._base}/instance-operations/launch", json=payload
            ),
            accept=accept,
            policy=self._retry,
            pacer=self._pacer,
            sleep=self._sleep,
        )

    def _instances(self) -> list[dict[str, Any]]:
        data = self._data(self._call("GET", "/instances"))
        if not isinstance(data, list):
            raise ProviderError(
                said(
                    "provider.sent_as",
                    provider=self.name,
                    what=said("provider.what.instances"),
                    kind=str(type(data)),
                )
            )
        return data

    def _find_named(self, name: str) -> ClusterInfo | None:
        for raw in self._instances():
            if raw.get("name") == name and raw.get("status") != "terminated":
                return self._info(raw)
        return None

    def get(self, external_id: str) -> ClusterInfo | None:
        response = self._call("GET", f"/instances/{external_id}")
        if response.status_code == 404:
            return self._views.ended(external_id)
        return self._info(self._data(response))

    def clusters(self) -> list[ClusterInfo]:
        found = []
        for raw in self._instances():
            if key_from_name(raw.get("name")) is None:
                continue  # not rented by XyClaw: never reconciled, never released
            info = self._info(raw)
            if info.state != TERMINATED:
                found.append(info)
        return found

    def terminate(self, external_id: str) -> ClusterInfo:
        response = self._call(
            "POST", "/instance-operations/terminate", json={"instance_ids": [external_id]}
        )
        if response.status_code in (400, 404):
            error = self._error(response)
            if isinstance(error, ApiError) and error.code == NOT_FOUND:
                gone = self._views.ended(external_id)
                if gone is not None:
                    return gone
            raise error
        data = self._data(response)
        for raw in data.get("terminated_instances", []) if isinstance(data, dict) else []:
            if str(raw.get("id")) == external_id:
                return self._info(raw)
        info = self.get(external_id)
        if info is None:
            raise ProviderError(
                said("provider.lambda.not_confirmed", id=external_id),
                hint=said("provider.asks_again_hint"),
            )
        return info

    def billing(self) -> list[LedgerEntry]:
        return []  # Lambda's API has no ledger; the meter bills from the price

    def close(self) -> None:
        self._client.close()

    # -- records ---------------------------------------------------------------------------
    def _info(self, raw: dict[str, Any]) -> ClusterInfo:
        try:
            instance_id = str(raw["id"])
            status = str(raw["status"])
            kind = raw.get("instance_type") or {}
            gpu, gpus = gpu_of(kind)
            price = price_per_gpu_micros(int(kind.get("price_cents_per_hour", 0)), gpus)
            region = (raw.get("region") or {}).get("name")
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise unreadable(self.name, said("provider.what.instance_record"), exc) from exc
        state = STATES.get(status, PROVISIONING)
        error: Said | None = None
        if status == "unhealthy":
            error = said("provider.lambda.state.unhealthy")
        elif status == "preempted":
            error = said("provider.lambda.state.preempted")
        name = str(raw.get("name") or instance_id)
        node = NodeInfo(
            external_id=instance_id,
            rank=0,
            hostname=str(raw.get("hostname") or name),
            state=state,
            ssh_host=raw.get("ip") or None,
            ssh_port=self._ssh_port if raw.get("ip") else None,
            ssh_user=SSH_USER,
            error=error,
        )
        info = ClusterInfo(
            external_id=instance_id,
            name=name,
            state=state,
            gpu=gpu,
            gpu_count=gpus,
            gpus_per_node=gpus,
            fabric="none",
            region=region,
            price_per_gpu_hour_micros=price,
            currency=CURRENCY,
            nodes=(node,),
            error=error,
            idempotency_key=key_from_name(name),
            extra={"instance_type": kind.get("name"), "private_ip": raw.get("private_ip")},
        )
        if price > 0 and gpus > 0:
            self._views.remember(info)
        return info


__all__ = [
    "LAMBDA_API_URL",
    "REGIONS",
    "STATES",
    "LambdaProvider",
    "gpu_of",
    "key_name_for",
    "price_per_gpu_micros",
]
