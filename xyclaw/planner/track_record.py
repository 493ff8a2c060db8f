"""The memory of every host and provider the user rented from, and what the planner makes of it.

Every rental leaves facts in the history; :class:`TrackRecord` reads them back as marks,
keyed by what the provider gave (provider, region, GPU model and fabric: the node class;
the node's host name and the provider's machine id: the host):

========================  ==============================================================
mark                      from
========================  ==============================================================
``xid``, ``ecc``,         the node's alerts (``gpu.xid``, ``gpu.ecc_uncorrectable``,
``gpu_lost``              ``gpu.missing``)
``straggler``,            the straggler rules, a collapse of the fabric's traffic, an NCCL
``fabric``                timeout
``busbw_low``             an nccl-tests verdict below the healthy share of its fabric's
                          expected bus bandwidth (its ratio is the figure)
``bring_up_failed``       a cluster released before it was ever ready, with an error
``refusal``               a cluster the provider refused (nothing was created)
``leak``                  a machine found billing at the provider that XyClaw had not kept
``price_drift``           the provider's ledger against the meter at the quoted price (the
                          figure: +0.12 = billed 12% over the quote)
========================  ==============================================================

and each rental's time to ready. :meth:`TrackRecord.judge` is the planner's ranking hook
(:mod:`xyclaw.planner.hook`): a node class that failed on two or more rentals in the last
30 days, or a provider that billed over its quote, is ranked down with the reason; a
single failure, a leak or a refusal only warns.
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from xyclaw.catalog.models import Offer
from xyclaw.catalog.names import same_name
from xyclaw.planner.hook import HookReason, Judgement
from xyclaw.store.track_record import TrackRecordRows

#: Marks that say a node class is unreliable (counted per rental for the ranking).
FAILURES = ("xid", "ecc", "gpu_lost", "straggler", "fabric", "busbw_low", "bring_up_failed")
#: Marks about the provider as a business.
PROVIDER_MARKS = ("refusal", "leak", "price_drift")
MARK_KINDS = FAILURES + PROVIDER_MARKS
#: The reasons of an option ranked down (the others only warn).
RANK_DOWN_RULES = ("memory-node-class", "memory-price-drift")
#: How far back the ranking looks ("this month").
RANKING_WINDOW_S = 30 * 86400
#: Billed this much over the quote is a drift worth ranking down for.
DRIFT_THRESHOLD = 0.05
#: This many failed rentals of one node class rank it down.
FAILED_RENTALS_TO_RANK_DOWN = 2

_RULE_KINDS = {
    "gpu.xid": "xid",
    "gpu.ecc_uncorrectable": "ecc",
    "gpu.missing": "gpu_lost",
    "gpu.straggler": "straggler",
    "node.straggler": "straggler",
    "net.traffic_collapse": "fabric",
    "job.nccl_timeout": "fabric",
}
_COUNT_WORDS = {1: "once", 2: "twice"}


@dataclass(frozen=True, slots=True)
class Rental:
    """One cluster rented: its node class, hosts and time to ready (None: never ready)."""

    cluster_id: int
    name: str
    provider: str
    region: str
    gpu: str
    fabric: str
    gpus: int
    created_at: float
    ready_s: float | None
    state: str
    hosts: tuple[str, ...] = ()
    #: the provider's own id of each host (a Vast machine id, an instance id), as ``hosts``
    machines: tuple[str, ...] = ()

    @property
    def node_class(self) -> tuple[str, str, str, str]:
        return (self.provider, self.region, self.gpu, self.fabric)

    def host_named(self, name: str) -> str | None:
        """The host called ``name`` here, by its host name or the provider's machine id."""
        for host, machine in zip(self.hosts, self.machines or self.hosts, strict=False):
            if same_name(host, name) or same_name(machine, name):
                return host
        return None


