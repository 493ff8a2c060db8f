"""XyClaw against the real two-node loopback Slurm, logged in over SSH as an unprivileged
user: offers from sinfo, a 2-node SkyPilot task through sbatch/srun, the queue, cancel through
an approval, and a colleague's jobs never shown or touched."""

from __future__ import annotations

import dataclasses
import re
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.slurm.conftest import OTHER, USER, as_root, as_user
from xyclaw.engine.approvals import ApprovalMismatch
from xyclaw.engine.slurm import cancel_approved, cancel_card
from xyclaw.errors import ProviderError, UsageError
from xyclaw.jobs.slurm_jobs import SlurmJobs, SlurmJobView
from xyclaw.jobs.spec import JobSpec, parse_spec
from xyclaw.providers.slurm import ShellResult, SlurmClient, SlurmProvider

MakeJobs = Callable[..., SlurmJobs]

TWO_NODE_TASK = """\
name: two-node
num_nodes: 2
resources:
  accelerators: A800:8
setup: |
  echo "setup on $(hostname) rank $SKYPILOT_SETUP_NODE_RANK"
run: |
  echo "rank=$SKYPILOT_NODE_RANK nodes=$SKYPILOT_NUM_NODES gpus=$SKYPILOT_NUM_GPUS_PER_NODE"
  echo "ips=$(printf '%s' "$SKYPILOT_NODE_IPS" | tr '\\n' ,)"
  echo "master=$MASTER_ADDR:$MASTER_PORT node_rank=$NODE_RANK"
  echo "nccl=$NCCL_IB_DISABLE/$NCCL_SOCKET_IFNAME cuda=$CUDA_VISIBLE_DEVICES"
  echo "slurm_node=$SLURMD_NODENAME"
"""


def skypilot(text: str) -> JobSpec:
    return parse_spec(text, source_format="skypilot", check_paths=False, on_cluster=True).spec


def sleeper(name: str, seconds: int, nodes: int = 2) -> JobSpec:
    return skypilot(
        f"name: {name}\nnum_nodes: {nodes}\nresources:\n  accelerators: A800:8\n"
        f"run: sleep {seconds}\n"
    )


def wait_for(
    jobs: SlurmJobs, job_id: str, done: Callable[[SlurmJobView], bool], timeout: float = 60
) -> SlurmJobView:
    deadline = time.monotonic() + timeout
    while True:
        view = jobs.job(job_id)
        if done(view):
            return view
        if time.monotonic() > deadline:
            raise AssertionError(f"job {job_id} is still {view.state} ({view.reason})")
        time.sleep(0.5)


def test_offers_are_the_partitions_with_the_free_gpus_sinfo_counts(make_jobs: MakeJobs) -> None:
    jobs = make_jobs(price_per_gpu_hour=0)
    other = as_user(OTHER, "sbatch", "--parsable", "-N1", "-w", "n1", "--gres=gpu:5", "-t", "5",
                    "-o", "/dev/null", "--wrap", "sleep 120").strip()  # fmt: skip
    deadline = time.monotonic() + 30
    while "RUNNING" not in as_root("squeue", "-h", "-j", other, "-o", "%T"):
        assert time.monotonic() < deadline, "the colleague's job did not start"
        time.sleep(0.3)
    offers = {o.region: o for o in SlurmProvider(jobs.client).offers()}
    assert set(offers) == {"gpu", "short"}
    gpu = offers["gpu"]
    assert (gpu.provider, gpu.gpu, gpu.gpus_per_node, gpu.node_counts) == ("lab", "A800", 8, (1, 2))
    assert gpu.price_micro == 0
    # what the admin's own sinfo says is free, counted independently of XyClaw's parser
    used = as_root("sinfo", "-h", "-N", "-p", "gpu", "-O", "NodeList:|,GresUsed:|")
    busy = sum(int(m) for m in re.findall(r"gpu:a800:(\d+)", used))
    assert busy == 5
    assert gpu.available_gpus == 16 - busy
    assert offers["short"].available_gpus == 8 - busy
    assert "1 idle, 1 mixed, 0 allocated" in gpu.note and "60 min" in gpu.note
    # the colleague's job is not the user's: squeue --me never lists it
    assert jobs.client.my_jobs(fresh=True) == []


