"""Renting safely: provision -> wait for SSH -> bootstrap -> ready, and release.

The row in the store always says what is under way before anything is asked
of a provider, so reconciliation can finish or undo it after a crash. A
cluster whose provisioning or bootstrap fails is released unless the user
chose to keep the nodes that came up.
"""

from __future__ import annotations

import logging
import os
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

from xyclaw.engine.bootstrap import (
    BootstrapError,
    NodeExpectation,
    bootstrap_node,
    measure_clock_offset,
)
from xyclaw.engine.operations import Progress, semi_joined, state_said, step_said
from xyclaw.errors import (
    AuthenticationError,
    CapacityError,
    HostKeyError,
    OperationCancelled,
    ProviderError,
    RemoteError,
    XyclawError,
)
from xyclaw.providers import (
    FAILED as P_FAILED,
)
from xyclaw.providers import (
    RUNNING as P_RUNNING,
)
from xyclaw.providers import (
    TERMINATED as P_TERMINATED,
)
from xyclaw.providers import ClusterInfo, ClusterOrder, Provider, ProviderRegistry
from xyclaw.records import ClusterRecord, ClusterState, ClusterStore, NodeRecord
from xyclaw.remote import CommandResult
from xyclaw.store.event_log import EventLog
from xyclaw.wording import Said, said

if TYPE_CHECKING:
    from xyclaw.remote.node_access import ClusterKeys, NodeAccess

log = logging.getLogger(__name__)


class ProvisionError(XyclawError):
    """A cluster could not be brought up; what came up was released (or kept, if asked)."""

    causes: tuple[XyclawError, ...] = ()  # the nodes' own errors, when several failed


#: Causes that another try or another region will not cure: the message's own advice stands.
_NOT_RETRIED = (HostKeyError, AuthenticationError)


def _failure_hint(exc: XyclawError, provider: Provider) -> Said:
    """What was undone, in the provider's words, after the cause's own advice; "try again"
    only where trying again can help."""
    if provider.capabilities.rents:
        undone = said("op.hint.undone_rented")
        retry = said("op.hint.retry_rented", provider=provider.name)
    else:
        undone = said("op.hint.undone_own")
        retry = said("op.hint.retry_own")
    causes = (exc, *getattr(exc, "causes", ()))
    settled = any(isinstance(c, _NOT_RETRIED) for c in causes)
    if exc.hint:
        hint = exc.hint_said or exc.hint
        if settled:
            return said("op.hint.settled", hint=hint, undone=undone)
        return said("op.hint.unsettled", hint=hint, undone=undone, retry=retry)
    return said("op.hint.plain", undone=undone, retry=retry)


@dataclass(frozen=True)
class UpRequest:
    provider: str
    gpu: str
    gpu_count: int
    region: str | None = None
    fabric: str | None = None
    gpus_per_node: int | None = None
    budget_micros: int | None = None
    image: str | None = "pytorch-2.1"
    name: str | None = None
    keep_partial: bool = False
    price_per_gpu_hour_micros: int = 0
    currency: str = "CNY"
    terminate_at: float | None = None  # the provider's own deadline, where it keeps one
    hours: float | None = None  # how long it is meant to run: the quote's estimated total
    spot: bool = False  # preemptible, at the offer's spot price (issue 32)
    # The offer the user approved (a marketplace's ask): rented exactly, or nothing is; a
    # request typed without a quote leaves it None and the provider chooses.
    offer_id: str | None = None
    host: str | None = None  # what the quote said about a marketplace host (issue 31)
    host_community: bool = False  # a community host: every list of clusters says so
    joins: str | None = None  # the provider's id of the cluster the nodes join (issue 34)


@dataclass(frozen=True)
class Timeouts:
    provision_s: float = 900.0
    ssh_s: float = 180.0
    release_s: float = 300.0
    poll_s: float = 1.0


