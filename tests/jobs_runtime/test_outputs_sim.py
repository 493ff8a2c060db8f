"""Outputs and checkpoints copied off the nodes as they appear, and a lost host's checkpoint
uploaded from this machine on recovery (issue 32), on simulated nodes over real SSH."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from tests.jobs_runtime.conftest import MakeCluster
from tests.jobs_runtime.helpers import finished, train_spec, wait_for
from xyclaw.engine import Engine
from xyclaw.records.jobs import JobState


def _files(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def _events(engine: Engine, job_id: int) -> list[dict[str, object]]:
    return [e for e in engine.recent_events(500) if e.get("job_id") == job_id]


def test_every_checkpoint_is_copied_to_the_folder_the_spec_names_with_a_note_in_the_history(
    engine: Engine, make_cluster: MakeCluster, tmp_path: Path
) -> None:
    cluster = make_cluster(nodes=2, gpus_per_node=8, time_scale=0.02)
    copies = tmp_path / "copies"
    spec = train_spec(
        tmp_path,
        "outs",
        steps=60,
        save_every=20,
        extra=f"outputs:\n  to: {copies}\n  every: 1s\n",
    )
    assert spec.outputs is not None and spec.outputs.to == str(copies)

    job = engine.launch(spec, cluster=cluster.name).result(60)
    done = finished(engine, job.id)

    assert done.state is JobState.SUCCEEDED, done.error
    shared = tmp_path / f"{cluster.name}-shared" / "ckpt" / "outs"
    on_volume = _files(shared)
    assert sorted({k.split("/")[0] for k in on_volume}) == [
        "checkpoint-20",
        "checkpoint-40",
        "checkpoint-60",
    ]
    local = copies / "shared" / "ckpt" / "outs"
    assert _files(local) == on_volume  # every file, byte for byte
    notes = [e["message"] for e in _events(engine, job.id) if "output file" in e["message"]]
    assert notes and str(copies) in notes[-1]
    counts = [re.search(r"copied (\d+) new", m) for m in notes]
    assert sum(int(m.group(1)) for m in counts if m) == len(on_volume)  # none copied twice


def test_a_lost_host_takes_its_checkpoints_and_the_next_attempt_resumes_from_the_copy(
    engine: Engine, make_cluster: MakeCluster, tmp_path: Path
) -> None:
    cluster = make_cluster(nodes=2, gpus_per_node=8, time_scale=0.02)
    spec = train_spec(
        tmp_path,
        "lost",
        steps=200,
        save_every=20,
        extra=f"outputs:\n  to: {tmp_path / 'copies'}\n  every: 1s\n",
    )
    job = engine.launch(spec, cluster=cluster.name).result(60)
    local = tmp_path / "copies" / "shared" / "ckpt" / "lost"
    wait_for(
        "a copied checkpoint",
        lambda: (local / "checkpoint-40" / "trainer_state.json").exists(),
        timeout=60,
    )

    cluster.nodes[0].faults.node_down()  # the head goes, and the volume's checkpoints with it
    shutil.rmtree(tmp_path / f"{cluster.name}-shared" / "ckpt" / "lost")
    wait_for("lost contact", lambda: engine.job(str(job.id)).state is JobState.LOST_CONTACT)
    cluster.nodes[0].faults.node_up()
    done = finished(engine, job.id, timeout=120)

    assert done.state is JobState.SUCCEEDED, done.error
    first, second = done.attempts
    assert first.cause == "node_lost"
    assert second.resume_step is not None and second.resume_step >= 40
    assert second.resumed_from == f"/shared/ckpt/lost/checkpoint-{second.resume_step}"
    restored = [m["message"] for m in _events(engine, job.id) if "uploaded the" in m["message"]]
    assert restored and f"step {second.resume_step}" in restored[0]
    series = engine.job_metrics(str(job.id))
    later = [r["step"] for r in series if r["attempt"] == 2]
    assert later[0] == second.resume_step + 1 and later[-1] == 200
