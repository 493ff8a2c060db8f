"""GPUs busy without working (issue 34's gpu.underused): the monitor warns, then asks to
stop the job running there; with no job, to release the cluster. Nothing runs unasked."""

from __future__ import annotations

from dataclasses import dataclass

from tests.agent.conftest import MakeRuntime, World, raise_alert
from tests.agent.test_approvals import live, rent
from xyclaw.agent.heartbeat import Heartbeat
from xyclaw.agent.suggestions import proposal, suggest
from xyclaw.agent.types import Effect
from xyclaw.records.jobs import JobState

TOOLS = {"cluster_health", "cancel_job", "release_cluster"}


@dataclass
class _Job:
    id: int
    name: str
    cluster: str
    state: JobState


class _Jobs:
    """An engine that answers only ``jobs()``: what the suggestion reads."""

    def __init__(self, *jobs: _Job) -> None:
        self._jobs = list(jobs)

    def jobs(self) -> list[_Job]:
        return self._jobs


def test_the_proposal_is_to_stop_the_job_running_on_that_cluster() -> None:
    engine = _Jobs(
        _Job(1, "old", "c1", JobState.SUCCEEDED),
        _Job(2, "other", "c2", JobState.RUNNING),
        _Job(3, "spin", "c1", JobState.RUNNING),
    )
    actions = suggest(engine, "gpu.underused", "c1", tools=TOOLS)
    assert [a.tool for a in actions] == ["cluster_health", "cancel_job", "release_cluster"]
    card = proposal(actions)
    assert card is not None and card.tool == "cancel_job" and card.effect is Effect.DESTROY
    assert card.args == {"job": "3"} and "Stop job spin" in card.label
    zh = proposal(suggest(engine, "gpu.underused", "c1", tools=TOOLS, language="zh"))
    assert zh is not None and "停止任务 spin" in zh.label
    alone = proposal(suggest(_Jobs(), "gpu.underused", "c1", tools=TOOLS))
    assert alone is not None and alone.tool == "release_cluster"


def test_the_heartbeat_puts_it_before_the_user_and_runs_nothing(
    world: World, make_runtime: MakeRuntime
) -> None:
    cluster = rent(world)
    rt = make_runtime()
    raise_alert(
        rt.store,
        cluster.id,
        "gpu.underused",
        node_id=cluster.nodes[0].id,
        message="node 0: GPU 1 shows 100% utilization but draws 61 W of its 400 W",
        severity="warning",
    )
    [posted] = Heartbeat(rt).check_once()
    assert posted.proposed is not None
    card = posted.proposed.pending_approval
    assert card is not None and card.effect == "destroy"  # no job here: release the cluster
    assert live(world) == [cluster.name]  # nothing happened on its own
