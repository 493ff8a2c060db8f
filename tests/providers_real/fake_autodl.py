"""A fake AutoDL elastic deployment API, as documented, served on 127.0.0.1.

Shapes follow https://www.autodl.com/docs/esd_api_doc/: header
``Authorization: <token>``; every answer ``{"code": "Success", "msg": "", "data"}``
(errors: another ``code`` and a ``msg``, HTTP 200, as the docs show; a missing
token is HTTP 401). Regions have GPU stock and a price per GPU-hour in 1/1000 CNY;
a deployment's container is scheduled only where stock and ``price_to`` allow,
and waits otherwise. Containers go creating -> starting -> running (after
``boot_s``) and, once stopped, shutting_down -> shutdown (after ``terminate_s``).
``create_delay_s`` / ``stop_delay_s`` slow the answers after the change is made.
"""

from __future__ import annotations

import itertools
import time
import uuid as uuidlib
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from tests.providers_real.fakehttp import Answer, FakeCloud

OK = "Success"


def ok(data: Any) -> Answer:
    return 200, {"code": OK, "msg": "", "data": data}, {}


def refuse(code: str, msg: str, status: int = 200) -> Answer:
    return status, {"code": code, "msg": msg, "data": None}, {}


def stamp(t: float) -> str:
    return datetime.fromtimestamp(t, UTC).astimezone().isoformat(timespec="seconds")


@dataclass
class Container:
    uuid: str
    deployment_uuid: str
    gpu_name: str
    gpu_num: int
    price: int  # 1/1000 CNY per GPU-hour
    region: str
    created: float
    status: str = "creating"
    host: str | None = None
    port: int | None = None
    started: float | None = None
    stopping_since: float | None = None
    stopped: float | None = None


@dataclass
class Deployment:
    uuid: str
    name: str
    body: dict[str, Any]
    created: float
    status: str = "running"
    containers: list[Container] = field(default_factory=list)


@dataclass
class AutoDLSettings:
    token: str = "secret-autodl-token"
    boot_s: float = 0.0
    terminate_s: float = 0.0
    create_delay_s: float = 0.0
    stop_delay_s: float = 0.0
    #: region -> GPU (AutoDL's spelling) -> [idle, total, price in 1/1000 CNY per GPU-hour]
    stock: dict[str, dict[str, list[int]]] = field(
        default_factory=lambda: {
            "westDC2": {"RTX 4090": [16, 64, 2180], "A800": [8, 16, 6880]},
            "beijingDC1": {"RTX 4090": [4, 32, 1980], "RTX 3090": [10, 40, 1580]},
            "neimengDC1": {"RTX 4090": [0, 24, 1880]},
        }
    )
    images: list[dict[str, Any]] = field(
        default_factory=lambda: [
            {
                "id": 111,
                "image_uuid": "image-db8346e037",
                "image_name": "my torch",
                "status": "finished",
            }
        ]
    )


