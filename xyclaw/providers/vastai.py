"""The ``vastai`` provider: Vast.ai's marketplace over its REST API, with an API key.

Request and response shapes are taken from the official SDK, vast-ai/vast-cli
(``vastai`` 1.9.1): ``vastai/api/client.py`` (``https://console.vast.ai``, paths under
``/api/v0`` unless ``/api/vN/`` is given, ``Authorization: Bearer <key>``),
``vastai/api/offers.py`` (``POST /api/v0/bundles/`` with ``{field: {op: value}}``,
``order``, ``limit``, ``type``, ``allocated_storage``; answer ``{"offers": [...]}``) and
``vastai/api/instances.py`` (``PUT /api/v0/asks/{id}/`` with ``client_id: "me"``,
``image``, ``disk``, ``label``, ``env``, ``onstart``, ``runtype``, ``args``; answer
``{"success", "new_contract"}``; ``GET /api/v1/instances/`` paged 25 rows at a time
through ``next_token`` / ``after_token``; ``GET /api/v0/instances/{id}/?owner=me`` answers
``{"instances": {...} | null}``; ``DELETE /api/v0/instances/{id}/``), and from
../shared/docs/anchors-wave3.md section 2 (the v0 listing answers 410
``deprecated_endpoint`` or 200 with ``success: false``; a bad key 404 ``auth_error``;
``no_such_instance`` on destroy means done; outbid shows as ``cur_state`` "stopped").
The provider's own charges come from ``GET /api/v0/charges/`` as ``vastai/api/billing.py``
(``show_invoices_v1`` with ``charges``) asks it: ``select_filters`` ``{"day": {"gte", "lte"},
"type": {"in": ["instance"]}}``, ``limit`` up to 100, ``after_token`` from ``next_token``;
each result has ``type``, ``source``, ``amount``, ``start``, ``end``, ``items`` (the
fields vast-cli's ``create_rich_table_for_charges`` shows); ``source`` names the instance
(``instance-<id>``). Bandwidth: the instance record's cumulative ``inet_up_billed`` /
``inet_down_billed`` at ``inet_up_cost`` / ``inet_down_cost`` USD per GB (field names as
vast-cli's and spotty's instance readers use them; spotty's
``providers/vast/instance_manager.py`` divides the counters by 1024 to show GB, so they
are read as MB here; a third party measured them as kB: the comparison with the charges
above is what catches a wrong unit).

One rented ask is one cluster (one machine, 1 to 8+ GPUs of one host). Vast has no
idempotency key: the instance's ``label`` carries the intent's key, and a create first
lists the account's instances for that label (``create_once_per_name``), so a crash
between the rent and the record leaks nothing: the next start finds it by its label.

Listing answers XyClaw cannot read raise :class:`ProviderStateUnknownError`, never an
empty list: a cluster is never taken for gone because the API changed.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from xyclaw.catalog import Offer, normalise_gpu_name
from xyclaw.errors import CapacityError, ProviderError, ProviderStateUnknownError, UsageError
from xyclaw.providers.base import (
    FAILED,
    PROVISIONING,
    RUNNING,
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
from xyclaw.providers.endpoints import VASTAI_API_URL
from xyclaw.providers.http_retry import ApiError, RetryPolicy, request_with_retries
from xyclaw.wording import Said, said

log = logging.getLogger(__name__)

VAST_API_URL = VASTAI_API_URL
CURRENCY = "USD"
MAX_LABEL_LENGTH = 64
PAGE_ROWS = 25  # the v1 listing's page size (vastai/api/instances.py)
MAX_PAGES = 400  # 10,000 instances: past that a next_token loop is a broken answer
DEFAULT_IMAGE = "nvidia/cuda:12.4.1-devel-ubuntu22.04"
DEFAULT_DISK_GB = 40
SSH_USER = "root"  # Vast instances are Docker containers run as root
OFFER_LIMIT = 64
CHARGE_PAGE_ROWS = 100  # the charges listing's largest page (vastai/api/billing.py)
CHARGE_DAYS = 90  # how far back `xyclaw billing` asks for Vast's charges
INET_BILLED_MB_PER_GB = 1024.0  # inet_*_billed are MB (see the module's docstring)

KEY_HINT = said("provider.vastai.key_hint")
_MULTI_NODE = said("provider.vastai.why_not.multi_node")
_FABRIC = said("provider.vastai.why_not.fabric")

#: ``actual_status`` of an instance in XyClaw's words (an unknown one reads as provisioning).
STATES = {
    "created": PROVISIONING,
    "loading": PROVISIONING,
    "scheduling": PROVISIONING,
    "running": RUNNING,
    "exited": FAILED,
    "stopped": FAILED,
    "offline": FAILED,
}

WHY_NOT: dict[str, str | Said] = {
    Feature.MULTI_NODE: _MULTI_NODE,
    Feature.FABRIC: _FABRIC,
    Feature.STOP_START: said("provider.vastai.why_not.stop_start"),
    Feature.SPOT: said("provider.vastai.why_not.spot"),
    Feature.BILLING_LEDGER: said("provider.vastai.why_not.billing_ledger"),
    Feature.HOST_KEYS: said("provider.why_not.host_keys", provider="Vast.ai"),
    Feature.HOST_SYSTEM: said("provider.vastai.why_not.host_system"),
}


@dataclass(frozen=True)
class HostFacts:
    """What the marketplace says about an offer's host, as the planner and cards show it."""

    verified: bool
    reliability: float | None
    dlperf: float | None
    inet_up_mbps: float | None
    inet_down_mbps: float | None
    cuda: float | None
    machine_id: str | None

    @property
    def community(self) -> bool:
        return not self.verified

    def summary(self) -> str:
        """ "community host, reliability 0.97, DLPerf 25.1, inet 512/800 Mbps, CUDA 12.4"."""
        parts = ["verified host" if self.verified else "community host"]
        if self.reliability is not None:
            parts.append(f"reliability {self.reliability:.2f}")
        if self.dlperf is not None:
            parts.append(f"DLPerf {self.dlperf:.1f}")
        if self.inet_up_mbps is not None and self.inet_down_mbps is not None:
            parts.append(f"inet {self.inet_up_mbps:.0f}/{self.inet_down_mbps:.0f} Mbps up/down")
        if self.cuda is not None:
            parts.append(f"CUDA {self.cuda:g}")
        return ", ".join(parts)


