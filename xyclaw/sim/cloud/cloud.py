"""The simulated cloud's logic, without HTTP: rent, provision, bill and release clusters.

Every API operation is a method that returns ``(status, body)`` or raises
:class:`CloudApiError`, so tests can drive the cloud in-process and the HTTP
layer stays a thin translation. Provisioning and termination run on worker
threads against deadlines taken from the injected clock; the deadlines are
saved, so a restarted cloud resumes where it stopped.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import random
import shutil
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from xyclaw import __version__
from xyclaw.catalog import Offer
from xyclaw.errors import ProviderError
from xyclaw.sim.cloud import files
from xyclaw.sim.cloud.errors import CloudApiError, bad_request, not_found
from xyclaw.sim.cloud.ledger import ledger
from xyclaw.sim.cloud.nodes import NodeFactory, NodeHandle, NodeLaunch
from xyclaw.sim.cloud.ratelimit import TokenBucket
from xyclaw.sim.cloud.records import ClusterRecord, NodeRecord
from xyclaw.sim.cloud.requests import (
    ClusterRequest,
    apply_faults,
    check_idempotency_key,
    parse_create,
    parse_update,
)
from xyclaw.sim.cloud.settings import CloudSettings, Faults
from xyclaw.wording import Said, said, semicolon_joined

log = logging.getLogger(__name__)

STATE_VERSION = 1
CURRENCY = "CNY"
POLL_S = 0.05  # how often a waiting worker looks at the (possibly fake) clock
PENDING_SHARE = 0.1  # share of the provision delay a cluster spends pending
MAX_PENDING_S = 1.0
# Spot (issue 32): a preemptible cluster at this share of the on-demand price, which the
# cloud takes back with a notice. The rate is what the offers list says of the risk.
SPOT_SHARE = 0.35
SPOT_NOTICE_S = 30.0


def spot_price(on_demand_micros: int) -> int:
    return round(on_demand_micros * SPOT_SHARE)


Clock = Callable[[], float]
Result = tuple[int, dict[str, Any]]

_BOOT_FAILURES = (  # keys of xyclaw.wording.providers, each with the figure ``gpu``
    "provider.sim.boot.xid79",
    "provider.sim.boot.ib_down",
    "provider.sim.boot.no_answer",
    "provider.sim.boot.ecc",
)


@dataclass(frozen=True)
class Admission:
    """What the fault gate decided for one request."""

    retry_after: float | None = None  # rate limited: answer 429
    error_status: int | None = None  # injected failure: answer this status
    hang_s: float = 0.0  # injected timeout: wait this long before answering


def sim_offers(offers: Sequence[Offer], provider: str = "sim") -> list[Offer]:
    """The catalog offers the simulated cloud rents."""
    return [o for o in offers if o.provider == provider]


def _digest(body: Any) -> str:
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode()).hexdigest()


class SimCloud:
    """One simulated cloud over one state folder. ``open`` it before use, ``close`` it after."""

    def __init__(
        self,
        state_dir: Path,
        *,
        token: str,
        settings: CloudSettings,
        offers: Sequence[Offer],
        node_factory: NodeFactory,
        clock: Clock = time.time,
        monotonic: Clock = time.monotonic,
        rng: random.Random | None = None,
    ) -> None:
        if not offers:
            raise ProviderError("the simulated cloud has no offers to rent")
        self.state_dir = state_dir
        self.token = token
        self.settings = settings
        self.offers = tuple(offers)
        self._factory = node_factory
        self._clock = clock
        self._rng = rng or random.Random()
        # its own generator: the spot draws do not depend on other faults' draws (issue 32)
        self._spot_rng = random.Random(settings.spot_seed)
        self._spot_rate_since: float | None = None
        self._defaults = Faults.from_settings(settings, self.offers)
        self._faults = Faults.from_settings(settings, self.offers)
        self._bucket = TokenBucket(self._faults.rate_limit_per_s, monotonic)
        self._lock = threading.RLock()
        self._stop = threading.Event()
        self._folder_lock = files.FolderLock(state_dir / files.LOCK_FILE)
        self._clusters: dict[str, ClusterRecord] = {}
        self._idempotency: dict[str, dict[str, str]] = {}
        self._handles: dict[str, NodeHandle] = {}
        self._workers: set[threading.Thread] = set()
        self._workers_lock = threading.Lock()
        self._deadlines: threading.Thread | None = None
        self._hostname_seq = 0
        self.last_port: int | None = None
        self.started_at: float | None = None

    # -- life cycle ----------------------------------------------------------------------------

    def open(self) -> None:
        """Load the saved state, bring running nodes back and resume what was under way."""
        self.state_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        if not self._folder_lock.acquire(blocking=False):
            raise ProviderError(
                f"another simulated cloud is serving {self.state_dir}",
                hint="use that one (xyclaw sim status) or stop it first (xyclaw sim stop)",
            )
        try:
            self._load()
        except BaseException:
            self._folder_lock.release()
            raise
        self._stop.clear()
        self.started_at = self._clock()
        now = self.started_at
        with self._lock:
            clusters = list(self._clusters.values())
        for cluster in clusters:
            deadline = cluster.terminate_deadline
            if cluster.state == "terminating" and deadline is not None and deadline <= now:
                self._spawn(self._terminate_worker, cluster.id)
                continue
            if cluster.state != "terminated":
                self._restart_nodes(cluster)
            if cluster.state in ("pending", "provisioning"):
                self._spawn(self._provision_worker, cluster.id)
            elif cluster.state == "terminating":
                self._spawn(self._terminate_worker, cluster.id)
        self._deadlines = threading.Thread(
            target=self._deadline_loop, name="simcloud-deadlines", daemon=True
        )
        self._deadlines.start()
        log.info("simulated cloud open on %s with %d clusters", self.state_dir, len(clusters))

    def close(self) -> None:
        """Stop workers and nodes; the saved state lets the next ``open`` carry on."""
        self._stop.set()
        if self._deadlines is not None:
            self._deadlines.join(timeout=10)
            self._deadlines = None
        with self._workers_lock:
            workers = list(self._workers)
        for worker in workers:
            worker.join(timeout=10)
        with self._lock:
            handles = list(self._handles.values())
            self._handles.clear()
        for handle in handles:
            self._stop_handle(handle)
        with self._lock:
            if self._folder_lock.held:
                self._save()
        self._folder_lock.release()

    @property
    def closing(self) -> bool:
        return self._stop.is_set()

    @property
    def rate_limit_per_s(self) -> float:
        return self._bucket.rate

    def pause(self, seconds: float) -> None:
        """An injected timeout: wait, but not past the cloud's own shutdown."""
        self._stop.wait(seconds)

    # -- the fault gate ------------------------------------------------------------------------

    def admit(self) -> Admission:
        """Rate limit and injected faults for one API request (health and the fault API pass)."""
        retry_after = self._bucket.take()
        if retry_after is not None:
            return Admission(retry_after=retry_after)
        with self._lock:
            faults = self._faults
            if faults.error_rate > 0 and self._rng.random() < faults.error_rate:
                return Admission(error_status=faults.error_status)
            if faults.timeout_rate > 0 and self._rng.random() < faults.timeout_rate:
                return Admission(hang_s=faults.timeout_s)
        return Admission()

    # -- API operations ------------------------------------------------------------------------

    def health(self) -> Result:
        return 200, {"ok": True, "version": __version__, "started_at": self.started_at}

    def list_offers(self) -> Result:
        with self._lock:
            held = self._held_cards()
            capacity = self._faults.capacity
            offers = [
                {
                    "offer_id": o.offer_id,
                    "provider": o.provider,
                    "region": o.region,
                    "gpu": o.gpu,
                    "gpus_per_node": o.gpus_per_node,
                    "node_counts": list(o.node_counts),
                    "fabric": o.fabric,
                    "kind": o.kind,
                    "price_per_gpu_hour_micros": o.price_micro,
                    "price_30d_per_gpu_hour_micros": o.price_30d_micro,
                    "spot_price_per_gpu_hour_micros": spot_price(o.price_micro),
                    "spot_preemptions_per_day": round(
                        self._faults.spot_preemptions_per_hour * 24, 6
                    ),
                    "currency": o.currency,
                    "available_gpus": max(
                        0,
                        capacity.get(o.region, {}).get(o.gpu, 0) - held.get((o.region, o.gpu), 0),
                    ),
                }
                for o in self.offers
            ]
        return 200, {"offers": offers}

    def create_cluster(self, body: Any, idempotency_key: str | None) -> Result:
        key = check_idempotency_key(idempotency_key)
        digest = _digest(body)
        with self._lock:
            seen = self._idempotency.get(key)
            if seen is not None:
                first = self._clusters[seen["cluster_id"]]
                if seen["digest"] != digest:
                    raise CloudApiError(
                        409,
                        "idempotency_conflict",
                        f"Idempotency-Key {key!r} was first used with a different request "
                        f"(it created cluster {first.id}); use a new key for a new cluster",
                    )
                return 200, {"cluster": self._public(first)}
            request = parse_create(body, self.offers)
            if request.joins is not None:
                self._check_join(request)
            self._check_capacity(request)
            cluster = self._new_cluster(request, key)
            self._clusters[cluster.id] = cluster
            self._idempotency[key] = {"digest": digest, "cluster_id": cluster.id}
            self._save()
            public = self._public(cluster)
        log.info("cluster %s created: %d x %s", cluster.id, cluster.gpu_count, cluster.gpu)
        self._spawn(self._provision_worker, cluster.id)
        return 202, {"cluster": public}

    def list_clusters(self, *, include_terminated: bool = False) -> Result:
        with self._lock:
            clusters = [
                self._public(c)
                for c in self._clusters.values()
                if include_terminated or c.state != "terminated"
            ]
        return 200, {"clusters": clusters}

    def get_cluster(self, cluster_id: str) -> Result:
        with self._lock:
            return 200, {"cluster": self._public(self._cluster(cluster_id))}

    def delete_cluster(self, cluster_id: str) -> Result:
        with self._lock:
            cluster = self._cluster(cluster_id)
            if cluster.state == "terminated":
                return 200, {"cluster": self._public(cluster)}
            if cluster.state == "terminating":
                return 202, {"cluster": self._public(cluster)}
            self._begin_termination(cluster, self._clock(), by="request")
            public = self._public(cluster)
        log.info("cluster %s terminating", cluster_id)
        self._spawn(self._terminate_worker, cluster_id)
        return 202, {"cluster": public}

    def update_cluster(self, cluster_id: str, body: Any) -> Result:
        """Set or move (or, with null, drop) the deadline at which the cloud terminates it."""
        changes = parse_update(body)
        with self._lock:
            cluster = self._cluster(cluster_id)
            if cluster.state in ("terminating", "terminated"):
                raise CloudApiError(
                    409,
                    "cluster_ended",
                    f"cluster {cluster_id} is {cluster.state}; its deadline can no longer change",
                )
            cluster.terminate_at = changes["terminate_at"]
            self._save()
            public = self._public(cluster)
        log.info("cluster %s terminates at %s", cluster_id, cluster.terminate_at)
        return 200, {"cluster": public}

    def preempt(self, cluster_id: str, body: Any) -> Result:
        """Take a spot cluster back after ``notice_s`` seconds (default 30), as a spot
        market does: its ``preempt_at`` says when from now on; then its nodes stop, their
        disks and the volume are wiped, and billing ends at that moment."""
        notice = (body or {}).get("notice_s", SPOT_NOTICE_S) if isinstance(body, dict) else None
        if isinstance(notice, bool) or not isinstance(notice, int | float) or notice < 0:
            raise bad_request('the body must be {"notice_s": seconds >= 0}')
        with self._lock:
            cluster = self._cluster(cluster_id)
            if not cluster.spot:
                raise bad_request(f"cluster {cluster_id} is not spot: only spot is preempted")
            if cluster.state in ("terminating", "terminated"):
                raise CloudApiError(
                    409, "cluster_ended", f"cluster {cluster_id} is {cluster.state}"
                )
            cluster.preempt_at = self._clock() + float(notice)
            self._save()
            public = self._public(cluster)
        log.info("cluster %s preempted at %s", cluster_id, cluster.preempt_at)
        return 200, {"cluster": public}

    def _begin_termination(self, cluster: ClusterRecord, now: float, *, by: str) -> None:
        """Under the lock: the cluster starts terminating; its nodes stop after the delay."""
        cluster.state = "terminating"
        cluster.terminating_at = now
        cluster.terminate_deadline = now + self._faults.terminate_delay_s
        cluster.ended_by = by
        if by == "deadline":
            cluster.billing_ends_at = cluster.terminate_at
        if by == "preempted":
            cluster.billing_ends_at = cluster.preempt_at
        self._save()

    def _deadline_loop(self) -> None:
        """Terminate every cluster whose deadline has come (also one that came while the cloud
        was down: its billing still ends at the deadline)."""
        while not self._stop.wait(POLL_S):
            now = self._clock()
            due: list[str] = []
            with self._lock:
                self._spot_notices(now)
                for cluster in self._clusters.values():
                    if cluster.state in ("terminating", "terminated"):
                        continue
                    taken = cluster.preempt_at is not None and cluster.preempt_at <= now
                    at = cluster.terminate_at
                    if not taken and (at is None or at > now):
                        continue
                    self._begin_termination(cluster, now, by="preempted" if taken else "deadline")
                    due.append(cluster.id)
            for cluster_id in due:
                log.info("cluster %s reached its deadline: terminating", cluster_id)
                self._spawn(self._terminate_worker, cluster_id)

    def _spot_notices(self, now: float) -> None:
        """Under the lock: the cloud takes running spot clusters back on its own (issue 32).
        Each one's life until the notice is drawn once from an exponential law at the spot
        rate, counted from when it started running (or from a change of the rate), so the
        same seed gives the same notices however late this loop looks. When that time has
        come, the cloud gives the notice as ``preempt`` does: taken back ``spot_notice_s``
        after it."""
        rate_per_s = self._faults.spot_preemptions_per_hour / 3600.0
        notice_s = self._faults.spot_notice_s
        changed = False
        for cluster in self._clusters.values():
            if not cluster.spot or cluster.state != "running" or cluster.preempt_at is not None:
                continue
            if cluster.spot_notice_due is None:
                if rate_per_s <= 0:
                    continue
                since = max(cluster.running_at or now, self._spot_rate_since or 0.0)
                cluster.spot_notice_due = since + self._spot_rng.expovariate(rate_per_s)
                changed = True
            due = cluster.spot_notice_due
            if due <= now:
                # a notice the cloud was too late to give (it was down) still gives notice_s
                cluster.preempt_at = due + notice_s if due + notice_s > now else now + notice_s
                changed = True
                log.info("spot cluster %s taken back at %s", cluster.id, cluster.preempt_at)
        if changed:
            self._save()

    def billing(self) -> Result:
        with self._lock:
            return 200, ledger(self._clusters.values(), self._clock(), CURRENCY)

    def get_faults(self) -> Result:
        with self._lock:
            return 200, self._faults.to_json()

    def set_faults(self, body: Any) -> Result:
        with self._lock:
            rate = self._faults.spot_preemptions_per_hour
            self._faults = apply_faults(body, self._faults, self._defaults, self.offers)
            if self._faults.spot_preemptions_per_hour != rate:  # drawn again at the new rate
                self._spot_rate_since = self._clock()
                for cluster in self._clusters.values():
                    cluster.spot_notice_due = None
            if self._faults.rate_limit_per_s != self._bucket.rate:
                self._bucket.set_rate(self._faults.rate_limit_per_s)
            return 200, self._faults.to_json()

    def node_fault(self, node_id: str, body: Any) -> Result:
        if not isinstance(body, dict) or not isinstance(body.get("fault"), str):
            raise bad_request('the body must be {"fault": NAME, ...arguments}')
        args = {k: v for k, v in body.items() if k != "fault"}
        with self._lock:
            found = self._node(node_id)
            if found is None:
                raise not_found(f"no node {node_id}")
            cluster, node = found
            handle = self._handles.get(node_id)
            if handle is None:
                raise bad_request(
                    f"node {node_id} ({node.hostname}) is {node.state}; faults apply to "
                    "running nodes only"
                )
        try:
            active = handle.apply_fault(body["fault"], args)
        except (ValueError, TypeError) as exc:
            raise bad_request(f"fault {body['fault']!r} on {node.hostname}: {exc}") from None
        log.info("fault %s on %s (%s)", body["fault"], node.hostname, node_id)
        with self._lock:
            public = node.public(self.settings.host, self.settings.ssh_user)
        return 200, {"node": public, "cluster_id": cluster.id, "fault": body["fault"],
                     "active": active}  # fmt: skip

    # -- workers -------------------------------------------------------------------------------

    def _spawn(self, target: Callable[[str], None], cluster_id: str) -> None:
        def run() -> None:
            try:
                target(cluster_id)
            except Exception:
                log.exception("worker for cluster %s failed", cluster_id)
            finally:
                with self._workers_lock:
                    self._workers.discard(threading.current_thread())

        worker = threading.Thread(
            target=run, name=f"simcloud-{target.__name__}-{cluster_id}", daemon=True
        )
        with self._workers_lock:
            self._workers.add(worker)
        worker.start()

    def _wait_until(self, deadline: float) -> bool:
        """True at the deadline, False if the cloud is closing first."""
        while True:
            if self._stop.is_set():
                return False
            remaining = deadline - self._clock()
            if remaining <= 0:
                return True
            if self._stop.wait(min(remaining, POLL_S)):
                return False

    def _provision_worker(self, cluster_id: str) -> None:
        with self._lock:
            cluster = self._clusters[cluster_id]
        if not self._wait_until(cluster.provisioning_at):
            return
        with self._lock:
            if cluster.state == "pending":
                cluster.state = "provisioning"
                for node in cluster.nodes:
                    if node.state == "pending":
                        node.state = "provisioning"
                self._save()
            if cluster.state != "provisioning":
                return
            waiting = sorted(
                (n for n in cluster.nodes if n.state == "provisioning"),
                key=cluster.node_ready_at,
            )
        groups: dict[float, list[NodeRecord]] = {}
        for node in waiting:
            groups.setdefault(cluster.node_ready_at(node), []).append(node)
        for ready_at, group in groups.items():
            if not self._wait_until(ready_at):
                return
            if len(group) == 1:
                booted = [self._boot(cluster, group[0])]
            else:  # nodes due at the same instant boot in parallel, as on a real cloud
                with ThreadPoolExecutor(min(16, len(group)), "simcloud-boot") as pool:
                    booted = list(pool.map(lambda n: self._boot(cluster, n, save=False), group))
                with self._lock:  # the group's nodes in one write, not one write each
                    self._save()
            if not all(booted):
                return
        with self._lock:
            if cluster.state == "provisioning":
                self._settle(cluster)
                self._save()

    def _boot(self, cluster: ClusterRecord, node: NodeRecord, *, save: bool = True) -> bool:
        """Start one node at its deadline; False if the cluster no longer wants it. With
        ``save=False`` the caller writes the state file once the node's group has booted
        (the state of every cluster, rewritten and synced to disk, for each of 16 nodes
        booting together held the cloud's lock for ~0.1 s)."""
        ready_at = cluster.node_ready_at(node)
        if node.fails:
            with self._lock:
                if cluster.state != "provisioning":
                    return False
                why = said(
                    self._rng.choice(_BOOT_FAILURES),
                    gpu=self._rng.randrange(cluster.gpus_per_node),
                )
                node.fail(said("provider.sim.boot_failed", hostname=node.hostname, why=why))
                if save:
                    self._save()
            return True
        handle, error = self._start_node(cluster, node)
        with self._lock:
            if cluster.state != "provisioning" or self._stop.is_set():
                if handle is not None:
                    self._stop_handle(handle)
                if cluster.state in ("terminating", "terminated") and node.state == "provisioning":
                    node.state = "terminated"
                    self._save()
                return False
            if handle is None:
                assert error is not None
                node.fail(error)
            else:
                self._mark_running(node, handle, ready_at)
            if save:
                self._save()
        return True

    def _settle(self, cluster: ClusterRecord) -> None:
        failed = [n for n in cluster.nodes if n.state == "failed"]
        if any(n.state not in ("running", "failed") for n in cluster.nodes):
            return
        if failed:
            cluster.state = "failed"
            cluster.fail(
                said(
                    "provider.sim.nodes_failed",
                    failed=len(failed),
                    total=cluster.node_count,
                    errors=semicolon_joined([n.said_error or n.hostname for n in failed]),
                )
            )
        else:
            cluster.state = "running"
            cluster.running_at = max(n.running_at or 0.0 for n in cluster.nodes)
        log.info("cluster %s is %s", cluster.id, cluster.state)

    def _terminate_worker(self, cluster_id: str) -> None:
        with self._lock:
            cluster = self._clusters[cluster_id]
            deadline = cluster.terminate_deadline
        if deadline is None or not self._wait_until(deadline):
            return
        with self._lock:
            handles = [self._handles.pop(n.id) for n in cluster.nodes if n.id in self._handles]
        for handle in handles:
            self._stop_handle(handle)
        with self._lock:
            for node in cluster.nodes:
                if node.state == "running":
                    ends = cluster.billing_ends_at
                    node.ended_at = deadline if ends is None else max(ends, node.running_at or ends)
                if node.state != "failed":
                    node.state = "terminated"
            cluster.state = "terminated"
            cluster.terminated_at = deadline
            self._save()
        for node in cluster.nodes:
            shutil.rmtree(self._node_dir(node), ignore_errors=True)
        shutil.rmtree(self._volume_dir(cluster), ignore_errors=True)
        log.info("cluster %s terminated", cluster_id)

    # -- nodes ---------------------------------------------------------------------------------

    def _node_dir(self, node: NodeRecord) -> Path:
        return self.state_dir / files.NODES_DIR / node.id

    def _volume_dir(self, cluster: ClusterRecord) -> Path:
        return self.state_dir / files.VOLUMES_DIR / cluster.id

    def _fabric_of(self, cluster: ClusterRecord) -> tuple[ClusterRecord, list[NodeRecord]]:
        """The cluster whose fabric and shared volume a cluster's nodes are on (the one it
        joined, else its own), and every node on that fabric, by rank."""
        home = self._clusters.get(cluster.joins or "") or cluster
        nodes = list(home.nodes)
        for other in self._clusters.values():
            if other.joins == home.id and other.state not in ("terminating", "terminated"):
                nodes.extend(n for n in other.nodes if n not in nodes)
        return home, nodes

    def _launch(self, cluster: ClusterRecord, node: NodeRecord, port: int) -> NodeLaunch:
        node_dir = self._node_dir(node)
        root = node_dir / "fs"
        with self._lock:
            home, on_fabric = self._fabric_of(cluster)
        volume = self._volume_dir(home)  # a joined node sees the cluster's shared volume
        root.mkdir(parents=True, exist_ok=True)
        volume.mkdir(parents=True, exist_ok=True)
        return NodeLaunch(
            cluster_id=home.id,
            node_id=node.id,
            hostname=node.hostname,
            rank=on_fabric.index(node) if node in on_fabric else node.rank,
            peers=tuple(n.hostname for n in on_fabric),
            gpu=cluster.gpu,
            gpus_per_node=cluster.gpus_per_node,
            fabric=cluster.fabric,
            image=cluster.image,
            root=root,
            shared_volume=volume,
            host_key_path=node_dir / files.HOST_KEY_FILE,
            authorized_key=cluster.ssh_public_key,
            host=self.settings.host,
            port=port,
            peer_address=lambda hostname: self._peer_address(cluster, hostname),
        )

    def _peer_address(self, cluster: ClusterRecord, hostname: str) -> tuple[str, int] | None:
        """Where a peer's sshd listens, for a node that forwards to it (ProxyJump)."""
        with self._lock:
            for node in self._fabric_of(cluster)[1]:
                if node.hostname == hostname and node.state == "running" and node.port:
                    return self.settings.host, node.port
        return None

    def _start_node(
        self, cluster: ClusterRecord, node: NodeRecord
    ) -> tuple[NodeHandle | None, Said | None]:
        """Start a node on its old port if it had one (else any); never raises."""
        if node.port:
            try:
                return self._factory(self._launch(cluster, node, node.port)), None
            except Exception as exc:  # most likely the port is taken now
                log.info("node %s not back on port %d (%s); trying another", node.hostname,
                         node.port, exc)  # fmt: skip
        try:
            return self._factory(self._launch(cluster, node, 0)), None
        except Exception as exc:
            log.exception("node %s did not start", node.hostname)
            return None, said("provider.sim.did_not_start", hostname=node.hostname, error=str(exc))

    def _mark_running(self, node: NodeRecord, handle: NodeHandle, since: float) -> None:
        self._handles[node.id] = handle
        node.state = "running"
        node.port = handle.port
        node.host_key = handle.host_key
        if node.running_at is None:
            node.running_at = since

    def _restart_nodes(self, cluster: ClusterRecord) -> None:
        """After a restart: the nodes that ran come back with the same key, on the same port."""
        for node in cluster.nodes:
            if node.state != "running":
                continue
            handle, error = self._start_node(cluster, node)
            with self._lock:
                if handle is not None:
                    self._mark_running(node, handle, self._clock())
                    continue
                node.fail(said("provider.sim.after_restart", error=error))
                node.ended_at = self._clock()
                if cluster.state == "running":
                    cluster.state = "failed"
                    cluster.fail(said("provider.sim.not_back", hostname=node.hostname))
        with self._lock:
            self._save()

    @staticmethod
    def _stop_handle(handle: NodeHandle) -> None:
        try:
            handle.stop()
        except Exception:
            log.exception("a simulated node did not stop cleanly")

    # -- bookkeeping ---------------------------------------------------------------------------

    def _public(self, cluster: ClusterRecord) -> dict[str, Any]:
        return cluster.public(self.settings.host, self.settings.ssh_user)

    def _cluster(self, cluster_id: str) -> ClusterRecord:
        cluster = self._clusters.get(cluster_id)
        if cluster is None:
            raise not_found(f"no cluster {cluster_id}")
        return cluster

    def _node(self, node_id: str) -> tuple[ClusterRecord, NodeRecord] | None:
        for cluster in self._clusters.values():
            for node in cluster.nodes:
                if node.id == node_id:
                    return cluster, node
        return None

    def _held_cards(self) -> dict[tuple[str, str], int]:
        """Cards rented or being set up, per region and GPU (failed nodes give theirs back)."""
        held: dict[tuple[str, str], int] = {}
        for cluster in self._clusters.values():
            busy = sum(
                1 for n in cluster.nodes if n.state in ("pending", "provisioning", "running")
            )
            if busy:
                key = (cluster.region, cluster.gpu)
                held[key] = held.get(key, 0) + busy * cluster.gpus_per_node
        return held

    def _check_capacity(self, request: ClusterRequest) -> None:
        offer = request.offer
        total = self._faults.capacity.get(offer.region, {}).get(offer.gpu, 0)
        free = max(0, total - self._held_cards().get((offer.region, offer.gpu), 0))
        if request.gpu_count > free:
            raise CloudApiError(
                422,
                "insufficient_capacity",
                f"insufficient capacity in {offer.region} for {offer.gpu}: "
                f"{request.gpu_count} cards asked, {free} free (of {total})",
                hint="ask for fewer cards, another region or another GPU, or retry later",
            )

    def _new_cluster(self, request: ClusterRequest, key: str) -> ClusterRecord:
        offer = request.offer
        now = self._clock()
        delay = self._faults.provision_delay_s
        cluster_id = f"c-{uuid.uuid4().hex[:12]}"
        region_code = offer.offer_id.split("-", 1)[0]
        failing = min(self._faults.fail_nodes, request.node_count)
        self._faults.fail_nodes = 0
        nodes = []
        for rank in range(request.node_count):
            self._hostname_seq += 1
            nodes.append(
                NodeRecord(
                    id=f"n-{uuid.uuid4().hex[:12]}",
                    rank=rank,
                    hostname=f"{region_code}-{offer.gpu.lower()}-{self._hostname_seq:04d}",
                    fails=rank >= request.node_count - failing,
                )
            )
        return ClusterRecord(
            id=cluster_id,
            name=request.name or cluster_id,
            state="pending",
            offer_id=offer.offer_id,
            gpu=offer.gpu,
            gpu_count=request.gpu_count,
            gpus_per_node=offer.gpus_per_node,
            region=offer.region,
            fabric=offer.fabric,
            image=request.image,
            price_per_gpu_hour_micros=(
                spot_price(offer.price_micro) if request.spot else offer.price_micro
            ),
            currency=offer.currency,
            created_at=now,
            idempotency_key=key,
            ssh_public_key=request.ssh_public_key,
            provisioning_at=now + min(MAX_PENDING_S, PENDING_SHARE * delay),
            provision_delay_s=delay,
            per_node_delay_s=self._faults.per_node_delay_s if delay > 0 else 0.0,  # 0: at once
            nodes=nodes,
            terminate_at=request.terminate_at,
            spot=request.spot,
            joins=request.joins,
        )

    def _check_join(self, request: ClusterRequest) -> None:
        """Nodes join only a running cluster with the same GPU, region, fabric and node
        size (a replacement for one of its nodes, issue 34). Lock held."""
        joined = self._clusters.get(request.joins or "")
        if joined is None:
            raise CloudApiError(404, "not_found", f"no cluster {request.joins!r} to join")
        if joined.state != "running" or joined.joins is not None:
            raise CloudApiError(
                409,
                "cannot_join",
                f"cluster {joined.id} is "
                f"{joined.state if joined.state != 'running' else 'itself a join'}; "
                "nodes join only a running cluster of their own",
            )
        offer = request.offer
        mine = (offer.gpu, offer.region, offer.fabric, offer.gpus_per_node)
        theirs = (joined.gpu, joined.region, joined.fabric, joined.gpus_per_node)
        if mine != theirs:
            raise CloudApiError(
                409,
                "cannot_join",
                f"cluster {joined.id} is {joined.gpus_per_node} x {joined.gpu} per node on "
                f"{joined.fabric} in {joined.region}; the request is {offer.gpus_per_node} x "
                f"{offer.gpu} on {offer.fabric} in {offer.region}",
            )

    # -- persistence ---------------------------------------------------------------------------

    def _save(self) -> None:
        files.write_json(
            self.state_dir / files.STATE_FILE,
            {
                "version": STATE_VERSION,
                "hostname_seq": self._hostname_seq,
                "last_port": self.last_port,
                "clusters": [c.to_json() for c in self._clusters.values()],
                "idempotency": self._idempotency,
            },
            compact=True,
        )

    def _load(self) -> None:
        path = self.state_dir / files.STATE_FILE
        data = files.read_json(path)
        with self._lock:
            self._clusters.clear()
            self._idempotency.clear()
            self._handles.clear()
            if data is None:
                return
            if not isinstance(data, dict) or data.get("version") != STATE_VERSION:
                raise ProviderError(
                    f"{path} was written by another version of the simulated cloud",
                    hint="move the folder away to start the simulated cloud afresh",
                )
            try:
                for item in data["clusters"]:
                    cluster = ClusterRecord.from_json(item)
                    self._clusters[cluster.id] = cluster
                self._idempotency.update(data["idempotency"])
                self._hostname_seq = int(data["hostname_seq"])
                self.last_port = data.get("last_port")
            except (KeyError, TypeError, ValueError) as exc:
                raise ProviderError(
                    f"{path} is damaged ({exc!r})",
                    hint="move the file away to start the simulated cloud afresh",
                ) from exc

    def remember_port(self, port: int) -> None:
        """The HTTP port, so a restarted cloud can try to listen where clients knew it."""
        with self._lock:
            self.last_port = port
            with contextlib.suppress(OSError):
                self._save()