@dataclass(frozen=True, slots=True)
class Mark:
    """One fact the history holds about a rental (see the module's table)."""

    kind: str
    ts: float
    cluster_id: int
    provider: str
    region: str
    gpu: str
    fabric: str
    host: str | None  # the node's host name (or the provider's machine id)
    figure: float | None  # busbw_low: the ratio; price_drift: the excess; xid: its code
    detail: str
    #: the GPU's UUID where the node gave one (xid, ecc): one GPU followed across rentals
    gpu_uuid: str | None = None

    @property
    def node_class(self) -> tuple[str, str, str, str]:
        return (self.provider, self.region, self.gpu, self.fabric)

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "gpu_uuid": self.gpu_uuid,
            "ts": self.ts,
            "cluster_id": self.cluster_id,
            "provider": self.provider,
            "region": self.region,
            "gpu": self.gpu,
            "fabric": self.fabric,
            "host": self.host,
            "figure": self.figure,
            "detail": self.detail,
        }


@dataclass(frozen=True, slots=True)
class Standing:
    """What the memory says of one provider, region, node class or host."""

    by: str  # provider, region, node_class, host
    key: str
    rentals: int
    counts: dict[str, int]
    median_ready_s: float | None
    worst_busbw_ratio: float | None
    worst_price_drift: float | None
    last_ts: float | None

    @property
    def failed_rentals(self) -> int:
        return self.counts.get("failed_rentals", 0)

    def to_json(self) -> dict[str, Any]:
        return {
            "by": self.by,
            "key": self.key,
            "rentals": self.rentals,
            "counts": dict(self.counts),
            "median_ready_s": self.median_ready_s,
            "worst_busbw_ratio": self.worst_busbw_ratio,
            "worst_price_drift": self.worst_price_drift,
            "last_ts": self.last_ts,
        }


@dataclass
class _Window:
    """One provider's last 30 days, as the ranking hook reads them."""

    marks: int = 0
    rentals: int = 0
    class_rentals: dict[tuple[str, str, str], int] = field(default_factory=dict)
    class_failures: dict[tuple[str, str, str], list[Mark]] = field(default_factory=dict)
    drifts: list[Mark] = field(default_factory=list)
    leaks: int = 0
    refusals: int = 0


