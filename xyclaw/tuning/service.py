"""Network tuning of a cluster: probe, set, measure, try the recommended settings, keep the better.

``TuningService`` is what the Engine exposes as ``engine.tuning``. Every step
is stored: the fabric report, each nccl-tests run, and each version of the
cluster's NCCL environment with a reason per variable; ``environment_for``
is what jobs on the cluster get.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Protocol

from xyclaw.catalog import Catalog
from xyclaw.errors import RemoteError, UsageError, XyclawError
from xyclaw.store import Store
from xyclaw.tuning.expect import Expectation, expect, gpu_model
from xyclaw.tuning.fabric import FabricReport, NodeFabric
from xyclaw.tuning.probe import missing_tools_said, parse_node_probe, probe_script, summarize
from xyclaw.tuning.records import (
    KEPT,
    RECOMMENDED,
    TUNED,
    USER,
    StoredSettings,
    TuningRecords,
)
from xyclaw.tuning.runner import MeasuredRun, MeasureSettings, NcclTestRunner
from xyclaw.tuning.settings import NcclSettings, recommend
from xyclaw.tuning.verdict import (
    FAILED,
    HEALTHY,
    LOW,
    LOW_ENOUGH_TO_STOP,
    UNKNOWN,
    UNSTABLE,
    Cause,
    Verdict,
    judge,
)
from xyclaw.wording import Said, said
from xyclaw.wording.catalogue import CATALOGUE

if TYPE_CHECKING:
    from xyclaw.records import ClusterRecord, ClusterStore, NodeRecord
    from xyclaw.remote.node_access import NodeAccess
    from xyclaw.store.event_log import EventLog

log = logging.getLogger(__name__)

# A new configuration must beat the old one by this much to replace it on bandwidth alone.
BETTER_BY = 1.03
_STATUS_RANK = {HEALTHY: 4, UNSTABLE: 3, UNKNOWN: 2, LOW: 1, FAILED: 0}


class TuningError(XyclawError):
    """The cluster cannot be measured as it is (no nccl-tests, no MPI, no node answers)."""


class ProgressSink(Protocol):
    """What the Engine's operation Progress offers (and a quiet stand-in for direct calls)."""

    def update(self, message: str | Said, fraction: float | None = None) -> None: ...

    def check_cancelled(self) -> None: ...


class _Quiet:
    def update(self, message: str | Said, fraction: float | None = None) -> None:
        log.debug("tuning: %s", message)

    def check_cancelled(self) -> None:
        return None


@dataclass(frozen=True)
class Measurement:
    """Repeated runs of one NCCL environment and the verdict on them."""

    label: str
    env: dict[str, str]  # what we passed (the image's variables come on top of nothing)
    effective_env: dict[str, str]  # the image's NCCL variables overlaid with ``env``
    runs: tuple[MeasuredRun, ...]
    verdict: Verdict

    def to_json(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "env": self.env,
            "effective_env": self.effective_env,
            "verdict": self.verdict.to_json(),
            "runs": [
                {
                    "command": r.command,
                    "exit_code": r.exit_code,
                    "error": r.error,
                    "peak_busbw_gbs": r.run.peak_busbw if r.run else None,
                    "avg_busbw_gbs": r.run.avg_busbw if r.run else None,
                    "transport": r.run.net.transport if r.run else None,
                    "duration_s": round(r.duration_s, 2),
                }
                for r in self.runs
            ],
        }


@dataclass(frozen=True)
class Change:
    name: str
    old: str | None
    new: str | None
    reason: str
    reason_said: Said | None = field(default=None, compare=False)  # the reason's wording

    def to_json(self) -> dict[str, str | None]:
        return {"name": self.name, "old": self.old, "new": self.new, "reason": self.reason}

    def describe(self) -> str:
        return self.describe_said().english

    def describe_said(self) -> Said:
        reason = self.reason_said or self.reason
        if self.new is None:
            return said("op.tune.change_removed", name=self.name, old=self.old, reason=reason)
        was = f"{self.old} -> " if self.old is not None else ""
        return said("op.tune.change_set", name=self.name, was=was, new=self.new, reason=reason)


