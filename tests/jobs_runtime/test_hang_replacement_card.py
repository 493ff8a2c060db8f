"""Issue 34's "How well" on the simulated cloud, over real HTTP and SSH: a 2 x 8 job whose
node 1 logs XID 79 (its GPU 3 falls off the bus, the rank keeps hanging in CUDA) and whose
rank 11 then never enters an all_reduce. After the watchdog's line the verdict names rank,
node and collective, ties in the XID (code, meaning, local time, from node 1's kernel log),
and comes with the replacement as a bound card: one 8-GPU node rented onto the cluster's
own fabric (the cloud's multi-node offers rent 2 nodes or more: a replacement joins the
running cluster), and the checkpoint the job resumes from. Only the yes to that card rents;
the next attempt runs on node 0 and the new node and resumes from exactly that checkpoint."""

from __future__ import annotations

import dataclasses
import io
import json
import re
import threading
import time
from dataclasses import dataclass, replace
from pathlib import Path

import pytest

from tests.jobs_runtime.conftest import FAST
from tests.jobs_runtime.helpers import TORCHRUN, finished, wait_for, write_spec
from tests.jobs_runtime.test_spot_preemption import Ticker
from tests.lifecycle.conftest import MakeWorld, World
from xyclaw.engine.approvals import ApprovalMismatch
from xyclaw.events import ReplacementAsked
from xyclaw.jobs.errors import LaunchNeedsApproval
from xyclaw.records import ClusterRecord, NodeRecord
from xyclaw.records.jobs import JobRecord, JobState
from xyclaw.store.event_log import said_of

SCRIPT = "# sim: model=llama-0.5b seq_len=512 micro_batch=1 steps={steps} save_every=10\n"
SPEC = """name: {name}
workdir: work
checkpoint_dir: /shared/ckpt/{name}
resume_arg: --resume_from_checkpoint {{latest}}
resources: {{gpu: A800, nodes: 2, gpus_per_node: 8, provider: sim}}
release_when_done: false
run: {run} --ddp_timeout 120
"""
WATCHED = replace(FAST, reconnect_window_s=60.0)


@dataclass(frozen=True)
class Hung:
    """A 2 x 8 job whose rank 11 hung after node 1 logged XID 79, waiting for its card."""

    job: JobRecord
    cluster: ClusterRecord
    node0: NodeRecord
    node1: NodeRecord
    at: int  # the all_reduce rank 11 never entered
    xid_at: float  # when node 1 logged XID 79, on the app's clock


def hang_until_the_ask(world: World, tmp_path: Path, name: str = "fr") -> Hung:
    """Rent a 2 x 8 cluster, launch, let a checkpoint be written; then rank 11 (node 1, GPU
    3) is set to never enter an all_reduce a little ahead, and before it gets there node
    1's GPU 3 falls off the bus; returns once the recovery asks for the replacement. Call
    it with the shared clock ticking (``Ticker``)."""
    engine = world.engine
    spec = write_spec(
        tmp_path,
        SPEC.format(name=name, run=TORCHRUN.format(ckpt=f"/shared/ckpt/{name}")),
        script=SCRIPT.format(steps=90),
    )
    with pytest.raises(LaunchNeedsApproval) as asked:
        engine.launch(spec)
    heard = threading.Event()
    engine.subscribe(ReplacementAsked, lambda e: heard.set())
    job = engine.launch(spec, quote=asked.value.quote).result(120)
    cluster = engine.cluster(str(job.cluster_id))
    assert cluster.gpus_per_node == 8 and len(cluster.running_nodes) == 2
    assert cluster.fabric != "none"  # a multi-node fabric
    node0, node1 = sorted(cluster.running_nodes, key=lambda n: n.rank)
    assert node1.external_id is not None and node0.external_id is not None
    wait_for("a checkpoint", lambda: (engine.job(str(job.id)).progress.step or 0) >= 12, 60)
    step = engine.job(str(job.id)).progress.step or 0
    at = (step + 8) * 4 + 3
    for node in (node0, node1):
        assert node.external_id is not None
        world.server.cloud.node_fault(
            node.external_id, {"fault": "nccl_watchdog", "hung_rank": 11, "at": at}
        )
    wait_for("two more steps", lambda: (engine.job(str(job.id)).progress.step or 0) > step + 1)
    xid_at = world.clock()
    world.server.cloud.node_fault(
        node1.external_id, {"fault": "xid", "code": 79, "gpu": 3, "kills": False}
    )
    if not heard.wait(120):
        pytest.fail(
            "no replacement asked for; history:\n"
            + "\n".join(e["message"] for e in engine.recent_events(60))
        )
    # the hang was the job's: node 0's ranks run on once node 1 is replaced
    world.server.cloud.node_fault(node0.external_id, {"fault": "clear", "kinds": ["nccl_watchdog"]})
    return Hung(job, cluster, node0, node1, at, xid_at)