def test_a_two_node_skypilot_task_runs_through_sbatch_and_srun(make_jobs: MakeJobs) -> None:
    jobs = make_jobs()
    view = jobs.submit(
        skypilot(TWO_NODE_TASK), nccl={"NCCL_IB_DISABLE": "1", "NCCL_SOCKET_IFNAME": "lo"}
    )
    assert view.partition == "gpu" and view.nodes == 2
    script = as_root("cat", f"{view.folder}/job.sbatch")
    for line in ("--nodes=2", "--gres=gpu:8", "--time=60", "--partition=gpu",
                 "--signal=USR1@120", "--job-name=two-node"):  # fmt: skip
        assert f"#SBATCH {line}\n" in script
    assert "UNLIMITED" not in script
    done = wait_for(jobs, view.job_id, lambda v: v.exit is not None)
    assert done.state == "COMPLETED" and done.exit is not None and done.exit.exit_code == 0
    assert done.exit.nodes == 2 and done.exit.gpus_per_node == 8
    logs = jobs.logs(view.job_id)
    ranks = {}
    for name in ("rank-0.log", "rank-1.log"):
        text = logs[name]
        rank = re.search(r"rank=(\d)", text)
        assert rank is not None, text
        ranks[rank.group(1)] = text
        assert "nodes=2 gpus=8" in text
        assert "ips=127.0.0.1,127.0.0.1\n" in text
        assert f"node_rank={rank.group(1)}" in text
        port = re.search(r"master=127\.0\.0\.1:(\d+) ", text)
        assert port is not None and 29500 <= int(port.group(1)) < 30500, text  # 29500 + id % 1000
        assert "nccl=1/lo cuda=0,1,2,3,4,5,6,7" in text
    assert set(ranks) == {"0", "1"}
    assert {re.search(r"slurm_node=(n\d)", t).group(1) for t in ranks.values()} == {"n1", "n2"}  # type: ignore[union-attr]
    assert "setup on" in logs["setup-0.log"] and "rank 1" in logs["setup-1.log"]


def test_a_second_job_waits_with_slurms_reason_then_runs_and_cancel_needs_a_yes(
    make_jobs: MakeJobs,
) -> None:
    jobs = make_jobs()
    first = jobs.submit(sleeper("holder", 300))
    wait_for(jobs, first.job_id, lambda v: v.state == "RUNNING")
    second = jobs.submit(sleeper("queued", 300))
    waiting = wait_for(jobs, second.job_id, lambda v: v.reason not in ("", "None"), 20)
    assert waiting.state == "PENDING"
    assert waiting.reason in ("Resources", "Priority"), waiting.reason
    # the start Slurm expects, once its backfill pass has estimated one (N/A before)
    waiting = wait_for(jobs, second.job_id, lambda v: bool(v.expected_start), 20)
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d", waiting.expected_start)
    # a card for the second job does not cancel the first
    card = cancel_card(jobs, first.job_id)
    assert card.command == f"scancel {first.job_id}" and card.kind == "destroy"
    forged = dataclasses.replace(card, ref=f"lab:{second.job_id}", digest=card.digest)
    with pytest.raises(ApprovalMismatch):
        cancel_approved(jobs, forged)
    assert jobs.job(second.job_id).state == "PENDING"
    cancel_approved(jobs, card)
    ended = wait_for(jobs, first.job_id, lambda v: v.state not in ("RUNNING", "COMPLETING"))
    assert ended.state in ("CANCELLED", "FAILED"), ended
    running = wait_for(jobs, second.job_id, lambda v: v.state == "RUNNING", 60)
    assert running.node_list in ("n[1-2]", "n1,n2")
    cancel_approved(jobs, cancel_card(jobs, second.job_id))
    wait_for(jobs, second.job_id, lambda v: v.state not in ("RUNNING", "COMPLETING"))


def test_a_colleagues_job_is_never_shown_read_or_cancelled(make_jobs: MakeJobs) -> None:
    jobs = make_jobs()
    theirs = as_user(OTHER, "sbatch", "--parsable", "-N1", "--gres=gpu:1", "-t", "5",
                     "-o", "/dev/null", "--wrap", "sleep 120").strip()  # fmt: skip
    mine = jobs.submit(sleeper("mine", 120, nodes=1))
    assert theirs in as_root("squeue", "-h", "-o", "%i")
    assert [q.job_id for q in jobs.client.my_jobs(fresh=True)] == [mine.job_id]
    assert [v.job_id for v in jobs.jobs(fresh=True)] == [mine.job_id]
    with pytest.raises(UsageError, match="not submitted by XyClaw"):
        cancel_card(jobs, theirs)
    with pytest.raises(UsageError, match="not submitted by XyClaw"):
        jobs.logs(theirs)
    with pytest.raises(UsageError, match="not submitted by XyClaw"):
        jobs.cancel(theirs)
    assert as_root("squeue", "-h", "-j", theirs, "-o", "%T").strip() in ("RUNNING", "PENDING")