@dataclass(frozen=True)
class TrackRecord:
    """Rentals and marks since ``since``, read at ``now``."""

    now: float
    since: float
    rentals: tuple[Rental, ...] = ()
    marks: tuple[Mark, ...] = ()
    _by_cluster: dict[int, Rental] = field(default_factory=dict, compare=False, repr=False)
    # the ranking's window, by provider (casefolded), and its judgements by node class:
    # a plan asks about thousands of offers of a few classes
    _recent: dict[str, _Window] = field(default_factory=dict, compare=False, repr=False)
    _judged: dict[tuple[str, str, str, str], Judgement | None] = field(
        default_factory=dict, compare=False, repr=False
    )

    def __post_init__(self) -> None:
        self._by_cluster.update({r.cluster_id: r for r in self.rentals})

    # -- reading it back ---------------------------------------------------------------------
    @classmethod
    def from_rows(cls, rows: TrackRecordRows, *, now: float, since: float) -> TrackRecord:
        """The marks of the history's rows (:func:`xyclaw.store.track_record.track_record_rows`)."""
        hosts: dict[int, list[str]] = {}
        machines: dict[int, list[str]] = {}
        host_of_node: dict[int, str] = {}
        for node in rows.nodes:
            name = str(node["hostname"] or node["external_id"] or f"rank {node['rank']}")
            hosts.setdefault(int(node["cluster_id"]), []).append(name)
            machines.setdefault(int(node["cluster_id"]), []).append(
                str(node["external_id"] or name)
            )
            host_of_node[int(node["id"])] = name
        rentals = {}
        for c in rows.clusters:
            ready = c["ready_at"]
            rentals[int(c["id"])] = Rental(
                cluster_id=int(c["id"]),
                name=str(c["name"]),
                provider=str(c["provider"]),
                region=str(c["region"] or ""),
                gpu=str(c["gpu"]),
                fabric=str(c["fabric"]),
                gpus=int(c["gpu_count"]),
                created_at=float(c["created_at"]),
                ready_s=None if ready is None else max(0.0, float(ready) - float(c["created_at"])),
                state=str(c["state"]),
                hosts=tuple(hosts.get(int(c["id"]), ())),
                machines=tuple(machines.get(int(c["id"]), ())),
            )
        marks: list[Mark] = []

        def mark(
            kind: str,
            ts: float,
            cid: int,
            host: str | None,
            fig: float | None,
            d: str,
            gpu_uuid: str | None = None,
        ) -> None:
            rental = rentals.get(cid)
            if rental is not None:
                marks.append(
                    Mark(
                        kind,
                        ts,
                        cid,
                        rental.provider,
                        rental.region,
                        rental.gpu,
                        rental.fabric,
                        host,
                        fig,
                        d,
                        gpu_uuid,
                    )
                )

        for c in rows.clusters:
            cid, error = int(c["id"]), str(c["error"] or "")
            if c["state"] == "failed":
                mark("refusal", float(c["created_at"]), cid, None, None, error or "refused")
            elif (
                c["ready_at"] is None and error and c["state"] in ("released", "releasing", "gone")
            ):
                when = float(c["released_at"] or c["created_at"])
                mark("bring_up_failed", when, cid, None, None, error)
        for a in rows.alerts:
            kind = _RULE_KINDS.get(str(a["rule"]))
            if kind is None:
                continue
            data = _json(a["data_json"])
            code = data.get("xid") if kind == "xid" else None
            host = host_of_node.get(int(a["node_id"])) if a["node_id"] is not None else None
            figure = float(code) if isinstance(code, int | float) else None
            uuid = data.get("uuid")
            mark(
                kind,
                float(a["ts"]),
                int(a["cluster_id"]),
                host,
                figure,
                str(a["message"]),
                uuid if isinstance(uuid, str) and uuid else None,
            )
        for leak in rows.leaks:
            mark(
                "leak", float(leak["ts"]), int(leak["cluster_id"]), None, None, str(leak["message"])
            )
        for v in rows.verdicts:
            verdict = _json(v["verdict_json"])
            ratio = verdict.get("ratio")
            if verdict.get("status") in ("low", "failed", "unstable") and isinstance(
                ratio, int | float
            ):
                text = f"nccl-tests reached {ratio:.0%} of the fabric's expected bus bandwidth"
                mark("busbw_low", float(v["ts"]), int(v["cluster_id"]), None, float(ratio), text)
        ledger: dict[int, dict[str, int]] = {}
        for charge in rows.charges:
            ledger.setdefault(int(charge["cluster_id"]), {})[str(charge["source"])] = int(
                charge["amount_micros"]
            )
        for cid, sources in ledger.items():
            meter, billed = sources.get("meter"), sources.get("provider")
            if meter and billed is not None:
                drift = billed / meter - 1.0
                if abs(drift) >= 0.005:
                    rental = rentals.get(cid)
                    when = rental.created_at if rental is not None else now
                    text = f"billed {drift:+.0%} against the quoted price"
                    mark("price_drift", when, cid, None, drift, text)
        marks.sort(key=lambda m: (m.ts, m.cluster_id, m.kind))
        return cls(now=now, since=since, rentals=tuple(rentals.values()), marks=tuple(marks))

    def filtered(
        self, *, provider: str | None = None, region: str | None = None, host: str | None = None
    ) -> TrackRecord:
        """The rentals (and their marks) of one provider, region and/or host; ``host`` may
        also be a GPU's UUID: the hosts that GPU's faults were seen on."""
        # the host each rental's marks put a GPU of that UUID on (issue 36)
        gpu_host = {
            m.cluster_id: m.host
            for m in self.marks
            if host is not None and m.gpu_uuid and m.host and same_name(m.gpu_uuid, host)
        }

        def named_in(r: Rental) -> str | None:
            if host is None:
                return None
            return r.host_named(host) or gpu_host.get(r.cluster_id)

        def keep(r: Rental) -> bool:
            return (
                (provider is None or same_name(r.provider, provider))
                and (region is None or same_name(r.region, region))
                and (host is None or named_in(r) is not None)
            )

        def only_the_host(r: Rental) -> Rental:
            named = named_in(r)
            if named is None:
                return r
            machine = dict(zip(r.hosts, r.machines or r.hosts, strict=False)).get(named, named)
            return replace(r, hosts=(named,), machines=(machine,))

        rentals = tuple(only_the_host(r) for r in self.rentals if keep(r))
        ids = {r.cluster_id for r in rentals}
        kept_hosts = {r.cluster_id: r.hosts for r in rentals}
        marks = tuple(
            m
            for m in self.marks
            if m.cluster_id in ids
            and (host is None or m.host is None or m.host in kept_hosts.get(m.cluster_id, ()))
        )
        return TrackRecord(now=self.now, since=self.since, rentals=rentals, marks=marks)

    def standings(self, by: str = "provider") -> list[Standing]:
        """One summary per provider, region, node class or host, the most failed first."""
        if by not in ("provider", "region", "node_class", "host"):
            raise ValueError(f"no standing by {by!r}")
        groups: dict[str, list[Rental]] = {}
        for rental in self.rentals:
            for key in _keys(rental, by):
                groups.setdefault(key, []).append(rental)
        out = []
        for key, rentals in groups.items():
            ids = {r.cluster_id for r in rentals}
            marks = [
                m
                for m in self.marks
                if m.cluster_id in ids and (by != "host" or m.host in (None, key))
            ]
            counts = {kind: sum(1 for m in marks if m.kind == kind) for kind in MARK_KINDS}
            counts = {k: v for k, v in counts.items() if v}
            counts["failed_rentals"] = len({m.cluster_id for m in marks if m.kind in FAILURES})
            ready = [r.ready_s for r in rentals if r.ready_s is not None]
            ratios = [m.figure for m in marks if m.kind == "busbw_low" and m.figure is not None]
            drifts = [m.figure for m in marks if m.kind == "price_drift" and m.figure is not None]
            out.append(
                Standing(
                    by=by,
                    key=key,
                    rentals=len(rentals),
                    counts=counts,
                    median_ready_s=statistics.median(ready) if ready else None,
                    worst_busbw_ratio=min(ratios) if ratios else None,
                    worst_price_drift=max(drifts) if drifts else None,
                    last_ts=max((r.created_at for r in rentals), default=None),
                )
            )
        out.sort(key=lambda s: (-s.failed_rentals, -(s.worst_price_drift or 0.0), s.key))
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "since": self.since,
            "now": self.now,
            "rentals": len(self.rentals),
            "providers": [s.to_json() for s in self.standings("provider")],
            "node_classes": [s.to_json() for s in self.standings("node_class")],
            "hosts": [s.to_json() for s in self.standings("host")],
            "marks": [m.to_json() for m in self.marks],
        }

    # -- the ranking hook --------------------------------------------------------------------
    def judge(self, offer: Offer) -> Judgement | None:
        """What the last 30 days say of renting ``offer`` (None: nothing)."""
        key = (
            offer.provider.strip().casefold(),
            offer.region.strip().casefold(),
            offer.gpu,
            offer.fabric,
        )
        if key not in self._judged:
            self._judged[key] = self._judge(offer)
        return self._judged[key]

    def _window(self, provider: str) -> _Window:
        """The last 30 days of one provider, indexed by node class (built once for all)."""
        if not self._recent:
            start = self.now - RANKING_WINDOW_S
            self._recent[""] = _Window()  # read once, even when nothing is recent
            for r in self.rentals:
                if r.created_at >= start:
                    w = self._recent.setdefault(r.provider.strip().casefold(), _Window())
                    w.rentals += 1
                    key = (r.region.strip().casefold(), r.gpu, r.fabric)
                    w.class_rentals[key] = w.class_rentals.get(key, 0) + 1
            for m in self.marks:
                if m.ts < start:
                    continue
                w = self._recent.setdefault(m.provider.strip().casefold(), _Window())
                w.marks += 1
                if m.kind in FAILURES:
                    key = (m.region.strip().casefold(), m.gpu, m.fabric)
                    w.class_failures.setdefault(key, []).append(m)
                elif m.kind == "price_drift" and (m.figure or 0.0) >= DRIFT_THRESHOLD:
                    w.drifts.append(m)
                elif m.kind == "leak":
                    w.leaks += 1
                elif m.kind == "refusal":
                    w.refusals += 1
        return self._recent.get(provider.strip().casefold()) or self._recent[""]

    def _judge(self, offer: Offer) -> Judgement | None:
        window = self._window(offer.provider)
        if not window.marks:
            return None
        reasons: list[HookReason] = []
        rank_down = False
        key = (offer.region.strip().casefold(), offer.gpu, offer.fabric)
        mine = window.class_failures.get(key, [])
        failed = {m.cluster_id for m in mine}
        if failed:
            rented = window.class_rentals.get(key, 0)
            what, what_zh = _what_failed(mine)
            figures = {
                "provider": offer.provider,
                "gpu": offer.gpu,
                "fabric": offer.fabric,
                "region": offer.region,
                "failed": str(len(failed)),
                "rented": str(max(rented, len(failed))),
                "what": what,
                "what_zh": what_zh,
            }
            text = (
                f"your history: {offer.provider}'s {offer.gpu} {offer.fabric} nodes in "
                f"{offer.region} failed on {len(failed)} of {figures['rented']} rentals in the "
                f"last 30 days ({what})"
            )
            if len(failed) >= FAILED_RENTALS_TO_RANK_DOWN:
                rank_down = True
                reasons.append(("memory-node-class", text + "; ranked down", figures))
            else:
                reasons.append(("memory-node-class-once", text, figures))
        drifts = window.drifts
        if drifts:
            rank_down = True
            worst = max(m.figure or 0.0 for m in drifts)
            rented = window.rentals
            figures = {
                "provider": offer.provider,
                "drift": f"{worst:.0%}",
                "times": str(len(drifts)),
                "rented": str(max(rented, len(drifts))),
            }
            reasons.append(
                (
                    "memory-price-drift",
                    f"your history: {offer.provider} billed up to {worst:.0%} over the quoted "
                    f"price on {len(drifts)} of {figures['rented']} rentals in the last 30 days;"
                    " ranked down",
                    figures,
                )
            )
        leaks, refusals = window.leaks, window.refusals
        if leaks or refusals:
            figures = {"provider": offer.provider, "leaks": str(leaks), "refusals": str(refusals)}
            reasons.append(
                (
                    "memory-provider",
                    f"your history: {offer.provider} left {leaks} machine(s) billing unseen and"
                    f" refused {refusals} rental(s) in the last 30 days",
                    figures,
                )
            )
        return Judgement(rank_down, tuple(reasons)) if reasons else None