def _float(value: Any) -> float | None:
    try:
        return None if value is None else float(value)
    except (TypeError, ValueError):
        return None


def host_facts(raw: dict[str, Any]) -> HostFacts:
    machine = raw.get("machine_id")
    return HostFacts(
        verified=bool(raw.get("verified")),
        reliability=_float(raw.get("reliability2", raw.get("reliability"))),
        dlperf=_float(raw.get("dlperf")),
        inet_up_mbps=_float(raw.get("inet_up")),
        inet_down_mbps=_float(raw.get("inet_down")),
        cuda=_float(raw.get("cuda_max_good")),
        machine_id=None if machine is None else str(machine),
    )


def bandwidth_micros(raw: dict[str, Any]) -> int | None:
    """What the instance's traffic so far costs, in micro-USD: its billed MB up and down at
    its own per-GB prices; None when the record carries no traffic figures."""
    up, down = _float(raw.get("inet_up_billed")), _float(raw.get("inet_down_billed"))
    if up is None and down is None:
        return None
    up_cost = _float(raw.get("inet_up_cost")) or 0.0
    down_cost = _float(raw.get("inet_down_cost")) or 0.0
    dollars = ((up or 0.0) * up_cost + (down or 0.0) * down_cost) / INET_BILLED_MB_PER_GB
    return max(0, round(dollars * 1_000_000))


def _storage_micros(raw: dict[str, Any]) -> int | None:
    """The instance's storage price per hour (``storage_total_cost``), in micro-USD."""
    cost = _float(raw.get("storage_total_cost"))
    return None if cost is None or cost <= 0 else round(cost * 1_000_000)


def _charged_instance(source: Any) -> str | None:
    """The instance id a charge line names (``instance-123``), else None."""
    text = str(source or "").strip()
    if text.startswith("instance-") and text[9:].isdigit():
        return text[9:]
    return None


