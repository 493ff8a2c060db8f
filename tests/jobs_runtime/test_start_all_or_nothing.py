"""A multi-node start is all or nothing: when one node cannot start its rank, the ranks that
did start are stopped (and verified gone), and the attempt fails naming the node that did not."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.jobs_runtime.conftest import MakeCluster
from tests.jobs_runtime.helpers import finished, write_spec
from xyclaw.engine import Engine
from xyclaw.errors import JobError
from xyclaw.records.jobs import JobState
from xyclaw.remote import CommandResult


def test_a_node_that_cannot_start_its_rank_stops_the_others_and_is_named(
    engine: Engine, make_cluster: MakeCluster, tmp_path: Path
) -> None:
    cluster = make_cluster(nodes=2, gpus_per_node=8, time_scale=1.0)
    broken = cluster.nodes[1]
    # node 1's job folder cannot be made: a file stands where it goes
    (broken.machine.root / "root" / ".xyclaw").mkdir(parents=True, exist_ok=True)
    (broken.machine.root / "root" / ".xyclaw" / "jobs").write_text("not a folder\n")
    write_spec(
        tmp_path, 'name: half\nnum_nodes: 2\nrun: echo "rank $SKYPILOT_NODE_RANK up"; sleep 600\n'
    )

    launched = engine.launch(str(tmp_path / "job.yaml"), cluster=cluster.name)
    with pytest.raises(JobError, match="could not start the run on"):
        launched.result(60)
    job = finished(engine, engine.jobs(include_finished=True)[-1].id, timeout=60)

    assert job.state is JobState.FAILED and job.cause == "launch_failed"
    names = [n.name for n in cluster.record.nodes]
    assert job.error is not None
    assert f"could not start the run on {names[1]}" in job.error
    assert f"{names[0]}: no process left" in job.error  # rank 0 had started: stopped, verified
    on_node0 = engine.exec(cluster.name, "ps -e -o args")[names[0]]
    assert isinstance(on_node0, CommandResult) and "sleep 600" not in on_node0.stdout
    (attempt,) = job.attempts
    assert [n.node for n in attempt.nodes] == names  # both ranks were recorded