def _keys(rental: Rental, by: str) -> Iterable[str]:
    if by == "provider":
        return (rental.provider,)
    if by == "region":
        return (f"{rental.provider} / {rental.region or '?'}",)
    if by == "node_class":
        return (" / ".join((rental.provider, rental.region or "?", rental.gpu, rental.fabric)),)
    return rental.hosts


def _what_failed(marks: list[Mark]) -> tuple[str, str]:
    """ "reached 61% of the expected bus bandwidth twice, XID 79 once" (and its Chinese), the
    kinds in the order first seen."""
    order: list[tuple[str, str]] = []
    count: dict[tuple[str, str], int] = {}
    for m in marks:
        label = _label(m)
        if label not in count:
            order.append(label)
            count[label] = 0
        count[label] += 1
    english = ", ".join(
        f"{en} {_COUNT_WORDS.get(count[(en, zh)], f'{count[(en, zh)]} times')}" for en, zh in order
    )
    chinese = "，".join(f"{zh} {count[(en, zh)]} 次" for en, zh in order)
    return english, chinese


def _label(m: Mark) -> tuple[str, str]:
    if m.kind == "busbw_low" and m.figure is not None:
        return (
            f"reached {m.figure:.0%} of the expected bus bandwidth",
            f"总线带宽只达预期的 {m.figure:.0%}",
        )
    if m.kind == "xid" and m.figure is not None:
        return f"XID {m.figure:.0f}", f"XID {m.figure:.0f}"
    return {
        "ecc": ("uncorrectable ECC errors", "不可纠正的 ECC 错误"),
        "gpu_lost": ("a GPU fell off the bus", "GPU 掉卡"),
        "straggler": ("a straggler", "掉队节点"),
        "fabric": ("a fabric stall", "网络停滞"),
        "bring_up_failed": ("failed to come up", "未能启动"),
        "xid": ("an XID", "XID 错误"),
    }.get(m.kind, (m.kind, m.kind))


def _json(raw: object) -> dict[str, Any]:
    if isinstance(raw, dict):
        return raw
    try:
        value = json.loads(raw) if isinstance(raw, str) else None
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}