@dataclass(frozen=True)
class TuneResult:
    cluster_id: int
    cluster_name: str
    report: FabricReport
    expectation: Expectation | None
    recommended: NcclSettings
    baseline: Measurement
    candidate: Measurement | None
    kept: str  # "current" or "recommended"
    decision: str
    changes: tuple[Change, ...]
    environment: dict[str, str]
    settings_id: int
    decision_said: Said | None = None  # the decision's key and figures (``decision``: English)

    @property
    def final(self) -> Measurement:
        return self.candidate if self.kept == "recommended" and self.candidate else self.baseline

    @property
    def verdict(self) -> Verdict:
        return self.final.verdict

    def to_json(self) -> dict[str, Any]:
        return {
            "cluster_id": self.cluster_id,
            "cluster": self.cluster_name,
            "fabric": self.report.fabric,
            "report": self.report.summary.to_json(),
            "expected": self.expectation.to_json() if self.expectation else None,
            "recommended": self.recommended.to_json(),
            "baseline": self.baseline.to_json(),
            "candidate": self.candidate.to_json() if self.candidate else None,
            "kept": self.kept,
            "decision": self.decision,
            "decision_said": None if self.decision_said is None else self.decision_said.to_json(),
            "changes": [c.to_json() for c in self.changes],
            "environment": self.environment,
            "verdict": self.verdict.to_json(),
            "settings_id": self.settings_id,
        }


def _better(new: Verdict, old: Verdict) -> bool:
    rank_new, rank_old = _STATUS_RANK.get(new.status, 0), _STATUS_RANK.get(old.status, 0)
    if rank_new != rank_old:
        return rank_new > rank_old
    if new.peak_busbw is None:
        return False
    if old.peak_busbw is None:
        return True
    return new.peak_busbw > old.peak_busbw * BETTER_BY


def _changes(
    before: Mapping[str, str], after: Mapping[str, str], settings: NcclSettings, why_dropped: Said
) -> tuple[Change, ...]:
    out = []
    for name in sorted(set(before) | set(after)):
        old, new = before.get(name), after.get(name)
        if old == new:
            continue
        setting = settings.get(name)
        if setting is not None and new is not None:
            out.append(Change(name, old, new, setting.reason, setting.reason_said))
        else:
            out.append(Change(name, old, new, str(why_dropped), why_dropped))
    return tuple(out)


