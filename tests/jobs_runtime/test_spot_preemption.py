"""Spot capacity (issue 32): a spec that asks for spot rents it at the spot price; when the
provider takes the cluster back, the job's recovery asks for a replacement, and after the
yes the new nodes get the last checkpoint copied to this machine and resume from it. On the
simulated cloud over real HTTP and SSH: a 2-node spot job preempted twice."""

from __future__ import annotations

import re
import threading
from dataclasses import replace
from pathlib import Path

import pytest

from tests.jobs_runtime.conftest import FAST
from tests.jobs_runtime.helpers import finished, train_spec, wait_for
from tests.lifecycle.conftest import MakeWorld, World
from tests.simcloud.helpers import FakeClock
from xyclaw.events import ReplacementAsked
from xyclaw.jobs.errors import LaunchNeedsApproval
from xyclaw.jobs.spec import JobSpec
from xyclaw.records.jobs import JobRecord, JobState
from xyclaw.sim.cloud import CloudSettings
from xyclaw.sim.cloud.files import VOLUMES_DIR

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


class Ticker:
    """Time passes for the cloud and the app alike: the shared clock moves with real time
    (the cloud's own spot preemptions are drawn in its clock)."""

    def __init__(self, clock: FakeClock, step_s: float = 0.1) -> None:
        self._clock = clock
        self._step = step_s
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.wait(self._step):
            self._clock.advance(self._step)

    def __enter__(self) -> Ticker:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(5)


def _launch_spot(world: World, spec: JobSpec) -> JobRecord:
    with pytest.raises(LaunchNeedsApproval) as asked:
        world.engine.launch(spec)
    return world.engine.launch(spec, quote=asked.value.quote).result(120)


# The cloud draws each spot cluster's life (seed 10: about 20 s and 13 s for the first two, at
# 150 preemptions an hour; the job does about 3 steps a second), then gives a 6 s notice; the
# job's look-out asks every 0.5 s.
OWN = CloudSettings.fast(spot_preemptions_per_hour=150.0, spot_notice_s=6.0, spot_seed=10)
WATCHED = replace(FAST, spot_poll_s=0.5, reconnect_window_s=60.0)


@pytest.mark.timeout(300)  # three attempts, two rentals after the yes: a whole flow, not a unit
def test_a_two_node_spot_job_preempted_twice_resumes_from_its_copied_checkpoint_each_time(
    make_world: MakeWorld, tmp_path: Path
) -> None:
    """The issue's how-well: preemptions the simulated cloud makes on its own, each after a
    notice on which the app copies the newest checkpoint; each later attempt resumes from it
    after the yes, and the loss curve in the history goes on across attempts."""
    world = make_world(OWN, job_options=WATCHED, time_scale=0.02)
    copies = tmp_path / "copies"
    spec = train_spec(tmp_path, "spot", steps=200, save_every=20, extra=EXTRA.format(copies=copies))
    assert spec.spot
    with pytest.raises(LaunchNeedsApproval) as asked:
        world.engine.launch(spec)
    quote = asked.value.quote
    on_demand = next(o for o in world.provider.offers() if o.offer_id == quote.offer_id).price_micro
    assert quote.spot and quote.price_per_gpu_hour_micros < on_demand  # the saving
    saved = (on_demand - quote.price_per_gpu_hour_micros) * 16 / 1e6
    assert f"spot: {saved:.2f} CNY an hour less than on demand (-65%)" in quote.describe()
    assert "about 3600 times a day" in quote.describe()  # the risk, as the cloud states it
    asks: list[ReplacementAsked] = []
    heard = threading.Event()
    world.engine.subscribe(ReplacementAsked, lambda e: (asks.append(e), heard.set()))
    with Ticker(world.clock):
        job = world.engine.launch(spec, quote=quote).result(120)
        assert world.engine.cluster(str(job.cluster_id)).price_per_gpu_hour_micros == (
            quote.price_per_gpu_hour_micros
        )
        copied_at_ask: list[int] = []
        for attempt in (1, 2):
            if not heard.wait(120):
                pytest.fail(
                    f"attempt {attempt}: no replacement asked for; the job is "
                    f"{world.engine.job(str(job.id)).state}; its history:\n"
                    + "\n".join(e["message"] for e in world.engine.recent_events(60))
                )
            heard.clear()
            now = world.engine.job(str(job.id))
            assert now.state is JobState.RECOVERING
            assert now.attempts[attempt - 1].cause == "node_lost"
            copied_at_ask.append(max(_copied_steps(copies), default=0))
            if attempt == 2:  # enough: the third attempt runs to the end
                world.server.cloud.set_faults({"spot_preemptions_per_hour": 0.0})
            (ask,) = world.engine.replacement_asks()
            assert ask.quote.spot and ask.quote.gpu_count == 16
            world.engine.approve_replacement(str(job.id), ask.quote.digest)
        done = finished(world.engine, job.id, timeout=180)
    assert done.state is JobState.SUCCEEDED, done.error
    first, second, third = done.attempts
    assert first.cause == "node_lost" and second.cause == "node_lost"
    for later, copied in ((second, copied_at_ask[0]), (third, copied_at_ask[1])):
        assert copied > 0, "no checkpoint was copied before the preemption"
        assert later.resume_step == copied  # the newest checkpoint copied before it
        assert later.resumed_from == f"/shared/ckpt/spot/checkpoint-{later.resume_step}"
        assert {n.cluster_id for n in later.nodes} != {n.cluster_id for n in first.nodes}
    # the loss curve in the history: each attempt goes on from the step it resumed at
    series = world.engine.job_metrics(str(job.id))
    by_attempt = {a: [r for r in series if r["attempt"] == a] for a in (1, 2, 3)}
    for a, later in ((2, second), (3, third)):
        assert by_attempt[a][0]["step"] == later.resume_step + 1
        before = {r["step"]: r["loss"] for r in by_attempt[a - 1]}
        assert later.resume_step in before  # the previous attempt reached that step
    assert by_attempt[3][-1]["step"] == 200
    notes = [e["message"] for e in world.engine.recent_events(500) if e.get("job_id") == job.id]
    assert sum("takes spot cluster" in m for m in notes) == 2  # each notice said, and acted on
    assert sum("uploaded the checkpoint copied" in m for m in notes) == 2


