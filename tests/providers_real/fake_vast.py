"""A fake Vast.ai: the API as vast-ai/vast-cli 1.9.1 calls it, served on 127.0.0.1.

Shapes follow ``vastai/api/offers.py`` and ``vastai/api/instances.py`` (bundles search,
``PUT /asks/{id}/``, the paged v1 listing, per-id v0 reads, destroy) and
../shared/docs/anchors-wave3.md section 2 (the v0 listing answers 410
``deprecated_endpoint``; a bad key 404 ``auth_error``). ``listing_mode`` switches the v1
listing to the answers that hid billing clusters from SkyPilot (#10517): ``"410"``,
``"success-false"``, ``"renamed"`` (``actual_status`` renamed), ``"page-missing"``.
An instance bills from its rent until it is destroyed (``billing``), listed or not
(``hidden``).
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

KEY = "vast-test-key"


def _offer(
    ask: int,
    gpu: str,
    gpus: int,
    dph: float,
    *,
    verified: bool = True,
    direct: int = 4,
    **more: Any,
) -> dict[str, Any]:
    row = {
        "id": ask,
        "ask_contract_id": ask,
        "machine_id": 9000 + ask,
        "host_id": 700 + ask,
        "gpu_name": gpu,
        "num_gpus": gpus,
        "gpu_ram": 81559,
        "dph_base": round(dph * 0.95, 4),
        "dph_total": dph,
        "storage_cost": 0.1,
        "verified": verified,
        "reliability2": 0.9712,
        "dlperf": 25.13,
        "inet_up": 512.3,
        "inet_down": 801.9,
        "cuda_max_good": 12.4,
        "geolocation": "US",
        "direct_port_count": direct,
        "rentable": True,
        "rented": False,
        "external": False,
        "inet_up_cost": 0.005,
        "inet_down_cost": 0.005,
    }
    row.update(more)
    return row


def default_offers() -> list[dict[str, Any]]:
    return [
        _offer(101, "H100 SXM", 1, 1.95),
        _offer(102, "H100 SXM", 8, 16.40, geolocation="Norway"),
        _offer(103, "RTX 4090", 1, 0.31, verified=False),
        _offer(104, "RTX 4090", 1, 0.28, verified=False, direct=0),
        _offer(105, "RTX 4090", 2, 0.70),
    ]


@dataclass
class VastInstance:
    id: int
    label: str | None
    ask: dict[str, Any]
    image: str
    args: list[str]
    started: float
    actual_status: str = "loading"
    intended_status: str = "running"
    destroyed: float | None = None
    ssh: tuple[str, int] | None = None  # (host, port) of its node, once it runs
    inet_up_mb: float = 0.0  # billed traffic so far (the record's inet_*_billed, MB)
    inet_down_mb: float = 0.0


@dataclass
class FakeVast(FakeCloud):
    key: str = KEY
    boot_s: float = 0.0
    listing_mode: str = ""
    offers: list[dict[str, Any]] = field(default_factory=default_offers)
    instances: dict[int, VastInstance] = field(default_factory=dict)
    others: int = 0  # instances of the account XyClaw did not rent (no xyclaw- label)
    # Starts the instance's machine from its start script; gives its SSH (host, port).
    on_running: Callable[[VastInstance, str], tuple[str, int]] | None = None
    create_delay_s: float = 0.0  # the rent's answer is slow *after* the rent is made
    destroy_delay_s: float = 0.0  # likewise the destroy's
    # Instances the listing and the per-id read leave out while they go on billing (the
    # deprecation that hid SkyPilot's clusters, #10517).
    hidden: set[int] = field(default_factory=set)
    # What Vast charges against the instance's own price (SkyPilot #4914: a bill apart from
    # the price shown); the charges listing answers with it, bandwidth included.
    charge_factor: float = 1.0
    charges_mode: str = ""  # "500": the charges listing fails

    def __post_init__(self) -> None:
        super().__init__()
        self._ids = itertools.count(5_000_001)
        for _ in range(self.others):
            self._rent(self.offers[0], "my-own-notebook", "img", [])

    # -- helpers for tests -----------------------------------------------------------------
    def billing(self) -> list[VastInstance]:
        with self.lock:
            return [i for i in self.instances.values() if i.destroyed is None]

    def _rent(self, ask: dict[str, Any], label: str | None, image: str, args: list[str]) -> int:
        instance_id = next(self._ids)
        self.instances[instance_id] = VastInstance(
            instance_id, label, dict(ask), image, args, time.time()
        )
        return instance_id

    def _row(self, inst: VastInstance) -> dict[str, Any]:
        if inst.actual_status == "loading" and time.time() - inst.started >= self.boot_s:
            inst.actual_status = "running"
            if self.on_running is not None and inst.label and inst.label.startswith("xyclaw-"):
                inst.ssh = self.on_running(inst, inst.args[-1] if inst.args else "")
        host, port = inst.ssh or ("127.0.0.1", 22000 + inst.id % 1000)
        ask = inst.ask
        row = {
            "id": inst.id,
            "label": inst.label,
            "actual_status": inst.actual_status,
            "cur_state": inst.actual_status,
            "intended_status": inst.intended_status,
            "next_state": inst.intended_status,
            "gpu_name": ask["gpu_name"],
            "num_gpus": ask["num_gpus"],
            "dph_total": ask["dph_total"],
            "dph_base": ask["dph_base"],
            "storage_total_cost": 0.05,
            "inet_up_cost": ask["inet_up_cost"],
            "inet_down_cost": ask["inet_down_cost"],
            "inet_up_billed": inst.inet_up_mb,
            "inet_down_billed": inst.inet_down_mb,
            "verified": ask["verified"],
            "reliability2": ask["reliability2"],
            "machine_id": ask["machine_id"],
            "geolocation": ask["geolocation"],
            "start_date": inst.started,
            "image_uuid": inst.image,
            "extra_env": [],
            "public_ipaddr": host,
            "ports": {"22/tcp": [{"HostIp": "0.0.0.0", "HostPort": str(port)}]},
            "ssh_host": "ssh5.vast.ai",
            "ssh_port": 31000 + inst.id % 1000,
        }
        if self.listing_mode == "renamed":
            row["status"] = row.pop("actual_status")
        return row

    def error_answer(self, status: int) -> Answer:
        return status, {"success": False, "error": "injected", "msg": "injected"}, {}

    # -- routes ----------------------------------------------------------------------------
    def route(
        self, method: str, path: str, query: dict[str, list[str]], body: Any, headers: Any
    ) -> Answer:
        if headers.get("Authorization") != f"Bearer {self.key}":
            return 404, {"success": False, "error": "auth_error", "msg": "Invalid user key"}, {}
        answer = self._route(method, path, query, body)
        if method == "PUT" and answer[0] == 200 and self.create_delay_s:
            time.sleep(self.create_delay_s)
        if method == "DELETE" and answer[0] == 200 and self.destroy_delay_s:
            time.sleep(self.destroy_delay_s)
        return answer

    def _route(self, method: str, path: str, query: dict[str, list[str]], body: Any) -> Answer:
        with self.lock:
            if method == "POST" and path == "/api/v0/bundles/":
                return self._bundles(body or {})
            match = re.fullmatch(r"/api/v0/asks/(\d+)/", path)
            if method == "PUT" and match:
                return self._create(int(match[1]), body or {})
            if method == "GET" and path == "/api/v1/instances/":
                return self._list(query)
            if method == "GET" and path == "/api/v0/charges/":
                return self._charges(query)
            if method == "GET" and path == "/api/v0/instances/":
                return 410, {"success": False, "error": "deprecated_endpoint", "msg": "use v1"}, {}
            match = re.fullmatch(r"/api/v0/instances/(\d+)/", path)
            if match:
                inst = self.instances.get(int(match[1]))
                if method == "GET":
                    if self.listing_mode in ("410", "success-false"):
                        return self._list(query)
                    live = inst is not None and inst.destroyed is None
                    live = live and int(match[1]) not in self.hidden
                    return 200, {"instances": self._row(inst) if live and inst else None}, {}
                if method == "DELETE":
                    if inst is None or inst.destroyed is not None:
                        return (
                            404,
                            {"success": False, "error": "no_such_instance", "msg": "gone"},
                            {},
                        )
                    inst.destroyed = time.time()
                    return 200, {"success": True}, {}
        return 404, {"success": False, "error": "not_found", "msg": path}, {}

    def _bundles(self, q: dict[str, Any]) -> Answer:
        def keep(offer: dict[str, Any]) -> bool:
            for name, cond in q.items():
                if not isinstance(cond, dict):
                    continue
                value = offer.get(name)
                for op, want in cond.items():
                    ok = {
                        "eq": lambda v, w: v == w,
                        "gte": lambda v, w: v is not None and v >= w,
                        "lte": lambda v, w: v is not None and v <= w,
                        "gt": lambda v, w: v is not None and v > w,
                        "lt": lambda v, w: v is not None and v < w,
                        "in": lambda v, w: v in w,
                    }[op](value, want)
                    if not ok:
                        return False
            return True

        found = sorted((o for o in self.offers if keep(o)), key=lambda o: o["dph_total"])
        return 200, {"offers": found[: int(q.get("limit", 64))]}, {}

    def _create(self, ask_id: int, body: dict[str, Any]) -> Answer:
        ask = next((o for o in self.offers if o["id"] == ask_id), None)
        if ask is None or ask.get("rented"):
            return 400, {"success": False, "error": "no_such_ask", "msg": "ask unavailable"}, {}
        if body.get("client_id") != "me":
            return 400, {"success": False, "error": "invalid_args", "msg": "client_id"}, {}
        instance_id = self._rent(ask, body.get("label"), body.get("image", ""), body.get("args"))
        return 200, {"success": True, "new_contract": instance_id}, {}

    def charged(self, inst: VastInstance, now: float | None = None) -> float:
        """What this fake Vast charges an instance so far, in USD."""
        end = inst.destroyed or (now or time.time())
        hours = max(0.0, end - inst.started) / 3600
        gpu = hours * float(inst.ask["dph_total"]) * self.charge_factor
        traffic = (
            inst.inet_up_mb * float(inst.ask["inet_up_cost"])
            + inst.inet_down_mb * float(inst.ask["inet_down_cost"])
        ) / 1024
        return gpu + traffic

    def _charges(self, query: dict[str, list[str]]) -> Answer:
        """``/api/v0/charges/``: one instance line per instance, paged by ``after_token``."""
        if self.charges_mode == "500":
            return 500, {"success": False, "error": "server_error", "msg": "injected"}, {}
        filters = json.loads(query.get("select_filters", ["{}"])[0])
        if "day" not in filters or filters.get("type") != {"in": ["instance"]}:
            return 400, {"success": False, "error": "invalid_args", "msg": "filters"}, {}
        rows = [
            {
                "type": "instance",
                "source": f"instance-{i.id}",
                "amount": round(self.charged(i), 6),
                "start": i.started,
                "end": i.destroyed or time.time(),
                "description": f"{i.ask['num_gpus']}x {i.ask['gpu_name']}",
                "items": [],
                "metadata": {},
            }
            for i in sorted(self.instances.values(), key=lambda i: i.id)
        ]
        start = int(query.get("after_token", ["0"])[0])
        limit = min(100, int(query.get("limit", ["20"])[0]))
        page = rows[start : start + limit]
        token = str(start + limit) if start + limit < len(rows) else None
        return 200, {"results": page, "count": len(page), "total": len(rows),
                     "next_token": token}, {}  # fmt: skip

    def _list(self, query: dict[str, list[str]]) -> Answer:
        if self.listing_mode == "410":
            return 410, {"success": False, "error": "deprecated_endpoint", "msg": "v0 gone"}, {}
        if self.listing_mode == "success-false":
            return 200, {"success": False, "error": "server_error", "msg": "try later"}, {}
        live = sorted(
            (i for i in self.instances.values() if i.destroyed is None and i.id not in self.hidden),
            key=lambda i: i.id,
        )
        after = int(query.get("after_token", ["0"])[0])
        limit = int(query.get("limit", ["25"])[0])
        page = [i for i in live if i.id > after][:limit]
        more = len([i for i in live if i.id > after]) > limit
        token = str(page[-1].id) if more and page else None
        if self.listing_mode == "page-missing" and after:
            page, token = [], None
        return (
            200,
            {
                "instances": [self._row(i) for i in page],
                "next_token": token,
                "total_instances": len(live),
            },
            {},
        )
