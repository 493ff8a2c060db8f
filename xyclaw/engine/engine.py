"""The Engine: the one facade that the GUI, the agents and the CLI use.

Its parts are private. Every public method declares its effect (read, spend,
destroy, exec) with :func:`~xyclaw.engine.surface.effect`; agent tools are made
from :meth:`Engine.surface`, and a test pins it. Renting goes plan -> quote ->
up(quote): ``up`` rents exactly what a quote says, or nothing.
"""

from __future__ import annotations

import dataclasses
import logging
import re
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from xyclaw.billing.guard_process import GuardLock, GuardStatus, Holder
from xyclaw.catalog import Catalog, Offer, format_amount, normalise_gpu_name
from xyclaw.config import Config
from xyclaw.engine import offline
from xyclaw.engine.approvals import (
    Action,
    ActionKind,
    ApprovalMismatch,
    Asker,
    Target,
    compare,
    gone,
)
from xyclaw.engine.lazy import Lazy
from xyclaw.engine.operations import OperationHandle, OperationRunner, Progress
from xyclaw.engine.quotes import QuoteError, RentQuote, check_against_offers
from xyclaw.engine.reconcile import Reconciler, ReconcileReport
from xyclaw.engine.reports import (
    BillingReport,
    ClusterBill,
    PlanOutcome,
    ProviderStatus,
    SpendSummary,
    period_bounds,
)
from xyclaw.engine.surface import Effect, EngineMethod, effect, surface_of
from xyclaw.errors import CapacityError, RemoteError, UsageError, XyclawError
from xyclaw.events import ClusterChanged, Event, EventBus, Notice, Subscription
from xyclaw.paths import AppPaths
from xyclaw.providers import Capabilities, Provider, ProviderRegistry
from xyclaw.records import ClusterRecord, ClusterState, ClusterStore, NodeState
from xyclaw.secrets import SecretStore, job_secret_name, register_secret
from xyclaw.store import Store, StoreInfo
from xyclaw.store.charges import ChargeTable
from xyclaw.store.event_log import EventLog
from xyclaw.store.history import history_rows
from xyclaw.store.plans import PlanTable
from xyclaw.wording import Figure, Said, said, semicolon_joined

if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    from xyclaw.engine.diagnose import Diagnosis
    from xyclaw.engine.guard import Guard, GuardReport
    from xyclaw.engine.lifecycle import ClusterLifecycle, UpRequest
    from xyclaw.engine.maintenance import Maintenance
    from xyclaw.engine.recovery_asks import ReplacementAsk
    from xyclaw.engine.slurm import SlurmProbe
    from xyclaw.engine.slurm_mirror import SlurmAllocation, SlurmMirror
    from xyclaw.jobs.nodes import JobNode
    from xyclaw.jobs.results import JobResult, ResultTrend
    from xyclaw.jobs.runner import ReplacementWhy
    from xyclaw.jobs.service import JobService
    from xyclaw.jobs.slurm_jobs import GpuSample, SlurmJobs, SlurmJobView
    from xyclaw.jobs.spec import JobSpec
    from xyclaw.jobs.spot_watch import SpotWord
    from xyclaw.jobs.ssh_config import AliasReport, SshAliases
    from xyclaw.planner import PlanRequest
    from xyclaw.planner.track_record import TrackRecord
    from xyclaw.providers.setup_facts import SetupFacts
    from xyclaw.providers.slurm import QueueWait
    from xyclaw.records import NodeRecord
    from xyclaw.records.jobs import JobRecord, LogLine
    from xyclaw.remote import CommandResult
    from xyclaw.remote.node_access import NodeAccess
    from xyclaw.telemetry.export import MetricsExport
    from xyclaw.telemetry.service import TelemetryService
    from xyclaw.tuning.service import TuneResult, TuningService

log = logging.getLogger(__name__)
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
T = TypeVar("T")
E = TypeVar("E", bound=Event)


@dataclass(frozen=True)
class ClusterParts:
    """What renting needs, wired by the composition function; the parts that cost imports
    (SSH access, the lifecycle that bootstraps over it, the guard) are built on first use."""

    providers: ProviderRegistry
    access: Lazy[NodeAccess]
    clusters: ClusterStore
    lifecycle: Lazy[ClusterLifecycle]
    reconciler: Reconciler
    guard: Lazy[Guard]
    charges: ChargeTable
    plans: PlanTable