def _complete_checkpoints(volume: Path) -> dict[str, bytes]:
    """The files of the complete checkpoints on a cluster's volume now."""
    folder = volume / "ckpt" / "notice"
    found: dict[str, bytes] = {}
    if not folder.is_dir():
        return found
    for ckpt in folder.iterdir():
        if (ckpt / "trainer_state.json").exists():
            for f in ckpt.rglob("*"):
                if f.is_file():
                    found[f.relative_to(folder).as_posix()] = f.read_bytes()
    return found


def test_on_the_notice_the_outputs_are_copied_at_once_and_nothing_written_before_it_is_lost(
    make_world: MakeWorld, tmp_path: Path
) -> None:
    """No periodic copy (every hour): only acting on the notice can save the checkpoints."""
    world = make_world(job_options=replace(FAST, spot_poll_s=0.3), time_scale=0.02)
    copies = tmp_path / "copies"
    extra = EXTRA.replace("every: 1s", "every: 1h").format(copies=copies)
    spec = train_spec(tmp_path, "notice", steps=100_000, save_every=10, extra=extra)
    heard = threading.Event()
    world.engine.subscribe(ReplacementAsked, lambda e: heard.set())
    job = _launch_spot(world, spec)
    assert job.cluster_id is not None
    external = world.engine.cluster(str(job.cluster_id)).external_id
    assert external is not None
    volume = world.state_dir / VOLUMES_DIR / external
    wait_for(
        "two checkpoints",
        lambda: len({k.split("/")[0] for k in _complete_checkpoints(volume)}) >= 2,
    )

    before = _complete_checkpoints(volume)  # what was written before the notice
    status, body = world.server.cloud.preempt(external, {"notice_s": 30})
    assert status == 200
    preempt_at = body["cluster"]["preempt_at"]
    notes = lambda: [  # noqa: E731
        e["message"] for e in world.engine.recent_events(300) if e.get("job_id") == job.id
    ]
    said_copied = wait_for(
        "the copy on the notice",
        lambda: [m for m in notes() if "before" in m and "is taken back, copied" in m],
    )
    assert any("takes spot cluster" in m and "in about 30 s" in m for m in notes())
    here = copies / "shared" / "ckpt" / "notice"
    for rel, data in before.items():  # every file written before the notice, whole
        assert (here / rel).read_bytes() == data, rel
    newest = max(int(k.split("/")[0].split("-")[1]) for k in before)
    assert f"step {newest}" in said_copied[0] or "newest checkpoint" in said_copied[0]
    assert world.engine.job(str(job.id)).state is JobState.RUNNING  # still runs in the notice

    world.clock.advance(preempt_at - world.clock() + 0.1)  # the cloud takes it back
    assert heard.wait(30), "no replacement card"  # at once: no reconnect window waited out
    now = world.engine.job(str(job.id))
    assert now.state is JobState.RECOVERING and now.attempts[0].cause == "node_lost"
    assert not volume.exists() or not _complete_checkpoints(volume)  # the host's copy is gone
    assert world.engine.cancel_job(str(job.id)).state is JobState.CANCELLED
    assert world.provider.clusters() == []  # nothing rented without the yes


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
