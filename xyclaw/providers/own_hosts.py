"""Your own machines, listed in ``hosts.toml``: nothing is rented, so nothing is released.

```toml
[[host]]
name = "gpu1"            # an ~/.ssh/config alias, or user@host:port
gpu = "A100-80G"
gpus = 8
fabric = "ib-hdr-200"    # what links this host to the others; "none" for one machine
price_per_gpu_hour = 0   # optional, for cost tracking only
currency = "CNY"
```

"Creating" a cluster takes free hosts with the GPU asked for; "terminating" it
gives them back. The assignment is kept in a small JSON file so separate
commands agree on which hosts are taken.
"""

from __future__ import annotations

import json
import os
import threading
import time
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from xyclaw.catalog import Offer, normalise_gpu_name, parse_amount
from xyclaw.errors import CapacityError, ConfigError, ProviderError
from xyclaw.providers.base import (
    RUNNING,
    TERMINATED,
    Capabilities,
    ClusterInfo,
    ClusterOrder,
    LedgerEntry,
    NodeInfo,
)


@dataclass(frozen=True)
class OwnHost:
    name: str
    gpu: str
    gpus: int
    fabric: str
    price_per_gpu_hour_micros: int
    currency: str


def load_hosts(path: Path) -> list[OwnHost]:
    """Read hosts.toml; a missing file is no hosts. Errors name the entry and the key."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return []
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(
            f"{path} cannot be read: {exc}", hint="fix the file or remove it"
        ) from exc
    hosts: list[OwnHost] = []
    for index, raw in enumerate(data.get("host", []), start=1):
        where = f"{path}: [[host]] #{index}"
        if not isinstance(raw, dict) or not raw.get("name"):
            raise ConfigError(f"{where} needs a name", hint='add name = "an ssh alias or host"')
        try:
            gpus = int(raw.get("gpus", 1))
            price = parse_amount(str(raw.get("price_per_gpu_hour", 0)))
        except (TypeError, ValueError) as exc:
            raise ConfigError(f"{where} ({raw['name']}): {exc}") from exc
        if gpus < 1:
            raise ConfigError(f"{where} ({raw['name']}): gpus must be 1 or more")
        hosts.append(
            OwnHost(
                name=str(raw["name"]),
                gpu=normalise_gpu_name(str(raw.get("gpu", "unknown"))),
                gpus=gpus,
                fabric=str(raw.get("fabric", "none")),
                price_per_gpu_hour_micros=price,
                currency=str(raw.get("currency", "CNY")),
            )
        )
    return hosts


class OwnHostsProvider:
    """Clusters made of the user's own hosts."""

    kind = "ssh"
    capabilities = Capabilities(rents=False, multi_node=True)

    def __init__(
        self,
        hosts_file: Path,
        state_file: Path,
        *,
        name: str = "ssh",
        hosts: Callable[[], list[OwnHost]] | None = None,
    ) -> None:
        self.name = name
        self._hosts_file = hosts_file
        self._state_file = state_file
        self._lock = threading.Lock()
        self._hosts_source = hosts or (lambda: load_hosts(hosts_file))

    def _hosts(self) -> list[OwnHost]:
        return self._hosts_source()

    def _state(self) -> dict[str, Any]:
        try:
            data = json.loads(self._state_file.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {"clusters": {}}
        except (OSError, ValueError) as exc:
            raise ProviderError(
                f"{self._state_file} is damaged", hint="remove it; your hosts are not affected"
            ) from exc
        return data if isinstance(data, dict) else {"clusters": {}}

    def _save(self, state: dict[str, Any]) -> None:
        self._state_file.parent.mkdir(parents=True, exist_ok=True)
        tmp = self._state_file.with_suffix(".tmp")
        tmp.write_text(json.dumps(state, indent=1), encoding="utf-8")
        os.replace(tmp, self._state_file)

    def offers(self) -> list[Offer]:
        groups: dict[tuple[str, int, str, int, str], int] = {}
        for h in self._hosts():  # a free host (price 0, or none given) is an offer too
            key = (h.gpu, h.gpus, h.fabric, h.price_per_gpu_hour_micros, h.currency)
            groups[key] = groups.get(key, 0) + 1
        offers = []
        for (gpu, gpus, fabric, price, currency), count in sorted(groups.items()):
            counts = tuple(range(1, count + 1)) if fabric != "none" else (1,)
            offers.append(
                Offer(
                    provider=self.name,
                    offer_id=f"own-{gpu}-{gpus}-{fabric}",
                    region="own",
                    gpu=gpu,
                    gpus_per_node=gpus,
                    node_counts=counts,
                    fabric=fabric,
                    price_micro=price,
                    currency=currency,
                    kind="node" if counts == (1,) else "cluster",
                )
            )
        return offers

    def _info(self, cid: str, rec: dict[str, Any]) -> ClusterInfo:
        hosts = {h.name: h for h in self._hosts()}
        nodes = []
        for rank, name in enumerate(rec["hosts"]):
            nodes.append(
                NodeInfo(
                    external_id=name,
                    rank=rank,
                    hostname=name,
                    state=rec["state"],
                    ssh_host=name,
                )
            )
        first = hosts.get(rec["hosts"][0]) if rec["hosts"] else None
        return ClusterInfo(
            external_id=cid,
            name=rec.get("name") or cid,
            state=rec["state"],
            gpu=rec["gpu"],
            gpu_count=rec["gpu_count"],
            gpus_per_node=rec["gpus_per_node"],
            fabric=rec["fabric"],
            region="own",
            price_per_gpu_hour_micros=first.price_per_gpu_hour_micros if first else 0,
            currency=first.currency if first else "CNY",
            nodes=tuple(nodes),
            created_at=rec["created_at"],
            running_at=rec["created_at"],
            terminated_at=rec.get("terminated_at"),
            idempotency_key=rec.get("idempotency_key"),
        )

    def create(self, order: ClusterOrder) -> ClusterInfo:
        with self._lock:
            state = self._state()
            for cid, rec in state["clusters"].items():
                if rec.get("idempotency_key") == order.idempotency_key:
                    return self._info(cid, rec)
            busy = {
                h
                for rec in state["clusters"].values()
                if rec["state"] == RUNNING
                for h in rec["hosts"]
            }
            free = [
                h
                for h in self._hosts()
                if h.gpu == order.gpu
                and h.name not in busy
                and (order.fabric is None or h.fabric == order.fabric)
            ]
            per_node = order.gpus_per_node or (free[0].gpus if free else 0)
            if not free or per_node <= 0 or order.gpu_count % per_node:
                raise CapacityError(
                    f"no free own hosts with {order.gpu} for {order.gpu_count} GPUs",
                    hint=f"list your machines in {self._hosts_file}",
                )
            needed = order.gpu_count // per_node
            chosen = [h for h in free if h.gpus == per_node][:needed]
            if len(chosen) < needed:
                raise CapacityError(
                    f"only {len(chosen)} free own hosts with {per_node} x {order.gpu}; "
                    f"{needed} needed",
                    hint=f"add hosts to {self._hosts_file} or ask for fewer GPUs",
                )
            cid = f"own-{int(time.time() * 1000)}"
            rec = {
                "name": order.name or cid,
                "state": RUNNING,
                "hosts": [h.name for h in chosen],
                "gpu": order.gpu,
                "gpu_count": order.gpu_count,
                "gpus_per_node": per_node,
                "fabric": chosen[0].fabric,
                "created_at": time.time(),
                "idempotency_key": order.idempotency_key,
            }
            state["clusters"][cid] = rec
            self._save(state)
            return self._info(cid, rec)

    def get(self, external_id: str) -> ClusterInfo | None:
        rec = self._state()["clusters"].get(external_id)
        return None if rec is None else self._info(external_id, rec)

    def clusters(self) -> list[ClusterInfo]:
        return [
            self._info(cid, rec)
            for cid, rec in self._state()["clusters"].items()
            if rec["state"] == RUNNING
        ]

    def terminate(self, external_id: str) -> ClusterInfo:
        with self._lock:
            state = self._state()
            rec = state["clusters"].get(external_id)
            if rec is None:
                raise ProviderError(f"no own-hosts cluster {external_id}")
            rec["state"] = TERMINATED
            rec["terminated_at"] = time.time()
            self._save(state)
            return self._info(external_id, rec)

    def billing(self) -> list[LedgerEntry]:
        return []

    def close(self) -> None:
        return None
