"""Reconciliation: the providers' instances against the store, at start-up and every minute.

- An instance that bills but that the store does not know, or that should have
  been released, is an orphan: the user is told at once, and by policy it is
  released (default) or only reported.
- Work another process left unfinished (its process is gone) is undone: a
  cluster that was being provisioned is released, a release is completed.
- A store cluster the provider says it terminated (its own record, read back) is marked
  ``gone`` with the time it was last seen.
- A store cluster a readable listing merely no longer shows, which XyClaw did not
  release, is never forgotten on that alone (SkyPilot #10517, dstack #1551): it is marked
  *unlisted*, stays live and metered, a warning asks the user whether to forget it (after
  checking the provider's console), every pass checks again, and it is listed again the
  question is withdrawn. Only :meth:`Engine.forget` with the user's yes marks it gone.
- A listing the provider answered in a way XyClaw cannot trust
  (:class:`~xyclaw.errors.ProviderStateUnknownError`) marks nothing gone: its clusters stay
  live and metered, a warning says so once, and the next pass asks again.

The providers are asked at once, each for at most ``timeout_s``: one that does not
answer by then is reported as unreachable (its clusters stay as they were last seen),
so a hung provider never holds up ``xyclaw clusters`` or the guard.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from xyclaw.engine.lazy import Lazy
from xyclaw.errors import ProviderStateUnknownError, XyclawError
from xyclaw.providers import TERMINATING, ClusterInfo, Provider, ProviderRegistry
from xyclaw.records import ClusterRecord, ClusterState, ClusterStore
from xyclaw.store.charges import ChargeTable
from xyclaw.store.event_log import EventLog
from xyclaw.wording import Figure, Said, said
from xyclaw.wording.catalogue import CATALOGUE

if TYPE_CHECKING:
    from xyclaw.engine.lifecycle import ClusterLifecycle

log = logging.getLogger(__name__)


def process_alive(pid: int | None) -> bool:
    if not pid:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


@dataclass
class ReconcileReport:
    orphans_released: list[str] = field(default_factory=list)
    orphans_reported: list[str] = field(default_factory=list)
    interrupted_released: list[str] = field(default_factory=list)
    releases_completed: list[str] = field(default_factory=list)
    gone: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    #: ``errors`` as said, one for one, so a Chinese command line words them (b35)
    errors_said: list[Said] = field(default_factory=list)
    unreachable: list[str] = field(default_factory=list)  # did not answer in time
    state_unknown: list[str] = field(default_factory=list)  # answered in a way not trusted
    unlisted: list[str] = field(default_factory=list)  # not listed: the user is asked
    relisted: list[str] = field(default_factory=list)  # listed again: the question withdrawn

    def add_error(self, provider: str, problem: Said | str) -> None:
        """One provider that could not be checked: the English in ``errors``, said beside."""
        message = said("error.typed.reconcile_failed", provider=provider, problem=problem)
        self.errors.append(str(message))
        self.errors_said.append(message)

    @property
    def changed(self) -> bool:
        return any(
            (
                self.orphans_released,
                self.orphans_reported,
                self.interrupted_released,
                self.releases_completed,
                self.gone,
            )
        )


class Reconciler:
    def __init__(
        self,
        clusters: ClusterStore,
        providers: ProviderRegistry,
        lifecycle: Lazy[ClusterLifecycle],
        events: EventLog,
        *,
        orphan_policy: str = "release-after-notice",
        owner_alive: Callable[[int | None], bool] = process_alive,
        timeout_s: float = 10.0,
        charges: ChargeTable | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        """``owner_alive(pid)`` says whether another process still works on a cluster;
        ``lifecycle`` (SSH and all) is built only when something must be released;
        ``timeout_s``: how long a provider may take to list its instances; ``charges``:
        where the bandwidth a provider reports for an instance is charged (none: not kept)."""
        self._charges = charges
        self._clock = clock  # the store's: the times it records nodes by
        self.clusters = clusters
        self.providers = providers
        self._lifecycle = lifecycle
        self.timeout_s = timeout_s
        self.events = events
        self.orphan_policy = orphan_policy
        self._process_alive = owner_alive
        self._unknown_warned: set[str] = set()  # providers warned about; cleared on recovery

    def owner_alive(self, row: ClusterRecord) -> bool:
        """Is someone still working on this row: an operation here, or a live other process?"""
        if row.worker_pid is None:
            return False
        if row.worker_pid == os.getpid():
            lifecycle = self._lifecycle.if_built()  # none yet: nothing here works on it
            return lifecycle is not None and lifecycle.working_on(row.id)
        return self._process_alive(row.worker_pid)

    @property
    def lifecycle(self) -> ClusterLifecycle:
        return self._lifecycle()

    def providers_to_check(self) -> list[str]:
        """Providers with clusters in the store, plus any already in use."""
        names = {c.provider_id for c in self.clusters.all() if c.state != ClusterState.FAILED}
        names |= {p.name for p in self.providers.built()}
        return sorted(names)

    def run(self, provider_names: list[str] | None = None) -> ReconcileReport:
        report = ReconcileReport()
        names = provider_names if provider_names is not None else self.providers_to_check()
        for name, provider, listed in self._listings(names, report):
            try:
                self._provider(provider, listed, report)
            except XyclawError as exc:
                report.add_error(name, exc.said or exc.message)
                log.warning("reconciling %s failed: %s", name, exc)
        return report

    def _listings(
        self, names: list[str], report: ReconcileReport
    ) -> list[tuple[str, Provider, list[ClusterInfo]]]:
        """Every renting provider's instances, asked at once; each may take ``timeout_s``."""
        answers: dict[str, tuple[Provider, list[ClusterInfo]] | BaseException | None] = {}
        lock = threading.Lock()

        def ask(name: str) -> None:
            answer: tuple[Provider, list[ClusterInfo]] | BaseException | None
            try:
                provider = self.providers.get(name)
                answer = (provider, provider.clusters()) if provider.capabilities.rents else None
            except BaseException as exc:  # handed to the caller's thread below
                answer = exc
            with lock:
                answers[name] = answer

        threads = [
            threading.Thread(target=ask, args=(name,), name=f"reconcile-{name}", daemon=True)
            for name in names
        ]
        for thread in threads:
            thread.start()
        deadline = time.monotonic() + self.timeout_s
        for thread in threads:
            thread.join(max(0.0, deadline - time.monotonic()))
        with lock:
            got = dict(answers)
        out: list[tuple[str, Provider, list[ClusterInfo]]] = []
        for name in names:
            if name not in got:
                report.unreachable.append(name)
                report.add_error(
                    name, said("error.typed.reconcile_no_answer", seconds=f"{self.timeout_s:g}")
                )
                log.warning("reconciling %s: no answer within %.3g s", name, self.timeout_s)
                continue
            answer = got[name]
            if isinstance(answer, ProviderStateUnknownError):
                self._state_unknown(name, answer, report)
            elif isinstance(answer, XyclawError):
                report.add_error(name, answer.said or answer.message)
                log.warning("reconciling %s failed: %s", name, answer)
            elif isinstance(answer, BaseException):
                raise answer
            elif answer is not None:
                self._unknown_warned.discard(name)
                out.append((name, *answer))
        return out

    def _state_unknown(
        self, name: str, error: ProviderStateUnknownError, report: ReconcileReport
    ) -> None:
        """Keep the provider's clusters live (never gone on a guess) and warn once."""
        report.state_unknown.append(name)
        report.add_error(name, error.said or error.message)
        log.warning("reconciling %s: state unknown: %s", name, error)
        if name in self._unknown_warned:
            return
        self._unknown_warned.add(name)
        live = [
            c
            for c in self.clusters.all()
            if c.provider_id == name
            and c.state not in (ClusterState.RELEASED, ClusterState.FAILED, ClusterState.GONE)
        ]
        self.events.record(
            "cluster",
            "warning",
            said("op.state_unknown", provider=name, n=len(live), why=error.message),
            action="xyclaw clusters",
        )

    def _provider(
        self, provider: Provider, listed: list[ClusterInfo], report: ReconcileReport
    ) -> None:
        # Terminating clusters are on their way out: neither orphans nor missing.
        live = [i for i in listed if i.live and i.state != TERMINATING]
        leaving = {i.external_id for i in listed if i.state == TERMINATING}
        rows = [c for c in self.clusters.all() if c.provider_id == provider.name]
        by_ext = {c.external_id: c for c in rows if c.external_id}
        by_key = {c.idempotency_key: c for c in rows if c.idempotency_key}
        seen: set[int] = set()
        for info in live:
            row = by_ext.get(info.external_id) or (
                by_key.get(info.idempotency_key) if info.idempotency_key else None
            )
            if row is None:
                self._orphan(provider, info, None, report)
                continue
            seen.add(row.id)
            self._known(provider, row, info, report)
        for row in rows:
            if row.id in seen or (
                row.external_id in leaving and row.state == ClusterState.RELEASED
            ):
                continue
            self._missing(provider, row, report, terminating=row.external_id in leaving)

    def _orphan(
        self,
        provider: Provider,
        info: ClusterInfo,
        row: ClusterRecord | None,
        report: ReconcileReport,
    ) -> None:
        release = self.orphan_policy == "release-after-notice"
        figures: dict[str, Figure] = {
            "provider": provider.name,
            "cluster": info.external_id,
            "gpus": info.gpu_count,
            "gpu": info.gpu,
            "then": said("op.orphan.releasing" if release else "op.orphan.release_it"),
        }
        what = (
            said("op.orphan.unknown", **figures)
            if row is None
            else said("op.orphan.known", **figures, name=row.name, state=_state(row.state))
        )
        self.events.record(
            "orphan",
            "critical",
            what,
            cluster_id=row.id if row else None,
            action="xyclaw down" if not release else None,
        )
        if not release:
            report.orphans_reported.append(info.external_id)
            return
        if row is None:
            self.clusters.ensure_provider(provider.name, provider.kind)
            row_id = self.clusters.add_intent(
                {
                    "provider_id": provider.name,
                    "name": f"orphan-{info.external_id}",
                    "gpu": info.gpu,
                    "gpu_count": info.gpu_count,
                    "gpus_per_node": info.gpus_per_node,
                    "fabric": info.fabric,
                    "region": info.region,
                    "currency": info.currency,
                    "price_per_gpu_hour_micros": info.price_per_gpu_hour_micros,
                    "idempotency_key": info.idempotency_key,
                }
            )
            self.clusters.update(row_id, error=said("op.orphan_found"))  # said: issue 35
            self.clusters.apply_provider_view(row_id, info)
        else:
            row_id = row.id
        self.lifecycle.down(row_id)
        report.orphans_released.append(info.external_id)

    def _known(
        self, provider: Provider, row: ClusterRecord, info: ClusterInfo, report: ReconcileReport
    ) -> None:
        if row.state in (ClusterState.RELEASED, ClusterState.FAILED, ClusterState.GONE):
            self._orphan(provider, info, row, report)
            return
        owner_alive = self.owner_alive(row)
        if (
            row.state
            in (ClusterState.REQUESTED, ClusterState.PROVISIONING, ClusterState.BOOTSTRAPPING)
            and not owner_alive
        ):
            self.clusters.update(row.id, error=said("op.interrupted_setup"))
            self.clusters.apply_provider_view(row.id, info)
            self.events.record(
                "cluster",
                "warning",
                said("op.interrupted", cluster=row.name),
                cluster_id=row.id,
            )
            self.lifecycle.down(row.id)
            report.interrupted_released.append(row.name)
            return
        if row.state == ClusterState.RELEASING and not owner_alive:
            self.lifecycle.down(row.id)
            report.releases_completed.append(row.name)
            return
        self.clusters.apply_provider_view(row.id, info)
        self._charge_bandwidth(row, info)
        if row.unlisted_since is not None:
            self._relisted(provider, row, report)

    def _charge_bandwidth(self, row: ClusterRecord, info: ClusterInfo) -> None:
        """The traffic the provider bills per GB (Vast), as its own counters read now; and
        the storage a stopped instance still bills (its GPU time stopped with its node)."""
        if self._charges is None:
            return
        total = info.extra.get("bandwidth_micros") if info.extra else None
        if isinstance(total, int) and total > 0:
            self._charges.charge_bandwidth(row.id, total, self._clock(), row.currency)
        per_hour = info.extra.get("stopped_storage_micros_per_hour") if info.extra else None
        if isinstance(per_hour, int) and per_hour > 0:
            stopped = [n.terminated_at for n in self.clusters.get(row.id).nodes if n.terminated_at]
            if stopped:
                self._charges.charge_storage(
                    row.id, min(stopped), per_hour, self._clock(), row.currency
                )

    def _relisted(self, provider: Provider, row: ClusterRecord, report: ReconcileReport) -> None:
        """The listing shows it again: the question whether to forget it is withdrawn."""
        self.clusters.update(row.id, unlisted_since=None)
        self.events.record(
            "cluster",
            "info",
            said("op.unlisted.back", provider=provider.name, cluster=row.name),
            cluster_id=row.id,
        )
        report.relisted.append(row.name)

    def _unlisted(self, provider: Provider, row: ClusterRecord, report: ReconcileReport) -> None:
        """Not listed, not released by XyClaw: keep it live and metered and ask, once."""
        report.unlisted.append(row.name)
        if row.unlisted_since is not None:
            return  # asked already; the question stands until the user answers
        self.clusters.update(row.id, unlisted_since=self._clock())
        self.events.record(
            "cluster",
            "warning",
            said(
                "op.unlisted",
                provider=provider.name,
                external=row.external_id or "-",
                cluster=row.name,
            ),
            cluster_id=row.id,
            action=f"xyclaw forget {row.name}",
        )

    def _missing(
        self,
        provider: Provider,
        row: ClusterRecord,
        report: ReconcileReport,
        *,
        terminating: bool = False,
    ) -> None:
        """``terminating``: the listing itself shows it being terminated (the provider's
        word, like a terminated record read back); else a cluster merely not listed is asked
        about, never forgotten on that alone."""
        if row.state in (ClusterState.RELEASED, ClusterState.FAILED, ClusterState.GONE):
            return
        if self.owner_alive(row) and row.state != ClusterState.READY:
            return  # another live process is working on it
        if row.state == ClusterState.REQUESTED and row.external_id is None:
            self.clusters.update(
                row.id,
                state=ClusterState.FAILED,
                error=said("op.interrupted_before"),
                worker_pid=None,
            )
            return
        if row.state == ClusterState.RELEASING:
            self.lifecycle.down(row.id)
            report.releases_completed.append(row.name)
            return
        info = provider.get(row.external_id) if row.external_id else None
        ended = info.terminated_at if info is not None and info.terminated_at else None
        if row.external_id and ended is None and not terminating:
            # Only XyClaw's own memory of it, or nothing: the provider did not say it ended.
            self._unlisted(provider, row, report)
            return
        self.clusters.mark_nodes_terminated(row.id, ended or row.last_seen_at)
        self.clusters.update(row.id, state=ClusterState.GONE, worker_pid=None)
        self.events.record(
            "cluster",
            "warning",
            said(
                "op.gone",
                provider=provider.name,
                cluster=row.name,
                terminated=said("op.gone.terminated") if info is not None else "",
                ago=_ago(row.last_seen_at),
            ),
            cluster_id=row.id,
        )
        report.gone.append(row.name)


def _ago(ts: float | None) -> Said:
    if ts is None:
        return said("op.ago.never")
    return said("op.ago.seconds", seconds=max(0, int(time.time() - ts)))


def _state(state: str) -> Said | str:
    key = f"op.cstate.{state}"
    return Said(key) if key in CATALOGUE else state