class ClusterLifecycle:
    """Brings clusters up and down through providers; owns nothing it was not given."""

    def __init__(
        self,
        clusters: ClusterStore,
        providers: ProviderRegistry,
        access: NodeAccess,
        events: EventLog,
        public_key: Callable[[], str],
        *,
        cluster_keys: ClusterKeys | None = None,
        timeouts: Timeouts | None = None,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.clusters = clusters
        self.providers = providers
        self.access = access
        self.events = events
        self.public_key = public_key
        # A key pair made for one cluster (by its idempotency key): what a provider whose
        # hosts cannot be trusted (``untrusted_hosts``: marketplaces) is given instead of
        # the app's key, so a host's owner holds nothing that opens another cluster; it is
        # deleted when the cluster ends (:meth:`forget_ended_keys`).
        self.cluster_keys = cluster_keys
        self.timeouts = timeouts or Timeouts()
        self.sleep = sleep
        self.clock = clock
        self._active: set[int] = set()
        self._active_lock = threading.Lock()
        # issue 32: called with (cluster id, why) before a release, while the nodes answer,
        # to copy the outputs still only on them (set by the engine once jobs exist)
        self.before_release: Callable[[int, str, Progress | None], None] | None = None

    def forget_ended_keys(self) -> list[str]:
        """Delete the keys of clusters that ended (see :class:`ClusterKeys`); the names."""
        if self.cluster_keys is None or not self.cluster_keys.folder.is_dir():
            return []  # no marketplace cluster ever: nothing to read on each reconcile
        live = [c.idempotency_key for c in self.clusters.live() if c.idempotency_key]
        deleted = self.cluster_keys.keep_only(live)
        for name in deleted:
            log.info("deleted the SSH key of an ended cluster (%s)", name)
        return deleted

    def working_on(self, cluster_id: int) -> bool:
        """True while an operation of this process is bringing the cluster up or down."""
        with self._active_lock:
            return cluster_id in self._active

    @contextmanager
    def _working(self, cluster_id: int) -> Iterator[None]:
        with self._active_lock:
            self._active.add(cluster_id)
        try:
            yield
        finally:
            with self._active_lock:
                self._active.discard(cluster_id)

    # -- up --------------------------------------------------------------------------------
    def up(self, request: UpRequest, progress: Progress) -> ClusterRecord:
        provider = self.providers.get(request.provider)
        self.clusters.ensure_provider(provider.name, provider.kind)
        key = f"xyclaw-{uuid.uuid4()}"
        name = request.name or f"{request.gpu.lower()}-x{request.gpu_count}-{key[-6:]}"
        cluster_id = self.clusters.add_intent(
            {
                "provider_id": provider.name,
                "name": name,
                "gpu": request.gpu,
                "gpu_count": request.gpu_count,
                "gpus_per_node": request.gpus_per_node or 0,
                "fabric": request.fabric or "none",
                "region": request.region,
                "currency": request.currency,
                "price_per_gpu_hour_micros": request.price_per_gpu_hour_micros,
                "budget_micros": request.budget_micros,
                "idempotency_key": key,
                "keep_partial": int(request.keep_partial),
                "image": request.image,
                "host": request.host,
                "host_community": int(request.host_community),
                "worker_pid": os.getpid(),
            }
        )
        progress.update(
            said("op.asking", provider=provider.name, gpus=request.gpu_count, gpu=request.gpu),
            0.02,
        )
        order = ClusterOrder(
            gpu=request.gpu,
            gpu_count=request.gpu_count,
            region=request.region,
            fabric=request.fabric,
            gpus_per_node=request.gpus_per_node,
            idempotency_key=key,
            ssh_public_key=(
                self.cluster_keys.public_line(key)
                if self.cluster_keys is not None and getattr(provider, "untrusted_hosts", False)
                else self.public_key()
            ),
            image=request.image,
            name=name,
            terminate_at=request.terminate_at,
            spot=request.spot,
            offer_id=request.offer_id,
            joins=request.joins,
        )
        from xyclaw.providers.http_retry import ApiError  # httpx: only once renting

        try:
            info = provider.create(order)
        except (ApiError, CapacityError) as exc:
            # A definite refusal: nothing was created, nothing bills.
            self.clusters.update(
                cluster_id,
                state=ClusterState.FAILED,
                error=exc.said or exc.message,
                worker_pid=None,
            )
            raise
        except ProviderError as exc:
            # The provider may have created it before the failure: reconciliation will
            # look for it by its idempotency key and release it.
            self.clusters.update(cluster_id, error=exc.said or exc.message, worker_pid=None)
            raise
        self.clusters.update(
            cluster_id,
            state=ClusterState.PROVISIONING,
            fabric=info.fabric,
            region=info.region,
            gpus_per_node=info.gpus_per_node,
        )
        self.clusters.apply_provider_view(cluster_id, info)
        with self._working(cluster_id):
            return self._up_or_undo(cluster_id, provider, progress)

    def _up_or_undo(self, cluster_id: int, provider: Provider, progress: Progress) -> ClusterRecord:
        try:
            return self._bring_up(cluster_id, provider, progress)
        except OperationCancelled:
            self._release_after_failure(
                cluster_id, provider, said("op.cancelled_by_user"), progress
            )
            raise
        except XyclawError as exc:
            cluster = self.clusters.get(cluster_id)
            if cluster.state == ClusterState.READY:
                raise
            self._release_after_failure(cluster_id, provider, exc.said or exc.message, progress)
            raise ProvisionError(
                said("op.not_brought_up", cluster=cluster.name, error=exc.said or exc.message),
                hint=_failure_hint(exc, provider),
            ) from exc

    def _bring_up(self, cluster_id: int, provider: Provider, progress: Progress) -> ClusterRecord:
        info = self._wait_running(cluster_id, provider, progress)
        cluster = self.clusters.get(cluster_id)
        usable = [n for n in cluster.nodes if n.state == P_RUNNING]
        if info.state == P_FAILED:
            failed = [n.name for n in cluster.nodes if n.state != P_RUNNING]
            if not cluster.keep_partial or not usable:
                figures = {"failed": len(failed), "total": len(cluster.nodes)}
                names = ", ".join(failed)
                raise ProvisionError(
                    said("op.nodes_failed_why", **figures, names=names, why=info.error)
                    if info.error
                    else said("op.nodes_failed", **figures, names=names)
                )
            self._notice(
                "warning",
                said(
                    "op.partial_kept", cluster=cluster.name, failed=len(failed), usable=len(usable)
                ),
                cluster_id,
            )
        self.clusters.update(cluster_id, state=ClusterState.BOOTSTRAPPING)
        self._wait_ssh(cluster, usable, progress)
        self._bootstrap(cluster, usable, progress)
        self.clusters.update(
            cluster_id, state=ClusterState.READY, ready_at=self.clock(), worker_pid=None
        )
        ready = self.clusters.get(cluster_id)
        progress.update(said("op.ready", cluster=ready.name, nodes=len(usable)), 1.0)
        self._notice(
            "info",
            said(
                "op.notice.ready",
                cluster=ready.name,
                gpus=ready.gpu_count,
                gpu=ready.gpu,
                fabric=ready.fabric,
            ),
            cluster_id,
        )
        return ready

    def _wait_running(self, cluster_id: int, provider: Provider, progress: Progress) -> ClusterInfo:
        deadline = time.monotonic() + self.timeouts.provision_s
        ext = self.clusters.get(cluster_id).external_id
        assert ext is not None
        seen_states: dict[int, str] = {}
        while True:
            progress.check_cancelled()
            info = provider.get(ext)
            if info is None:
                raise ProvisionError(said("op.lost_while_provisioning", cluster=ext))
            self.clusters.apply_provider_view(cluster_id, info)
            for node in info.nodes:
                if seen_states.get(node.rank) != node.state:
                    seen_states[node.rank] = node.state
                    progress.update(
                        said("op.on_node", node=node.hostname, what=state_said(node.state)),
                        None,
                        step="provision",
                        subject=node.hostname,
                    )
            running = sum(1 for n in info.nodes if n.state == P_RUNNING)
            total = max(1, len(info.nodes) or 1)
            if info.state in (P_RUNNING, P_FAILED):
                return info
            if info.state == P_TERMINATED:
                raise ProvisionError(said("op.terminated_while_provisioning", cluster=ext))
            progress.update(
                said("op.provisioning", running=running, total=total),
                0.05 + 0.45 * running / total,
            )
            if time.monotonic() > deadline:
                raise ProvisionError(
                    said(
                        "op.not_running_after",
                        cluster=ext,
                        seconds=f"{self.timeouts.provision_s:.0f}",
                    )
                )
            self.sleep(self.timeouts.poll_s)

    def _parallel(
        self, nodes: list[NodeRecord], work: Callable[[NodeRecord], None]
    ) -> dict[str, XyclawError]:
        failures: dict[str, XyclawError] = {}

        def one(node: NodeRecord) -> None:
            try:
                work(node)
            except XyclawError as exc:
                failures[node.name] = exc

        if nodes:
            with ThreadPoolExecutor(max_workers=min(64, len(nodes))) as pool:
                list(pool.map(one, nodes))
        return failures

    def _wait_ssh(
        self, cluster: ClusterRecord, nodes: list[NodeRecord], progress: Progress
    ) -> None:
        def wait(node: NodeRecord) -> None:
            deadline = time.monotonic() + self.timeouts.ssh_s
            delay = 0.2
            while True:
                progress.check_cancelled()
                try:
                    self.access.run(cluster, node, "true", timeout=15).check()
                    progress.update(
                        said("op.on_node", node=node.name, what=said("op.ssh_ok")),
                        None,
                        step="ssh",
                        subject=node.name,
                    )
                    return
                except (HostKeyError, AuthenticationError):
                    raise  # waiting will not change a refused key
                except RemoteError as exc:
                    if time.monotonic() + delay > deadline:
                        raise RemoteError(
                            said(
                                "op.ssh_timeout",
                                node=node.name,
                                seconds=f"{self.timeouts.ssh_s:.0f}",
                                error=exc.said or exc.message,
                            ),
                            host=node.name,
                        ) from exc
                    self.sleep(delay)
                    delay = min(delay * 2, 5.0)

        failures = self._parallel(nodes, wait)
        self._check_failures(cluster, nodes, failures, "SSH", progress)
        progress.update(said("op.ssh_all"), 0.6)

    def _bootstrap(
        self, cluster: ClusterRecord, nodes: list[NodeRecord], progress: Progress
    ) -> None:
        want = NodeExpectation(
            gpu=cluster.gpu,
            gpus=cluster.gpus_per_node,
            fabric=cluster.fabric,
            image=cluster.image,
        )
        done = [0]

        def boot(node: NodeRecord) -> None:
            def run(command: str) -> CommandResult:
                progress.check_cancelled()
                return self.access.run(cluster, node, command, timeout=60)

            def report(step: str, seen: Said) -> None:
                progress.update(
                    said(
                        "op.on_node",
                        node=node.name,
                        what=said("op.step_ok", step=step_said(step), seen=seen),
                    ),
                    None,
                    step=step,
                    subject=node.name,
                )

            bootstrap_node(run, want, node.name, report)
            offset = measure_clock_offset(run, self.clock)
            if offset is not None:
                self.clusters.set_node_clock_offset(node.id, offset)
            done[0] += 1
            progress.update(
                said("op.bootstrapped", done=done[0], total=len(nodes)),
                0.6 + 0.4 * done[0] / len(nodes),
            )

        failures = self._parallel(nodes, boot)
        self._check_failures(cluster, nodes, failures, "bootstrap", progress)

    def _check_failures(
        self,
        cluster: ClusterRecord,
        nodes: list[NodeRecord],
        failures: dict[str, XyclawError],
        stage: str,
        progress: Progress,
    ) -> None:
        if not failures:
            return
        for node in nodes:
            if node.name in failures:
                failed = failures[node.name]
                # stored with its wording: the node's row words it in the view's language
                self.clusters.set_node_state(node.id, "failed", failed.said or failed.message)
                progress.update(failed.said or failed.message, step="failed", subject=node.name)
        for exc in failures.values():
            if isinstance(exc, OperationCancelled):
                raise exc
        detail = semi_joined([exc.said or exc.message for exc in failures.values()])
        if not cluster.keep_partial or len(failures) == len(nodes):
            step = next((e.step for e in failures.values() if isinstance(e, BootstrapError)), stage)
            # The nodes' own advice (a changed host key: check it, ssh-keygen -R) is kept.
            hints = {str(e.hint): e.hint_said or e.hint for e in failures.values() if e.hint}
            error = ProvisionError(
                said(
                    "op.nodes_failed_step",
                    failed=len(failures),
                    total=len(nodes),
                    step=step_said(step),
                    detail=detail,
                ),
                hint=semi_joined(list(hints.values())) or None,
            )
            error.causes = tuple(failures.values())
            raise error
        self._notice(
            "warning",
            said(
                "op.nodes_failed_unused",
                cluster=cluster.name,
                failed=len(failures),
                step=step_said(stage),
                detail=detail,
            ),
            cluster.id,
        )

    # -- down ------------------------------------------------------------------------------
    def down(
        self, cluster_id: int, progress: Progress | None = None, *, reason: str = "user"
    ) -> ClusterRecord:
        """Release a cluster and wait until the provider confirms; safe to repeat. ``reason``
        (job_end, idle, budget, user) says why, for what is copied off it first."""
        cluster = self.clusters.get(cluster_id)
        if cluster.state == ClusterState.RELEASED:
            return cluster
        if self.before_release is not None and cluster.state != ClusterState.RELEASING:
            if progress:
                progress.update(said("op.release_outputs", cluster=cluster.name), 0.05)
            self.before_release(cluster_id, reason, progress)
        provider = self.providers.get(cluster.provider_id)
        self.clusters.update(
            cluster_id,
            state=ClusterState.RELEASING,
            release_requested_at=cluster.release_requested_at or self.clock(),
            worker_pid=os.getpid(),
        )
        with self._working(cluster_id):
            return self._finish_release(cluster_id, provider, progress)

    def _finish_release(
        self, cluster_id: int, provider: Provider, progress: Progress | None
    ) -> ClusterRecord:
        cluster = self.clusters.get(cluster_id)
        if cluster.external_id is None:
            info = self._find_by_key(provider, cluster.idempotency_key)
            if info is None:
                self.clusters.update(
                    cluster_id,
                    state=ClusterState.RELEASED,
                    released_at=self.clock(),
                    worker_pid=None,
                )
                self.forget_ended_keys()
                return self.clusters.get(cluster_id)
            self.clusters.apply_provider_view(cluster_id, info)
            cluster = self.clusters.get(cluster_id)
        assert cluster.external_id is not None
        if progress:
            progress.update(said("op.releasing", cluster=cluster.name), 0.1)
        info = provider.terminate(cluster.external_id)
        deadline = time.monotonic() + self.timeouts.release_s
        while info is not None and info.state != P_TERMINATED:
            if time.monotonic() > deadline:
                raise ProviderError(
                    said(
                        "op.release_unconfirmed",
                        provider=provider.name,
                        cluster=cluster.name,
                        seconds=f"{self.timeouts.release_s:.0f}",
                    ),
                    hint=said("op.release_unconfirmed_hint"),
                )
            if progress:
                progress.update(
                    said("op.release_wait", provider=provider.name, state=state_said(info.state)),
                    0.5,
                )
            self.sleep(self.timeouts.poll_s)
            info = provider.get(cluster.external_id)
        when = info.terminated_at if info is not None and info.terminated_at else self.clock()
        if info is not None:
            self.clusters.apply_provider_view(cluster_id, info)
        self.clusters.mark_nodes_terminated(cluster_id, when)
        self.clusters.update(
            cluster_id, state=ClusterState.RELEASED, released_at=when, worker_pid=None
        )
        self.forget_ended_keys()
        if progress:
            progress.update(said("op.released", cluster=cluster.name), 1.0)
        self._notice("info", said("op.notice.released", cluster=cluster.name), cluster_id)
        return self.clusters.get(cluster_id)

    def _release_after_failure(
        self, cluster_id: int, provider: Provider, why: str | Said, progress: Progress
    ) -> None:
        self.clusters.update(cluster_id, error=why)
        try:
            self.down(cluster_id)
        except XyclawError as exc:
            log.error("release after failure of cluster %s failed: %s", cluster_id, exc)
            self._notice(
                "critical",
                said(
                    "op.notice.release_failed",
                    cluster=cluster_id,
                    why=why,
                    error=exc.said or exc.message,
                ),
                cluster_id,
            )

    @staticmethod
    def _find_by_key(provider: Provider, key: str | None) -> ClusterInfo | None:
        if key is None:
            return None
        for info in provider.clusters():
            if info.idempotency_key == key:
                return info
        return None

    def _notice(self, severity: str, message: str | Said, cluster_id: int | None) -> None:
        self.events.record("cluster", severity, message, cluster_id=cluster_id)


__all__ = ["ClusterLifecycle", "ProvisionError", "Timeouts", "UpRequest"]