def _dollars(value: Any) -> float | None:
    """A charge's amount: a number, or text such as "$1.23" (the table format)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value.strip().lstrip("$").replace(",", ""))
        except ValueError:
            return None
    return None


def vast_gpu_name(gpu: str) -> str:
    """The catalog's name in Vast's spelling for the ``gpu_name`` filter ("H100-SXM" ->
    "H100 SXM", "RTX4090" -> "RTX 4090")."""
    text = normalise_gpu_name(gpu).replace("-", " ")
    if text.startswith("RTX") and not text.startswith("RTX "):
        text = "RTX " + text[3:]
    return text


def per_gpu_micros(dollars_per_hour: float, gpus: int) -> int:
    return round(float(dollars_per_hour) * 1_000_000 / max(1, gpus))


def _region(geolocation: Any) -> str:
    text = str(geolocation or "").strip()
    return text or "unknown"


def ssh_endpoint(raw: dict[str, Any]) -> tuple[str | None, int | None]:
    """The direct SSH address (public IP and the host port mapped to 22/tcp), else Vast's
    proxy (``ssh_host``:``ssh_port``), as ``sky/provision/vast/instance.py`` reads them."""
    ports = raw.get("ports") or {}
    mapped = ports.get("22/tcp") if isinstance(ports, dict) else None
    ip = raw.get("public_ipaddr")
    if ip and isinstance(mapped, list) and mapped:
        try:
            return str(ip).strip(), int(mapped[0]["HostPort"])
        except (KeyError, TypeError, ValueError):
            pass
    if raw.get("ssh_host") and raw.get("ssh_port"):
        try:
            return str(raw["ssh_host"]), int(raw["ssh_port"])
        except (TypeError, ValueError):
            return None, None
    return None, None


def start_script(public_key: str) -> str:
    """What the container runs first: trust only this cluster's key, start sshd on 22.

    Vast's ``ssh`` run types would add the account's global keys; ``args`` adds none.
    """
    key = public_key.strip().replace("'", "")
    return (
        "set -e; mkdir -p /root/.ssh; chmod 700 /root/.ssh; "
        f"printf '%s\\n' '{key}' > /root/.ssh/authorized_keys; "
        "chmod 600 /root/.ssh/authorized_keys; "
        "if ! command -v sshd >/dev/null 2>&1; then "
        "(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "
        "openssh-server) >/dev/null 2>&1; fi; "
        "mkdir -p /run/sshd; ssh-keygen -A >/dev/null 2>&1 || true; "
        "/usr/sbin/sshd -o PasswordAuthentication=no -o AllowAgentForwarding=no; "
        "sleep infinity"
    )


class VastProvider:
    """Rents Vast.ai asks; one instance is one cluster."""

    kind = "vastai"
    #: Hosts are run by strangers: each cluster gets an SSH key of its own, not the app's.
    untrusted_hosts = True
    capabilities = Capabilities(
        rents=True,
        multi_node=False,
        stop_start=False,
        spot=False,
        billing_ledger=True,  # the charges listing: compared with the meter
        why_not=WHY_NOT,
    )

    def __init__(
        self,
        api_key: str,
        *,
        name: str = "vastai",
        base_url: str = VAST_API_URL,
        state_file: Path | None = None,
        timeout_s: float = 30.0,
        retry: RetryPolicy | None = None,
        sleep: Callable[[float], None] = time.sleep,
        verified_only: bool = False,
    ) -> None:
        """``verified_only`` leaves community hosts out of the offers; ``state_file`` keeps
        the last view of each instance so a release confirmed after Vast forgot it still
        knows its price."""
        if not api_key:
            raise ProviderError(said("provider.vastai.no_key"), hint=KEY_HINT)
        self.name = name
        self._base = base_url.rstrip("/")
        self._retry = retry or RetryPolicy(attempts=6, base_delay_s=1.0, max_delay_s=15.0)
        self._sleep = sleep
        self._verified_only = verified_only
        self._views = LastViews(state_file)
        #: Offers left out by the last ``offers()``, each with the reason (shown by the CLI).
        self.filtered: list[tuple[str, Said]] = []
        self._client = httpx.Client(
            headers={"Authorization": f"Bearer {api_key}", "Accept": "application/json"},
            timeout=timeout_s,
        )

    # -- HTTP ------------------------------------------------------------------------------
    def _url(self, path: str) -> str:
        return f"{self._base}{path if path.startswith('/api/v') else '/api/v0' + path}"

    def _call(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        return request_with_retries(
            self._client,
            method,
            self._url(path),
            provider=self.name,
            policy=self._retry,
            sleep=self._sleep,
            **kwargs,
        )

    def _error(self, response: httpx.Response) -> ProviderError:
        """Vast's ``{"success": false, "error", "msg"}`` in the XyclawError tree."""
        try:
            body = response.json()
        except ValueError:
            body = {}
        if not isinstance(body, dict):
            body = {}
        code = str(body.get("error") or f"http/{response.status_code}")
        message = str(body.get("msg") or body.get("message") or response.reason_phrase)
        refused = said("provider.vastai.refused", message=message)
        if code == "auth_error" or response.status_code in (401, 403):
            return ApiError(
                said("provider.vastai.key_refused", message=message),
                status=response.status_code,
                code=code,
                hint=KEY_HINT,
            )
        if code in ("no_such_ask", "ask_unavailable") or response.status_code == 409:
            return CapacityError(refused, hint=said("provider.vastai.taken_hint"))
        if code == "insufficient_credit":
            return CapacityError(refused, hint=said("provider.vastai.credit_hint"))
        return ApiError(refused, status=response.status_code, code=code)

    def _unknown(self, what: Said) -> ProviderStateUnknownError:
        """``what``: how the listing answered (a ``provider.listing.*`` wording)."""
        return ProviderStateUnknownError(
            said("provider.vastai.unknown", what=what), hint=said("provider.vastai.unknown_hint")
        )

    def _listing_body(self, response: httpx.Response) -> dict[str, Any]:
        """A listing's JSON object, or "state unknown" for anything XyClaw cannot trust."""
        if response.status_code == 410:
            return self._raise_unknown(said("provider.listing.gone"))
        if response.status_code >= 400:
            error = self._error(response)
            if isinstance(error, ApiError) and error.code == "auth_error":
                raise error
            raise self._unknown(
                said(
                    "provider.listing.http_message",
                    status=response.status_code,
                    message=error.said or error.message,
                )
            )
        try:
            body = response.json()
        except ValueError:
            return self._raise_unknown(said("provider.listing.not_json"))
        if not isinstance(body, dict):
            return self._raise_unknown(said("provider.listing.not_object"))
        if body.get("success") is False:
            msg = body.get("msg") or body.get("error") or "no reason"
            return self._raise_unknown(said("provider.listing.not_success", message=str(msg)))
        return body

    def _raise_unknown(self, what: Said) -> dict[str, Any]:
        raise self._unknown(what)

    # -- offers ----------------------------------------------------------------------------
    def search(self, query: dict[str, Any]) -> list[dict[str, Any]]:
        """``POST /bundles/`` with Vast's filter language; the raw offers."""
        q: dict[str, Any] = {
            "external": {"eq": False},
            "rentable": {"eq": True},
            "rented": {"eq": False},
            "order": [["dph_total", "asc"]],
            "type": "on-demand",
            "limit": OFFER_LIMIT,
            "allocated_storage": DEFAULT_DISK_GB,
        }
        if self._verified_only:
            q["verified"] = {"eq": True}
        q.update(query)
        response = self._call("POST", "/bundles/", json=q)
        if response.status_code >= 400:
            raise self._error(response)
        body = json_object(response, self.name)
        offers = body.get("offers")
        if not isinstance(offers, list):
            raise unreadable(self.name, said("provider.what.offers"), KeyError("offers"))
        return [o for o in offers if isinstance(o, dict)]

    def offers(self) -> list[Offer]:
        return self._offers({})

    def _offers(self, query: dict[str, Any]) -> list[Offer]:
        result: list[Offer] = []
        filtered: list[tuple[str, Said]] = []
        for raw in self.search(query):
            try:
                offer_id = str(raw["id"])
                gpus = int(raw["num_gpus"])
                total = float(raw["dph_total"])
                gpu = str(raw["gpu_name"])
            except (KeyError, TypeError, ValueError) as exc:
                raise unreadable(self.name, said("provider.what.offer"), exc) from exc
            if gpus < 1:
                continue
            if int(raw.get("direct_port_count") or 0) < 1:
                filtered.append((offer_id, said("provider.left_out.no_direct_port")))
                continue
            facts = host_facts(raw)
            result.append(
                Offer(
                    provider=self.name,
                    offer_id=offer_id,
                    region=_region(raw.get("geolocation")),
                    gpu=gpu,
                    gpus_per_node=gpus,
                    node_counts=(1,),
                    fabric="none",
                    price_micro=per_gpu_micros(total, gpus),
                    currency=CURRENCY,
                    kind="node",
                    available_gpus=gpus,
                    price_basis="live",
                    note=facts.summary(),
                    host=facts.summary(),
                    community=facts.community,
                )
            )
        self.filtered = filtered
        return result

    # -- clusters --------------------------------------------------------------------------
    def _choose(self, order: ClusterOrder) -> dict[str, Any]:
        if order.gpus_per_node not in (None, order.gpu_count):
            raise UnsupportedRequestError(
                said("provider.vastai.several_machines", count=order.gpu_count, gpu=order.gpu),
                hint=_MULTI_NODE,
            )
        if order.fabric not in (None, "none"):
            raise UnsupportedRequestError(
                said("provider.cannot_fabric", title="Vast.ai", fabric=order.fabric), hint=_FABRIC
            )
        wanted = normalise_gpu_name(order.gpu)
        spelled = vast_gpu_name(wanted)
        names = [spelled, *(f"{spelled} {form}" for form in ("SXM", "SXM4", "PCIE", "NVL"))]
        query: dict[str, Any] = {
            "gpu_name": {"in": names},
            "num_gpus": {"eq": order.gpu_count},
            "direct_port_count": {"gte": 1},
        }
        if order.offer_id is not None:
            # The ask the user approved, one host: never a cheaper one listed since, which may
            # be a community host the card did not name. Filtering bundles by
            # ``ask_contract_id`` is how public Vast clients look one ask up again.
            if not order.offer_id.isdigit():
                raise UsageError(said("provider.vastai.not_ask_id", offer=repr(order.offer_id)))
            query["ask_contract_id"] = {"eq": int(order.offer_id)}
        for raw in self.search(query):
            if order.offer_id is not None and str(raw.get("id")) != order.offer_id:
                continue
            try:
                if normalise_gpu_name(str(raw["gpu_name"])) != wanted:
                    continue
                if int(raw["num_gpus"]) != order.gpu_count:
                    continue
            except (KeyError, TypeError, ValueError):
                continue
            if int(raw.get("direct_port_count") or 0) < 1:
                continue
            if order.region and _region(raw.get("geolocation")).lower() != order.region.lower():
                continue
            return raw
        if order.offer_id is not None:
            raise CapacityError(
                said("provider.vastai.ask_gone", ask=order.offer_id),
                hint=said("provider.vastai.ask_gone_hint"),
            )
        raise CapacityError(
            said(
                "provider.vastai.no_offer_in" if order.region else "provider.vastai.no_offer",
                count=order.gpu_count,
                gpu=wanted,
                region=order.region,
            ),
            hint=said("provider.vastai.free_now_hint"),
        )

    def create(self, order: ClusterOrder) -> ClusterInfo:
        label = instance_name(order.idempotency_key, MAX_LABEL_LENGTH)
        existing = self._find_labelled(label)
        if existing is not None:
            return existing
        ask = self._choose(order)
        ask_id = str(ask["id"])
        payload = {
            "client_id": "me",
            "image": order.image or DEFAULT_IMAGE,
            "disk": DEFAULT_DISK_GB,
            "label": label,
            "env": {"-p 22:22": "1"},
            "runtype": "args",
            "onstart": "/bin/sh",
            "args": ["-c", start_script(order.ssh_public_key)],
        }

        def accept(response: httpx.Response) -> ClusterInfo:
            if response.status_code >= 400:
                raise self._error(response)
            body = json_object(response, self.name)
            if not body.get("success") or body.get("new_contract") is None:
                raise ApiError(
                    said(
                        "provider.vastai.not_rented",
                        ask=ask_id,
                        message=str(body.get("msg") or body),
                    ),
                    status=response.status_code,
                    code=str(body.get("error") or "no_contract"),
                )
            instance_id = str(body["new_contract"])
            info = self.get(instance_id)
            if info is not None:
                return info
            return self._info(
                {**ask, "id": instance_id, "label": label, "actual_status": "created"}
            )

        return create_once_per_name(
            provider=self.name,
            find=lambda: self._find_labelled(label),
            send=lambda: self._client.put(self._url(f"/asks/{ask_id}/"), json=payload),
            accept=accept,
            policy=self._retry,
            sleep=self._sleep,
        )

    def instances(self) -> list[dict[str, Any]]:
        """Every instance of the account, page by page through the v1 listing."""
        rows: list[dict[str, Any]] = []
        params: dict[str, str] = {
            "select_filters": "{}",
            "order_by": json.dumps([{"col": "id", "dir": "asc"}]),
            "limit": str(PAGE_ROWS),
        }
        total: int | None = None
        seen_tokens: set[str] = set()
        for _ in range(MAX_PAGES):
            body = self._listing_body(self._call("GET", "/api/v1/instances/", params=params))
            page = body.get("instances")
            if not isinstance(page, list):
                raise self._unknown(said("provider.listing.no_instances"))
            for row in page:
                if not isinstance(row, dict) or "id" not in row or "actual_status" not in row:
                    raise self._unknown(said("provider.listing.instance_fields"))
                rows.append(row)
            if isinstance(body.get("total_instances"), int):
                total = int(body["total_instances"])
            token = body.get("next_token")
            if not token:
                break
            if str(token) in seen_tokens:
                raise self._unknown(said("provider.listing.token_again"))
            seen_tokens.add(str(token))
            params["after_token"] = str(token)
        else:
            raise self._unknown(said("provider.listing.too_many_pages", pages=MAX_PAGES))
        if total is not None and total != len(rows):
            raise self._unknown(said("provider.listing.short", rows=len(rows), total=total))
        return rows

    def _find_labelled(self, label: str) -> ClusterInfo | None:
        for raw in self.instances():
            if raw.get("label") == label:
                return self._info(raw)
        return None

    def get(self, external_id: str) -> ClusterInfo | None:
        response = self._call("GET", f"/instances/{external_id}/", params={"owner": "me"})
        if response.status_code == 404:
            error = self._error(response)
            if isinstance(error, ApiError) and error.code == "auth_error":
                raise error
            return self._views.ended(external_id)
        body = self._listing_body(response)
        if "instances" not in body:
            raise self._unknown(said("provider.listing.one_no_field"))
        raw = body["instances"]
        if raw is None:
            return self._views.ended(external_id)
        if not isinstance(raw, dict) or "actual_status" not in raw:
            raise self._unknown(said("provider.listing.one_shape"))
        return self._info(raw)

    def clusters(self) -> list[ClusterInfo]:
        return [
            self._info(raw)
            for raw in self.instances()
            if key_from_name(raw.get("label")) is not None  # never the user's own
        ]

    def terminate(self, external_id: str) -> ClusterInfo:
        """Destroy (never stop: a stopped instance bills its storage)."""
        response = self._call("DELETE", f"/instances/{external_id}/", json={})
        if response.status_code >= 400:
            error = self._error(response)
            if not (isinstance(error, ApiError) and error.code == "no_such_instance"):
                raise error
        else:
            body = json_object(response, self.name)
            if body.get("success") is False and body.get("error") != "no_such_instance":
                raise ApiError(
                    said(
                        "provider.vastai.not_destroyed",
                        id=external_id,
                        message=str(body.get("msg") or body),
                    ),
                    status=response.status_code,
                    code=str(body.get("error") or "not_destroyed"),
                )
        gone = self._views.ended(external_id)
        if gone is None:
            raise ProviderError(
                said("provider.vastai.never_seen", id=external_id),
                hint=said("provider.check_clusters_hint"),
            )
        return gone

    def charges(self, since: float, until: float) -> list[dict[str, Any]]:
        """The account's instance charges between two times, page by page."""
        filters = {"day": {"gte": int(since), "lte": int(until)}, "type": {"in": ["instance"]}}
        params: dict[str, str] = {
            "select_filters": json.dumps(filters),
            "latest_first": "false",
            "limit": str(CHARGE_PAGE_ROWS),
            "format": "tree",
        }
        rows: list[dict[str, Any]] = []
        seen_tokens: set[str] = set()
        for _ in range(MAX_PAGES):
            response = self._call("GET", "/api/v0/charges/", params=params)
            if response.status_code >= 400:
                raise self._error(response)
            body = json_object(response, self.name)
            page = body.get("results")
            if not isinstance(page, list):
                raise unreadable(self.name, said("provider.what.charges"), KeyError("results"))
            rows.extend(r for r in page if isinstance(r, dict))
            token = body.get("next_token")
            if not token or str(token) in seen_tokens:
                return rows
            seen_tokens.add(str(token))
            params["after_token"] = str(token)
        raise unreadable(
            self.name, said("provider.what.charges"), ValueError(f"over {MAX_PAGES} pages")
        )

    def billing(self) -> list[LedgerEntry]:
        """What Vast charged each instance in the last ``CHARGE_DAYS`` days (GPU, storage and
        bandwidth, as Vast bills them), one entry per charge line."""
        now = time.time()
        entries: list[LedgerEntry] = []
        for row in self.charges(now - CHARGE_DAYS * 86400, now):
            instance = _charged_instance(row.get("source"))
            amount = _dollars(row.get("amount"))
            if instance is None:
                continue  # a volume or an endpoint, not an instance
            if amount is None:
                raise unreadable(
                    self.name, said("provider.what.charge"), ValueError(repr(row.get("amount")))
                )
            entries.append(
                LedgerEntry(
                    cluster_external_id=instance,
                    node_external_id=instance,
                    start=_float(row.get("start")) or 0.0,
                    end=_float(row.get("end")),
                    seconds=0,
                    amount_micros=round(amount * 1_000_000),
                    currency=CURRENCY,
                )
            )
        return entries

    def close(self) -> None:
        self._client.close()

    # -- records ---------------------------------------------------------------------------
    def _info(self, raw: dict[str, Any]) -> ClusterInfo:
        try:
            instance_id = str(raw["id"])
            gpus = int(raw.get("num_gpus") or 0)
            gpu = normalise_gpu_name(str(raw.get("gpu_name") or "unknown"))
            price = per_gpu_micros(float(raw.get("dph_total") or 0.0), gpus)
        except (KeyError, TypeError, ValueError) as exc:
            raise unreadable(self.name, said("provider.what.instance_record"), exc) from exc
        status = str(raw.get("actual_status") or "created")
        state = STATES.get(status, PROVISIONING)
        error: Said | None = None
        if raw.get("intended_status") == "stopped" or status in ("stopped", "exited"):
            state = FAILED
            error = said("provider.vastai.state.stopped")
        elif status == "offline":
            error = said("provider.vastai.state.offline")
        host, port = ssh_endpoint(raw)
        label = str(raw.get("label") or instance_id)
        facts = host_facts(raw)
        node = NodeInfo(
            external_id=instance_id,
            rank=0,
            hostname=f"vast-{instance_id}",
            state=state,
            ssh_host=host if state == RUNNING else None,
            ssh_port=port if state == RUNNING else None,
            ssh_user=SSH_USER,
            error=error,
        )
        info = ClusterInfo(
            external_id=instance_id,
            name=label,
            state=state,
            gpu=gpu,
            gpu_count=gpus,
            gpus_per_node=gpus,
            fabric="none",
            region=_region(raw.get("geolocation")),
            price_per_gpu_hour_micros=price,
            currency=CURRENCY,
            nodes=(node,),
            created_at=_float(raw.get("start_date")),
            error=error,
            idempotency_key=key_from_name(label),
            extra={
                "host": facts.summary(),
                "community": facts.community,
                "machine_id": facts.machine_id,
                "storage_usd_per_hour": _float(raw.get("storage_total_cost")),
                "inet_up_usd_per_gb": _float(raw.get("inet_up_cost")),
                "inet_down_usd_per_gb": _float(raw.get("inet_down_cost")),
                "bandwidth_micros": bandwidth_micros(raw),
                # Stopped (outbid, or by its host): the GPU time ends, the disk bills on.
                "stopped_storage_micros_per_hour": _storage_micros(raw)
                if state == FAILED
                else None,
            },
        )
        if price > 0 and gpus > 0:
            self._views.remember(info)
        return info


__all__ = [
    "STATES",
    "VAST_API_URL",
    "HostFacts",
    "VastProvider",
    "bandwidth_micros",
    "host_facts",
    "ssh_endpoint",
    "start_script",
    "vast_gpu_name",
]
