"""A fake Lambda Cloud: the public API v1 as documented, served on 127.0.0.1.

Shapes follow https://cloud.lambdalabs.com/api/v1 (instance-types, ssh-keys,
instance-operations/launch and terminate, instances): every answer is
``{"data": ...}``, every error ``{"error": {"code", "message", "suggestion"}}``.
Instances boot for ``boot_s``, terminate for ``terminate_s`` and are forgotten
``forget_s`` after that (then 404). Launches are rate limited like Lambda's
(one per ``launch_interval_s``, else 429), capacity is per (type, region), the
account has an instance quota, and ``launch_delay_s`` / ``terminate_delay_s``
make the answers slow *after* the change is made (so a client killed while
waiting leaves a billing instance behind, as with the real cloud).
"""

from __future__ import annotations

import base64
import itertools
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tests.providers_real.fakehttp import Answer, FakeCloud

PREFIX = "/api/v1"
NOT_FOUND = "global/object-does-not-exist"

REGIONS = {
    "us-east-1": "Virginia, USA",
    "us-west-1": "California, USA",
    "us-south-1": "Texas, USA",
    "europe-central-1": "Germany",
}


def _type(name: str, desc: str, gpu_desc: str, cents: int, gpus: int, vcpus: int) -> dict[str, Any]:
    return {
        "name": name,
        "description": desc,
        "gpu_description": gpu_desc,
        "price_cents_per_hour": cents,
        "specs": {"vcpus": vcpus, "memory_gib": vcpus * 7, "storage_gib": 512, "gpus": gpus},
    }


INSTANCE_TYPES = {
    "gpu_1x_a10": _type("gpu_1x_a10", "1x A10 (24 GB PCIe)", "A10 (24 GB PCIe)", 75, 1, 30),
    "gpu_1x_a100_sxm4": _type(
        "gpu_1x_a100_sxm4", "1x A100 (40 GB SXM4)", "A100 (40 GB SXM4)", 129, 1, 30
    ),
    "gpu_8x_a100_80gb_sxm4": _type(
        "gpu_8x_a100_80gb_sxm4", "8x A100 (80 GB SXM4)", "A100 (80 GB SXM4)", 1432, 8, 240
    ),
    "gpu_1x_h100_pcie": _type(
        "gpu_1x_h100_pcie", "1x H100 (80 GB PCIe)", "H100 (80 GB PCIe)", 249, 1, 26
    ),
    "gpu_8x_h100_sxm5": _type(
        "gpu_8x_h100_sxm5", "8x H100 (80 GB SXM5)", "H100 (80 GB SXM5)", 2392, 8, 208
    ),
    "cpu_4x_general": _type("cpu_4x_general", "4x CPU general", "", 8, 0, 4),
}


def error(status: int, code: str, message: str, suggestion: str | None = None) -> Answer:
    body: dict[str, Any] = {"code": code, "message": message}
    if suggestion:
        body["suggestion"] = suggestion
    return status, {"error": body}, {}


@dataclass
class Instance:
    id: str
    name: str | None
    type_name: str
    region: str
    ssh_key_names: list[str]
    launched: float
    status: str = "booting"
    ip: str | None = None
    terminating_since: float | None = None
    terminated_at: float | None = None


@dataclass
class LambdaSettings:
    api_key: str = "secret-lambda-key"
    boot_s: float = 0.0
    terminate_s: float = 0.0
    forget_s: float = 30.0
    launch_interval_s: float = 0.0
    launch_delay_s: float = 0.0
    terminate_delay_s: float = 0.0
    quota: int = 10
    #: (type, region) -> instances that can still be launched there; missing: 5.
    capacity: dict[tuple[str, str], int] = field(default_factory=dict)
    unhealthy: set[str] = field(default_factory=set)  # instance ids that boot unhealthy
    #: (type, region) listed with capacity but sold out by the time a launch arrives.
    sold_out_at_launch: set[tuple[str, str]] = field(default_factory=set)