class TuningService:
    def __init__(
        self,
        *,
        store: Store,
        clusters: ClusterStore,
        access: NodeAccess,
        events: EventLog | None = None,
        catalog: Catalog | None = None,
        measure: MeasureSettings | None = None,
        clock: Callable[[], float] = time.time,
        probe_timeout_s: float = 120.0,
    ) -> None:
        self.clusters = clusters
        self.access = access
        self.events = events
        self._catalog = catalog
        self.measure_settings = measure or MeasureSettings()
        self.clock = clock
        self.probe_timeout_s = probe_timeout_s
        self.records = TuningRecords(store, clock)
        self.runner = NcclTestRunner(access)

    @property
    def catalog(self) -> Catalog:
        if self._catalog is None:
            self._catalog = Catalog.builtin()
        return self._catalog

    # -- clusters ------------------------------------------------------------------------------
    def _cluster(self, ref: int | str | ClusterRecord) -> tuple[ClusterRecord, list[NodeRecord]]:
        if isinstance(ref, int):
            cluster = self.clusters.get(ref)
        elif isinstance(ref, str):
            cluster = self.clusters.find(ref)
        else:
            cluster = ref
        nodes = sorted((n for n in cluster.nodes if n.state == "running"), key=lambda n: n.rank)
        if not cluster.live or not nodes:
            state = f"op.cstate.{cluster.state}"
            raise UsageError(
                said(
                    "op.tune.no_nodes",
                    cluster=cluster.name,
                    state=Said(state) if state in CATALOGUE else cluster.state,
                ),
                hint=said("op.tune.no_nodes.fix"),
            )
        return cluster, nodes

    # -- probe and settings --------------------------------------------------------------------
    def probe(
        self, ref: int | str | ClusterRecord, progress: ProgressSink | None = None
    ) -> FabricReport:
        """Probe every running node over SSH; the report is stored and returned."""
        p = progress or _Quiet()
        cluster, nodes = self._cluster(ref)
        p.update(said("op.tune.probing", count=len(nodes), cluster=cluster.name), 0.02)
        results = self.access.run_all(cluster, nodes, probe_script(), timeout=self.probe_timeout_s)
        found: list[NodeFabric] = []
        for node in nodes:
            result = results.get(node.name)
            if isinstance(result, RemoteError) or result is None:
                error = (result.said or result.message) if result is not None else None
                error = error or said("op.tune.no_answer")
                found.append(
                    NodeFabric(
                        name=node.name,
                        hostname=node.hostname,
                        error=str(error),
                        error_said=error if isinstance(error, Said) else None,
                    )
                )
                p.update(said("op.tune.unreachable", node=node.name, error=error))
                continue
            fabric = parse_node_probe(node.name, result.stdout)
            found.append(fabric)
        summary = summarize(found, cluster.fabric)
        report = FabricReport(
            cluster_id=cluster.id,
            cluster_name=cluster.name,
            fabric=cluster.fabric,
            gpu=cluster.gpu,
            probed_at=self.clock(),
            nodes=tuple(found),
            summary=summary,
        )
        report_id = self.records.add_report(report)
        report = replace(report, id=report_id)
        s = summary
        nics = (
            said(
                "op.tune.hcas",
                count=len(s.hcas),
                transport=s.transport.upper(),
                rate=s.nic_rate_gbps or "?",
            )
            if s.hcas
            else said("op.tune.no_rdma")
        )
        p.update(
            said(
                "op.tune.fabric",
                nics=nics,
                gpus=s.gpus_per_node,
                nvlink=said("op.tune.nvlink", count=s.nvlinks) if s.nvlinks else "",
                gid=(
                    said("op.tune.gid", index=s.roce_gid_index)
                    if s.roce_gid_index is not None
                    else ""
                ),
            ),
            0.12,
        )
        for finding in s.worded_findings():
            p.update(said("op.tune.finding", finding=finding))
        return report

    def latest_report(self, cluster_id: int) -> FabricReport | None:
        return self.records.latest_report(cluster_id)

    def recommend(
        self, ref: int | str | ClusterRecord, progress: ProgressSink | None = None
    ) -> StoredSettings:
        """Probe, derive the NCCL settings and store them as recommended (not yet applied)."""
        report = self.probe(ref, progress)
        settings = recommend(report)
        new_id = self.records.add_settings(
            report.cluster_id,
            settings,
            source=RECOMMENDED,
            applied=False,
            report_id=report.id,
            summary="from the fabric probe, not measured",
        )
        stored = self.records.settings(new_id)
        assert stored is not None
        return stored

    def settings_for(self, cluster_id: int) -> StoredSettings | None:
        """The settings jobs get: the last applied, else the last recommended, else None."""
        return self.records.applied_settings(cluster_id) or self.records.latest_settings(cluster_id)

    def environment_for(self, cluster_id: int) -> dict[str, str]:
        """The NCCL environment for jobs launched on this cluster ({} before any probe)."""
        stored = self.settings_for(cluster_id)
        return stored.env() if stored is not None else {}

    def apply(self, cluster_id: int, env: Mapping[str, str], reason: str) -> StoredSettings:
        """Set a cluster's job environment by hand (each variable gets ``reason``)."""
        for name in env:
            if not name.startswith("NCCL_"):
                raise UsageError(
                    said("op.tune.not_nccl", name=name), hint=said("op.tune.not_nccl.fix")
                )
        self.clusters.get(cluster_id)
        new_id = self.records.add_settings(
            cluster_id,
            NcclSettings.from_env(env, reason),
            source=USER,
            applied=True,
            summary="set by hand",
        )
        stored = self.records.settings(new_id)
        assert stored is not None
        return stored

    def runs(self, cluster_id: int, limit: int = 50) -> list[dict[str, Any]]:
        return self.records.runs(cluster_id, limit)

    def expectation(self, report: FabricReport, cluster: ClusterRecord) -> Expectation | None:
        s = report.summary
        up = [n for n in report.nodes if n.reachable]
        model = gpu_model(cluster.gpu, self.catalog) or gpu_model(s.gpu_name, self.catalog)
        return expect(
            nodes=len(up),
            gpus_per_node=s.gpus_per_node or cluster.gpus_per_node,
            gpu=model,
            fabric=cluster.fabric,
            nic_count=s.nic_count or None,
            nic_rate_gbps=s.nic_rate_gbps,
            socket_speed_mbps=s.socket_speed_mbps,
        )

    # -- measuring -----------------------------------------------------------------------------
    def _measure(
        self,
        cluster: ClusterRecord,
        nodes: Sequence[NodeRecord],
        report: FabricReport,
        env: Mapping[str, str],
        expectation: Expectation | None,
        *,
        phase: str,
        label: str,
        progress: ProgressSink,
        span: tuple[float, float],
    ) -> Measurement:
        known = f"op.tune.label.{label}"
        label_said: Said | str = Said(known) if known in CATALOGUE else label
        reachable = {n.name for n in report.nodes if n.reachable}
        probed = {n.name: n for n in report.nodes}
        used = [n for n in nodes if n.name in reachable]
        if not used:
            raise RemoteError(
                said("op.tune.no_probe_answer", cluster=cluster.name),
                host=cluster.name,
                hint=said("op.tune.no_probe_answer.fix"),
            )
        self._require_tools(report, used)
        hosts = [probed[n.name].hostname or n.hostname or n.name for n in used]
        gpus = report.summary.gpus_per_node or cluster.gpus_per_node
        settings = self.measure_settings
        effective = {**report.nccl_env, **env}
        runs: list[MeasuredRun] = []
        lo, hi = span
        for i in range(settings.repeats):
            progress.check_cancelled()
            progress.update(
                said(
                    "op.tune.run",
                    label=label_said,
                    nodes=len(hosts),
                    gpus=gpus,
                    n=i + 1,
                    total=settings.repeats,
                ),
                lo + (hi - lo) * i / settings.repeats,
            )
            measured = self.runner.run(cluster, used[0], hosts, gpus, env, settings)
            runs.append(measured)
            self.records.add_run(
                cluster.id,
                report_id=report.id,
                phase=phase,
                command=measured.command,
                env=env,
                exit_code=measured.exit_code,
                error=measured.error,
                run=measured.run,
                duration_s=measured.duration_s,
            )
            if not measured.ok:
                error = measured.error_said or measured.error
                progress.update(said("op.tune.test_failed", label=label_said, error=error))
                break
            assert measured.run is not None
            peak = measured.run.peak_busbw or 0.0
            quick = judge([measured.run], expectation, env=effective, report=report)
            transport = measured.run.net.transport
            progress.update(
                said(
                    "op.tune.peak_run",
                    label=label_said,
                    peak=f"{peak:.1f}",
                    ratio=(
                        said("op.tune.ratio", ratio=f"{quick.ratio:.0%}")
                        if quick.ratio is not None
                        else ""
                    ),
                    transport=(
                        said("op.tune.over", transport=_transport(transport)) if transport else ""
                    ),
                )
            )
            far_below = quick.ratio is not None and quick.ratio < LOW_ENOUGH_TO_STOP
            if (far_below or "socket_fallback" in quick.cause_codes) and i + 1 < settings.repeats:
                progress.update(said("op.tune.far_below", label=label_said))
                break
        parsed = [r.run for r in runs if r.ok and r.run is not None]
        if parsed:
            verdict = judge(parsed, expectation, env=effective, report=report)
        else:
            failure: Said | str | None = (
                (runs[-1].error_said or runs[-1].error) if runs else said("op.nccltest.no_run")
            )
            verdict = Verdict(
                FAILED,
                None,
                None,
                expectation,
                None,
                None,
                None,
                len(runs),
                (
                    Cause.of(
                        "test_failed",
                        said("op.cause.test_failed"),
                        failure or "",
                        said("op.cause.test_failed.fix"),
                    ),
                ),
            )
        progress.update(
            said("op.tune.verdict", label=label_said, headline=verdict.headline_said()), hi
        )
        for cause in verdict.causes:
            progress.update(
                said(
                    "op.tune.cause",
                    label=label_said,
                    title=cause.title_said or cause.title,
                    detail=cause.detail_said or cause.detail,
                )
            )
        return Measurement(label, dict(env), effective, tuple(runs), verdict)

    def _require_tools(self, report: FabricReport, used: Sequence[NodeRecord]) -> None:
        head = next(n for n in report.nodes if n.name == used[0].name)
        problem = missing_tools_said(
            head, multi_node=len(used) > 1, binary=self.measure_settings.binary
        )
        if problem is not None:
            message, hint = problem
            raise TuningError(message, hint=hint)

    def check(
        self, ref: int | str | ClusterRecord, progress: ProgressSink | None = None
    ) -> Measurement:
        """Measure the cluster with the environment its jobs get now (no change)."""
        p = progress or _Quiet()
        cluster, nodes = self._cluster(ref)
        report = self.probe(cluster, p)
        return self._measure(
            cluster,
            nodes,
            report,
            self.environment_for(cluster.id),
            self.expectation(report, cluster),
            phase="check",
            label="check",
            progress=p,
            span=(0.15, 0.95),
        )

    # -- tune ------------------------------------------------------------------------------------
    def tune(
        self, ref: int | str | ClusterRecord, progress: ProgressSink | None = None
    ) -> TuneResult:
        """Probe, set, measure as it is, try the recommended settings, keep the better, report."""
        p = progress or _Quiet()
        cluster, nodes = self._cluster(ref)
        report = self.probe(cluster, p)
        recommended = recommend(report)
        self.records.add_settings(
            cluster.id,
            recommended,
            source=RECOMMENDED,
            applied=False,
            report_id=report.id,
            summary="from the fabric probe, not measured",
        )
        settings = ", ".join(f"{s.name}={s.value}" for s in recommended.settings)
        p.update(said("op.tune.recommended", settings=settings), 0.14)
        expectation = self.expectation(report, cluster)
        if expectation is not None:
            p.update(said("op.tune.expected", basis=expectation.basis_said or expectation.basis))
        current = self.records.applied_settings(cluster.id)
        current_env = current.env() if current is not None else {}
        label = "as it is" if current is None else "current settings"
        baseline = self._measure(
            cluster,
            nodes,
            report,
            current_env,
            expectation,
            phase="baseline",
            label=label,
            progress=p,
            span=(0.15, 0.55),
        )
        candidate: Measurement | None = None
        recommended_env = recommended.env()
        if baseline.verdict.healthy:
            kept = "current"
            decided = said("op.tune.left", headline=baseline.verdict.headline_said())
        elif recommended_env == current_env:
            kept = "current"
            decided = said("op.tune.already", headline=baseline.verdict.headline_said())
        else:
            p.update(said("op.tune.trying"), 0.56)
            candidate = self._measure(
                cluster,
                nodes,
                report,
                recommended_env,
                expectation,
                phase="recommended",
                label="recommended",
                progress=p,
                span=(0.56, 0.95),
            )
            if _better(candidate.verdict, baseline.verdict):
                kept = "recommended"
                decided = said(
                    "op.tune.kept_recommended",
                    headline=candidate.verdict.headline_said(),
                    before=baseline.verdict.headline_said(),
                )
            else:
                kept = "current"
                decided = said(
                    "op.tune.kept_current",
                    headline=candidate.verdict.headline_said(),
                    before=baseline.verdict.headline_said(),
                )
        decision = decided.english
        final = candidate if kept == "recommended" and candidate is not None else baseline
        if kept == "recommended":
            stored_settings = recommended
            source = TUNED
            changes = _changes(
                baseline.effective_env,
                final.effective_env,
                recommended,
                said("op.nccl.not_recommended"),
            )
        else:
            stored_settings = current.settings if current is not None else NcclSettings()
            source = KEPT
            changes = ()
        settings_id = self.records.add_settings(
            cluster.id,
            stored_settings,
            source=source,
            applied=True,
            report_id=report.id,
            summary=decision,
            verdict=final.verdict.to_json(),
        )
        p.update(decided, 0.98)
        for change in changes:
            p.update(said("op.tune.changed", change=change.describe_said()))
        if self.events is not None:
            self.events.record(
                "tuning",
                "info" if final.verdict.healthy else "warning",
                said("op.tune.decided", cluster=cluster.name, decision=decided),
                cluster_id=cluster.id,
                data={"kept": kept, "changes": [c.to_json() for c in changes]},
            )
        return TuneResult(
            cluster_id=cluster.id,
            cluster_name=cluster.name,
            report=report,
            expectation=expectation,
            recommended=recommended,
            baseline=baseline,
            candidate=candidate,
            kept=kept,
            decision=decision,
            decision_said=decided,
            changes=changes,
            environment=stored_settings.env(),
            settings_id=settings_id,
        )


def _transport(name: str) -> Said | str:
    """NCCL's transport worded where it is a word (socket, mixed); ib, roce, ofi are names."""
    key = f"op.tune.transport.{name}"
    return Said(key) if key in CATALOGUE else name
