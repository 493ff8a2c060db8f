"""Nothing lost at release (issue 32): a cluster released by its budget, for idleness or at
its job's end first copies the outputs still only on its disks, and its note in the history
says what was copied. On the simulated cloud, over real HTTP and SSH."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from tests.jobs_runtime.conftest import FAST
from tests.jobs_runtime.helpers import finished, wait_for, write_spec
from tests.lifecycle.conftest import MakeWorld, World
from tests.lifecycle.test_lifecycle import a800
from xyclaw.engine.lifecycle import UpRequest
from xyclaw.events import OperationProgress
from xyclaw.jobs.errors import LaunchNeedsApproval
from xyclaw.records import ClusterState
from xyclaw.records.jobs import JobState

WRITE = (
    'mkdir -p /shared/out/eval && for i in 1 2 3; do echo "result $i of $XYCLAW_JOB_ID"'
    " > /shared/out/eval/r$i.txt; done"
)


def _spec(tmp_path: Path, name: str, run: str, extra: str = "") -> object:
    return write_spec(
        tmp_path / name,
        f"name: {name}\nrun: {run}\n"
        f"outputs:\n  paths: [/shared/out]\n  to: {tmp_path / name / 'copies'}\n  every: 10h\n"
        + extra,
    )


def _remote(world: World, cluster: str) -> dict[str, str]:
    """The outputs on the cluster's volume now: path -> text."""
    head = next(iter(world.engine.exec(cluster, "find /shared/out -type f").values()))
    paths = sorted(head.stdout.split())  # type: ignore[union-attr]
    found = {}
    for path in paths:
        out = next(iter(world.engine.exec(cluster, f"cat {path}").values()))
        found[path] = out.stdout  # type: ignore[union-attr]
    return found


def _local(tmp_path: Path, name: str) -> dict[str, str]:
    root = tmp_path / name / "copies"
    return {
        "/" + p.relative_to(root).as_posix(): p.read_text()
        for p in root.rglob("*")
        if p.is_file() and not p.name.startswith(".xyclaw")
    }


def _release_notes(world: World, cluster_id: int) -> list[str]:
    return [
        e["message"]
        for e in world.engine.recent_events(500)
        if e.get("cluster_id") == cluster_id and "before releasing" in e["message"]
    ]


def _up(world: World, request: UpRequest) -> int:
    return world.engine.up(world.engine.quote_request(request)).result(60).id


def test_a_release_by_budget_copies_what_the_running_job_wrote_first(
    make_world: MakeWorld, tmp_path: Path
) -> None:
    # the cloud ends the cluster itself at the budget plus a grace: here long enough that the
    # guard (run by the test's clock) releases it first, as it does at the budget's moment
    world = make_world(job_options=FAST, XYCLAW_GUARD_DEADLINE_GRACE_S="3600")
    # 8 cards x 3.5 CNY = 28 CNY an hour; a budget of 7 CNY lasts 15 minutes
    cluster_id = _up(world, a800(8, budget_micros=7_000_000))
    name = world.engine.cluster(str(cluster_id)).name
    spec = _spec(tmp_path, "bud", f"{WRITE}; echo written; sleep 100000")
    job = world.engine.launch(spec, cluster=name).result(60)
    wait_for(
        "the files", lambda: any("written" in ln.text for ln in world.engine.job_logs(str(job.id)))
    )
    on_cluster = _remote(world, name)
    assert len(on_cluster) == 3 and _local(tmp_path, "bud") == {}  # none copied yet

    world.clock.advance(16 * 60)
    report = world.engine.tick()

    assert report.released_for_budget == [name]
    assert world.engine.cluster(str(cluster_id)).state is ClusterState.RELEASED
    assert _local(tmp_path, "bud") == on_cluster  # 0 files lost
    notes = _release_notes(world, cluster_id)
    assert len(notes) == 1 and "its budget is spent" in notes[0]
    assert "3 new file(s)" in notes[0] and "none of its outputs is left" in notes[0]


