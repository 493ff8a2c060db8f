"""The ``autodl`` provider: AutoDL's elastic deployment API, with a developer token.

The API (https://api.autodl.com, header ``Authorization: <token>``) is open to
enterprise-verified accounts only. Every answer is ``{"code": "Success", "msg",
"data"}``; anything but ``Success`` is an error. Endpoints used:

- ``POST /api/v1/dev/machine/region/gpu_stock``: idle and total GPUs per model in a region
- ``POST /api/v1/dev/image/private/list``: the account's saved images
- ``POST /api/v1/dev/deployment``: create a deployment (XyClaw: a ``Job`` of one container)
- ``POST /api/v1/dev/deployment/list``: deployments, paged
- ``POST /api/v1/dev/deployment/container/list``: a deployment's containers, with
  ``info.ssh_command`` ("ssh -p 38076 root@region-41.seetacloud.com")
- ``PUT /api/v1/dev/deployment/operate`` with ``operate: "stop"``: stop it

One cluster is one deployment of one container on one host (1 to 8 GPUs).
AutoDL publishes no price list through this API, so an offer's price is XyClaw's
ceiling for that GPU, sent as the deployment's ``price_to``: AutoDL never
schedules a container dearer than quoted, and the container's own price is read
back. The container's start command adds the app's public key to
``/root/.ssh/authorized_keys`` and then sleeps, so XyClaw logs in with its key
and the root password AutoDL returns is never read or kept.
"""

from __future__ import annotations

import logging
import shlex
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx

from xyclaw.catalog import Offer, normalise_gpu_name
from xyclaw.errors import CapacityError, ProviderError
from xyclaw.providers.base import (
    FAILED,
    PENDING,
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
    QuotaError,
    UnsupportedRequestError,
    create_once_per_name,
    instance_name,
    json_object,
    key_from_name,
    unreadable,
)
from xyclaw.providers.endpoints import AUTODL_API_URL
from xyclaw.providers.http_retry import ApiError, RetryPolicy, request_with_retries
from xyclaw.wording import Figure, Said, said

log = logging.getLogger(__name__)

CURRENCY = "CNY"
MAX_NAME_LENGTH = 64
SUCCESS = "Success"
MILLI = 1_000  # AutoDL prices are in 1/1000 CNY ("元×1000"); XyClaw keeps 1e-6 CNY
PAGE_SIZE = 100

#: Elastic deployment regions (``region_sign`` / ``dc_list`` values) and AutoDL's names.
REGIONS: dict[str, str] = {
    "westDC2": "西北企业区",
    "westDC3": "西北B区",
    "beijingDC1": "北京A区",
    "beijingDC2": "北京B区",
    "beijingDC3": "V100专区",
    "beijingDC4": "L20专区",
    "neimengDC1": "内蒙A区",
    "neimengDC3": "内蒙B区",
    "foshanDC1": "佛山区",
    "chongqingDC1": "重庆A区",
    "yangzhouDC1": "3090专区",
}

#: AutoDL's public PyTorch 2.0.0 / CUDA 11.8 base image (the API docs' appendix).
DEFAULT_IMAGE = "base-image-l2t43iu6uk"

#: Price ceilings in CNY micro-units per GPU-hour. ASSUMED, not from AutoDL (its API has no
#: price list): plausible caps a little above its public list prices. Set your own in
#: autodl.toml; a container is never scheduled above the ceiling of the offer quoted.
PRICE_CEILINGS: dict[str, int] = {
    "RTX4090": 2_600_000,
    "RTX4090D": 2_300_000,
    "RTX5090": 3_600_000,
    "RTX3090": 1_800_000,
    "RTX3080TI": 1_300_000,
    "L20": 3_200_000,
    "V100-32G": 2_800_000,
    "A800": 7_500_000,
    "H800": 11_000_000,
    "H20": 7_500_000,
}