def test_a_job_that_ended_while_xyclaw_was_closed_reads_its_exit_record(
    make_jobs: MakeJobs,
) -> None:
    first = make_jobs()
    view = first.submit(sleeper("short", 3, nodes=1))
    # XyClaw closes; the job ends; Slurm forgets it (MinJobAge=30 s on the loopback cluster)
    deadline = time.monotonic() + 90
    while view.job_id in as_root("squeue", "-h", "-o", "%i").split():
        assert time.monotonic() < deadline, "Slurm still lists the job"
        time.sleep(1)
    reopened = make_jobs()
    again = reopened.job(view.job_id)
    assert again.state == "COMPLETED" and again.exit is not None
    assert again.exit.exit_code == 0
    assert again.exit.ended_at - again.exit.started_at >= 3
    assert again.gpu_hours == pytest.approx(
        (again.exit.ended_at - again.exit.started_at) * 8 / 3600
    )
    # an ended job's record is final: kept, so the login node is not asked for it again
    asked: list[str] = []
    shell = reopened.client.shell
    reopened.client.shell = lambda command, timeout: (
        asked.append(command) or shell(command, timeout)
    )
    assert reopened.job(view.job_id).exit == again.exit
    assert not any("exit.json" in c for c in asked) and any("squeue" in c for c in asked)


def test_a_refusal_by_slurm_is_shown_with_slurms_reason(make_jobs: MakeJobs) -> None:
    jobs = make_jobs()
    nine = skypilot("name: nine\nresources:\n  accelerators: A800:9\nrun: true\n")
    # the nodes have 8 GPUs: sbatch itself refuses, and says why
    with pytest.raises(ProviderError, match=r"Slurm at lab refused the job: sbatch: error: .*"):
        jobs.submit(nine, partition="gpu")
    assert jobs.jobs(fresh=True) == []


def test_a_container_image_is_refused_without_pyxis(make_jobs: MakeJobs) -> None:
    jobs = make_jobs()
    spec = skypilot(
        "name: boxed\nresources:\n  image_id: docker:ubuntu:22.04\n  accelerators: A800:1\n"
        "run: true\n"
    )
    with pytest.raises(UsageError, match="no pyxis"):
        jobs.submit(spec)


def resume(node: str) -> None:
    """The admin puts the node back (an error when it is up already is ignored)."""
    from tests.slurm.conftest import slurm_conf

    subprocess.run(
        ["scontrol", "update", f"NodeName={node}", "State=RESUME"],
        env={"SLURM_CONF": slurm_conf(), "PATH": "/usr/bin:/bin:/usr/sbin:/sbin"},
        capture_output=True,
        timeout=30,
    )


@pytest.mark.soak  # Slurm holds a requeued job for 120 s: make soak, not make test
def test_a_node_going_down_is_shown_with_its_reason_and_the_requeued_job_runs_again(
    make_jobs: MakeJobs,
) -> None:
    jobs = make_jobs()
    view = jobs.submit(sleeper("survivor", 300))
    wait_for(jobs, view.job_id, lambda v: v.state == "RUNNING")
    try:
        as_root("scontrol", "update", "NodeName=n2", "State=DOWN", "Reason=xyclaw-test")
        deadline = time.monotonic() + 30
        while "PENDING" not in as_root("squeue", "-h", "-j", view.job_id, "-o", "%T"):
            assert time.monotonic() < deadline, "Slurm did not requeue the job"
            time.sleep(0.2)
        reported = time.monotonic()  # squeue reports the requeue: XyClaw has 10 s
        shown = wait_for(
            jobs, view.job_id, lambda v: "n2 down: xyclaw-test" in v.node_problems, timeout=10
        )
        assert time.monotonic() - reported <= 10
        assert shown.state == "PENDING" and shown.reason == "BeginTime"
        resume("n2")
        # Slurm holds a requeued job for 2 min (BeginTime) while the nodes forget its revoked
        # credential; started sooner (scontrol update StartTime=now) the nodes refuse it
        again = wait_for(jobs, view.job_id, lambda v: v.state == "RUNNING", 200)
        assert again.node_problems == ()
        assert again.node_list in ("n[1-2]", "n1,n2")
    finally:
        resume("n2")