class FakeAutoDL(FakeCloud):
    def __init__(
        self,
        settings: AutoDLSettings | None = None,
        *,
        on_running: Callable[[Container, str], tuple[str, int]] | None = None,
    ) -> None:
        """``on_running(container, cmd)`` may start an SSH server and return (host, port)."""
        super().__init__()
        self.settings = settings or AutoDLSettings()
        self.on_running = on_running
        self.deployments: dict[str, Deployment] = {}
        self._ids = itertools.count(1)

    # -- the clock moves containers on ----------------------------------------------------
    def _schedule(self, dep: Deployment, now: float) -> None:
        if dep.status != "running" or dep.containers:
            return
        tpl = dep.body["container_template"]
        for region in tpl["dc_list"]:
            for gpu in tpl["gpu_name_set"]:
                row = self.settings.stock.get(region, {}).get(gpu)
                if row is None or row[0] < tpl["gpu_num"] or row[2] > tpl["price_to"]:
                    continue
                row[0] -= tpl["gpu_num"]
                dep.containers.append(
                    Container(
                        uuid=f"{dep.uuid}-{uuidlib.uuid4().hex[:6]}",
                        deployment_uuid=dep.uuid,
                        gpu_name=gpu,
                        gpu_num=tpl["gpu_num"],
                        price=row[2],
                        region=region,
                        created=now,
                    )
                )
                return

    def _advance(self) -> None:
        now = time.monotonic()
        for dep in self.deployments.values():
            self._schedule(dep, now)
            for c in dep.containers:
                if c.status == "creating":
                    c.status = "starting"
                if c.status == "starting" and now - c.created >= self.settings.boot_s:
                    if self.on_running is not None:
                        c.host, c.port = self.on_running(c, dep.body["container_template"]["cmd"])
                    else:
                        c.host, c.port = "region-41.seetacloud.com", 30000 + int(c.created) % 999
                    c.status = "running"
                    c.started = time.time()
                since = c.stopping_since or now
                if c.status == "shutting_down" and now - since >= self.settings.terminate_s:
                    c.status = "shutdown"
                    c.stopped = time.time()
                    self.settings.stock[c.region][c.gpu_name][0] += c.gpu_num

    def live(self) -> list[Container]:
        """Containers that bill (anything not shut down)."""
        with self.lock:
            self._advance()
            return [
                c for d in self.deployments.values() for c in d.containers if c.status != "shutdown"
            ]

    def _deployment_json(self, dep: Deployment) -> dict[str, Any]:
        tpl = dep.body["container_template"]
        running = sum(1 for c in dep.containers if c.status == "running")
        starting = sum(1 for c in dep.containers if c.status in ("creating", "starting"))
        return {
            "id": int(dep.uuid.split("-")[-1], 16) % 100000,
            "uid": 4242,
            "uuid": dep.uuid,
            "name": dep.name,
            "deployment_type": dep.body["deployment_type"],
            "status": dep.status,
            "replica_num": dep.body.get("replica_num", 1),
            "parallelism_num": dep.body.get("parallelism_num", 1),
            "reuse_container": dep.body.get("reuse_container", False),
            "starting_num": starting,
            "running_num": running,
            "finished_num": sum(1 for c in dep.containers if c.status == "shutdown"),
            "image_uuid": tpl["image_uuid"],
            "template": {k: v for k, v in tpl.items() if k != "cmd"} | {"cmd": "***"},
            "created_at": stamp(time.time() - (time.monotonic() - dep.created)),
            "updated_at": stamp(time.time()),
        }

    def _container_json(self, c: Container) -> dict[str, Any]:
        ssh = f"ssh -p {c.port} root@{c.host}" if c.host else ""
        return {
            "id": 1,
            "uuid": c.uuid,
            "deployment_uuid": c.deployment_uuid,
            "machine_id": "m-7f3a",
            "status": c.status,
            "gpu_name": c.gpu_name,
            "gpu_num": c.gpu_num,
            "cpu_num": 16 * c.gpu_num,
            "memory_size": 64 * c.gpu_num * 1024**3,
            "image_uuid": "base-image-l2t43iu6uk",
            "price": c.price,
            "info": {
                "ssh_command": ssh,
                "root_password": "never-read-this",
                "service_url": f"https://{c.uuid}.autodl.example",
            },
            "started_at": stamp(c.started) if c.started else "",
            "stopped_at": stamp(c.stopped) if c.stopped else "",
            "created_at": stamp(time.time()),
        }

    @staticmethod
    def _page(items: list[dict[str, Any]], body: Any) -> Any:
        index = int((body or {}).get("page_index") or 1)
        size = int((body or {}).get("page_size") or 10)
        start = (index - 1) * size
        max_page = max(1, -(-len(items) // size))
        return {"list": items[start : start + size], "page_index": index, "page_size": size,
                "max_page": max_page, "offset": start}  # fmt: skip

    def error_answer(self, status: int) -> Answer:
        return status, {"code": "InternalError", "msg": "服务繁忙", "data": None}, {}

    # -- routes ----------------------------------------------------------------------------
    def route(
        self, method: str, path: str, query: dict[str, list[str]], body: Any, headers: Any
    ) -> Answer:
        token = headers.get("Authorization")
        if not token:
            return refuse("Unauthorized", "缺少token", status=401)
        if token != self.settings.token:
            return refuse("AuthorizeFailed", "token无效或企业认证未通过")
        with self.lock:
            self._advance()
            if method == "POST" and path == "/api/v1/dev/machine/region/gpu_stock":
                region = str((body or {}).get("region_sign"))
                stock = self.settings.stock.get(region, {})
                return ok(
                    [{g: {"idle_gpu_num": r[0], "total_gpu_num": r[1]}} for g, r in stock.items()]
                )
            if method == "POST" and path == "/api/v1/dev/image/private/list":
                return ok(self._page(self.settings.images, body))
            if method == "POST" and path == "/api/v1/dev/deployment/list":
                deps = sorted(self.deployments.values(), key=lambda d: -d.created)
                return ok(self._page([self._deployment_json(d) for d in deps], body))
            if method == "POST" and path == "/api/v1/dev/deployment/container/list":
                dep = self.deployments.get((body or {}).get("deployment_uuid", ""))
                if dep is None:
                    return refuse("DeploymentNotFound", "部署不存在")
                return ok(self._page([self._container_json(c) for c in dep.containers], body))
            if method == "POST" and path == "/api/v1/dev/deployment":
                answer = self._create(body)
            elif method == "PUT" and path == "/api/v1/dev/deployment/operate":
                answer = self._operate(body)
            else:
                return refuse("NotFound", f"no route {method} {path}", status=404)
        if path == "/api/v1/dev/deployment" and answer[1].get("code") == OK:
            time.sleep(self.settings.create_delay_s)
        if path == "/api/v1/dev/deployment/operate" and answer[1].get("code") == OK:
            time.sleep(self.settings.stop_delay_s)
        return answer

    def _create(self, body: Any) -> Answer:
        if not isinstance(body, dict):
            return refuse("InvalidParams", "请求体不是JSON")
        for key in ("name", "deployment_type", "container_template"):
            if key not in body:
                return refuse("InvalidParams", f"缺少参数 {key}")
        if body["deployment_type"] not in ("ReplicaSet", "Job", "Container"):
            return refuse("InvalidParams", "deployment_type 无效")
        if body["deployment_type"] == "Job" and "parallelism_num" not in body:
            return refuse("InvalidParams", "Job 需要 parallelism_num")
        tpl = body["container_template"]
        required = ("dc_list", "cuda_v_from", "cuda_v_to", "gpu_name_set", "gpu_num",
                    "memory_size_from", "memory_size_to", "cpu_num_from", "cpu_num_to",
                    "price_from", "price_to", "image_uuid", "cmd")  # fmt: skip
        for key in required:
            if key not in tpl:
                return refuse("InvalidParams", f"container_template 缺少 {key}")
        if not isinstance(tpl["price_to"], int) or not isinstance(tpl["gpu_num"], int):
            return refuse("InvalidParams", "price_to 和 gpu_num 必须是整数")
        known = {g for stock in self.settings.stock.values() for g in stock}
        if not set(tpl["gpu_name_set"]) & known:
            return refuse("InvalidParams", f"GPU型号不存在: {tpl['gpu_name_set']}")
        dep = Deployment(
            uuid=f"{uuidlib.uuid4().hex[:10]}-{next(self._ids):x}",
            name=str(body["name"]),
            body=body,
            created=time.monotonic(),
        )
        self.deployments[dep.uuid] = dep
        self._advance()
        return ok({"deployment_uuid": dep.uuid})

    def _operate(self, body: Any) -> Answer:
        dep = self.deployments.get((body or {}).get("deployment_uuid", ""))
        if dep is None:
            return refuse("DeploymentNotFound", "部署不存在")
        if (body or {}).get("operate") != "stop":
            return refuse("InvalidParams", "operate 只支持 stop")
        if dep.status == "stopped":
            return refuse("DeploymentStopped", "部署已停止")
        dep.status = "stopped"
        for c in dep.containers:
            if c.status != "shutdown":
                c.status = "shutting_down"
                c.stopping_since = time.monotonic()
        self._advance()
        return ok(None)