class Engine:
    """Holds the parts it is given; builds none of them (see :mod:`xyclaw.engine.compose`)."""

    def __init__(
        self,
        *,
        config: Config,
        paths: AppPaths,
        secrets: SecretStore,
        store: Store,
        bus: EventBus,
        operations: OperationRunner,
        events: EventLog,
        parts: ClusterParts,
        tuning: Lazy[TuningService],
        telemetry: Lazy[TelemetryService] | None = None,
        clock: Callable[[], float] | None = None,
        background_guard: bool = False,
    ) -> None:
        """``background_guard``: this engine may start the data folder's background guard
        (only one whose providers a separate process rebuilds from the data folder)."""
        import time

        self._config = config
        self._paths = paths
        self._secrets = secrets
        self._store = store
        self._bus = bus
        self._operations = operations
        self._events = events
        self._providers = parts.providers
        self._access_part = parts.access
        self._clusters = parts.clusters
        self._lifecycle_part = parts.lifecycle
        self._reconciler = parts.reconciler
        self._guard_part = parts.guard
        self._charges = parts.charges
        self._plans = parts.plans
        self._tuning_part = tuning
        self._telemetry_part = telemetry
        self._jobs_part: Lazy[JobService] | None = None
        self._ssh_aliases: Lazy[SshAliases] | None = None
        self._clock = clock or time.time
        self._maintenance_stop = threading.Event()
        self._maintenance: Maintenance | None = None
        self._background_guard = background_guard
        self._guard_lock = GuardLock(paths)
        self._ready_watch: Subscription | None = None
        self._stop_sim_on_close = False

    # -- the parts built on first use ----------------------------------------------------------
    @property
    def _access(self) -> NodeAccess:
        return self._access_part()

    @property
    def _lifecycle(self) -> ClusterLifecycle:
        return self._lifecycle_part()

    @property
    def _guard(self) -> Guard:
        return self._guard_part()

    @property
    def _tuning(self) -> TuningService:
        return self._tuning_part()

    @property
    def _telemetry(self) -> TelemetryService | None:
        return None if self._telemetry_part is None else self._telemetry_part()

    def _telemetry_if_built(self) -> TelemetryService | None:
        return None if self._telemetry_part is None else self._telemetry_part.if_built()

    # -- what the engine is ------------------------------------------------------------------
    @property
    def config(self) -> Config:
        return self._config

    @property
    def paths(self) -> AppPaths:
        return self._paths

    @property
    def secrets(self) -> SecretStore:
        """Where keys and passwords are kept (the OS keyring, else a 0600 file)."""
        return self._secrets

    @effect(Effect.READ)
    def surface(self) -> list[EngineMethod]:
        """Every public method with its effect: what agent tools and approvals are made from."""
        return surface_of(type(self))

    @effect(Effect.READ)
    def subscribe(self, event_type: type[E], callback: Callable[[E], None]) -> Subscription:
        """Hear of every change of that kind (called on the publisher's thread)."""
        return self._bus.subscribe(event_type, callback)

    @effect(Effect.READ)
    def operations(self) -> list[OperationHandle[Any]]:
        """Long operations still running, oldest first."""
        return self._operations.running()

    def _start(self, title: str | Said, work: Callable[[Progress], T]) -> OperationHandle[T]:
        return self._operations.start(title, work)

    # -- providers and offers ----------------------------------------------------------------
    @effect(Effect.READ)
    def providers(self) -> list[str]:
        return self._providers.names

    @effect(Effect.READ)
    def provider_status(self, names: Iterable[str] | None = None) -> list[ProviderStatus]:
        """Whether each provider answers (asks it for its offers)."""
        out = []
        for name in names if names is not None else self._providers.names:
            try:
                provider = self._providers.get(name)
                count = len(provider.offers())
                out.append(ProviderStatus(name, provider.kind, True, f"{count} offer(s)"))
            except XyclawError as exc:
                out.append(ProviderStatus(name, "?", False, exc.message))
        return out

    @effect(Effect.READ)
    def offers(self, provider: str | None = "sim", gpu: str | None = None) -> list[Offer]:
        """What can be rented now; ``provider=None`` asks every provider that rents."""
        wanted = normalise_gpu_name(gpu) if gpu else None
        names = [provider] if provider else self._providers.names
        found: list[Offer] = []
        for name in names:
            try:
                found += self._providers.get(name).offers()
            except XyclawError:
                if provider:
                    raise
                log.warning("provider %s did not answer for offers", name)
        return [o for o in found if wanted is None or o.gpu == wanted]

    @effect(Effect.READ)
    def offers_left_out(self, provider: str) -> list[tuple[str, str]]:
        """What the provider's last offers left out, each with why (a marketplace host with
        no SSH port, a GPU out of stock), so a missing cheap offer is explained."""
        left = getattr(self._providers.get(provider), "filtered", None) or []
        return [(str(offer_id), str(why)) for offer_id, why in left]

    @effect(Effect.READ)
    def offers_left_out_said(self, provider: str) -> list[tuple[str, Said | str]]:
        """:meth:`offers_left_out` with each reason as its :class:`Said` where the provider
        gave one, so the CLI words it in the user's language (issue 35, c35p)."""
        left = getattr(self._providers.get(provider), "filtered", None) or []
        return [
            (str(offer_id), why if isinstance(why, Said) else str(why)) for offer_id, why in left
        ]

    # -- plan -> quote -> up -----------------------------------------------------------------
    @effect(Effect.READ)
    def plan(
        self,
        request: PlanRequest,
        *,
        providers: Iterable[str] | None = None,
        extra_offers: Iterable[Offer] = (),
        conversation_id: int | None = None,
        use_memory: bool = True,
    ) -> PlanOutcome:
        """Rank every way to run the request over the providers' live offers, and save it.

        A provider that does not answer is planned from the built-in catalog's offers for it,
        and the outcome says so. The user's history of each provider and node class (the
        memory, :meth:`track_record`) warns about offers or ranks them down, each with its
        reason; ``use_memory=False`` plans without it (the plain ranking).
        """
        from xyclaw.planner import plan as rank

        builtin = Catalog.builtin()
        offers: list[Offer] = list(extra_offers)
        notes: list[Said] = []
        source = "live"
        # issue 33: with no provider named, the Slurm sites' partitions beside the rentals
        for name in providers if providers is not None else ("sim", *self._plan_slurm_sites()):
            try:
                offers += self._providers.get(name).offers()
                left_out = self.offers_left_out_said(name)
                if left_out:
                    # each reason once, in the order of its English; said, so a Chinese plan
                    # words the reasons too (issue 35, c35q)
                    reasons = {str(why): why for _, why in left_out}
                    notes.append(
                        said(
                            "common.plan_left_out",
                            provider=name,
                            n=len(left_out),
                            why=semicolon_joined([reasons[k] for k in sorted(reasons)]),
                        )
                    )
            except XyclawError as exc:
                fallback = [o for o in builtin.offers if o.provider == name]
                offers += fallback
                source = "catalog"
                notes.append(
                    said(
                        "common.plan_offline",
                        provider=name,
                        why=exc.said or exc.message,
                        n=len(fallback),
                    )
                )
        known = {g.name for g in builtin.gpus}
        unknown = sorted({o.gpu for o in offers if o.gpu not in known})
        if unknown:
            notes.append(said("common.plan_unknown_gpus", gpus=", ".join(unknown)))
        hook = self.track_record().judge if use_memory else None
        result = rank(
            request, Catalog(builtin.gpus, [o for o in offers if o.gpu in known]), hook=hook
        )
        if use_memory:
            from xyclaw.planner.track_record import RANK_DOWN_RULES

            down = sum(
                1 for o in result.options[:50] if any(r in RANK_DOWN_RULES for r, _ in o.reasons)
            )
            if down:
                notes.append(said("common.plan_memory_ranked_down", n=down))
        horizon = self._config.billing.plan_horizon_days
        long_runs = [o.seconds for o in result.options if o.seconds > horizon * 86400]
        if long_runs:
            notes.append(
                said(
                    "common.plan_over_horizon",
                    count=len(long_runs),
                    horizon=f"{horizon:g}",
                    days=f"{max(long_runs) / 86400:.0f}",
                )
            )
        saved = result.to_json(max_options=50, max_rejected=20)
        saved["offers_source"] = source
        saved["memory"] = use_memory
        english = [str(note) for note in notes]
        saved["notes"] = english
        plan_id = self._plans.add(request.to_json(), saved, conversation_id)
        return PlanOutcome(
            plan_id=plan_id, result=result, offers_source=source, notes=english, notes_said=notes
        )

    @effect(Effect.READ)
    def track_record(
        self,
        *,
        provider: str | None = None,
        region: str | None = None,
        host: str | None = None,
        days: float = 90.0,
    ) -> TrackRecord:
        """The memory of every rental of the last ``days``: per provider, region, node class
        and host, its XIDs, ECC errors, failed bring-ups, bus bandwidth against the fabric's
        expectation, stragglers, leaks, refusals, price drift and time to ready."""
        from xyclaw.planner.track_record import TrackRecord
        from xyclaw.store.track_record import track_record_rows

        if days <= 0:
            raise UsageError(
                said("error.engine.days", days=f"{days:g}"), hint=said("error.engine.days_hint")
            )
        now = self._clock()
        since = now - days * 86400
        memory = TrackRecord.from_rows(track_record_rows(self._store, since), now=now, since=since)
        if provider is None and region is None and host is None:
            return memory
        return memory.filtered(provider=provider, region=region, host=host)

    @effect(Effect.READ)
    def quote(self, plan_id: int, option: int) -> RentQuote:
        """The exact offer, shape, price and total for option ``option`` (1-based) of a plan."""
        saved = self._plans.get(plan_id)
        if saved is None:
            raise UsageError(
                said("error.engine.no_plan", plan=plan_id), hint=said("error.engine.no_plan_hint")
            )
        options = saved["result"].get("options", [])
        if not 1 <= option <= len(options):
            raise UsageError(
                said("error.engine.plan_options", plan=plan_id, count=len(options), option=option)
                if options
                else said("error.engine.plan_empty", plan=plan_id),
                hint=said("error.engine.plan_again") if not options else None,
            )
        picked = options[option - 1]
        request = saved["request"]
        budget = _display_to_micros(request.get("budget")) or self._default_budget()
        offer = self._live_offer(picked["provider"], picked["offer_id"])
        seconds = int(picked["seconds"])
        hours = seconds / 3600
        plan_price = int(picked["price_micro"])
        # the price the provider bills (on demand) is what is asked for; the planner priced
        # the option at the same (it uses only a tier the provider rents), and the plan's
        # price, total and tier ride along, so a moved price says how and why it differs
        price = offer.price_micro if offer is not None else plan_price
        horizon = self._config.billing.plan_horizon_days
        return self._new_quote(
            provider=picked["provider"],
            offer_id=picked["offer_id"],
            gpu=picked["gpu"],
            nodes=int(picked["nodes"]),
            gpus_per_node=int(picked["gpus_per_node"]),
            region=picked["region"],
            fabric=picked["fabric"],
            currency=picked["currency"],
            price=price,
            hours=hours,
            seconds=seconds,
            budget=budget,
            plan_id=plan_id,
            option=option,
            plan_price=plan_price,
            plan_total=int(picked["cost_micro"]) if "cost_micro" in picked else None,
            plan_tier=str(picked.get("tier") or "") or None,
            horizon_days=horizon if seconds > horizon * 86400 else None,
            host=offer.host or None if offer is not None else None,
            community=offer.community or None if offer is not None else None,
        )

    @effect(Effect.READ)
    def quote_request(self, request: UpRequest) -> RentQuote:
        """A quote for explicit resources: the cheapest matching offer with room for them."""
        gpu = normalise_gpu_name(request.gpu)
        provider = self._providers.get(request.provider)
        self._check_capabilities(provider, request)
        joins = request.joins if getattr(provider, "joins_clusters", False) else None
        candidates = [
            o
            for o in provider.offers()
            if o.gpu == gpu
            and (
                request.gpu_count in o.gpu_counts
                # nodes added to a running cluster of a multi-node offer (issue 34)
                or (
                    joins is not None
                    and o.kind != "node"
                    and request.gpu_count % o.gpus_per_node == 0
                )
            )
            and (request.region is None or o.region.lower() == request.region.lower())
            and (request.fabric is None or o.fabric == request.fabric)
            and (request.gpus_per_node is None or o.gpus_per_node == request.gpus_per_node)
            and (not request.spot or o.spot_price_micro is not None)  # issue 32
        ]
        if not candidates and not provider.capabilities.rents:
            raise CapacityError(
                said(
                    "error.engine.no_own_hosts",
                    count=request.gpu_count,
                    gpu=gpu,
                    provider=provider.name,
                ),
                hint=said("error.engine.local_gpus_hint")
                if provider.name == "local"
                else said("error.engine.add_host_hint"),
            )
        if not candidates:
            key = "error.engine.no_offer" + ("_in" if request.region else "")
            key += "_on" if request.fabric else ""
            raise UsageError(
                said(
                    key,
                    provider=request.provider,
                    count=request.gpu_count,
                    gpu=gpu,
                    region=request.region,
                    fabric=request.fabric,
                ),
                hint=said("error.engine.offers_hint", provider=request.provider),
            )
        with_room = [
            o
            for o in candidates
            if o.available_gpus is None or o.available_gpus >= request.gpu_count
        ]
        offer = min(with_room or candidates, key=lambda o: o.price_micro)
        on_demand = offer.price_micro
        if request.spot and offer.spot_price_micro is not None:
            offer = dataclasses.replace(
                offer, price_micro=offer.spot_price_micro, price_30d_micro=None
            )
        # The shape is known only now: a 16-GPU order of 8-GPU nodes needs multi-node.
        self._check_capabilities(
            provider, dataclasses.replace(request, gpus_per_node=offer.gpus_per_node)
        )
        return self._new_quote(
            provider=request.provider,
            offer_id=offer.offer_id,
            gpu=gpu,
            nodes=request.gpu_count // offer.gpus_per_node,
            gpus_per_node=offer.gpus_per_node,
            region=offer.region,
            fabric=offer.fabric,
            currency=offer.currency,
            price=offer.price_micro,
            hours=request.hours,
            budget=request.budget_micros or self._default_budget(),
            image=request.image,
            name=request.name,
            host=offer.host or None,
            community=offer.community or None,
            joins=joins,
            spot=True if request.spot else None,
            on_demand=on_demand if request.spot else None,
            spot_rate=offer.spot_preemptions_per_day if request.spot else None,
        )

    @effect(Effect.SPEND)
    def up(
        self, quote: RentQuote, *, keep_partial: bool = False, approved: Action | None = None
    ) -> OperationHandle[ClusterRecord]:
        """Rent what the quote says, if the provider still offers it at that price.

        ``approved``: the ``rent`` Action the user said yes to; the quote must be its quote.

        A quote from a plan fails over: when its offer has no capacity (or quota), the plan's
        next options with the same GPU model and count are tried in order, each quoted again,
        and taken without asking only at or below the approved price per GPU-hour.
        """
        if approved is not None:
            self._check_approved(approved, "rent")
            if (approved.quote or {}).get("digest") != quote.digest:
                raise ApprovalMismatch(
                    said("error.approval.quote_changed"),
                    hint=said("error.approval.ask_again_hint"),
                )
        self._check_plan_figures(quote)
        provider = self._providers.get(quote.provider)
        alternatives = self._failover_candidates(quote)
        offer = check_against_offers(
            quote, provider.offers(), self._clock(), require_room=not alternatives
        )
        request = self._request_for(quote, offer, keep_partial)
        self._check_capabilities(provider, request)
        if quote.plan_id is not None and quote.option is not None:
            self._plans.choose(quote.plan_id, quote.option)
        title = said("op.title.rent", gpus=quote.gpu_count, gpu=quote.gpu, provider=quote.provider)
        note = self._enforcement_note(provider, quote.budget_micros)
        if not alternatives:
            return self._start(
                title, self._guarded(note, lambda progress: self._lifecycle.up(request, progress))
            )
        return self._start(
            title,
            self._guarded(
                note,
                lambda progress: self._up_with_failover(
                    quote, [offer, *alternatives], keep_partial, progress
                ),
            ),
        )

    def _guarded(
        self, note: Said, work: Callable[[Progress], ClusterRecord]
    ) -> Callable[[Progress], ClusterRecord]:
        """Renting, with what enforces its budget said first and its deadline made exact."""

        def run(progress: Progress) -> ClusterRecord:
            progress.update(note, None, step="guard")
            cluster = work(progress)
            try:  # the nodes run now: the provider's deadline becomes the budget's moment
                self._guard.sync_deadline(cluster, force=True)
            except XyclawError as exc:
                log.warning("could not set the deadline of %s: %s", cluster.name, exc)
            self.ensure_guard(only_if_live=True)  # one that ended meanwhile is started again
            return self._clusters.get(cluster.id)

        return run

    def _enforcement_note(self, provider: Provider, budget: int | None) -> Said:
        """Starts the guard if none runs; says what enforces the budget and idle release."""
        status = self.ensure_guard(wait_s=10.0)
        if self._guard_lock.held:
            where: Said | str | None = said("op.guard.here")
        elif status is not None and status.running:
            where = status.describe_said()
        else:
            where = None
        if not budget:
            kind = "idle"
        elif (
            provider.capabilities.scheduled_termination
            and self._config.billing.on_budget_exhausted != "warn"
        ):
            kind = "deadline"
        else:
            kind = "budget"
        if where is None:
            return said(f"op.guard.{kind}_stopped", provider=provider.name)
        return said(f"op.guard.{kind}_running", provider=provider.name, where=where)

    def _request_for(self, quote: RentQuote, offer: Offer, keep_partial: bool) -> UpRequest:
        from xyclaw.engine.lifecycle import UpRequest

        return UpRequest(
            provider=offer.provider,
            gpu=quote.gpu,
            gpu_count=quote.gpu_count,
            region=offer.region,
            fabric=offer.fabric,
            gpus_per_node=offer.gpus_per_node,
            budget_micros=quote.budget_micros,
            image=quote.image if quote.image is not None else self._default_image(offer.provider),
            name=quote.name,
            keep_partial=keep_partial,
            price_per_gpu_hour_micros=offer.price_micro,
            currency=offer.currency,
            terminate_at=self._first_deadline(offer, quote.gpu_count, quote.budget_micros),
            spot=bool(quote.spot),
            offer_id=offer.offer_id,
            host=quote.host,
            host_community=bool(quote.community),
            joins=quote.joins,
        )

    def _default_image(self, provider: str) -> str | None:
        """Rented machines get the default image's setup; machines you own (ssh, local) get
        none unless a quote names an image: XyClaw does not change your hosts unasked."""
        try:
            rents = self._providers.get(provider).capabilities.rents
        except XyclawError:
            rents = True
        from xyclaw.engine.lifecycle import UpRequest

        return UpRequest.image if rents else None

    def _first_deadline(self, offer: Offer, gpus: int, budget: int | None) -> float | None:
        """The provider's own deadline for a new cluster, where it keeps one."""
        try:
            caps = self._providers.get(offer.provider).capabilities
        except XyclawError:
            return None
        if not budget or not caps.scheduled_termination:
            return None
        if self._config.billing.on_budget_exhausted == "warn":
            return None
        from xyclaw.engine.guard import first_deadline

        return first_deadline(
            self._clock(), budget, gpus, offer.price_micro, self._config.guard.deadline_grace_s
        )

    def _check_plan_figures(self, quote: RentQuote) -> None:
        """A quote that carries a plan option's price and total must carry the plan's own:
        one approved under figures the plan never showed is refused, nothing rented."""
        if quote.plan_id is None or quote.option is None:
            return
        if quote.plan_price_per_gpu_hour_micros is None:
            return
        saved = self._plans.get(quote.plan_id)
        options = saved["result"].get("options", []) if saved is not None else []
        picked = options[quote.option - 1] if 1 <= quote.option <= len(options) else None
        shown = (
            (int(picked["price_micro"]), int(picked.get("cost_micro") or 0))
            if picked is not None
            else (0, 0)
        )
        by_quote = (quote.plan_price_per_gpu_hour_micros, quote.plan_total_micros or 0)
        if shown != by_quote:
            raise QuoteError(
                said(
                    "error.quote.not_the_plan",
                    plan=quote.plan_id,
                    option=quote.option,
                    price=format_amount(by_quote[0], quote.currency),
                    total=format_amount(by_quote[1], quote.currency),
                    plan_price=format_amount(shown[0], quote.currency),
                    plan_total=format_amount(shown[1], quote.currency),
                ),
                hint=said("error.quote.plan_again"),
            )

    def _failover_candidates(self, quote: RentQuote) -> list[Offer]:
        """The plan's other options for the same GPU model and count, in the plan's order."""
        if quote.plan_id is None or quote.spot:  # issue 32: spot rents the quoted offer only
            return []
        saved = self._plans.get(quote.plan_id)
        if saved is None:
            return []
        out: list[Offer] = []
        seen = {(quote.provider, quote.offer_id)}
        for option in saved["result"].get("options", []):
            key = (option.get("provider"), option.get("offer_id"))
            if key in seen or option.get("gpu") != quote.gpu:
                continue
            if int(option.get("gpus", 0)) != quote.gpu_count:
                continue
            seen.add(key)
            live = self._live_offer(str(key[0]), str(key[1]))
            if live is not None:
                out.append(live)
        return out

    def _up_with_failover(
        self, quote: RentQuote, candidates: list[Offer], keep_partial: bool, progress: Progress
    ) -> ClusterRecord:
        from xyclaw.providers.failover import Approval, fail_over

        def attempt(offer: Offer) -> ClusterRecord:
            progress.update(
                said("op.trying", gpu=offer.gpu, region=offer.region, provider=offer.provider)
            )
            provider = self._providers.get(offer.provider)
            request = self._request_for(quote, offer, keep_partial)
            self._check_capabilities(provider, request)
            return self._lifecycle.up(request, progress)

        result = fail_over(
            candidates,
            attempt,
            approval=Approval(quote.gpu_count, quote.price_per_gpu_hour_micros, quote.currency),
            requote=lambda offer: self._live_offer(offer.provider, offer.offer_id),
        )
        if len(result.attempts) > 1 or not result.created:
            self._events.record(
                "failover",
                "info" if result.created else "warning",
                result.story_said(),
                data={"attempts": result.lines(), "quote_digest": quote.digest},
            )
        if result.created and result.value is not None:
            return result.value
        if result.needs_approval:
            raise QuoteError(
                said("op.failover.not_rented", story=result.story_said()),
                hint=said("op.failover.requote_hint"),
            )
        if result.error is not None:
            raise result.error
        raise CapacityError(
            said("op.failover.not_rented", story=result.story_said()),
            hint=said("op.failover.later_hint"),
        )

    def _live_offer(self, provider: str, offer_id: str) -> Offer | None:
        try:
            offers = self._providers.get(provider).offers()
        except XyclawError:
            return None
        return next((o for o in offers if o.offer_id == offer_id), None)

    def _default_budget(self) -> int | None:
        budget = self._config.billing.default_budget
        return round(budget * 1_000_000) if budget else None

    def _new_quote(
        self,
        *,
        provider: str,
        offer_id: str,
        gpu: str,
        nodes: int,
        gpus_per_node: int,
        region: str,
        fabric: str,
        currency: str,
        price: int,
        hours: float | None,
        budget: int | None,
        plan_id: int | None = None,
        option: int | None = None,
        image: str | None = None,
        name: str | None = None,
        seconds: int | None = None,
        plan_price: int | None = None,
        plan_total: int | None = None,
        plan_tier: str | None = None,
        horizon_days: float | None = None,
        host: str | None = None,
        community: bool | None = None,
        spot: bool | None = None,
        on_demand: int | None = None,
        spot_rate: float | None = None,
        joins: str | None = None,
    ) -> RentQuote:
        from xyclaw.planner.costing import bill

        now = self._clock()
        gpu_count = nodes * gpus_per_node
        if seconds is not None:  # to the micro-unit as the planner counts it: on demand
            total: int | None = bill(gpu_count, seconds, price, None).cost_micro
        else:
            total = None if hours is None else round(price * gpu_count * hours)
        return RentQuote(
            provider=provider,
            offer_id=offer_id,
            gpu=gpu,
            nodes=nodes,
            gpus_per_node=gpus_per_node,
            gpu_count=gpu_count,
            region=region,
            fabric=fabric,
            currency=currency,
            price_per_gpu_hour_micros=price,
            hours=None if hours is None else round(hours, 4),
            estimated_total_micros=total,
            budget_micros=budget,
            created_at=now,
            expires_at=now + self._config.billing.quote_valid_minutes * 60,
            plan_id=plan_id,
            option=option,
            image=image,
            name=name,
            plan_price_per_gpu_hour_micros=plan_price,
            plan_total_micros=plan_total,
            plan_tier=plan_tier,
            horizon_days=horizon_days,
            host=host,
            community=community,
            spot=spot,
            on_demand_per_gpu_hour_micros=on_demand,
            spot_preemptions_per_day=spot_rate,
            joins=joins,
        )

    @staticmethod
    def _check_capabilities(provider: Provider, request: UpRequest) -> None:
        """Refuse up front what the provider cannot do, with its reason."""
        caps: Capabilities = provider.capabilities
        per_node = request.gpus_per_node
        if not caps.multi_node and per_node and request.gpu_count > per_node:
            figures: dict[str, Figure] = {
                "provider": provider.name,
                "count": request.gpu_count,
                "per_node": per_node,
            }
            raise QuoteError(
                said("error.engine.single_node", **figures),
                hint=said("error.engine.single_node_hint", **figures),
            )
        if caps.regions and request.region and request.region not in caps.regions:
            raise QuoteError(
                said("error.engine.no_region", provider=provider.name, region=repr(request.region)),
                hint=said("error.engine.regions_hint", regions=", ".join(caps.regions)),
            )
        if request.spot and not caps.spot:  # issue 32
            why = caps.lacking(["spot"])["spot"]
            raise QuoteError(
                said("error.quote.no_spot", provider=provider.name, why=why),
                hint=said("error.quote.no_spot_spec_hint"),
            )

    # -- clusters ----------------------------------------------------------------------------
    @effect(Effect.READ)
    def ssh_identity(self, cluster: str) -> str:
        """The private key file that opens ``cluster``'s nodes from a terminal: the key made
        for it where its hosts cannot be trusted (Vast.ai, RunPod), else XyClaw's own."""
        from xyclaw.remote.node_access import cluster_key_path

        record = self._clusters.find(str(cluster))
        ssh = self._paths.data_dir / "ssh"
        if record.idempotency_key:
            own = cluster_key_path(ssh / "clusters", record.idempotency_key)
            if own.exists():
                return str(own)
        return str(ssh / "id_ecdsa")

    @effect(Effect.READ)
    def ssh_public_key(self) -> str:
        """XyClaw's own SSH public key (an OpenSSH line): what rented machines are given and
        what your own hosts must accept in ~/.ssh/authorized_keys. Made on first use."""
        return self._lifecycle.public_key()

    @effect(Effect.READ)
    def clusters(self, include_released: bool = False) -> list[ClusterRecord]:
        return self._clusters.all() if include_released else self._clusters.live()

    @effect(Effect.READ)
    def cluster(self, ref: str) -> ClusterRecord:
        """A cluster by id, name or the provider's id."""
        return self._clusters.find(str(ref))

    # -- bound approvals ------------------------------------------------------------------------
    @effect(Effect.READ)
    def action(
        self,
        operation: str,
        ref: str | None = None,
        *,
        command: str | None = None,
        inputs: dict[str, Any] | None = None,
        quote: RentQuote | None = None,
        asked_by: str = "agent",
        asker_name: str | None = None,
    ) -> Action:
        """What an effect would act on, bound to ids, for an approval card (changes nothing).

        ``operation``: ``release`` (``ref`` a cluster or "all"), ``cancel_job`` (a job),
        ``exec`` (a cluster and ``command``), ``tune`` (a cluster), ``launch`` (``ref`` the
        cluster or None, ``inputs["spec"]``), ``set_budget`` (a cluster,
        ``inputs["budget_micros"]``), ``forget`` (a cluster its provider no longer lists),
        ``rent`` (``quote``), ``replacement`` (a job, its
        ``quote``), ``replace_and_resume`` (a job whose hang's verdict asks for a
        replacement, issue 34: its quote, the blamed nodes and the checkpoint it resumes
        from, all from the job's pending ask). The effect methods take the Action as
        ``approved=`` and refuse, doing nothing, when the same request resolves to anything
        else by then. ``asker_name``: the name an MCP client gave itself, shown on the card
        and bound into its digest."""
        return self._bind(
            operation, ref, command, dict(inputs or {}), quote, Asker(asked_by), asker_name
        )

    def _bind(
        self,
        operation: str,
        ref: str | None,
        command: str | None,
        inputs: dict[str, Any],
        quote: RentQuote | None,
        asked_by: Asker,
        asker_name: str | None = None,
    ) -> Action:
        def bound(kind: ActionKind, targets: list[Target], **extra: Any) -> Action:
            return Action(
                operation,
                kind,
                ref,
                tuple(targets),
                inputs=inputs,
                asked_by=asked_by,
                asker_name=asker_name,
                **extra,
            )

        if operation == "release":
            wanted = str(ref or "").strip()
            if wanted.lower() in ("all", "*", "everything"):
                found = self._clusters.live()
            else:
                found = [self._clusters.find(wanted)]
            return bound(ActionKind.DESTROY, [_cluster_target(c) for c in found])
        if operation in ("exec", "tune"):
            cluster = self._clusters.find(str(ref))
            targets = [_cluster_target(cluster), *_node_targets(cluster)]
            if operation == "exec":
                if command is None:
                    raise UsageError("an exec action needs its command")
                return bound(ActionKind.EXEC, targets, command=command)
            return bound(ActionKind.EXEC, targets)
        if operation == "cancel_job":
            job = self._job_service().find(str(ref))
            return bound(ActionKind.DESTROY, [_job_target(job)])
        if operation == "set_budget":
            cluster = self._clusters.find(str(ref))
            price = {
                "currency": cluster.currency,
                "budget_micros": inputs.get("budget_micros"),
                "current_budget_micros": cluster.budget_micros,
                "per_hour_micros": cluster.price_per_gpu_hour_micros * cluster.gpu_count,
            }
            return bound(ActionKind.CHANGE, [_cluster_target(cluster)], price=price)
        if operation == "forget":
            cluster = self._clusters.find(str(ref))
            if cluster.unlisted_since is None or not cluster.live:
                raise UsageError(
                    said("error.forget.listed", cluster=cluster.name),
                    hint=said("error.forget.listed_hint"),
                )
            inputs["external_id"] = cluster.external_id
            inputs["unlisted_since"] = cluster.unlisted_since
            price = {
                "currency": cluster.currency,
                "per_hour_micros": cluster.price_per_gpu_hour_micros * cluster.gpu_count,
            }
            return bound(ActionKind.CHANGE, [_cluster_target(cluster)], price=price)
        if operation == "rent":
            if quote is None:
                raise UsageError("a rent action needs its quote")
            return bound(ActionKind.SPEND, [], price=_quote_price(quote), quote=_quote_body(quote))
        if operation == "replacement":
            if quote is None:
                raise UsageError("a replacement action needs its quote")
            job = self._job_service().find(str(ref))
            return bound(
                ActionKind.SPEND,
                [_job_target(job)],
                price=_quote_price(quote),
                quote=_quote_body(quote),
            )
        if operation == "replace_and_resume":
            job = self._job_service().find(str(ref))
            ask = self._replacement_asks.of_job(job.id)
            if ask is None:
                raise UsageError(
                    said("error.job.no_replacement_ask", job=job.name),
                    hint=said("error.job.no_replacement_ask_hint"),
                )
            # what is rented, which nodes it stands in for and where the job resumes: all
            # resolved from the job's ask again when the yes comes (a newer checkpoint, a new
            # quote: ask again)
            inputs["resume_from"] = ask.resume_from
            inputs["resume_step"] = ask.resume_step
            inputs["replaces"] = list(ask.nodes)
            return bound(
                ActionKind.SPEND,
                [_job_target(job)],
                price=_quote_price(ask.quote),
                quote=_quote_body(ask.quote),
            )
        if operation == "launch":
            spec_ref = str(inputs.get("spec") or "")
            spec = self._job_spec(spec_ref)
            inputs["spec_sha256"] = _file_digest(spec_ref)
            launch_targets: list[Target] = []
            cluster_ref = ref or spec.resources.cluster
            if cluster_ref is not None:
                cluster = self._clusters.find(str(cluster_ref))
                launch_targets = [_cluster_target(cluster), *_node_targets(cluster)]
            text = spec.run if not spec.setup else f"{spec.setup}\n{spec.run}"
            rents: dict[str, Any] = {}
            if quote is not None and cluster_ref is None:
                # a spec that rents its own cluster: the yes binds the quote's price and digest
                self._check_job_quote(spec, quote)
                rents = {"price": _quote_price(quote), "quote": _quote_body(quote)}
            return bound(
                ActionKind.SPEND if rents else ActionKind.EXEC,
                launch_targets,
                command=text,
                cwd=spec.workdir,
                env_names=tuple(spec.env),
                secret_names=tuple(spec.env_from_local),
                **rents,
            )
        raise UsageError(f"no such action: {operation!r}")

    def _check_approved(self, approved: Action, operation: str) -> Action:
        """``approved`` resolved again now: refused (ApprovalMismatch) on any difference."""
        approved.verify_digest()
        if approved.operation != operation:
            raise ApprovalMismatch(
                said("error.approval.changed"), hint=said("error.approval.ask_again_hint")
            )
        quote = None if approved.quote is None else RentQuote.from_json(approved.quote)
        try:
            fresh = self._bind(
                operation,
                approved.ref,
                approved.command,
                {k: v for k, v in approved.inputs.items() if k != "spec_sha256"},
                quote,
                approved.asked_by,
                approved.asker_name,
            )
        except UsageError as exc:
            first = approved.targets[0] if approved.targets else None
            if first is None:
                raise
            raise gone(first.kind, first.name, first.id) from exc
        compare(approved, fresh)
        return fresh

    @effect(Effect.DESTROY)
    def release(self, approved: Action) -> OperationHandle[list[ClusterRecord]]:
        """Release exactly the clusters an approved ``release`` action names (by id), once
        the same request still resolves to them; else nothing is released."""
        self._check_approved(approved, "release")
        ids = [int(i) for i in approved.ids("cluster")]
        for target in approved.of_kind("cluster"):
            if not self._clusters.get(int(target.id)).live:  # released meanwhile
                raise gone("cluster", target.name, target.id)
        names = ", ".join(t.name for t in approved.of_kind("cluster"))

        def release_all(progress: Progress) -> list[ClusterRecord]:
            done = []
            telemetry = self._telemetry_if_built()
            for cluster_id in ids:
                if telemetry is not None:
                    telemetry.unwatch(cluster_id, released=True)
                done.append(self._lifecycle.down(cluster_id, progress))
            return done

        return self._start(said("op.title.release", cluster=names), release_all)

    @effect(Effect.READ)
    def unlisted_clusters(self) -> list[ClusterRecord]:
        """Live clusters their provider's readable listing no longer shows: each waits for the
        user's answer to "forget it?" (a ``forget`` card) and is metered until then."""
        return [c for c in self._clusters.live() if c.unlisted_since is not None]

    @effect(Effect.DESTROY)
    def forget(self, approved: Action) -> ClusterRecord:
        """Mark gone, after the user's yes, a cluster its provider no longer lists.

        The provider is asked once more first: a listing that shows it again withdraws the
        question (nothing forgotten), and one XyClaw cannot read forgets nothing. The meter
        counts the cluster up to now, then stops."""
        self._check_approved(approved, "forget")
        cluster = self._clusters.get(int(approved.ids("cluster")[0]))
        provider = self._providers.get(cluster.provider_id)
        listed = {info.external_id for info in provider.clusters()}
        if cluster.external_id in listed:
            self._reconciler.run([cluster.provider_id])  # withdraws the question
            raise UsageError(
                said("error.forget.listed", cluster=cluster.name),
                hint=said("error.forget.listed_hint"),
            )
        self._guard.charge_all()
        now = self._clock()
        self._clusters.mark_nodes_terminated(cluster.id, now)
        self._clusters.update(cluster.id, state=ClusterState.GONE, worker_pid=None)
        since = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(cluster.unlisted_since or now))
        self._events.record(
            "cluster",
            "warning",
            said("op.forgotten", cluster=cluster.name, provider=cluster.provider_id, since=since),
            cluster_id=cluster.id,
        )
        return self._clusters.get(cluster.id)

    @effect(Effect.DESTROY)
    def down(self, ref: str) -> OperationHandle[ClusterRecord]:
        """Release a cluster and wait until its provider confirms; its billing stops."""
        cluster = self._clusters.find(str(ref))

        def release(progress: Progress) -> ClusterRecord:
            telemetry = self._telemetry_if_built()  # nobody watches it otherwise
            if telemetry is not None:
                telemetry.unwatch(cluster.id, released=True)
            return self._lifecycle.down(cluster.id, progress)

        return self._start(said("op.title.release", cluster=cluster.name), release)

    @effect(Effect.EXEC)
    def exec(
        self,
        ref: str,
        command: str,
        timeout: float | None = None,
        *,
        approved: Action | None = None,
    ) -> dict[str, CommandResult | RemoteError]:
        """Run a command on every running node of a cluster; results by node name.

        ``approved``: the ``exec`` Action the user said yes to; run only when the command is
        its command and the cluster and its running nodes are still the ones it names."""
        cluster = self._clusters.find(str(ref))
        if approved is not None:
            self._check_approved(approved, "exec")
            if approved.command != command or approved.ids("cluster") != [cluster.id]:
                raise ApprovalMismatch(
                    said("error.approval.changed"), hint=said("error.approval.ask_again_hint")
                )
        nodes = [n for n in cluster.nodes if n.state == NodeState.RUNNING]
        if not cluster.live or not nodes:
            raise XyclawError(
                said(
                    "error.engine.no_running_nodes",
                    name=cluster.name,
                    state=Said(f"op.cstate.{cluster.state}"),
                ),
                hint=said("error.engine.usable_hint"),
            )
        return self._access.run_all(cluster, nodes, command, timeout=timeout)

    @effect(Effect.EXEC)
    def tune(self, ref: str, *, approved: Action | None = None) -> OperationHandle[TuneResult]:
        """Probe the fabric, measure, try the recommended NCCL settings, keep the better.
        ``approved``: the ``tune`` Action the user said yes to (same cluster, same nodes)."""
        cluster = self._clusters.find(str(ref))
        if approved is not None:
            self._check_approved(approved, "tune")
            self._same_target(approved, "cluster", cluster.id)
        return self._start(
            said("op.title.tune", cluster=cluster.name),
            lambda progress: self._tuning.tune(cluster.id, progress),
        )

    @effect(Effect.READ)
    def nccl_environment(self, ref: str) -> dict[str, str]:
        """The NCCL variables jobs on this cluster get (the applied tuning), or none."""
        cluster = self._clusters.find(str(ref))
        return self._tuning.environment_for(cluster.id)

    # -- money -------------------------------------------------------------------------------
    @effect(Effect.READ)
    def charge_meters(self) -> int:
        """Bring the meter's charges up to now; returns what was added, in micro-units."""
        return self._guard.charge_all()

    @effect(Effect.READ)
    def meter_charges(self, cluster_id: int) -> int:
        """What the app's meter has charged a cluster, in micro-units."""
        return self._charges.meter_total(cluster_id)

    @effect(Effect.READ)
    def billing(self) -> BillingReport:
        """Every cluster's meter (GPU time and storage, and the bandwidth its provider bills
        per GB) next to what its provider charged where its API says, with totals per
        currency; ``charges`` says per cluster whether the provider reports charges at all."""
        self._guard.charge_all()
        clusters = self._clusters.all()
        ledgers: dict[str, dict[str, int]] = {}
        silent: set[str] = set()  # providers with a ledger that did not answer
        warnings: list[str] = []
        warnings_said: list[Said] = []
        for name in sorted({c.provider_id for c in clusters}):
            try:
                provider = self._providers.get(name)
                if not provider.capabilities.billing_ledger:
                    continue
                totals: dict[str, int] = {}
                for entry in provider.billing():
                    key = entry.cluster_external_id
                    totals[key] = totals.get(key, 0) + entry.amount_micros
                ledgers[name] = totals
            except XyclawError as exc:
                silent.add(name)
                unavailable = said(
                    "error.typed.ledger_unavailable", provider=name, problem=exc.said or exc.message
                )
                warnings.append(str(unavailable))
                warnings_said.append(unavailable)
        meters = self._charges.meter_totals([c.id for c in clusters])
        traffic = self._charges.bandwidth_totals([c.id for c in clusters])
        stored = self._charges.storage_totals([c.id for c in clusters])

        def charges(c: ClusterRecord) -> str:
            if c.provider_id in silent:
                return "unavailable"
            if c.provider_id not in ledgers:
                return "none"
            return "charged" if (c.external_id or "") in ledgers[c.provider_id] else "no_line"

        now = self._clock()
        for c in clusters:  # kept for the memory of providers: their bill against the meter
            billed = ledgers.get(c.provider_id, {}).get(c.external_id or "")
            if billed is not None and c.external_id:
                self._charges.set_provider_total(c.id, billed, c.currency, c.created_at, now)
        bills = [
            ClusterBill(
                cluster_id=c.id,
                name=c.name,
                state=c.state,
                provider=c.provider_id,
                currency=c.currency,
                meter_micros=meters.get(c.id, 0),
                provider_ledger_micros=ledgers.get(c.provider_id, {}).get(c.external_id or "")
                if c.provider_id in ledgers
                else None,
                bandwidth_micros=traffic.get(c.id, 0),
                storage_micros=stored.get(c.id, 0),
                charges=charges(c),
            )
            for c in clusters
        ]
        return BillingReport(clusters=bills, warnings=warnings, warnings_said=warnings_said)

    @effect(Effect.READ)
    def spend(self, period: str | tuple[float, float] = "today") -> SpendSummary:
        """What the meter charged in a period: today, month, last_month, all, or (start, end)."""
        self._guard.charge_all()
        start, end = period_bounds(period, self._clock())
        rows = self._charges.meter_between(start, end)
        names = {c.id: c.name for c in self._clusters.all()}
        live = self._clusters.live()
        rate: dict[str, int] = {}
        for c in live:
            running = sum(1 for n in c.nodes if n.state == NodeState.RUNNING)
            if running:
                hourly = running * c.gpus_per_node * c.price_per_gpu_hour_micros
                rate[c.currency] = rate.get(c.currency, 0) + hourly
        return SpendSummary.of(
            period if isinstance(period, str) else "range", start, end, rows, names, rate
        )

    # -- telemetry ---------------------------------------------------------------------------
    def _telemetry_service(self) -> TelemetryService:
        if self._telemetry is None:
            raise XyclawError("telemetry is off in this engine", hint="restart XyClaw")
        return self._telemetry

    @effect(Effect.READ)
    def cluster_snapshot(self, ref: str, wait_s: float = 0.0) -> dict[str, Any]:
        """What `xyclaw top` shows: each node's state and error, each GPU's latest sample, the
        open alerts. Starts watching the cluster if nobody does; waits up to ``wait_s``."""
        from xyclaw.telemetry.snapshot import snapshot

        telemetry = self._telemetry_service()
        cluster = telemetry.watch(self._clusters.find(str(ref)))
        complete = telemetry.wait_for_data(cluster.id, wait_s, instants=2) if wait_s > 0 else True
        snap = snapshot(telemetry, cluster)
        snap["complete"] = complete
        return snap

    @effect(Effect.READ)
    def cluster_health(self, ref: str, window_s: float = 300.0) -> dict[str, Any]:
        """A short summary per node over the last minutes, for agents and people."""
        telemetry = self._telemetry_service()
        cluster = telemetry.watch(self._clusters.find(str(ref)))
        return telemetry.cluster_health(cluster, window_s)

    @effect(Effect.READ)
    def live_metrics(self, ref: str) -> TelemetryService:
        """The telemetry service watching the cluster, for charts that pull at frame rate."""
        telemetry = self._telemetry_service()
        cluster = self._clusters.find(str(ref))
        if not cluster.nodes or any(n.ssh_host for n in cluster.nodes):
            telemetry.watch(cluster)  # (a Slurm allocation's samples are fed: slurm_follow)
        return telemetry

    @effect(Effect.READ)
    def alerts(self, ref: str | None = None, open_only: bool = True) -> list[dict[str, Any]]:
        """Alerts of one cluster or all, newest first, from the history."""
        cluster_id = None if ref is None else self._clusters.find(str(ref)).id
        if open_only:
            return self._events.open_alerts(cluster_id)
        return self._events.alerts(cluster_id)

    @effect(Effect.READ)
    def export_metrics(
        self,
        kind: str = "gpu",
        *,
        cluster: str | None = None,
        job: int | None = None,
        since: str | None = None,
    ) -> MetricsExport:
        """Saved samples or rollups of a cluster, or of the cluster a job ran on while it ran."""
        from xyclaw.store.jobs import JobTable
        from xyclaw.telemetry.export import MetricsExport, parse_since, rows_of

        now = self._clock()
        if job is not None:
            window = JobTable(self._store).window(job)
            if window is None or window["cluster_id"] is None:
                problem = said("error.engine.no_job_cluster", job=job)
                raise UsageError(problem, hint=said("error.engine.jobs_hint"))
            record = self._clusters.get(int(window["cluster_id"]))
            start = float(window["started_at"] or window["created_at"])
            end = float(window["ended_at"] or now)
        elif cluster is not None:
            record = self._clusters.find(str(cluster))
            start, end = record.created_at, now + 1
        else:
            raise UsageError(said("error.engine.name_one"), hint=said("error.engine.name_one_hint"))
        if since:
            start = max(start, parse_since(since, now))
        return MetricsExport(
            cluster=record.name,
            cluster_id=record.id,
            job=job,
            kind=kind,
            start=start,
            end=end,
            rows=rows_of(kind, self._store, record.id, start, end),
        )

    # -- jobs --------------------------------------------------------------------------------
    def _attach_jobs(
        self, service: Lazy[JobService], aliases: Lazy[SshAliases] | None = None
    ) -> Lazy[JobService]:
        """Called once by the composition: the job runtime (built on first use, with its hooks
        into the engine), and the SSH config file of the clusters' nodes. Returns the job
        runtime as this engine builds it."""

        def hooked() -> JobService:
            built = service()
            built.parts.release_cluster = self._release_for_job
            built.parts.replace_nodes = self._replace_job_nodes
            built.parts.spot_notice = self._spot_word  # issue 32 (a32)
            return built

        from xyclaw.engine.recovery_asks import ReplacementAsks

        self._jobs_part = Lazy(hooked)
        self._ssh_aliases = aliases
        self._replacement_asks = ReplacementAsks()
        return self._jobs_part

    def _job_service(self) -> JobService:
        if self._jobs_part is None:
            raise XyclawError("jobs are off in this engine", hint="build it with build_engine()")
        return self._jobs_part()

    def _job_spec(self, spec_or_path: Any, *, on_cluster: bool = False) -> JobSpec:
        """A JobSpec from a spec, a loaded spec, a path to a YAML file or a sample's name."""
        from pathlib import Path

        from xyclaw.jobs.spec import JobSpec, LoadedSpec, load_spec
        from xyclaw.paths import bundled

        if isinstance(spec_or_path, JobSpec):
            return spec_or_path
        if isinstance(spec_or_path, LoadedSpec):
            return spec_or_path.spec
        text = self.resolve_spec(str(spec_or_path))
        path = Path(text).expanduser()
        if not path.is_file():
            path = bundled("resources") / "examples" / f"{text}.yaml"
        known = {g.name for g in Catalog.builtin().gpus}
        return load_spec(path, known_gpus=known, on_cluster=on_cluster).spec

    @effect(Effect.READ)
    def resolve_spec(self, ref: str) -> str:
        """What a job spec reference means, as :meth:`launch` reads it: a YAML file's path as
        given, or the name of the bundled sample it names (``plain-python``, ``lora-2node``);
        a word that only one sample's name holds means that sample (``lora``). Anything else
        is a UsageError that lists the samples."""
        from pathlib import Path

        from xyclaw.paths import bundled

        text = str(ref).strip()
        if text and Path(text).expanduser().is_file():
            return text
        examples = bundled("resources") / "examples"
        names = sorted(p.stem for p in examples.glob("*.yaml"))
        wanted = text.lower().removesuffix(".yaml")
        if wanted in names:
            return wanted
        words = [n for n in names if wanted and wanted in n.split("-")]
        if len(words) == 1:
            return words[0]
        raise UsageError(
            said("error.job.no_spec", spec=text, samples=", ".join(names)),
            hint=said("error.job.no_spec_hint"),
        )

    @effect(Effect.READ)
    def launch_quote(self, spec_or_path: Any) -> RentQuote:
        """The quote for the cluster a spec asks to rent (its GPUs, nodes, provider, region);
        launching the spec with this quote, once approved, rents exactly that."""
        spec = self._job_spec(spec_or_path)
        res = spec.resources
        if res.gpu is None:
            raise UsageError(
                said("error.engine.rents_nothing", job=spec.name),
                hint=said("error.engine.on_cluster_hint"),
            )
        from xyclaw.engine.lifecycle import UpRequest

        per_node = res.gpus_per_node or (8 if res.nodes > 1 else 1)
        budget = None
        if spec.budget is not None and spec.budget.currency == "CNY":
            budget = spec.budget.amount_micro
        return self.quote_request(
            UpRequest(
                provider=res.provider or "sim",
                gpu=res.gpu,
                gpu_count=res.nodes * per_node,
                region=res.region,
                gpus_per_node=res.gpus_per_node,
                budget_micros=budget,
                name=spec.name,
                # the spec's max_runtime bounds the rental: the quote's estimated total
                hours=None if spec.max_runtime_s is None else spec.max_runtime_s / 3600,
                spot=spec.spot,
            )
        )

    def _job_secret_environment(self, spec: Any, environ: Mapping[str, str]) -> dict[str, str]:
        """This machine's environment, plus a job's secret variables it lacks that the keyring
        holds (the window asked for them once: :meth:`store_job_secret`)."""
        merged = dict(environ)
        for name in spec.env_from_local:
            if name not in merged:
                value = self._secrets.get(job_secret_name(name))
                if value:
                    merged[name] = value
        return merged

    def _register_job_secrets(self, names: Iterable[str]) -> None:
        """The values of a job's secret variables, as this process can know them (its
        environment, the keyring), registered for masking: for a job followed here that
        another process launched, whose log may echo them."""
        import os

        for name in names:
            register_secret(os.environ.get(name))
            try:
                self._secrets.get(job_secret_name(name))  # registers what it finds
            except XyclawError as exc:  # a keyring that cannot be read: the log says so
                log.warning("could not read the secret %s of a followed job: %s", name, exc)

    @effect(Effect.READ)
    def missing_job_secrets(self, spec_or_path: Any) -> list[str]:
        """The secret variables a job spec takes from this machine that neither the
        environment nor the keyring holds (the window asks for them before launching)."""
        import os

        spec = self._job_spec(spec_or_path)
        have = self._job_secret_environment(spec, os.environ)
        return [name for name in spec.env_from_local if name not in have]

    @effect(Effect.READ)
    def store_job_secret(self, name: str, value: str) -> None:
        """Keep the value of a job's secret variable (``HF_TOKEN``) in the keyring (or the 0600
        file), for every later launch that needs it; registered for masking at once."""
        if not _ENV_NAME.fullmatch(name):
            raise UsageError(
                f"{name!r} is not an environment variable name",
                hint="letters, digits and _, not starting with a digit (HF_TOKEN)",
            )
        value = value.strip()
        if not value:
            raise UsageError(f"no value given for {name}", hint="paste the value, then save")
        self._secrets.set(job_secret_name(name), value)

    @effect(Effect.READ)
    def launch_dry_run(
        self, spec_path: str, cluster: str | None = None, *, language: str = "en"
    ) -> dict[str, Any]:
        """What launching the spec at ``spec_path`` (on ``cluster``, or the spec's own, or one
        it rents) would do: the nodes, GPUs, environment, files uploaded and the command each
        node runs, every warning and refusal with its line, and the quote it would ask
        for. Rents, sends and runs nothing. A refused spec is an answer (``accepted``
        false, ``refusal``), not an error."""
        from pathlib import Path

        from xyclaw.jobs.dryrun import dry_run
        from xyclaw.paths import bundled

        path = Path(spec_path).expanduser()
        if not path.is_file():  # a bundled sample's name, as launch reads it
            path = bundled("resources") / "examples" / f"{self.resolve_spec(spec_path)}.yaml"
        record = self.cluster(cluster) if cluster else None
        known = {g.name for g in Catalog.builtin().gpus}
        result = dry_run(path, known_gpus=known, cluster=record, language=language)
        for one in result.tasks or [result]:
            if one.accepted and record is None and one.gpu is not None:
                self._dry_run_where(one, known, language, again=not result.tasks)
        return result.to_json()

    def _dry_run_where(self, one: Any, known: set[str], language: str, *, again: bool) -> None:
        """A dry run's cluster named in the spec (read ``again`` on it), or the quote for
        the one it rents."""
        from xyclaw.jobs.dryrun import dry_run

        if one.where is not None:
            if not again:
                return
            try:
                found = self.cluster(one.where)
            except XyclawError as exc:
                one.quote_problem = exc.in_language(language)[0]
            else:
                fresh = dry_run(one.file, known_gpus=known, cluster=found, language=language)
                one.__dict__.update(fresh.__dict__)
            return
        try:
            quote = self.launch_quote(one.loaded)
        except XyclawError as exc:
            message, hint = exc.in_language(language)
            one.quote_problem = message + (f" ({hint})" if hint else "")
        else:
            one.quote = quote.to_json()
            one.quote_text = quote.describe(language)

    @effect(Effect.READ)
    def job_tasks(self, spec_path: str, cluster: str | None = None) -> list[Any]:
        """The tasks of a spec file in order (one; or a SkyPilot pipeline's), each read as
        :meth:`launch` reads a spec, to launch one after the other."""
        from pathlib import Path

        from xyclaw.jobs.spec import load_pipeline

        known = {g.name for g in Catalog.builtin().gpus}
        path = Path(spec_path).expanduser()
        return list(load_pipeline(path, known_gpus=known, on_cluster=cluster is not None))

    @effect(Effect.EXEC)
    def launch(
        self,
        spec_or_path: Any,
        cluster: str | None = None,
        *,
        quote: RentQuote | None = None,
        approved: Action | None = None,
    ) -> OperationHandle[JobRecord]:
        """Run a job spec: upload its workdir, setup on every node, then its command on every
        node, detached. On ``cluster`` (or the spec's); a spec that rents its own cluster
        needs the approved ``quote`` of :meth:`launch_quote` (without one it raises
        LaunchNeedsApproval carrying it). Done once every node runs it. ``approved``: the
        ``launch`` Action the user said yes to (the same spec bytes, cluster and nodes)."""
        if approved is not None:
            self._check_approved(approved, "launch")
            if approved.inputs.get("spec") != str(spec_or_path) or approved.ref != cluster:
                raise ApprovalMismatch(
                    said("error.approval.changed"), hint=said("error.approval.ask_again_hint")
                )
            if (approved.quote or {}).get("digest") != (quote.digest if quote else None):
                # a yes to run on a cluster is no yes to rent one, nor to rent at another price
                raise ApprovalMismatch(
                    said("error.approval.quote_changed"),
                    hint=said("error.approval.ask_again_hint"),
                )
        return self._launch_job(spec_or_path, cluster, quote, service=False)

    @effect(Effect.EXEC)
    def serve(
        self, spec_or_path: Any, cluster: str | None = None, *, quote: RentQuote | None = None
    ) -> OperationHandle[JobRecord]:
        """Launch a ``kind: service`` spec; done once it answers its readiness check through
        the port forwarded to this machine (the job's ``url``)."""
        return self._launch_job(spec_or_path, cluster, quote, service=True)

    def _launch_job(
        self, spec_or_path: Any, cluster: str | None, quote: RentQuote | None, *, service: bool
    ) -> OperationHandle[JobRecord]:
        import os

        from xyclaw.jobs.errors import LaunchNeedsApproval
        from xyclaw.jobs.spec import JobKind, local_env

        spec = self._job_spec(spec_or_path, on_cluster=cluster is not None)
        if service and spec.kind is not JobKind.SERVICE:
            raise UsageError(
                said("error.engine.not_service", job=spec.name, kind=spec.kind.value),
                hint=said("error.engine.not_service_hint"),
            )
        env = local_env(spec, self._job_secret_environment(spec, os.environ))
        for value in env.values():  # a job's secret values: masked wherever they are echoed
            register_secret(value)
        jobs = self._job_service()
        ref = cluster or spec.resources.cluster
        if ref is None:
            if not spec.rents_cluster:
                raise UsageError(
                    said("error.engine.no_cluster_no_gpus", job=spec.name),
                    hint=said("error.engine.no_cluster_hint"),
                )
            if quote is None:
                offered = self.launch_quote(spec)
                raise LaunchNeedsApproval(offered, offered.describe())
            self._check_job_quote(spec, quote)
            job_id = jobs.create(spec, cluster_id=None, rented=True)

            def rent_and_run(progress: Progress) -> JobRecord:
                progress.update(
                    said(
                        "op.renting",
                        gpus=quote.gpu_count,
                        gpu=quote.gpu,
                        provider=quote.provider,
                        region=quote.region,
                    ),
                    0.0,
                    step="rent",
                )
                ours: set[int] = set()

                def link_when_ready(event: ClusterChanged) -> None:
                    # the job's cluster is linked the moment it is ready, so a launcher killed
                    # before `up` returns leaves a job the guard runs, not a cluster nobody uses
                    if event.previous is None and event.name == quote.name:
                        ours.add(event.cluster_id)
                    elif (
                        event.cluster_id in ours
                        and event.state == ClusterState.READY
                        and jobs.jobs.get(job_id, with_attempts=False).cluster_id is None
                    ):
                        jobs.jobs.update(job_id, cluster_id=event.cluster_id)

                watching = self._bus.subscribe(ClusterChanged, link_when_ready)
                try:
                    record = self.up(quote).result()
                except XyclawError as exc:
                    jobs.fail(job_id, said("job.renting_failed", error=exc.said or exc.message))
                    raise
                finally:
                    watching.unsubscribe()
                jobs.assign_cluster(job_id, record)
                return self._run_job(job_id, env, progress)

            return self._start(said("op.title.launch", job=spec.name), rent_and_run)
        record = self._clusters.find(str(ref))
        if record.state != ClusterState.READY:
            raise UsageError(
                said(
                    "error.engine.not_ready",
                    name=record.name,
                    state=Said(f"op.cstate.{record.state}"),
                ),
                hint=said("error.engine.ready_hint"),
            )
        from xyclaw.jobs.dryrun import gpu_differs

        differs = gpu_differs(spec, record)  # said before anything runs, in every face
        job_id = jobs.create(spec, cluster_id=record.id, rented=False)

        def run_on_cluster(progress: Progress) -> JobRecord:
            if differs is not None:
                progress.update(said("job.warning", text=differs), 0.0, step="check")
            return self._run_job(job_id, env, progress)

        return self._start(said("op.title.launch", job=spec.name), run_on_cluster)

    def _run_job(self, job_id: int, env: dict[str, str], progress: Progress) -> JobRecord:
        from xyclaw.errors import JobError
        from xyclaw.records.jobs import JobState

        jobs = self._job_service()
        jobs.start(job_id, local_env=env, report=lambda m, f: progress.update(m, f))
        job = jobs.wait_started(job_id, cancelled=lambda: progress.cancelled)
        if job.state is JobState.FAILED:
            raise JobError(
                said(
                    "job.ended.failed_because", name=job.name, error=job.error_worded or job.cause
                ),
                hint=said("job.hint_logs", job=job.id),
            )
        return job

    @staticmethod
    def _check_job_quote(spec: JobSpec, quote: RentQuote) -> None:
        quote.verify_digest()
        res = spec.resources
        per_node = res.gpus_per_node or quote.gpus_per_node
        if quote.gpu != res.gpu or quote.gpu_count != res.nodes * per_node:
            raise QuoteError(
                f"the quote is for {quote.gpu_count} x {quote.gpu}; job {spec.name} asks for "
                f"{res.nodes * per_node} x {res.gpu}",
                hint="ask for the job's own quote (launch_quote) and approve that one",
            )

    def _release_for_job(self, cluster_id: int) -> None:
        cluster = self._clusters.get(cluster_id)

        def release(progress: Progress) -> ClusterRecord:
            telemetry = self._telemetry_if_built()
            if telemetry is not None:
                telemetry.unwatch(cluster.id, released=True)
            return self._lifecycle.down(cluster.id, progress, reason="job_end")

        handle = self._start(said("op.title.release", cluster=cluster.name), release)
        handle.result(self._config.ssh.command_timeout_s * 5)

    def _outputs_before_release(
        self, cluster_id: int, reason: str, progress: Progress | None = None
    ) -> None:
        """Before any release: the outputs of the cluster's jobs still only on its disks
        are copied to this machine, or named as lost (issue 32)."""
        from xyclaw.store.jobs import JobTable

        if self._jobs_part is None:
            return
        if not JobTable(self._store).rows_on_cluster(cluster_id, active_only=False):
            return  # no job ever ran on it: the job runtime need not be built
        report = None
        if progress is not None:  # the release's card shows each file copied

            def report(message: Said | str, fraction: float | None) -> None:
                progress.update(message, None if fraction is None else 0.05 + 0.05 * fraction)

        self._job_service().keep_outputs(cluster_id, reason, report)

    def _replace_job_nodes(
        self,
        job: JobRecord,
        spec: JobSpec,
        lost: Sequence[JobNode],
        keep_waiting: Callable[[], bool],
        why: ReplacementWhy | None = None,
    ) -> list[tuple[ClusterRecord, NodeRecord]] | None:
        """Rent replacements for lost nodes from the same provider and region, through a
        quote like any rental: at once when the spec allows the spend (recovery.allow_spend),
        else only after the user approved that quote (see :meth:`approve_replacement`)."""
        names = ", ".join(n.name for n in lost)
        if not lost:
            return None
        cluster = lost[0].cluster
        current = self._clusters.get(cluster.id)
        stay = {n.id for n in current.running_nodes} - {jn.node.id for jn in lost}
        from xyclaw.engine.lifecycle import UpRequest

        request = UpRequest(
            provider=cluster.provider_id,
            gpu=cluster.gpu,
            gpu_count=len(lost) * cluster.gpus_per_node,
            region=cluster.region,
            fabric=cluster.fabric,
            gpus_per_node=cluster.gpus_per_node,
            budget_micros=cluster.budget_micros,
            name=f"{cluster.name}-r{job.attempt}",
            spot=spec.spot,  # issue 32: a spot job's replacement is spot too
            # issue 34: where the provider can, the replacement joins the cluster's fabric,
            # beside the nodes of it that stay (none stay: a cluster of its own, as before)
            joins=current.external_id if current.live and stay else None,
        )
        try:
            quote = self.quote_request(request)
            if spec.recovery.allow_spend:
                self._events.record(
                    "job",
                    "warning",
                    said(
                        "job.renting_replacement",
                        name=job.name,
                        nodes=names,
                        quote=quote.said(),
                    ),
                    job_id=job.id,
                    cluster_id=cluster.id,
                )
            elif not self._ask_replacement(job, cluster, lost, quote, keep_waiting, why):
                return None
            record = self.up(quote).result()
        except XyclawError as exc:
            self._events.record(
                "job",
                "error",
                said(
                    "job.no_replacement", name=job.name, nodes=names, error=exc.said or exc.message
                ),
                job_id=job.id,
                cluster_id=cluster.id,
            )
            return None
        return [(record, node) for node in record.running_nodes][: len(lost)]

    def _ask_replacement(
        self,
        job: JobRecord,
        cluster: ClusterRecord,
        lost: Sequence[JobNode],
        quote: RentQuote,
        keep_waiting: Callable[[], bool],
        why: ReplacementWhy | None = None,
    ) -> bool:
        """Hold the replacement's quote for the user's answer; True only on their yes. With
        ``why`` (a hang's verdict, issue 34) the ask says it and the checkpoint the job then
        resumes from, which its ``replace_and_resume`` card binds."""
        from xyclaw.engine.recovery_asks import ReplacementAsk
        from xyclaw.events import ReplacementAsked
        from xyclaw.records.jobs import JobState

        ask = ReplacementAsk(
            job_id=job.id,
            job=job.name,
            cluster=cluster.name,
            nodes=tuple(n.name for n in lost),
            quote=quote,
            asked_at=self._clock(),
            reason=why.reason if why is not None else None,
            resume_from=why.resume.path if why is not None and why.resume is not None else None,
            resume_step=why.resume.step if why is not None and why.resume is not None else None,
        )
        service = self._job_service()

        def publish() -> None:
            service.jobs.set_state(job.id, JobState.RECOVERING, only_from=(JobState.SETTING_UP,))
            self._events.record(
                "job",
                "warning",
                said("job.replacement_waits", ask=ask.said()),
                job_id=job.id,
                cluster_id=cluster.id,
                action=f"xyclaw logs {job.id} -f",
            )
            self._bus.publish(
                ReplacementAsked(
                    job_id=job.id,
                    name=job.name,
                    cluster_id=cluster.id,
                    nodes=ask.nodes,
                    message=ask.describe(),
                    digest=quote.digest,
                    expires_at=ask.expires_at,
                )
            )

        answer = self._replacement_asks.wait(
            ask,
            keep_waiting=keep_waiting,
            clock=self._clock,
            tick_s=min(1.0, service.options.tick_s),
            published=publish,
        )
        service.jobs.set_state(job.id, JobState.SETTING_UP, only_from=(JobState.RECOVERING,))
        if answer == "approved":
            return True
        because = said(f"job.replacement.{answer}")
        self._events.record(
            "job",
            "warning",
            said(
                "job.no_replacement_rented", name=job.name, nodes=", ".join(ask.nodes), why=because
            ),
            job_id=job.id,
            cluster_id=cluster.id,
        )
        return False

    @effect(Effect.READ)
    def replacement_asks(self) -> list[ReplacementAsk]:
        """Replacements for lost nodes of the jobs this process follows that wait for the
        user's yes (each with the quote it would rent)."""
        asks = getattr(self, "_replacement_asks", None)
        return [] if asks is None else asks.pending()

    @effect(Effect.SPEND)
    def approve_replacement(
        self, ref: str, digest: str, *, approved: Action | None = None
    ) -> ReplacementAsk:
        """The user's yes to the replacement the job waits for: ``digest`` is that of the
        quote they were shown; the job's recovery then rents exactly it. ``approved``: the
        ``replacement`` Action of that card (the same job id, the same quote)."""
        job = self._job_service().find(str(ref))
        if approved is not None:
            # a lost node's ``replacement``, or a hang's ``replace_and_resume`` (issue 34)
            kinds = ("replacement", "replace_and_resume")
            self._check_approved(
                approved, approved.operation if approved.operation in kinds else kinds[0]
            )
            self._same_target(approved, "job", job.id)
            if (approved.quote or {}).get("digest") != digest:
                raise ApprovalMismatch(
                    said("error.approval.quote_changed"),
                    hint=said("error.approval.ask_again_hint"),
                )
        return self._replacement_asks.answer(job.id, approve=True, digest=digest)

    @effect(Effect.DESTROY)
    def decline_replacement(self, ref: str) -> ReplacementAsk:
        """The user's no: nothing is rented; the job waits for its lost node to come back
        within the reconnect window, else it fails with the node lost."""
        job = self._job_service().find(str(ref))
        return self._replacement_asks.answer(job.id, approve=False)

    @effect(Effect.READ)
    def jobs(self, include_finished: bool = False) -> list[JobRecord]:
        """Active jobs (with ``include_finished``: the last 200 of all), oldest first, each
        with its state, attempt, progress, ETA and cost so far."""
        return self._job_service().all(include_finished=include_finished)

    @effect(Effect.READ)
    def job(self, ref: str) -> JobRecord:
        """A job by id or name, with its attempts and why each ended."""
        return self._job_service().find(str(ref))

    @effect(Effect.READ)
    def job_logs(
        self,
        ref: str,
        *,
        rank: int | None = None,
        node: str | int | None = None,
        attempt: int | None = None,
        tail: int | None = None,
        since_offset: int | None = None,
        stream: str | None = None,
    ) -> list[LogLine]:
        """Stored lines of a job, oldest first: of one global ``rank``, one ``node`` (name or
        node rank), one ``attempt``; the last ``tail``; or those stored after the line whose
        ``id`` is ``since_offset`` (to follow: pass the last id you got)."""
        service = self._job_service()
        job = service.jobs.find(str(ref))
        return service.lines(
            job.id,
            rank=rank,
            node=node,
            attempt=attempt,
            tail=tail,
            after_id=since_offset,
            stream=stream,
        )

    @effect(Effect.READ)
    def job_metrics(self, ref: str) -> list[dict[str, Any]]:
        """The job's metrics series (step, loss, learning rate, throughput), for charts."""
        service = self._job_service()
        return service.jobs.metrics(service.jobs.find(str(ref)).id)

    @effect(Effect.READ)
    def job_results(self, ref: str | None = None) -> list[JobResult]:
        """Cost per result of one job, or of the last 200: cost per million tokens, per epoch
        and (a service) per 1k requests, and MFU counted for the task (6N FLOPs per token for
        full training, 4N for LoRA; see :mod:`xyclaw.jobs.results`)."""
        from xyclaw.jobs.results import job_result

        service = self._job_service()
        jobs = [service.find(str(ref))] if ref is not None else service.all(include_finished=True)
        catalog = Catalog.builtin()
        clusters: dict[int, ClusterRecord | None] = {}

        def cluster(cluster_id: int | None) -> ClusterRecord | None:
            if cluster_id is None:
                return None
            if cluster_id not in clusters:
                try:
                    clusters[cluster_id] = self._clusters.get(cluster_id)
                except UsageError:
                    clusters[cluster_id] = None
            return clusters[cluster_id]

        out = []
        for job in jobs:
            home = cluster(job.cluster_id)
            nodes = next((a.nodes for a in reversed(job.attempts) if a.nodes), ())
            gpus = sum(c.gpus_per_node for n in nodes if (c := cluster(n.cluster_id)) is not None)
            if not gpus and home is not None:
                gpus = home.gpu_count
            name = home.gpu if home is not None else None
            out.append(
                job_result(
                    job,
                    service.jobs.metrics(job.id),
                    provider=home.provider_id if home is not None else None,
                    gpu=catalog.gpu(name) if name and catalog.has_gpu(name) else None,
                    gpu_name=name,
                    gpus=gpus,
                )
            )
        return out

    @effect(Effect.READ)
    def result_trends(self) -> list[ResultTrend]:
        """Cost per million tokens (per 1k requests) and MFU per provider, GPU model and month:
        "A800 on sim: 1.8 CNY per M tokens; H100 on Lambda: 2.4"."""
        from xyclaw.jobs.results import trends

        return trends(self.job_results())

    @effect(Effect.EXEC)
    def attach_job(self, ref: str | None = None) -> list[JobRecord]:
        """Follow an active job (``None``: every one) from this process if no live XyClaw
        process does, e.g. after a restart: logs resume at the stored offset; the job's
        recovery policy applies from here."""
        service = self._job_service()
        if ref is None:
            return [service.record(i) for i in service.attach_all()]
        job = service.jobs.find(str(ref))
        service.attach(job.id)
        return [service.record(job.id)]

    def _adopt_jobs(self) -> list[int]:
        """Follow every running job no process follows (maintenance, before anything else):
        the job's ranks are read from the nodes first. Builds the job runtime only when a
        job is active."""
        if self._jobs_part is None:
            return []
        if not self._jobs_part.built and not self._store_has_active_jobs():
            return []
        return self._job_service().adopt()

    def _store_has_active_jobs(self) -> bool:
        from xyclaw.store.jobs import JobTable

        return bool(JobTable(self._store).rows(active_only=True))

    @effect(Effect.EXEC)
    def ssh_config(self, include: bool | None = None) -> AliasReport:
        """Write XyClaw's SSH config with every live cluster's nodes (``ssh <cluster>-<n>``).
        ``include=True`` adds one marked Include line to the top of the user's
        ~/.ssh/config (ask the user first); ``False`` takes it out again."""
        if self._ssh_aliases is None:
            raise XyclawError("SSH aliases are off in this engine", hint="restart XyClaw")
        aliases = self._ssh_aliases()
        if include is True:
            return aliases.install_include()
        if include is False:
            return aliases.remove_include()
        return aliases.sync()

    @effect(Effect.DESTROY)
    def cancel_job(self, ref: str, *, approved: Action | None = None) -> JobRecord:
        """Stop a job: SIGTERM to its process group on every node, a grace period, SIGKILL,
        then a check that none of its processes is left; recorded. The cluster stays.
        ``approved``: the ``cancel_job`` Action the user said yes to (the same job id)."""
        service = self._job_service()
        job = service.jobs.find(str(ref))
        if approved is not None:
            self._check_approved(approved, "cancel_job")
            self._same_target(approved, "job", job.id)
        return service.cancel(job.id)

    def _same_target(self, approved: Action, kind: str, ident: int) -> None:
        if approved.ids(kind) != [ident]:
            raise ApprovalMismatch(
                said("error.approval.changed"), hint=said("error.approval.ask_again_hint")
            )

    # -- pasted output -----------------------------------------------------------------------
    @effect(Effect.READ)
    def diagnose(self, text: str) -> Diagnosis:
        """What pasted command output is and shows: nvidia-smi in any form, topo -m, ibstat,
        ibv_devinfo, show_gids, dmesg, nccl-tests, a training log or a watchdog trace, read by
        the live collectors' parsers and judged by the same alert rules and verdicts. Nothing
        is run or stored; text it cannot read raises DiagnoseError saying what was expected."""
        from xyclaw.engine.diagnose import diagnose_text

        return diagnose_text(text)

    # -- history -----------------------------------------------------------------------------
    @effect(Effect.READ)
    def history(
        self, kind: str, *, since: float = 0.0, until: float = 1e18, limit: int = 50
    ) -> list[dict[str, Any]]:
        """Past clusters, jobs, events, plans or conversations, newest first; no provider is
        asked, so it works offline."""
        return history_rows(self._store, kind, since=since, until=until, limit=limit)

    @effect(Effect.READ)
    def recent_events(self, limit: int = 100, cluster: str | None = None) -> list[dict[str, Any]]:
        cluster_id = None if cluster is None else self._clusters.find(str(cluster)).id
        return self._events.recent(limit, cluster_id)

    @effect(Effect.READ)
    def saved_plan(self, plan_id: int) -> dict[str, Any] | None:
        return self._plans.get(plan_id)

    @effect(Effect.READ)
    def store_info(self) -> StoreInfo:
        return self._store.info()

    @effect(Effect.READ)
    def backup(self, target: Any, overwrite: bool = False) -> Any:
        """Copy the history database online to ``target``."""
        return self._store.backup(target, overwrite=overwrite)

    # -- maintenance -------------------------------------------------------------------------
    @effect(Effect.DESTROY)
    def reconcile(self) -> ReconcileReport:
        """Compare the providers with the history; release orphans and undo interrupted work
        as the configuration says; and delete the keys of clusters that ended meanwhile."""
        report = self._reconciler.run()
        self._lifecycle.forget_ended_keys()
        return report

    @effect(Effect.DESTROY)
    def tick(self) -> GuardReport:
        """Charge the meter, enforce budgets and idle release, keep provider deadlines (one
        pass of the guard); the report says what it did and when the next pass is due."""
        return self._guard.tick()

    @effect(Effect.DESTROY)
    def start_maintenance(
        self,
        holder: str = Holder.DESKTOP,
        *,
        exit_when_idle_s: float | None = None,
        on_report: Callable[[GuardReport], None] | None = None,
        lock: GuardLock | None = None,
    ) -> bool:
        """Run the guard in this process (the desktop app calls this when it opens): reconcile
        and telemetry every ``reconcile.interval_s``, and the guard's pass when money says so;
        a cluster made ready by this process is watched at once (:meth:`watch_when_ready`).

        Takes the data folder's guard lock, first stopping a background guard if one holds
        it; True if this process is the guard now. When another desktop or ``xyclaw guard``
        holds it, this one reconciles and watches but leaves budgets to that one (False).
        ``close()`` gives the lock up and, while clusters are live, hands the guard to a
        background process. ``exit_when_idle_s``: end once nothing has been live that long.
        ``lock``: the guard lock, already taken by the caller (``xyclaw guard`` takes it
        before it builds the engine, so a second guard exits at once).
        """
        from xyclaw.billing.guard_process import guard_status, stop_guard
        from xyclaw.engine.maintenance import Maintenance

        if self._maintenance is not None:
            return self._guard_lock.held
        if self._maintenance_stop.is_set():  # closing (the desktop starts this on a worker)
            return False
        self.watch_when_ready()  # a cluster ready in this process: watched at once
        wanted = Holder(holder)
        if lock is not None and lock.held:
            self._guard_lock.release()
            self._guard_lock = lock
        held = self._guard_lock.acquire(wanted)
        if not held:
            status = guard_status(self._paths)
            if (
                wanted != Holder.BACKGROUND
                and status.info is not None
                and status.info.holder == Holder.BACKGROUND
            ):
                try:
                    stop_guard(self._paths)
                except XyclawError as exc:
                    log.warning("could not take over from the background guard: %s", exc)
                held = self._guard_lock.acquire(wanted, wait_s=10.0)
        if not held:
            log.info("another process runs the guard: %s", guard_status(self._paths).describe())
        self._maintenance = Maintenance(
            guard=self._guard,
            reconcile=self.reconcile,
            tick=self.tick,
            sync_telemetry=self.sync_telemetry,
            live_count=lambda: len(self._clusters.live()),
            lock=self._guard_lock,
            holder=wanted,
            reconcile_interval_s=self._config.reconcile.interval_s,
            settings=self._config.guard,
            exit_when_idle_s=exit_when_idle_s,
            on_report=on_report,
            clock=self._clock,
            adopt_jobs=self._adopt_jobs if self._jobs_part is not None else None,
        )
        if self._maintenance_stop.is_set():  # closed meanwhile: nothing left to look after
            self._maintenance.stop()
            return False
        self._maintenance.start()
        return held

    @effect(Effect.READ)
    def wait_maintenance(self, timeout: float | None = None) -> bool:
        """Wait until maintenance has ended by itself (True) or ``timeout`` passed."""
        if self._maintenance is None:
            return True
        return self._maintenance.wait(timeout)

    @effect(Effect.READ)
    def guard_status(self) -> GuardStatus:
        """Whether a guard runs for this data folder, which process, and what it does next."""
        from xyclaw.billing.guard_process import guard_status

        return guard_status(self._paths)

    @effect(Effect.DESTROY)
    def ensure_guard(self, wait_s: float = 0.0, only_if_live: bool = False) -> GuardStatus | None:
        """Start the background guard if no guard runs (``[guard] autostart``); None when this
        engine cannot (its providers were handed to it, so no other process has them)."""
        from xyclaw.billing.guard_process import guard_status, start_background

        if self._guard_lock.held:
            return guard_status(self._paths)
        if not self._background_guard:
            return None
        status = guard_status(self._paths)
        if status.running or not self._config.guard.autostart:
            return status
        if only_if_live and not self._clusters.live():
            return status
        try:
            return start_background(self._paths, wait_s=wait_s)
        except XyclawError as exc:
            log.warning("could not start the guard: %s", exc)
            return guard_status(self._paths)

    @effect(Effect.SPEND)
    def set_budget(
        self, ref: str, budget_micros: int | None, *, approved: Action | None = None
    ) -> ClusterRecord:
        """Change (or, with None, remove) a live cluster's budget; the provider's deadline
        moves with it and the guard checks again at once. ``approved``: the ``set_budget``
        Action the user said yes to (same cluster, same budget, same figures)."""
        cluster = self._clusters.find(str(ref))
        if approved is not None:
            self._check_approved(approved, "set_budget")
            self._same_target(approved, "cluster", cluster.id)
            if approved.price.get("budget_micros") != budget_micros:
                raise ApprovalMismatch(
                    said("error.approval.changed"), hint=said("error.approval.ask_again_hint")
                )
        if not cluster.live:
            state = Said(f"op.cstate.{cluster.state}")
            raise UsageError(
                said("error.engine.not_live", name=cluster.name, state=state),
                hint=said("error.engine.not_live_hint"),
            )
        if budget_micros is not None and budget_micros <= 0:
            raise UsageError(
                said("error.engine.budget_zero"), hint=said("error.engine.budget_zero_hint")
            )
        self._clusters.update(cluster.id, budget_micros=budget_micros, budget_warned_at=None)
        updated = self._clusters.get(cluster.id)
        try:
            self._guard.sync_deadline(updated, force=True)
        except XyclawError as exc:
            self._events.record(
                "budget",
                "warning",
                said(
                    "op.budget_deadline_refused",
                    cluster=cluster.name,
                    provider=cluster.provider_id,
                    error=exc.said or exc.message,
                ),
                cluster_id=cluster.id,
            )
        return updated

    @effect(Effect.READ)
    def watch_when_ready(self) -> None:
        """From now on watch each cluster as soon as it is ready, and stop when it is being
        released or gone: for a process that keeps running (the desktop, the guard), so a new
        cluster's samples, alerts and notices start with it, not at the next maintenance pass
        or when a chart is first shown. Clusters changed by other processes are still picked
        up by :meth:`sync_telemetry`. Calling it again does nothing."""
        if self._telemetry_part is None or self._ready_watch is not None:
            return
        self._ready_watch = self._bus.subscribe(ClusterChanged, self._follow_cluster)

    def _follow_cluster(self, event: ClusterChanged) -> None:
        """On the publisher's thread (watching only starts the collectors' own thread)."""
        if self._maintenance_stop.is_set():  # closing: build nothing more
            return
        state = ClusterState(event.state)
        if state == ClusterState.READY:
            try:
                self._telemetry_service().watch(event.cluster_id)
            except XyclawError as exc:
                log.warning("could not watch cluster %s: %s", event.name, exc.message)
        elif state == ClusterState.RELEASING or not state.live:
            telemetry = self._telemetry_if_built()
            if telemetry is not None:
                telemetry.unwatch(event.cluster_id, released=True)

    @effect(Effect.READ)
    def sync_telemetry(self) -> None:
        """Watch every ready cluster, and stop watching those that are gone or released."""
        if self._telemetry is None:
            return
        # a Slurm allocation's nodes are not reached over SSH: its samples are fed (slurm_follow)
        ready = {
            c.id: c
            for c in self._clusters.live()
            if c.state == ClusterState.READY and any(n.ssh_host for n in c.nodes)
        }
        watched = {c.id for c in self._telemetry.watched() if any(n.ssh_host for n in c.nodes)}
        for cluster_id in watched - set(ready):
            self._telemetry.unwatch(cluster_id, released=True)
        for cluster_id, cluster in ready.items():
            if cluster_id not in watched:
                self._telemetry.watch(cluster)

    # -- Slurm sites (issue 33): jobs through the site's own scheduler ----------------------------
    def _slurm(self, site: str) -> SlurmJobs:
        from xyclaw.jobs.slurm_jobs import SlurmJobs
        from xyclaw.providers.slurm import SlurmProvider

        provider = self._providers.get(site)
        if not isinstance(provider, SlurmProvider):
            raise UsageError(
                said("error.engine.not_slurm", site=site), hint=said("error.engine.not_slurm_hint")
            )
        return SlurmJobs(provider.client, self._paths.state_dir / "slurm-jobs.json")

    @effect(Effect.READ)
    def slurm_queue(
        self, site: str, *, nodes: int = 1, gpus_per_node: int = 0, gpu: str | None = None
    ) -> list[QueueWait]:
        """How long ``nodes`` x ``gpus_per_node`` GPUs would wait in each partition of a Slurm
        site that has them, by Slurm's own estimate (``sbatch --test-only``: nothing is
        submitted), with the GPUs free now."""
        from xyclaw.providers.slurm import expected_waits

        return expected_waits(self._slurm(site).client, nodes, gpus_per_node, gpu)

    @effect(Effect.READ)
    def slurm_jobs(self, site: str, *, fresh: bool = False) -> list[SlurmJobView]:
        """XyClaw's jobs at a Slurm site: queued or running as ``squeue --me`` lists them
        (asked at most every 30 s unless ``fresh``), ended ones from their exit records.
        Other users' jobs are never listed."""
        return self._slurm(site).jobs(fresh=fresh)

    @effect(Effect.READ)
    def slurm_logs(self, site: str, job_id: str, *, lines: int = 200) -> dict[str, str]:
        """The per-rank output files of one of XyClaw's Slurm jobs (the last ``lines``)."""
        return self._slurm(site).logs(job_id, lines=lines)

    @effect(Effect.READ)
    def slurm_limits(
        self, site: str, spec_path: str, *, partition: str | None = None
    ) -> list[Said]:
        """What bounds the spec's job at the site, shown before submitting: the partition it
        would go to with its limits, and the association and QoS limits the site keeps."""
        from xyclaw.jobs.spec import load_spec

        jobs = self._slurm(site)
        part = jobs.choose_partition(
            load_spec(spec_path, on_cluster=True, check_paths=False).spec, partition
        )
        return [said("op.slurm_limit.partition_name", name=part.name), *jobs.client.limits(part)]

    @effect(Effect.READ)
    def slurm_gpu_samples(self, site: str, job_id: str, *, last: int = 120) -> list[GpuSample]:
        """What the sampler the batch script starts in each node's run step wrote (GPU
        utilization, memory, power; none where a node has no nvidia-smi)."""
        return self._slurm(site).gpu_samples(job_id, last=last)

    @effect(Effect.EXEC)
    def slurm_submit(self, site: str | None, spec: str, *, approved: Action) -> SlurmJobView:
        """Submit the spec an approved card (:meth:`slurm_submit_card`) names, with ``sbatch
        --parsable``: the batch script runs setup once per node and the run on every node
        through ``srun``, with the site's tuned NCCL environment. Refused, submitting nothing,
        when the spec file, the partition or the site changed since the card."""
        from xyclaw.engine.slurm import submit_approved

        name = self._slurm_site(site)
        ref = self.resolve_spec(spec)
        jobs = self._slurm(name)
        view = submit_approved(
            jobs,
            approved,
            ref,
            self._job_spec(ref, on_cluster=True),
            _file_digest(ref),
            nccl=self.slurm_nccl(name),
        )
        self._slurm_mirror().follow(jobs, fresh=True)  # the allocation shows at once
        self._bus.publish(
            Notice(
                severity="info",
                kind="slurm_job",
                message=f"job {view.job_id} submitted to {name} (partition {view.partition})",
            )
        )
        return view

    @effect(Effect.READ)
    def slurm_cancel_card(self, site: str, job_id: str, *, asked_by: str = "user") -> Action:
        """The approval card for cancelling one of XyClaw's Slurm jobs (changes nothing)."""
        from xyclaw.engine.slurm import cancel_card

        return cancel_card(self._slurm(site), str(job_id), Asker(asked_by))

    @effect(Effect.DESTROY)
    def slurm_cancel(self, site: str, job_id: str, *, approved: Action) -> SlurmJobView:
        """``scancel`` the job the approved card names; refused, cancelling nothing, when the
        card is for another job or the job is not XyClaw's."""
        from xyclaw.engine.slurm import cancel_approved

        if approved.ref != f"{site}:{job_id}":
            raise ApprovalMismatch(
                said("error.approval.changed"), hint=said("error.approval.ask_again_hint")
            )
        view = cancel_approved(self._slurm(site), approved)
        self._bus.publish(
            Notice(severity="info", kind="slurm_job", message=f"job {job_id} on {site} cancelled")
        )
        return view

    @effect(Effect.READ)
    def stop_sim_cloud_on_close(self) -> None:
        """When this engine closes, stop the simulated cloud it started, unless a simulated
        cluster is still live (the background guard then watches it through that cloud).
        The desktop asks for it: its quit leaves nothing running that nothing needs. A
        command leaves the cloud for the next command."""
        self._stop_sim_on_close = True

    def _stop_idle_sim_cloud(self) -> None:
        if any(c.provider_id == "sim" for c in self._clusters.live()):
            return
        for provider in self._providers.built():
            stop = getattr(provider, "stop_cloud", None)
            if callable(stop):
                try:
                    stop()
                except Exception:
                    log.exception("stopping the simulated cloud failed")

    @effect(Effect.READ)
    def close(self) -> None:
        """Stop maintenance, telemetry and workers; close connections and the database.

        A process that ran the guard gives its lock up and, while clusters are live, hands
        the guard to a background process, so budgets hold after the window closes.
        """
        self._maintenance_stop.set()
        if self._ready_watch is not None:
            self._ready_watch.unsubscribe()
        if self._maintenance is not None:
            self._maintenance.stop(timeout=30)
        was_guard = (
            self._guard_lock.held
            and self._guard_lock.holder != Holder.BACKGROUND
            and not self._guard_lock.lost  # a deleted data folder is not made again
        )
        self._guard_lock.release()
        if was_guard:
            try:
                self.ensure_guard(only_if_live=True)
            except Exception:
                log.exception("handing the guard to a background process failed")
        telemetry = self._telemetry_if_built()
        if telemetry is not None:
            try:
                telemetry.close()
            except Exception:
                log.exception("closing telemetry failed")
        jobs = self._jobs_part.if_built() if self._jobs_part is not None else None
        if jobs is not None:
            jobs.close()  # stop following jobs (they keep running on their nodes)
        self._operations.close()
        access = self._access_part.if_built()
        if access is not None:
            access.pool.close()
        if self._stop_sim_on_close:
            self._stop_idle_sim_cloud()
        self._providers.close()
        self._store.close()

    # -- issue 35, b35: what the window asked the parts for itself ---------------------------
    @effect(Effect.READ)
    def setup_facts(self, config: Config | None = None) -> SetupFacts:
        """What is set up beyond the simulated cloud and the rules agent (own hosts, a model,
        provider keys), as `xyclaw doctor` reads it; ``config``: one being edited, not saved."""
        from xyclaw.providers.setup_facts import setup_facts

        return setup_facts(self._paths, config if config is not None else self._config)

    # -- Slurm in the Monitor, Clusters and History pages (issue 33, helper b33) -------------
    def _slurm_mirror(self) -> SlurmMirror:
        from xyclaw.engine.slurm_mirror import SlurmMirror
        from xyclaw.records.jobs import JobStore

        return SlurmMirror(
            self._clusters, JobStore(self._store, self._bus, self._clock), self._telemetry_if_on
        )

    def _telemetry_if_on(self) -> TelemetryService | None:
        return self._telemetry

    @effect(Effect.READ)
    def slurm_sites(self) -> list[str]:
        """The Slurm sites of hosts.toml (names only: nothing is asked of them)."""
        from xyclaw.providers.slurm import load_slurm_sites

        try:
            sites = load_slurm_sites(self._paths.config_dir / "hosts.toml")
        except XyclawError:
            return []
        names = set(self._providers.names)
        return [s.name for s in sites if s.name in names]

    @effect(Effect.READ)
    def slurm_follow(self, site: str | None = None, *, fresh: bool = False) -> list[ClusterRecord]:
        """Mirror XyClaw's jobs at a Slurm site (every site when None) into the History as
        allocations like any cluster: queue state, nodes, per-rank logs, the GPU samples the
        batch script's sampler wrote (into the Monitor's live window and the stored samples),
        and the end and GPU-hours from the exit record. ``squeue --me`` is asked at most every
        30 s unless ``fresh``; one command per job reads what its nodes wrote since."""
        mirror = self._slurm_mirror()
        out: list[ClusterRecord] = []
        for name in [site] if site else self.slurm_sites():
            try:
                out += mirror.follow(self._slurm(name), fresh=fresh)
            except XyclawError as exc:
                if site:
                    raise
                log.warning("could not follow Slurm site %s: %s", name, exc.message)
        return out

    @effect(Effect.READ)
    def slurm_allocations(self) -> list[SlurmAllocation]:
        """The Slurm jobs mirrored as allocations, with their queue state (pending and
        Slurm's reason, running, ending), job id and nodes, as last read (asks nothing)."""
        from xyclaw.engine.slurm_mirror import allocations

        return allocations(self._paths.state_dir / "slurm-jobs.json")

    @effect(Effect.READ)
    def slurm_nccl(self, site: str) -> dict[str, str]:
        """The NCCL environment a job submitted to the site gets: the tuning applied to its
        newest allocation that has one (``xyclaw tune`` on a Slurm allocation, as on any
        cluster), else none."""
        mirrored = [c for c in self._clusters.all() if c.provider_id == site and c.external_id]
        for cluster in sorted(mirrored, key=lambda c: c.created_at, reverse=True):
            env = self._tuning.environment_for(cluster.id)
            if env:
                return env
        return self._slurm_probed_nccl(site)  # issue 33 (c33): else the site's probe, else {}

    # -- issue 33, helper a33: Slurm sites in plans and for the agents ---------------------------
    # (slurm_sites is b33's, above: the names of hosts.toml's [[slurm]] tables, [] when it
    # does not read)
    def _plan_slurm_sites(self) -> list[str]:
        """The Slurm sites a plan asks (none when hosts.toml does not read: doctor says why)."""
        try:
            return self.slurm_sites()
        except XyclawError:
            return []

    def _slurm_site(self, site: str | None) -> str:
        """The site named, or the only one there is (a request that names none)."""
        sites = self.slurm_sites()
        if site:
            return site
        if len(sites) == 1:
            return sites[0]
        raise UsageError(
            said(
                "error.engine.which_slurm",
                sites=", ".join(sites) if sites else said("error.engine.no_slurm"),
            ),
            hint=said("error.engine.which_slurm_hint")
            if sites
            else said("error.engine.add_slurm_hint"),
        )

    @effect(Effect.READ)
    def slurm_submit_card(
        self,
        site: str | None,
        spec: str,
        *,
        partition: str | None = None,
        asked_by: str = "agent",
    ) -> Action:
        """The approval card for submitting a job spec (a file or a sample's name) to a Slurm
        site with ``sbatch``: the site, partition, shape and exact command (changes nothing)."""
        from xyclaw.engine.slurm import submit_card

        ref = self.resolve_spec(spec)
        return submit_card(
            self._slurm(self._slurm_site(site)),
            ref,
            self._job_spec(ref, on_cluster=True),
            _file_digest(ref),
            partition,
            Asker(asked_by),
        )

    @effect(Effect.EXEC)
    def slurm_launch(self, site: str | None, spec: str, *, approved: Action) -> SlurmJobView:
        """The agents' name for :meth:`slurm_submit` (the same card, the same check)."""
        return self.slurm_submit(site, spec, approved=approved)

    # -- issue 32 (a32): spot -- the provider's notice; a plan's option rented as spot ----------
    def _spot_word(self, cluster_id: int) -> SpotWord | None:
        """What the provider says of a spot cluster now: its preemption notice (where the
        provider gives one: the simulated cloud's ``preempt_at``) and whether it is gone. For
        the job runtime's spot watch; raises the provider's error when it cannot say."""
        from xyclaw.jobs.spot_watch import SpotWord

        record = self._clusters.get(cluster_id)
        if record.external_id is None:
            return None
        info = self._providers.get(record.provider_id).get(record.external_id)
        if info is None:
            return SpotWord(None, gone=True)
        at = info.extra.get("preempt_at")
        notice = float(at) if isinstance(at, int | float) and not isinstance(at, bool) else None
        return SpotWord(notice, gone=not info.live)

    @effect(Effect.READ)
    def quote_spot(self, plan_id: int, option: int) -> RentQuote:
        """Option ``option`` (1-based) of a plan, quoted as spot: the offer's spot price, the
        saving on its on-demand price and the provider's stated risk (the quote's digest binds
        ``spot``, so a yes to it rents spot and nothing else). Refused where the provider or
        the offer has no spot."""
        on_demand = self.quote(plan_id, option)
        provider = self._providers.get(on_demand.provider)
        caps = provider.capabilities
        if not caps.spot:
            why = caps.lacking(["spot"])["spot"]
            raise QuoteError(
                said("error.quote.no_spot", provider=provider.name, why=why),
                hint=said("error.quote.no_spot_hint", plan=plan_id, option=option),
            )
        offer = self._live_offer(on_demand.provider, on_demand.offer_id)
        if offer is None or offer.spot_price_micro is None:
            raise QuoteError(
                said(
                    "error.quote.no_spot_offer",
                    provider=provider.name,
                    offer=on_demand.offer_id,
                ),
                hint=said("error.quote.no_spot_hint", plan=plan_id, option=option),
            )
        saved = self._plans.get(plan_id) or {}
        picked = saved.get("result", {}).get("options", [])[option - 1]
        spot_total = picked.get("spot_cost_micro")
        return self._new_quote(
            provider=on_demand.provider,
            offer_id=on_demand.offer_id,
            gpu=on_demand.gpu,
            nodes=on_demand.nodes,
            gpus_per_node=on_demand.gpus_per_node,
            region=on_demand.region,
            fabric=on_demand.fabric,
            currency=on_demand.currency,
            price=offer.spot_price_micro,
            hours=int(picked["seconds"]) / 3600,
            seconds=int(picked["seconds"]),
            budget=on_demand.budget_micros,
            plan_id=plan_id,
            option=option,
            plan_total=int(spot_total) if spot_total is not None else None,
            horizon_days=on_demand.horizon_days,
            host=on_demand.host,
            community=on_demand.community,
            spot=True,
            on_demand=offer.price_micro,
            spot_rate=offer.spot_preemptions_per_day,
        )

    # --- issue 35 (a35): what the CLI and the agents ask before, or without, a built Engine.
    # Static: functions of the folders and settings (xyclaw.engine.offline), one way in for
    # every face.
    _R, _X, _D = effect(Effect.READ), effect(Effect.EXEC), effect(Effect.DESTROY)
    hosts_file = staticmethod(_R(offline.hosts_file))
    own_hosts = staticmethod(_R(offline.own_hosts))
    read_hosts_file = staticmethod(_R(offline.read_hosts_file))
    own_host_entry = staticmethod(_R(offline.own_host_entry))
    own_hosts_in_use = staticmethod(_R(offline.own_hosts_in_use))
    own_host_name = staticmethod(_R(offline.own_host_name))
    host_address = staticmethod(_R(offline.host_address))
    host_keys = staticmethod(_R(offline.host_keys))
    check_own_host = staticmethod(_X(offline.check_own_host))
    trust_host = staticmethod(_X(offline.trust_host))
    forget_host = staticmethod(_R(offline.forget_host))
    app_public_key = staticmethod(_R(offline.app_public_key))
    guard_status_of = staticmethod(_R(offline.guard_status))
    guard_lock = staticmethod(_R(offline.guard_lock))
    start_guard = staticmethod(_D(offline.start_guard))
    stop_guard = staticmethod(_R(offline.stop_guard))
    guard_unit_path = staticmethod(_R(offline.guard_unit_path))
    guard_command = staticmethod(_R(offline.guard_command))
    check_history = staticmethod(_R(offline.check_history))
    open_store = staticmethod(_R(offline.open_store))
    builtin_gpus = staticmethod(_R(offline.builtin_gpus))
    load_job_spec = staticmethod(_R(offline.load_job_spec))
    load_offers_file = staticmethod(_R(offline.load_offers_file))
    plan_report = staticmethod(_R(offline.plan_report))
    plan_reasons = staticmethod(_R(offline.plan_reasons))
    real_providers = staticmethod(_R(offline.real_providers))
    add_real_providers = staticmethod(_R(offline.add_real_providers))
    sim_cloud_summary = staticmethod(_R(offline.sim_cloud_summary))
    cost_so_far = staticmethod(_R(offline.cost_so_far))
    write_metrics_csv = staticmethod(_R(offline.write_metrics_csv))
    analyze_nccl_log = staticmethod(_R(offline.analyze_nccl_log))
    doctor_checks = staticmethod(_R(offline.doctor_checks))
    doctor_json = staticmethod(_R(offline.doctor_json))
    severity_word = staticmethod(_R(offline.severity_word))
    rule_title = staticmethod(_R(offline.rule_title))
    said_of = staticmethod(_R(offline.said_of))
    conversations = staticmethod(_R(offline.conversations))
    open_checkpoint_connection = staticmethod(_R(offline.open_checkpoint_connection))
    active_job_names = staticmethod(_R(offline.active_job_names))
    del _R, _X, _D

    # -- issue 34, part B (helper b34): "why is it stuck" ----------------------------------
    @effect(Effect.READ)
    def why_stuck(self, ref: str) -> Any:
        """Why a job is stuck (issue 34): every rank of its running attempt is asked for its
        Flight Recorder dump through PyTorch's debug pipe (the job keeps running; nothing
        is stopped, spent or lost), and the dumps name the rank the others wait for, its
        node, the collective, and the action (replace that node and resume from the last
        checkpoint; an approval card when the job's next attempt rents it). A running job
        no live XyClaw process follows is followed from here first; one that another
        process follows, or that ended, gets its last recorded verdict. Returns a
        ``HangAnswer``."""
        import json
        import time

        from xyclaw.jobs.forensics import HangAnswer
        from xyclaw.store.event_log import said_of

        service = self._job_service()
        job = service.jobs.find(str(ref))
        runner = service.runner(job.id) if job.state.active else None
        if runner is None and job.state.active:
            # followed from here if no live XyClaw process follows it (as cancel does)
            runner = service.attach(job.id)
            deadline = time.monotonic() + 30.0
            while runner is not None and runner.alive and not runner.watching:
                if time.monotonic() > deadline:
                    break
                time.sleep(0.2)
        if runner is not None and runner.watching:
            found = runner.why_stuck()
            if found is not None:
                report, verdict, action = found
                return HangAnswer(
                    job=job.name,
                    verdict=verdict,
                    action=action,
                    ranks=report.divergence.culprits if report.blames else (),
                    nodes=report.culprit_nodes if report.blames else (),
                    op=report.divergence.op or None,
                    seq=report.divergence.seq,
                    fresh=True,
                    at=self._clock(),
                )
        for row in self._events.recent(500, job.cluster_id):
            if row.get("job_id") != job.id or row.get("rule") != "job.hang_forensics":
                continue
            data = json.loads(row.get("data_json") or "{}")
            return HangAnswer(
                job=job.name,
                verdict=said_of(row) or str(row["message"]),
                action=data.get("action"),
                ranks=tuple(data.get("culprit_ranks") or ()),
                nodes=tuple(data.get("nodes") or ()),
                op=data.get("op") or None,
                seq=data.get("seq"),
                fresh=False,
                at=float(row["ts"]),
            )
        raise UsageError(
            # the state as the jobs table words it (a35): "succeeded" / "成功"
            said("error.job.why_nothing", name=job.name, state=said(f"cli.word_{job.state.value}")),
            hint=said("error.job.why_nothing_hint"),
        )

    @effect(Effect.READ)
    def launch_additions(self, spec_or_path: Any) -> list[Said]:
        """What XyClaw adds to a job's processes, for its launch card (issue 34): the
        per-rank step timer and PyTorch's Flight Recorder, each named, or said to be off
        where the spec's env turned it off. Reads the spec only."""
        from xyclaw.jobs.environment import launch_additions

        return launch_additions(self._job_spec(spec_or_path))

    @effect(Effect.READ)
    def launch_sends(self, spec_or_path: Any) -> list[Said]:
        """What a job sends to its nodes, for its launch card (issue 31): the secrets it
        takes from this machine named apart from its spec's plain variables. Reads the spec
        only."""
        from xyclaw.jobs.environment import launch_sends

        return launch_sends(self._job_spec(spec_or_path))

    # -- issue 33, helper c33: the site's NCCL settings from a probe run through Slurm -------
    #: Seconds slurm_probe waits for its job (queued and running) before cancelling it.
    _slurm_probe_wait_s: float = 600.0

    def _slurm_probe_file(self) -> Path:
        return self._paths.state_dir / "slurm-probes.json"

    def _slurm_probed_nccl(self, site: str) -> dict[str, str]:
        """The NCCL environment the site's last probe recommended ({} when never probed)."""
        from xyclaw.engine.slurm import kept_probe

        probe = kept_probe(self._slurm_probe_file(), site)
        return probe.settings.env() if probe is not None else {}

    @effect(Effect.READ)
    def slurm_probe_card(
        self, site: str, partition: str | None = None, *, asked_by: str = "user"
    ) -> Action:
        """The approval card for probing a Slurm site's fabric: a short job (a few minutes'
        limit) on two nodes of the partition that runs XyClaw's read-only probe on each
        (changes nothing until a yes)."""
        from xyclaw.engine.slurm import probe_card

        return probe_card(self._slurm(site), partition, Asker(asked_by))

    @effect(Effect.EXEC)
    def slurm_probe(self, site: str, *, approved: Action) -> OperationHandle[SlurmProbe]:
        """Run the approved probe card's job through Slurm (the fabric probe cannot reach a
        lab's compute nodes over SSH), parse each node's output, recommend NCCL settings
        and keep them for the site: every job submitted there afterwards gets them (unless a
        tune applied to one of its allocations says otherwise). Refused, submitting nothing,
        when the card is for another site or no longer matches."""
        from xyclaw.engine.slurm import keep_probe, probe_approved

        if approved.operation != "slurm_probe" or approved.ref != site:
            raise ApprovalMismatch(
                said("error.approval.changed"), hint=said("error.approval.ask_again_hint")
            )
        jobs = self._slurm(site)

        def work(progress: Progress) -> SlurmProbe:
            probe = probe_approved(
                jobs, approved, progress, wait_s=self._slurm_probe_wait_s, clock=self._clock
            )
            keep_probe(self._slurm_probe_file(), probe)
            self._bus.publish(
                Notice(
                    severity="info",
                    kind="slurm_probe",
                    message=f"{site}: {len(probe.settings)} NCCL setting(s) from the probe of "
                    f"{', '.join(probe.nodes)} (job {probe.job_id})",
                )
            )
            return probe

        return self._start(said("op.slurm_probe.title", site=site), work)


