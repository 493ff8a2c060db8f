"""What to do about an open alert or a budget warning, as tool calls behind the approvals.

The monitor's heartbeat and the ``alerts`` tool both ask here, so a message in the
Monitor conversation, a ``xyclaw ask "alerts"`` reply and an LLM reading the tool's
result propose the same thing. Each suggestion is a :class:`SuggestedAction` (a catalogue
tool and its arguments); the first one that is not a read is *the* proposal, which the
heartbeat and the rules brain put before the user as an approval card. Nothing here runs
a tool: a gated tool still stops at its approval, and with nobody to ask the answer is no.

- a lost node (unreachable, a GPU gone, an uncorrectable ECC error, an NCCL timeout):
  when a job's recovery waits for a replacement of it, ``approve_replacement`` (rent the
  quoted node, the job resumes from its checkpoint); otherwise ``release_cluster`` (stop
  paying for a cluster that cannot run the job);
- an idle cluster (GPUs idle during a job): ``release_cluster``;
- GPUs busy without working during a job (``gpu.underused``, issue 34): ``cancel_job``
  of the job running there (stop paying for a spin), then ``release_cluster``;
- a budget warning: ``set_budget`` with half as much again (edit the card to pick
  another amount), or ``release_cluster`` to stop paying.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Collection
from typing import Any

from xyclaw.agent.types import Effect, SuggestedAction
from xyclaw.errors import XyclawError
from xyclaw.wording import text_in

log = logging.getLogger(__name__)

#: Alerts after which a node is no use until replaced (or the cluster released).
LOST_NODE = frozenset(
    {"node.unreachable", "gpu.missing", "gpu.ecc_uncorrectable", "job.nccl_timeout"}
)
IDLE = frozenset({"gpu.idle_during_job"})
#: GPUs that spin without working while a job runs (issue 34): stop the job.
UNDERUSED = frozenset({"gpu.underused"})
BUDGET = "budget"
#: The proposed budget is this times the current one (the user may edit it on the card).
BUDGET_RAISE = 1.5


def suggest(
    engine: Any,
    rule: str,
    cluster: str,
    *,
    tools: Collection[str],
    language: str = "en",
    node: str | None = None,
) -> list[SuggestedAction]:
    """The actions for an open ``rule`` on ``cluster`` (its name), read first, the proposal
    next, then the alternatives; only tools in ``tools`` (the catalogue this engine serves)."""
    found: list[SuggestedAction] = []
    if "cluster_health" in tools:
        found.append(
            SuggestedAction(
                text_in(language, "agent.suggest.check_the_health_of", cluster=cluster),
                "cluster_health",
                {"cluster": cluster},
                Effect.READ,
            )
        )
    if rule in LOST_NODE:
        ask = _replacement_ask(engine, cluster) if "approve_replacement" in tools else None
        if ask is not None:
            lost = ", ".join(ask.nodes) or node or "?"
            found.append(
                SuggestedAction(
                    text_in(
                        language, "agent.suggest.replace_and_resume_job", lost=lost, job=ask.job
                    ),
                    "approve_replacement",
                    {"job": str(ask.job_id), "digest": ask.quote.digest},
                    Effect.SPEND,
                )
            )
        found.append(
            _release(
                cluster,
                text_in(language, "agent.suggest.release_then_rent_a", cluster=cluster),
            )
        )
    elif rule in IDLE:
        found.append(
            _release(
                cluster,
                text_in(language, "agent.suggest.release_the_idle_cluster", cluster=cluster),
            )
        )
    elif rule in UNDERUSED:
        job = _running_job(engine, cluster)
        if job is not None:
            found.append(
                SuggestedAction(
                    text_in(language, "agent.suggest.stop_job_its_gpus", name=job.name),
                    "cancel_job",
                    {"job": str(job.id)},
                    Effect.DESTROY,
                )
            )
        found.append(
            _release(
                cluster,
                text_in(language, "agent.suggest.release_stop_paying", cluster=cluster),
            )
        )
    elif rule == BUDGET:
        raised = _raised_budget(engine, cluster) if "set_budget" in tools else None
        if raised is not None:
            amount, currency = raised
            found.append(
                SuggestedAction(
                    text_in(
                        language,
                        "agent.suggest.raise_the_budget_of",
                        cluster=cluster,
                        amount=amount,
                        currency=currency,
                    ),
                    "set_budget",
                    {"cluster": cluster, "budget": amount},
                    Effect.SPEND,
                )
            )
        found.append(
            _release(
                cluster,
                text_in(language, "agent.suggest.release_stop_paying", cluster=cluster),
            )
        )
    return [a for a in found if a.tool in tools]


def proposal(actions: list[SuggestedAction]) -> SuggestedAction | None:
    """The action to put before the user as an approval card: the first that is not a read."""
    return next((a for a in actions if a.effect is not Effect.READ), None)


def _release(cluster: str, label: str) -> SuggestedAction:
    return SuggestedAction(label, "release_cluster", {"cluster": cluster}, Effect.DESTROY)


def _replacement_ask(engine: Any, cluster: str) -> Any:
    asks = getattr(engine, "replacement_asks", None)
    if not callable(asks):
        return None
    try:
        pending = list(asks())
    except XyclawError as exc:
        log.info("replacement asks unreadable: %s", exc.message)
        return None
    return next((a for a in pending if a.cluster == cluster), None)


def _running_job(engine: Any, cluster: str) -> Any:
    """The oldest job still running on ``cluster`` (by name), if the engine says."""
    jobs = getattr(engine, "jobs", None)
    if not callable(jobs):
        return None
    try:
        active = list(jobs())
    except XyclawError as exc:
        log.info("jobs unreadable: %s", exc.message)
        return None
    return next((j for j in active if j.cluster == cluster and not j.state.finished), None)


def _raised_budget(engine: Any, cluster: str) -> tuple[float, str] | None:
    """Half as much again as the cluster's budget (or than what it spent, without one), in
    whole units of its currency."""
    try:
        record = engine.cluster(cluster)
    except XyclawError as exc:
        log.info("no budget to raise for %s: %s", cluster, exc.message)
        return None
    budget = getattr(record, "budget_micros", None)
    base = budget
    if not base:
        meter = getattr(engine, "meter_charges", None)
        try:
            base = int(meter(record.id)) if callable(meter) else 0
        except XyclawError:
            base = 0
    if not base:
        return None
    return float(math.ceil(base * BUDGET_RAISE / 1_000_000)), str(record.currency)