#: Container statuses (creating -> created -> starting -> oss_merged -> running ->
#: shutting_down -> shutdown) in XyClaw's words.
CONTAINER_STATES = {
    "creating": PROVISIONING,
    "created": PROVISIONING,
    "starting": PROVISIONING,
    "oss_merged": PROVISIONING,
    "running": RUNNING,
    "shutting_down": TERMINATING,
    "shutdown": TERMINATED,
}
DEPLOYMENT_ENDED = ("stopped", "finished", "deleted")

TOKEN_HINT = said("provider.autodl.token_hint")
_MULTI_NODE = said("provider.autodl.why_not.multi_node")
_FABRIC = said("provider.autodl.why_not.fabric")

WHY_NOT: dict[str, str | Said] = {
    Feature.MULTI_NODE: _MULTI_NODE,
    Feature.FABRIC: _FABRIC,
    Feature.STOP_START: said("provider.autodl.why_not.stop_start"),
    Feature.SPOT: said("provider.autodl.why_not.spot"),
    Feature.BILLING_LEDGER: said("provider.autodl.why_not.billing_ledger"),
    Feature.HOST_KEYS: said("provider.why_not.host_keys", provider="AutoDL"),
}


@dataclass(frozen=True)
class AutoDLSettings:
    """What a deployment is made of; ``autodl.toml`` in the config folder can change each."""

    regions: tuple[str, ...] = tuple(REGIONS)
    image_uuid: str = DEFAULT_IMAGE
    cuda_v_from: int = 118
    cuda_v_to: int = 128
    price_ceilings: Mapping[str, int] = field(default_factory=lambda: dict(PRICE_CEILINGS))
    configured: frozenset[str] = frozenset()  # GPUs whose ceiling the user set

    def price_basis(self, gpu: str) -> str:
        return "configured" if gpu in self.configured else "assumed"


_MAX_SSH_COMMAND = 2048


def parse_ssh_command(command: str) -> tuple[str, int, str] | None:
    """``ssh -p 38076 root@region-41.seetacloud.com`` -> (host, port, user); None if unreadable."""
    if len(command) > _MAX_SSH_COMMAND:  # shlex's time grows with a word's length squared
        return None
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    if not words or words[0] != "ssh":
        return None
    port = 22
    target = None
    index = 1
    while index < len(words):
        word = words[index]
        if word == "-p" and index + 1 < len(words):
            index += 1
            port_text = words[index]
        elif word.startswith("-p") and len(word) > 2:
            port_text = word[2:]
        elif word.startswith("-"):
            index += 1
            continue
        else:
            target = word
            index += 1
            continue
        try:
            port = int(port_text)
        except ValueError:
            return None
        index += 1
    if not target:
        return None
    user, _, host = target.rpartition("@")
    return (host, port, user or "root") if host else None


def key_install_command(public_key: str) -> str:
    """The container's start command: authorise the app's key, then keep running.

    Joined with ``;``: AutoDL documents that mixing ``&&`` and ``||`` keeps a container
    from ever stopping.
    """
    key = " ".join(public_key.split())  # one line, whatever the comment holds
    return "; ".join(
        (
            "mkdir -p /root/.ssh",
            "chmod 700 /root/.ssh",
            f"echo {shlex.quote(key)} >> /root/.ssh/authorized_keys",
            "chmod 600 /root/.ssh/authorized_keys",
            "sleep infinity",
        )
    )


def _epoch(text: Any) -> float | None:
    if not text or not isinstance(text, str):
        return None
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def _semicolons(parts: list[Said]) -> Said:
    """``a; b; c`` (``a；b；c`` in Chinese): what each region had, in one figure."""
    if len(parts) == 1:
        return parts[0]
    return said("provider.autodl.seen_more", first=parts[0], rest=_semicolons(parts[1:]))


def _milli_to_micros(value: Any) -> int:
    """AutoDL's 1/1000 CNY (sometimes a float) as XyClaw's integer micro-units."""
    return round(float(value) * MILLI)


