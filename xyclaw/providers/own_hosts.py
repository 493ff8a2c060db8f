"""Your own machines, listed in ``hosts.toml``: nothing is rented, so nothing is released.

```toml
[[host]]
name = "gpu1"            # an ~/.ssh/config alias, or user@host:port
# host = "10.0.0.5"      # or: the address, with the name only a label (user, port too)
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

import contextlib
import json
import re
import threading
import time
import tomllib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from xyclaw.catalog import Offer, normalise_gpu_name, parse_amount, parse_fabric
from xyclaw.errors import CapacityError, ConfigError, ProviderError
from xyclaw.files import locked, write_private
from xyclaw.providers.base import (
    RUNNING,
    TERMINATED,
    Capabilities,
    ClusterInfo,
    ClusterOrder,
    LedgerEntry,
    NodeInfo,
)
from xyclaw.wording import Said, SaidValueError, said, said_of


@dataclass(frozen=True)
class OwnHost:
    name: str
    gpu: str
    gpus: int
    fabric: str
    price_per_gpu_hour_micros: int
    currency: str
    address: str = ""  # where SSH goes when it is not the name: user@host:port

    @property
    def destination(self) -> str:
        """What XyClaw connects to: an ~/.ssh/config alias or ``user@host:port``."""
        return self.address or self.name


#: The keys of a [[host]] entry, with what each must be.
#: What each key of a [[host]] entry takes, worded (``HOST_KEYS`` is the English).
HOST_KEY_WORDS: dict[str, Said] = {
    key: said(f"error.hosts.about_{key}")
    for key in ("name", "host", "user", "port", "gpu", "gpus", "fabric", "price_per_gpu_hour",
                "currency")
}  # fmt: skip
HOST_KEYS: dict[str, str] = {key: str(words) for key, words in HOST_KEY_WORDS.items()}
_CURRENCY = re.compile(r"^[A-Za-z]{3}$")
MAX_GPUS_PER_HOST = 64


def _bad(where: str | Said, key: str, value: object) -> ConfigError:
    shown = str(value).lower() if isinstance(value, bool) else repr(value)
    return ConfigError(
        said("error.hosts.invalid", where=where, name=key, value=shown),
        hint=said("error.hosts.about", name=key, about=HOST_KEY_WORDS[key]),
    )


def _check_name(where: str | Said, value: object) -> str:
    if not isinstance(value, str) or not value.strip() or any(c.isspace() for c in value):
        raise _bad(where, "name", value)
    rest = value.rpartition("@")[2]
    if rest.count(":") == 1 and not rest.startswith("["):
        port = rest.partition(":")[2]
        if not port.isdigit() or not 1 <= int(port) <= 65535:
            raise ConfigError(
                said("error.hosts.name_port", where=where, value=repr(value), port=repr(port)),
                hint=said("error.hosts.name_port_hint"),
            )
    return value


def _check_host(where: str | Said, raw: dict[str, Any]) -> OwnHost:
    unknown = sorted(set(raw) - set(HOST_KEYS))
    if unknown:
        raise ConfigError(
            said("error.hosts.unknown_key", where=where, name=repr(unknown[0])),
            hint=said("error.hosts.entry_keys", names=", ".join(HOST_KEYS)),
        )
    if "name" not in raw:
        raise ConfigError(
            said("error.hosts.needs", where=where, name="name"),
            hint=said("error.hosts.about", name="name", about=HOST_KEY_WORDS["name"]),
        )
    name = _check_name(where, raw["name"])
    where = said("error.hosts.named", where=where, name=name)
    address = _address(where, raw)
    gpu = raw.get("gpu")
    if gpu is None:
        raise ConfigError(
            said("error.hosts.needs", where=where, name="gpu"),
            hint=said("error.hosts.about", name="gpu", about=HOST_KEY_WORDS["gpu"]),
        )
    if not isinstance(gpu, str) or not gpu.strip():
        raise _bad(where, "gpu", gpu)
    gpus = raw.get("gpus", 1)
    if isinstance(gpus, bool) or not isinstance(gpus, int) or not 1 <= gpus <= MAX_GPUS_PER_HOST:
        raise _bad(where, "gpus", gpus)
    fabric = raw.get("fabric", "none")
    try:
        if not isinstance(fabric, str):
            raise SaidValueError(said("error.hosts.not_fabric", value=repr(fabric)))
        fabric = parse_fabric(fabric).name
    except ValueError as exc:
        raise ConfigError(
            said("error.hosts.fabric", where=where, reason=said_of(exc)),
            hint=said("error.hosts.about", name="fabric", about=HOST_KEY_WORDS["fabric"]),
        ) from None
    price = raw.get("price_per_gpu_hour", 0)
    if isinstance(price, bool) or not isinstance(price, int | float | str):
        raise _bad(where, "price_per_gpu_hour", price)
    try:
        price_micros = parse_amount(str(price))
    except ValueError as exc:
        raise ConfigError(
            said("error.hosts.price", where=where, reason=said_of(exc)),
            hint=said(
                "error.hosts.about",
                name="price_per_gpu_hour",
                about=HOST_KEY_WORDS["price_per_gpu_hour"],
            ),
        ) from None
    currency = raw.get("currency", "CNY")
    if not isinstance(currency, str) or not _CURRENCY.match(currency):
        raise _bad(where, "currency", currency)
    return OwnHost(
        name=name,
        gpu=normalise_gpu_name(gpu),
        gpus=gpus,
        fabric=fabric,
        price_per_gpu_hour_micros=price_micros,
        currency=currency.upper(),
        address=address,
    )


def _address(where: str | Said, raw: dict[str, Any]) -> str:
    """``user@host:port`` from the host, user and port keys ("" when there is no host key)."""
    host, user, port = raw.get("host"), raw.get("user"), raw.get("port")
    if host is None:
        if user is not None or port is not None:
            raise ConfigError(
                said("error.hosts.user_port_alone", where=where),
                hint=said("error.hosts.user_port_alone_hint"),
            )
        return ""
    if not isinstance(host, str) or not host.strip() or any(c in host for c in " \t@/"):
        raise _bad(where, "host", host)
    if user is not None and (not isinstance(user, str) or not user or "@" in user):
        raise _bad(where, "user", user)
    if port is not None and (isinstance(port, bool) or not isinstance(port, int)):
        raise _bad(where, "port", port)
    if port is not None and not 1 <= port <= 65535:
        raise _bad(where, "port", port)
    shown = f"[{host}]" if ":" in host else host
    return (f"{user}@" if user else "") + shown + (f":{port}" if port else "")


def check_host_entry(where: str, raw: dict[str, Any]) -> OwnHost:
    """One [[host]] entry as load_hosts reads it (``xyclaw hosts add`` checks a new one)."""
    return _check_host(where, raw)


def load_hosts(path: Path) -> list[OwnHost]:
    """Read hosts.toml; a missing file is no hosts. Errors name the file, the entry, the key,
    the value and what is allowed (exit code 2)."""
    try:
        raw_bytes = path.read_bytes()
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise ConfigError(
            said("error.hosts.unreadable", path=str(path), reason=str(exc.strerror)),
            hint=said("error.config.permissions"),
        ) from exc
    try:
        text = raw_bytes.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(
            said(
                "error.config.not_utf8", path=str(path), byte=raw_bytes[exc.start], offset=exc.start
            ),
            hint=said("error.hosts.save_utf8"),
        ) from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(
            said("error.config.not_toml", path=str(path), reason=str(exc)),
            hint=said("error.hosts.not_toml_hint"),
        ) from None
    unknown = sorted(set(data) - {"host", "slurm"})  # [[slurm]]: xyclaw.providers.slurm
    if unknown:
        raise ConfigError(
            said("error.hosts.unknown_key", where=str(path), name=repr(unknown[0])),
            hint=said("error.hosts.tables"),
        )
    entries = data.get("host", [])
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        raise ConfigError(
            said("error.hosts.not_tables", path=str(path), value=repr(entries)),
            hint=said("error.hosts.not_tables_hint"),
        )
    hosts: list[OwnHost] = []
    for index, raw in enumerate(entries, start=1):
        host = _check_host(said("error.hosts.entry", path=str(path), index=index), raw)
        if any(h.name == host.name for h in hosts):
            raise ConfigError(
                said("error.hosts.twice", path=str(path), index=index, name=repr(host.name)),
                hint=said("error.hosts.twice_hint"),
            )
        hosts.append(host)
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
                said("error.slurm.state_damaged", path=str(self._state_file)),
                hint=said("error.hosts.state_damaged_hint"),
            ) from exc
        return data if isinstance(data, dict) else {"clusters": {}}

    def _save(self, state: dict[str, Any]) -> None:
        write_private(self._state_file, json.dumps(state, indent=1), mode=0o644)

    @contextlib.contextmanager
    def _changing(self) -> Iterator[None]:
        """Read, change and save the state with no other thread or process in between (a
        guard releasing a cluster while `up` rents another keeps both changes)."""
        with self._lock, locked(self._state_file):
            yield

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
                    ssh_host=hosts[name].destination if name in hosts else name,
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
        with self._changing():
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
                    said("error.hosts.none_free", gpu=order.gpu, count=order.gpu_count),
                    hint=said("error.hosts.list_them", path=str(self._hosts_file)),
                )
            needed = order.gpu_count // per_node
            chosen = [h for h in free if h.gpus == per_node][:needed]
            if len(chosen) < needed:
                raise CapacityError(
                    said(
                        "error.hosts.too_few",
                        free=len(chosen),
                        per_node=per_node,
                        gpu=order.gpu,
                        needed=needed,
                    ),
                    hint=said("error.hosts.too_few_hint", path=str(self._hosts_file)),
                )
            stamp = int(time.time() * 1000)
            while f"own-{stamp}" in state["clusters"]:  # two rentals in one millisecond
                stamp += 1
            cid = f"own-{stamp}"
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
        with self._changing():
            state = self._state()
            rec = state["clusters"].get(external_id)
            if rec is None:
                raise ProviderError(said("error.hosts.no_cluster", id=external_id))
            rec["state"] = TERMINATED
            rec["terminated_at"] = time.time()
            self._save(state)
            return self._info(external_id, rec)

    def billing(self) -> list[LedgerEntry]:
        return []

    def close(self) -> None:
        return None