@pytest.mark.timeout(300)  # a rental, a hang, a second rental after the yes, a resumed run
def test_a_hung_2x8_job_is_explained_with_its_xid_and_a_bound_replace_and_resume_card(
    make_world: MakeWorld, tmp_path: Path
) -> None:
    world = make_world(job_options=WATCHED, time_scale=0.02)
    engine = world.engine
    with Ticker(world.clock):
        hung = hang_until_the_ask(world, tmp_path)
        job, cluster, node0, node1 = hung.job, hung.cluster, hung.node0, hung.node1
        at, xid_at = hung.at, hung.xid_at
        now = engine.job(str(job.id))
        first = now.attempts[0]
        message = first.message or ""
        # the verdict: rank, node, collective; and the XID node 1 logged, from its kernel log
        assert first.cause == "nccl_timeout", message
        assert f"rank 11 on {node1.name} never entered all_reduce #{at} " in message
        assert "15 other rank(s) waited in it" in message
        assert f"; {node1.name} logged XID 79 (GPU has fallen off the bus) at " in message
        local = {time.strftime("%H:%M:%S", time.localtime(xid_at + d)) for d in (-1, 0, 1, 2, 3)}
        assert re.search(r" at (\d\d:\d\d:\d\d)", message.split("logged XID 79")[1])[1] in local  # type: ignore[index]
        lines = engine.job_logs(str(job.id), attempt=1)
        watchdog = [ln for ln in lines if "Watchdog caught collective operation timeout" in ln.text]
        (event,) = [e for e in engine.recent_events(500) if e.get("rule") == "job.hang_forensics"]
        assert watchdog and event["ts"] - min(ln.ts for ln in watchdog) <= 30.0
        worded = said_of(event)
        assert worded is not None and "记录了 XID 79（GPU 已从总线脱落）" in worded.in_language(
            "zh"
        )

        # the card: one node of the cluster's GPU, size, region and fabric, joining it
        (ask,) = engine.replacement_asks()
        assert ask.nodes == (node1.name,)
        quote = ask.quote
        assert (quote.nodes, quote.gpus_per_node, quote.gpu) == (1, 8, "A800")
        assert (quote.region, quote.fabric) == (cluster.region, cluster.fabric)
        assert quote.joins == cluster.external_id
        assert ask.resume_from is not None and ask.resume_step is not None
        assert ask.resume_from == f"/shared/ckpt/fr/checkpoint-{ask.resume_step}"
        described = ask.describe()
        assert f"rank 11 on {node1.name} never entered all_reduce #{at}" in described
        assert f"replacing {node1.name} of {cluster.name} rents" in described
        assert f"resumes from {ask.resume_from} (step {ask.resume_step})" in described
        chinese = ask.said().in_language("zh")
        assert f"更换 {cluster.name} 的 {node1.name} 将租用" in chinese
        assert f"随后作业从 {ask.resume_from}（第 {ask.resume_step} 步）继续" in chinese
        assert "记录了 XID 79" in chinese
        card = engine.action("replace_and_resume", str(job.id), asked_by="user")
        assert card.inputs["resume_from"] == ask.resume_from
        assert card.inputs["replaces"] == [node1.name]
        assert card.quote is not None and card.quote["digest"] == quote.digest
        assert card.quote["joins"] == cluster.external_id
        assert [t.id for t in card.of_kind("job")] == [job.id]
        # the digest covers the checkpoint: a card naming another one is refused, renting nothing
        other = dataclasses.replace(
            card, inputs={**card.inputs, "resume_from": "/shared/ckpt/fr/checkpoint-0"}, digest=""
        )
        with pytest.raises(ApprovalMismatch):
            engine.approve_replacement(str(job.id), quote.digest, approved=other)
        assert len(world.provider.clusters()) == 1  # nothing rented before the yes

        engine.approve_replacement(str(job.id), quote.digest, approved=card)

        def second_running():  # type: ignore[no-untyped-def]
            j = engine.job(str(job.id))
            return j if len(j.attempts) >= 2 and j.attempts[1].resumed_from else None

        second = wait_for("the resumed attempt", second_running, 120).attempts[1]
        clusters = world.provider.clusters()
        (extra,) = [c for c in clusters if c.external_id != cluster.external_id]
        assert (extra.gpu_count, extra.fabric, extra.region) == (8, cluster.fabric, cluster.region)
        assert second.resumed_from == ask.resume_from and second.resume_step == ask.resume_step
        assert node1.id not in {n.node_id for n in second.nodes}
        assert node0.id in {n.node_id for n in second.nodes}
        done = finished(engine, job.id, timeout=180)
    assert done.state is JobState.SUCCEEDED, done.error
    data = json.loads(event["data_json"])
    assert data["culprit_ranks"] == [11] and data["nodes"] == [node1.name]


@pytest.mark.timeout(300)
def test_at_the_terminal_a_yes_to_the_hang_s_replacement_resumes_from_the_checkpoint_shown(
    make_world: MakeWorld, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``xyclaw logs J -f`` asks at the terminal: it shows the verdict, the quote and the
    checkpoint; the yes is the bound ``replace_and_resume`` card."""
    from xyclaw.cli.commands.jobs import _answer_replacement
    from xyclaw.cli.context import CliContext
    from xyclaw.paths import AppPaths

    world = make_world(job_options=WATCHED, time_scale=0.02)
    err = io.StringIO()
    ctx = CliContext(AppPaths.from_environment(), err=err)
    monkeypatch.setattr("sys.stdin.isatty", lambda: True)
    monkeypatch.setattr("builtins.input", lambda prompt: "y")
    with Ticker(world.clock):
        hung = hang_until_the_ask(world, tmp_path, "clifr")
        (ask,) = world.engine.replacement_asks()
        _answer_replacement(ctx, world.engine, hung.job.id)
        done = finished(world.engine, hung.job.id, timeout=180)
    shown = err.getvalue()
    assert f"rank 11 on {hung.node1.name} never entered all_reduce #{hung.at}" in shown
    assert f"the job then resumes from {ask.resume_from} (step {ask.resume_step})" in shown
    assert done.state is JobState.SUCCEEDED, done.error
    assert done.attempts[1].resumed_from == ask.resume_from
    assert len(world.provider.clusters()) == 2
