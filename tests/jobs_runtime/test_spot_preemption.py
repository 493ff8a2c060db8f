"""Spot capacity (issue 32): a spec that asks for spot rents it at the spot price; when the
provider takes the cluster back, the job's recovery asks for a replacement, and after the
yes the new nodes get the last checkpoint copied to this machine and resume from it. On the
simulated cloud over real HTTP and SSH: a 2-node spot job preempted twice."""

from __future__ import annotations

import re
import threading
from pathlib import Path

import pytest

from tests.jobs_runtime.conftest import FAST
from tests.jobs_runtime.helpers import finished, train_spec, wait_for
from tests.lifecycle.conftest import MakeWorld, World
from xyclaw.events import ReplacementAsked
from xyclaw.jobs.errors import LaunchNeedsApproval
from xyclaw.records.jobs import JobState

EXTRA = """resources: {{gpu: A800, nodes: 2, gpus_per_node: 8, provider: sim}}
spot: true
recovery: {{max_restarts: 2, on: [node_lost]}}
release_when_done: false
outputs: {{to: {copies}, every: 1s}}
"""


def _copied_steps(copies: Path) -> list[int]:
    folder = copies / "shared" / "ckpt" / "spot"
    if not folder.is_dir():
        return []
    return sorted(
        int(m.group(1))
        for p in folder.iterdir()
        if (m := re.fullmatch(r"checkpoint-(\d+)", p.name)) and (p / "trainer_state.json").exists()
    )


def _preempt(world: World, cluster_id: int) -> None:
    """The cloud takes the spot cluster back now (no notice left), and the app's clock passes
    the reconnect window: its nodes are lost."""
    external = world.engine.cluster(str(cluster_id)).external_id
    assert external is not None
    status, body = world.server.cloud.preempt(external, {"notice_s": 0})
    assert status == 200 and body["cluster"]["spot"] is True
    wait_for(
        "the cluster taken back",
        lambda: world.provider.get(external).state == "terminated",  # type: ignore[union-attr]
    )