class FakeLambda(FakeCloud):
    def __init__(
        self,
        settings: LambdaSettings | None = None,
        *,
        on_active: Callable[[Instance, str], str] | None = None,
    ) -> None:
        """``on_active(instance, public_key)`` may start an SSH server and return its IP."""
        super().__init__()
        self.settings = settings or LambdaSettings()
        self.on_active = on_active
        self.instances: dict[str, Instance] = {}
        self.ssh_keys: dict[str, dict[str, str]] = {}
        self._ids = itertools.count(1)
        self._last_launch: float | None = None

    # -- the clock moves instances on ----------------------------------------------------
    def _advance(self) -> None:
        now = time.monotonic()
        for inst in list(self.instances.values()):
            if inst.status == "booting" and now - inst.launched >= self.settings.boot_s:
                if inst.id in self.settings.unhealthy:
                    inst.status = "unhealthy"
                    continue
                key = self.ssh_keys[inst.ssh_key_names[0]]["public_key"]
                inst.ip = self.on_active(inst, key) if self.on_active else f"192.0.2.{inst.id}"
                inst.status = "active"
            since = inst.terminating_since
            if inst.status == "terminating" and now - (since or now) >= self.settings.terminate_s:
                inst.status = "terminated"
                inst.terminated_at = now
            ended = inst.terminated_at
            if inst.status == "terminated" and now - (ended or now) >= self.settings.forget_s:
                del self.instances[inst.id]

    def live(self) -> list[Instance]:
        """Instances that bill (anything not yet terminated)."""
        with self.lock:
            self._advance()
            return [i for i in self.instances.values() if i.status != "terminated"]

    def _json(self, inst: Instance) -> dict[str, Any]:
        return {
            "id": inst.id,
            "name": inst.name,
            "ip": inst.ip,
            "private_ip": f"10.19.0.{inst.id}" if inst.ip else None,
            "status": inst.status,
            "ssh_key_names": inst.ssh_key_names,
            "file_system_names": [],
            "region": {"name": inst.region, "description": REGIONS[inst.region]},
            "instance_type": INSTANCE_TYPES[inst.type_name],
            "hostname": f"{inst.ip.replace('.', '-')}.cloud.lambdalabs.com" if inst.ip else None,
            "jupyter_token": "not-a-secret-token",
            "jupyter_url": f"https://jupyter-{inst.id}.lambdaspaces.com",
            "is_reserved": False,
        }

    def _authorised(self, headers: Any) -> bool:
        value = str(headers.get("Authorization") or "")
        if value == f"Bearer {self.settings.api_key}":
            return True
        if value.startswith("Basic "):
            user = base64.b64decode(value[6:]).decode(errors="replace").split(":")[0]
            return user == self.settings.api_key
        return False

    def error_answer(self, status: int) -> Answer:
        if status == 429:
            return error(429, "global/too-many-requests", "Too many requests")
        return error(status, "global/unknown", "Something unexpected occurred.")

    # -- routes ----------------------------------------------------------------------------
    def route(
        self, method: str, path: str, query: dict[str, list[str]], body: Any, headers: Any
    ) -> Answer:
        if not self._authorised(headers):
            return error(
                401,
                "global/invalid-api-key",
                "API key was invalid, expired, or deleted.",
                "Check your API key or create a new one, then try again.",
            )
        if not path.startswith(PREFIX):
            return error(404, "global/object-does-not-exist", "Not found")
        path = path[len(PREFIX) :]
        with self.lock:
            self._advance()
            if method == "GET" and path == "/instance-types":
                return self._instance_types()
            if method == "GET" and path == "/ssh-keys":
                return 200, {"data": list(self.ssh_keys.values())}, {}
            if method == "POST" and path == "/ssh-keys":
                return self._add_key(body)
            if method == "GET" and path == "/instances":
                return 200, {"data": [self._json(i) for i in self.instances.values()]}, {}
            if method == "GET" and path.startswith("/instances/"):
                inst = self.instances.get(path.rsplit("/", 1)[1])
                if inst is None:
                    return error(
                        404, "global/object-does-not-exist", "Specified instance does not exist."
                    )
                return 200, {"data": self._json(inst)}, {}
            if method == "POST" and path == "/instance-operations/launch":
                answer = self._launch(body)
            elif method == "POST" and path == "/instance-operations/terminate":
                answer = self._terminate(body)
            else:
                return error(404, "global/object-does-not-exist", f"No route {method} {path}")
        # Slow answers come after the change is made, outside the lock.
        if path == "/instance-operations/launch" and answer[0] == 200:
            time.sleep(self.settings.launch_delay_s)
        if path == "/instance-operations/terminate" and answer[0] == 200:
            time.sleep(self.settings.terminate_delay_s)
        return answer

    def _instance_types(self) -> Answer:
        data = {}
        for name, kind in INSTANCE_TYPES.items():
            regions = [
                {"name": r, "description": d}
                for r, d in REGIONS.items()
                if self.settings.capacity.get((name, r), 5) > 0
            ]
            data[name] = {"instance_type": kind, "regions_with_capacity_available": regions}
        return 200, {"data": data}, {}

    def _add_key(self, body: Any) -> Answer:
        if not isinstance(body, dict) or not body.get("name"):
            return error(400, "global/invalid-parameters", "name is required")
        name = str(body["name"])
        if name in self.ssh_keys:
            return error(400, "global/invalid-parameters", f"An SSH key named {name} exists.")
        key = {"id": f"key-{len(self.ssh_keys) + 1}", "name": name,
               "public_key": str(body.get("public_key", ""))}  # fmt: skip
        self.ssh_keys[name] = key
        return 200, {"data": key}, {}

    def _launch(self, body: Any) -> Answer:
        now = time.monotonic()
        interval = self.settings.launch_interval_s
        if self._last_launch is not None and now - self._last_launch < interval:
            wait = interval - (now - self._last_launch)
            status, payload, _ = error(429, "global/too-many-requests", "Launch rate limited")
            return status, payload, {"Retry-After": f"{wait:.3f}"}
        self._last_launch = now
        if not isinstance(body, dict):
            return error(400, "global/invalid-parameters", "a JSON body is required")
        type_name = body.get("instance_type_name")
        region = body.get("region_name")
        keys = body.get("ssh_key_names")
        if type_name not in INSTANCE_TYPES:
            return error(404, "global/object-does-not-exist", f"Unknown instance type {type_name}")
        if region not in REGIONS:
            return error(400, "global/invalid-parameters", f"Unknown region {region}")
        if not isinstance(keys, list) or len(keys) != 1 or keys[0] not in self.ssh_keys:
            return error(
                400, "global/invalid-parameters", "Exactly one existing SSH key must be specified."
            )
        quantity = int(body.get("quantity", 1))
        live = [i for i in self.instances.values() if i.status != "terminated"]
        if len(live) + quantity > self.settings.quota:
            return error(
                400,
                "global/quota-exceeded",
                "Quota exceeded: your account may not launch more instances.",
                "Contact support to increase your quota.",
            )
        left = self.settings.capacity.get((type_name, region), 5)
        if left < quantity or (type_name, region) in self.settings.sold_out_at_launch:
            return error(
                400,
                "instance-operations/launch/insufficient-capacity",
                "Not enough capacity to fulfill launch request.",
                "Choose an instance type with more availability, or try again later.",
            )
        self.settings.capacity[(type_name, region)] = left - quantity
        ids = []
        for _ in range(quantity):
            inst = Instance(
                id=str(next(self._ids)),
                name=body.get("name"),
                type_name=type_name,
                region=region,
                ssh_key_names=list(keys),
                launched=now,
            )
            self.instances[inst.id] = inst
            ids.append(inst.id)
        self._advance()
        return 200, {"data": {"instance_ids": ids}}, {}

    def _terminate(self, body: Any) -> Answer:
        ids = body.get("instance_ids") if isinstance(body, dict) else None
        if not isinstance(ids, list) or not ids:
            return error(400, "global/invalid-parameters", "instance_ids is required")
        found = []
        for instance_id in ids:
            inst = self.instances.get(str(instance_id))
            if inst is None:
                return error(
                    404, "global/object-does-not-exist", "Specified instance does not exist."
                )
            if inst.status not in ("terminating", "terminated"):
                inst.status = "terminating"
                inst.terminating_since = time.monotonic()
                self.settings.capacity[(inst.type_name, inst.region)] = (
                    self.settings.capacity.get((inst.type_name, inst.region), 5) + 1
                )
            found.append(inst)
        self._advance()
        return 200, {"data": {"terminated_instances": [self._json(i) for i in found]}}, {}