def test_a_release_by_budget_that_may_not_wait_names_what_is_lost_and_how_much(
    make_world: MakeWorld, tmp_path: Path
) -> None:
    world = make_world(
        job_options=dataclasses.replace(FAST, outputs_budget_share=0.0),
        XYCLAW_GUARD_DEADLINE_GRACE_S="3600",
    )
    cluster_id = _up(world, a800(8, budget_micros=7_000_000))
    name = world.engine.cluster(str(cluster_id)).name
    spec = _spec(tmp_path, "nowait", f"{WRITE}; echo written; sleep 100000")
    job = world.engine.launch(spec, cluster=name).result(60)
    wait_for(
        "the files", lambda: any("written" in ln.text for ln in world.engine.job_logs(str(job.id)))
    )
    size = sum(len(text.encode()) for text in _remote(world, name).values())

    world.clock.advance(16 * 60)
    assert world.engine.tick().released_for_budget == [name]

    assert _local(tmp_path, "nowait") == {}
    notes = _release_notes(world, cluster_id)
    assert len(notes) == 1 and "lost with the cluster: 3 file(s)" in notes[0]
    assert f"({size} B)" in notes[0]


def test_a_release_for_idleness_copies_what_was_written_after_the_job(
    make_world: MakeWorld, tmp_path: Path
) -> None:
    world = make_world(job_options=FAST, XYCLAW_BILLING_IDLE_RELEASE_MINUTES="15")
    cluster_id = _up(world, a800(8))
    name = world.engine.cluster(str(cluster_id)).name
    job = world.engine.launch(_spec(tmp_path, "idle", WRITE), cluster=name).result(60)
    assert finished(world.engine, job.id).state is JobState.SUCCEEDED
    assert len(_local(tmp_path, "idle")) == 3  # copied at the job's end
    world.engine.exec(name, "echo late > /shared/out/eval/by-hand.txt")  # after the job
    on_cluster = _remote(world, name)
    assert len(on_cluster) == 4

    world.engine.tick()
    world.clock.advance(16 * 60)
    report = world.engine.tick()

    assert report.released_idle == [name]
    assert _local(tmp_path, "idle") == on_cluster  # 0 files lost
    notes = _release_notes(world, cluster_id)
    assert len(notes) == 1 and "it was idle" in notes[0] and "1 new file(s)" in notes[0]


def test_a_release_at_the_jobs_end_leaves_nothing_behind_and_says_so(
    make_world: MakeWorld, tmp_path: Path
) -> None:
    world = make_world(job_options=FAST)
    spec = _spec(
        tmp_path,
        "end",
        WRITE,
        extra="resources: {gpu: A800, nodes: 1, gpus_per_node: 8, provider: sim}\n",
    )
    try:
        world.engine.launch(spec)
        raise AssertionError("renting needs the quote's approval")
    except LaunchNeedsApproval as asked:
        quote = asked.quote
    job = world.engine.launch(spec, quote=quote).result(120)
    done = finished(world.engine, job.id)
    assert done.state is JobState.SUCCEEDED and done.cluster_id is not None
    wait_for(
        "the cluster released",
        lambda: world.engine.cluster(str(done.cluster_id)).state is ClusterState.RELEASED,
    )

    local = _local(tmp_path, "end")
    assert local == {f"/shared/out/eval/r{i}.txt": f"result {i} of {job.id}\n" for i in (1, 2, 3)}
    notes = _release_notes(world, done.cluster_id)
    assert len(notes) == 1 and "its job ended" in notes[0]
    assert "none of its outputs is left" in notes[0]


def test_a_release_you_ask_for_shows_each_file_it_copies_on_its_card_first(
    make_world: MakeWorld, tmp_path: Path
) -> None:
    world = make_world(job_options=FAST)
    cluster_id = _up(world, a800(8))
    name = world.engine.cluster(str(cluster_id)).name
    job = world.engine.launch(_spec(tmp_path, "asked", WRITE), cluster=name).result(60)
    assert finished(world.engine, job.id).state is JobState.SUCCEEDED
    world.engine.exec(name, "echo mine > /shared/out/eval/notes.txt")
    on_cluster = _remote(world, name)
    progress: list[OperationProgress] = []
    world.engine.subscribe(OperationProgress, progress.append)

    world.engine.down(name).result(60)

    assert _local(tmp_path, "asked") == on_cluster
    card = [p.message for p in progress if p.title == f"release {name}"]
    copying = [m for m in card if "copied /shared/out/eval/notes.txt" in m]
    released = [i for i, m in enumerate(card) if "released" in m]
    assert copying and released and card.index(copying[0]) < released[-1]
    notes = _release_notes(world, cluster_id)
    assert len(notes) == 1 and "you asked" in notes[0] and "1 new file(s)" in notes[0]