@pytest.mark.timeout(300)  # three attempts, two rentals after the yes: a whole flow, not a unit
def test_a_two_node_spot_job_preempted_twice_resumes_from_its_copied_checkpoint_each_time(
    make_world: MakeWorld, tmp_path: Path
) -> None:
    world = make_world(job_options=FAST, time_scale=0.02)
    copies = tmp_path / "copies"
    spec = train_spec(tmp_path, "spot", steps=160, save_every=20, extra=EXTRA.format(copies=copies))
    assert spec.spot
    with pytest.raises(LaunchNeedsApproval) as asked:
        world.engine.launch(spec)
    quote = asked.value.quote
    on_demand = next(o for o in world.provider.offers() if o.offer_id == quote.offer_id).price_micro
    assert quote.spot and quote.price_per_gpu_hour_micros < on_demand  # the saving
    saved = (on_demand - quote.price_per_gpu_hour_micros) * 16 / 1e6
    assert f"spot: {saved:.2f} CNY an hour less than on demand (-65%)" in quote.describe()
    assert "about 1 times a day" in quote.describe()
    asks: list[ReplacementAsked] = []
    heard = threading.Event()
    world.engine.subscribe(ReplacementAsked, lambda e: (asks.append(e), heard.set()))
    job = world.engine.launch(spec, quote=quote).result(120)
    assert world.engine.cluster(str(job.cluster_id)).price_per_gpu_hour_micros == (
        quote.price_per_gpu_hour_micros
    )

    copied_before: list[int] = []
    for attempt in (1, 2):
        now = world.engine.job(str(job.id))
        assert now.attempt == attempt
        floor = (copied_before[-1] if copied_before else 0) + 40
        wait_for(
            f"a checkpoint past step {floor} copied",
            lambda floor=floor: [s for s in _copied_steps(copies) if s >= floor],
            timeout=90,
        )
        copied_before.append(max(_copied_steps(copies)))
        cluster_id = now.attempts[-1].nodes[0].cluster_id
        heard.clear()
        _preempt(world, cluster_id)
        wait_for(
            "lost contact", lambda: world.engine.job(str(job.id)).state is JobState.LOST_CONTACT
        )
        world.clock.advance(FAST.reconnect_window_s + 1)
        assert heard.wait(60), "no ask for a replacement"
        (ask,) = world.engine.replacement_asks()
        assert ask.quote.spot and ask.quote.gpu_count == 16
        world.engine.approve_replacement(str(job.id), ask.quote.digest)
        wait_for(
            f"attempt {attempt + 1} runs",
            lambda attempt=attempt: (
                world.engine.job(str(job.id)).attempt == attempt + 1
                and world.engine.job(str(job.id)).state is JobState.RUNNING
            ),
            timeout=90,
        )

    done = finished(world.engine, job.id, timeout=180)
    assert done.state is JobState.SUCCEEDED, done.error
    first, second, third = done.attempts
    assert first.cause == "node_lost" and second.cause == "node_lost"
    for later, copied in ((second, copied_before[0]), (third, copied_before[1])):
        assert later.resume_step is not None and later.resume_step >= copied
        assert later.resumed_from == f"/shared/ckpt/spot/checkpoint-{later.resume_step}"
        assert {n.cluster_id for n in later.nodes} != {n.cluster_id for n in first.nodes}
    # the loss curve in the history: each attempt goes on from the step it resumed at
    series = world.engine.job_metrics(str(job.id))
    by_attempt = {a: [r for r in series if r["attempt"] == a] for a in (1, 2, 3)}
    for a, later in ((2, second), (3, third)):
        assert by_attempt[a][0]["step"] == later.resume_step + 1
        before = {r["step"]: r["loss"] for r in by_attempt[a - 1]}
        assert later.resume_step in before  # the previous attempt reached that step
    assert by_attempt[3][-1]["step"] == 160
    notes = [e["message"] for e in world.engine.recent_events(500) if e.get("job_id") == job.id]
    assert sum("uploaded the checkpoint copied" in m for m in notes) == 2


def test_the_providers_word_that_the_cluster_is_gone_ends_the_attempt_at_once_for_recovery(
    make_world: MakeWorld, tmp_path: Path
) -> None:
    world = make_world(job_options=FAST, time_scale=0.02)
    spec = train_spec(
        tmp_path,
        "spot",
        steps=100_000,
        save_every=20,
        extra=EXTRA.format(copies=tmp_path / "copies"),
    )
    with pytest.raises(LaunchNeedsApproval) as asked:
        world.engine.launch(spec)
    heard = threading.Event()
    world.engine.subscribe(ReplacementAsked, lambda e: heard.set())
    job = world.engine.launch(spec, quote=asked.value.quote).result(120)
    wait_for("progress", lambda: world.engine.job(str(job.id)).progress.step)
    assert job.cluster_id is not None

    _preempt(world, job.cluster_id)
    report = world.engine.reconcile()  # the provider says the cluster is no more

    assert world.engine.cluster(str(job.cluster_id)).name in report.gone
    assert heard.wait(30), "no ask for a replacement"  # no reconnect window waited out
    now = world.engine.job(str(job.id))
    assert now.state is JobState.RECOVERING and now.attempts[0].cause == "node_lost"
    notes = [e["message"] for e in world.engine.recent_events(200) if e.get("job_id") == job.id]
    assert any("the provider took" in m and "back" in m for m in notes)
    world.engine.decline_replacement(str(job.id))

    def ended() -> bool:  # a no: the job waits out the reconnect window for its nodes, in vain
        world.clock.advance(1.0)
        return world.engine.job(str(job.id)).state.finished

    wait_for("the job to end", ended, timeout=60)
    done = world.engine.job(str(job.id))
    assert done.state is JobState.FAILED and done.attempts[1].cause == "node_lost"
    assert world.provider.clusters() == []  # the no rented nothing