class AutoDLProvider:
    """Rents AutoDL elastic deployment containers; one deployment is one cluster."""

    kind = "autodl"
    capabilities = Capabilities(
        rents=True,
        multi_node=False,
        stop_start=False,
        spot=False,
        regions=tuple(REGIONS),
        billing_ledger=False,
        why_not=WHY_NOT,
    )

    def __init__(
        self,
        token: str,
        *,
        name: str = "autodl",
        base_url: str = AUTODL_API_URL,
        settings: AutoDLSettings | None = None,
        state_file: Path | None = None,
        timeout_s: float = 30.0,
        retry: RetryPolicy | None = None,
        transport: httpx.BaseTransport | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if not token:
            raise ProviderError(said("provider.autodl.no_token"), hint=TOKEN_HINT)
        self.name = name
        self.settings = settings or AutoDLSettings()
        self._base = base_url.rstrip("/")
        self._retry = retry or RetryPolicy(attempts=6, base_delay_s=0.5, max_delay_s=10.0)
        self._sleep = sleep
        self._views = LastViews(state_file, currency=CURRENCY, with_nodes=False)
        self._spelling: dict[str, str] = {}  # canonical GPU name -> AutoDL's spelling
        self._client = httpx.Client(
            headers={"Authorization": token, "Content-Type": "application/json"},
            timeout=timeout_s,
            transport=transport,
        )

    # -- HTTP ------------------------------------------------------------------------------
    def _call(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        """One API call with retries; the ``data`` of a ``Success`` answer, else the error."""
        kwargs: dict[str, Any] = {} if body is None else {"json": body}
        response = request_with_retries(
            self._client,
            method,
            f"{self._base}{path}",
            provider=self.name,
            policy=self._retry,
            sleep=self._sleep,
            **kwargs,
        )
        return self._data(response)

    def _data(self, response: httpx.Response) -> Any:
        if response.status_code in (401, 403):
            try:
                answered = response.json()
            except ValueError:
                answered = {}
            raise self._error(response, answered if isinstance(answered, dict) else {})
        body = json_object(response, self.name)
        if response.status_code >= 400 or body.get("code") != SUCCESS:
            raise self._error(response, body)
        return body.get("data")

    def _error(self, response: httpx.Response, body: dict[str, Any]) -> ProviderError:
        """AutoDL's ``code``/``msg`` answer, translated once into the XyclawError tree."""
        code = str(body.get("code") or f"http/{response.status_code}")
        message = str(body.get("msg") or response.reason_phrase or "no message")
        refused = said("provider.autodl.refused", code=code, message=message)
        words = f"{code} {message}".lower()
        if response.status_code in (401, 403) or any(
            w in words for w in ("auth", "token", "unauthorized", "permission", "认证", "权限")
        ):
            return ApiError(refused, status=response.status_code, code=code, hint=TOKEN_HINT)
        if any(w in words for w in ("balance", "余额", "quota", "配额", "欠费", "arrears")):
            return QuotaError(refused, hint=said("provider.autodl.quota_hint"))
        if any(w in words for w in ("stock", "库存", "no machine", "没有可用", "资源不足")):
            return CapacityError(refused, hint=said("provider.autodl.capacity_hint"))
        return ApiError(refused, status=response.status_code, code=code)

    def _pages(self, path: str, body: dict[str, Any]) -> list[dict[str, Any]]:
        """Every item of a paged list (``data.list``, ``max_page``)."""
        items: list[dict[str, Any]] = []
        page = 1
        while True:
            data = self._call("POST", path, {**body, "page_index": page, "page_size": PAGE_SIZE})
            if isinstance(data, list):  # some list answers are the bare list
                return items + [i for i in data if isinstance(i, dict)]
            listed = (data or {}).get("list") or []
            items.extend(i for i in listed if isinstance(i, dict))
            max_page = int((data or {}).get("max_page") or page)
            if not listed or page >= max_page or page >= 50:
                return items
            page += 1

    # -- what AutoDL rents -----------------------------------------------------------------
    def stock(self, region: str) -> dict[str, tuple[int, int]]:
        """GPU model (AutoDL's spelling) -> (idle, total) GPUs in a region."""
        data = self._call(
            "POST",
            "/api/v1/dev/machine/region/gpu_stock",
            {
                "region_sign": region,
                "cuda_v_from": self.settings.cuda_v_from,
                "cuda_v_to": self.settings.cuda_v_to,
            },
        )
        result: dict[str, tuple[int, int]] = {}
        entries = data if isinstance(data, list) else [data or {}]
        try:
            for entry in entries:
                for model, counts in dict(entry).items():
                    idle = int(counts.get("idle_gpu_num", 0))
                    total = int(counts.get("total_gpu_num", 0))
                    result[str(model)] = (idle, total)
                    self._spelling[normalise_gpu_name(str(model))] = str(model)
        except (TypeError, ValueError, AttributeError) as exc:
            raise unreadable(
                self.name, said("provider.what.gpu_stock", region=region), exc
            ) from exc
        return result

    def images(self) -> list[dict[str, str]]:
        """The account's saved images: [{"image_uuid", "image_name"}]."""
        return [
            {
                "image_uuid": str(i.get("image_uuid", "")),
                "image_name": str(i.get("image_name") or i.get("name") or ""),
            }
            for i in self._pages("/api/v1/dev/image/private/list", {})
        ]

    def offers(self) -> list[Offer]:
        result: list[Offer] = []
        for region in self.settings.regions:
            for model, (idle, total) in sorted(self.stock(region).items()):
                gpu = normalise_gpu_name(model)
                ceiling = self.settings.price_ceilings.get(gpu)
                if not ceiling:
                    log.debug("autodl: no price ceiling for %s; not offered", gpu)
                    continue
                for per_node in (1, 2, 4, 8):
                    if per_node > max(total, 1):
                        break
                    result.append(
                        Offer(
                            provider=self.name,
                            offer_id=f"{region}-{gpu}-x{per_node}",
                            region=region,
                            gpu=gpu,
                            gpus_per_node=per_node,
                            node_counts=(1,),
                            fabric="none",
                            price_micro=ceiling,
                            currency=CURRENCY,
                            kind="node",
                            available_gpus=idle,
                            price_basis=self.settings.price_basis(gpu),
                            note=f"{REGIONS.get(region, region)}; the price is XyClaw's "
                            "ceiling (AutoDL's API has no price list); the container's own "
                            "price is read back",
                        )
                    )
        return result

    # -- clusters --------------------------------------------------------------------------
    def create(self, order: ClusterOrder) -> ClusterInfo:
        if order.gpus_per_node not in (None, order.gpu_count):
            raise UnsupportedRequestError(
                said("provider.autodl.several_hosts", count=order.gpu_count, gpu=order.gpu),
                hint=_MULTI_NODE,
            )
        if order.fabric not in (None, "none"):
            raise UnsupportedRequestError(
                said("provider.cannot_fabric", title="AutoDL", fabric=order.fabric), hint=_FABRIC
            )
        if order.gpu_count > 8:
            raise UnsupportedRequestError(
                said("provider.autodl.at_most_8", count=order.gpu_count), hint=_MULTI_NODE
            )
        gpu = normalise_gpu_name(order.gpu)
        ceiling = self.settings.price_ceilings.get(gpu)
        if not ceiling:
            raise UnsupportedRequestError(
                said("provider.autodl.no_ceiling", gpu=gpu),
                hint=said("provider.autodl.no_ceiling_hint", gpu=gpu),
            )
        region, spelling = self._region_for(order, gpu)
        name = instance_name(order.idempotency_key, MAX_NAME_LENGTH)
        payload = {
            "name": name,
            "deployment_type": "Job",
            "replica_num": 1,
            "parallelism_num": 1,
            "reuse_container": False,
            "container_template": {
                "dc_list": [region],
                "gpu_name_set": [spelling],
                "gpu_num": order.gpu_count,
                "cuda_v_from": self.settings.cuda_v_from,
                "cuda_v_to": self.settings.cuda_v_to,
                "cpu_num_from": 1,
                "cpu_num_to": 1024,
                "memory_size_from": 1,
                "memory_size_to": 8192,
                "price_from": 1,
                "price_to": ceiling // MILLI,
                "image_uuid": self._image(order.image),
                "cmd": key_install_command(order.ssh_public_key),
            },
        }

        def accept(response: httpx.Response) -> ClusterInfo:
            data = self._data(response)
            try:
                uuid = str(data["deployment_uuid"])
            except (KeyError, TypeError) as exc:
                raise unreadable(self.name, said("provider.what.create_answer"), exc) from exc
            info = self.get(uuid)
            if info is not None:
                return info
            return ClusterInfo(
                external_id=uuid,
                name=name,
                state=PENDING,
                gpu=gpu,
                gpu_count=order.gpu_count,
                gpus_per_node=order.gpu_count,
                fabric="none",
                region=region,
                price_per_gpu_hour_micros=ceiling,
                currency=CURRENCY,
                idempotency_key=key_from_name(name),
            )

        return create_once_per_name(
            provider=self.name,
            find=lambda: self._find_named(name),
            send=lambda: self._client.post(f"{self._base}/api/v1/dev/deployment", json=payload),
            accept=accept,
            policy=self._retry,
            sleep=self._sleep,
        )

    def _image(self, image: str | None) -> str:
        """AutoDL image ids pass through; XyClaw's image names mean the configured image."""
        if image and (image.startswith("image-") or image.startswith("base-image-")):
            return image
        return self.settings.image_uuid

    def _region_for(self, order: ClusterOrder, gpu: str) -> tuple[str, str]:
        """The region to ask and AutoDL's spelling of the GPU; CapacityError if none has it."""
        regions = [order.region] if order.region else list(self.settings.regions)
        seen: list[Said] = []
        for region in regions:
            stock = self.stock(region)
            for model, (idle, _total) in stock.items():
                if normalise_gpu_name(model) != gpu:
                    continue
                if idle >= order.gpu_count:
                    return region, model
                seen.append(said("provider.autodl.has_idle", region=region, idle=idle))
        where = order.region or said("provider.any_region")
        figures: dict[str, Figure] = {"count": order.gpu_count, "gpu": gpu, "where": where}
        raise CapacityError(
            said("provider.autodl.no_idle_seen", seen=_semicolons(seen), **figures)
            if seen
            else said("provider.autodl.no_idle", **figures),
            hint=said("provider.autodl.no_idle_hint"),
        )

    def _deployments(self) -> list[dict[str, Any]]:
        return self._pages("/api/v1/dev/deployment/list", {})

    def _containers(self, deployment_uuid: str) -> list[dict[str, Any]]:
        return self._pages(
            "/api/v1/dev/deployment/container/list", {"deployment_uuid": deployment_uuid}
        )

    def _find_named(self, name: str) -> ClusterInfo | None:
        for raw in self._deployments():
            if raw.get("name") == name:
                info = self._info(raw, self._containers(str(raw["uuid"])))
                if info.state != TERMINATED:
                    return info
        return None

    def get(self, external_id: str) -> ClusterInfo | None:
        for raw in self._deployments():
            if str(raw.get("uuid")) == external_id:
                return self._info(raw, self._containers(external_id))
        return self._views.ended(external_id)

    def clusters(self) -> list[ClusterInfo]:
        found = []
        for raw in self._deployments():
            if key_from_name(raw.get("name")) is None:
                continue  # not rented by XyClaw: never reconciled, never stopped
            uuid = str(raw.get("uuid"))
            known_gone = self._views.state_of(uuid) == TERMINATED
            if known_gone and str(raw.get("status")) in DEPLOYMENT_ENDED:
                continue  # seen shut down before: no need to list its containers again
            info = self._info(raw, self._containers(uuid))
            if info.state != TERMINATED:
                found.append(info)
        return found

    def terminate(self, external_id: str) -> ClusterInfo:
        try:
            self._call(
                "PUT",
                "/api/v1/dev/deployment/operate",
                {"deployment_uuid": external_id, "operate": "stop"},
            )
        except ApiError:
            # Stopping a stopped or deleted deployment is refused; what it is now decides.
            info = self.get(external_id)
            if info is not None and info.state in (TERMINATING, TERMINATED):
                return info
            raise
        info = self.get(external_id)
        if info is None:
            raise ProviderError(
                said("provider.autodl.not_listed", id=external_id),
                hint=said("provider.asks_again_hint"),
            )
        return info

    def billing(self) -> list[LedgerEntry]:
        return []  # the elastic deployment API has no ledger; the meter bills from the price

    def close(self) -> None:
        self._client.close()

    # -- records ---------------------------------------------------------------------------
    def _info(self, raw: dict[str, Any], containers: list[dict[str, Any]]) -> ClusterInfo:
        try:
            uuid = str(raw["uuid"])
            name = str(raw.get("name") or uuid)
            status = str(raw.get("status", ""))
            template = raw.get("template") or raw.get("container_template") or {}
            wanted = (template.get("gpu_name_set") or ["unknown"])[0]
            gpu_count = int(template.get("gpu_num") or 0)
            regions = template.get("dc_list") or raw.get("dc_list") or [None]
        except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
            raise unreadable(self.name, said("provider.what.deployment_record"), exc) from exc
        nodes: list[NodeInfo] = []
        price = self.settings.price_ceilings.get(normalise_gpu_name(str(wanted)), 0)
        gpu = normalise_gpu_name(str(wanted))
        started: list[float] = []
        stopped: list[float] = []
        for rank, container in enumerate(sorted(containers, key=lambda c: str(c.get("uuid")))):
            try:
                state = CONTAINER_STATES.get(str(container.get("status")), PROVISIONING)
                ssh = parse_ssh_command(str((container.get("info") or {}).get("ssh_command", "")))
                if container.get("gpu_name"):
                    gpu = normalise_gpu_name(str(container["gpu_name"]))
                gpu_count = int(container.get("gpu_num") or gpu_count)
                if container.get("price") not in (None, ""):
                    price = _milli_to_micros(container["price"])
            except (TypeError, ValueError) as exc:
                raise unreadable(self.name, said("provider.what.container_record"), exc) from exc
            for text, bucket in ((container.get("started_at"), started),
                                 (container.get("stopped_at"), stopped)):  # fmt: skip
                stamp = _epoch(text)
                if stamp is not None:
                    bucket.append(stamp)
            nodes.append(
                NodeInfo(
                    external_id=str(container.get("uuid")),
                    rank=rank,
                    hostname=str(container.get("uuid")),
                    state=state,
                    ssh_host=ssh[0] if ssh and state == RUNNING else None,
                    ssh_port=ssh[1] if ssh and state == RUNNING else None,
                    ssh_user=ssh[2] if ssh else "root",
                )
            )
        state, error = self._cluster_state(status, nodes)
        info = ClusterInfo(
            external_id=uuid,
            name=name,
            state=state,
            gpu=gpu,
            gpu_count=gpu_count,
            gpus_per_node=gpu_count,
            fabric="none",
            region=str(regions[0]) if regions[0] else None,
            price_per_gpu_hour_micros=price,
            currency=CURRENCY,
            nodes=tuple(nodes),
            created_at=_epoch(raw.get("created_at")),
            running_at=min(started) if started else None,
            terminated_at=max(stopped) if stopped and state == TERMINATED else None,
            error=error,
            idempotency_key=key_from_name(name),
            extra={"status": status},
        )
        if price > 0 and gpu_count > 0:
            self._views.remember(info)
        return info

    @staticmethod
    def _cluster_state(status: str, nodes: list[NodeInfo]) -> tuple[str, Said | None]:
        states = {n.state for n in nodes}
        if status in DEPLOYMENT_ENDED:
            return (TERMINATING, None) if states - {TERMINATED} else (TERMINATED, None)
        if not nodes:
            return PENDING, None
        if RUNNING in states:
            return RUNNING, None
        if states <= {TERMINATED, TERMINATING}:
            return FAILED, said("provider.autodl.state.stopped_itself")
        return PROVISIONING, None


__all__ = [
    "AUTODL_API_URL",
    "CONTAINER_STATES",
    "DEFAULT_IMAGE",
    "PRICE_CEILINGS",
    "REGIONS",
    "AutoDLProvider",
    "AutoDLSettings",
    "key_install_command",
    "parse_ssh_command",
]
