"""A node lost for good mid-job: the recovery needs a new node, which costs money. Unless
the spec allows that spend, the replacement's quote waits for the user's yes (the same
quote-then-approval path as any rental): nothing is rented before it, a yes must name
the quote it saw, and a no rents nothing and the job ends with the node lost."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from tests.jobs_runtime.conftest import FAST
from tests.jobs_runtime.helpers import finished, wait_for, write_spec
from tests.lifecycle.conftest import MakeWorld, World
from xyclaw.engine.quotes import QuoteError
from xyclaw.events import ReplacementAsked
from xyclaw.jobs.errors import LaunchNeedsApproval
from xyclaw.records.jobs import JobRecord, JobState
from xyclaw.store.event_log import said_of

SPEC = """name: {name}
resources: {{gpu: A800, nodes: 1, gpus_per_node: 8, provider: sim}}
recovery: {{max_restarts: 1, on: [node_lost]{allow}}}
release_when_done: false
run: |
  echo "attempt $XYCLAW_ATTEMPT on $(hostname)"
  if [ "$XYCLAW_ATTEMPT" = 1 ]; then sleep 600; fi
"""


def running_job(world: World, tmp_path: Path, name: str, allow: str = "") -> JobRecord:
    spec = write_spec(tmp_path / name, SPEC.format(name=name, allow=allow))
    with pytest.raises(LaunchNeedsApproval) as asked:
        world.engine.launch(spec)
    job = world.engine.launch(spec, quote=asked.value.quote).result(120)
    wait_for(
        "attempt 1 prints",
        lambda: any("attempt 1" in ln.text for ln in world.engine.job_logs(str(job.id))),
    )
    return job


def lose_node(world: World, job: JobRecord) -> None:
    """The job's only node dies and stays down past the reconnect window."""
    cluster = world.engine.cluster(str(job.cluster_id))
    (node,) = cluster.running_nodes
    world.server.cloud.node_fault(node.external_id, {"fault": "node_down"})
    wait_for("lost contact", lambda: world.engine.job(str(job.id)).state is JobState.LOST_CONTACT)
    world.clock.advance(FAST.reconnect_window_s + 1)  # the window passes: the node is lost


def test_a_replacement_is_rented_only_after_a_yes_to_its_quote(
    make_world: MakeWorld, tmp_path: Path
) -> None:
    world = make_world(job_options=FAST)
    asked: list[ReplacementAsked] = []
    heard = threading.Event()
    world.engine.subscribe(ReplacementAsked, lambda e: (asked.append(e), heard.set()))
    job = running_job(world, tmp_path, "asks")

    lose_node(world, job)

    assert heard.wait(60), "no ask for a replacement"
    (ask,) = world.engine.replacement_asks()
    assert ask.job_id == job.id and asked[0].digest == ask.quote.digest
    assert ask.quote.provider == "sim" and ask.quote.gpu_count == 8
    assert "is lost; a replacement rents 8 x A800" in ask.describe()
    assert world.engine.job(str(job.id)).state is JobState.RECOVERING
    assert len(world.provider.clusters()) == 1  # nothing rented while it waits
    with pytest.raises(QuoteError):
        world.engine.approve_replacement(str(job.id), "0" * 64)  # not the quote shown
    assert world.engine.replacement_asks() == [ask]  # still waiting

    world.engine.approve_replacement(str(job.id), ask.quote.digest)

    done = finished(world.engine, job.id, timeout=120)
    assert done.state is JobState.SUCCEEDED, done.error
    first, second = done.attempts
    assert first.cause == "node_lost" and second.exit_code == 0
    assert len(world.provider.clusters()) == 2  # the replacement, as quoted
    lines = [ln.text for ln in world.engine.job_logs(str(job.id), attempt=2)]
    assert lines and lines[0].startswith("attempt 2 on ")
    assert world.engine.replacement_asks() == []


def test_a_no_rents_nothing_and_the_job_ends_with_its_node_lost(
    make_world: MakeWorld, tmp_path: Path
) -> None:
    world = make_world(job_options=FAST)
    job = running_job(world, tmp_path, "declined")

    lose_node(world, job)
    wait_for("the ask", lambda: world.engine.replacement_asks(), timeout=60)
    world.engine.decline_replacement(str(job.id))

    def ended() -> JobRecord | None:
        world.clock.advance(1.0)  # time passes and the node does not come back
        current = world.engine.job(str(job.id))
        return current if current.state.finished else None

    done = wait_for("the job ends", ended, timeout=120)
    assert done.state is JobState.FAILED
    assert done.attempts[-1].cause == "node_lost"
    assert len(world.provider.clusters()) == 1
    events = [e["message"] for e in world.engine.recent_events(50)]
    assert any("no replacement rented" in m and "you declined it" in m for m in events)
    # and in Chinese, from the key and figures stored beside them (the ask names the quote)
    worded = [said_of(e) for e in world.engine.recent_events(50) if e.get("job_id") == job.id]
    chinese = [w.in_language("zh") for w in worded if w is not None]
    assert any("没有为" in t and "租用替换节点（你拒绝了）" in t for t in chinese), chinese
    assert any("等待你的批准" in t and "每卡时" in t and "按秒计费" in t for t in chinese), chinese


def test_a_spec_that_allows_the_spend_rents_the_replacement_without_asking(
    make_world: MakeWorld, tmp_path: Path
) -> None:
    world = make_world(job_options=FAST)
    job = running_job(world, tmp_path, "allowed", allow=", allow_spend: true")

    lose_node(world, job)

    done = finished(world.engine, job.id, timeout=120)
    assert done.state is JobState.SUCCEEDED, done.error
    assert len(world.provider.clusters()) == 2
    events = [e["message"] for e in world.engine.recent_events(50)]
    assert any("renting a replacement" in m and "recovery.allow_spend" in m for m in events)
    worded = [said_of(e) for e in world.engine.recent_events(50) if e.get("job_id") == job.id]
    chinese = [w.in_language("zh") for w in worded if w is not None]
    assert any("租用替换节点" in t and "每卡时" in t for t in chinese), chinese