def _display_to_micros(value: Any) -> int | None:
    """A saved display amount (``"500.00"``) back to micro-units; None when there is none."""
    if value in (None, 0, ""):
        return None
    try:
        return round(float(value) * 1_000_000)
    except (TypeError, ValueError):
        return None


# -- bound approvals: what an Action names --------------------------------------------------
def _cluster_target(cluster: ClusterRecord) -> Target:
    return Target("cluster", cluster.id, cluster.name)


def _node_targets(cluster: ClusterRecord) -> list[Target]:
    return [
        Target("node", n.id, f"{cluster.name}-{n.rank}", within=cluster.id)
        for n in cluster.running_nodes
    ]


def _job_target(job: JobRecord) -> Target:
    return Target("job", job.id, job.name, within=job.cluster_id)


def _quote_body(quote: RentQuote) -> dict[str, Any]:
    return dataclasses.asdict(quote)


def _quote_price(quote: RentQuote) -> dict[str, Any]:
    return {
        "currency": quote.currency,
        "per_gpu_hour_micros": quote.price_per_gpu_hour_micros,
        "per_hour_micros": quote.price_per_hour_micros,
        "estimated_total_micros": quote.estimated_total_micros,
        "budget_micros": quote.budget_micros,
    }


def _file_digest(ref: str) -> str | None:
    """The SHA-256 of a spec file's bytes (None for a bundled sample's name): an edited spec
    is not the one approved."""
    import hashlib
    from pathlib import Path

    path = Path(ref).expanduser()
    if not path.is_file():
        return None
    return hashlib.sha256(path.read_bytes()).hexdigest()