def test_a_draining_node_is_shown_while_the_job_finishes(make_jobs: MakeJobs) -> None:
    jobs = make_jobs()
    view = jobs.submit(sleeper("drained", 8))
    wait_for(jobs, view.job_id, lambda v: v.state == "RUNNING")
    try:
        as_root("scontrol", "update", "NodeName=n2", "State=DRAIN", "Reason=maintenance")
        shown = wait_for(jobs, view.job_id, lambda v: bool(v.node_problems), timeout=10)
        assert shown.state == "RUNNING"
        assert shown.node_problems == ("n2 draining: maintenance",)
        done = wait_for(jobs, view.job_id, lambda v: v.exit is not None, 60)
        assert done.state == "COMPLETED" and done.exit is not None and done.exit.exit_code == 0
        assert "n2|drained" in as_root("sinfo", "-h", "-N", "-O", "NodeList:|,StateLong:|")
    finally:
        resume("n2")


def test_squeue_is_asked_at_most_every_30_s_unless_a_fresh_answer_is_wanted(
    make_jobs: MakeJobs,
) -> None:
    jobs = make_jobs()
    mine = jobs.submit(sleeper("polled", 120, nodes=1))
    asked: list[str] = []
    now = [1000.0]

    def counting(command: str, timeout: float) -> ShellResult:
        asked.append(command)
        return jobs.client.shell(command, timeout)

    client = SlurmClient(jobs.client.site, counting, clock=lambda: now[0])
    assert [q.job_id for q in client.my_jobs()] == [mine.job_id]
    now[0] += 29
    assert [q.job_id for q in client.my_jobs()] == [mine.job_id]
    assert sum("squeue --me" in c for c in asked) == 1
    now[0] += 2
    client.my_jobs()
    client.my_jobs(fresh=True)
    assert sum("squeue --me" in c for c in asked) == 3


def test_the_workdir_is_uploaded_and_every_rank_runs_in_it(
    make_jobs: MakeJobs, tmp_path: Path
) -> None:
    code = tmp_path / "code"
    (code / "conf").mkdir(parents=True)
    (code / "conf" / "lr.txt").write_text("lr=3e-4\n")
    task = (
        "name: withcode\nnum_nodes: 2\nworkdir: ./code\nresources:\n  accelerators: A800:1\n"
        'run: echo "rank=$SKYPILOT_NODE_RANK $(cat conf/lr.txt) in $(basename $PWD)"\n'
    )
    spec = parse_spec(task, base_dir=tmp_path, source_format="skypilot", on_cluster=True).spec
    jobs = make_jobs()
    view = jobs.submit(spec)
    done = wait_for(jobs, view.job_id, lambda v: v.exit is not None)
    assert done.state == "COMPLETED", done
    logs = jobs.logs(view.job_id)
    assert logs["rank-0.log"] == "rank=0 lr=3e-4 in workdir\n"
    assert logs["rank-1.log"] == "rank=1 lr=3e-4 in workdir\n"


def test_each_node_samples_its_gpus_inside_the_run_step(make_jobs: MakeJobs) -> None:
    """The loopback nodes' nvidia-smi (scripts/slurm-loopback.sh puts it on the test user's
    PATH) prints the driver's CSV for the GRES devices the step was given."""
    jobs = make_jobs()
    view = jobs.submit(sleeper("sampled", 3))
    done = wait_for(jobs, view.job_id, lambda v: v.exit is not None)
    assert done.state == "COMPLETED"
    samples = jobs.gpu_samples(view.job_id)
    assert {s.node_rank for s in samples} == {0, 1}
    assert {s.gpu for s in samples} == set(range(8))
    assert all(s.utilization_pct == 90 + s.gpu and s.memory_total_mib == 81920 for s in samples)
    # the sampler ended with the step: nothing is written after the job, nothing is left
    written = len(jobs.gpu_samples(view.job_id, last=10_000))
    time.sleep(2.5)
    assert len(jobs.gpu_samples(view.job_id, last=10_000)) == written
    left = subprocess.run(["pgrep", "-u", USER, "-f", "nvidia-smi"], capture_output=True)
    assert left.stdout == b""
